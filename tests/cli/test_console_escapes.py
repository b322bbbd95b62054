"""Terminal escapes and bidi controls in run names reach no terminal raw (issue 38, items 4
and 5): each command, run as a user runs it, prints a run file named with ESC, BEL, an OSC
sequence, a C1 control or a bidi control as visible escapes (``\\x1b``, ``\\x07``,
``\\u202e``), on stdout and in its notes and errors on stderr; ordinary names print as they are."""

import re
import subprocess
import sys

import pytest

from conftest import write_lines
from reeval.report.escape import line_text, tsv_field

#: a file name setting the terminal's title and hiding what follows; one that reverses the
#: rest of its line on display; one with a C1 CSI
OSC = "run\x1b]0;TITLE\x07\x1b[8mhidden"
BIDI = "rev\u202e0.2500\u2066x\u2069"
C1 = "csi\x9b31mred"
NAMES = [OSC, BIDI, C1]
#: what no console line may hold raw (stdout keeps its tabs and newlines)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


@pytest.fixture
def track(tmp_path):
    qrels = write_lines(tmp_path / "qrels", ["1 0 d1 1", "1 0 d2 0", "1 0 d3 1", "2 0 d1 1", "2 0 d4 1"])
    runs = [write_lines(tmp_path / OSC, ["1 Q0 d1 1 3 t", "1 Q0 d2 2 2 t", "2 Q0 d4 1 1 t"]),
            write_lines(tmp_path / BIDI, ["1 Q0 d2 1 3 t", "1 Q0 d3 2 2 t", "2 Q0 d1 1 1 t",
                                          "2 Q0 d1 2 0.5 t"]),  # a duplicate: a note naming the file
            write_lines(tmp_path / C1, ["1 Q0 d3 1 3 t", "2 Q0 d4 2 2 t"])]
    return qrels, runs


def reeval(*argv):
    """(status, stdout, stderr) of ``reeval ARGV`` in its own process."""
    done = subprocess.run([sys.executable, "-m", "reeval.cli", *map(str, argv)], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def assert_no_raw_control(out: str, err: str):
    assert not RAW.search(out), out
    assert not RAW.search(err.replace("\n", "")) and "\t" not in err, err


@pytest.mark.parametrize("argv", [["score", "-m", "map", "-m", "P.5", "-q"], ["compare", "--format", "pairs"],
                                  ["compare", "--format", "text"], ["compare", "--format", "markdown"],
                                  ["compare", "--format", "latex"], ["prefer"], ["reusability", "-m", "AP"]],
                         ids=lambda argv: "-".join(a.strip("-") for a in argv[:3]))
def test_each_command_prints_hostile_run_names_escaped_on_stdout_and_stderr(track, argv):
    qrels, runs = track
    code, out, err = reeval(argv[0], qrels, *runs, *argv[1:])
    assert code == 0, err
    assert_no_raw_control(out, err)
    if argv[-1] in ("markdown", "latex"):  # the format's own escape of the visible escapes' backslash
        assert all(name in out for name in ("x1b", "x07", "u202e", "u009b")), out
    else:
        assert all(tsv_field(name) in out for name in NAMES), out
    assert f"reeval: {line_text(runs[1])}: 1 duplicate line dropped" in err  # the note names the file, escaped


def test_the_reusability_verdict_names_the_run_with_the_largest_drop_escaped(track):
    qrels, runs = track
    _, out, _ = reeval("reusability", qrels, *runs, "-m", "AP", "--quiet")
    verdict = next(line for line in out.splitlines() if line.startswith("verdict AP"))
    assert f"({tsv_field(OSC)})" in verdict and not RAW.search(verdict)


def test_score_of_several_runs_starts_each_line_with_the_escaped_name_and_keeps_the_lines_of_plain_names(track,
                                                                                                      tmp_path):
    qrels, runs = track
    plain = write_lines(tmp_path / "plain.run", ["1 Q0 d1 1 3 t", "2 Q0 d4 1 1 t"])
    _, out, _ = reeval("score", "-m", "map", "--quiet", qrels, runs[0], runs[1], plain)
    assert out.splitlines() == ["run\\x1b]0;TITLE\\x07\\x1b[8mhidden\tmap                   \tall\t0.5000",
                                "rev\\u202e0.2500\\u2066x\\u2069\tmap                   \tall\t0.3750",
                                "plain.run\tmap                   \tall\t0.5000"]


def test_a_run_tag_holding_an_escape_prints_escaped_in_runid(tmp_path):
    qrels = write_lines(tmp_path / "qrels", ["1 0 d1 1"])
    run = write_lines(tmp_path / "run", ["1 Q0 d1 1 3 t\x1b]0;x\x07ag"])
    code, out, err = reeval("score", "-m", "runid", qrels, run)
    assert (code, out) == (0, "runid                 \tall\tt\\x1b]0;x\\x07ag\n") and not RAW.search(err)


def test_an_error_naming_a_hostile_file_is_one_escaped_line(tmp_path):
    qrels = write_lines(tmp_path / "qrels", ["1 0 d1 1"])
    empty = tmp_path / ("empty" + OSC + "\nsecond line")
    empty.write_text("")
    plain = write_lines(tmp_path / "plain", ["1 Q0 d1 1 3 t"])
    for command in ("score", "compare", "prefer", "reusability"):
        code, out, err = reeval(command, qrels, empty, plain)
        assert (code, out) == (1, ""), err
        assert err == f"reeval: {line_text(empty)}: nothing to evaluate (empty file)\n", err


def test_a_compare_baseline_not_among_the_runs_is_named_escaped(track):
    qrels, runs = track
    code, _, err = reeval("compare", "--quiet", "--baseline", "base\x1b]0;x\x07", qrels, *runs)
    assert code == 1 and err.count("\n") == 1 and not RAW.search(err.rstrip("\n")), err
    assert "base\\x1b]0;x\\x07" in err and "run\\x1b]0;TITLE" in err


@pytest.mark.parametrize("argv, shown", [
    (["score", "q", "r", "--x" + OSC + BIDI], "unrecognized arguments: --x" + line_text(OSC + BIDI)),
    (["compare", "q", "a", "b", "--seed", "1", "extra" + BIDI + "\n" + C1], "unrecognized arguments: extra"),
    (["compare", "q", "a", "b", "--test", "t" + OSC], "argument --test: invalid choice: 't" + line_text(OSC)),
    (["prefer", "q", "a", "b", "-l", "1" + BIDI], "argument -l: expected an integer, not '1" + line_text(BIDI)),
    (["comp\u202eare" + OSC], "invalid choice: 'comp\\u202eare"),
])
def test_argparses_own_errors_show_a_hostile_argument_escaped_on_one_line(argv, shown):
    """Issue 39 item 6: an unknown option echoed ESC and bidi controls raw to the terminal."""
    code, out, err = reeval(*argv)
    assert (code, out) == (2, ""), err
    assert err.startswith("usage: reeval"), err
    last = err.rstrip("\n").splitlines()[-1]
    assert ": error: " in last and shown in last and not RAW.search(err.replace("\n", "")), err
