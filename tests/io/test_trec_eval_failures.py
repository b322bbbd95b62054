"""Where trec_eval 10 itself fails and reeval computes (docs/semantics.md, issue 27): grades far
beyond any judging scale, and a relevance level below 0. trec_eval 10 is built from
../shared/oracles (its own Makefile); the tests skip, naming why, without the tarball or a
C compiler."""

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
