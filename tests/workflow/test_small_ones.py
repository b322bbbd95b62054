"""Small silent spots of the workflow: a run listed twice in ``runs:``, a file not read named
in the closing lines, and raw ESC bytes that libraries wrote to a rule's log."""

import os
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from conftest import ROOT, write_lines
from reeval.workflow.closing import inclusion_lines
from reeval.workflow.config_check import ConfigError
from reeval.workflow.tracks import local_track_files


def test_a_run_file_listed_twice_in_runs_is_refused_naming_it(tmp_path):
    q = write_lines(tmp_path / "qrels", ["1 0 a 1"])
    r1, r2 = write_lines(tmp_path / "r1", ["1 Q0 a 1 1 r1"]), write_lines(tmp_path / "r2", ["1 Q0 a 1 1 r2"])
    with pytest.raises(ConfigError) as caught:
        local_track_files({"t": {"qrels": str(q), "runs": [str(r1), str(r2), f"{tmp_path}/./r1"]}})
    assert str(caught.value) == f"tracks: t: runs: {tmp_path}/./r1 is listed twice (entries 1 and 3); list each run file once"
    files = local_track_files({"t": {"qrels": str(q), "runs": [str(r1), str(r2)]}})
    assert files["t"]["runs"] == [str(r1), str(r2)]


def test_a_file_of_a_runs_folder_not_read_is_named_by_its_file_in_the_closing_lines(tmp_path):
    summary = tmp_path / "summary"
    summary.mkdir()
    pd.DataFrame({"track": ["t7"], "included": [True], "reason": ["included"]}).to_csv(summary / "inclusion.csv",
                                                                                         index=False)
    pd.DataFrame({"track": ["t7", "t7", "t7"], "run": ["g0", "", "e"], "file": ["/d/runs/g0", "/d/runs/.DS_Store", "/d/runs/e"],
                  "included": [True, False, False],
                  "reason": ["included", "not read: hidden file (its name starts with '.')", "no line kept: empty file"],
                  "kind": ["run", "skipped", "run"]}).to_csv(summary / "run_inclusion.csv", index=False)
    lines = inclusion_lines(tmp_path)
    assert "  left out, 1 file (t7/.DS_Store): not read: hidden file (its name starts with '.')" in lines, lines
    assert "  left out, 1 run (t7/e): no line kept: empty file" in lines, lines


def test_what_a_library_writes_to_stderr_reaches_the_rule_log_escaped(tmp_path):
    log = tmp_path / "rule.log"
    code = textwrap.dedent(f"""\
        import sys, warnings
        from types import SimpleNamespace
        sys.path.insert(0, {str(ROOT / 'scripts')!r})
        from _log import rule_log
        with rule_log(SimpleNamespace(rule="track_figures", log=[{str(log)!r}])) as log:
            warnings.warn("Glyph 27 (\\x1b) missing from font: run \\x1b[31mred")
            print("raw \\x1b]0;title\\x07 line", file=sys.stderr)
            log.info("run \\x1b[2J")
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    text = log.read_text()
    assert proc.returncode == 0 and "\x1b" not in text and "\x07" not in text, repr(text)
    assert "run \\x1b[31mred" in text and "raw \\x1b]0;title\\x07 line" in text and "run \\x1b[2J" in text
