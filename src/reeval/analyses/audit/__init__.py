"""The audit of official figures: every published figure of a track's runs beside
reeval's, each equal, explained by a named cause, or unexplained (docs/audit.md).

- :mod:`.official`: the published figures read into one long table (two file formats);
- :mod:`.settings`: the evaluation settings a block was computed with, the lattice of
  settings searched when a figure differs, and the causes that set one apart from another;
- :mod:`.core`: the audit itself, given a function that evaluates the track under a setting.
"""
