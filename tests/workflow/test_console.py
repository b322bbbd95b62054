"""What a workflow run prints (reeval.workflow.console, reeval.workflow.closing); the whole
run's console is checked in test_workflow.py."""

import io
import logging
import re
from types import SimpleNamespace

import pandas as pd
from snakemake_interface_logger_plugins.common import LogEvent

from reeval.workflow.closing import closing_lines
from reeval.workflow.console import LogHandler, error_lines, job_line, log_tail, plan_line


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


def console(*records) -> str:
    """What the console handler writes for ``records`` (a run's settings, no dry run)."""
    handler = LogHandler(SimpleNamespace(stdout=True, dryrun=False, verbose=False, debug_dag=False, quiet=set(),
                                         printshellcmds=False, show_failed_logs=False), None)
    handler.stream = io.StringIO()
    for record in records:
        handler.emit(record)
    return handler.stream.getvalue()


def record(level, message="", **fields):
    rec = logging.LogRecord("snakemake", level, "", 0, message, None, None)
    rec.__dict__.update(fields)
    return rec


def test_the_console_shows_terminal_escapes_and_bidi_controls_of_names_and_log_lines_escaped(tmp_path):
    """Issue 38, item 4: a failed job's log tail and message, a wildcard, the closing lines."""
    log = tmp_path / "ingest.log"
    log.write_text("2026-11-27 read\nerror: runs/run\x1b]0;TITLE\x07\x1b[8mhidden:3: expected 6 fields\u202e\n")
    failed = record(logging.ERROR, event=LogEvent.JOB_ERROR, rule_name="ingest", jobid=3, log=[str(log)], aux={},
                    rule_msg="msg \x9b2J", wildcards={"track": "t\u2067"})
    closing = record(logging.INFO, "Tracks: 1 of 1 included (t\x1b[31m).\n  left out, 1 run (t/a\x07)\tx")
    text = console(failed, closing)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text), text
    assert text.splitlines() == [
        "Error in rule ingest (track=t\\u2067), job 3:", "    message: msg \\u009b2J",
        f"    log: {log} (its last 2 lines:)", "    | 2026-11-27 read",
        "    | error: runs/run\\x1b]0;TITLE\\x07\\x1b[8mhidden:3: expected 6 fields\\u202e",
        "Tracks: 1 of 1 included (t\\x1b[31m).", "  left out, 1 run (t/a\\x07)\tx"]


def test_after_a_failure_the_closing_lines_name_the_failed_jobs_and_describe_nothing_stale_as_current(tmp_path):
    res = tmp_path / "results"
    (res / "summary").mkdir(parents=True)
    (res / "summary" / "summary.md").write_text("#")
    (res / "report.html").write_text("<html>")
    pd.DataFrame({"track": ["t"], "included": [True], "reason": ["included"]}).to_csv(
        res / "summary" / "inclusion.csv", index=False)
    stale = [str(res / "summary" / "inclusion.csv"), str(res / "report.html")]
    lines = closing_lines(res, failed=True, failed_jobs=[("ingest t1", "runs/bad:2: expected 6 or more fields"),
                                                         ("measures t\x1b[8m", None)], stale=stale)
    assert lines[0] == "The run stopped with errors: 2 jobs failed; above, each failed job with its log's last lines."
    assert lines[1:3] == ["  failed: ingest t1 (runs/bad:2: expected 6 or more fields)", "  failed: measures t\\x1b[8m"]
    assert lines[3] == f"Stale: 2 outputs of an earlier run were not made again (report.html, summary/inclusion.csv under {res})"
    assert not any(line.startswith("Tracks:") for line in lines)  # inclusion.csv is stale: not read
    assert lines[4:] == [f"Read first: {res / 'summary' / 'summary.md'}",
                         f"Report: not made; {res / 'report.html'} is an earlier run's",
                         "Fix the errors and run the same command again: only what is missing or stale is made."]
    interrupted = closing_lines(res, failed=True)
    assert interrupted[0].startswith("The run stopped with errors, none in a job: interrupted")
    assert interrupted[1].startswith("Tracks: 1 of 1 included") and interrupted[-2].startswith(f"Report: {res}")
    assert interrupted[-1] == "Run the same command again: only what is missing or stale is made."


def test_a_failed_jobs_error_line_is_read_from_its_log(tmp_path):
    from reeval.workflow.closing import error_line

    log = tmp_path / "t.log"
    log.write_text("2026-11-27 13:01:58,403 reading\n2026-11-27 13:01:58,403 error: runs/bad:2: expected 6\n")
    assert error_line([str(log)]) == "runs/bad:2: expected 6"
    log.write_text("error: plain\nTraceback\n")
    assert error_line([str(log), str(tmp_path / "absent.log")]) == "plain"
    log.write_text("no error here\n")
    assert error_line([str(log)]) is None


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
