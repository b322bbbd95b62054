"""Where trec_eval 10 itself fails and reeval computes (docs/semantics.md, issue 27): grades far
beyond any judging scale, and a relevance level below 0. trec_eval 10 is built from
../shared/oracles (its own Makefile); the tests skip, naming why, without the tarball or a
C compiler. Also: lines with leading, trailing or doubled whitespace, which reeval reads as
trec_eval reads them or refuses where trec_eval stops, with the kernels and without."""

import gzip
import subprocess

import pytest

from conftest import ROOT, track_files, write_lines
from reeval.cli import main

SEMANTICS = (ROOT / "docs" / "semantics.md").read_text()


@pytest.fixture(scope="module")
def trec_eval(trec_eval10):
    """trec_eval 10.0's default build (conftest.trec_eval10)."""
    return str(trec_eval10.binary)


def reeval_value(capsys, *argv) -> str:
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr().out.splitlines()[-1].split("\t")[-1]


def trec_eval_value(binary, *argv) -> str:
    got = subprocess.run([binary, *map(str, argv)], capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    return got.stdout.splitlines()[-1].split("\t")[-1]


@pytest.fixture(scope="module")
def covid2(tmp_path_factory):
    """TREC-COVID round 2's qrels and run covidex.t5, uncompressed (trec_eval reads no gzip)."""
    qrels, runs = track_files("trec-covid-round2")
    tmp = tmp_path_factory.mktemp("covid2")
    run = [r for r in runs if r.endswith("covidex.t5.gz")][0]
    (tmp / "qrels").write_bytes(gzip.decompress(open(qrels, "rb").read()))
    (tmp / "run").write_bytes(gzip.decompress(open(run, "rb").read()))
    return tmp / "qrels", tmp / "run"


def test_below_level_0_trec_eval_counts_unjudged_documents_as_relevant_and_reeval_does_not(capsys, trec_eval, covid2):
    qrels, run = covid2
    assert trec_eval_value(trec_eval, "-l", "-1", "-m", "map", qrels, run) == "2.6447"  # map above 1
    assert trec_eval_value(trec_eval, "-l", "0", "-m", "map", qrels, run) == "0.1945"
    for level in ("-1", "0", str(-2**63)):  # every judged document relevant, no unjudged one
        assert reeval_value(capsys, "score", "-l", level, "-m", "map", qrels, run) == "0.1945"
    assert "2.6447" in SEMANTICS and "0.1945" in SEMANTICS


def test_a_grade_of_2_61_crashes_trec_eval_and_reeval_computes(capsys, trec_eval, covid2, tmp_path):
    qrels, run = covid2
    lines = qrels.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[3] in ("1", "2"))  # a relevant document
    lines[at] = " ".join(lines[at].split()[:3] + [str(2**61 - 1)])  # its grade only grows: still relevant
    huge = write_lines(tmp_path / "qrels", lines)
    crashed = subprocess.run([trec_eval, "-m", "map", str(huge), str(run)], capture_output=True, timeout=60)
    # killed by a signal (a segmentation fault): the size of its array of relevance levels wraps around
    assert crashed.returncode < 0
    want = reeval_value(capsys, "score", "-m", "map", qrels, run)
    assert reeval_value(capsys, "score", "-m", "map", huge, run) == want == "0.2880"  # relevant either way
    assert main(["score", "-m", "ndcg", str(huge), str(run)]) == 1  # gains are doubles: grades up to 2^53
    assert capsys.readouterr().err.count("up to 2^53") == 1
    assert "2^61 - 1 and 2^61 the size wraps around and it crashes" in SEMANTICS


# Leading, trailing and doubled whitespace (issue 31 follow-up): trec_eval skips whitespace
# before a line's first field and reads a run of whitespace as one separator, so a run line
# starting with a tab is not an empty topic id. Each line is read by reeval as by trec_eval,
# or refused in one line naming the file and line where trec_eval stops ("Malformed line").
QRELS_LINE, RUN_LINE = "1 0 d 1", "1 Q0 d 1 5 x"
WHITESPACE_CASES = [  # (which file the line goes in, the line)
    ("run", "\tQ0\tnxfr24sp\t1\t64.767105\tx"),  # the line: five fields after a leading tab
    ("run", "\t1\tQ0\td\t1\t5\tx"), ("run", " 1 Q0 d 1 5 x"), ("run", "1\tQ0\td\t1\t5\tx\t"),
    ("run", "1\tQ0\td\t1\t5\t"), ("run", "1 Q0 d 1 5 "), ("run", "1\tQ0\t\td\t1\t5"), ("run", "1 Q0 d 1 5 \r"),
    ("run", "1\t\tQ0\td\t\t1\t5\tx"), ("run", "1\tQ0\td\t1\t\tx"), ("run", "1 Q0 d  5 x"), ("run", "\t \t1\tQ0\td\t1\t5\tx \t "),
    ("qrels", "\t1\t0\td\t1"), ("qrels", "1\t0\td\t1\t"), ("qrels", "\t0\td\t1"), ("qrels", "1 0 d 1 \t "),
    ("qrels", "1\t\t0\td\t1"), ("qrels", "1\t0\td\t"), ("qrels", " \t1 0  d\t1\r"),
]


@pytest.mark.parametrize("enabled", [True, False], ids=["kernels", "numpy"])
@pytest.mark.parametrize("kind, line", WHITESPACE_CASES)
def test_leading_and_trailing_whitespace_read_as_trec_eval_reads_it_or_refused_where_it_stops(
        capsys, trec_eval, tmp_path, kind, line, enabled):
    from reeval.io import compiled

    files = {"qrels": [QRELS_LINE], "run": [RUN_LINE]}
    files[kind] = [line]  # the case alone: where trec_eval stops, it is its line 1
    qrels, run = (tmp_path / "qrels", tmp_path / "run")
    for path in (qrels, run):
        path.write_bytes("".join(f"{text}\n" for text in files[path.name]).encode())
    measures = ["-m", "num_ret", "-m", "num_rel", "-m", "map"]
    theirs = subprocess.run([trec_eval, *measures, str(qrels), str(run)], capture_output=True, text=True, timeout=60)
    before, compiled.ENABLED = compiled.ENABLED, enabled and compiled._kernels is not None
    try:
        code = main(["score", *measures, str(qrels), str(run)])
    finally:
        compiled.ENABLED = before
    out, err = capsys.readouterr()
    if theirs.returncode != 0:
        assert "Malformed line 1" in theirs.stderr
        assert code == 1 and out == "" and err.count("\n") == 1
        assert err.startswith(f"reeval: {tmp_path / kind}:1: expected "), err
    else:
        assert code == 0, err
        assert out.splitlines() == theirs.stdout.splitlines()
