"""Parity of the trec_eval 9.x semantics (``precision="float32"``) with the trec_eval 9.x C
code of pytrec_eval-terrier, topic by topic, every real run, every measure it computes.
(trec_eval 10 itself is the oracle of tests/measures/test_trec_eval10.py.)"""

import numpy as np
import pytest

from conftest import REAL_TRACKS, ingested, real_track_params
from reeval.measures import aggregate, build_grid, evaluate_grid, parse_measures
from reeval.measures.registry import PYTREC_EVAL

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is the oracle")

#: every per-topic family pytrec_eval computes, with its default parameters
ORACLE_FAMILIES = sorted(PYTREC_EVAL - {"num_q", "gm_map", "gm_bpref", "runid", "relstring"})
MEASURES = ORACLE_FAMILIES
# Per-topic values must equal trec_eval's bit for bit; measures through log2 may differ in
# the last bits elsewhere, as log2 comes from numpy here and from the C library in
# trec_eval (on the machines tested they are equal too).
TOLERANCE = {f: 1e-12 for f in ("ndcg", "ndcg_cut", "ndcg_rel", "Rndcg", "G", "binG")}


def qrels_dict(tables):
    q = tables.qrels.to_pandas()
    out: dict = {}
    for qid, docno, rel in zip(q.qid, q.docno, q.rel):
        out.setdefault(qid, {})[docno] = int(rel)
    return out


def run_dicts(tables):
    runs = tables.runs.to_pandas()
    for name, df in runs.groupby("run", sort=True):
        run: dict = {}
        for qid, docno, score in zip(df.qid, df.docno, df.score):
            run.setdefault(qid, {})[docno] = float(score)
        yield name, run


def compare_track(track, level):
    tables = ingested(track, precision="float32")
    measures = parse_measures(MEASURES, version=9)
    grid = build_grid(tables.judged, tables.depth, tables.qrels)
    scores = evaluate_grid(grid, measures, rel_level=level, version=9)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict(tables), ORACLE_FAMILIES,
                                               relevance_level=level)
    topic_index = {t: i for i, t in enumerate(scores.topics)}
    n_checked = 0
    for si, (name, run) in enumerate(run_dicts(tables)):
        assert grid.runs[si] == name
        oracle = evaluator.evaluate(run)
        answered = {scores.topics[i] for i in np.flatnonzero(scores.answered[si])}
        assert set(oracle) == answered, f"{name}: evaluated topics differ"
        for qid, values in oracle.items():
            for m in measures:
                ours = scores.values[m.name][si, topic_index[qid]]
                assert abs(ours - values[m.name]) <= TOLERANCE.get(m.family, 0.0), \
                    (track, name, qid, m.name, ours, values[m.name])
                n_checked += 1
    return n_checked


@pytest.mark.parametrize("track", real_track_params())
def test_topic_by_topic_parity(track):
    # the measures are checked at the track's official level and at level 1 (graded qrels)
    levels = {REAL_TRACKS[track], 1, 2} if track.startswith(("trec20", "trec2021")) else {1}
    for level in sorted(levels):
        assert compare_track(track, level) > 0


@pytest.mark.parametrize("track", ["trec2019-dl-passage", "trec-covid-round1"])
def test_run_means_add_topics_in_trec_eval_order_to_the_bit(track):
    """trec_eval's ``all`` value adds the per-topic values one after the other in sorted
    topic order and divides by the number of topics: ours is that double exactly."""
    tables = ingested(track, precision="float32")
    measures = parse_measures(["map", "P_20", "recip_rank", "Rprec", "bpref", "num_rel_ret"])
    scores = evaluate_grid(build_grid(tables.judged, tables.depth, tables.qrels), measures)
    ours = aggregate(scores, measures, complete=False).set_index("run")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict(tables), ORACLE_FAMILIES)
    for name, run in run_dicts(tables):
        oracle = evaluator.evaluate(run)
        for m in measures:
            total = 0.0
            for qid in sorted(oracle):
                total += oracle[qid][m.name]
            expected = total if m.aggregate == "sum" else total / len(oracle)
            assert ours.loc[name, m.name] == expected, (name, m.name)


def test_interpolated_precision_is_exact_with_many_topics(tmp_path):
    """iprec_at_recall over 3000 topics: the values are fractions such as 2/3, exactly
    trec_eval's (a running maximum over offset floats once rounded them by up to 1e-12)."""
    from conftest import write_lines
    from reeval.io.ingest import ingest_track
    topics = range(3000)
    qrels = write_lines(tmp_path / "qrels", [f"{t} 0 {d} 1" for t in topics for d in ("B", "C", "E")])
    run = write_lines(tmp_path / "run", [f"{t} Q0 {d} {i} {9 - i} r" for t in topics
                                         for i, d in enumerate("ABCDE")])  # relevant at 2, 3, 5
    tables = ingest_track("t", qrels, [run], precision="float32")
    measures = parse_measures(["iprec_at_recall"])
    grid = build_grid(tables.judged, tables.depth, tables.qrels)
    # trec_eval 9.x: level L needs (long)(3 L + 0.9) relevant documents: 1-2 up to 0.7
    # (3 * 0.7 + 0.9 is 2.9999999999999996 in doubles), all 3 from 0.8
    expected = [2 / 3] * 8 + [3 / 5] * 3
    # trec_eval 10: lround(3 L): 1-2 up to 0.8 (2.4 rounds to 2), all 3 from 0.9 (2.7)
    expected10 = [2 / 3] * 9 + [3 / 5] * 2
    names = [m.name for m in measures]
    for version, values in ((9, expected), (10, expected10)):
        scores = evaluate_grid(grid, measures, version=version)
        for ti in range(len(scores.topics)):
            assert [scores.values[name][0, ti] for name in names] == values
    oracle = pytrec_eval.RelevanceEvaluator(qrels_dict(tables), {"iprec_at_recall"})
    for qid, values in oracle.evaluate(next(run_dicts(tables))[1]).items():
        assert [values[name] for name in names] == expected


def test_complete_flag_matches_trec_eval_documentation():
    """trec_eval -c: average over every qrels topic; a missing topic contributes 0."""
    tables = ingested("trec2019-dl-passage", precision="float32")
    measures = parse_measures(["map", "P_20", "num_ret", "num_rel"])
    import pyarrow.compute as pc
    keep = pc.invert(pc.is_in(tables.judged["qid"], value_set=tables.qrels["qid"].unique()[:5]))
    dkeep = pc.invert(pc.is_in(tables.depth["qid"], value_set=tables.qrels["qid"].unique()[:5]))
    grid = build_grid(tables.judged.filter(keep), tables.depth.filter(dkeep), tables.qrels)
    scores = evaluate_grid(grid, measures)
    full = aggregate(scores, measures, complete=True)
    part = aggregate(scores, measures, complete=False)
    n_topics = len(scores.topics)
    for si in range(len(scores.runs)):
        ans = scores.answered[si]
        assert full.num_q[si] == n_topics and part.num_q[si] == ans.sum() == n_topics - 5
        ap = scores.values["map"][si]
        assert full["map"][si] == pytest.approx(ap[ans].sum() / n_topics, abs=1e-12)
        assert part["map"][si] == pytest.approx(ap[ans].mean(), abs=1e-12)
        # num_rel sums over every qrels topic with -c, only answered ones without
        assert full.num_rel[si] == scores.num_rel.sum()
        assert part.num_rel[si] == scores.num_rel[ans].sum()


def test_gm_map_is_trec_eval_geometric_mean():
    """trec_eval's gm_map: exp of the mean over topics of log(max(AP, 1e-5))."""
    tables = ingested("clef2015-ehealth-task2", precision="float32")
    measures = parse_measures(["gm_map"])
    grid = build_grid(tables.judged, tables.depth, tables.qrels)
    ours = aggregate(evaluate_grid(grid, measures), measures, complete=False).set_index("run")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict(tables), {"gm_map"})
    for name, run in run_dicts(tables):
        logs = [v["gm_map"] for v in evaluator.evaluate(run).values()]  # per-topic logs
        assert ours.loc[name, "gm_map"] == pytest.approx(np.exp(np.mean(logs)), rel=1e-12)
