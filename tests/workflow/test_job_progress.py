"""A long workflow job says its progress in its log (a job has no terminal): the ingest
job counts the run files read, the analyses job says which of its three steps it is in."""

import ast
import subprocess
import sys
import textwrap

from conftest import ROOT

SCRIPT = textwrap.dedent("""\
    import sys
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace
    sys.path.insert(0, {scripts!r})
    from _log import counted, rule_log, steps
    with rule_log(SimpleNamespace(rule="analyses", log=[{log!r}])) as log:
        step = steps(log, 2)
        step("rareness of dl\\x1b")
        count = counted(log, "run files read", 25)
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda _: count(), range(25)))
        small = counted(log, "run files read", 19)
        for _ in range(19):
            small()
        step("study of dl")
    """)


def test_the_steps_and_the_counted_units_are_written_to_the_log(tmp_path):
    log = tmp_path / "rule.log"
    code = SCRIPT.format(scripts=str(ROOT / "scripts"), log=str(log))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0 and proc.stdout == proc.stderr == "", proc.stderr
    lines = [line.split(" ", 2)[2] for line in log.read_text().splitlines()]  # after the time
    assert lines[0] == "step 1 of 2: rareness of dl\\x1b" and lines[-1] == "step 2 of 2: study of dl"
    # 25 units: a line each tenth; 19 (fewer than 20): none
    assert lines[1:-1] == [f"run files read: {k} of 25" for k in (3, 5, 8, 10, 13, 15, 18, 20, 23, 25)]


def calls(script: str, name: str) -> list:
    """The calls of ``name`` in a rule script, as (positional arguments' source texts)."""
    tree = ast.parse((ROOT / "scripts" / script).read_text())
    return [[ast.unparse(a) for a in node.args] for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name]


def test_the_analyses_job_announces_as_many_steps_as_it_counts():
    (total,), = [args[1:] for args in calls("analyses.py", "steps")]
    assert len(calls("analyses.py", "step")) == int(total) == 3


def test_the_ingest_job_counts_the_run_files_it_reads():
    (args,) = calls("ingest.py", "counted")
    assert args == ["log", "'run files read'", "len(runs.files)"]
