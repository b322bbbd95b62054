"""Statistics for IR evaluation, on per-topic scores.

- :mod:`reeval.stats.paired`: two runs over the same topics (t, Wilcoxon, sign; the
  dispatcher :func:`~reeval.stats.paired.paired_test`; row-wise t and sign tests).
- :mod:`reeval.stats.resampling`: the permutation and bootstrap paired tests.
- :mod:`reeval.stats.multiple`: p-value adjustment (Bonferroni, Holm, Benjamini-Hochberg).
- :mod:`reeval.stats.allpairs`: every pair of runs of a track (paired t-tests, Tukey's HSD).
- :mod:`reeval.stats.correlation`: Kendall's tau and tau_AP between two orderings.

Inputs are numpy arrays of per-topic scores (one run: shape ``(T,)``; a track:
``(S, T)``, runs x topics, the same topic order in every row); outputs are plain dicts
(one comparison) or tidy pandas DataFrames (one row per pair of runs, per level, ...).
Every function is pure; the randomized ones draw from ``numpy.random.default_rng(seed)``
only, so a seed gives the same p-value on every call and in every process. scipy is
imported by the functions that use it (``scipy.stats`` takes 0.3-1 s to import).
"""
