"""The textbook measures (fallout, CG@k, DCG@k, the lecture notes' DCG) on the worked
examples of ../shared/papers/ir-evaluation-lecture-notes.txt and
../shared/papers/offline-ir-metrics-tutorial.txt, with the numbers they print, and DCG@k
against trec_eval 10's dcg where trec_eval has it."""

import math
import subprocess

import numpy as np
import pytest

from conftest import write_lines
import reeval
from reeval.cli import score_lines
from reeval.measures import parse_measure


def ranked(folder, grades, name="run"):
    """A one-topic track in ``folder`` whose run ranks documents d1, d2, ... judged
    ``grades`` in that order."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp_path = folder
    qrels = write_lines(tmp_path / "qrels", [f"1 0 d{i + 1} {g}" for i, g in enumerate(grades)])
    run = write_lines(tmp_path / name, [f"1 Q0 d{i + 1} {i + 1} {100 - i} {name}" for i in range(len(grades))])
    return qrels, run


def values(qrels, run, spec, **kw):
    frame = reeval.evaluate(qrels, run, [spec], **kw)
    return frame.iloc[0].to_numpy(dtype=float)


def at_each_rank(qrels, run, family, n):
    return [float(values(qrels, run, f"{family}_{k}")[0]) for k in range(1, n + 1)]


# ---------------------------------------------------------------- the lecture notes

NOTES_GRADES = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]


def test_the_notes_dcg_example(tmp_path):
    """"DCG: 3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61" (rel_1 + sum rel_i / log2 i)."""
    qrels, run = ranked(tmp_path, NOTES_GRADES)
    dcg = at_each_rank(qrels, run, "dcg_jk", 10)
    assert [round(v, 2) for v in dcg] == [3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61]
    assert values(qrels, run, "dcg_jk")[0] == pytest.approx(dcg[-1], abs=1e-15)


def test_the_notes_ideal_dcg_and_ndcg(tmp_path):
    """The perfect ranking 3, 3, 3, 2, 2, 2, 1, 0, 0, 0: "ideal DCG values: 3, 6, 7.89, 8.89,
    9.75, 10.52, 10.88, 10.88, 10.88, 10" (the last is 10.88: a typo in the notes) and
    "NDCG values: 1, 0.83, 0.87, 0.76, 0.71, 0.69, 0.73, 0.8, 0.88, 0.88" (0.76: see below)."""
    qrels, run = ranked(tmp_path, NOTES_GRADES)
    ideal_qrels, ideal_run = ranked(tmp_path / "ideal", sorted(NOTES_GRADES, reverse=True))
    ideal = at_each_rank(ideal_qrels, ideal_run, "dcg_jk", 10)
    printed = [3, 6, 7.89, 8.89, 9.75, 10.52, 10.88, 10.88, 10.88, 10.88]
    # the notes add terms rounded to 2 decimals: 9.75 + 0.77 = 10.52 where the sum is 10.5279
    terms = np.round(np.diff(np.r_[0.0, ideal]), 2)
    assert list(np.round(np.cumsum(terms), 2)) == printed
    assert max(abs(a - b) for a, b in zip(ideal, printed)) < 0.01
    ndcg = np.array(at_each_rank(qrels, run, "dcg_jk", 10)) / np.array(ideal)
    # at rank 4 the notes print 0.76 where their own DCG and ideal DCG give 6.89 / 8.89 = 0.78
    assert round(6.89 / 8.89, 2) == 0.78
    assert [round(v, 2) for v in ndcg] == [1, 0.83, 0.87, 0.78, 0.71, 0.69, 0.73, 0.8, 0.88, 0.88]


# ---------------------------------------------------------------- the tutorial

def test_the_tutorial_cg_ignores_the_order(tmp_path):
    """Models A [5,2,4,0,1] and B [2,0,5,1,4]: "both the models get the same score CG@5=12"."""
    a = values(*ranked(tmp_path, [5, 2, 4, 0, 1]), "CG@5")[0]
    b = values(*ranked(tmp_path / "b", [2, 0, 5, 1, 4]), "CG@5")[0]
    assert a == b == 12


@pytest.mark.parametrize("grades, printed", [
    ([5, 2, 4, 0, 1], [5.00, 6.26, 8.26, 8.26, 8.65]),    # model A
    ([2, 0, 5, 1, 4], [2.00, 2.00, 4.50, 4.93, 6.48]),    # model B
    ([5, 4, 2, 1, 0], [5.00, 7.52, 8.52, 8.95, 8.95]),    # the ideal DCG@k of query B
])
def test_the_tutorial_dcg_at_k(tmp_path, grades, printed):
    """DCG@k = sum_{i<=k} rel_i / log2(i + 1), the tutorial's DCG@1 ... DCG@5 lines."""
    qrels, run = ranked(tmp_path, grades)
    assert [round(v, 2) for v in at_each_rank(qrels, run, "dcg_cut", 5)] == printed


def test_the_tutorial_ndcg(tmp_path):
    """"nDCG@3 for query A = 8.26 / 8.52 = 0.9694", "nDCG@5 for query B = 8.65 / 8.95 =
    0.9664": the tutorial divides the DCGs rounded to 2 decimals and truncates to 4; the
    exact values are ndcg_cut's, DCG@k over the ideal DCG@k of the judged grades."""
    qa, ra = ranked(tmp_path, [5, 2, 4])
    qb, rb = ranked(tmp_path / "b", [5, 2, 4, 0, 1])
    for (q, r, k, printed) in ((qa, ra, 3, 0.9694), (qb, rb, 5, 0.9664)):
        dcg, ndcg = values(q, r, f"DCG@{k}")[0], values(q, r, f"nDCG@{k}")[0]
        ideal = dcg / ndcg
        assert math.floor(round(dcg, 2) / round(ideal, 2) * 1e4) / 1e4 == printed
        assert ndcg == pytest.approx(dcg / ideal, rel=1e-15) and abs(ndcg - printed) < 1e-3


# ---------------------------------------------------------------- fallout

def test_fallout_counts_non_relevant_retrieved_over_non_relevant(tmp_path):
    """Topic 1 judges r1, r2 relevant and n1, n2, n3 not; the run retrieves n1, r1, u
    (unjudged), n2. Over the pool: 2 judged non-relevant retrieved of 3 (at k = 2: 1 of 3).
    With -N 100: 3 non-relevant retrieved (u counts) of 100 - 2 = 98."""
    qrels = write_lines(tmp_path / "qrels", ["1 0 r1 1", "1 0 r2 2", "1 0 n1 0", "1 0 n2 0", "1 0 n3 0"])
    run = write_lines(tmp_path / "run", [f"1 Q0 {d} {i + 1} {9 - i} t" for i, d in enumerate(["n1", "r1", "u", "n2"])])
    assert values(qrels, run, "fallout")[0] == pytest.approx(2 / 3)
    assert values(qrels, run, "fallout@2")[0] == pytest.approx(1 / 3)
    lines = list(score_lines(qrels, [run], ["fallout", "fallout.2"], num_docs=100, decimals=17))
    got = {line.split("\t")[0].strip(): float(line.split("\t")[2]) for line in lines}
    assert got == {"fallout": pytest.approx(3 / 98), "fallout_2": pytest.approx(1 / 98)}
    assert not parse_measure("fallout")[0].higher_is_better


# ---------------------------------------------------------------- trec_eval 10

def test_dcg_at_a_cutoff_past_the_ranking_is_trec_eval_s_dcg(tmp_path, trec_eval10):
    rng = np.random.default_rng(7)
    qrels = write_lines(tmp_path / "qrels", [f"{t} 0 D{d} {rng.integers(-1, 4)}" for t in range(1, 6)
                                             for d in range(30)])
    run = write_lines(tmp_path / "run", [f"{t} Q0 D{d} 0 {rng.random():.5f} t" for t in range(1, 6)
                                         for d in rng.permutation(40)[:25]])
    out = subprocess.run([str(trec_eval10.full), "-q", "-m", "dcg", str(qrels), str(run)], capture_output=True,
                         text=True, check=True).stdout
    theirs = {q: float(v) for m, q, v in (line.split() for line in out.splitlines()) if q != "all"}
    ours = reeval.evaluate(qrels, run, ["DCG@1000"], per_topic=True, complete=False)["DCG@1000"].droplevel(0)
    assert set(ours.index) == set(theirs)
    for q, v in theirs.items():
        assert ours[q] == pytest.approx(v, rel=1e-12, abs=1e-12), q
