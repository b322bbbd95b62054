"""The rareness paper's tables 1-4 beside ours (reeval.analyses.rareness.paper) and table 4."""

import numpy as np
import pandas as pd
import pytest

from reeval.analyses.papers.cells import COLUMNS, STATUSES, frame
from reeval.analyses.papers.published import published
from reeval.analyses.rareness import analysis as ra
from reeval.analyses.rareness import core as rr
from reeval.analyses.rareness import paper as rp
from reeval.io.ingest import ingest_track
from reeval.measures import build_grid

OPTS = {"k": 100, "seed": 7, "trials": 1000}


def stacked_for(track: str, runs: int, topics: int, paper_rows: list, stability=None, table4=None, ns=None) -> dict:
    """Cross-track tables of one track whose values are ``paper_rows``' (so cells can match)."""
    disc = pd.DataFrame([{"track": track, "measure": f"{r['measure']}@100", "alpha": rr.alpha_label(r["alpha"]),
                          "method": method, "runs": runs, "pairs": runs * (runs - 1) // 2,
                          "significant_95": r["significant_95"] + shift, "significant_99": r["significant_99"] + shift}
                         for r in paper_rows for method, shift in (("authors", 0), ("blocked", 1))])
    stab = pd.DataFrame([{"track": track, "measure": f"{r['measure']}@100", "alpha": rr.alpha_label(r["alpha"]),
                          "topics": topics, "sampled_topics": topics // 2, "trials": 1000, "fuzziness": 0.05,
                          "fuzziness_scale": "absolute", "seeds": 5,
                          **(stability or {"stability": r["stability"], "stability_low": r["stability"] - 0.01,
                                           "stability_high": r["stability"] + 0.01})} for r in paper_rows])
    empty_ns = pd.DataFrame(columns=["track", "measure", "alpha", "n_systems", "trials", "valid_trials", "mean_tau",
                                     "sd_tau"])
    empty_t4 = pd.DataFrame(columns=["track", "qid", "docno", "grade", "k", "c_k", "n_systems", "rarity",
                                     "retrieved_by"])
    return {"discriminative": disc, "stability": stab, "n_systems": empty_ns if ns is None else ns,
            "table4": empty_t4 if table4 is None else table4}


def test_every_published_cell_has_a_row_and_a_status():
    out = rp.comparison_rows(stacked_for("x", 3, 4, []), {}, OPTS)
    assert list(out.columns) == list(COLUMNS) and set(out.status) == {"data not here"}
    # tables 1 and 2: 6 rows x (95%, 99%, stability) for 4 collections; TREC-8's table 3
    # (2 measures x 6 N) and table 4 (5 documents); the text: 4 claims, figure 1's 3 counts
    assert len(out) == 4 * 18 + 12 + 5 + 4 + 3
    assert out.note.str.startswith("needs ").all()
    t8 = out[(out.item == "table 4")]
    assert set(t8.published) == {"0.81", "0.62", "0.41", "0.22", "0.08"}


def test_a_track_on_another_task_is_data_not_here_in_every_row_with_ours_beside_and_says_so():
    """The data decide first: the very same numbers on another task (and 12 of 64 runs) are
    no reproduction, so every cell is data not here, ours beside it."""
    ref = published("rareness")["DLT20"]
    stacked = stacked_for("dl", 12, 54, ref["rows"])  # the very same numbers
    out = rp.comparison_rows(stacked, {"dl": {"collection": "DLT20", "task": "passage ranking"}}, OPTS, {"dl": 2})
    mine = out[(out.track == "dl") & (out["item"] != "text")]  # the tables; the text: its claims on the track
    assert len(mine) == 18 and (mine.status == "data not here").all() and (mine.reproduced != "").all()
    assert mine.note.str.contains("different task: dl is passage ranking, the paper's collection document ranking").all()
    assert mine.note.str.contains("12 runs here, 64 in the paper").all()
    assert mine.method.str.contains("relevance >= 2").all()
    assert mine.note.str.contains("relevance >= 2 here, >= 1 in the authors' code").all()


def test_a_mapped_track_of_the_same_collection_matches_cell_by_cell():
    ref = published("rareness")["TREC-8"]
    rows = [dict(r) for r in ref["rows"]]
    rows[0]["significant_95"] += 1                                  # one count off
    t4 = pd.DataFrame({"track": "t8", "qid": "431", "docno": [d["docno"] for d in ref["table4"]["documents"]],
                       "grade": 1, "k": 100, "c_k": 1, "n_systems": 129,
                       "rarity": [d["rarity"] + 0.001 for d in ref["table4"]["documents"]], "retrieved_by": "a"})
    t3 = ref["table3"]
    ns = pd.DataFrame([{"track": "t8", "measure": f"{f}@100", "alpha": "1", "n_systems": n, "trials": 1000,
                        "valid_trials": 1000, "mean_tau": v + 0.002, "sd_tau": 0.05}
                       for f in ("P_rareness", "AP_rareness") for n, v in zip(t3["n_systems"], t3[f])])
    stacked = stacked_for("t8", 129, 50, rows, table4=t4, ns=ns)
    stacked["stability"].loc[0, "stability"] += 0.004                 # prints differently, inside the range
    out = rp.comparison_rows(stacked, {"t8": "TREC-8"}, OPTS)
    mine = out[(out.track == "t8") & (out["item"] != "text")].reset_index(drop=True)
    assert len(mine) == 18 + 12 + 5
    t1 = mine[mine.item == "table 1"]
    # the paper's "Tukey HSD" read as the authors' per-pair HSD: exact at that inferred setting
    assert (t1.status == "exact at an inferred setting").sum() == 11 and t1.iloc[0].status == "differs"
    assert t1.iloc[0].note.startswith("cause unknown")
    assert t1.method.str.startswith("Tukey HSD per pair of runs (inferred: the paper says Tukey's HSD; its authors' "
                                    "released code").all()
    # the other reading, the topic-blocked HSD over all runs (here one more), beside each cell
    assert (t1.iloc[1].other_setting, t1.iloc[1].other_value) == (
        "topic-blocked Tukey HSD over all 129 runs", str(ref['rows'][0]['significant_99'] + 1))
    t2 = mine[mine.item == "table 2"]
    assert t2.iloc[0].status == "within Monte Carlo error" and (t2.iloc[1:].status == "exact").all()
    assert "over 5 seeds" in t2.iloc[0].note
    # table 3: 0.002 off with a standard error of 0.05 / sqrt(1000): inside 2 standard errors
    assert (mine[mine.item == "table 3"].status == "within Monte Carlo error").all()
    assert (mine[mine.item == "table 4"].status == "exact").all()
    assert set(out.status) <= set(STATUSES)


def discriminative_rows(track: str, values: dict) -> pd.DataFrame:
    """``values``: {(method, alpha): (significant at 95%, at 99%)} of P_rareness@100 on 12 runs."""
    return pd.DataFrame([{"track": track, "measure": "P_rareness@100", "alpha": alpha, "method": method,
                          "runs": 12, "pairs": 66, "significant_95": v95, "significant_99": v99}
                         for (method, alpha), (v95, v99) in values.items()])


def test_alpha_trend_says_which_way_each_method_moves_from_alpha_zero_to_the_largest():
    disc = discriminative_rows("dl", {("authors", "0"): (21, 13), ("authors", "0.5"): (23, 15),
                                      ("authors", "1"): (24, 13), ("blocked", "0"): (32, 27),
                                      ("blocked", "1/R"): (40, 40), ("blocked", "1"): (31, 28)})
    trend = rp.alpha_trend(disc).set_index(["method", "level"])
    assert trend.loc[("authors", "95%")].to_dict() == {"track": "dl", "measure": "P_rareness@100", "alphas": "0 -> 1",
                                                       "first": 21, "last": 24, "direction": "rises"}
    assert trend.loc[("authors", "99%")].direction == "stays"
    assert trend.loc[("blocked", "95%")].direction == "falls"   # 1/R is not a number on the alpha axis
    assert trend.loc[("blocked", "99%")].direction == "rises"
    assert rp.alpha_trend(discriminative_rows("dl", {("authors", "1"): (1, 1)})).empty   # no alpha = 0


def test_table1_markdown_gives_both_methods_the_papers_column_and_its_claim():
    disc = discriminative_rows("dl", {("authors", "0"): (21, 13), ("authors", "1"): (24, 16),
                                      ("blocked", "0"): (32, 27), ("blocked", "1"): (31, 27)})
    text = rp.table1_markdown(disc, {"dl": {"collection": "DLT20", "task": "passage ranking"}}, 100)
    assert "| P@100 | 0 | 21 | 13 | 32 | 27 | 61 | 15 |" in text
    assert "paper: DLT20 (document ranking, not passage ranking) 95%" in text
    assert "| AP | 0 | n/a |" in text                               # not computed here
    assert rp.ALPHA_CLAIM in text
    assert ("the authors' procedure: rises in 2, stays in 0, falls in 0 of 2; the topic-blocked HSD: rises in 0, "
            "stays in 1, falls in 1 of 2") in text
    assert "| dl | P_rareness@100 | 95% | 0 -> 1 | 21 -> 24 (rises) | 32 -> 31 (falls) |" in text
    assert rp.table1_markdown(disc.iloc[:0], {}, 100) == ""


def test_an_unknown_collection_is_refused():
    with pytest.raises(ValueError, match="no collection 'TREC9'"):
        rp.comparison_rows(stacked_for("x", 3, 4, []), {"x": "TREC9"}, OPTS)


@pytest.fixture
def tiny_hits(tmp_path):
    """3 runs, topic q1 with relevant d1 (grade 2, found by all), d2 (grade 1, only run B|x),
    d3 (grade 3, found by none) and non-relevant n1; topic q2 with one relevant document."""
    (tmp_path / "qrels").write_text("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 3\nq1 0 n1 0\nq2 0 e1 1\n")
    runs = []
    for name, docs in (("A", "d1 n1"), ("B|x", "d2 d1"), ("C", "n1 d1")):
        path = tmp_path / name  # the run is named after its file
        path.write_text("".join(f"q1 Q0 {d} {i + 1} {10 - i} {name}\n" for i, d in enumerate(docs.split()))
                        + f"q2 Q0 e1 1 1 {name}\n")
        runs.append(str(path))
    t = ingest_track("tiny", tmp_path / "qrels", runs)
    grid = build_grid(t.judged, t.depth, t.qrels, keep_docno=True)
    return rr.top_k_hits(grid, 10, 1), grid


def test_table4_lists_a_topics_relevant_documents_rarest_first(tiny_hits):
    hits, grid = tiny_hits
    out = ra.topic_documents(hits, grid.qrels_rel[grid.qrels_rel >= 1], hits.topics.index("q1"))
    assert list(out.docno) == ["d2", "d1", "d3"]
    assert list(out.grade) == [1, 2, 3] and list(out.c_k) == [1, 3, 0]
    assert out.rarity.iloc[0] == pytest.approx(1 - 1 / 3) and out.rarity.iloc[1] == 0.0
    assert np.isnan(out.rarity.iloc[2])
    assert list(out.retrieved_by) == ["B|x", "A B|x C", ""]
    assert ra.topic_documents(hits, grid.qrels_rel[grid.qrels_rel >= 1], -1).empty


def test_table4_markdown_escapes_run_names(tiny_hits):
    hits, grid = tiny_hits
    out = ra.topic_documents(hits, grid.qrels_rel[grid.qrels_rel >= 1], 0)
    out.insert(0, "track", "tiny")
    md = rp.table4_markdown(out)
    assert "3 relevant documents, 2 found by a run in its top 10, 1 by none" in md
    assert "B&#124;x" in md and "| B|x" not in md


def test_table2_markdown_puts_the_papers_column_beside_a_mapped_track():
    ref = published("rareness")["DLT20"]
    stacked = stacked_for("dl", 12, 54, ref["rows"])
    md = rp.table2_markdown(stacked["stability"], {"dl": {"collection": "DLT20", "task": "passage ranking"}}, 100)
    assert "| metric | α | dl | paper: DLT20 (document ranking, not passage ranking) |" in md
    assert "| P@100 | 0 | 0.071 (0.061-0.081) | 0.071 |" in md


def tau_table(tracks):
    return pd.DataFrame([{"track": t, "measure": m, "alpha": a, "tau": 1 - 0.1 * float(a), "tau_ap": 1.0}
                         for t in tracks for m in ("P_rareness@100", "AP_rareness@100", "P_rareness_norm@100")
                         for a in ("0", "0.5", "1")])


@pytest.mark.parametrize("n, panels, series", [(1, 1, 1), (11, 11, 2), (13, 2, 2)])
def test_figure2_is_the_papers_form_up_to_a_page_of_tracks(monkeypatch, tmp_path, n, panels, series):
    """Up to 12 tracks: one panel per track with the paper's two measures (P and AP
    rareness, here coinciding on one track: drawn once); beyond, one panel per family."""
    from reeval.analyses.rareness import figures as rf

    drawn = {}
    monkeypatch.setattr(rf, "save_figure_pair", lambda fig, stem: drawn.setdefault("fig", fig))
    tracks = [f"t{i}" for i in range(n)]
    df = tau_table(tracks)
    if n > 1:  # the two measures apart
        df.loc[df.measure == "AP_rareness@100", "tau"] -= 0.01
    rf.by_track_figure("tau", df, tracks, tmp_path / "tau", "none")
    visible = [ax for ax in drawn["fig"].axes if ax.get_visible()]
    assert len(visible) == panels
    if n <= rf.PAGE_TRACKS:
        assert [ax.get_title() for ax in visible] == tracks
        assert all(len(ax.get_lines()) == series + 1 for ax in visible)  # + the tau = 0.9 line
        labels = [t.get_text() for t in drawn["fig"].legends[0].get_texts()]
        assert labels == ["P rareness", "AP rareness"]  # not the normalized measure


def test_table4_topic_configured_then_the_papers_then_the_most_judged(tiny_hits):
    from reeval.analyses.rareness.report import _table4_topic
    from reeval.workflow.config_check import ConfigError

    hits, _ = tiny_hits
    assert _table4_topic(hits, {"table4": {"topics": {"tiny": "q2"}}}, "tiny") == 1
    assert _table4_topic(hits, {"paper": {"tiny": "TREC-8"}}, "tiny") == 0  # no topic 431: most relevant
    hits.topics[1] = "431"
    assert _table4_topic(hits, {"paper": {"tiny": {"collection": "TREC-8"}}}, "tiny") == 1
    assert _table4_topic(hits, {"paper": {"tiny": "DLT20"}}, "tiny") == 0
    with pytest.raises(ConfigError, match="rareness.table4.topics: topic 'zz' is not a qrels topic of track 'tiny'"):
        _table4_topic(hits, {"table4": {"topics": {"tiny": "zz"}}}, "tiny")


def test_table4_topic_of_a_track_without_a_paper_collection_reads_no_published_file(tiny_hits, monkeypatch):
    import reeval.analyses.rareness.report as report

    def unread(paper):
        raise AssertionError(f"published({paper!r}) read for a track that stands for no paper")

    monkeypatch.setattr(report, "published", unread)
    hits, _ = tiny_hits
    assert report._table4_topic(hits, {}, "tiny") == report.ra.default_topic(hits)
    assert report._table4_topic(hits, {"paper": {"other": "TREC-8"}}, "tiny") == report.ra.default_topic(hits)
    with pytest.raises(AssertionError, match="published"):
        report._table4_topic(hits, {"paper": {"tiny": "TREC-8"}}, "tiny")


def test_table1_takes_the_authors_procedure_when_discriminative_has_a_method_column():
    """Issue 37, item 5: table 1's cells are the ``authors`` rows of ``discriminative``'s
    ``method`` column (the per-pair two-group HSD of the authors' code), the method says so,
    and the ``blocked`` rows (the topic-blocked HSD over all runs) are named in the note."""
    ref = published("rareness")["TREC-8"]
    stacked = stacked_for("t8", 129, 50, ref["rows"])
    authors = stacked["discriminative"].assign(method="authors")
    blocked = authors.assign(method="blocked", significant_95=authors.significant_95 + 5)
    stacked["discriminative"] = pd.concat([blocked, authors], ignore_index=True)
    out = rp.comparison_rows(stacked, {"t8": "TREC-8"}, OPTS, {"t8": 1})
    t1 = out[(out.track == "t8") & (out["item"] == "table 1")]
    assert len(t1) == 12 and (t1.status == "exact at an inferred setting").all()
    assert t1.method.str.startswith("Tukey HSD per pair of runs (inferred: ").all()
    assert (t1.other_setting == "topic-blocked Tukey HSD over all 129 runs").all()
    # the blocked HSD alone printing the paper's value: reproduced by another method, both values
    swapped = pd.concat([authors.assign(method="blocked"), blocked.assign(method="authors")], ignore_index=True)
    out = rp.comparison_rows({**stacked, "discriminative": swapped}, {"t8": "TREC-8"}, OPTS, {"t8": 1})
    t1 = out[(out.track == "t8") & (out["item"] == "table 1")].set_index("column")
    cell95 = t1[t1.index == "TREC-8 95%"].iloc[0]
    assert (cell95.status, cell95.reproduced, cell95.other_value) == (
        "reproduced by another method", str(ref["rows"][0]["significant_95"] + 5), str(ref["rows"][0]["significant_95"]))

def _claims_stacked(disc_95, stab, taus, synthetic_docs=None):
    """Cross-track tables of one track t: P_rareness@100's discriminative counts (authors) at
    alpha 0, 0.5, 1 (and a blocked row that must be ignored), its stability and tau."""
    alphas = ["0", "0.5", "1"]
    disc = pd.DataFrame({"track": "t", "measure": "P_rareness@100", "alpha": alphas, "method": "authors",
                         "runs": 10, "pairs": 45, "significant_95": disc_95, "significant_99": disc_95})
    disc = pd.concat([disc, disc.assign(method="blocked", significant_95=99, significant_99=99)], ignore_index=True)
    stacked = {"discriminative": disc,
               "stability": pd.DataFrame({"track": "t", "measure": "P_rareness@100", "alpha": alphas, "stability": stab}),
               "tau": pd.DataFrame({"track": "t", "measure": "P_rareness@100", "alpha": alphas, "tau": taus}),
               "synthetic": pd.DataFrame(columns=["track", "qid", "system", "alpha", "docs", "rank", "n_systems"])}
    if synthetic_docs:
        rows = [{"track": "t", "qid": "1127540", "measure": "P_rareness@100", "system": "rare", "alpha": a, "docs": d,
                 "rank": 1 if d >= need else 3, "n_systems": 13} for a, need in synthetic_docs.items() for d in range(1, 50)]
        stacked["synthetic"] = pd.DataFrame(rows)
    return stacked


def test_the_paper_s_claims_are_rows_saying_whether_they_hold_on_our_tracks():
    """Issue 37, item 7: each claim of the rareness paper a row per track, data not here (none of
    ours is the paper's collections), ours the share of comparisons that hold, the failures named."""
    from reeval.analyses.rareness.claims import claim_rows

    rows = frame(claim_rows(_claims_stacked([10, 12, 14], [0.5, 0.6, 0.7], [1.0, 0.9, 0.8])))
    claims = rows[rows.column == "claim"].set_index("row")
    assert len(claims) == 4 and (claims.status == "data not here").all() and (claims.reproduced == "1.000").all()
    assert (claims.note.str.endswith("(not the paper's data): holds")).all()
    worse = frame(claim_rows(_claims_stacked([10, 10, 9], [0.5, 0.4, 0.7], [1.0, 0.7, 0.8]))).set_index("row")
    more = worse.loc["our metrics have higher discriminative power than baselines (4.3)"]
    assert more.reproduced == "0.000" and "does not hold in 4 of 4" in more.note and "α=1: 9 vs 10 (95%)" in more.note
    assert worse.loc["a higher stability score in all cases vs. their classic counterparts (4.4)"].reproduced == "0.500"
    tau = worse.loc["steady trends of decreasing rank correlation with increasing alpha (4.2, figure 2)"]
    assert tau.reproduced == "0.500" and "α 0.5 -> 1: 0.700 -> 0.800" in tau.note


def test_figure_1_s_counts_come_from_the_synthetic_table_of_the_paper_s_topic():
    from reeval.analyses.rareness.claims import claim_rows

    stacked = _claims_stacked([1, 2, 3], [0.1, 0.2, 0.3], [1, 0.9, 0.8], {"1": 3, "0.5": 8, "0": 13})
    # the normalised family ranks S_rare first sooner: not the paper's measure, left out
    norm = stacked["synthetic"].assign(measure="P_rareness_norm@100", rank=1)
    stacked["synthetic"] = pd.concat([stacked["synthetic"], norm], ignore_index=True)
    rows = frame(claim_rows(stacked))
    fig1 = rows[rows.row.str.startswith("figure 1")].set_index("column")
    assert fig1.loc[["α = 1", "α = 0.5", "α = 0"], "published"].tolist() == ["28", "33", "44"]
    assert fig1.loc[["α = 1", "α = 0.5", "α = 0"], "reproduced"].tolist() == ["3", "8", "13"]
    assert (fig1.status == "data not here").all() and fig1.note.str.contains("12 runs").all()
    empty = {"discriminative": pd.DataFrame(columns=["track"]), "synthetic": pd.DataFrame()}
    alone = frame(claim_rows(empty))
    assert len(alone) == 7 and (alone.reproduced == "").all() and (alone.status == "data not here").all()


def test_the_claims_of_two_tracks_stacked_are_each_track_s_own():
    """claim_rows splits the cross-track tables by track once (by_track): each track's rows
    are those of its tables alone, the other track's rows no part of them."""
    from reeval.analyses.rareness.claims import claim_rows

    holds = _claims_stacked([10, 12, 14], [0.5, 0.6, 0.7], [1.0, 0.9, 0.8])
    fails = _claims_stacked([10, 10, 9], [0.5, 0.4, 0.7], [1.0, 0.7, 0.8])
    renamed = {name: df.assign(track="u") for name, df in fails.items()}
    both = {name: pd.concat([holds[name], renamed[name]], ignore_index=True) for name in holds}
    rows = frame(claim_rows(both))
    alone = pd.concat([frame(claim_rows(holds)), frame(claim_rows(renamed))], ignore_index=True)
    key = ["row", "column", "track"]
    claims = rows[rows.column == "claim"].sort_values(key).reset_index(drop=True)
    want = alone[alone.column == "claim"].sort_values(key).reset_index(drop=True)
    assert len(claims) == 8 and claims.equals(want)


def test_a_claim_on_a_track_holding_the_paper_s_collection_is_exact_or_differs():
    """The claims are decided from the data: on a track holding one of the paper's collections
    (its task, runs and topics) a claim that holds everywhere is exact, one that fails differs;
    on a track mapped to the collection but with other runs it is data not here, ours beside."""
    from reeval.analyses.rareness.claims import claim_rows

    held = {"t": ("TREC-8", True, "")}
    rows = frame(claim_rows(_claims_stacked([10, 12, 14], [0.5, 0.6, 0.7], [1.0, 0.9, 0.8]), held))
    claims = rows[rows.column == "claim"]
    assert (claims.status == "exact").all() and claims.note.str.startswith("on t (TREC-8): holds").all()
    worse = frame(claim_rows(_claims_stacked([10, 10, 9], [0.5, 0.4, 0.7], [1.0, 0.7, 0.8]), held))
    assert set(worse[worse.column == "claim"].status) == {"differs"}
    partial = {"t": ("TREC-8", False, "10 runs here, 129 in the paper")}
    rows = frame(claim_rows(_claims_stacked([10, 12, 14], [0.5, 0.6, 0.7], [1.0, 0.9, 0.8]), partial))
    claims = rows[rows.column == "claim"]
    assert (claims.status == "data not here").all()
    assert claims.note.str.startswith("on t (not the paper's data: 10 runs here, 129 in the paper): holds").all()


def test_figure_1_on_a_track_holding_dlt20_is_exact_or_differs_per_alpha():
    from reeval.analyses.rareness.claims import claim_rows

    stacked = _claims_stacked([1, 2, 3], [0.1, 0.2, 0.3], [1, 0.9, 0.8], {"1": 28, "0.5": 30, "0": 44})
    fig1 = frame(claim_rows(stacked, {"t": ("DLT20", True, "")}))
    fig1 = fig1[fig1.row.str.startswith("figure 1")].set_index("column")
    assert fig1.loc[["α = 1", "α = 0.5", "α = 0"], "status"].tolist() == ["exact", "differs", "exact"]
    # a track holding another collection: data not here, ours beside
    other = frame(claim_rows(stacked, {"t": ("TREC-8", True, "")}))
    assert set(other[other.row.str.startswith("figure 1")].status) == {"data not here"}


def test_figure_1_needs_the_task_and_runs_not_every_topic():
    """Figure 1 is one topic: a DLT20 track with the task and every run but fewer topics holds
    its data (as figure 1's claims read it), while the claims over every topic do not."""
    from reeval.analyses.papers.published import published
    from reeval.analyses.rareness.claims import claim_rows
    from reeval.analyses.rareness.paper import _holds

    ref = published("rareness")["DLT20"]
    stacked = _claims_stacked([1, 2, 3], [0.1, 0.2, 0.3], [1, 0.9, 0.8], {"1": 28, "0.5": 30, "0": 44})
    stacked["discriminative"] = stacked["discriminative"].assign(runs=ref["runs"])
    stacked["stability"] = pd.DataFrame({"track": ["t"], "topics": [10]})
    held, one_topic = (_holds(stacked, "t", ref["task"], ref, topics=t) for t in (True, False))
    assert held == (False, f"10 topics here, {ref['topics']} in the paper") and one_topic == (True, "")
    rows = frame(claim_rows(stacked, {"t": ("DLT20", *held)}, {"t": ("DLT20", *one_topic)}))
    fig1 = rows[rows.row.str.startswith("figure 1")].set_index("column")
    assert fig1.loc[["α = 1", "α = 0.5", "α = 0"], "status"].tolist() == ["exact", "differs", "exact"]
    claims = rows[rows.column == "claim"]
    assert len(claims) and set(claims.status) == {"data not here"}
