"""Issue 38's edges of measure names and parameters, byte for byte against trec_eval 10.0
(conftest.trec_eval10): utility with -N above 2^53 and with infinite coefficients,
Rprec_mult and iprec_at_recall cutoffs whose names trec_eval cuts (meas_init.c's
append_double), a space after the '.' of P. 5; and no numpy warning on stderr."""

import subprocess
import sys

import pytest

QRELS = "1 0 a 1\n1 0 b 1\n1 0 c 0\n2 0 a 1\n3 0 x 1\n"
#: every qrels topic answered (trec_eval 10.0 without -c stops on a missing one)
EVERY_TOPIC = "1 Q0 a 1 3 A\n1 Q0 c 2 2 A\n2 Q0 c 1 1 A\n3 Q0 zz 1 1 A\n"
#: topic 3 not answered: scored under -c by trec_eval's ranking of one unjudged document
TOPIC_3_MISSED = "1 Q0 a 1 3 A\n1 Q0 c 2 2 A\n2 Q0 c 1 1 A\n"

CASES = [
    # N above 2^53, where a double skips integers: trec_eval counts N + r - n - R in a long
    ("every", ["-N", "9007199254740993", "-m", "utility.0,0,0,1"]),
    ("every", ["-q", "-N", "9007199254740993", "-m", "utility.0,0,0,1"]),
    ("every", ["-N", "9223372036854775807", "-m", "utility.0,0,0,1"]),
    ("missed", ["-c", "-q", "-N", "9007199254740995", "-m", "utility.0,0,0,1"]),
    ("missed", ["-c", "-q", "-N", "9223372036854775807", "-m", "utility.0,1,2,1"]),
    # infinite coefficients: inf, -inf, and NaN where one multiplies a count of 0 (the
    # missed topic's c1 * 0 too); 1e308 + 1e308 overflows to inf
    ("missed", ["-c", "-q", "-m", "utility.inf,0,0,0"]),
    ("every", ["-q", "-m", "utility.inf,0,0,0"]),
    ("missed", ["-c", "-q", "-m", "utility.-inf,inf,0,0"]),
    ("missed", ["-c", "-q", "-J", "-m", "utility.inf,1,-inf,inf"]),
    ("missed", ["-c", "-q", "-m", "utility.1e308,1e308,0,0"]),
    ("missed", ["-c", "-q", "-J", "-m", "utility.-1,-0,0,-0"]),
    # real cutoffs printed in 8 characters, as trec_eval's fixed buffer cuts them
    ("every", ["-m", "Rprec_mult.100000"]),
    ("every", ["-m", "Rprec_mult.100000,1000000,1e9,12345.678"]),
    ("every", ["-m", "Rprec_mult.-100000.5,-5,0.001,0.002"]),
    ("every", ["-q", "-m", "Rprec_mult.1e300,-1e300,1e18"]),
    ("every", ["-m", "iprec_at_recall.100000,0.5"]),
    # trec_eval reads a cutoff with atol, which skips leading spaces: P. 5 is P_5 there too
    ("every", ["-m", "P. 5"]),
    ("every", ["-m", "P.5, 10"]),
]


@pytest.mark.parametrize("run, argv", CASES, ids=[" ".join(argv) for _, argv in CASES])
def test_reeval_score_prints_trec_eval_s_bytes_and_no_warning(trec_eval10, tmp_path, run, argv):
    qrels, results = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    results.write_text(EVERY_TOPIC if run == "every" else TOPIC_3_MISSED)
    theirs = subprocess.run([str(trec_eval10.binary), *argv, str(qrels), str(results)], capture_output=True)
    ours = subprocess.run([sys.executable, "-W", "default", "-m", "reeval.cli", "score", "--quiet", *argv,
                           str(qrels), str(results)], capture_output=True)
    assert theirs.returncode == 0 and theirs.stdout
    assert (ours.returncode, ours.stdout) == (0, theirs.stdout)
    assert ours.stderr == b""


@pytest.mark.parametrize("spec", ["P@1 0", "n DCG@10", "n DCG", "Num Ret", "AP(r el=2)", "AP(rel=1 0)"])
def test_a_space_inside_a_name_or_a_number_is_no_measure(spec):
    """ir_measures' names may have spaces between their parts (``P @ 5``, as a Python
    expression), never inside one: P@1 0 is not P@10, as ir_measures refuses it too."""
    from reeval.measures import parse_measure

    with pytest.raises(ValueError, match="measure"):
        parse_measure(spec)
    assert [m.name for m in parse_measure("P @ 5")] == [m.name for m in parse_measure("P@5")]
    assert [m.name for m in parse_measure("AP( rel = 2 )")] == [m.name for m in parse_measure("AP(rel=2)")]
