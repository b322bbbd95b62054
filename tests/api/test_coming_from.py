"""docs/api.md's "Coming from ranx" and "Coming from trec_eval" list every spelling reeval
accepts from those tools: ranx's metric names and compare arguments, trec_eval's measure
names (each trec_eval family's trec_eval-style spellings and the sets) and its options; and
each option form listed runs through ``reeval score``."""

import inspect
import re

import pytest

from conftest import ROOT, write_lines
import reeval
from reeval.cli import main
from reeval.measures import REGISTRY, SETS
from reeval.measures.vocabulary import RANX_FAMILIES, RANX_NAMES, ir_measures_name

PAGE = (ROOT / "docs" / "api.md").read_text()


def section(title: str) -> str:
    start = PAGE.index(f"## {title}\n")
    return PAGE[start:PAGE.index("\n## ", start + 1)]


def test_coming_from_ranx_lists_every_ranx_name_and_argument():
    text = section("Coming from ranx")
    names = set(RANX_NAMES) | set(RANX_FAMILIES.values())
    for name in names:
        assert f"`{name}@k`" in text or f"`{name}`" in text, name
    ranx_arguments = {"metrics", "stat_test", "max_p", "n_permutations", "random_seed", "rounding_digits"}
    assert ranx_arguments <= set(inspect.signature(reeval.compare_runs).parameters)
    for argument in ranx_arguments:
        assert f"`{argument}=" in text, argument
    for test in ("student", "fisher", "tukey"):
        assert f'`stat_test="{test}"`' in text


def trec_eval_spellings() -> list[str]:
    """Each trec_eval family's spellings in trec_eval's style (not ir_measures' names)."""
    return [n for f in REGISTRY.values() if f.trec_eval for n in f.names
            if not re.search(r"[@(]", n) and ir_measures_name(n) is None]


def test_coming_from_trec_eval_lists_every_measure_name_set_and_option():
    text = section("Coming from trec_eval")
    for name in trec_eval_spellings() + list(SETS):
        assert f"`{name}`" in text, name
    for option in ("-q", "-c", "-n", "-M 100", "-M100", "-l 2", "-l2", "-J", "-N 1000000", "-m map", "-mmap", "-qc"):
        assert f"`{option}`" in text, option


@pytest.mark.parametrize("options", [["-q"], ["-c"], ["-n"], ["-M", "100"], ["-M100"], ["-l", "2"], ["-l2"], ["-J"],
                                     ["-N", "1000000"], ["-m", "map"], ["-mmap"], ["-qc"], ["-qcn"]])
def test_each_trec_eval_option_form_listed_runs(tmp_path, capsys, options):
    qrels = write_lines(tmp_path / "qrels", ["1 0 d1 2", "1 0 d2 0", "2 0 d3 1"])
    run = write_lines(tmp_path / "run", ["1 Q0 d1 1 2.0 r", "1 Q0 d2 2 1.0 r", "2 Q0 d3 1 1.0 r"])
    assert main(["score", *options, str(qrels), str(run)]) == 0
    assert "error" not in capsys.readouterr().err
