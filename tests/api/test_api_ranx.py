"""ranx's habits: its metric names give ranx's values (hits@k, hit_rate@k, f1@k, r-precision
and the names reeval shared already), checked against ranx itself on shared tracks; and
``compare_runs`` takes ranx's arguments (``metrics``, ``stat_test``, ``max_p``,
``n_permutations``, ``random_seed``, ``rounding_digits``) and test names (``fisher``,
``student``, ``tukey``) with ranx's meaning.

ranx ranks tied scores in the order its sort leaves them (neither trec_eval's docno
order nor the lines' order), so the runs given to both tools here carry distinct scores in
trec_eval's order (score = minus the position): every value must then be ranx's; on tied
scores reeval keeps trec_eval's order (docs/api.md, "Coming from ranx")."""

import warnings

import pandas as pd
import pytest

from conftest import track_files
import reeval
from reeval.api.comparison import RANX_TESTS

ranx = pytest.importorskip("ranx", reason="ranx is the oracle of its own metric names")

#: ranx's metric names reeval reads, each computed by both tools
METRICS = ["hits@10", "hits", "hit_rate@10", "mrr", "precision@10", "recall@100", "f1@10", "f1", "r-precision",
           "mrr@10", "map@100", "map", "ndcg@10", "ndcg", "dcg@10"]
TRACKS = ["trec2020-dl-passage", "trec-covid-round5", "clef2015-ehealth-task2"]


def untied(track: str, n_runs: int):
    """(qrels frame, {run name: run frame}) of a shared track's first runs, each run's first
    line of a (topic, docno) kept and its scores replaced by minus its trec_eval position
    (score descending, docno descending): distinct scores, the same order in both tools."""
    qrels_path, paths = track_files(track)
    qrels = pd.read_csv(qrels_path, sep=r"\s+", header=None, usecols=[0, 2, 3], names=["query_id", "doc_id",
                        "relevance"], dtype={"query_id": str, "doc_id": str})
    runs = {}
    for path in paths[:n_runs]:
        run = pd.read_csv(path, sep=r"\s+", header=None, usecols=[0, 2, 4], names=["query_id", "doc_id", "score"],
                          dtype={"query_id": str, "doc_id": str}).drop_duplicates(["query_id", "doc_id"])
        run = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
        run["score"] = -run.groupby("query_id").cumcount().astype(float)
        runs[path.rsplit("/", 1)[-1]] = run
    return qrels, runs


def as_ranx(frame: pd.DataFrame, value: str):
    nested: dict = {}
    for qid, doc, v in frame[["query_id", "doc_id", value]].itertuples(index=False):
        nested.setdefault(qid, {})[doc] = v
    return nested


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("track", TRACKS)
def test_ranx_metric_names_give_ranx_values_on_shared_tracks(track):
    qrels, runs = untied(track, 2)
    ours = quiet(reeval.evaluate, qrels, runs, METRICS)
    their_qrels = ranx.Qrels(as_ranx(qrels, "relevance"))
    for name, run in runs.items():
        theirs = ranx.evaluate(their_qrels, ranx.Run(as_ranx(run, "score")), METRICS, make_comparable=True)
        for metric in METRICS:
            assert ours.loc[name, metric] == pytest.approx(theirs[metric], abs=1e-12), (name, metric)


def test_ranx_names_read_as_reeval_measures():
    """hit_rate@k is trec_eval's success_k and r-precision its Rprec (the same numbers, so
    trec_eval's names); hits@k and f1@k are measures of their own."""
    from reeval.measures import parse_measure

    assert [m.name for m in parse_measure("hit_rate@10")] == ["success_10"]
    assert [m.name for m in parse_measure("R-Precision")] == ["Rprec"]
    assert [m.name for m in parse_measure("hits@10")] == ["hits_10"]
    assert [m.name for m in parse_measure("f1@5")] == ["f1_5"]
    with pytest.raises(ValueError, match=r"ranx's hit_rate needs a cutoff \(hit_rate@k\)"):
        parse_measure("hit_rate")


def test_tied_scores_keep_trec_eval_order():
    """d1 (relevant) and d2 tie: trec_eval's order puts d2 (docno descending) first."""
    qrels = {"1": {"d1": 1, "d2": 0, "d3": 1}}
    run = {"1": {"d1": 1.0, "d2": 1.0, "d3": 0.5}}
    frame = quiet(reeval.evaluate, qrels, run, ["hits@1", "hit_rate@1", "f1@1", "f1@3", "hits"])
    assert list(frame.iloc[0]) == [0.0, 0.0, 0.0, pytest.approx(2 * 2 / (3 + 2)), 2.0]


def test_compare_runs_takes_ranx_arguments_with_ranx_meaning():
    qrels, runs = untied("trec2020-dl-passage", 3)
    ranxed = quiet(reeval.compare_runs, qrels, runs, metrics=["ndcg@10", "hits@10"], stat_test="student", max_p=0.05,
                   rounding_digits=3, correction=None)
    ours = quiet(reeval.compare_runs, qrels, runs, ["ndcg@10", "hits@10"], tests="t", correction=None)
    pd.testing.assert_frame_equal(pd.DataFrame(ranxed), pd.DataFrame(ours))
    assert ranxed.attrs["max_p"] == 0.05 and ranxed.attrs["decimals"] == 3
    assert ranxed.report() == ours.report(max_p=0.05, decimals=3)
    # student is ranx's paired t-test: its p-values, pair by pair
    names = list(runs)
    report = ranx.compare(ranx.Qrels(as_ranx(qrels, "relevance")),
                          [ranx.Run(as_ranx(runs[n], "score"), name=n) for n in names],
                          metrics=["ndcg@10", "hits@10"], stat_test="student", make_comparable=True)
    for row in ranxed.itertuples():
        theirs = report.comparisons[frozenset([row.run_a, row.run_b])][row.measure]["p_value"]
        assert row.p_value == pytest.approx(theirs, rel=1e-9), (row.run_a, row.run_b, row.measure)


def test_fisher_is_the_randomisation_test_and_tukey_is_said_to_block_on_topics():
    qrels, runs = untied("trec2020-dl-passage", 3)
    fisher = quiet(reeval.compare_runs, qrels, runs, metrics="map", stat_test="fisher", n_permutations=500,
                   random_seed=42)
    permutation = quiet(reeval.compare_runs, qrels, runs, "map", tests="permutation", resamples=500, seed=42)
    pd.testing.assert_frame_equal(pd.DataFrame(fisher), pd.DataFrame(permutation))
    assert RANX_TESTS == {"fisher": "permutation", "student": "t", "tukey": "tukey_hsd"}
    with pytest.warns(reeval.ReevalWarning, match="blocks on topics"):
        tukey = reeval.compare_runs(qrels, runs, metrics="map", stat_test="tukey")
    assert list(tukey["test"].unique()) == ["tukey_hsd"]


@pytest.mark.parametrize("options, message", [
    ({"measures": "map", "metrics": "map"}, r"give measures= or metrics= \(ranx's name\), not both"),
    ({"tests": "t", "stat_test": "student"}, r"give tests= or stat_test= \(ranx's name\), not both"),
    ({"seed": 1, "random_seed": 42}, r"give seed= or random_seed= \(ranx's name\), not both"),
    ({"max_p": 0}, r"max_p must be in \(0, 1\]; got 0"),
    ({"rounding_digits": -1}, r"rounding_digits must be at least 0; got -1"),
])
def test_ranx_arguments_given_twice_or_out_of_range_are_input_errors(options, message):
    with pytest.raises(reeval.InputError, match=message):
        reeval.compare_runs({"1": {"a": 1}}, {"x": {"1": {"a": 1.0}}, "y": {"1": {"a": 0.5}}}, **options)
