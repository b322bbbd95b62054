"""reeval.compare_runs against scipy + statsmodels on pytrec_eval's per-topic values, its
frame input, its table, and reeval.recall_precision / plot_recall_precision."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

import reeval
from api_inputs import nested, read_qrels_frame, read_run_frame
from conftest import track_files
from reeval.io.trecio import run_names

QRELS = pd.DataFrame({"query_id": [q for q in "123456" for _ in range(3)],
                      "doc_id": [f"d{k}" for _ in range(6) for k in range(3)],
                      "relevance": [1, 0, 1] * 6})


def _runs(n_runs=4, seed=0):
    """Runs over 6 topics x 3 documents: run k ranks the relevant documents higher the smaller k."""
    rng = np.random.default_rng(seed)
    frames = []
    for k in range(n_runs):
        rel = np.tile([1.0, 0.0, 1.0], 6)
        frames.append(pd.DataFrame({"run": f"r{k}", "query_id": QRELS.query_id, "doc_id": QRELS.doc_id,
                                    "score": rel * (n_runs - k) * 0.3 + rng.random(18)}))
    return pd.concat(frames, ignore_index=True)


def test_t_and_holm_equal_scipy_and_statsmodels_on_pytrec_evals_per_topic_values():
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is the oracle")
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    qrels_path, paths = track_files("trec2019-dl-passage")
    paths = paths[:8]
    qrels = nested(read_qrels_frame(qrels_path), "relevance")
    runs = {name: nested(read_run_frame(p), "score") for name, p in zip(run_names(paths), paths)}
    measures = {"map": "map", "ndcg_cut_10": "ndcg_cut_10", "recip_rank": "recip_rank"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut", "recip_rank"}, relevance_level=2)
    topics = sorted(qrels)
    oracle = {name: evaluator.evaluate(run) for name, run in runs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        table = reeval.compare_runs(qrels, runs, list(measures), tests=("t",), correction="holm",
                                    relevance_level=2, precision="float32")
    names = list(runs)
    assert len(table) == 3 * 28
    for measure in measures:
        # a qrels topic a run did not answer scores 0, as trec_eval -c
        X = np.array([[oracle[r].get(t, {}).get(measure, 0.0) for t in topics] for r in names])
        ii, jj = np.triu_indices(len(names), 1)
        p = np.array([st.ttest_rel(X[i], X[j]).pvalue for i, j in zip(ii, jj)])
        rows = table[table.measure == measure]
        assert list(rows.run_a) == [names[i] for i in ii] and list(rows.run_b) == [names[j] for j in jj]
        np.testing.assert_allclose(rows.p_value, p, rtol=1e-9)
        np.testing.assert_allclose(rows.p_adjusted, multipletests(p, method="holm")[1], rtol=1e-9)
        np.testing.assert_allclose(rows.mean_a, X.mean(axis=1)[ii], atol=1e-12)
        np.testing.assert_allclose(rows.effect_size, [(X[i] - X[j]).mean() / (X[i] - X[j]).std(ddof=1)
                                                      for i, j in zip(ii, jj)], rtol=1e-9)


def test_the_per_topic_frame_gives_the_same_rows_as_the_inputs():
    runs = _runs()
    tests = ["t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey_hsd", "randomised_tukey_hsd"]
    direct = reeval.compare_runs(QRELS, runs, ["AP", "P@2"], tests=tests, resamples=300)
    by_topic = reeval.evaluate(QRELS, runs, ["AP", "P@2"], per_topic=True)
    framed = reeval.compare_runs(by_topic, tests=tests, resamples=300)
    pd.testing.assert_frame_equal(pd.DataFrame(framed), pd.DataFrame(direct))
    assert framed.attrs["measures"] == ["AP", "P@2"] and framed.attrs["runs"] == ["r0", "r1", "r2", "r3"]
    assert len(direct) == 2 * len(tests) * 6 and isinstance(direct[direct.test == "t"], reeval.api.Comparison)
    one = reeval.compare_runs(by_topic, runs=["r2", "r0"], measures="P@2")
    assert list(one.run_a) == ["r2"] and list(one.measure) == ["P@2"]


def test_the_randomised_hsd_rows_are_reeval_stats():
    from reeval.stats import randomised_tukey_hsd

    runs = _runs(5, seed=1)
    rows = reeval.compare_runs(QRELS, runs, "AP", tests="randomised_tukey_hsd", resamples=500, seed=4)
    by_topic = reeval.evaluate(QRELS, runs, "AP", per_topic=True)
    ref = randomised_tukey_hsd(by_topic, resamples=500, seed=4)
    np.testing.assert_array_equal(rows.p_value, ref.p_value)
    assert (rows.p_adjusted == rows.p_value).all() and rows.ci_low.isna().all()


def test_a_baseline_and_the_corrections():
    runs = _runs(4, seed=2)
    base = reeval.compare_runs(QRELS, runs, "AP", tests=["t"], baseline="r3", correction="bonferroni")
    assert list(base.run_a) == ["r0", "r1", "r2"] and set(base.run_b) == {"r3"}
    assert (base.p_adjusted == np.minimum(1, 3 * base.p_value)).all()
    none = reeval.compare_runs(QRELS, runs, "AP", correction="none")
    assert (none.p_adjusted == none.p_value).all()


def test_the_table_marks_the_runs_each_run_beats():
    runs = _runs(4, seed=3)
    rows = reeval.compare_runs(QRELS, runs, ["AP", "P@2"], tests=["t"], correction="none")
    text = rows.report(max_p=0.5, format="markdown")
    expected = {}
    for r in ["r0", "r1", "r2", "r3"]:
        for m in ["AP", "P@2"]:
            pairs = rows[(rows.measure == m) & (rows.p_adjusted < 0.5)]
            expected[r, m] = sorted("abcd"[int(b[1])] for a, b, ma, mb in zip(pairs.run_a, pairs.run_b, pairs.mean_a,
                                                                               pairs.mean_b) if a == r and ma > mb) + \
                sorted("abcd"[int(a[1])] for a, b, ma, mb in zip(pairs.run_a, pairs.run_b, pairs.mean_a, pairs.mean_b)
                       if b == r and mb > ma)
    lines = text.splitlines()
    assert lines[0] == "|  | run | AP | P@2 |" and "(two-sided paired t-test, uncorrected)" in text
    for line, r in zip(lines[2:6], ["r0", "r1", "r2", "r3"]):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] == r
        for cell, m in zip(cells[2:], ["AP", "P@2"]):
            marks = cell.split("<sup>")[1].removesuffix("</sup>") if "<sup>" in cell else ""
            assert sorted(marks) == sorted(expected[r, m]), (r, m, cell)
    assert any(expected.values())
    latex = rows.report(format="latex")
    assert latex.startswith("\\begin{table}") and "\\toprule" in latex and "\\bottomrule" in latex
    assert "P@2" in latex and "\\caption{Markers" in latex


def test_lower_is_better_measures_and_many_runs_in_the_table():
    from reeval.report.significance_table import beaten, run_markers

    assert run_markers(range(3)) == ["a", "b", "c"] and run_markers(range(30))[-1] == "30"
    rows = pd.DataFrame({"measure": ["ASL", "ASL"], "test": ["t", "t"], "run_a": ["x", "x"], "run_b": ["y", "z"],
                         "mean_a": [2.0, 2.0], "mean_b": [5.0, 1.0], "p_adjusted": [0.01, 0.01]})
    assert beaten(rows, ["x", "y", "z"], ["ASL"], {"ASL": False}, 0.05) == {
        ("x", "ASL"): ["y"], ("y", "ASL"): [], ("z", "ASL"): ["x"]}
    names = {f"run_{k}": None for k in range(28)}
    rng = np.random.default_rng(0)
    scores = pd.DataFrame({"AP": rng.random(28 * 4)},
                          index=pd.MultiIndex.from_product([list(names), ["1", "2", "3", "4"]],
                                                           names=["run", "query_id"]))
    table = reeval.compare_runs(scores, tests="tukey_hsd").report(format="latex")
    assert "run\\_27" in table and " & 28 & " not in table.split("\\midrule")[0]


def test_bad_options_are_input_errors():
    runs = _runs()
    for kwargs, message in (({"tests": ["anova"]}, "tests must be one of"),
                            ({"correction": "sidak"}, "correction must be one of"),
                            ({"baseline": "nope"}, "baseline 'nope'"),
                            ({"resamples": 0}, "resamples must be at least 1"),
                            ({"tests": "tukey_hsd", "alternative": "greater"}, "two-sided")):
        with pytest.raises(reeval.InputError, match=message):
            reeval.compare_runs(QRELS, runs, "AP", **kwargs)
    with pytest.raises(reeval.InputError, match="at least two runs"):
        reeval.compare_runs(QRELS, runs[runs.run == "r0"], "AP")
    with pytest.raises(reeval.InputError, match="per-topic measures"):
        reeval.compare_runs(QRELS, runs, "num_ret")
    table = reeval.compare_runs(QRELS, runs, "AP")
    with pytest.raises(reeval.InputError, match="format must be one of"):
        table.report(format="html")
    with pytest.raises(reeval.InputError, match="was not run"):
        table.report(test="sign")


def test_notes_of_the_inputs_are_kept_and_announced():
    runs = _runs()
    noisy = pd.concat([runs, runs.iloc[:1]])
    with pytest.warns(reeval.ReevalWarning, match="duplicate"):
        table = reeval.compare_runs(QRELS, noisy, "AP")
    assert any("duplicate" in note for note in table.attrs["notes"])


# ------------------------------------------------------------- recall-precision curves

def test_recall_precision_is_evaluates_iprec_at_recall():
    runs = _runs(3, seed=5)
    curves = reeval.recall_precision(QRELS, runs)
    assert list(curves.columns) == ["run", "recall", "precision"] and len(curves) == 33
    assert curves.recall.tolist()[:11] == pytest.approx([k / 10 for k in range(11)])
    wide = reeval.evaluate(QRELS, runs, ["iprec_at_recall"])
    for row in curves.itertuples():
        assert row.precision == wide.loc[row.run, f"iprec_at_recall_{row.recall:.2f}"]
    per_topic = reeval.recall_precision(QRELS, runs, per_topic=True)
    assert list(per_topic.columns) == ["run", "query_id", "recall", "precision"] and len(per_topic) == 3 * 6 * 11
    assert reeval.recall_precision(wide).equals(curves)


def test_recall_precision_matches_pytrec_eval_on_a_real_track():
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is the oracle")
    qrels_path, paths = track_files("trec2019-dl-passage")
    qrels = nested(read_qrels_frame(qrels_path), "relevance")
    runs = {name: nested(read_run_frame(p), "score") for name, p in zip(run_names(paths[:3]), paths[:3])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        curves = reeval.recall_precision(qrels, runs, relevance_level=2, precision="float32", complete=False)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}, relevance_level=2)
    for name, run in runs.items():
        res = evaluator.evaluate(run)
        for row in curves[curves.run == name].itertuples():
            key = f"iprec_at_recall_{row.recall:.2f}"
            assert row.precision == pytest.approx(np.mean([v[key] for v in res.values()]), abs=1e-12)


def test_the_recall_precision_figure(tmp_path):
    runs = _runs(3, seed=6)
    curves = reeval.recall_precision(QRELS, runs)
    fig = reeval.plot_recall_precision(curves, [tmp_path / "rp.png", tmp_path / "rp.pdf"], title="toy")
    pdf = (tmp_path / "rp.pdf").read_bytes()
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf          # TrueType fonts embedded
    assert (tmp_path / "rp.png").stat().st_size > 0
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["r0", "r1", "r2"]
    sizes = [t.get_fontsize() for t in [ax.xaxis.label, ax.yaxis.label, ax.title, *ax.get_xticklabels(),
                                         *ax.get_legend().get_texts()]]
    assert min(sizes) >= 7
    with pytest.raises(reeval.InputError, match="not in the curves"):
        reeval.plot_recall_precision(curves, runs=["nope"])


def test_the_recall_precision_figure_draws_run_names_with_dollars_as_named(tmp_path):
    """"$_$" made mathtext fail the figure and "$x^2$" was drawn as x squared: a run's name
    is drawn as it is named (the PDF holds each legend entry whole, dollars and all)."""
    from pdffigures import figure_facts

    names = ["$_$", "$x^2$", "a$b", "$x$ $"]
    runs = _runs(4, seed=6).replace({"run": {f"r{k}": name for k, name in enumerate(names)}})
    curves = reeval.recall_precision(QRELS, runs)
    fig = reeval.plot_recall_precision(curves, tmp_path / "rp.pdf", title="$_$ against $x^2$")
    texts = [text for text, _ in figure_facts(tmp_path / "rp.pdf")["texts"]]
    assert set(names) | {"$_$ against $x^2$"} <= set(texts), texts
    assert not any(t.get_parse_math() for t in fig.axes[0].get_legend().get_texts())
    with pytest.raises(reeval.InputError, match="without per_topic"):
        reeval.plot_recall_precision(reeval.recall_precision(QRELS, runs, per_topic=True))
