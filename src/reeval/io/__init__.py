"""Reading TREC files and writing tables: one read of every input, the compiled kernels, ingest into the central tables."""
