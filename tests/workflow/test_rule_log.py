"""scripts/_log.py, the frame of every rule script: bad input ends it with one line in the
rule's log and on the console; a bug keeps its traceback in the log."""

import ast
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, load_file_module

SCRIPT = textwrap.dedent("""\
    import sys
    from types import SimpleNamespace
    sys.path.insert(0, {scripts!r})
    from _log import rule_log
    with rule_log(SimpleNamespace(rule="ingest", log=[{log!r}])) as log:
        log.info("started")
        {body}
        log.info("not reached")
    """)


def run_script(tmp_path, body, env=None):
    """Run a script body of rule ingest inside rule_log in its own process; -> (process, log text)."""
    log = tmp_path / "rule.log"
    code = SCRIPT.format(scripts=str(ROOT / "scripts"), log=str(log), body=body)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    return proc, log.read_text()


@pytest.mark.parametrize("body, message", [
    ("from reeval.io.trecio import TrecFormatError; raise TrecFormatError('runs/r1', 3, 'six fields', '1 Q0 D')",
     'error: runs/r1:3: expected six fields; got "1 Q0 D"'),
    ("from reeval.workflow.tracks import resolve_runs; resolve_runs('missing/runs')",
     "error: run source 'missing/runs' is neither a folder, a glob nor a file"),
    ("from reeval.workflow.tracks import resolve_qrels; resolve_qrels('missing/qrels.txt')",
     "error: qrels 'missing/qrels.txt' must name exactly one existing file, found 0"),
    ("open('missing/run.gz')", "error: [Errno 2] No such file or directory: 'missing/run.gz'"),
], ids=["bad_line", "no_runs", "no_qrels", "unreadable_file"])
def test_bad_input_ends_the_script_with_one_line_in_the_log_and_on_the_console(tmp_path, body, message):
    proc, log = run_script(tmp_path, body)
    assert proc.returncode == 1
    lines = log.splitlines()
    assert len(lines) == 2 and lines[0].endswith(" started") and lines[1].endswith(" " + message), log
    assert proc.stderr == message + "\n" and proc.stdout == ""


def test_the_error_line_shows_a_file_names_terminal_escapes_and_bidi_controls_escaped(tmp_path):
    """Issue 38, item 4: the ``error:`` line on the console and in the log."""
    body = "from reeval.errors import InputError; raise InputError('runs/run\\x1b]0;TITLE\\x07\\u202e\\x9b: empty')"
    proc, log = run_script(tmp_path, body)
    message = "error: runs/run\\x1b]0;TITLE\\x07\\u202e\\u009b: empty"
    assert proc.stderr == message + "\n" and log.splitlines()[1].endswith(" " + message)


def test_a_log_line_naming_a_hostile_file_is_written_escaped(tmp_path):
    proc, log = run_script(tmp_path, "log.warning('run\\x1b]0;TITLE\\x07 \\u202e0.25: left out'); raise SystemExit(0)")
    assert proc.returncode == 0 and log.splitlines()[1].endswith(" run\\x1b]0;TITLE\\x07 \\u202e0.25: left out"), log


def test_a_bug_keeps_its_traceback_in_the_log(tmp_path):
    proc, log = run_script(tmp_path, "raise KeyError('a bug')")
    assert proc.returncode == 1
    assert "Traceback (most recent call last)" in log and "KeyError: 'a bug'" in log
    assert proc.stderr == ""  # Snakemake points to the log


def test_the_fail_once_switch_fails_the_rule_it_names_once(tmp_path):
    """REEVAL_TEST_FAIL_ONCE=RULE:FILE, the switch of the SLURM retry test (test_slurm.py)."""
    marker = tmp_path / "failed-once"
    env = dict(os.environ, REEVAL_TEST_FAIL_ONCE=f"ingest:{marker}")
    first, log = run_script(tmp_path, "pass", env)
    assert first.returncode == 1 and marker.exists(), (first.stderr, log)
    assert "failed on purpose (REEVAL_TEST_FAIL_ONCE=ingest:" in log and "started" not in log
    again, log = run_script(tmp_path, "pass", env)
    assert again.returncode == 0 and "not reached" in log, (again.stderr, log)
    other = tmp_path / "other"
    proc, log = run_script(tmp_path, "pass", dict(os.environ, REEVAL_TEST_FAIL_ONCE=f"measures:{other}"))
    assert proc.returncode == 0 and not other.exists() and "not reached" in log


def test_every_rule_script_runs_inside_rule_log():
    scripts = sorted(p for p in (ROOT / "scripts").glob("*.py") if p.name != "_log.py")
    named = {line.strip().strip('"').split("/")[-1] for smk in (ROOT / "workflow" / "rules").glob("*.smk")
             for line in smk.read_text().splitlines() if line.strip().startswith('"../../scripts/')}
    assert {p.name for p in scripts} == named  # every rule's script, and no script without its rule
    for path in scripts:
        tree = ast.parse(path.read_text())
        body = [node for node in tree.body if not isinstance(node, (ast.Import, ast.ImportFrom, ast.Expr))]
        assert isinstance(body[0], ast.Assign) and len(body) == 2, path.name  # sm = snakemake; with ...
        frame = body[1]
        assert isinstance(frame, ast.With), path.name
        call = frame.items[0].context_expr
        assert isinstance(call, ast.Call) and call.func.id == "rule_log", path.name


@pytest.mark.parametrize("body, status", [("sum(range(10 ** 5))", 0),
                                          ("from reeval.errors import InputError; raise InputError('bad')", 1)],
                         ids=["ends", "bad_input"])
def test_the_profile_switch_writes_each_jobs_profile_and_cpu_also_on_bad_input(tmp_path, body, status, capsys):
    profile_study = load_file_module("benchmarks/profile_study.py").main
    folder = tmp_path / "prof"
    proc, _ = run_script(tmp_path, body, env=dict(os.environ, REEVAL_PROFILE_DIR=str(folder)))
    assert proc.returncode == status, proc.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["ingest.cpu", "ingest.prof"]
    before, end = map(float, (folder / "ingest.cpu").read_text().split())
    assert 0 < before <= end
    assert profile_study([str(folder), "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[:2] == ["ingest", "1"] and "== ingest (1 jobs)" in out


def test_without_the_profile_switch_a_job_writes_no_profile(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "REEVAL_PROFILE_DIR"}
    proc, _ = run_script(tmp_path, "pass", env=env)
    assert proc.returncode == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["rule.log"]
