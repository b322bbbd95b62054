"""Synthetic TREC tracks and the simulated campaign with the study's shape."""
