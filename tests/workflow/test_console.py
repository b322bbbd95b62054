"""What a workflow run prints (reeval.workflow.console, reeval.workflow.closing); the whole
run's console is checked in test_workflow.py."""

import pandas as pd

from reeval.workflow.closing import closing_lines
from reeval.workflow.console import error_lines, job_line, log_tail, plan_line


def test_a_finished_job_is_one_line_with_the_progress():
    assert job_line(7, 124, "ingest", {"track": "syn-graded"}, 2.06) == "[  7/124] ingest syn-graded  2.1 s"
    assert job_line(24, 24, "all", {}, None) == "[24/24] all"


def test_the_plan_is_one_line_largest_rules_first():
    assert plan_line({"ingest": 3, "all": 1, "measures": 3, "total": 7}) == \
        "7 jobs to run: 3 ingest, 3 measures, 1 all"


def test_a_failed_job_shows_its_rule_log_and_the_logs_last_lines(tmp_path):
    log = tmp_path / "bad.log"
    log.write_text("".join(f"line {i}\n" for i in range(40)))
    lines = error_lines({"rule_name": "ingest", "jobid": 5, "wildcards": {"track": "bad"}, "log": [str(log)],
                         "aux": {}, "rule_msg": None})
    assert lines[0] == "Error in rule ingest (track=bad), job 5:"
    assert lines[1] == f"    log: {log} (its last 15 lines:)" and lines[2:] == [f"    | line {i}" for i in range(25, 40)]
    assert log_tail(tmp_path / "none.log")[0].startswith("(cannot read")
    assert error_lines({"rule_name": "all", "jobid": 0, "log": []})[-1].startswith("    (this rule has no log")


def test_closing_lines_group_what_is_left_out_by_reason(tmp_path):
    res = tmp_path / "results"
    (res / "summary").mkdir(parents=True)
    (res / "study").mkdir()
    (res / "study" / "fig1.png").write_bytes(b"")
    (res / "summary" / "summary.md").write_text("#")
    (res / "report.html").write_text("<html>")
    reason = "qrels not fetched: cannot reach trec.nist.gov: its name does not resolve"
    tracks = [f"t{i}" for i in range(9)]
    pd.DataFrame({"track": tracks + ["ok"], "included": [False] * 9 + [True],
                  "reason": [reason] * 8 + ["2 runs; the study needs >= 5", "included"]}).to_csv(
        res / "summary" / "inclusion.csv", index=False)
    pd.DataFrame({"track": ["ok", "ok"], "run": ["r1", "nan"], "included": [True, False],
                  "reason": ["included", "no line kept: empty file"]}).to_csv(res / "summary" / "run_inclusion.csv",
                                                                            index=False)
    lines = closing_lines(res)
    assert lines[0] == "Tracks: 1 of 10 included (ok); runs: 1 of 2 included."
    assert lines[1] == f"  left out, 8 tracks (t0, t1, t2, t3, t4, t5 and 2 more): {reason}"
    assert lines[2] == "  left out, 1 track (t8): 2 runs; the study needs >= 5"
    assert lines[3] == "  left out, 1 run (ok/nan): no line kept: empty file"
    assert lines[4] == f"Read first: {res / 'summary' / 'summary.md'}"
    assert lines[5].startswith(f"Figures: {res / 'study'} (1 PNG, 0 PDF)")
    assert lines[6].startswith(f"Report: {res / 'report.html'}")
    assert closing_lines(tmp_path / "nothing", failed=True)[0].startswith("The run stopped with errors")


def test_snakemakes_elapsed_time_is_said_as_a_person_says_it():
    from reeval.workflow.console import duration, humane

    assert humane("Elapsed time: 0:03:22.082877") == "Elapsed time: 3 min 22 s"
    assert humane("Elapsed time: 0:00:04.5") == "Elapsed time: 4.5 s"
    assert humane("Elapsed time: 1 day, 2:03:04.5") == "Elapsed time: 26 h 03 min"
    assert humane("Complete log(s): x") == "Complete log(s): x"
    assert [duration(v) for v in (0.42, 42.4, 120, 7500)] == ["0.4 s", "42 s", "2 min", "2 h 05 min"]


JOB = """
import sys
from types import SimpleNamespace
sys.path.insert(0, sys.argv[2])
from _log import rule_log
from reeval.report.figures import FigureError, drawn_or_told, figure_style, new_figure, save_figure_pair

with rule_log(SimpleNamespace(log=[sys.argv[1] + ".log"], rule="reusability")) as log:
    log.info("reusability of t1: 16 runs in 8 groups")
    with figure_style():
        fig, ax = new_figure()
        ax.plot([0, 1], [1, 0])
        save_figure_pair(fig, sys.argv[1] + "-drawn")  # fontTools logs a dozen INFO lines per PDF
    with drawn_or_told(sys.argv[1] + "-scores"):
        raise FigureError(sys.argv[1] + "-scores.png", 'the x tick label "0.050" reaches 0.05 in beyond the right edge')
    raise OSError(27, "File too large: writing /r/by_run.parquet")
"""


def test_a_failed_jobs_log_tail_is_the_jobs_own_lines_and_a_lost_figure_is_said_on_the_console(tmp_path):
    """Issue 38 item 11: the tail a failed job shows was 14 lines of fontTools chatter (its
    PDF font subsetting logs at INFO); the rule's log now holds the job's own lines."""
    import os
    import re
    import subprocess
    import sys

    from conftest import ROOT
    from reeval.report.figures import STRICT

    stem = tmp_path / "job"
    env = {k: v for k, v in os.environ.items() if k != STRICT}  # as in a real run
    proc = subprocess.run([sys.executable, "-c", JOB, str(stem), str(ROOT / "scripts")], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 1
    shown = error_lines({"rule_name": "reusability", "jobid": 3, "log": [f"{stem}.log"]})
    assert shown[1] == f"    log: {stem}.log (its last 3 lines:)"
    tail = [re.sub(r"^    \| \S+ \S+ ", "", line) for line in shown[2:]]  # without "    | <date> <time> "
    assert tail == [
        "reusability of t1: 16 runs in 8 groups",
        f'warning: figure {stem}-scores.png not drawn: the x tick label "0.050" reaches 0.05 in beyond the right '
        "edge; the report shows this sentence in its place",
        "error: [Errno 27] File too large: writing /r/by_run.parquet; a limit on the size of a file stops it "
        "(`ulimit -f` in the shell that ran Snakemake, or the file system's largest file): raise the limit"]
    assert proc.stderr.splitlines() == tail[1:]  # the console: the lost figure and the error
