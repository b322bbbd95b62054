"""Multiple comparisons: adjusting a family of p-values (Bonferroni, Holm, Benjamini-Hochberg).
"""

from __future__ import annotations

import numpy as np

from reeval.errors import InputError

from .checks import probabilities

CORRECTIONS = ("bonferroni", "holm", "bh")


def p_adjust(p, method: str = "holm") -> np.ndarray:
    """Adjust a vector of p-values for multiple comparisons (any shape, NaN kept).

    With m the number of non-NaN p-values and p_(1) <= ... <= p_(m):

    - "bonferroni": min(1, m p).
    - "holm" (step-down): adj_(k) = min(1, max_{j <= k} (m - j + 1) p_(j)).
    - "bh" (Benjamini-Hochberg FDR step-up): adj_(k) = min(1, min_{j >= k} m p_(j) / j).

    These equal ``statsmodels.stats.multitest.multipletests`` methods "bonferroni",
    "holm" and "fdr_bh". NaN entries stay NaN and do not count in m. A pandas Series
    (a column of p-values) gives a Series with its index. A value outside [0, 1], or
    not a number, is an InputError (:func:`reeval.stats.checks.probabilities`).
    """
    if method not in CORRECTIONS:
        raise InputError(f"method must be one of {CORRECTIONS}, got {method!r}")
    if hasattr(p, "index") and hasattr(p, "to_numpy"):
        import pandas as pd

        return pd.Series(p_adjust(p.to_numpy(), method), index=p.index, name=p.name)
    p = probabilities(p)
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    ok = ~np.isnan(flat)
    vals = flat[ok]
    m = vals.size
    if m == 0:
        return out
    if method == "bonferroni":
        adj = np.minimum(1.0, m * vals)
    else:
        order = np.argsort(vals, kind="stable")
        ps = vals[order]
        k = np.arange(1, m + 1)
        if method == "holm":
            adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - k + 1) * ps))
        else:
            adj_sorted = np.minimum(1.0, np.minimum.accumulate((m * ps / k)[::-1])[::-1])
        adj = np.empty(m)
        adj[order] = adj_sorted
    res = out.ravel()
    res[ok] = adj
    return res.reshape(p.shape)


def bonferroni(p) -> np.ndarray:
    """Bonferroni-adjusted p-values, :func:`p_adjust` with method "bonferroni"."""
    return p_adjust(p, "bonferroni")


def holm(p) -> np.ndarray:
    """Holm step-down adjusted p-values, :func:`p_adjust` with method "holm"."""
    return p_adjust(p, "holm")


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini-Hochberg FDR adjusted p-values, :func:`p_adjust` with method "bh"."""
    return p_adjust(p, "bh")
