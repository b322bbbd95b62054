"""`reeval score -m P_rareness@k -m AP_rareness@k --alpha A`: S = the RUN files given."""

import json

import pytest

from conftest import REFERENCE
from reeval.cli import main


def tiny():
    d = REFERENCE / "tiny"
    if not d.is_dir():
        pytest.skip(f"reference outputs not found at {REFERENCE}")
    return d / "qrels.txt", [d / "runs" / f"S{i}" for i in range(4)]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


@pytest.mark.parametrize("alpha,key", [("0.5", "0.5"), ("1", "1.0"), ("1/R", "None")])
def test_cli_reproduces_the_authors_means_runs_in_argument_order(capsys, alpha, key):
    qrels, runs = tiny()
    gold = json.loads((REFERENCE / "ecir2023_tiny.json").read_text())
    order = [runs[3], runs[0], runs[2], runs[1]]
    code, lines, _ = run(capsys, "score", qrels, *order, "-c", "-m", "P_rareness@2",
                         "-m", "AP_rareness@3", "-m", "P.2", "--alpha", alpha, "--decimals", "10")
    assert code == 0
    assert [l.split("\t")[0] for l in lines] == [n for n in ("S3", "S0", "S2", "S1") for _ in range(3)]
    for line in lines:
        run_name, measure, qid, value = line.split("\t")
        measure = measure.strip()
        assert qid == "all"
        if measure.endswith("rareness@2") or measure.endswith("rareness@3"):
            ref = gold[f"{measure.lower()}_alpha={key}"][run_name]["all"]
            assert value == f"{ref:.10f}"
    assert lines[1] == "S3\tP_rareness@2          \tall\t" + f"{gold['p_rareness@2_alpha=' + key]['S3']['all']:.10f}"


def test_cli_counts_only_the_runs_given(capsys):
    """S2 alone: S = 1, every document it finds has R = 0 -> P_rareness = P; R' = 1."""
    qrels, runs = tiny()
    _, lines, _ = run(capsys, "score", qrels, runs[2], "-q", "-m", "P_rareness@3", "-m", "P.3",
                      "-m", "P_rareness_norm@3", "--alpha", "1")
    values = {(l.split("\t")[0].strip(), l.split("\t")[1]): l.split("\t")[2] for l in lines}
    assert values[("P_rareness@3", "q1")] == values[("P_3", "q1")] == "1.0000"
    assert values[("P_rareness_norm@3", "q1")] == "1.0000"
    # with all four runs, q1's a, b (3 runs each) and c (2 runs) are rarer than with one
    _, lines, _ = run(capsys, "score", qrels, *runs, "-q", "-m", "P_rareness@3", "--alpha", "1")
    assert "S2\tP_rareness@3          \tq1\t1.3333" in lines       # (1.25 + 1.25 + 1.5) / 3


def test_cli_rejects_a_bad_alpha_and_measure(capsys):
    qrels, runs = tiny()
    code, _, err = run(capsys, "score", qrels, runs[0], "-m", "P_rareness@3", "--alpha", "-1")
    assert code == 1 and "alpha" in err
    with pytest.raises(SystemExit) as stop:  # a measure name is an option: usage, exit 2
        run(capsys, "score", qrels, runs[0], "-m", "P_rareness@0")
    assert stop.value.code == 2 and "cutoff" in capsys.readouterr().err
