"""The three papers' published numbers (published.yaml), read by :mod:`.published` for the
comparisons each study writes beside its tables."""
