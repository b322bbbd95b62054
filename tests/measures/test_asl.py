"""ASL: hand-checked cases (the semantics in src/reeval/measures/asl.py) and properties."""

import random
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from conftest import write_lines
from reeval.io.ingest import ingest_track
from reeval.measures import aggregate, build_grid, evaluate_grid, parse_measures, per_document

ASL_MEASURES = parse_measures(["ASL", "ASL@g1", "ASL@g1-2", "ASL@g1-10", "map"])


def evaluate(tmp, qrels_lines, runs: dict, rel_level=1, unretrieved="after_last"):
    tmp = Path(tmp)
    q = write_lines(tmp / "qrels", qrels_lines)
    paths = [write_lines(tmp / name, lines) for name, lines in runs.items()]
    t = ingest_track("t", q, paths)
    grid = build_grid(t.judged, t.depth, t.qrels, runs=list(runs), keep_docno=True)
    scores = evaluate_grid(grid, ASL_MEASURES, rel_level=rel_level, unretrieved=unretrieved)
    return grid, scores


QRELS = ["1 0 A 1", "1 0 B 2", "1 0 C 1", "1 0 D 0", "2 0 E 1", "3 0 F 0"]
RUNS = {
    "r1": ["1 Q0 X 1 9 r", "1 Q0 A 2 8 r", "1 Q0 D 3 7 r", "1 Q0 B 4 6 r", "1 Q0 Y 5 5 r",
           "3 Q0 F 1 1 r"],
    "r2": [f"2 Q0 Z{i} {i} {10 - i} r" for i in range(7)],
}


def test_hand_checked_asl(tmp_path):
    grid, s = evaluate(tmp_path, QRELS, RUNS)
    v = s.values
    # topic 1, run r1: A at 2 (0 relevant above) -> 2; B at 4 (1 above) -> 3;
    # C unretrieved: irrel = 5 retrieved - 2 relevant = 3 -> 3 + 1 = 4
    assert v["ASL"][0, 0] == pytest.approx((2 + 3 + 4) / 3)
    assert v["ASL@g1"][0, 0] == 2 and v["ASL@g1-2"][0, 0] == 2.5
    assert v["ASL@g1-10"][0, 0] == pytest.approx(3.0)  # min(10, R=3) documents
    # topic 2 unanswered by r1: track depth of topic 2 is 7 (r2) -> 7 + 1
    assert v["ASL"][0, 1] == 8 and s.asl_unanswered[0, 1]
    # r2 answered topic 2 with 7 non-relevant: E gets 7 + 1
    assert v["ASL"][1, 1] == 8 and not s.asl_unanswered[1, 1]
    # topic 3 has no relevant document: undefined and skipped in the mean
    assert np.isnan(v["ASL"][0, 2])
    agg = aggregate(s, ASL_MEASURES).set_index("run")
    assert agg.loc["r1", "ASL"] == pytest.approx(((2 + 3 + 4) / 3 + 8) / 2)
    assert agg.loc["r1", "asl_num_q"] == 2
    assert s.n_unretrieved[0, 0] == 1 and s.n_unretrieved[0, 1] == 1


def test_equation3_variant_and_relevance_level(tmp_path):
    _, s = evaluate(tmp_path, QRELS, RUNS, unretrieved="eq3")
    assert s.values["ASL"][0, 0] == pytest.approx((2 + 3 + 3) / 3)
    assert s.values["ASL"][0, 1] == 7
    _, s2 = evaluate(tmp_path, QRELS, RUNS, rel_level=2)
    # only B is relevant at level 2: 3 non-relevant above it (X, A, D) -> 4
    assert s2.values["ASL"][0, 0] == 4 and s2.values["ASL@g1"][0, 0] == 4


def test_per_document_rows_agree_with_topic_means(tmp_path):
    grid, s = evaluate(tmp_path, QRELS, RUNS)
    docs = per_document(grid)
    r1t1 = docs[(docs.run == "r1") & (docs.qid == "1")].set_index("docno")
    assert r1t1.asl.to_dict() == {"A": 2.0, "B": 3.0, "C": 4.0}
    assert r1t1.loc["C", "retrieved"] == False and r1t1.loc["B", "precision"] == 0.5
    means = docs.groupby(["run", "qid"]).asl.mean()
    for (run, qid), m in means.items():
        ri, ti = grid.runs.index(run), grid.topics.index(qid)
        assert s.values["ASL"][ri, ti] == pytest.approx(m)


# ---------------------------------------------------------------- properties

topic_qrels = st.lists(st.tuples(st.integers(0, 11), st.integers(-1, 3)), min_size=1, max_size=10,
                       unique_by=lambda x: x[0])
run_docs = st.lists(st.tuples(st.integers(0, 19), st.integers(0, 5)), min_size=0, max_size=15,
                    unique_by=lambda x: x[0])


def qrels_lines(judgments):
    return [f"{q} 0 D{d:02d} {r}" for q, js in judgments.items() for d, r in js]


def run_lines(ranked):
    return [f"{q} Q0 D{d:02d} 0 {s} t" for q, docs in ranked.items() for d, s in docs]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judgments=st.dictionaries(st.integers(1, 3), topic_qrels, min_size=1, max_size=3))
def test_perfect_ranking_gives_ap_1_and_asl_1(judgments):
    rel = {q: [d for d, r in js if r >= 1] for q, js in judgments.items()}
    ranked = {q: [(d, 100 - i) for i, d in enumerate(docs)] for q, docs in rel.items() if docs}
    if not ranked:
        return
    with tempfile.TemporaryDirectory() as tmp:
        _, s = evaluate(tmp, qrels_lines(judgments), {"p": run_lines(ranked)})
    has_rel = s.num_rel > 0
    assert np.allclose(s.values["map"][0, has_rel], 1.0)
    assert np.allclose(s.values["ASL"][0, has_rel], 1.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judgments=st.dictionaries(st.integers(1, 3), topic_qrels, min_size=1, max_size=3),
       ranked=st.dictionaries(st.integers(1, 4), run_docs, min_size=1, max_size=4),
       seed=st.integers(0, 10_000))
def test_shuffling_lines_changes_nothing_and_an_unjudged_tail_doc_is_bounded(judgments, ranked, seed):
    lines = run_lines(ranked)
    shuffled = lines[:]
    random.Random(seed).shuffle(shuffled)
    # a new unjudged document below everything the run retrieved, for every topic
    tail = [f"{q} Q0 U99 0 -1 t" for q in ranked]
    with tempfile.TemporaryDirectory() as tmp:
        q = qrels_lines(judgments)
        _, a = evaluate(tmp, q, {"r": lines})
        _, b = evaluate(tmp, q, {"r": shuffled})
        _, c = evaluate(tmp, q, {"r": lines + tail})
    for name in a.values:
        assert np.array_equal(a.values[name], b.values[name], equal_nan=True)
    assert np.array_equal(a.values["map"], c.values["map"])
    diff = c.values["ASL"] - a.values["ASL"]
    ok = ~np.isnan(diff) & a.answered
    assert (diff[ok] >= 0).all() and (diff[ok] <= 1 + 1e-12).all()


# ------------------------------------------------ per-document table against a loop

NAMES = ["d", "D", "é", "Z", "d1", "a b"[:1], "Ω", "10", "9"]


def per_document_by_loop(grid, rel_level, unretrieved):
    """The per-document rows computed document by document, sorted by Python's own order."""
    S, T = grid.shape
    rel_level = max(rel_level, 0)
    rows = []
    for s, run in enumerate(grid.runs):
        for t, qid in enumerate(grid.topics):
            mine = [i for i in range(len(grid.g)) if grid.g[i] == s * T + t]
            found = {grid.docno[i]: i for i in mine if grid.rel[i] >= rel_level}
            rel_ret = len(found)
            if grid.n_ret[s, t] > 0:
                irrel = grid.n_ret[s, t] - rel_ret
            else:
                depth = grid.n_ret[:, t].max()
                irrel = depth if depth > 0 else grid.n_ret.max()
            for q in range(len(grid.qrels_topic)):
                if grid.qrels_topic[q] != t or grid.qrels_rel[q] < rel_level:
                    continue
                doc = grid.qrels_docno[q]
                if doc in found:
                    i = found[doc]
                    above = sum(1 for j in mine if grid.pos[j] < grid.pos[i] and grid.rel[j] >= rel_level)
                    pos = int(grid.pos[i])
                    rows.append((run, qid, doc, int(grid.qrels_rel[q]), pos, True, above, float(pos - above),
                                 (above + 1) / pos))
                else:
                    asl = irrel + 1.0 if unretrieved == "after_last" else float(irrel)
                    rows.append((run, qid, doc, int(grid.qrels_rel[q]), 0, False, rel_ret, asl, 0.0))
    return sorted(rows, key=lambda r: (r[0], r[1], r[7], r[2]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judgments=st.dictionaries(st.sampled_from(["1", "10", "9", "b"]),
                                 st.lists(st.tuples(st.sampled_from(NAMES), st.integers(-1, 3)), min_size=1,
                                          max_size=8, unique_by=lambda x: x[0]), min_size=1, max_size=3),
       runs=st.dictionaries(st.sampled_from(["r", "R", "ä", "r2"]),
                            st.lists(st.tuples(st.sampled_from(["1", "10", "9", "x"]),
                                               st.sampled_from(NAMES + ["U1", "U2"]), st.integers(0, 3)),
                                     min_size=1, max_size=12), min_size=1, max_size=3),
       rel_level=st.integers(-1, 2), unretrieved=st.sampled_from(["after_last", "eq3"]))
def test_the_per_document_table_holds_the_rows_a_loop_over_runs_topics_and_documents_gives(
        judgments, runs, rel_level, unretrieved):
    from reeval.measures import per_document_table

    qrels = [f"{q} 0 {d} {r}" for q, js in judgments.items() for d, r in js]
    lines = {run: [f"{q} Q0 {d} 0 {score} t" for q, d, score in docs] for run, docs in runs.items()}
    with tempfile.TemporaryDirectory() as tmp:
        grid, _ = evaluate(tmp, qrels, lines, rel_level=max(rel_level, 0), unretrieved=unretrieved)
    table = per_document_table(grid, rel_level, unretrieved)
    expected = per_document_by_loop(grid, rel_level, unretrieved)
    assert [tuple(r.values()) for r in table.to_pylist()] == expected
    assert table.column_names == ["run", "qid", "docno", "rel", "pos", "retrieved", "rel_above", "asl", "precision"]


def test_the_per_document_dataframe_is_the_table_read_by_pandas(tmp_path):
    from reeval.measures import per_document_table

    grid, _ = evaluate(tmp_path, QRELS, RUNS)
    assert per_document(grid).equals(per_document_table(grid).to_pandas())
