"""An ir_measures name whose provider orders tied documents otherwise (RR@k and Judged@k:
docno ascending; RBP(rel=n): the lines' order; the pytrec_eval measures: scores read as
float32, ties by docno descending) is never silently different: on a run with such ties
within the measure's cutoff, one line per run on stderr (API: one ReevalWarning per run)
names the measures, the topics and the switch giving ir_measures' numbers; runs without
such ties, trec_eval's spellings, ``ties="ir_measures"`` and ``precision="float32"`` (for
the pytrec_eval measures) say nothing."""

import warnings

import numpy as np
import pytest

from conftest import track_files, write_lines
import reeval
from reeval.cli import main
from reeval.io.ordering import NOT_REORDERED, first_reordered, ordering_key, ranked_order, trec_order
from reeval.io.strings import Strings

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is the oracle of its own tie order")

QRELS = {"1": {"d1": 1, "d2": 0, "d3": 2, "d9": 1}, "2": {"d1": 1, "d5": 1}}


def ties_said(run, measures, **options):
    """(frame, the ReevalWarning texts on ties) of reeval.evaluate on QRELS and ``run``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = reeval.evaluate(QRELS, run, measures, **options)
    return frame, [str(w.message) for w in caught if "rank tied scores" in str(w.message)]


def test_first_reordered_is_where_each_rule_first_departs_from_trec_eval_order():
    rng = np.random.default_rng(3)
    n, T = 600, 6
    topic = rng.integers(0, T - 1, n)  # the last topic has no line
    score = rng.choice([0.0, 1.0, 1.5, 2.0, 2.0 + 1e-12], n)
    docno = Strings.from_list([f"d{i}" for i in rng.permutation(n)])
    order = trec_order(topic, docno, score)
    sorted_topic = topic[order]
    pos = np.concatenate([np.arange(1, c + 1) for c in np.bincount(sorted_topic, minlength=T) if c])
    found = first_reordered(sorted_topic, pos, ordering_key(score[order]), order, T)
    for rule in ("docno_asc", "input"):
        other = ranked_order(topic, docno, score, rule=rule)
        expected = np.full(T, NOT_REORDERED)
        for t in range(T):
            mine, theirs = order[sorted_topic == t], other[topic[other] == t]
            differ = np.flatnonzero(mine != theirs)
            if len(differ):
                expected[t] = differ[0] + 1
        assert list(found[rule]) == list(expected), rule
    assert found["docno_asc"][T - 1] == NOT_REORDERED


def test_a_tie_within_the_cutoff_is_said_once_per_run_with_the_switch():
    tied = {"1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 1.0}, "2": {"d1": 1.0}}
    plain = {"1": {"d1": 3.0, "d2": 2.5, "d3": 2.0}, "2": {"d1": 1.0}}
    frame, said = ties_said({"tied": tied, "plain": plain}, ["RR(rel=2)@10", "Judged@2", "P@10"])
    assert len(said) == 1 and said[0].startswith("reeval: run tied: ")
    assert 'RR(rel=2)@10 (msmarco: docno ascending; ties="ir_measures") on 1 of 2 topics' in said[0]
    assert 'Judged@2 (judged: docno ascending; ties="ir_measures") on 1 of 2 topics' in said[0]
    assert "P_10" not in said[0] and "the option named with each gives ir_measures' numbers" in said[0]
    assert frame.attrs["notes"][-1] == said[0][len("reeval: "):]
    # the numbers the note warns of: ir_measures ranks d2 above d3 (docno ascending)
    ours = frame.loc["tied", "RR(rel=2)@10"]
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure("RR(rel=2)@10")], QRELS, tied)
    assert ours == pytest.approx((1 / 2 + 0) / 2) and list(theirs.values()) == [pytest.approx((1 / 3 + 0) / 2)]
    again, none = ties_said({"tied": tied}, ["RR(rel=2)@10"], ties="ir_measures")
    assert none == [] and again.loc["tied", "RR(rel=2)@10"] == pytest.approx(1 / 6)


def test_a_tie_beyond_the_cutoff_or_in_trec_eval_order_is_not_said():
    beyond = {"1": {"d1": 3.0, "d2": 2.0, "d3": 2.0}, "2": {"d1": 1.0}}  # tied at 2 and 3
    _, said = ties_said({"beyond": beyond}, ["Judged@1", "RR@1", "ERR@10", "nDCG@10"])
    assert said == []
    # RBP(rel=n) ranks tied documents in the lines' order: trec_eval's when the lines are
    # in docno descending order, not when they are the other way round
    _, said = ties_said({"desc": {"1": {"d3": 1.0, "d2": 1.0}, "2": {"d1": 1.0}}}, ["RBP(rel=1)"])
    assert said == []
    _, said = ties_said({"asc": {"1": {"d2": 1.0, "d3": 1.0}, "2": {"d1": 1.0}}}, ["RBP(rel=1)"])
    assert len(said) == 1 and "RBP(p=0.8,rel=1) (cwl_eval: the run's line order; " in said[0]
    assert said[0].endswith("on 1 of 2 topics: these values may differ from ir_measures' (the option named with "
                            "each gives ir_measures' numbers)")


def test_float32_ties_of_an_ir_measures_name_computed_by_pytrec_eval_are_said():
    """d1 (relevant) scores 1 + 1e-9, d2 1: apart in float64 (d1 first), tied in float32,
    where pytrec_eval (ir_measures' provider of P@k) puts d2 first (docno descending)."""
    run = {"1": {"d1": 1.0 + 1e-9, "d2": 1.0}, "2": {"d1": 1.0}}
    frame, said = ties_said({"close": run}, ["P@1", "nDCG@1"])
    assert len(said) == 1 and "P_1 (pytrec_eval: scores read as float32, ties by docno descending; " \
                               'precision="float32") on 1 of 2 topics' in said[0] and "ndcg_cut_1" in said[0]
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure("P@1")], QRELS, run)
    assert frame.loc["close", "P@1"] == 1.0 and list(theirs.values()) == [0.5]
    again, none = ties_said({"close": run}, ["P@1"], precision="float32")
    assert none == [] and again.loc["close", "P@1"] == 0.5
    # trec_eval's spellings (P.1, map) say nothing; ir_measures' P@5 does
    _, some = ties_said({"close": run}, ["P.1", "map", "P@5"])
    assert len(some) == 1 and "P_5" in some[0] and "P_1 " not in some[0] and "map" not in some[0]


def test_compare_runs_warns_of_ties_as_evaluate_does():
    tied = {"1": {"d1": 3.0, "d2": 2.0, "d3": 2.0}, "2": {"d1": 1.0}}
    other = {"1": {"d3": 3.0}, "2": {"d5": 1.0}}
    with pytest.warns(reeval.ReevalWarning, match="run tied: ir_measures' providers rank tied scores .* Judged@10"):
        reeval.compare_runs(QRELS, {"tied": tied, "other": other}, ["Judged@10"])


def test_reeval_score_says_it_on_stderr_once_per_run(tmp_path, capsys):
    qrels = write_lines(tmp_path / "qrels", ["1 0 d1 1", "1 0 d2 0", "1 0 d3 2"])
    a = write_lines(tmp_path / "a", ["1 Q0 d1 1 3.0 a", "1 Q0 d2 2 2.0 a", "1 Q0 d3 3 2.0 a"])
    b = write_lines(tmp_path / "b", ["1 Q0 d1 1 3.0 b", "1 Q0 d2 2 1.0 b"])
    assert main(["score", "-m", "Judged@10", "-m", "RR(rel=2)@10", str(qrels), str(a), str(b)]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "tied scores" in line]
    assert len(lines) == 1 and lines[0].startswith("reeval: run a: ") and "; --ties ir_measures) on 1 of 1" in lines[0]
    assert main(["score", "--ties", "ir_measures", "-m", "Judged@10", str(qrels), str(a)]) == 0
    assert "tied scores" not in capsys.readouterr().err


def test_on_dl_2020_every_run_whose_value_differs_from_ir_measures_is_warned_of():
    """DL-2020 passages (its official level 2): wherever ir_measures' RR(rel=2)@10,
    Judged@10 or RBP(rel=2) differs from reeval's default, the run's note names the measure;
    small_1k's Judged@10 (0.5815 against ir_measures' 0.9907) is among them."""
    qrels_path, runs = track_files("trec2020-dl-passage")
    names = ["RR(rel=2)@10", "Judged@10", "RBP(rel=2)"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = reeval.evaluate(qrels_path, runs, names)
    said = {str(w.message).split(":")[1].strip()[len("run "):]: str(w.message) for w in caught
            if "rank tied scores" in str(w.message)}
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    differing = 0
    for path, run in zip(runs, ours.index):
        theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels,
                                            list(ir_measures.read_trec_run(path)))
        for name in names:
            value = theirs[ir_measures.parse_measure(name)]
            if abs(value - ours.loc[run, name]) > 1e-9:
                differing += 1
                canonical = "RBP(p=0.8,rel=2)" if name == "RBP(rel=2)" else name
                assert canonical + " (" in said.get(run, ""), (run, name)
    assert differing >= 10
    assert ours.loc["small_1k", "Judged@10"] == pytest.approx(0.5815, abs=1e-4) and "Judged@10" in said["small_1k"]


def test_reeval_compare_says_it_too(tmp_path, capsys):
    qrels = write_lines(tmp_path / "qrels", ["1 0 d1 1", "1 0 d2 0", "1 0 d3 2", "2 0 d1 1"])
    a = write_lines(tmp_path / "a", ["1 Q0 d1 1 3.0 a", "1 Q0 d2 2 2.0 a", "1 Q0 d3 3 2.0 a", "2 Q0 d1 1 1 a"])
    b = write_lines(tmp_path / "b", ["1 Q0 d1 1 3.0 b", "2 Q0 d1 1 1 b"])
    assert main(["compare", "-m", "RR(rel=2)@10", "-m", "map", str(qrels), str(a), str(b)]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "rank tied scores" in line]
    assert len(lines) == 1 and lines[0].startswith("reeval: run a: ") and "RR(rel=2)@10 (msmarco" in lines[0]
