"""ir_measures' names give ir_measures' values: ``reeval.evaluate`` against ``ir_measures``
(pytrec_eval where it provides the measure, its own providers otherwise: msmarco for RR@k,
judged for Judged@k, gdeval for ERR@k, cwl_eval for RBP(rel=n)), topic by topic, on the
first runs of every shared track; through ``reeval score -m`` and the workflow's measures
step the same numbers.

ir_measures' own providers order tied documents by docno ascending, trec_eval (and reeval,
and pytrec_eval) descending: the runs are given to both with each document's score
replaced by minus its rank in trec_eval's order, so that no two tie and the comparison is
of the formulas (docs/semantics.md says where tied runs differ;
test_ir_measures_ties.py compares tied runs under ``ties="ir_measures"``). Those scores are
integers, exact in float32, so the pytrec_eval provider (trec_eval 9.x) and reeval's 9.x
semantics see the same ranking; iprec_at_recall is compared under 9.x's rounding, which
is pytrec_eval's.
"""

import contextlib
import io

import numpy as np
import pytest

from conftest import real_track_params, track_files
import reeval
from reeval.cli import main
from reeval.measures import parse_measure

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is the oracle of its names")

#: name -> largest difference allowed: gdeval prints ERR with 5 decimals; cwl_eval sums RBP
#: in another order (last bits)
NAMES = {"RR@10": 0, "RR(rel=2)@10": 0, "AP@10": 0, "AP": 0, "AP(rel=2)": 0, "Success@10": 0, "Judged@10": 0,
         "ERR@10": 5e-6 + 1e-12, "RBP(rel=1)": 1e-14, "RBP(p=0.9,rel=2)": 1e-14, "infAP": 0, "SetP": 0, "SetR": 0,
         "SetF(beta=0.5)": 0, "SetAP": 0, "SetP(relative=True)": 0, "NumRet": 0, "NumRet(rel=1)": 0,
         "NumRel": 0, "nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10": 0, "P(rel=2)@10": 0,
         "P(judged_only=True)@10": 0, "nDCG(judged_only=True)@10": 0, "IPrec@0.5": 0, "Rprec": 0, "Bpref": 0,
         "R@100": 0, "P@10": 0, "nDCG@10": 0}
RUNS_PER_TRACK = 3


def untied(tables):
    """{run: {qid: {docno: -rank}}} of an ingested track (keep_runs), rank in trec_eval order."""
    runs = tables.runs.to_pandas()
    out: dict = {}
    for run, qid, docno, pos in zip(runs.run, runs.qid, runs.docno, runs.pos):
        out.setdefault(run, {}).setdefault(qid, {})[docno] = -float(pos)
    return out


def numbered(qrels: dict, run: dict):
    """qrels and run with topic ids replaced by numbers (gdeval reads only numeric ids)."""
    ids = {qid: str(i + 1) for i, qid in enumerate(sorted(qrels))}
    return ({ids[q]: d for q, d in qrels.items()}, {ids[q]: d for q, d in run.items() if q in ids}, ids)


@pytest.fixture(scope="module", params=real_track_params())
def track(request):
    from reeval.io.ingest import ingest_track

    qrels_path, runs = track_files(request.param)
    tables = ingest_track(request.param, qrels_path, runs[:RUNS_PER_TRACK], keep_runs=True)
    q = tables.qrels.to_pandas()
    qrels: dict = {}
    for qid, docno, rel in zip(q.qid, q.docno, q.rel):
        qrels.setdefault(qid, {})[docno] = int(rel)
    return request.param, qrels, untied(tables)


def test_every_name_gives_ir_measures_values_topic_by_topic(track):
    name_of_track, qrels, runs = track
    for run_name, run in runs.items():
        ours = reeval.evaluate(qrels, {run_name: run}, list(NAMES), per_topic=True, complete=False,
                               precision="float32")
        for name, tolerance in NAMES.items():
            oracle_qrels, oracle_run, ids = numbered(qrels, run) if name.startswith("ERR") else (qrels, run, None)
            theirs = {q: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], oracle_qrels,
                                                                oracle_run) for q in [m.query_id]}
            column = ours[name].droplevel(0)
            if ids is not None:
                column.index = [ids[q] for q in column.index]
            common = set(theirs) & set(column.index)
            assert common, (name_of_track, name)
            worst = max(abs(theirs[q] - column[q]) for q in common)
            assert worst <= tolerance, (name_of_track, run_name, name, worst)


def test_run_values_are_ir_measures_calc_aggregate_for_its_pytrec_eval_names(track):
    """Where pytrec_eval provides the measure, ir_measures averages (sums for NumRet, NumRel)
    over the topics both judge and answer: reeval's run value over the answered topics."""
    _, qrels, runs = track
    names = ["AP", "AP(rel=2)", "P@10", "nDCG@10", "SetF(beta=0.5)", "NumRet", "NumRel", "NumQ", "infAP",
             "Success@10", "IPrec@0.5"]
    for run_name, run in runs.items():
        ours = reeval.evaluate(qrels, {run_name: run}, names, complete=False, precision="float32").iloc[0]
        theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels, run)
        for name in names:
            assert ours[name] == pytest.approx(theirs[ir_measures.parse_measure(name)], abs=1e-12), (run_name, name)


def test_names_map_to_trec_eval_s_measures_where_it_has_them():
    """An ir_measures name of a trec_eval measure is that measure (trec_eval 10's values:
    tests/measures/test_trec_eval10.py); the others are reeval's, under their canonical name."""
    same = {"AP": "map", "AP@10": "map_cut_10", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank",
            "R@100": "recall_100", "Success@10": "success_10", "IPrec@0.5": "iprec_at_recall_0.50", "SetP": "set_P",
            "SetR": "set_recall", "SetAP": "set_map", "SetF": "set_F", "SetF(beta=0.5)": "set_F.0.5",
            "SetP(relative=True)": "set_relative_P", "NumRet": "num_ret", "NumRel": "num_rel", "NumQ": "num_q",
            "infAP": "infAP", "Bpref": "bpref", "Rprec": "Rprec"}
    for name, trec_name in same.items():
        assert parse_measure(name) == parse_measure(trec_name), name
    for name in ["RR@10", "AP(rel=2)", "P(rel=2)@10", "Judged@10", "ERR@20", "RBP(p=0.8,rel=1)",
                 "P(judged_only=True)@5", "nDCG(gains={0:0,1:1,2:3})@10"]:
        (m,) = parse_measure(name)
        assert m.name == name and not m.trec_eval


def test_every_spelling_of_a_measure_prints_one_name():
    """Issue 34 item 6: trec_eval's name where trec_eval computes the measure, else one
    canonical ir_measures name (first alias, parameters in ir_measures' order, defaults
    left out, cutoff last), whichever spelling was given."""
    spellings = {
        "map": ["map", "AP", "MAP", "ap", "AP(judged_only=False)"],
        "ndcg_cut_10": ["ndcg_cut.10", "nDCG@10", "ndcg@10", "nDCG(dcg=log2)@10"],
        "AP(rel=2)": ["AP(rel=2)", "MAP(rel=2)", "AP(rel=2,judged_only=False)", "AP( rel=2 )"],
        "RR@10": ["RR@10", "MRR@10"],
        "P(rel=2)@10": ["P(rel=2)@10", "Precision(rel=2)@10"],
        "Bpref(rel=2)": ["Bpref(rel=2)", "BPref(rel=2)"],
        "RBP(p=0.8,rel=1)": ["RBP(rel=1)", "RBP(rel=1,p=0.8)", "RBP(p=0.8,rel=1)"],
        "SetF(rel=2)": ["SetF(rel=2)", "SetF(beta=1,rel=2)"],
    }
    for name, specs in spellings.items():
        assert {m.name for s in specs for m in parse_measure(s)} == {name}, specs
        assert len({tuple(parse_measure(s)) for s in specs}) == 1, specs


def test_reeval_score_and_the_workflow_give_the_same_numbers(tmp_path):
    """The same names through `reeval score -m` and the measures rule's step."""
    from reeval.io.ingest import ingest_track, write_track
    from reeval.workflow.measures_step import track_measures

    qrels_path, runs = track_files("trec2019-dl-passage")
    names = ["RR@10", "AP(rel=2)", "Judged@10", "ERR@10", "nDCG(gains={0:0,1:1,2:3,3:7})@10", "RBP(p=0.8,rel=2)"]
    api = reeval.evaluate(qrels_path, runs[:4], names)
    write_track(ingest_track("dl19", qrels_path, runs[:4]), tmp_path / "track")
    by_run = track_measures("dl19", tmp_path / "track", tmp_path / "measures", names).set_index("run")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["score", "--quiet", "-c", "--decimals", "30", *(a for n in names for a in ("-m", n)),
                     qrels_path, *runs[:4]]) == 0
    cli = {(run, m.strip()): float(v) for run, m, _, v in (line.split("\t") for line in printed.getvalue().splitlines())}
    for name in names:
        for run in api.index:
            assert api.loc[run, name] == by_run.loc[run, name] == cli[(run, name)], (run, name)
    assert np.isfinite(api.to_numpy(dtype=float)).all()


def test_ir_measures_names_are_read_in_any_case_as_trec_eval_s_are():
    """Issue 39: `mrr@10` was refused while `ndcg@10` was read. Every ir_measures name is
    read in any case, as trec_eval's names are, but RBP, which only its case tells apart
    from trec_eval's rbp (whose persistence defaults to 0.95, not 0.8)."""
    from reeval.measures.vocabulary import IR_MEASURES

    for name, (_, _, cut_kind, _) in IR_MEASURES.items():
        spec = name + {"int": "@5", "real": "@0.5", None: ""}[cut_kind]
        if name == "RBP":
            with pytest.raises(ValueError, match="unknown measure"):
                parse_measure("Rbp")
            continue
        for variant in (spec.lower(), spec.upper(), spec.swapcase()):
            assert parse_measure(variant) == parse_measure(spec), (variant, spec)
    assert [m.name for m in parse_measure("mrr@10")] == ["RR@10"]
    assert [m.name for m in parse_measure("rbp")] != [m.name for m in parse_measure("RBP")]
    with pytest.raises(ValueError, match="alpha_nDCG is not computed"):
        parse_measure("ALPHA_NDCG@5")


def test_the_quick_check_of_an_ir_measures_spelling_agrees_with_the_full_one():
    """providers.ir_measures_spelled answers False without importing vocabulary.py for a
    name that cannot be ir_measures' (no ``@`` nor ``(``, and not letters alone with a
    capital: ``P_20``, ``P.5``, ``map``); elsewhere it is vocabulary's answer."""
    import re

    from reeval.measures.providers import ir_measures_spelled
    from reeval.measures.vocabulary import spelled_as_ir_measures
    specs = ["P_20", "P.20", "P.5,10", "map", "MAP", "AP", " AP ", "ap", "rr", "RR", "SetP", "Rprec", "RPrec",
             "P", "nDCG@10", "ndcg@10", "ndcg_cut.10", "ERR@20", "alpha_nDCG", "AP(rel=2)", "P_rareness@100",
             "ASL@g1-10", "iprec_at_recall_0.10", "IPrec@0.5", "NumRet", "RBP(p=0.8)", "Judged@10", "bpref",
             "Bpref", "official", "all_trec", "set_F.0.5", "SetF", "P 20", "R@1000"]
    for spec in specs:  # the same answers as asking vocabulary of every spec with @, ( or a capital
        assert ir_measures_spelled(spec) == (bool(re.search(r"[@(A-Z]", spec)) and spelled_as_ir_measures(spec)), spec
    assert [ir_measures_spelled(s) for s in ("P_20", "P.20", "ndcg_cut.10", "AP", "SetP", "nDCG@10")] == [
        False, False, False, True, True, True]
