"""The randomised Tukey HSD against a plain loop, against the parametric HSD where theory
says they agree, and on its edge cases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from reeval.errors import InputError
from reeval.stats import allpairs, randomised
from reeval.stats.randomised import randomised_tukey_hsd, randomised_tukey_hsd_preferences


def _track(seed, S=5, T=12, spread=0.3):
    """A runs x topics matrix with topic and run effects, values in [0, 1]."""
    rng = np.random.default_rng(seed)
    topic = rng.uniform(0.1, 0.7, T)
    return np.clip(topic[None, :] + np.linspace(0, spread, S)[:, None] + rng.normal(0, 0.15, (S, T)), 0, 1)


def _reference_scores(X, permutations):
    """The textbook procedure, one resample, one topic, one pair at a time."""
    S, T = X.shape
    maxima = []
    for perm in permutations:                       # perm[t] = the row whose score run s gets
        means = [sum(X[perm[t][s], t] for t in range(T)) / T for s in range(S)]
        maxima.append(max(means) - min(means))
    means = X.mean(axis=1)
    return [(1 + sum(m >= abs(means[i] - means[j]) - 1e-12 for m in maxima)) / (1 + len(maxima))
            for i, j in itertools.combinations(range(S), 2)]


def _reference_preferences(F, permutations):
    """The same for per-topic preference matrices F[t][i][j] (antisymmetric)."""
    T, S = len(F), len(F[0])
    pairs = list(itertools.combinations(range(S), 2))
    maxima = []
    for perm in permutations:
        maxima.append(max(abs(sum(F[t][perm[t][i]][perm[t][j]] for t in range(T)) / T) for i, j in pairs))
    observed = [abs(sum(F[t][i][j] for t in range(T)) / T) for i, j in pairs]
    return [(1 + sum(m >= o - 1e-12 for m in maxima)) / (1 + len(maxima)) for o in observed]


def _own_permutations(seed, B, T, S):
    rng = np.random.default_rng(seed)
    return [[rng.permutation(S) for _ in range(T)] for _ in range(B)]


def _same_permutations(seed, B, T, S, batch=7):
    return [p for _, perms in randomised.topic_permutations(seed, B, T, S, batch) for p in perms]


def test_scores_equal_the_plain_loop_on_the_same_permutations():
    X = _track(1)
    B = 300
    got = randomised_tukey_hsd(X, resamples=B, seed=7).p_value.to_numpy()
    ref = _reference_scores(X, _same_permutations(7, B, X.shape[1], X.shape[0]))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", [0, 1])
def test_scores_agree_with_a_plain_loop_of_its_own_within_monte_carlo_error(seed):
    X = _track(seed, S=4, T=10, spread=0.2)
    B = 2000
    got = randomised_tukey_hsd(X, resamples=B, seed=seed)
    ref = np.array(_reference_scores(X, _own_permutations(100 + seed, B, 10, 4)))
    # two independent estimates of the same p: their difference has sd sqrt(2) * se
    se = np.sqrt(np.maximum(ref * (1 - ref), 1e-4) / B)
    assert np.all(np.abs(got.p_value.to_numpy() - ref) <= 4 * math.sqrt(2) * se)
    np.testing.assert_allclose(got.mc_se, np.sqrt(got.p_value * (1 - got.p_value) / B))


def test_preferences_equal_the_plain_loop_on_the_same_permutations():
    rng = np.random.default_rng(4)
    S, T, B = 4, 6, 200
    ii, jj = np.triu_indices(S, 1)
    V = rng.choice([-1.0, 0.0, 1.0], size=(ii.size, T))      # sgnLP-like
    F = randomised.preference_tensor(V, S).astype(float)
    got = randomised_tukey_hsd_preferences(V, resamples=B, seed=3)
    ref = _reference_preferences(F.tolist(), _same_permutations(3, B, T, S))
    np.testing.assert_allclose(got.p_value.to_numpy(), ref, rtol=0, atol=1e-15)
    np.testing.assert_allclose(got["mean"], V.mean(axis=1))
    # rrLP-like real values, with their own loop's permutations: within Monte Carlo error
    W = rng.normal(0, 0.3, size=(ii.size, T)) + 0.2 * (ii == 0)[:, None]
    B = 1500
    got = randomised_tukey_hsd_preferences(W, resamples=B, seed=5).p_value.to_numpy()
    ref = np.array(_reference_preferences(randomised.preference_tensor(W, S).tolist(),
                                          _own_permutations(55, B, T, S)))
    se = np.sqrt(np.maximum(ref * (1 - ref), 1e-4) / B)
    assert np.all(np.abs(got - ref) <= 4 * math.sqrt(2) * se)


def test_a_preference_that_is_a_difference_of_scores_gives_the_scores_test():
    """F_t[i, j] = X[i, t] - X[j, t]: permuting rankings is permuting scores, the largest
    |M_ij| is max M - min M, and the stream of permutations is the seed's alone."""
    X = _track(2, S=6, T=15)
    ii, jj = np.triu_indices(6, 1)
    scores = randomised_tukey_hsd(X, resamples=500, seed=9)
    prefs = randomised_tukey_hsd_preferences(X[ii] - X[jj], resamples=500, seed=9)
    np.testing.assert_array_equal(scores.p_value, prefs.p_value)
    np.testing.assert_allclose(scores["diff"], prefs["mean"], atol=1e-15)


def test_it_agrees_with_the_parametric_hsd_on_normal_data():
    """Normal errors, a topic effect and 80 topics: the permutation distribution of the
    range of run means approaches the studentized range of the topic-blocked ANOVA, so the
    p-values agree to a few hundredths (the permutation test is slightly conservative)."""
    rng = np.random.default_rng(3)
    S, T = 6, 80
    X = rng.normal(0, 1, (1, T)) + np.linspace(0, 0.5, S)[:, None] + rng.normal(0, 1, (S, T))
    parametric = allpairs.tukey_hsd(X).p_value.to_numpy()
    permuted = randomised_tukey_hsd(X, resamples=10000).p_value.to_numpy()
    assert np.abs(parametric - permuted).max() < 0.03
    assert ((parametric < 0.05) == (permuted < 0.05)).mean() >= 14 / 15


def test_seeded_reproducible_and_the_seed_is_used():
    X = _track(5, S=5, T=20, spread=0.15)
    a = randomised_tukey_hsd(X, resamples=400, seed=1)
    assert a.equals(randomised_tukey_hsd(X, resamples=400, seed=1))
    assert not a.p_value.equals(randomised_tukey_hsd(X, resamples=400, seed=2).p_value)
    assert a.attrs["resamples"] == 400 and a.attrs["seed"] == 1


def test_edge_cases():
    assert randomised_tukey_hsd(np.ones((1, 5))).empty
    same = randomised_tukey_hsd(np.tile(np.linspace(0, 1, 7), (3, 1)), resamples=50)
    assert (same.p_value == 1.0).all() and (same["diff"] == 0).all()
    none = randomised_tukey_hsd(np.zeros((3, 0)), resamples=50)
    assert none.p_value.isna().all() and none.mean_i.isna().all()
    with pytest.raises(InputError, match="resamples"):
        randomised_tukey_hsd(np.ones((2, 3)), resamples=0)
    with pytest.raises(InputError, match="finite"):
        randomised_tukey_hsd(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(InputError, match="S\\(S-1\\)/2"):
        randomised_tukey_hsd_preferences(np.zeros((4, 3)))
    # the p-value never reaches 0: the observed arrangement counts once
    X = np.vstack([np.zeros(30), np.ones(30)])
    assert randomised_tukey_hsd(X, resamples=99).p_value.iloc[0] == pytest.approx(1 / 100)


def test_frames_give_the_matrix_result():
    X = _track(6, S=3, T=8)
    runs, topics = ["r1", "r2", "r3"], [f"q{t}" for t in range(8)]
    index = pd.MultiIndex.from_product([runs, topics], names=["run", "query_id"])
    frame = pd.DataFrame({"AP": X.ravel()}, index=index)
    by_matrix = randomised_tukey_hsd(X, runs=runs, resamples=300)
    assert randomised_tukey_hsd(frame, resamples=300).equals(by_matrix)
    assert randomised_tukey_hsd(frame["AP"], resamples=300).equals(by_matrix)
    with pytest.raises(InputError, match="2 measures"):
        randomised_tukey_hsd(frame.assign(P=1.0))
    ii, jj = np.triu_indices(3, 1)
    long = pd.DataFrame({"run_i": np.repeat(np.array(runs)[ii], 8), "run_j": np.repeat(np.array(runs)[jj], 8),
                         "query_id": topics * 3, "rrLP": (X[ii] - X[jj]).ravel()})
    by_frame = randomised_tukey_hsd_preferences(long, resamples=300)
    assert list(by_frame.run_i) == ["r1", "r1", "r2"]
    np.testing.assert_array_equal(by_frame.p_value, by_matrix.p_value)
    # a pair given the other way round is the same preference negated
    flipped = long.assign(run_i=long.run_j, run_j=long.run_i, rrLP=-long.rrLP)
    np.testing.assert_array_equal(randomised_tukey_hsd_preferences(flipped, runs=runs, resamples=300).p_value,
                                  by_matrix.p_value)


def test_the_stream_drawn_whole_is_the_stream_drawn_batch_by_batch():
    for B, T, S in ((50, 4, 6), (1, 1, 2), (9, 3, 1)):
        whole = randomised.drawn_permutations(3, B, T, S)
        assert whole.shape == (B, T, S) and whole.dtype == np.int32
        for batch in (1, 7, B):
            assert np.array_equal(whole, np.concatenate([p for _, p in randomised.topic_permutations(3, B, T, S, batch)]))
            again = np.concatenate([p for _, p in randomised.topic_permutations(3, B, T, S, batch, whole)])
            assert np.array_equal(whole, again)


def test_no_stream_is_drawn_whole_beyond_its_cap():
    assert randomised.drawn_permutations(0, 10, 5, 4, max_cells=199) is None
    assert randomised.drawn_permutations(0, 10, 5, 4, max_cells=200).shape == (10, 5, 4)


def test_permutations_of_another_shape_are_refused():
    whole = randomised.drawn_permutations(0, 10, 5, 4)
    with pytest.raises(ValueError, match="not"):
        randomised_tukey_hsd(_track(2, S=4, T=6), resamples=10, seed=0, permutations=whole)


@pytest.mark.parametrize("S, T", [(5, 12), (2, 9), (4, 1)])
def test_shared_permutations_give_the_p_values_of_permutations_drawn_by_each_test(S, T):
    X = np.round(_track(5, S=S, T=T), 1)               # rounded: ties between runs' totals
    ii, jj = np.triu_indices(S, 1)
    sgn = np.sign(X[ii] - X[jj])
    rr = X[ii] - X[jj]
    whole = randomised.drawn_permutations(11, 200, T, S)
    for own, shared in ((randomised_tukey_hsd(X, resamples=200, seed=11),
                         randomised_tukey_hsd(X, resamples=200, seed=11, permutations=whole)),
                        (randomised_tukey_hsd_preferences(rr, resamples=200, seed=11),
                         randomised_tukey_hsd_preferences(rr, resamples=200, seed=11, permutations=whole)),
                        (randomised_tukey_hsd_preferences(sgn, resamples=200, seed=11),
                         randomised_tukey_hsd_preferences(sgn, resamples=200, seed=11, permutations=whole))):
        assert np.array_equal(own.p_value.to_numpy(), shared.p_value.to_numpy())


def _p_values_held_whole(null, observed, tol):
    """The p-values from every resampled statistic held at once and sorted (the former way)."""
    ordered = np.sort(null)
    return (1.0 + ordered.size - np.searchsorted(ordered, observed - tol, side="left")) / (1.0 + ordered.size)


def test_p_values_counted_batch_by_batch_equal_those_of_the_whole_null_ties_included():
    from reeval.stats.randomised import _p_values

    rng = np.random.default_rng(7)
    null = rng.integers(0, 20, 5000).astype(float)
    observed = np.concatenate([rng.integers(-2, 25, 300).astype(float), [np.nan, 0.0, 19.0, 20.0]])
    want = _p_values_held_whole(null, observed, 1e-9)
    got = _p_values(np.array_split(null, 7), observed, 1e-9, null.size)
    np.testing.assert_array_equal(got, want)


def test_many_resamples_are_streamed_not_held(monkeypatch):
    """resamples=10**9 (allowed) ended in numpy's "Unable to allocate 7.45 GiB": the statistics
    are counted batch by batch. With small batches, 2,000,000 resamples (16 MB held whole)
    stay under 4 MB for both forms, scores and preferences."""
    import tracemalloc

    import reeval.stats.randomised as rz

    monkeypatch.setattr(rz, "HSD_BATCH_CELLS", 1 << 14)
    monkeypatch.setattr(rz, "HSD_PAIR_CELLS", 1 << 14)
    X = np.array([[0.5, 0.2], [0.1, 0.4]])
    tracemalloc.start()
    try:
        p = rz.randomised_tukey_hsd(X, resamples=2_000_000, seed=3).p_value.to_numpy()
        q = rz.randomised_tukey_hsd_preferences(np.array([[1.0, -1.0]]), resamples=2_000_000, seed=3).p_value
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, peak
    assert 0 < p[0] <= 1 and 0 < q[0] <= 1
