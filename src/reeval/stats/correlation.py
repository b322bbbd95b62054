"""Rank correlation of two system orderings: Kendall's tau and tau_AP.
"""

from __future__ import annotations

import math

import numpy as np

from reeval.errors import InputError

from .frames import aligned
from .resampling import _chunk_rows


#: Vectors up to this length are counted pair by pair (numpy, no scipy import: at most
#: 0.5 M pairs, about what importing scipy.stats costs); longer ones by scipy's O(n log n)
#: count, so that many runs cost no quadratic pass (4.5 M pairs at 3,000 runs: 0.5-0.8 s
#: a call). Both count the same integers.
KENDALL_PAIRWISE_MAX = 1000


def kendall_tau(a, b) -> float:
    """Kendall's tau-b between two score vectors over the same runs (unitless, [-1, 1]);
    two per-run Series (columns of ``reeval.evaluate``) are aligned on the run names.

    tau_b = (C - D) / sqrt(n0 - n1) / sqrt(n0 - n2), with n0 = n(n-1)/2 pairs, n1 / n2
    the pairs tied in a / in b (equal values, -0.0 = 0.0), C - D the concordant minus the
    discordant pairs; the counts are exact integers and the arithmetic after them is
    ``scipy.stats.kendalltau(a, b, variant="b")``'s, so the value is scipy's bit for bit.
    NaN when either vector is constant, has fewer than 2 entries or holds a NaN.
    """
    a, b = aligned(a, b)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError("a and b must be 1-D of the same length")
    if a.size < 2 or np.isnan(a).any() or np.isnan(b).any():
        return math.nan
    if a.size > KENDALL_PAIRWISE_MAX:
        from scipy import stats as _st

        return float(_st.kendalltau(a, b, variant="b").statistic)
    n = a.size
    total = n * (n - 1) // 2
    con_minus_dis = tied_a = tied_b = 0
    for lo, hi in _chunk_rows(n, n, 1 << 22):
        sa = np.sign(a[lo:hi, None] - a[None, :]) if np.isfinite(a).all() else _signs(a, lo, hi)
        sb = np.sign(b[lo:hi, None] - b[None, :]) if np.isfinite(b).all() else _signs(b, lo, hi)
        above = np.arange(lo, hi)[:, None] < np.arange(n)[None, :]  # each pair once (i < j)
        con_minus_dis += int((sa * sb)[above].sum())
        tied_a += int(((sa == 0) & above).sum())
        tied_b += int(((sb == 0) & above).sum())
    if tied_a == total or tied_b == total:
        return math.nan
    tau = con_minus_dis / np.sqrt(total - tied_a) / np.sqrt(total - tied_b)
    return float(min(1.0, max(-1.0, tau)))


def _signs(x: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """sign(x_i - x_j) for rows lo..hi, by comparison (infinities: inf - inf is no NaN here)."""
    xi, xj = x[lo:hi, None], x[None, :]
    return (xi > xj).astype(np.float64) - (xi < xj)


def tau_ap(reference, estimate, symmetric: bool = False, chunk_cells: int = 1 << 21) -> float:
    """AP rank correlation tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008).

    ``reference`` holds the scores of the true (reference) ordering and ``estimate``
    those of the ordering being evaluated, for the same runs (two per-run Series are
    aligned on the run names); higher = better (ranked first). Without ties, with the runs ordered by ``estimate`` (positions 1..N) and
    C(i) the number of runs above position i that the reference also ranks above the
    run at i:

        tau_AP = 2/(N-1) * sum_{i=2..N} C(i)/(i-1) - 1,

    in [-1, 1]: 1 for the same ordering, -1 for the reversed one. Swaps near the top
    cost more than swaps at the bottom. It is asymmetric; ``symmetric=True`` returns the
    mean of tau_AP(a, b) and tau_AP(b, a).

    Ties (documented choice; the paper assumes none). Equivalently, tau_AP is the mean
    over runs r that have at least one run strictly above them in ``estimate`` of
    (1/|A_r|) sum_{s in A_r} sign(reference_s - reference_r), A_r = runs strictly above
    r in ``estimate``. This form is used as the definition with ties: runs tied in
    ``estimate`` are not compared with each other (and a run's position counts only
    the runs strictly above it), and a pair tied in ``reference`` contributes 0, neither
    concordant nor discordant. Identical orderings (ties included) still give 1 and
    reversed ones -1. NaN when fewer than 2 runs or every estimate is tied.

    Vectorized O(N^2) in row chunks of at most ``chunk_cells`` cells.
    """
    ref, est = aligned(reference, estimate, "reference and estimate")
    if ref.shape != est.shape or ref.ndim != 1:
        raise InputError("reference and estimate must be 1-D of the same length")
    if symmetric:
        return 0.5 * (tau_ap(ref, est, chunk_cells=chunk_cells)
                      + tau_ap(est, ref, chunk_cells=chunk_cells))
    n = ref.size
    if n < 2:
        return math.nan
    total = 0.0
    counted = 0
    for a, b in _chunk_rows(n, n, chunk_cells):  # rows r = the run being placed
        above = est[None, :] > est[a:b, None]                      # s strictly above r
        agree = np.sign(ref[None, :] - ref[a:b, None])              # +1 ref agrees
        n_above = above.sum(axis=1)
        score = np.where(above, agree, 0.0).sum(axis=1)
        has = n_above > 0
        total += float((score[has] / n_above[has]).sum())
        counted += int(has.sum())
    return total / counted if counted else math.nan
