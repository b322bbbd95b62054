"""A run whose scores are all equal on a topic is ranked there by docno alone, whatever its
rank column says (trec_eval does so without a word): reeval counts those topics per run
(``tied_topics`` in the ingest report) and says so once per run (issue 39)."""

import contextlib
import io
import warnings

import pytest

from conftest import track_files, write_lines
import reeval
from reeval.cli import main
from reeval.io.ingest import ingest_track

QRELS = ["1 0 a 1", "2 0 x 1", "3 0 z 1", "4 0 p 1", "5 0 s 1"]
#: topics 1 (0.5 three times) and 2 (0 and -0.0) tie throughout; 3 has one document;
#: 4 has two scores; 5 two scores equal only in float32
RUN = ["1 Q0 c 1 0.5 r", "1 Q0 a 2 0.5 r", "1 Q0 b 3 0.5 r", "2 Q0 y 1 0 r", "2 Q0 x 2 -0.0 r",
       "3 Q0 z 1 7 r", "4 Q0 p 1 2 r", "4 Q0 q 2 1 r", "5 Q0 s 1 1.00000001 r", "5 Q0 t 2 1 r"]
NOTE = "2 topics whose scores are all equal: ranked by docno alone"


def _report_row(tables, run):
    return next(row for row in tables.report_rows if row["run"] == run)


def test_topics_of_equal_scores_are_counted_per_run(tmp_path):
    qrels = write_lines(tmp_path / "qrels", QRELS)
    run = write_lines(tmp_path / "run", RUN)
    assert _report_row(ingest_track("t", qrels, [run]), "run")["tied_topics"] == 2
    assert _report_row(ingest_track("t", qrels, [run], precision="float32"), "run")["tied_topics"] == 3
    untied = write_lines(tmp_path / "untied", [line for line in RUN if line[0] in "34"])
    assert _report_row(ingest_track("t", qrels, [untied]), "untied")["tied_topics"] == 0


def test_reeval_score_says_it_once_per_run_on_stderr(tmp_path):
    qrels = write_lines(tmp_path / "qrels", QRELS)
    runs = [write_lines(tmp_path / name, RUN) for name in ("run_a", "run_b")]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["score", "-m", "P@1", str(qrels), *map(str, runs)]) == 0
    said = [line for line in err.getvalue().splitlines() if "all equal" in line]
    assert len(said) == 2
    for line, run in zip(said, runs):
        assert line.startswith(f"reeval: {run}: ") and NOTE in line and "rank column ignored" in line


def test_the_api_says_it_in_the_notes_and_one_warning(tmp_path):
    qrels = write_lines(tmp_path / "qrels", QRELS)
    run = write_lines(tmp_path / "run", RUN)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = reeval.evaluate(str(qrels), str(run), ["P@1"])
    said = [str(w.message) for w in caught if issubclass(w.category, reeval.ReevalWarning)]
    # P@1 is ir_measures' name: topic 5's float32 tie (pytrec_eval's reading) is said on its own
    assert said[1:] == [f"reeval: {frame.attrs['notes'][0]}; every note is in the result's .attrs['notes']"]
    assert said[0].startswith("reeval: run run: ir_measures' providers rank tied scores otherwise") and \
        "P_1 (pytrec_eval: scores read as float32" in said[0]
    assert NOTE in frame.attrs["notes"][0]
    assert [row["tied_topics"] for row in frame.attrs["ingest_report"] if row["kind"] == "run"] == [2]


def test_a_real_run_with_topics_of_equal_scores_is_counted():
    """DL-2020's DoRA_Small: 4 of its 54 judged topics (15 of its 200) tie throughout."""
    qrels, runs = track_files("trec2020-dl-passage")
    dora = [r for r in runs if r.endswith("DoRA_Small.gz")]
    if not dora:
        pytest.skip("DoRA_Small is not among the shared DL-2020 runs")
    tables = ingest_track("dl20", qrels, dora, keep_runs=False)
    assert [row["tied_topics"] for row in tables.report_rows if row["kind"] == "run"] == [4]
