"""Reusability that reads right (issue 39, item 4): the verdict names its two rankings apart
(Kendall's tau of the left-out ranking, the runs whose inserted rank moves), and a
collection judged beyond the pool depth is detected from the data and said not to be tested
(reeval.analyses.reusability.depth)."""

import numpy as np
import pandas as pd
import pytest

from conftest import write_lines
from reeval.analyses.reusability.depth import BeyondDepth, judged_beyond_depth
from reeval.analyses.reusability.table import VERDICT_COLUMNS, verdicts
from reeval.cli import main
from reeval.io.ingest import ingest_track
from reeval.measures import grid_from_track

#: three runs of five documents a topic; pooled at depth 2 their top 2 are {a, b, c, f}
RUNS = {"r1": "abcde", "r2": "cafgh", "r3": "bfijk"}
POOL = "abcf"


def track(tmp_path, judged: str, runs=RUNS, topics=("1", "2")):
    qrels = write_lines(tmp_path / "qrels", [f"{q} 0 {d} {int(d in 'ac')}" for q in topics for d in judged])
    paths = [write_lines(tmp_path / name, [f"{q} Q0 {d} {i + 1} {10 - i} {name}" for q in topics
                                           for i, d in enumerate(docs)]) for name, docs in runs.items()]
    return qrels, paths


def grid_of(qrels, paths):
    return grid_from_track(ingest_track("t", qrels, paths), keep_docno=True)


def test_a_collection_judged_to_its_pool_depth_is_tested(tmp_path):
    found = judged_beyond_depth(grid_of(*track(tmp_path, POOL)), 2)
    # below rank 2: r1 has c of c, d, e judged; r2 f of f, g, h; r3 none of i, j, k
    assert found == BeyondDepth(depth=2, runs=3, judged_runs=0) and not found.judged_beyond


def test_a_collection_that_judged_every_candidate_is_judged_beyond_the_pool_depth(tmp_path):
    found = judged_beyond_depth(grid_of(*track(tmp_path, "abcdefghijk")), 2)
    assert found == BeyondDepth(depth=2, runs=3, judged_runs=3) and found.judged_beyond
    assert found.sentence() == ("the qrels judge most of the documents below the pool depth 2 for 3 of the 3 runs "
                                "that retrieved below it")


def test_runs_that_stop_at_the_depth_leave_nothing_to_decide(tmp_path):
    found = judged_beyond_depth(grid_of(*track(tmp_path, "abcdefghijk")), 5)
    assert found == BeyondDepth(depth=5, runs=0, judged_runs=0) and not found.judged_beyond


@pytest.mark.parametrize("judged, runs_judged, beyond", [
    ("abcde" + "cafg", 2, True),    # r1: 3 of 3 below judged, r2: 2 of 3 (more than half), r3: 0 of 3
    ("abcde" + "caf", 1, False),    # r1 only: 1 of 3 runs is not more than half of them
    ("abcd" + "caf", 1, False),     # r1: 2 of 3 below; r2: f of f, g, h is not more than half
])
def test_more_than_half_of_the_runs_with_more_than_half_of_their_deeper_documents_judged(
        tmp_path, judged, runs_judged, beyond):
    found = judged_beyond_depth(grid_of(*track(tmp_path, "".join(dict.fromkeys(judged)))), 2)
    assert (found.runs, found.judged_runs, found.judged_beyond) == (3, runs_judged, beyond)


def test_the_verdict_names_the_left_out_ranking_and_the_inserted_rank_apart(tmp_path, capsys):
    qrels, paths = track(tmp_path, POOL)
    # each run its own group, named (without --groups the verdict would first say so)
    assert main(["reusability", str(qrels), *map(str, paths), "--groups", "(.+)", "--depth", "2", "-m", "P@2",
                 "--quiet"]) == 0
    verdict = [line for line in capsys.readouterr().out.splitlines() if line.startswith("verdict")]
    assert len(verdict) == 1 and verdict[0].startswith("verdict P@2: max drop ")
    assert "Kendall tau full vs left-out ranking " in verdict[0]
    assert verdict[0].endswith(" of 3 runs move more than 0 places") and ", inserted rank: " in verdict[0]
    assert "not a test" not in verdict[0]


def test_a_collection_judged_beyond_the_depth_is_said_not_to_be_tested(tmp_path, capsys):
    qrels, paths = track(tmp_path, "abcdefghijk")
    assert main(["reusability", str(qrels), *map(str, paths), "--depth", "2", "-m", "P@2"]) == 0
    out, err = capsys.readouterr()
    verdict = [line for line in out.splitlines() if line.startswith("verdict")]
    assert verdict[0].startswith("verdict P@2: not a test of this collection (the qrels judge most of the "
                                 "documents below the pool depth 2 for 3 of the 3 runs that retrieved below it); ")
    assert "leave-one-group-out at depth 2 does not test this collection" in err


def test_verdicts_csv_says_whether_the_collection_is_judged_beyond_the_depth(tmp_path):
    from reeval.analyses.reusability.report import track_reusability
    from reeval.io.ingest import write_track

    for name, judged, beyond in (("pooled", POOL, False), ("every", "abcdefghijk", True)):
        (tmp_path / name).mkdir()
        qrels, paths = track(tmp_path / name, judged)
        write_track(ingest_track(name, qrels, paths), tmp_path / name / "track")
        track_reusability(name, tmp_path / name / "track", tmp_path / name / "out", ["P@2"], depth=2, figures=False)
        table = pd.read_csv(tmp_path / name / "out" / "verdict.csv")
        assert list(table.columns) == ["track", "groups_from", *VERDICT_COLUMNS]
        assert table["judged_beyond_depth"].tolist() == [beyond]
    assert "kendall_tau_left_out" in VERDICT_COLUMNS and "rank_changes_inserted" in VERDICT_COLUMNS
    assert "kendall_tau" not in VERDICT_COLUMNS and "rank_changes" not in VERDICT_COLUMNS
    no_attrs = verdicts(pd.DataFrame({"group": ["g"], "run": ["r"], "measure": ["P_2"], "score": [0.5],
                                      "score_logo": [0.5], "delta": [0.0], "rank": [1], "rank_logo": [1]}))
    assert no_attrs["judged_beyond_depth"].isna().all()


def test_the_verdict_rounds_kendall_tau_so_identical_rankings_read_one():
    """Issue 39 item 5: verdicts.csv held tau 0.9999999999999999 for two rankings that agree
    (scores 3, 2, 2 left out as 3.5, 2.5, 2.5: tau-b is 1 up to a last-place error)."""
    from reeval.stats.correlation import kendall_tau

    assert kendall_tau(np.array([3.0, 2.0, 2.0]), np.array([3.5, 2.5, 2.5])) != 1.0   # the noise removed
    table = pd.DataFrame({"group": ["a", "b", "c"], "run": ["a", "b", "c"], "measure": "P_2",
                          "score": [3.0, 2.0, 2.0], "score_logo": [3.5, 2.5, 2.5], "delta": 0.0,
                          "rank": [1, 2, 2], "rank_logo": [1, 2, 2]})
    assert verdicts(table).loc[0, "kendall_tau_left_out"] == 1.0
