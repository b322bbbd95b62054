"""The measure registry: one hand-checked value for every registered family, the parser a
loop over the registry, ``reeval measures`` printed from it, a new family one definition.

The track (relevance level 1): topic 1 judges A (grade 2), B (1), D (1) relevant and C
(0) not; topic 2 judges E (1). Run ``one`` ranks X (unjudged), A, C, B for topic 1 and F
(unjudged) for topic 2; run ``two`` ranks only A for topic 1. So for run one, topic 1:
R = 3, relevant at ranks 2 and 4, D not retrieved, 4 documents retrieved.
"""

import math

import numpy as np
import pytest

from conftest import ROOT, write_lines
from reeval import cli
from reeval.measures import REGISTRY, Family, evaluate_grid, family_of, grid_from_track, parse_measure, register
from reeval.measures.registry import cutoffs

LOG2 = math.log2

#: measure -> its value for run one on topic 1 (for the measures printed only as run values,
#: gm_map and num_q, its run value), worked out by hand from the definitions
HAND_CHECKED = {
    "map": (1 / 2 + 2 / 4) / 3,
    "gm_map": math.exp((math.log(1 / 3) + math.log(1e-5)) / 2),  # run value: topic 2's AP 0 floored at 1e-5
    "P_2": 1 / 2,
    "recall_2": 1 / 3,
    "Rprec": 1 / 3,                 # top R = 3: X, A, C
    "recip_rank": 1 / 2,
    "bpref": (1 + 0) / 3,           # A: no judged non-relevant above; B: C above, min(1, 3) / min(N = 1, 3)
    "ndcg": (2 / LOG2(3) + 1 / LOG2(5)) / (2 + 1 / LOG2(3) + 1 / LOG2(4)),
    "ndcg_cut_2": (2 / LOG2(3)) / (2 + 1 / LOG2(3)),
    "iprec_at_recall_0.70": 0.5,    # k = (long)(0.7 * 3 + 0.9) = 2 relevant: max precision 1/2, 2/4
    "iprec_at_recall_0.80": 0.0,    # k = 3 relevant: only 2 retrieved
    "num_q": 2,                     # run value: the topics run one answered
    "num_ret": 4,
    "num_rel": 3,
    "num_rel_ret": 2,
    "ASL": (2 + 3 + 3) / 3,         # A: 1 + 1 above; B: 1 + 2 above; D: irrel 2 + 1
    "ASL@g1": 2,
    "ASL@g1-2": (2 + 3) / 2,
    # two runs, alpha 1: A is found by both (rarity 0), B by one (rarity 1 - 1/2; normalized 1)
    "P_rareness@4": (1 + 1.5) / 4,
    "AP_rareness@4": (1 / 2 + (1 + 1.5) / 4) / 3,
    "P_rareness_norm@4": (0 + 1) / 4,
    "AP_rareness_norm@4": (0 / 2 + (0 + 1) / 4) / 3,
}


@pytest.fixture()
def track(tmp_path):
    qrels = write_lines(tmp_path / "qrels", ["1 0 A 2", "1 0 B 1", "1 0 C 0", "1 0 D 1", "2 0 E 1"])
    one = write_lines(tmp_path / "one", ["1 Q0 X 1 4 one", "1 Q0 A 2 3 one", "1 Q0 C 3 2 one",
                                         "1 Q0 B 4 1 one", "2 Q0 F 1 1 one"])
    two = write_lines(tmp_path / "two", ["1 Q0 A 1 1 two"])
    return qrels, [one, two]


def per_topic(track, spec) -> float:
    """Run one's value on topic 1, as ``reeval score -q`` prints it (its run value when
    the measure has no per-topic line)."""
    qrels, runs = track
    lines = cli.score_lines(qrels, runs, [spec], per_topic=True, decimals=17)
    values = {(run, measure.strip(), qid): float(value) for run, measure, qid, value in
              (line.split("\t") for line in lines) if measure.strip() != "runid"}
    (name,) = {m.name for m in parse_measure(spec)}
    return values.get(("one", name, "1"), values.get(("one", name, "all")))


def test_every_registered_family_has_a_hand_checked_case():
    covered = {m.family for spec in HAND_CHECKED for m in parse_measure(spec)}
    assert set(REGISTRY) - covered == set(), "add a hand-checked value for every new family"


@pytest.mark.parametrize("spec", HAND_CHECKED)
def test_hand_checked_value(track, spec):
    assert per_topic(track, spec) == pytest.approx(HAND_CHECKED[spec], abs=1e-15)


def test_the_parser_reads_every_spelling_of_a_family():
    same = [["map", "AP", "ap"], ["P_20", "P.20", "P@20", "p_20"], ["recall_10", "R@10", "recall.10"],
            ["ndcg_cut_10", "nDCG@10", "ndcg_cut.10"], ["recip_rank", "RR", "MRR"],
            ["ASL@g1-1", "ASL@g1"], ["P_rareness@100", "p_rareness.100", "P_rareness"]]
    for spellings in same:
        assert len({tuple(parse_measure(s)) for s in spellings}) == 1, spellings
    assert [m.name for m in parse_measure("P.5,10")] == ["P_5", "P_10"]
    assert len(parse_measure("iprec_at_recall")) == 11 and len(parse_measure("P")) == 9
    for bad, message in [("mapp", "unknown measure 'mapp'"), ("P.0", "cutoffs must be positive"),
                         ("ASL@g1-0", "needs n >= 1"), ("P_rareness@0", "positive integer")]:
        with pytest.raises(ValueError, match=message):
            parse_measure(bad)


def test_reeval_measures_lists_every_family_and_set(capsys):
    assert cli.main(["measures", "--formulas"]) == 0
    out = capsys.readouterr().out
    for family in REGISTRY.values():
        assert ", ".join(family.names) + "\n    " + family.description in out
    assert "lower is better" in out and "run value: gmean" in out
    assert "official: num_q, num_ret" in out and "| AP = (1/R_q)" in out


def test_a_new_family_is_one_definition(track):
    """success@k (1 when a relevant document is in the top k), registered here and
    removed afterwards: it parses, computes and prints with nothing else changed."""
    def success(ctx, m):
        """success_k = 1 when a relevant document is in the top k, else 0."""
        return (ctx.count(ctx.is_rel & (ctx.pos <= m.cutoff)) > 0).astype(np.float64)

    register(Family("success", ("success_k", "success@k"), "a relevant document in the top k",
                    cutoffs("success"), success, doc=success.__doc__))
    try:
        assert [m.name for m in parse_measure("success@1")] == ["success_1"]
        assert (per_topic(track, "success@1"), per_topic(track, "success@2")) == (0.0, 1.0)
        assert family_of(parse_measure("success@3")[0]).doc.startswith("success_k")
    finally:
        del REGISTRY["success"]


def test_evaluate_grid_refuses_a_family_computed_over_runs(track):
    from reeval.io.ingest import ingest_track

    qrels, runs = track
    grid = grid_from_track(ingest_track("t", qrels, runs))
    with pytest.raises(ValueError, match="not computed by evaluate_grid"):
        evaluate_grid(grid, parse_measure("P_rareness@4"))


def test_docs_measures_is_the_registry_s_table():
    """docs/measures.md is what ``reeval measures --markdown`` prints (regenerate it so)."""
    page = ROOT / "docs" / "measures.md"
    assert page.read_text() == cli.measure_markdown() + "\n", "run: reeval measures --markdown > docs/measures.md"


def test_the_schema_names_the_registry_s_rareness_families():
    """config/schema.yaml's rareness.measures enum is the registry's families computed over
    runs (the measures: list is checked against the registry by reeval.workflow.config_check)."""
    import yaml
    schema = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())
    enum = schema["properties"]["rareness"]["properties"]["measures"]["items"]["enum"]
    assert enum == [f.name for f in REGISTRY.values() if f.needs_runs]


def test_every_family_says_where_it_is_computed(capsys):
    """`reeval measures --formulas` names the function computing each family, and it exists."""
    import importlib

    for family in REGISTRY.values():
        if family.compute is None:
            assert "reeval.analyses.rareness" in family.defined_in, family.name
            continue
        module, _, name = family.defined_in.rpartition(".")
        assert callable(getattr(importlib.import_module(module), name)), family.defined_in
    assert cli.main(["measures", "--formulas"]) == 0
    assert "    defined in reeval.measures.classic.precision\n" in capsys.readouterr().out
