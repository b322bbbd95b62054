"""Rank correlation of two system orderings: Kendall's tau and tau_AP.
"""

from __future__ import annotations

import math

import numpy as np

from reeval.errors import InputError

from .frames import aligned
from .resampling import _chunk_rows


def kendall_tau(a, b) -> float:
    """Kendall's tau-b between two score vectors over the same runs (unitless, [-1, 1]);
    two per-run Series (columns of ``reeval.evaluate``) are aligned on the run names.

    tau_b = (C - D) / sqrt((C + D + T_a)(C + D + T_b)), T_a/T_b the pairs tied only in
    a/b; wraps ``scipy.stats.kendalltau(a, b, variant="b")``. NaN when either vector is
    constant or has fewer than 2 entries.
    """
    from scipy import stats as _st

    a, b = aligned(a, b)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError("a and b must be 1-D of the same length")
    if a.size < 2:
        return math.nan
    return float(_st.kendalltau(a, b, variant="b").statistic)


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
