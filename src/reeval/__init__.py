"""reeval: reanalysis of IR evaluation campaigns (TREC-style qrels and runs)."""

__version__ = "0.1.0"
