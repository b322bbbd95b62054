"""What ``reeval prefer`` prints (issue 39 item 6): tab-separated lines without a header by
default, as trec_eval's, so that a pipe into sort or awk sees data only; ``--help`` names the
columns, and ``--header`` prints them as a first line for readers of tables."""

import io
import subprocess
import sys

import pandas as pd

from conftest import write_lines
from reeval.cli import main
from reeval.cli.prefer import PREFER_COLUMNS


def track(tmp_path):
    q = write_lines(tmp_path / "qrels", ["1 0 A 1", "1 0 B 1", "2 0 C 1", "3 0 D 0"])
    a = write_lines(tmp_path / "a", ["1 Q0 A 1 3 a", "1 Q0 X 2 2 a", "1 Q0 B 3 1 a", "2 Q0 C 1 1 a"])
    b = write_lines(tmp_path / "b", ["1 Q0 X 1 3 b", "1 Q0 A 2 2 b", "2 Q0 C 1 1 b"])
    return q, a, b


def printed(capsys, *argv) -> list[str]:
    assert main([str(x) for x in argv]) == 0
    return capsys.readouterr().out.splitlines()


def test_prefer_prints_data_lines_only_by_default_as_trec_eval_does(capsys, tmp_path):
    lines = printed(capsys, "prefer", *track(tmp_path))
    assert lines == ["a\tb\t1\t1\t0.5000", "a\tb\t2\t0\t0.0000", "a\tb\tall\t0.5000\t0.2500"]


def test_header_prints_the_columns_first_and_the_same_lines_after(capsys, tmp_path):
    files = track(tmp_path)
    plain = printed(capsys, "prefer", *files)
    headed = printed(capsys, "prefer", *files, "--header")
    assert headed == ["run_i\trun_j\tqid\tsgnLP\trrLP"] + plain
    table = pd.read_csv(io.StringIO("\n".join(headed)), sep="\t", dtype={"qid": str})
    assert list(table.columns) == list(PREFER_COLUMNS) and table.qid.tolist() == ["1", "2", "all"]


def test_help_names_each_column_and_says_there_is_no_header():
    done = subprocess.run([sys.executable, "-m", "reeval.cli", "prefer", "--help"], capture_output=True, text=True)
    text = " ".join(done.stdout.split())
    assert done.returncode == 0
    assert "tab-separated lines without a header" in text and "--header" in text
    for column in ("run_i", "run_j", "qid", "sgnLP (", "rrLP (", "qid 'all'"):
        assert column in text, column
