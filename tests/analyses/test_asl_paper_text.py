"""The ASL paper's text cells (reeval.analyses.asl.paper_text): appendix A.1's worked example,
section 4.1's counts, section 4.3's "51 to 6" and section 4.5's "only 5"; each rule gives each
of its statuses on small hand-made inputs."""

import math

import numpy as np
import pandas as pd
import pytest

from reeval.analyses.asl import paper_text as pt
from reeval.analyses.asl.paper import ROW_COLUMNS


def test_the_swap_keeps_the_p_space_average_and_prints_eight_of_the_nine_values():
    sl = [1, 1, 1, 2, 4, 5, 10, 10000, 10000]
    x = pt.equal_average_swap(sl)
    h = len(sl) / sum(1 / s for s in sl)
    assert x.mean() == pytest.approx(h, rel=1e-12)                       # the unweighted mean is H
    # swapping x_i in with weight 1 keeps the weighted (w = 1/SL) average, for each i
    for i in range(len(sl)):
        w = np.array([1 / s for s in sl])
        v = np.array(sl, float)
        w[i], v[i] = 1.0, x[i]
        assert (v * w).sum() / w.sum() == pytest.approx(h, rel=1e-12)
    rows = pd.DataFrame(pt.worked_example_rows())
    assert set(rows.columns) == set(ROW_COLUMNS) and len(rows) == 9
    assert list(rows.reproduced) == ["1", "1", "1", "2.1", "2.7", "2.8", "3", "3.2", "3.2"]
    assert list(rows.status) == ["exact"] * 5 + ["differs"] + ["exact"] * 3   # 5 -> 2.78, printed 2.9
    assert rows.note.iloc[5] == "ours 2.7777 prints 2.8, the paper 2.9: cause unknown"
    with pytest.raises(ValueError, match=">= 1"):
        pt.equal_average_swap([0.5, 2])


def test_a_worked_example_whose_printed_values_are_ours_is_exact_everywhere():
    ref = {"search_lengths": [1, 3], "printed": ["1", "2.0"]}   # H = 1.5: 1 + 1.5 (1 - 1/3) = 2
    assert [r["status"] for r in pt.worked_example_rows(ref)] == ["exact", "exact"]


def head(tracks, runs):
    return pd.DataFrame({"track": tracks, "n_runs": runs})


def test_section_4_1_counts_need_every_track_of_the_papers_criteria():
    ref = {"tracks": 2, "runs": 15, "queries": 90}
    topics = {"a": 50, "b": 40}
    # every planned track included, the scope the paper's: exact where equal, else differs
    rows = pt.count_rows(head(["a", "b"], [5, 10]), topics, "asl-paper", ["a", "b"], ref)
    assert [r["status"] for r in rows] == ["exact"] * 3 and [r["reproduced"] for r in rows] == ["2", "15", "90"]
    rows = pt.count_rows(head(["a", "b"], [5, 11]), topics, "asl-paper", ["a", "b"], ref)
    assert [r["status"] for r in rows] == ["exact", "differs", "exact"]
    assert rows[1]["note"].startswith("ours 16 on 2 of the 2 tracks the paper's stated criteria keep")
    # a planned track not included, or another scope: data not here, ours beside
    rows = pt.count_rows(head(["a"], [5]), topics, "asl-paper", ["a", "b"], ref)
    assert [r["status"] for r in rows] == ["data not here"] * 3 and rows[0]["reproduced"] == "1"
    assert "1 of the 2 tracks" in rows[0]["note"]
    rows = pt.count_rows(head(["a", "b"], [5, 10]), topics, "all", ["a", "b"], ref)
    assert {r["status"] for r in rows} == {"data not here"} and "not the paper's track criteria" in rows[0]["note"]
    assert pt.track_set_sufficiency("asl-paper", [], [])[0] is False


def t1(bm25_status, neural_status, bm25="51", neural="6"):
    return [{"item": "table 1", "row": "ASL@g1-10", "column": "passages BM25", "status": bm25_status,
             "reproduced": bm25, "note": "n1"},
            {"item": "table 1", "row": "ASL@g1-10", "column": "passages neural", "status": neural_status,
             "reproduced": neural, "note": "n2"}]


def test_fifty_one_to_six_follows_table_1s_two_cells():
    ref = {"bm25": "51", "neural": "6"}
    assert pt.fifty_one_to_six(t1("exact", "exact"), ref)[0]["status"] == "exact"
    out = pt.fifty_one_to_six(t1("exact", "differs", neural="7"), ref)[0]
    assert (out["status"], out["reproduced"]) == ("differs", "51 to 7")
    assert pt.fifty_one_to_six(t1("data not here", "exact"), ref)[0]["status"] == "data not here"
    out = pt.fifty_one_to_six([], ref)[0]
    assert (out["status"], out["reproduced"]) == ("data not here", "")


def test_best_passage_aslg1_10_needs_every_run_of_the_campaign():
    campaign = {"track": "DL 2020 passages", "runs": 3, "run_names": ["x", "y", "z"]}
    runs = pd.DataFrame({"run": ["x", "y", "z"], "ASL@g1-10": [7.2, 5.4, math.nan]})
    out = pt.best_passage_aslg1_10(runs, campaign, "5")[0]
    assert (out["status"], out["reproduced"], out["note"]) == ("exact", "5", "ours 5 (y) on 3 of the campaign's 3 runs")
    out = pt.best_passage_aslg1_10(runs.assign(**{"ASL@g1-10": [7.2, 6.1, 9.0]}), campaign, "5")[0]
    assert (out["status"], out["reproduced"]) == ("differs", "6")
    out = pt.best_passage_aslg1_10(runs.iloc[:2], campaign, "5")[0]
    assert out["status"] == "data not here" and out["note"].startswith("on 2 of the campaign's 3 runs: 5 (y)")
    out = pt.best_passage_aslg1_10(None, campaign, "5")[0]
    assert (out["status"], out["reproduced"]) == ("data not here", "")
    # without the run names, the number of runs decides
    assert pt.best_passage_aslg1_10(runs, {"track": "t", "runs": 3}, "5")[0]["status"] == "exact"
