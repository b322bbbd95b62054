"""The lexiprecision paper's claims over its tables 2 and 4, per benchmark
(reeval.analyses.papers.lexi_claims): each status on small hand-made comparison rows, and the
claims on the paper's own printed cells."""

import math

import pandas as pd

from reeval.analyses.papers import lexi_claims as lc
from reeval.analyses.papers.cells import cell, frame


def t4(benchmark, paper, ours, status="exact", item="table 4a"):
    return [cell("lexiprecision", item, benchmark, c, f"{p:.2f}", status, ours=o, digits=2, track="t",
                 needs="" if status != "data not here" else f"{benchmark} (9 runs)")
            for c, p, o in zip(("rrLP", "sgnLP", "RR"), paper, ours)]


def test_a_benchmarks_claim_compares_our_verdict_with_the_papers():
    rows = frame(t4("a", (20, 18, 15), (21, 19, 16))                       # both hold: exact
                 + t4("b", (20, 18, 15), (21, 14, 16), status="differs")   # ours fails sgnLP: differs
                 + t4("c", (20, 14, 15), (21, 14, 16))                     # both fail: exact
                 + t4("d", (20, 18, 15), (21, 19, 16), status="data not here")
                 + t4("e", (20, 18, 15), (math.nan,) * 3, status="data not here"))
    out = lc.claim_rows(rows)
    mine = out[out.column != "the paper's own table, every benchmark"].set_index("column")
    assert mine.loc["a", ["published", "reproduced", "status"]].tolist() == ["holds", "holds", "exact"]
    assert mine.loc["b", "status"] == "differs"
    assert mine.loc["b", "note"] == "ours: does not hold (sgnLP 14.00 <= RR 16.00)"
    assert mine.loc["c", "published"] == "does not hold (sgnLP 14.00 <= RR 15.00)"
    assert mine.loc["c", "status"] == "exact"
    assert mine.loc["d", "status"] == "data not here" and mine.loc["d", "note"] == "ours on part of the data: holds"
    assert (mine.loc["e", "status"], mine.loc["e", "reproduced"], mine.loc["e", "needs"]) == \
        ("data not here", "", "e (9 runs)")
    assert set(mine.index) == {"a", "b", "c", "d", "e"}   # table 4b and table 2 have no cells here


def test_the_claims_on_the_papers_own_tables():
    own = pd.DataFrame(lc.own_table_rows()).set_index("row")
    t2 = own.loc["section 5.1: lexiprecision agrees more with the masked dRR_1 than dRR_1 of the suffix (table 2)"]
    assert (t2.status, t2.reproduced) == ("exact", "holds in 18 of 18 benchmarks")
    t4a = own.loc["section 5.2: both rrLP and sgnLP outperform RR (table 4a)"]
    assert (t4a.status, t4a.reproduced) == ("differs", "holds in 10 of 18 benchmarks")
    assert "core (2017): does not hold (sgnLP 14.67 <= RR 15.03)" in t4a.note
    assert own.loc["section 5.2: both rrLP and sgnLP outperform RR (table 4b)", "reproduced"] == \
        "holds in 11 of 18 benchmarks"


def fig8(track, rr_minus=0.0):
    rows = []
    for removal in ("labels", "queries"):
        for f in (0.0, 0.5):
            rows.append({"track": track, "removal": removal, "fraction_removed": f,
                         "ranking_dRR1_mean": 90.0, "ranking_rrLP_mean": 91.0 - (rr_minus if f else 0),
                         "system_dRR1_mean": 80.0, "system_rrLP_mean": 80.0})
    return pd.DataFrame(rows)


def fig9(track, rr=(0.4, 0.2), lp=(0.01, 0.05)):
    return pd.DataFrame({"track": track, "fraction_removed": [0.0, 0.5, 0.9], "RR_ties_mean": [rr[0], 0.3, rr[1]],
                         "LP_ties_mean": [lp[0], 0.03, lp[1]]})


def test_figure_8_and_9_claims_per_track_from_the_data():
    mapped = {"a": "deep-pass (2019)", "b": "ml-1M (2018)", "c": "web (2014)"}
    sufficient = {"a": (True, ""), "b": (True, ""), "c": (False, "12 of the benchmark's 30 runs")}
    f8 = pd.concat([fig8("a"), fig8("b", rr_minus=2.0), fig8("c")], ignore_index=True)
    f9 = pd.concat([fig9("a"), fig9("b"), fig9("c", lp=(0.05, 0.01))], ignore_index=True)
    out = lc.figure_claim_rows(mapped, sufficient, f8, f9)
    got = {(r.track, r.row[:8]): (r.status, r.reproduced) for r in out.itertuples()}
    assert got == {("a", "figure 8"): ("exact", "holds"), ("a", "figure 9"): ("exact", "holds"),
                   ("b", "figure 8"): ("differs", "does not hold"),          # no figure 9 row: a recommender
                   ("c", "figure 8"): ("data not here", "holds"), ("c", "figure 9"): ("data not here", "does not hold")}
    b = out[(out.track == "b")].iloc[0]
    assert b.note.startswith("labels 0.5 ranking: rrLP 89.00 < dRR_1 90.00")
    c9 = out[(out.track == "c") & out.row.str.startswith("figure 9")].iloc[0]
    assert c9.note.startswith("on 12 of the benchmark's 30 runs: does not hold "
                              "(from 0 to 0.9 removed: dRR_1 ties 0.4 -> 0.2")
    # a track without the tables (figures 8-9 not computed) gives no row
    assert lc.figure_claim_rows({"d": "web (2013)"}, {}, f8, f9).empty


def test_a_claim_read_at_an_inferred_setting_says_so():
    """Cells read at the benchmark's inferred relevance level (their method says so): a verdict
    equal to the paper's is exact at an inferred setting, with the verdict at the cells' other
    level beside (not computed when a cell lacks it); a different verdict still differs."""
    def inferred(benchmark, ours, other):
        rows = t4(benchmark, (20, 18, 15), ours)
        for r, o in zip(rows, other):
            r.update(method="Tukey HSD, randomised (inferred: ...); relevance >= 2 (inferred: ...)",
                     other_setting="relevance >= 1", other_value=o)
        return rows
    rows = frame(inferred("a", (21, 19, 16), ("14.00", "16.00", "15.00"))     # holds; at >= 1 rrLP 14 <= RR 15
                 + inferred("b", (21, 19, 16), ("21.00", "", "15.00"))        # other level not computed
                 + inferred("c", (21, 14, 16), ("21.00", "19.00", "15.00")))  # ours fails: differs
    mine = lc.claim_rows(rows)
    mine = mine[mine.column != "the paper's own table, every benchmark"].set_index("column")
    assert mine.loc["a", ["status", "other_setting", "other_value"]].tolist() == [
        "exact at an inferred setting", "relevance >= 1", "does not hold (rrLP 14.00 <= RR 15.00)"]
    assert "relevance >= 2 (inferred" in mine.loc["a", "method"]
    assert mine.loc["b", ["status", "other_value"]].tolist() == ["exact at an inferred setting", "not computed"]
    assert mine.loc["c", "status"] == "differs"


def test_figure_claims_at_an_inferred_level():
    mapped, sufficient = {"a": "deep-pass (2019)"}, {"a": (True, "")}
    out = lc.figure_claim_rows(mapped, sufficient, fig8("a"), fig9("a"),
                               {"a": ("relevance >= 2 (inferred: the paper states none)", "relevance >= 1")})
    assert set(out.status) == {"exact at an inferred setting"}
    assert set(out.other_setting) == {"relevance >= 1"} and set(out.other_value) == {"not computed"}
    assert out.method.str.endswith("at relevance >= 2 (inferred: the paper states none)").all()


def graded_track(tmp_path):
    """4 runs x 3 topics, grades 0, 1 and 2: figures 8-9 differ between grade >= 1 and >= 2."""
    from conftest import write_lines
    from reeval.io.ingest import ingest_track, write_track

    docs = [f"d{i}" for i in range(8)]
    qrels = write_lines(tmp_path / "qrels", [f"q{q} 0 {d} {(i + q) % 3}" for q in range(3) for i, d in enumerate(docs)])
    runs = []
    for r in range(4):
        order = docs[r:] + docs[:r]
        runs.append(write_lines(tmp_path / f"run{r}", [f"q{q} Q0 {d} {i + 1} {10 - i} run{r}"
                                                        for q in range(3) for i, d in enumerate(order[::(-1) ** q])]))
    write_track(ingest_track("g", qrels, [str(p) for p in runs]), tmp_path / "track")
    return tmp_path / "track"


def test_figures_8_and_9_at_the_benchmarks_one_level_whatever_the_tracks(tmp_path):
    """A track holding a benchmark (here by its id, deep-pass (2019): grade >= 2) computes
    figures 8-9 at the benchmark's level whatever its own, so its claims are the same cells
    in every configuration; another track at its own level; the comparison names the level."""
    from reeval.analyses.lexiprecision.report import track_lexiprecision
    from reeval.analyses.papers import comparison as pc
    from reeval.workflow.config_check import section_with_defaults

    track = graded_track(tmp_path)
    opts = section_with_defaults("lexiprecision", {"label_removal": {"samples": 2, "fractions": [0.0, 0.5]}})
    got = {(name, level): track_lexiprecision(name, track, tmp_path / f"{name}{level}", rel_level=level,
                                              config=opts, figures=False)
           for name, level in (("trec2019-dl-passage", 1), ("trec2019-dl-passage", 2), ("t", 1))}
    for fig in ("fig8_agreement", "fig9_label_removal"):
        one, two, own = (got[k][fig] for k in (("trec2019-dl-passage", 1), ("trec2019-dl-passage", 2), ("t", 1)))
        pd.testing.assert_frame_equal(one, two)
        assert set(one.relevance_level) == {2} and set(own.relevance_level) == {1}
    assert not got[("t", 1)]["fig9_label_removal"].LP_ties_mean.equals(
        got[("trec2019-dl-passage", 1)]["fig9_label_removal"].LP_ties_mean)
    stacked = pd.concat([got[("trec2019-dl-passage", 1)]["fig8_agreement"].assign(track="a"),
                         got[("t", 1)]["fig9_label_removal"].assign(track="b"),
                         pd.DataFrame({"track": ["c"], "relevance_level": [float("nan")]})], ignore_index=True)
    levels = lc.figure_levels(stacked, ["a", "b", "c"], pc.LEVEL_WHY)
    assert levels["a"] == (f"relevance >= 2 (inferred: {pc.LEVEL_WHY})", "relevance >= 1")
    assert levels["b"][1] == "relevance >= 2"
    assert levels["c"] == lc.FIGURE_LEVEL   # tables that do not record a level
