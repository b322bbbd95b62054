"""Every pair of runs under every test: the table behind ``reeval.compare_runs``, and
discriminative power (Sakai: the share of run pairs a test finds significantly different).

Tests (:data:`ALL_PAIRS_TESTS`): the paired tests ``t``, ``wilcoxon``, ``sign``,
``permutation`` and ``bootstrap`` (two runs at a time, vectorised over all pairs:
:func:`~reeval.stats.paired.ttest_rows`, :func:`~reeval.stats.paired.wilcoxon_rows`,
:func:`~reeval.stats.paired.sign_test_counts`,
:func:`~reeval.stats.resampling.permutation_rows`,
:func:`~reeval.stats.resampling.bootstrap_rows`), whose p-values a ``correction``
adjusts over the family of pairs; and the all-run procedures ``tukey_hsd``
(topic-blocked, :func:`~reeval.stats.allpairs.tukey_hsd`) and ``randomised_tukey_hsd``
(:func:`~reeval.stats.randomised.randomised_tukey_hsd`), whose p-values already hold for
all pairs at once (``p_adjusted`` = ``p_value``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reeval.choices import ALL_PAIRS_TESTS, PAIR_CORRECTIONS, PAIRED_TESTS  # the choices, re-exported
from reeval.errors import InputError

from .checks import check_resamples, check_seed
from .frames import score_matrix

#: Tests that adjust for all pairs themselves (their p-values are simultaneous).
TUKEY_TESTS = tuple(t for t in ALL_PAIRS_TESTS if t not in PAIRED_TESTS)
#: Pairs x topics cells (and pairs x resamples cells) of differences held at once.
PAIR_CHUNK_CELLS = 1 << 22
COLUMNS = ("test", "run_a", "run_b", "mean_a", "mean_b", "diff", "effect_size", "p_value", "p_adjusted",
           "ci_method", "ci_low", "ci_high", "topics_a_higher", "topics_a_lower")


def pairs_of(S: int, baseline: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) row indices of the pairs compared: every i < j (``numpy.triu_indices``
    order), or each other run against ``baseline`` (a = the run, b = the baseline)."""
    if baseline is None:
        return np.triu_indices(S, 1)
    others = np.array([s for s in range(S) if s != baseline], dtype=np.int64)
    return others, np.full(others.size, baseline, dtype=np.int64)


def _triu_position(a: np.ndarray, b: np.ndarray, S: int) -> np.ndarray:
    """Index of pair {a, b} in ``numpy.triu_indices(S, 1)`` order."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo * S - lo * (lo + 1) // 2 + (hi - lo - 1)


#: What produced each test's interval of the mean difference ("" = none: the Wilcoxon,
#: sign and permutation tests and the randomised HSD test no mean and give none).
CI_METHODS = {"t": "t", "bootstrap": "bootstrap percentile", "tukey_hsd": "Tukey simultaneous"}


def t_interval_rows(D: np.ndarray, confidence: float = 0.95, alternative: str = "two-sided"):
    """(low, high) t-based intervals of each row's mean, as
    :func:`reeval.stats.paired.t_confidence_interval` row by row."""
    from .distributions import t_ppf

    n = D.shape[1]
    if n < 2:
        nan = np.full(len(D), np.nan)
        return nan, nan.copy()
    mean = D.mean(axis=1)
    se = D.std(axis=1, ddof=1) / math.sqrt(n)
    if alternative == "two-sided":
        half = t_ppf((1 + confidence) / 2, n - 1) * se
        return mean - half, mean + half
    half = t_ppf(confidence, n - 1) * se
    if alternative == "greater":
        return mean - half, np.full(len(D), math.inf)
    return np.full(len(D), -math.inf), mean + half


def _row_tests(D: np.ndarray, test: str, alternative: str, seed: int, resamples: int):
    """(p, ci_low, ci_high) of the paired ``test`` of each row of differences D (pairs x
    topics); NaN bounds for the tests without an interval (:data:`CI_METHODS`)."""
    from . import paired, resampling

    none = np.full(len(D), np.nan)
    if test == "t":
        return (paired.ttest_rows(D, alternative)["p_value"], *t_interval_rows(D, alternative=alternative))
    if test == "bootstrap":
        r = resampling.bootstrap_rows(D, alternative, seed, resamples)
        return r["p_value"], r["ci_low"], r["ci_high"]
    if test == "wilcoxon":
        p = paired.wilcoxon_rows(D, alternative)["p_value"]
    elif test == "sign":
        p = paired.sign_test_counts((D > 0).sum(axis=1), (D < 0).sum(axis=1), alternative)
    else:
        p = resampling.permutation_rows(D, alternative, seed, resamples)["p_value"]
    return p, none, none.copy()


def _paired_tests(X, a, b, test, alternative, seed, resamples):
    """A paired test on every pair (a[k], b[k]): (p, ci_low, ci_high), differences formed
    in chunks of pairs (every chunk draws the same resamples, so chunking does not change
    a p-value)."""
    T = X.shape[1]
    width = max(T, resamples if test in ("permutation", "bootstrap") else 1, 1)
    step = max(1, PAIR_CHUNK_CELLS // width)
    out = np.empty((3, a.size))
    for lo in range(0, a.size, step):  # chunks of pairs: a memory bound
        hi = min(a.size, lo + step)
        out[:, lo:hi] = _row_tests(X[a[lo:hi]] - X[b[lo:hi]], test, alternative, seed, resamples)
    return out[0], out[1], out[2]


def _tukey_tests(X, a, b, test, seed, resamples):
    """(p, ci_low, ci_high) of an all-run procedure for the pairs (a, b), read from its i < j
    table (a pair given as (j, i) has its interval mirrored)."""
    from .allpairs import tukey_hsd
    from .randomised import randomised_tukey_hsd

    k = _triu_position(a, b, X.shape[0])
    if test == "randomised_tukey_hsd":
        p = randomised_tukey_hsd(X, resamples=resamples, seed=seed).p_value.to_numpy()[k]
        return p, np.full(a.size, np.nan), np.full(a.size, np.nan)
    table = tukey_hsd(X)
    low, high = table.ci_low.to_numpy()[k], table.ci_high.to_numpy()[k]
    flip = a > b
    return table.p_value.to_numpy()[k], np.where(flip, -high, low), np.where(flip, -low, high)


def pair_tests(X: np.ndarray, a, b, test: str = "t", alternative: str = "two-sided",
               seed: int = 0, resamples: int = 10000):
    """(p_value, ci_low, ci_high) arrays of ``test`` (one of :data:`ALL_PAIRS_TESTS`) for
    the pairs of rows (a[k], b[k]) of a runs x topics matrix; "greater" means run a
    better. Intervals (95%) of the mean difference a - b as :data:`CI_METHODS` says, NaN
    for the other tests. The Tukey procedures are two-sided only. Fewer than 2 topics:
    NaN for t, bootstrap and the Tukey tests."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if test not in ALL_PAIRS_TESTS:
        raise InputError(f"tests must be among {', '.join(ALL_PAIRS_TESTS)}; got {test!r}")
    if test in TUKEY_TESTS:
        if alternative != "two-sided":
            raise InputError(f"{test} is two-sided; got alternative {alternative!r}")
        if X.shape[1] < 2 or a.size == 0:
            nan = np.full(a.size, np.nan)
            return nan, nan.copy(), nan.copy()
        return _tukey_tests(X, a, b, test, seed, resamples)
    return _paired_tests(X, a, b, test, alternative, seed, resamples)


def _effect_sizes(X, a, b) -> np.ndarray:
    """Cohen's d_z = mean(d) / sd(d) (ddof 1) of each pair; NaN below 2 topics; +-inf for
    a constant difference, rounding included (:func:`.conventions.difference_sd`)."""
    from .conventions import _ratio, difference_sd

    if X.shape[1] < 2 or a.size == 0:
        return np.full(a.size, np.nan)
    D = X[a] - X[b]
    return np.asarray(_ratio(D.mean(axis=1), difference_sd(D, axis=1)), dtype=np.float64).reshape(-1)


def _adjusted(p: np.ndarray, test: str, correction: str) -> np.ndarray:
    from .multiple import p_adjust

    if test in TUKEY_TESTS or correction == "none":
        return p.copy()
    return p_adjust(p, correction)


def _check_choices(tests, correction: str) -> list:
    tests = [tests] if isinstance(tests, str) else list(tests)
    bad = [t for t in tests if t not in ALL_PAIRS_TESTS]
    if bad or not tests:
        raise InputError(f"tests must be among {', '.join(ALL_PAIRS_TESTS)}; got {bad[0] if bad else 'none'!r}")
    if correction not in PAIR_CORRECTIONS:
        raise InputError(f"correction must be one of {', '.join(PAIR_CORRECTIONS)}; got {correction!r}")
    return tests


def all_pairs_tests(scores, runs=None, tests=("t",), correction: str = "holm", baseline=None,
                    alternative: str = "two-sided", seed: int = 0, resamples: int = 10000) -> pd.DataFrame:
    """Every pair of runs (or each run against ``baseline``, a run's name or row index:
    :func:`baseline_name`) under each of ``tests``, one row per (test, pair).

    ``scores``: runs x topics (a matrix, or ``reeval.evaluate(per_topic=True)``'s frame
    with one measure, :func:`reeval.stats.frames.score_matrix`). Columns :data:`COLUMNS`:
    test, run_a, run_b, mean_a, mean_b, diff = mean_a - mean_b, effect_size (Cohen's
    d_z), p_value, p_adjusted (``correction`` over the pairs of the test: "holm",
    "bonferroni", "bh" or "none"; the Tukey tests' own p-values are simultaneous and
    kept), ci_method, ci_low, ci_high (95% interval of diff: t, bootstrap percentile,
    Tukey simultaneous; none for the other tests, see :data:`CI_METHODS`),
    topics_a_higher and topics_a_lower (the topics where run_a scores above / below
    run_b; ties and undefined values, such as ASL without a relevant document, in neither).
    ``seed``/``resamples`` fix the permutation, bootstrap and randomised HSD.
    """
    tests = _check_choices(tests, correction)
    seed, resamples = check_seed(seed), check_resamples(resamples, "resamples")
    X, labels, _ = score_matrix(scores, runs)
    S = X.shape[0]
    a, b = pairs_of(S, _baseline_row(baseline, labels))
    means = X.mean(axis=1) if X.shape[1] else np.full(S, np.nan)
    effect = _effect_sizes(X, a, b)
    higher, lower = (X[a] > X[b]).sum(axis=1), (X[a] < X[b]).sum(axis=1)
    frames = []
    for test in tests:
        p, low, high = pair_tests(X, a, b, test, alternative, seed, resamples)
        frames.append(pd.DataFrame({"test": test, "run_a": labels[a], "run_b": labels[b],
                                    "mean_a": means[a], "mean_b": means[b], "diff": means[a] - means[b],
                                    "effect_size": effect, "p_value": p, "p_adjusted": _adjusted(p, test, correction),
                                    "ci_method": CI_METHODS.get(test, ""), "ci_low": low, "ci_high": high,
                                    "topics_a_higher": higher, "topics_a_lower": lower}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(COLUMNS))


def baseline_name(baseline, names):
    """The run of ``names`` that ``baseline`` designates, or None (no baseline).

    A string is a run's name; an integer (Python's or numpy's, not a bool) is an index
    into ``names``, 0 to len(names) - 1, as PyTerrier's ``Experiment(baseline=0)``. The
    type decides, so a run named ``"0"`` is ``baseline="0"`` and ``baseline=0`` is the first
    run whatever its name. Anything else, a name not among ``names`` or an index out of
    range is an InputError naming what was expected.
    """
    import numbers

    names = [str(n) for n in names]
    if baseline is None:
        return None
    if isinstance(baseline, numbers.Integral) and not isinstance(baseline, (bool, np.bool_)):
        if not 0 <= baseline < len(names):
            raise InputError(f"baseline {int(baseline)} is not an index of the {len(names)} runs given "
                             f"(0 to {len(names) - 1}): {', '.join(names)}")
        return names[int(baseline)]
    if not isinstance(baseline, str):
        raise InputError(f"baseline must be a run's name (a str) or its index (an int); got {baseline!r}")
    if baseline not in names:
        raise InputError(f"baseline {baseline!r} is not one of the runs: {', '.join(names)}")
    return baseline


def _baseline_row(baseline, labels) -> int | None:
    """The row of :func:`baseline_name` in ``labels``, or None."""
    name = baseline_name(baseline, labels)
    return None if name is None else [str(label) for label in labels].index(name)


def discriminative_power(scores, test: str = "randomised_tukey_hsd", alpha: float = 0.05,
                         correction: str = "holm", seed: int = 0, resamples: int = 2000) -> pd.DataFrame:
    """Discriminative power (Sakai 2006): the share of run pairs significantly different
    at ``alpha`` under ``test`` (p_adjusted < alpha; ``correction`` for the paired tests).

    ``scores``: a runs x topics matrix, or ``reeval.evaluate(per_topic=True)``'s frame with
    any number of measures (one row per measure). Returns measure (None for a matrix),
    test, n_pairs, n_significant, percent. The randomised HSD's default B = 2000 keeps
    the Monte Carlo error of a p-value near 0.05 at 0.0049.
    """
    if isinstance(alpha, (str, bytes, bool)) or not 0 < alpha < 1:
        raise InputError(f"alpha must be a number in (0, 1); got {alpha!r}")
    columns = list(scores.columns) if isinstance(scores, pd.DataFrame) and scores.index.nlevels == 2 else [None]
    rows = []
    for measure in columns:
        data = scores if measure is None else scores[measure]
        table = all_pairs_tests(data, tests=(test,), correction=correction, seed=seed, resamples=resamples)
        k, n = int((table.p_adjusted < alpha).sum()), len(table)
        rows.append({"measure": measure, "test": test, "n_pairs": n, "n_significant": k,
                     "percent": 100.0 * k / n if n else math.nan})
    return pd.DataFrame(rows)
