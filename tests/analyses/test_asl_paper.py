"""The ASL paper's cells beside ours (reeval.analyses.asl.paper), its appendix A.1 worked
example, and config/asl-paper.yaml's table 1 on the shared DL-2020 passage track."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from reeval.analyses.asl.paper import (ROW_COLUMNS, delta_value_text, headline_claims, paper_rows, printed,
                                      range_prints_as, table1_sufficiency, track_set_sufficiency)
from reeval.analyses.asl.views import map_share
from reeval.analyses.asl.study import HEADROOM_COLUMNS, geometric_range
from reeval.analyses.asl.techniques import TECHNIQUE_COLUMNS, technique_table
from reeval.analyses.papers.published import published

ROOT = Path(__file__).resolve().parents[2]
#: appendix A.1: "Given input search lengths of: [1, 1, 1, 2, 4, 5, 10, 10000, 10000], an
#: unweighted average by P is equivalent to an unweighted average of these SLs instead:
#: [1, 1, 1, 2.1, 2.7, 2.9, 3, 3.2, 3.2]"
A1_SEARCH_LENGTHS = [1, 1, 1, 2, 4, 5, 10, 10000, 10000]
A1_EQUIVALENT = [1, 1, 1, 2.1, 2.7, 2.9, 3, 3.2, 3.2]


def test_appendix_a1_worked_example():
    sl = np.array(A1_SEARCH_LENGTHS, dtype=float)
    p = 1.0 / sl
    # averaging in P-space, read back as a search length: the harmonic mean of the SLs
    p_average_sl = 1.0 / p.mean()
    assert p_average_sl == pytest.approx(9 / 4.0502)              # 2.222
    # eq. 14-15: averaging P unweighted is averaging the SLs weighted by w_i = 1/SL_i
    w = 1.0 / sl
    assert (w * sl).sum() / w.sum() == pytest.approx(p_average_sl)
    assert np.mean(sl) == pytest.approx(20024 / 9)         # the plain SL mean, 2224.9, for contrast
    # the paper's equivalent SLs (printed to one decimal) average to the same: within the
    # rounding of nine values to one decimal (0.05 at most each)
    assert np.mean(A1_EQUIVALENT) == pytest.approx(p_average_sl, abs=0.05)
    # the same documents as one run: MAP's share (A.1) is the prefix of SLs sorted by P
    # whose plain mean is closest to 2.222: 1, 1, 1, 2, 4, 5 (mean 2.33; five give 1.8)
    docs = pd.DataFrame({"run": "r", "qid": "q", "docno": [f"d{k}" for k in range(9)], "precision": p,
                         "asl": sl, "retrieved": True})
    s = map_share(docs).iloc[0]
    assert s.target_sl == pytest.approx(p_average_sl)
    assert (s.n_docs, s.n_closest) == (9, 6) and s.share == pytest.approx(6 / 9)


def test_printed_as_the_paper():
    assert printed(0.45612, 3) == "0.456" and printed(51.33, 0) == "51" and printed(0.391, 0, percent=True) == "39%"
    assert printed(float("nan"), 3) == "n/a"


def _frames(n_runs: int, values: dict):
    """One track's headroom and technique rows: ``values`` group -> {measure: (value, run)}."""
    head = pd.DataFrame([{c: np.nan for c in HEADROOM_COLUMNS} | {"track": "dl20", "n_runs": n_runs,
                         "P_20": 0.7, "ASL@g1-10": 25.0, "map": 0.5, "ASL": 300.0}])
    rows = []
    for group, ms in values.items():
        for m, (v, run) in ms.items():
            b = values["bm25"][m][0]
            higher = m in ("P_20", "map")
            e_b, e_o = (1 - b, 1 - v) if higher else (b - 1, v - 1)
            rows.append({"track": "dl20", "group": group, "baseline": "bm25", "measure": m, "value": v, "run": run,
                         "baseline_value": b, "rrie": np.nan if group == "bm25" else (e_b - e_o) / e_b,
                         "n_runs": 1})
    return head, pd.DataFrame(rows, columns=TECHNIQUE_COLUMNS)


PAPER_PASSAGES = {"bm25": {"P_20": (0.517, "b"), "ASL@g1-10": (51.2, "b"), "map": (0.4004, "b"), "ASL": (263.6, "b")},
                  "neural": {"P_20": (0.7058, "n"), "ASL@g1-10": (6.1, "n"), "map": (0.572, "n"), "ASL": (215.0, "n")}}


@pytest.mark.parametrize("n_runs", [12, 59])
def test_paper_rows_status_is_decided_by_the_data_first(n_runs):
    """Run names unknown: the track's run count against the campaign's 59. On 12 runs every
    passage cell is data not here, the equal ones too, with ours beside; on 59 the equal
    cells are exact and the other differs."""
    values = {g: dict(ms) for g, ms in PAPER_PASSAGES.items()}
    values["neural"]["map"] = (0.55, "n")      # one cell off the paper's 0.572
    head, tech = _frames(n_runs, values)
    empty = pd.DataFrame()
    rows = paper_rows({"headroom": head, "techniques": tech, "table2": empty.assign(comparison=[]),
                       "map_share": pd.DataFrame(columns=["track", "share"])}, {"passages": "dl20"})
    assert list(rows.columns) == list(ROW_COLUMNS) and (rows.paper == "asl").all()
    t1 = rows[rows["item"] == "table 1"].set_index(["row", "column"])
    assert len(t1) == 24
    assert (t1.xs("documents BM25", level=1).status == "data not here").all()
    passages = t1[t1.index.get_level_values(1).str.startswith("passages")]
    off = t1.loc[("MAP", "passages neural")]
    assert off.ours == 0.55 and off.reproduced == "0.550"
    if n_runs < 59:
        assert (passages.status == "data not here").all() and (passages.reproduced != "").all()
        assert off.note.startswith("on 12 of the campaign's 59 runs: 0.550 (n)")
    else:
        assert off.status == "differs" and off.note == "ours 0.550 (n) on 59 of the campaign's 59 runs"
        assert t1.loc[("P@20", "passages BM25"), "status"] == "exact"
        assert t1.loc[("ASL", "passages neural"), "status"] == "exact"        # 215.0 prints 215
        assert t1.loc[("ASL@g1-10", "passages RRIE"), "status"] == "exact"    # (50.2 - 5.1) / 50.2 = 90%
    # nothing mapped: every table 1 cell needs data
    none = paper_rows({"headroom": head, "techniques": tech, "table2": empty.assign(comparison=[]),
                       "map_share": pd.DataFrame(columns=["track", "share"])})
    assert (none[none["item"] == "table 1"].status == "data not here").all()
    assert set(none["item"]) == {"table 1", "table 2", "appendix A.1", "headline claims", "appendix A.1 worked example",
                                     "section 4.1", "section 4.3", "section 4.4", "section 4.5"}


def test_table1_sufficiency_needs_every_campaign_run_that_could_be_in_the_cells_groups():
    campaign = {"runs": 4, "run_names": ["b1", "b2", "n1", "x"]}
    groups = {"bm25": ["b*"], "neural": ["n*"]}
    assert table1_sufficiency(["b1", "b2", "n1", "x"], campaign, groups, ("bm25",)) == (
        True, "4 of the campaign's 4 runs")
    # an absent run of the group, or one no group names, could be the group's best
    assert table1_sufficiency(["b1", "n1", "x"], campaign, groups, ("bm25",))[0] is False
    assert table1_sufficiency(["b1", "b2", "n1"], campaign, groups, ("bm25",))[0] is False
    # absent runs all in the other group: the BM25 cell's data are here, not the neural one's
    assert table1_sufficiency(["b1", "b2", "x"], {"runs": 4, "run_names": ["b1", "b2", "n1", "x"]},
                              {"bm25": ["b*"], "neural": ["n*"], "other": ["x"]}, ("bm25",)) == (
        True, "3 of the campaign's 4 runs")
    assert table1_sufficiency(["b1", "b2", "x"], campaign, groups, ("neural",))[0] is False
    # names unknown: the run count decides
    assert table1_sufficiency(["r"] * 59, {"runs": 59}, groups, ("bm25",))[0] is True
    assert table1_sufficiency(["r"] * 12, {"runs": 59}, groups, ("bm25",)) == (False, "12 of the campaign's 59 runs")


def test_delta_value_range_below_zero_is_flagged_with_a_range_of_ratios_beside_it():
    row = {"delta_value_low": -1.377, "delta_value_high": 2.825, "delta_value_mean": 0.724,
           "delta_value_glow": 0.2, "delta_value_ghigh": 1.25, "delta_value_gn": 98}
    text, fits = delta_value_text(row)
    assert text == "-1.377x to 2.825x (flagged: mean - sd below 0, impossible for a ratio)"
    assert fits == "geometric mean divided and multiplied by the geometric sd: 0.200x to 1.250x over the 98 ratios > 0"
    assert delta_value_text({**row, "delta_value_low": 0.3}) == ("0.300x to 2.825x", "")


def test_geometric_range_fits_ratios():
    g = geometric_range([0.5, 2.0, 0.0, -1.0, float("nan")])   # 0 and below have no logarithm
    assert g["gn"] == 2 and g["gmean"] == pytest.approx(1.0)
    assert g["glow"] == pytest.approx(1 / math.exp(math.log(4) / math.sqrt(2)))
    assert g["glow"] > 0 and g["ghigh"] == pytest.approx(1 / g["glow"])
    assert math.isnan(geometric_range([3.0])["glow"])


def test_headline_claims_count_tracks():
    head = pd.DataFrame({"track": list("abcd"), "P_20": [0.6, 0.5, 0.2, np.nan],
                         "ASL@g1-10": [25.0, 10.0, 21.0, 30.0], "ASL": [150.0, 90.0, 1000.0, 5.0]})
    c = headline_claims(head).set_index("claim")
    assert (c.loc["tracks with best P@20 in [0.5, 1]", "tracks"], c.loc["tracks with best P@20 in [0.5, 1]", "of"]) == (2, 3)
    assert c.loc["tracks with best ASL@g1-10 > 20", "tracks"] == 3 and c.loc["tracks with best ASL > 100", "tracks"] == 2
    assert c.loc["tracks with best ASL > 10", "share"] == 75.0


def test_published_table1_campaigns():
    asl = published("asl")
    assert asl["table1_campaign"]["passages"]["runs"] == 59
    assert {r["measure"] for r in asl["table1"]} == {"P@20", "ASL@g1-10", "MAP", "ASL"}


def test_table1_at_the_papers_settings_on_the_shared_dl2020_passage_track(tmp_path):
    """Table 1 is computed at the paper's settings whatever the track's configuration
    (config/shared-data.yaml reads DL-2020 at level 2): p_bm25's ASL@g1-10 prints the
    paper's 51 and its ASL 354 by eq. 3 (354.37; 355 with irrel + 1). The track holds 12 of
    the campaign's 59 runs, so the passage cells are data not here, ours beside."""
    from conftest import ingested
    from reeval.analyses.asl.report import table1_by_run
    from reeval.io.ingest import write_track
    from reeval.workflow.measures_step import track_measures

    config = yaml.safe_load((ROOT / "config" / "shared-data.yaml").read_text())
    track = config["study"]["paper"]["passages"]
    assert config["tracks"][track]["relevance_level"] == 2
    d = tmp_path / "dl20"
    write_track(ingested(track), d)
    by_run = table1_by_run(track, d, "float32").set_index("run")
    assert f"{by_run.loc['p_bm25', 'ASL@g1-10']:.0f}" == "51"
    assert by_run.loc["p_bm25", "ASL"] == pytest.approx(354.3706, abs=1e-4)
    track_measures(track, d, d / "plus1", ["ASL"], rel_level=1, precision="float32")   # irrel + 1
    plus1 = pd.read_parquet(d / "plus1" / "measures_by_run.parquet").set_index("run")
    assert f"{plus1.loc['p_bm25', 'ASL']:.0f}" == "355"
    spec = config["study"]["techniques"][track]
    tech = technique_table(by_run.reset_index(), spec, track)
    head = pd.DataFrame([{c: np.nan for c in HEADROOM_COLUMNS} | {"track": track, "n_runs": len(by_run)}])
    rows = paper_rows({"headroom": head, "techniques": tech, "table2": pd.DataFrame({"comparison": []}),
                       "map_share": pd.DataFrame(columns=["track", "share"]),
                       "table1_runs": {track: list(by_run.index)}}, config["study"]["paper"],
                      config["study"]["techniques"])
    t1 = rows[rows["item"] == "table 1"].set_index(["row", "column"])
    cell = t1.loc[("ASL@g1-10", "passages BM25")]
    assert (cell.status, cell.reproduced) == ("data not here", "51")
    assert cell.note.startswith("on 12 of the campaign's 59 runs: 51 (p_bm25)")
    assert "relevance >= 1, an unretrieved relevant document at irrel_q (eq. 3)" in cell.method


def _track_set(n_tracks: int, runs_each: int, p20: float = 0.7):
    """A study of ``n_tracks`` tracks of ``runs_each`` runs: headroom (every best run at
    ``p20``, ASL@g1-10 25, ASL 300), one table-2 row and a MAP share per track."""
    head = pd.DataFrame([{c: np.nan for c in HEADROOM_COLUMNS} | {"track": f"t{k}", "n_runs": runs_each, "P_20": p20,
                                                                  "ASL@g1-10": 25.0, "map": 0.5, "ASL": 300.0}
                         for k in range(n_tracks)])
    table2 = pd.DataFrame([{"comparison": "atomize_p", "n_tracks": n_tracks,
                            **{f"{s}_{k}": v for s, (lo, hi) in (("delta_sort", (26.0, 60.0)), ("kendall_tau", (0.7, 0.9)),
                                                                  ("delta_value", (0.3, 0.6)))
                               for k, v in (("mean", (lo + hi) / 2), ("low", lo), ("high", hi), ("n", n_tracks))}}])
    share = pd.DataFrame({"track": [f"t{k}" for k in range(n_tracks)], "share": [0.41, 0.73] * (n_tracks // 2)})
    techniques = pd.DataFrame(columns=TECHNIQUE_COLUMNS)
    return {"headroom": head, "techniques": techniques, "table2": table2, "map_share": share}


def _scoped(source: dict, planned, scope="asl-paper") -> dict:
    """``source`` with the study's scope and planned tracks (as the study step gives them)."""
    return {**source, "scope": {"scope": scope, "planned": list(planned)}}


def test_table2_appendix_and_claims_are_decided_on_the_paper_s_track_set():
    """The paper names no track, only its criteria: a study applying them (scope asl-paper)
    with every track they keep holds its track set, as reeval reads it, and each cell is
    exact at that inferred setting or differs whatever the number of tracks; a track missing, or
    another scope, is data not here, ours beside, whatever the values."""
    held = _track_set(76, 57)
    tracks = list(held["headroom"].track)
    assert track_set_sufficiency("asl-paper", tracks, tracks) == (
        True, "76 of the 76 tracks the paper's stated criteria keep (study.scope asl-paper)")
    rows = paper_rows(_scoped(held, tracks)).set_index(["item", "row", "column"]).sort_index()
    inferred = "exact at an inferred setting"   # the track set is reeval's reading of the criteria
    atomize = rows.loc[("table 2", "Atomize P")]
    assert atomize.loc["DeltaSort", "status"] == inferred and atomize.loc["Kendall", "status"] == inferred
    assert atomize.loc["DeltaValue", "status"] == inferred and "the track set inferred" in atomize.loc["Kendall", "note"]
    assert rows.loc[("appendix A.1", "MAP's share of the relevant documents", "mean +- sd across tracks"),
                    "status"] == inferred                                  # 57% +- 16
    claims = rows.loc["headline claims"].status
    assert claims["tracks with best P@20 in [0.5, 1]"].iloc[0] == "differs"   # all 76: not "roughly half"
    assert claims["tracks with best ASL@g1-10 > 20"].iloc[0] == inferred      # all: more than half
    assert claims["tracks with best ASL > 10"].iloc[0] == inferred
    off = _track_set(70, 57)
    off["table2"]["kendall_tau_low"] = 0.4
    off_rows = paper_rows(_scoped(off, off["headroom"].track)).set_index(["item", "row", "column"]).sort_index()
    assert off_rows.loc[("table 2", "Atomize P", "Kendall"), "status"] == "differs"
    # section 4.1's counts come from the manifest's track sets: without them, not known
    assert off_rows.loc[("section 4.1", "the reanalysed TREC tracks", "tracks"), "status"] == "data not here"
    sets = {"asl-paper": {"tracks": 70, "runs": 700}, "asl-paper-adhoc": {"tracks": 60, "runs": 600}}
    scoped = _scoped(off, off["headroom"].track)
    scoped["scope"]["sets"] = sets
    counts = paper_rows(scoped).set_index(["item", "row", "column"]).loc["section 4.1"]
    assert counts.loc[("the reanalysed TREC tracks", "tracks"), "status"] == "differs"
    few = _track_set(70, 57)
    planned = [*few["headroom"].track, "t70"]
    for source in (_scoped(few, planned), _scoped(few, few["headroom"].track, scope=None), few):
        got = paper_rows(source).set_index(["item", "row", "column"]).sort_index()
        cell = got.loc[("table 2", "Atomize P", "DeltaSort")]
        assert cell.status == "data not here" and cell.reproduced == "26% to 60%"
        assert (got.loc[["appendix A.1", "headline claims"]].status == "data not here").all()
    cell = paper_rows(_scoped(few, planned)).set_index(["item", "row", "column"]).loc[
        ("table 2", "Atomize P", "DeltaSort")]
    assert cell.note.startswith("on 70 of the 71 tracks the paper's stated criteria keep (study.scope asl-paper): "
                                "ours beside")


def test_a_range_prints_as_the_paper_s_at_each_end_s_decimals():
    assert range_prints_as("0.004-0.06x", 0.0041, 0.058) and not range_prints_as("0.004-0.06x", 0.0041, 0.07)
    assert range_prints_as("26-60%", 26.4, 59.6) and not range_prints_as("26-60%", 25.4, 59.6)
    assert not range_prints_as("", 1.0, 2.0)
