"""The compiled kernels of the statistics (src/reeval/stats/_kernels.c) give the numpy
paths' bits: the randomised HSD's null statistics (same permutations, same sums in the same
topic order, same maxima), the rareness stability's pairwise sign counts and lexicographic
precision's first differences."""

from __future__ import annotations

import os
from contextlib import contextmanager

import numpy as np
import pytest

from reeval.stats import compiled
from reeval.stats.randomised import null_max_preference, preference_tensor, randomised_tukey_hsd_preferences

needs_kernels = pytest.mark.skipif(compiled._kernels is None, reason="the statistics' compiled kernels "
                                   "are not built (pip install -e . with a C compiler builds them)")


@contextmanager
def kernels(enabled: bool):
    """Run a block with the compiled kernels on or off (off: the numpy path)."""
    before = compiled.ENABLED
    compiled.ENABLED = enabled
    try:
        yield
    finally:
        compiled.ENABLED = before


def _both(F, seed, resamples):
    with kernels(True):
        fast = null_max_preference(F, seed, resamples)
    with kernels(False):
        slow = null_max_preference(F, seed, resamples)
    return fast, slow


def _values(rng, kind, pairs, T):
    """Pairs x topics preferences: sgnLP-like -1/0/1 (int8), rrLP-like reciprocal-rank
    differences with many ties, or floats of mixed magnitudes whose sums depend on the order."""
    if kind == "sgn":
        return rng.integers(-1, 2, (pairs, T)).astype(np.float64)
    if kind == "rr":
        rr = 1.0 / rng.integers(1, 6, (2, pairs, T))
        return rr[0] - rr[1]
    return rng.normal(size=(pairs, T)) * 10.0 ** rng.integers(-8, 9, (pairs, T))


def test_ci_builds_the_statistics_kernels():
    """CI installs with a C compiler: the compiled path must be the one the suite exercises."""
    if not os.environ.get("CI"):
        pytest.skip("checked on CI, where the install must have built the kernels")
    assert compiled._kernels is not None and compiled.ENABLED


@needs_kernels
@pytest.mark.parametrize("kind", ["sgn", "rr", "mixed"])
@pytest.mark.parametrize("S, T", [(2, 1), (2, 7), (3, 1), (5, 12), (17, 3), (40, 25)])
def test_the_compiled_null_statistics_equal_the_numpy_ones_bit_for_bit(kind, S, T):
    rng = np.random.default_rng(S * 1000 + T)
    F = preference_tensor(_values(rng, kind, S * (S - 1) // 2, T), S)
    assert F.dtype == (np.int8 if kind == "sgn" else np.float64)
    fast, slow = _both(F, seed=S + T, resamples=301)
    assert fast.tobytes() == slow.tobytes()


@needs_kernels
def test_a_float_sum_that_depends_on_the_order_comes_out_as_numpy_sums_it():
    """1e16 + 1 - 1e16 is 0 summed left to right, 1 in another order: both paths must agree."""
    V = np.array([[1e16, 1.0, -1e16, 1.0]])
    fast, slow = _both(preference_tensor(V, 2), seed=0, resamples=64)
    assert fast.tobytes() == slow.tobytes()
    assert set(np.unique(fast)) <= {0.0, 1.0, 2.0, 1e16, 1e16 + 2.0, 2e16}


@needs_kernels
def test_the_p_values_of_a_track_like_case_are_the_same_on_both_paths():
    rng = np.random.default_rng(7)
    V = _values(rng, "rr", 30 * 29 // 2, 50)
    with kernels(True):
        fast = randomised_tukey_hsd_preferences(V, resamples=500, seed=3)
    with kernels(False):
        slow = randomised_tukey_hsd_preferences(V, resamples=500, seed=3)
    assert fast.equals(slow)


@needs_kernels
def test_no_topic_and_no_pair_give_zero_statistics_on_both_paths():
    for F in (np.zeros((0, 4, 4), np.int8), np.zeros((3, 1, 1))):
        fast, slow = _both(F, seed=1, resamples=10)
        assert fast.tobytes() == slow.tobytes() and (fast == 0).all()


@needs_kernels
def test_the_kernel_refuses_a_permutation_entry_outside_the_runs():
    F = np.zeros((1, 3, 3))
    perms = np.array([[[0, 1, 3]]], dtype=np.int32)
    with pytest.raises(ValueError, match="outside 0..S-1"):
        compiled._kernels.preference_null_max(F, perms, np.empty(1), 1, 3, False)
    with pytest.raises(ValueError, match="T x S x S"):
        compiled._kernels.preference_null_max(F, perms[..., :2].copy(), np.empty(1), 1, 3, False)


def _sign_counts_numpy(X, threshold):
    """gt, lt per pair i < j counted one run against the later ones (the numpy path's way)."""
    gt, lt = [], []
    for i in range(len(X) - 1):
        d = X[i + 1:] - X[i]
        gt.append(np.count_nonzero(d > threshold, axis=1))
        lt.append(np.count_nonzero(d < -threshold, axis=1))
    return np.concatenate(gt + [np.zeros(0, np.int64)]), np.concatenate(lt + [np.zeros(0, np.int64)])


@needs_kernels
@pytest.mark.parametrize("S, R", [(2, 1), (2, 9), (3, 1), (11, 40), (30, 257)])
def test_the_compiled_pair_sign_counts_equal_numpy_with_ties_at_the_threshold_and_nans(S, R):
    rng = np.random.default_rng(S * 100 + R)
    X = np.round(rng.uniform(0, 0.3, (S, R)), 2)        # many differences exactly 0.05 or 0
    X[rng.random((S, R)) < 0.05] = np.nan
    for threshold in (0.05, 1e-12, 0.0):
        gt, lt = np.empty(S * (S - 1) // 2, np.int64), np.empty(S * (S - 1) // 2, np.int64)
        compiled._kernels.pair_sign_counts(X, gt, lt, S, R, threshold)
        want_gt, want_lt = _sign_counts_numpy(X, threshold)
        np.testing.assert_array_equal(gt, want_gt)
        np.testing.assert_array_equal(lt, want_lt)


@needs_kernels
@pytest.mark.parametrize("R", [1, 3, 4, 5, 8, 1003])
def test_the_compiled_pair_sign_counts_of_infinities_and_signed_zeros_equal_numpy_at_every_length(R):
    # the counting loop is vectorised four trials at a time where the processor allows:
    # lengths around and beyond a multiple of four, and values whose differences are
    # NaN (inf - inf), infinite or a signed zero
    rng = np.random.default_rng(R)
    X = np.round(rng.uniform(0, 0.2, (6, R)), 2)
    X[0, ::2] = np.inf
    X[1, ::3] = -np.inf
    X[2] = -0.0
    X[3] = 0.0
    X[4, -1] = np.nan
    for threshold in (0.05, 0.0, np.inf):
        gt, lt = np.empty(15, np.int64), np.empty(15, np.int64)
        compiled._kernels.pair_sign_counts(X, gt, lt, 6, R, threshold)
        want_gt, want_lt = _sign_counts_numpy(X, threshold)
        np.testing.assert_array_equal(gt, want_gt)
        np.testing.assert_array_equal(lt, want_lt)


@needs_kernels
@pytest.mark.parametrize("scale", ["absolute", "relative"])
def test_rareness_pair_stability_is_the_same_on_both_paths(scale):
    from reeval.analyses.rareness.analysis import pair_stability

    rng = np.random.default_rng(5)
    means = np.round(rng.uniform(0, 0.4, (300, 25)), 2)
    means[:, 7] = means[:, 3]                            # two runs equal in every trial
    with kernels(True):
        fast = pair_stability(means, 0.05, scale)
    with kernels(False):
        slow = pair_stability(means, 0.05, scale)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(fast, slow))


def test_the_environment_switches_the_statistics_kernels_off_without_importing_io():
    """``reeval.stats.compiled`` shares its switch with ``reeval.io.compiled`` through
    ``reeval.compiled``, below both: stats never imports io."""
    import subprocess
    import sys
    code = ("import sys, reeval.stats.compiled as c; "
            "print(c.kernels() is None, any(m.startswith('reeval.io') for m in sys.modules))")
    off = subprocess.run([sys.executable, "-c", code], env={**os.environ, "REEVAL_KERNELS": "0"},
                         capture_output=True, text=True, check=True).stdout.split()
    on = subprocess.run([sys.executable, "-c", code], env={k: v for k, v in os.environ.items() if k != "REEVAL_KERNELS"},
                        capture_output=True, text=True, check=True).stdout.split()
    assert off == ["True", "False"] and on == [str(compiled._kernels is None), "False"]


def test_built_kernels_are_used_unless_the_switch_is_0(monkeypatch):
    from reeval.compiled import SWITCH, built_kernels, switched_on
    assert built_kernels("reeval.stats") is compiled._kernels
    assert built_kernels("reeval.choices") is None  # no extension there: the numpy path
    monkeypatch.delenv(SWITCH, raising=False)
    assert switched_on(os) and not switched_on(None)
    monkeypatch.setenv(SWITCH, "1")
    assert switched_on(os)
    monkeypatch.setenv(SWITCH, "0")
    assert not switched_on(os)


def _position_vectors(rng, S, T, L, m):
    """Position vectors of S runs on T topics with up to m relevant documents each: many
    runs share their first positions (ties in early columns), some topics a run did not
    answer (nothing found), and some vectors identical to another run's."""
    from reeval.analyses.lexiprecision.core import UNRETRIEVED, PositionVectors

    found = rng.integers(0, m + 1, (S, T))
    found[rng.random((S, T)) < 0.2] = 0
    P = np.full((S, T, L), UNRETRIEVED, dtype=np.int32)
    for s in range(S):
        for t in range(T):
            P[s, t, :found[s, t]] = np.sort(rng.choice(np.arange(1, 12), found[s, t], replace=False))
    if S > 2:
        P[2], found[2] = P[0], found[0]
    return PositionVectors([f"r{s}" for s in range(S)], [f"q{t}" for t in range(T)],
                           np.full(T, m, dtype=np.int64), found.astype(np.int64), P, 1)


@needs_kernels
@pytest.mark.parametrize("S, T, L, m", [(2, 1, 1, 1), (2, 5, 3, 3), (3, 1, 8, 6), (9, 4, 20, 11), (12, 30, 10, 10)])
def test_the_compiled_first_differences_equal_the_numpy_ones_bit_for_bit(S, T, L, m):
    from reeval.analyses.lexiprecision.incomplete import first_differences

    pv = _position_vectors(np.random.default_rng(S * 1000 + T), S, T, L, m)
    ii, jj = np.triu_indices(S, 1)
    for a, b in ((ii, jj), (jj[::-1], ii[::-1]), (ii[:1], ii[:1])):   # both orders, a run against itself
        with kernels(True):
            fast = first_differences(pv, a, b)
        with kernels(False):
            slow = first_differences(pv, a, b)
        for x, y in zip(fast, slow):
            assert x.dtype == y.dtype and x.shape == y.shape == (len(a), T)
            assert x.tobytes() == y.tobytes()


@needs_kernels
def test_the_compiled_first_differences_refuse_a_run_outside_the_vectors():
    pv = _position_vectors(np.random.default_rng(0), 3, 2, 4, 4)
    sgn, rr = np.empty((1, 2), dtype=np.int8), np.empty((1, 2))
    with pytest.raises(ValueError, match="outside 0..S-1"):
        compiled._kernels.first_differences(pv.positions, pv.found, np.array([0]), np.array([3]), sgn, rr, 3, 2, 4)
    with pytest.raises(ValueError, match="S x T x L int32"):
        compiled._kernels.first_differences(pv.positions, pv.found, np.array([0]), np.array([1]), sgn, rr, 3, 2, 5)


@needs_kernels
@pytest.mark.parametrize("S, T, L, m", [(1, 3, 2, 2), (2, 1, 1, 1), (3, 1, 8, 6), (9, 4, 20, 11), (40, 30, 10, 3)])
def test_the_compiled_tied_pairs_equal_the_numpy_tie_counts(S, T, L, m):
    """Figure 9's tie counts: equal p_1 (RR) and identical vectors (LP) per topic, the same
    integers on both paths; vectors that differ only after their first position, copies of
    another run's, and rows nothing was found for (all UNRETRIEVED) included."""
    from reeval.analyses.lexiprecision.ties import tie_counts

    pv = _position_vectors(np.random.default_rng(S * 7 + T), S, T, L, m)
    if S > 3 and L > 1:
        pv.positions[3, :, 0] = pv.positions[1, :, 0]                # same p_1, later positions may differ
    with kernels(True):
        fast = tie_counts(pv)
    with kernels(False):
        slow = tie_counts(pv)
    assert fast == slow and all(isinstance(x, int) for x in fast)


@needs_kernels
def test_the_compiled_tied_pairs_of_identical_and_empty_vectors():
    from reeval.analyses.lexiprecision.core import UNRETRIEVED

    P = np.full((4, 2, 3), UNRETRIEVED, dtype=np.int32)         # topic 0: nothing found by any run
    P[:, 1, :2] = [[1, 5], [1, 5], [1, 6], [2, 5]]               # topic 1: two identical, three same p_1
    assert compiled._kernels.tied_pairs(P, 4, 2, 3, 2) == (6 + 3, 6 + 1)
    assert compiled._kernels.tied_pairs(P, 4, 2, 3, 1) == (6 + 3, 6 + 3)   # width 1: p_1 alone
    with pytest.raises(ValueError, match="1 <= width <= L"):
        compiled._kernels.tied_pairs(P, 4, 2, 3, 4)
    with pytest.raises(ValueError, match="S x T x L int32"):
        compiled._kernels.tied_pairs(P[:, :1].copy(), 4, 2, 3, 2)
