"""One-sample and unpaired two-sample tests (the lecture notes' "hypothesis testing":
one-sample, "is the system's response time under 1 sec.?"; two-sample, "does the system
perform equally well on these two types of queries?").

- One sample x against a value mu (:func:`one_sample_test`): the t-test, the Wilcoxon
  signed-rank test and the bootstrap test, which are :mod:`.paired`'s and
  :mod:`.resampling`'s tests on the differences x - mu (the same code, the same
  conventions: zeros dropped by Wilcoxon, a studentized bootstrap, p = (1 + count) /
  (1 + B)).
- Two independent samples x (n values) and y (m values) (:func:`two_sample_test`):
  Welch's t-test (unequal variances; ``equal_var=True``: Student's pooled test), the
  Wilcoxon rank-sum / Mann-Whitney U test (``scipy.stats.mannwhitneyu``: U of x, exact
  for small samples without ties, else the normal approximation with tie and
  continuity corrections), and the notes' two-sample bootstrap: pool x and y, draw B
  samples of n + m with replacement, call the first n x* and the rest y*, theta* =
  mean(x*) - mean(y*) against theta = mean(x) - mean(y); p = (1 + #{theta* >= theta}) /
  (1 + B) for "greater" (the notes' #{theta* >= theta} / B, never 0), <= for "less",
  |theta*| >= |theta| for "two-sided".

``alternative``: "two-sided", "greater" (H1: x's mean above mu, or above y's) or "less".
Results are dicts: test, statistic, p_value, the means, diff, n (or n_x, n_y). Values
must be finite; fewer than 2 values give NaN statistic and p.
"""

from __future__ import annotations

import numpy as np

from reeval.errors import InputError

from .conventions import _check_alternative

ONE_SAMPLE_TESTS = ("t", "wilcoxon", "bootstrap")
TWO_SAMPLE_TESTS = ("t", "rank_sum", "bootstrap")


def _sample(values, name: str) -> np.ndarray:
    """A 1-D finite float64 sample (InputError otherwise)."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        raise InputError(f"{name} must be 1-D, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise InputError(f"{name} must be finite (no NaN or inf)")
    return x


def one_sample_test(x, mu: float = 0.0, test: str = "t", alternative: str = "two-sided", seed: int = 0,
                    n_resamples: int = 10000) -> dict:
    """Test whether the mean (t, bootstrap) or the median (Wilcoxon) of ``x`` differs from
    ``mu``: the row tests of :mod:`.paired` / :mod:`.resampling` on d = x - mu.
    Returns test, statistic (t; Wilcoxon's sum of signed ranks W+ - W-; the bootstrap's
    studentized t), p_value, mean, mu, diff = mean - mu, n."""
    from .paired import ttest_rows, wilcoxon_rows
    from .resampling import bootstrap_rows

    if test not in ONE_SAMPLE_TESTS:
        raise ValueError(f"test must be one of {ONE_SAMPLE_TESTS}, got {test!r}")
    _check_alternative(alternative)
    x = _sample(x, "x")
    d = (x - float(mu))[None, :]
    if test == "t":
        r = ttest_rows(d, alternative)
    elif test == "wilcoxon":
        r = wilcoxon_rows(d, alternative)
    else:
        r = bootstrap_rows(d, alternative, seed, n_resamples)
    mean = float(x.mean()) if x.size else float("nan")
    statistic = r["t"] if test == "t" else r["statistic"]
    return {"test": test, "statistic": float(statistic[0]), "p_value": float(r["p_value"][0]),
            "mean": mean, "mu": float(mu), "diff": mean - float(mu), "n": int(x.size)}


def two_sample_test(x, y, test: str = "t", alternative: str = "two-sided", equal_var: bool = False,
                    seed: int = 0, n_resamples: int = 10000) -> dict:
    """Test whether two independent samples differ (see the module doc): ``test`` "t"
    (Welch; Student's with ``equal_var``), "rank_sum" (Mann-Whitney U of x) or
    "bootstrap" (the notes' pooled bootstrap of the difference of means). Returns test,
    statistic, p_value, mean_x, mean_y, diff = mean_x - mean_y, n_x, n_y."""
    if test not in TWO_SAMPLE_TESTS:
        raise ValueError(f"test must be one of {TWO_SAMPLE_TESTS}, got {test!r}")
    _check_alternative(alternative)
    x, y = _sample(x, "x"), _sample(y, "y")
    if x.size < 2 or y.size < 2:
        statistic, p = float("nan"), float("nan")
    elif test == "bootstrap":
        statistic, p = pooled_bootstrap(x, y, alternative, seed, n_resamples)
    else:
        from scipy import stats

        found = (stats.ttest_ind(x, y, equal_var=equal_var, alternative=alternative) if test == "t"
                 else stats.mannwhitneyu(x, y, alternative=alternative))
        statistic, p = float(found.statistic), float(found.pvalue)
    mean_x = float(x.mean()) if x.size else float("nan")
    mean_y = float(y.mean()) if y.size else float("nan")
    return {"test": test, "statistic": statistic, "p_value": p, "mean_x": mean_x, "mean_y": mean_y,
            "diff": mean_x - mean_y, "n_x": int(x.size), "n_y": int(y.size)}


def pooled_bootstrap(x: np.ndarray, y: np.ndarray, alternative: str, seed: int,
                     n_resamples: int) -> tuple[float, float]:
    """(theta, p) of the two-sample bootstrap test (module doc): resamples of the pooled
    values drawn by ``numpy.random.default_rng(seed).integers(0, n + m, (B, n + m))``."""
    if n_resamples < 1:
        raise InputError(f"n_resamples must be at least 1, got {n_resamples}")
    pooled, n = np.concatenate([x, y]), x.size
    theta = float(x.mean() - y.mean())
    draws = pooled[np.random.default_rng(seed).integers(0, pooled.size, (n_resamples, pooled.size))]
    star = draws[:, :n].mean(axis=1) - draws[:, n:].mean(axis=1)
    if alternative == "greater":
        count = (star >= theta).sum()
    elif alternative == "less":
        count = (star <= theta).sum()
    else:
        count = (np.abs(star) >= abs(theta)).sum()
    return theta, float((1 + count) / (1 + n_resamples))
