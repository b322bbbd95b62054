"""``reeval measures NAME`` describes one measure (its definition, parameters, the tools
that name the same measure, what it is checked against and its tests); a name no family
takes answers with the nearest few names, on the command line, in the API and in the
config, never with the list of every name."""

from pathlib import Path

import pytest

import reeval
from reeval.cli import main
from reeval.cli.measures import MODULE_TESTS, ORACLE_TESTS, measure_tests
from reeval.measures import REGISTRY, accepted_names

ROOT = Path(__file__).resolve().parents[2]


def lookup(capsys, name):
    try:
        code = main(["measures", name])
    except SystemExit as exc:  # argparse's way with a bad option: usage and one line, status 2
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_one_measure_is_described_with_its_parameters_peers_and_tests(capsys):
    code, out, _ = lookup(capsys, "ERR@10")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "ERR@10"
    assert "    parameters: cutoff 10" in lines
    assert "    the same measure in: ir_measures (ERR@10)" in lines
    assert "    checked against: ir_measures (its gdeval provider)" in lines
    assert "    defined in reeval.measures.graded.err" in lines
    assert "tests/measures/test_ir_measures_names.py" in out and "| ERR@k = sum over retrieved d" in out


@pytest.mark.parametrize("name, first, parameters, peers", [
    ("AP(rel=2)", "AP(rel=2)", "relevance level 2 (its own)", "ir_measures (AP(rel=2))"),
    ("map", "map", "none", "trec_eval 10 (map); ir_measures (AP); ranx (map)"),
    ("P@10", "P@10", "cutoff 10", "trec_eval 10 (P_10); ir_measures (P@10); ranx (precision@10)"),
    ("hit_rate@5", "success_5", "cutoff 5", "trec_eval 10 (success_5); ir_measures (Success@5); ranx (hit_rate@5)"),
    ("rbp.p=0.95", "rbp_p=0.95", "parameter p=0.95", "trec_eval 10 (rbp_p=0.95)"),
    ("ASL@g1-10", "ASL@g1-10", "cutoff 10", "no other tool"),
])
def test_each_spelling_is_described_under_the_name_reeval_prints(capsys, name, first, parameters, peers):
    code, out, _ = lookup(capsys, name)
    lines = out.splitlines()
    assert code == 0 and lines[0].replace("P_10", "P@10") == first
    assert f"    parameters: {parameters}" in lines and f"    the same measure in: {peers}" in lines


def test_a_list_of_cutoffs_describes_each_and_a_set_lists_its_members(capsys):
    _, out, _ = lookup(capsys, "P.5,10")
    assert [line for line in out.splitlines() if not line.startswith(" ")] == ["P_5", "P_10"]
    _, out, _ = lookup(capsys, "official")
    assert out.startswith("official: a named set of 12 measure families: runid, num_q,")


def test_a_typo_answers_with_the_nearest_names_only(capsys):
    code, out, err = lookup(capsys, "ERRR@10")
    assert code == 2 and out == ""
    assert "unknown measure 'ERRR@10'; did you mean 'ERR@k' or 'RR@k'?" in err and len(err) < 400


def test_the_api_names_the_nearest_measures_not_every_name():
    with pytest.raises(reeval.InputError) as raised:
        reeval.evaluate({"1": {"d": 1}}, {"1": {"d": 1.0}}, ["ndcg_cutt@10"])
    message = str(raised.value)
    assert "did you mean 'ndcg_cut" in message and len(message) < 300 < len(accepted_names())


def test_every_family_names_its_test_files_and_they_exist():
    for family in REGISTRY.values():
        tests = measure_tests(family)
        assert tests[0] == "tests/measures/test_registry.py" and len(tests) >= 2, family.name
    for path in [path for _, path in ORACLE_TESTS] + [f"tests/measures/test_{m}.py" for m in MODULE_TESTS]:
        assert (ROOT / path).is_file(), path
