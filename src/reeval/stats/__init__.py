"""Statistics for IR evaluation, on per-topic scores: ``from reeval.stats import holm, tukey_hsd``.

- :mod:`reeval.stats.paired`: two runs over the same topics (:func:`paired_t`,
  :func:`wilcoxon_test`, :func:`sign_test`, the dispatcher :func:`paired_test`) and the
  same tests on many rows of differences at once (:func:`ttest_rows`,
  :func:`wilcoxon_rows`, :func:`sign_test_counts`).
- :mod:`reeval.stats.resampling`: the permutation and bootstrap paired tests
  (:func:`permutation_test`, :func:`bootstrap_test`; :func:`permutation_rows`,
  :func:`bootstrap_rows`).
- :mod:`reeval.stats.multiple`: p-value adjustment (:func:`p_adjust`, :func:`bonferroni`,
  :func:`holm`, :func:`benjamini_hochberg`).
- :mod:`reeval.stats.allpairs`: every pair of runs of a track (:func:`all_pairs_ttest`,
  the parametric :func:`tukey_hsd`).
- :mod:`reeval.stats.randomised`: the randomised Tukey HSD of scores and of pairwise
  preferences (:func:`randomised_tukey_hsd`, :func:`randomised_tukey_hsd_preferences`).
- :mod:`reeval.stats.comparisons`: every pair under every test (:func:`all_pairs_tests`)
  and :func:`discriminative_power`.
- :mod:`reeval.stats.unpaired`: one sample against a value and two independent samples
  (:func:`one_sample_test`, :func:`two_sample_test`: t, Wilcoxon / rank-sum, bootstrap).
- :mod:`reeval.stats.correlation`: :func:`kendall_tau` and :func:`tau_ap` between two
  orderings of runs.
- :mod:`reeval.stats.frames`: the forms scores may take (:func:`score_matrix`).

Inputs are numpy arrays of per-topic scores (one run: shape ``(T,)``; a track:
``(S, T)``, runs x topics, the same topic order in every row) or the frames of
``reeval.evaluate``: its per-topic frame (index ``run``, ``query_id``) with one measure
for the runs x topics functions, one run's per-topic Series for the two-run tests, a
per-run column for the correlations. Outputs are plain dicts (one comparison) or tidy
pandas DataFrames (one row per pair of runs, per level, ...). Every function is pure; the
randomized ones draw from ``numpy.random.default_rng(seed)`` only, so a seed gives the
same p-value on every call and in every process. Names are imported on first use, and
scipy by the functions that use it (``scipy.stats`` takes 0.3-1 s to import).
"""

from importlib import import_module

#: public name -> the submodule defining it
_NAMES = {
    "paired": ("paired_t", "wilcoxon_test", "sign_test", "paired_test", "ttest_rows", "wilcoxon_rows",
               "sign_test_counts", "PAIRED_TESTS", "ALTERNATIVES"),
    "conventions": ("t_confidence_interval", "effect_size_dz"),
    "resampling": ("permutation_test", "bootstrap_test", "permutation_rows", "bootstrap_rows"),
    "multiple": ("p_adjust", "bonferroni", "holm", "benjamini_hochberg", "CORRECTIONS"),
    "allpairs": ("all_pairs_ttest", "tukey_hsd", "HSD_DESIGNS"),
    "randomised": ("randomised_tukey_hsd", "randomised_tukey_hsd_preferences", "HSD_RESAMPLES",
                   "mc_standard_error"),
    "comparisons": ("all_pairs_tests", "discriminative_power", "ALL_PAIRS_TESTS", "PAIR_CORRECTIONS"),
    "unpaired": ("one_sample_test", "two_sample_test", "ONE_SAMPLE_TESTS", "TWO_SAMPLE_TESTS"),
    "correlation": ("kendall_tau", "tau_ap"),
    "frames": ("score_matrix",),
}
_WHERE = {name: module for module, names in _NAMES.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    """``reeval.stats.holm`` and the other public names, from their submodule on first use."""
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'reeval.stats' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
