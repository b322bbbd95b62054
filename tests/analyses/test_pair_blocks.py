"""Lexicographic precision's pair analyses a block of pairs at a time (issue 31, item 11):
the same tables as the whole pairs x topics arrays, bit for bit, and a bounded plan at
3,000 runs."""

import math

import numpy as np
import pandas as pd
import pytest

from conftest import write_lines
from reeval.analyses.lexiprecision import core as lx
from reeval.analyses.lexiprecision import pairblocks as pb
from reeval.analyses.lexiprecision import significance as ls
from reeval.analyses.lexiprecision import ties as lt
from reeval.io.ingest import ingest_track, write_track
from reeval.workflow.config_check import section_with_defaults

LEXI = section_with_defaults("lexiprecision", {"label_removal": {"samples": 2}, "hsd_resamples": 200})


def random_pv(seed=0, S=23, T=9, depth=40):
    """Position vectors of S runs on T topics with 1-14 relevant documents (figure 7 needs
    m >= 8), ties between runs included (a third of the runs copy another's ranking)."""
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 15, T)
    L = lx.DEFAULT_LEVELS
    P = np.full((S, T, L), lx.UNRETRIEVED, dtype=np.int32)
    found = np.zeros((S, T), dtype=np.int64)
    for s in range(S):
        for t in range(T):
            if s > 2 and rng.random() < 0.3:
                P[s, t], found[s, t] = P[s - 3, t], found[s - 3, t]
                continue
            k = int(rng.integers(0, m[t] + 1))
            P[s, t, :k] = np.sort(rng.choice(np.arange(1, depth + 1), size=k, replace=False))
            found[s, t] = k
    return lx.PositionVectors(runs=[f"r{s:02d}" for s in range(S)], topics=[f"q{t}" for t in range(T)],
                              m=m.astype(np.int64), found=found, positions=P, rel_level=1)


def folded(pv, budget, keep_values=False):
    totals = pb.PairTotals(pv, lx.DEFAULT_LEVELS, keep_values=keep_values)
    frames = list(pb.pair_rows(pv, lx.DEFAULT_LEVELS, totals, budget=budget))
    return totals, pd.concat(frames, ignore_index=True)


def same(a, b):
    """Equal dicts of numbers, NaN equal to NaN, bit for bit otherwise."""
    assert a.keys() == b.keys()
    for k in a:
        assert (a[k] == b[k]) or (math.isnan(a[k]) and math.isnan(b[k])), k


def test_pair_range_cuts_triu_order_anywhere():
    for S in (2, 3, 7, 31):
        ii, jj = np.triu_indices(S, 1)
        for a, b in ((0, ii.size), (0, 1), (3, 11), (ii.size - 1, ii.size)):
            if b <= ii.size and a < b:
                got = pb.pair_range(S, a, b)
                assert np.array_equal(got[0], ii[a:b]) and np.array_equal(got[1], jj[a:b])


@pytest.mark.parametrize("budget", [1, 7 * 9 * pb.cell_bytes(20), None], ids=["one_pair", "seven_pairs", "default"])
def test_blocks_of_pairs_give_the_tables_of_the_whole_bit_for_bit(budget):
    pv = random_pv()
    pc = lx.compare_pairs(pv)
    totals, rows = folded(pv, budget, keep_values=True)
    pd.testing.assert_frame_equal(rows, pc.to_frame(), check_exact=True)
    same(totals.ranking_agreement(), lx.ranking_agreement(pc))
    same(totals.system_agreement(), lx.system_agreement(pc))
    same(totals.tie_rates(), lx.tie_rates(pc))
    pd.testing.assert_frame_equal(totals.tie_probability_by_level(), lt.tie_probability_by_level(pc), check_exact=True)
    pd.testing.assert_frame_equal(totals.i_star_distribution(), lt.i_star_distribution(pc), check_exact=True)
    for got, want in zip(totals.locality(), lt.locality(pc)):
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    scores = totals.preference_scores()
    assert np.array_equal(scores["rrLP"], lx.mean_preference_scores(pc, pc.rr))
    assert np.array_equal(totals.values["rrLP"], pc.rr) and np.array_equal(totals.values["sgnLP"], pc.sgn)
    rr = lx.reciprocal_rank(pv)
    for design in ("blocked", "randomised"):
        want = ls.pair_tests(pc, rr, hsd_design=design, hsd_resamples=100)
        got = ls.pair_tests_from(pv.runs, pc.ii, pc.jj, len(pv.topics), totals.sums, rr, "holm",
                                 lambda: ls.hsd_verdicts(pc, rr, 0.05, design, 100, 0))
        pd.testing.assert_frame_equal(got, want, check_exact=True)


def many_run_track(tmp_path, n_runs=40, n_topics=6):
    """A track of many short runs: each run 3 lines, on topics and documents drawn with
    a fixed seed; 10 relevant documents per topic (figure 7 uses topics with m >= 8)."""
    rng = np.random.default_rng(3)
    src = tmp_path / "src"
    (src / "runs").mkdir(parents=True)
    qrels = write_lines(src / "qrels", [f"{t} 0 d{d} {int(d < 10)}" for t in range(n_topics) for d in range(25)])
    runs = []
    for r in range(n_runs):
        lines = [f"{rng.integers(n_topics)} Q0 d{rng.integers(25)} {k} {9 - k} r{r}" for k in range(3)]
        runs.append(write_lines(src / "runs" / f"r{r:03d}", lines))
    write_track(ingest_track("many", qrels, runs), tmp_path / "track")
    return tmp_path / "track"


def test_the_workflow_step_with_a_small_memory_budget_writes_the_same_tables(tmp_path, monkeypatch):
    """track_lexiprecision on 40 runs (780 pairs) with blocks of 2 pairs and with one block."""
    from reeval.analyses.lexiprecision.report import track_lexiprecision

    track = many_run_track(tmp_path)
    track_lexiprecision("many", track, tmp_path / "whole", rel_level=1, config=LEXI, figures=False)
    monkeypatch.setattr(pb, "PAIR_BLOCK_BYTES", 2 * 6 * pb.cell_bytes(20))
    assert pb.pairs_per_block(6, 20) == 2
    track_lexiprecision("many", track, tmp_path / "blocks", rel_level=1, config=LEXI, figures=False)
    files = sorted(p.name for p in (tmp_path / "whole").glob("*.parquet"))
    assert "pairs.parquet" in files and len(files) == 16  # 14 and figure 8's two (lexiprecision.incomplete)
    for name in files:
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "blocks" / name),
                                      pd.read_parquet(tmp_path / "whole" / name), check_exact=True, obj=name)
    assert len(pd.read_parquet(tmp_path / "whole" / "pair_tests.parquet")) == 40 * 39 // 2


def test_the_plan_at_3000_runs_fits_the_rules_memory():
    """The issue's shape: 3,000 runs (4.5 M pairs), 12 topics, and the same with 250
    topics: one block within its budget, the randomised HSD of the preferences not planned
    (beyond its cap), every planned array together under the analyses rule's 4,000 MB."""
    for topics in (12, 250):
        plan = pb.planned_memory(3000, topics)
        assert plan["pairs"] == 4_498_500
        assert plan["block"] <= pb.PAIR_BLOCK_BYTES and plan["pairs_per_block"] >= 1
        assert plan["hsd_values"] == 0
        assert plan["total"] < 3000 * 2**20, plan
    # the study's largest track keeps the randomised HSD (232 runs x 50 topics)
    assert pb.planned_memory(232, 50)["hsd_values"] > 0


def test_a_block_at_3000_runs_holds_what_the_plan_says():
    """One block of the planned size for 3,000 runs x 12 topics: its arrays and its rows of
    pairs.parquet (pandas, strings not counted twice) within pairs x topics x cell_bytes."""
    S, T = 3000, 12
    rng = np.random.default_rng(0)
    P = np.full((S, T, 20), lx.UNRETRIEVED, dtype=np.int32)
    P[:, :, 0] = rng.integers(1, 50, (S, T))
    pv = lx.PositionVectors(runs=[f"r{s}" for s in range(S)], topics=[f"q{t}" for t in range(T)],
                            m=np.full(T, 5), found=np.ones((S, T), dtype=np.int64), positions=P, rel_level=1)
    block = next(pb.pair_blocks(pv))
    b = pb.pairs_per_block(T, 20)
    assert block.n_pairs == b
    arrays = sum(a.nbytes for a in (block.i_star, block.sgn, block.rr, block.sgn_suffix, block.drr, block.ii, block.jj))
    rows = block.to_frame().memory_usage(deep=False).sum()
    assert arrays + rows <= b * T * pb.cell_bytes(20) <= pb.PAIR_BLOCK_BYTES


def test_figure_7_from_cross_products_when_its_rows_are_too_many(monkeypatch):
    pv = random_pv(seed=1)
    pc = lx.compare_pairs(pv)
    monkeypatch.setattr(pb, "LOCALITY_ROWS", 10)
    totals, _ = folded(pv, budget=1)
    assert totals.locality_parts is None
    (corr, reg), (corr0, reg0) = totals.locality(), lt.locality(pc)
    np.testing.assert_allclose(corr.to_numpy(), corr0.to_numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(reg[["coefficient", "r2", "n"]].to_numpy(dtype=float),
                               reg0[["coefficient", "r2", "n"]].to_numpy(dtype=float), rtol=1e-8, atol=1e-12)


def test_beyond_the_cap_the_preferences_take_the_blocked_hsd_and_table_4_says_so(tmp_path, monkeypatch):
    from reeval.analyses.lexiprecision.report import track_lexiprecision

    track = many_run_track(tmp_path, n_runs=12)
    monkeypatch.setattr(pb, "HSD_PREFERENCE_CELLS", 0)
    tables = track_lexiprecision("many", track, tmp_path / "out", rel_level=1, config=LEXI, figures=False)
    power = tables["table4_discriminative_power"].set_index(["test", "measure"])
    assert power.loc[("tukey_hsd", "RR"), "procedure"] == "randomised"
    for name in ("rrLP", "sgnLP"):
        row = power.loc[("tukey_hsd", name)]
        assert row.procedure.startswith("blocked (randomised not run: 200 resamples x ")
        assert (row.resamples, row.seeds) == (0, 1)
    pv = lx.position_vectors(*(pd.read_parquet(track / f"{n}.parquet") for n in ("judged", "qrels", "depth")),
                             runs=sorted(pd.read_parquet(track / "depth.parquet").run.unique()))
    pc = lx.compare_pairs(pv)
    want = ls.parametric_hsd(ls.preference_scores(pc), 0.05, "blocked")
    for name in ("rrLP", "sgnLP"):
        assert np.array_equal(tables["pair_tests"][f"hsd_{name}"].to_numpy(), want[name])


def test_the_plan_holds_the_permutations_the_randomised_hsd_draws_once():
    from reeval.stats.randomised import SHARED_PERMUTATION_CELLS
    S, T, B = 232, 50, 2000
    P = S * (S - 1) // 2
    assert B * T * S <= SHARED_PERMUTATION_CELLS
    assert pb.planned_memory(S, T, resamples=B)["hsd_values"] == P * T * 27 + 4 * B * T * S
