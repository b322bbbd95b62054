"""What every paired test shares (the conventions stated in :mod:`reeval.stats.paired`): checking
the alternative, the confidence level and two per-topic score vectors; p-values from null tails and
from Student's t; the ratio with 0/0 = 0; Cohen's d_z; the t-based interval of the mean difference;
the result dict. Used by :mod:`reeval.stats.paired`, :mod:`reeval.stats.resampling` and the tests
built on them.
"""

from __future__ import annotations

import math

import numpy as np

from reeval.choices import ALTERNATIVES
from reeval.errors import InputError

from .frames import aligned

_RESULT_KEYS = ("mean_a", "mean_b", "diff", "statistic", "p_value", "ci_low", "ci_high",
                "effect_size", "n")


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise InputError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")


def _check_confidence(confidence: float) -> None:
    if isinstance(confidence, (str, bytes, bool)) or not 0.0 < confidence < 1.0:
        raise InputError(f"confidence must be a number in (0, 1), got {confidence!r}")


def _paired(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate two per-topic score vectors (same length, 1-D, finite) as float64; two
    Series (one run's values from ``reeval.evaluate(per_topic=True)``, e.g.
    ``by_topic.loc["runA", "AP"]``) are aligned on their topics first."""
    x, y = aligned(x, y, "x and y")
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise InputError(f"x and y must be 1-D of the same length, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise InputError("x and y must be finite (no NaN or inf)")
    return x, y


def _p_from_null_tails(p_greater, p_less, alternative: str):
    """Two-sided p = min(1, 2 min(P_greater, P_less)) (symmetric nulls); else one tail."""
    if alternative == "greater":
        return p_greater
    if alternative == "less":
        return p_less
    return np.minimum(1.0, 2.0 * np.minimum(p_greater, p_less))


def _t_pvalue(t, df, alternative: str):
    """p-value of Student's t with ``df`` degrees of freedom (vectorized)."""
    from .distributions import t_cdf, t_sf

    t = np.asarray(t, dtype=np.float64)
    if alternative == "greater":
        return t_sf(t, df)
    if alternative == "less":
        return t_cdf(t, df)
    return np.minimum(1.0, 2.0 * t_sf(np.abs(t), df))


def _ratio(num, den):
    """num / den elementwise, with 0/0 = 0 and c/0 = +-inf (no warnings)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out = np.where(den == 0, np.where(num == 0, 0.0, np.copysign(np.inf, num)), out)
    return out if out.ndim else float(out)


#: differences whose spread (max - min) is at most this fraction of their largest magnitude
#: are one constant difference written with rounding errors (0.9 - 0.8 and 0.7 - 0.6 differ
#: in the 17th digit): their sd is 0, not the 1e-17 that made d_z 7e15
CONSTANT_SPREAD = 1e-10


def difference_sd(D, axis=None):
    """The sample sd (ddof=1) of differences ``D`` along ``axis``: 0 where their spread is
    rounding noise (:data:`CONSTANT_SPREAD` of their largest magnitude)."""
    D = np.asarray(D, dtype=np.float64)
    sd = D.std(axis=axis, ddof=1)
    spread = D.max(axis=axis) - D.min(axis=axis)
    return np.where(spread <= CONSTANT_SPREAD * np.abs(D).max(axis=axis), 0.0, sd)


def effect_size_dz(d) -> float:
    """Cohen's d_z of paired differences: mean(d) / sd(d), sd with ddof=1 (unitless).

    Edge cases: NaN for fewer than 2 differences; when sd(d) = 0 (or the differences are
    one constant up to rounding, :func:`difference_sd`), 0 if mean(d) = 0 and +-inf
    otherwise.
    """
    d = np.asarray(d, dtype=np.float64)
    if d.size < 2:
        return math.nan
    return float(_ratio(d.mean(), difference_sd(d)))


def t_confidence_interval(d, confidence: float = 0.95,
                          alternative: str = "two-sided") -> tuple[float, float]:
    """t-based confidence interval for the mean of ``d`` (units of ``d``).

    Two-sided: mean +- t_{(1+c)/2, n-1} * sd / sqrt(n); "greater": [mean - t_{c, n-1} *
    sd / sqrt(n), inf); "less": (-inf, mean + t_{c, n-1} * sd / sqrt(n)]. sd has ddof=1.
    NaN bounds for fewer than 2 values; a zero sd gives the degenerate [mean, mean].
    """
    from .distributions import t_ppf

    _check_alternative(alternative)
    _check_confidence(confidence)
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    if n < 2:
        return math.nan, math.nan
    mean = float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    if alternative == "two-sided":
        half = float(t_ppf((1 + confidence) / 2, n - 1)) * se
        return mean - half, mean + half
    half = float(t_ppf(confidence, n - 1)) * se
    return (mean - half, math.inf) if alternative == "greater" else (-math.inf, mean + half)


def _result(x, y, statistic, p_value, ci, effect) -> dict:
    return dict(zip(_RESULT_KEYS, (
        float(x.mean()) if x.size else math.nan,
        float(y.mean()) if y.size else math.nan,
        float((x - y).mean()) if x.size else math.nan,
        float(statistic), float(p_value), float(ci[0]), float(ci[1]), float(effect),
        int(x.size))))
