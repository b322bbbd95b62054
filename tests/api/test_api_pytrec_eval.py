"""reeval.evaluate(precision="float32") on pytrec_eval's own dicts equals pytrec_eval-terrier
(the trec_eval C code), topic by topic and in the run means, on real tracks."""

import warnings

import pytest

import reeval
from api_inputs import nested, read_qrels_frame, read_run_frame
from conftest import REAL_TRACKS, track_files
from reeval.io.trecio import run_names

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is the oracle")

MEASURES = ["map", "P_5", "P_20", "ndcg_cut_10", "ndcg", "recip_rank", "bpref", "Rprec", "recall_100",
            "num_rel_ret", "num_ret", "iprec_at_recall_0.50"]
ORACLE = {"map", "P", "ndcg_cut", "ndcg", "recip_rank", "bpref", "Rprec", "recall", "num_rel_ret", "num_ret",
          "iprec_at_recall"}
NDCG_TOLERANCE = 1e-12  # log2 from numpy here, from the C library there (equal on the machines tested)


@pytest.mark.parametrize("track, n_runs", [("trec-covid-round1", 8), ("trec2019-dl-passage", 5),
                                           ("trec2021-cast-doc", 5), ("clef2016-ehealth-task3-ir2", 6)])
def test_pytrec_eval_dicts_give_pytrec_evals_values(track, n_runs):
    qrels_path, paths = track_files(track)
    paths = paths[:n_runs]
    level = REAL_TRACKS[track]
    qrels = nested(read_qrels_frame(qrels_path), "relevance")
    runs = {name: nested(read_run_frame(p), "score") for name, p in zip(run_names(paths), paths)}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, ORACLE, relevance_level=level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        topics = reeval.evaluate(qrels, runs, MEASURES, per_topic=True, complete=False, precision="float32",
                                 relevance_level=level)
        means = reeval.evaluate(qrels, runs, MEASURES, complete=False, precision="float32", relevance_level=level)
    checked = 0
    for name, run in runs.items():
        oracle = evaluator.evaluate(run)
        ours = topics.loc[name]
        assert sorted(ours.index) == sorted(oracle), f"{name}: evaluated topics differ"
        for m in MEASURES:
            tolerance = NDCG_TOLERANCE if m.startswith("ndcg") else 0.0
            total = 0.0
            for qid in sorted(oracle):  # trec_eval adds topics in sorted order
                assert abs(ours.loc[qid, m] - oracle[qid][m]) <= tolerance, (track, name, qid, m)
                total += oracle[qid][m]
                checked += 1
            expected = total if m.startswith("num_") else total / len(oracle)
            assert abs(means.loc[name, m] - expected) <= tolerance, (track, name, m)
    assert checked > 0
