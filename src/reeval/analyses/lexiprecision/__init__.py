"""Lexicographic precision, the lexiprecision paper's study: position vectors and pair
preferences (core), the tests of the pairs (significance), ties (ties), figures 2-9 (figures), the workflow steps (report) and the
paper's tables beside ours (paper)."""
