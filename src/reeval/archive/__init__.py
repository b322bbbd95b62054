"""The TREC archive: the study's track manifest, downloads, unpacking, which tracks enter."""
