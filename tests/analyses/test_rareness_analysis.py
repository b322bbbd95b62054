"""Analyses of the rareness measures, each checked against a slow, direct computation."""

import glob
import itertools

import numpy as np
import pandas as pd
import pytest

from reeval.analyses.rareness import core as rr
from reeval.analyses.rareness import analysis as ra
from reeval.io.ingest import ingest_track
from reeval.measures import build_grid
from reeval.stats.correlation import kendall_tau
from reeval.stats.allpairs import tukey_hsd
from reeval.synth.tracks import DEFAULT_CAMPAIGN, write_track

FAMILIES = rr.FAMILIES


@pytest.fixture(scope="module")
def track(tmp_path_factory):
    """syn-shallow: 10 runs, shallow and tied runs, missing topics, a topic with no relevant doc."""
    d = tmp_path_factory.mktemp("syn")
    write_track(d, DEFAULT_CAMPAIGN["syn-shallow"], seed=11)
    runs = sorted(glob.glob(str(d / "runs" / "*")))
    tables = ingest_track("syn", d / "qrels.txt", runs)
    return d, runs, tables


def hits_of(tables, runs=None, k=20):
    grid = build_grid(tables.judged, tables.depth, tables.qrels, runs=runs, keep_docno=True)
    return rr.top_k_hits(grid, k)


def test_batched_kendall_tau_equals_scipy_tau_b_with_ties():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(200, 7)).astype(float)
    Y = rng.integers(0, 4, size=(200, 7)).astype(float)
    X[0] = 1.0  # constant row: undefined
    got = ra.batched_kendall_tau(X, Y)
    want = np.array([kendall_tau(x, y) for x, y in zip(X, Y)])
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    assert np.isnan(got[0])
    # floating noise below EPS is a tie
    assert ra.batched_kendall_tau(np.array([[0.3, 0.1 + 0.2]]), np.array([[1.0, 2.0]]))[0] != \
        ra.batched_kendall_tau(np.array([[0.3, 0.31]]), np.array([[1.0, 2.0]]))[0]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("alpha", [0.5, 1.0, "1/R"])
def test_linear_form_equals_rareness_recomputed_on_a_subset(track, family, alpha):
    """Rareness over a sample of runs (S = N) from the matrix form = a fresh evaluation of
    only those runs; and over all runs = rr.scores."""
    _, _, tables = track
    hits = hits_of(tables)
    lin = ra.LinearRareness(hits, family, alpha)
    np.testing.assert_allclose(lin.full_means(), ra.run_means(rr.scores(hits, family, alpha)),
                               rtol=1e-12, atol=1e-15)
    idx = ra.sample_runs(len(hits.runs), 4, 3, seed=5)
    got = lin.means(idx)
    for row, sample in zip(got, idx):
        names = [hits.runs[i] for i in sample]
        sub = hits_of(tables, runs=names)
        np.testing.assert_allclose(row, ra.run_means(rr.scores(sub, family, alpha)), rtol=1e-12, atol=1e-15)
    one = lin.means(idx[:, :1])  # N = 1: R' = 1 (normalized) / R = 0 (paper): the run's P or AP
    base = ra.run_means(rr.scores(hits, family, 0.0))[idx[:, 0]]
    if family.endswith("_norm"):
        np.testing.assert_allclose(one[:, 0], base, rtol=1e-12)


def test_number_of_systems_is_seeded_and_matches_a_loop(track):
    _, _, tables = track
    hits = hits_of(tables)
    m = [("AP_rareness_norm", 1.0)]
    a = ra.number_of_systems(hits, m, sizes=(2, 4, 8, 64), trials=50, seed=3)
    b = ra.number_of_systems(hits, m, sizes=(2, 4, 8, 64), trials=50, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert a.n_systems.tolist() == [2, 4, 8]  # 64 > S = 10 runs is skipped
    # the algorithm spelled out: evaluate each sample from scratch, scipy's tau
    full = ra.run_means(rr.scores(hits, "AP_rareness_norm", 1.0))
    idx = ra.sample_runs(len(hits.runs), 4, 50, seed=3)
    taus = []
    for sample in idx:
        sub = hits_of(tables, runs=[hits.runs[i] for i in sample])
        mine = ra.run_means(rr.scores(sub, "AP_rareness_norm", 1.0))
        taus.append(kendall_tau(np.round(full[sample], 12), np.round(mine, 12)))
    taus = np.array(taus)
    row = a[a.n_systems == 4].iloc[0]
    assert row.valid_trials == np.isfinite(taus).sum()
    assert row.mean_tau == pytest.approx(np.nanmean(taus), abs=1e-12) and row.mean_tau < 0.95
    c = ra.number_of_systems(hits, m, sizes=(4,), trials=50, seed=4)
    assert c.mean_tau.iloc[0] != row.mean_tau  # another seed, other samples


def test_number_of_systems_with_fewer_runs_than_every_size_is_empty_with_its_columns(track):
    _, runs, tables = track
    hits = hits_of(tables, runs=[runs[0].rsplit("/", 1)[-1]])
    out = ra.number_of_systems(hits, [("P_rareness", 0.0)], sizes=(2, 4), trials=5, seed=0)
    assert out.empty and list(out.columns) == ["measure", "alpha", "n_systems", "trials", "valid_trials",
                                               "mean_tau", "sd_tau"]


def test_synthetic_ranks_without_a_real_run_rank_first(track):
    _, _, tables = track
    hits = hits_of(tables, runs=[])  # every run of the track left out
    out = ra.synthetic_ranks(hits, ra.default_topic(hits), alphas=(0.0, 1.0), max_docs=5)
    assert len(out) and (out["rank"] == 1).all() and out.best_real.isna().all() and (out.n_systems == 1).all()


def test_stability_matches_a_loop_over_trials_and_pairs():
    rng = np.random.default_rng(1)
    X = np.round(rng.random((5, 9)), 1)  # coarse values: ties happen
    X[4] = X[3]                          # identical runs: always tied
    out = ra.stability({("m", 0.0): X}, trials=40, seed=7, fuzziness=0.0)
    Z = ra.topic_samples(9, 4, 40, seed=7)
    assert (Z.sum(axis=1) == 4).all()
    wins = {}
    for z in Z:
        topics = np.flatnonzero(z)
        m = X[:, topics].mean(axis=1)
        for i, j in itertools.combinations(range(5), 2):
            w = wins.setdefault((i, j), [0, 0])
            if m[i] > m[j] + 1e-12:
                w[0] += 1
            elif m[j] > m[i] + 1e-12:
                w[1] += 1
    want = np.mean([max(w) / 40 for w in wins.values()])
    row = out.iloc[0]
    assert row.sampled_topics == 4 and row.stability == pytest.approx(want, abs=1e-12)
    assert row.tied_share >= 1 / 10  # the identical pair is tied in every trial
    again = ra.stability({("m", 0.0): X}, trials=40, seed=7, fuzziness=0.0)
    pd.testing.assert_frame_equal(out, again)


def test_discriminative_power_of_the_blocked_method_counts_tukey_p_values():
    rng = np.random.default_rng(2)
    X = rng.random((12, 20)) + np.linspace(0, 0.6, 12)[:, None]
    out = ra.discriminative_power({("m", 0.5): X}).set_index("method").loc["blocked"]
    p = tukey_hsd(X).p_value
    assert out.pairs == 66
    assert out.significant_95 == (p < 0.05).sum() > 0
    assert out.significant_99 == (p < 0.01).sum()


def test_rank_correlation_is_one_at_alpha_zero(track):
    _, _, tables = track
    hits = hits_of(tables)
    means = {(f, a): ra.run_means(rr.scores(hits, f, a)) for f in ("P_rareness", "AP_rareness")
             for a in (0.0, 1.0)}
    out = ra.rank_correlation(means, {f: means[(f, 0.0)] for f in ("P_rareness", "AP_rareness")})
    zero = out[out.alpha == "0"]
    np.testing.assert_allclose(zero[["tau", "tau_ap"]].to_numpy(), 1.0, rtol=1e-12)
    assert out.tau.between(-1, 1).all()


@pytest.mark.parametrize("system", ["rare", "common"])
def test_synthetic_ranks_match_an_added_run(track, tmp_path, system):
    """Write S_rare / S_common as a run file, evaluate it with the real runs, rank it."""
    d, runs, tables = track
    hits = hits_of(tables, k=20)
    t = ra.default_topic(hits)
    qid = hits.topics[t]
    out = ra.synthetic_ranks(hits, t, alphas=(0.0, 0.5, 1.0), max_docs=20)
    docs = rr.document_table(hits)
    docs = docs[docs.qid == qid].sort_values(["c_k", "docno"], ascending=[False, True], kind="stable")
    qrels_lines = (d / "qrels.txt").read_text().splitlines()
    for n_docs in (1, 3, 7):
        if system == "rare":
            names = [f"NEWDOC{i}" for i in range(n_docs)]
            qrels_lines_n = qrels_lines + [f"{qid} 0 {x} 1" for x in names]
        else:
            names = docs.docno.tolist()[:n_docs]
            qrels_lines_n = qrels_lines
        q = tmp_path / f"qrels_{system}_{n_docs}"
        q.write_text("\n".join(qrels_lines_n) + "\n")
        extra = tmp_path / f"zz_{system}_{n_docs}"
        extra.write_text("".join(f"{qid} Q0 {x} {i + 1} {100 - i} z\n" for i, x in enumerate(names)))
        tab = ingest_track("syn+1", q, runs + [str(extra)])
        h = hits_of(tab, k=20)
        for alpha in (0.0, 0.5, 1.0):
            v = rr.scores(h, "P_rareness", alpha)[:, h.topics.index(qid)]
            me = h.runs.index(extra.name)
            want_rank = 1 + int((np.delete(v, me) > v[me] + 1e-12).sum())
            row = out[(out.system == system) & (out.alpha == rr.alpha_label(alpha)) & (out.docs == n_docs)]
            assert row["rank"].iloc[0] == want_rank
            assert row.score.iloc[0] == pytest.approx(v[me], abs=1e-12)
            assert row.n_systems.iloc[0] == len(h.runs)


def test_parsed_alphas():
    from reeval.analyses.rareness import report as rp
    from reeval.workflow.config_check import section_with_defaults

    opts = rp.with_parsed_alphas(section_with_defaults("rareness", {"alpha": [0, "1/R"], "synthetic": {"max_docs": 5}}))
    assert opts["alpha"] == [0.0, "1/R"] and opts["synthetic"]["max_docs"] == 5
    assert opts["synthetic"]["alpha"] == [0.0, 0.5, 1.0] and opts["k"] == 100
    assert opts["fuzziness"] == 0.05 and opts["fuzziness_scale"] == "absolute" and opts["stability_seeds"] == 5


def test_stability_of_runs_with_identical_scores_counts_each_distinct_pair_once_with_the_same_bits():
    """Many short runs share their per-topic scores: pair_stability counts the distinct
    columns' pairs and copies them, giving the values of counting every pair (issue 31)."""
    rng = np.random.default_rng(5)
    distinct = rng.random((50, 6)) * rng.integers(0, 2, (50, 6))
    means = distinct[:, rng.integers(0, 6, 40)]          # 40 runs, at most 6 distinct
    means[:, 7] = means[:, 3] + 1e-13                     # within EPS of run 3: a tie, not the same column
    stab, tied = ra.pair_stability(means)
    want_stab, want_tied = ra._distinct_pair_stability(means)
    assert np.array_equal(stab, want_stab) and np.array_equal(tied, want_tied)
    assert float(stab.mean()) == float(want_stab.mean())
    ii, jj = np.triu_indices(40, 1)
    same = (means[:, ii] == means[:, jj]).all(axis=0)
    assert same.any() and (stab[same] == 0).all() and (tied[same] == 1).all()


@pytest.mark.parametrize("scale", ["absolute", "relative"])
def test_stability_groups_runs_by_their_bytes_with_the_values_of_counting_every_pair(scale):
    """Equal columns are found by their bytes (issue 41 item 4): -0.0 beside 0.0 and columns
    in another order than numpy.unique's by value give every pair's value bit for bit."""
    rng = np.random.default_rng(8)
    distinct = np.round(rng.standard_normal((30, 7)), 1)
    means = distinct[:, rng.integers(0, 7, 25)]
    means[:, 4] = 0.0
    means[:, 9] = -0.0                                     # equal to run 4 as a number, not as bytes
    stab, tied = ra.pair_stability(means, 0.05, scale)
    want_stab, want_tied = ra._distinct_pair_stability(means, 0.05, scale)
    assert np.array_equal(stab, want_stab) and np.array_equal(tied, want_tied)
    assert ra._distinct_columns(means)[0].shape[1] < 25   # the repeated runs were counted once


def test_distinct_columns_of_no_trial_or_no_run_are_empty():
    assert ra._distinct_columns(np.zeros((0, 3)))[0].shape == (0, 1)
    assert ra._distinct_columns(np.zeros((4, 0)))[0].shape == (4, 0)


@pytest.mark.parametrize("S, N", [(2, 2), (7, 1), (7, 3), (40, 32), (5, 5)])
def test_block_sums_of_sampled_runs_are_the_bits_of_summing_each_gathered_block(S, N):
    rng = np.random.default_rng(S * 100 + N)
    G = np.round(rng.random((S, S)) * 3, 1) * rng.random((S, S)) ** 3   # ties and long decimals
    G[rng.random((S, S)) < 0.3] = 0.0
    np.fill_diagonal(G, 0.0)
    idx = ra.sample_runs(S, N, 200, seed=N)
    assert np.array_equal(ra.sample_block_sums(G, idx), G[idx[:, :, None], idx[:, None, :]].sum(axis=1))


def test_block_sums_of_no_sampled_run_are_empty():
    assert ra.sample_block_sums(np.ones((3, 3)), np.zeros((4, 0), dtype=np.int64)).shape == (4, 0)
