"""The API's DataFrames (schema, complete, per topic), its errors, its silence, compare,
prefer and read_results, and the lightness of ``import reeval``."""

import io
import contextlib
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import reeval
from reeval.cli import main

QRELS = pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 3 + ["q3"] * 2,
                      "doc_id": ["a", "b", "c", "d", "a", "e", "f", "g", "h"],
                      "relevance": [2, 0, 1, 0, 1, 1, 0, 0, 0]})
RUNS = pd.DataFrame({"run": ["bm25"] * 6 + ["dense"] * 4,
                     "query_id": ["q1", "q1", "q1", "q2", "q2", "q3", "q1", "q1", "q1", "q1"],
                     "doc_id": ["a", "b", "x", "e", "a", "g", "c", "a", "d", "b"],
                     "score": [3.0, 2.0, 1.0, 2.5, 1.5, 1.0, 4.0, 3.0, 2.0, 1.0]})


def quiet(function, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        return function(*args, **kw)


def test_one_row_per_run_in_order_columns_as_named_counts_int64():
    df = reeval.evaluate(QRELS, RUNS, ["AP", "P@2", "P.1,3", "num_rel_ret", "official"])
    assert df.index.name == "run" and list(df.index) == ["bm25", "dense"]
    assert list(df.columns[:5]) == ["AP", "P@2", "P_1", "P_3", "num_rel_ret"]
    assert "map" in df.columns and "P_1000" in df.columns and "num_q" in df.columns
    assert df["num_rel_ret"].dtype == np.int64 and df["num_q"].dtype == np.int64
    assert df["AP"].dtype == np.float64 and df.index.dtype == object
    # bm25: q1 AP = (1/1 + 0)/2 ... relevant a (rank 1), c unretrieved: (1 + 0) / 2; q2 e, a at 1, 2: 1; q3: 0
    assert df.loc["bm25", "AP"] == (0.5 + 1.0 + 0.0) / 3
    assert (df.loc["bm25", "num_q"], df.loc["dense", "num_q"]) == (3, 3)


def test_complete_false_averages_over_the_topics_a_run_answered():
    full = reeval.evaluate(QRELS, RUNS, ["map", "num_q"])
    with pytest.warns(reeval.ReevalWarning, match="dense lacks 2 of 3"):  # trec_eval 10.0 would stop
        answered = reeval.evaluate(QRELS, RUNS, ["map", "num_q"], complete=False)
    # dense answers only q1: AP (1/1 + 2/2) / 2 = 1; over the three qrels topics 1/3
    assert answered.loc["dense", "map"] == 1.0 and answered.loc["dense", "num_q"] == 1
    assert full.loc["dense", "map"] == 1.0 / 3 and full.loc["dense", "num_q"] == 3


def test_per_topic_rows_are_every_qrels_topic_or_the_answered_ones():
    df = reeval.evaluate(QRELS, RUNS, ["map", "num_ret", "gm_map", "ASL"], per_topic=True)
    assert df.index.names == ["run", "query_id"]
    assert list(df.index) == [(r, q) for r in ("bm25", "dense") for q in ("q1", "q2", "q3")]
    assert list(df.columns) == ["map", "num_ret", "ASL"]  # gm_map has no per-topic value
    assert df["num_ret"].dtype == np.int64 and df.loc[("dense", "q2"), "num_ret"] == 0
    assert np.isnan(df.loc[("bm25", "q3"), "ASL"])  # no relevant document
    with pytest.warns(reeval.ReevalWarning, match="-c counts them"):
        answered = reeval.evaluate(QRELS, RUNS, ["map"], per_topic=True, complete=False)
    assert list(answered.index) == [("bm25", "q1"), ("bm25", "q2"), ("bm25", "q3"), ("dense", "q1")]


def test_the_library_prints_nothing_and_notes_go_to_attrs_and_one_warning(capsys):
    runs = pd.concat([RUNS, pd.DataFrame({"run": ["dense"] * 2, "query_id": ["q9", "q1"], "doc_id": ["z", "y"],
                                          "score": [1.0, np.nan]})], ignore_index=True)
    with pytest.warns(reeval.ReevalWarning, match="attrs") as caught:
        df = reeval.evaluate(QRELS, runs, ["map"])
    assert len(caught) == 1
    assert capsys.readouterr() == ("", "")
    notes = df.attrs["notes"]
    assert len(notes) == 2 and "run 'dense'" in notes[0] and "NaN score" in notes[0]
    assert notes[1].startswith("read as trec_eval reads them") and "without judgments" in notes[1]
    assert "NaN score" in str(caught[0].message) and "without judgments" not in str(caught[0].message)
    dense = [row for row in df.attrs["ingest_report"] if row["run"] == "dense"][0]
    assert (dense["lines_read"], dense["kept"], dense["nan_score"], dense["unjudged_topic"]) == (6, 4, 1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reeval.evaluate(QRELS, RUNS, ["map"]).attrs["notes"] == []


@pytest.mark.parametrize("qrels, runs, message", [
    (QRELS, RUNS.assign(score=["x"] + [1.0] * 9), r"runs \(DataFrame\), row 0: expected a number in score; got 'x'"),
    (QRELS, RUNS.set_index(pd.Index(list("abcdefghij"))).assign(doc_id=[None] + ["a"] * 9),
     r"row 0 \(index 'a'\): expected an id .* in doc_id; got a missing value"),
    (QRELS.assign(relevance=[1.5] + [0] * 8), RUNS, r"qrels \(DataFrame\), row 0: expected an integer grade in relevance"),
    (QRELS.rename(columns={"doc_id": "document"}), RUNS, r"expected columns query_id, doc_id, relevance or qid, docno, rel"),
    ({"q1": [("a", 1)]}, RUNS, r"qrels \(dict\): topic 'q1' maps to list"),
    ({"q1": {"a": "high"}}, RUNS, r"topic 'q1', document 'a': expected an integer grade"),
    (QRELS, [object()], r"expected an object with attributes query_id, doc_id, score"),
    (QRELS, {"r": {"q1": {"a": 1.0}}, "": {"q1": {"a": 1.0}}}, r"run names must be non-empty strings"),
    (QRELS, RUNS.assign(query_id=[1.5] * 10), r"expected an id \(a string or an integer\) in query_id; got 1.5"),
    (QRELS, RUNS.assign(query_id="q7"), r"run 'bm25'.*nothing to evaluate.*6 on a topic without judgments"),
    (QRELS.iloc[:0], RUNS, r"qrels \(DataFrame\): no judgment to evaluate with"),
    (QRELS, 42, r"runs \(int\): expected a path, a DataFrame, a dict or an iterable"),
    ("/nonexistent/qrels", RUNS, r"/nonexistent/qrels: no such file"),
])
def test_bad_input_is_an_input_error_naming_source_and_row(qrels, runs, message):
    with pytest.raises(reeval.InputError, match=message):
        quiet(reeval.evaluate, qrels, runs, ["map"])


@pytest.mark.parametrize("options, message", [
    ({"measures": ["nope"]}, r"unknown measure 'nope'(; did you mean [^;]*)? \(`reeval measures` lists every name\)$"),
    ({"precision": "float16"}, r"precision must be one of float64, float32"),
    ({"depth": 0}, r"depth must be at least 1"),
    ({"relevance_level": "2"}, r"relevance_level must be an integer"),
    ({"alpha": -1}, r"alpha must be a number >= 0"),
])
def test_bad_options_are_input_errors_before_reading(options, message):
    with pytest.raises(reeval.InputError, match=message):
        reeval.evaluate("/nonexistent", "/nonexistent", **options)
    assert issubclass(reeval.InputError, ValueError)


def test_integer_ids_are_read_as_their_decimal_text():
    qrels = {1: {10: 1, 11: 0}}
    df = reeval.evaluate(qrels, pd.DataFrame({"qid": [1, 1], "docno": [11, 10], "score": [2, 1]}), ["map"],
                         per_topic=True)
    assert list(df.index) == [("run", "1")] and df["map"].iloc[0] == 0.5


def printed(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue().splitlines()


def write_track(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.itertuples(index=False)))
    paths = []
    for name, run in RUNS.groupby("run", sort=False):
        path = tmp_path / name
        path.write_text("".join(f"{q} Q0 {d} 0 {s!r} {name}\n" for q, d, s in zip(run.query_id, run.doc_id, run.score)))
        paths.append(str(path))
    return str(qrels), paths


def test_compare_returns_the_unrounded_values_reeval_compare_prints(tmp_path):
    qrels, (a, b) = write_track(tmp_path)
    lines = printed(["compare", "--decimals", "12", "-m", "map", "-m", "P_2", "--test", "t", "--test", "sign",
                     "--format", "pairs", "--correction", "none", qrels, a, b])[1:]
    df = reeval.compare(QRELS, RUNS[RUNS.run == "bm25"], RUNS[RUNS.run == "dense"], ["AP", "P@2"], tests=["t", "sign"])
    assert list(df.columns) == ["measure", "test", "mean_a", "mean_b", "diff", "p_value", "ci_method", "ci_low",
                                "ci_high"]
    assert list(df.measure) == ["AP", "AP", "P@2", "P@2"] and list(df.test) == ["t", "sign"] * 2
    assert list(df.ci_method) == ["t", "", "t", ""] and df.ci_low[[1, 3]].isna().all()
    for line, row in zip(lines, df.itertuples(index=False)):
        fields = line.split("\t")
        assert fields[4:7] + fields[11:13] == [f"{v:.12f}" for v in (row.mean_a, row.mean_b, row.diff, row.ci_low,
                                                                    row.ci_high)]
        assert fields[8] == fields[9] == f"{row.p_value:.12g}"
    same = reeval.compare(qrels, a, b, "map", tests="t")
    assert same.iloc[0, 2:].tolist() == df.iloc[0, 2:].tolist()
    runs = reeval.compare_runs(QRELS, RUNS, ["AP", "P@2"], tests=["t", "sign"], correction="none")
    assert list(runs.run_a.unique()) == ["bm25"] and runs[df.columns].equals(df)


def test_prefer_per_topic_and_means_are_reeval_prefers(tmp_path):
    qrels, paths = write_track(tmp_path)
    lines = printed(["prefer", "--decimals", "17", qrels, *paths])
    per_topic = reeval.prefer(QRELS, RUNS)
    means = reeval.prefer(QRELS, RUNS, per_topic=False)
    assert list(per_topic.columns) == ["run_i", "run_j", "query_id", "sgnLP", "rrLP"]
    assert per_topic.sgnLP.dtype == np.int64 and per_topic.rrLP.dtype == np.float64
    expected = [f"{r.run_i}\t{r.run_j}\t{r.query_id}\t{r.sgnLP}\t{r.rrLP:.17f}" for r in per_topic.itertuples()]
    expected += [f"{r.run_i}\t{r.run_j}\tall\t{r.sgnLP:.17f}\t{r.rrLP:.17f}" for r in means.itertuples()]
    assert lines == expected
    with pytest.raises(reeval.InputError, match="at least two runs"):
        reeval.prefer(QRELS, RUNS[RUNS.run == "bm25"])


def test_read_results_lists_tables_and_reads_them_typed_on_use(tmp_path):
    from reeval.io.tables import write_table

    track = tmp_path / "tracks" / "t1"
    write_table(pd.DataFrame({"run": ["NA", "b"], "map": [0.5, 0.25], "num_q": [3, 3]}),
                track / "measures_by_run.parquet", track / "measures_by_run.csv")
    write_table(pd.DataFrame({"track": ["t1"], "file": ["NA"], "kind": ["run"], "run": ["NA"], "lines_read": [4],
                              "kept": [None]}), track / "ingest_report.csv")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "x.csv").write_text("a\n1\n")
    results = reeval.read_results(tmp_path)
    assert sorted(results) == ["tracks/t1/ingest_report", "tracks/t1/measures_by_run"]
    assert results.path("tracks/t1/measures_by_run").suffix == ".parquet"
    report = results["tracks/t1/ingest_report"]
    assert report.run.tolist() == ["NA"] and str(report.kept.dtype) == "Int64" and report.kept.isna().all()
    one = reeval.read_results(track)
    assert one["measures_by_run"].run.tolist() == ["NA", "b"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(reeval.InputError, match="no table"):
        reeval.read_results(tmp_path / "empty")
    with pytest.raises(reeval.InputError, match="not a folder"):
        reeval.read_results(tmp_path / "missing")


def test_import_reeval_stays_light_and_the_api_names_are_lazy():
    code = ("import sys, reeval\nassert 'pandas' not in sys.modules and 'numpy' not in sys.modules\n"
            "assert 'evaluate' in dir(reeval)\nreeval.evaluate\nassert 'pandas' in sys.modules\nprint('ok')")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "ok"
    with pytest.raises(AttributeError):
        reeval.nothing_here


# ---- issue 27: lists of runs, one run where one is expected, no silent coercion ------------

def real_frames(n=3):
    """TREC-COVID round 2's qrels path and ``n`` of its runs, as paths and as DataFrames."""
    from api_inputs import read_run_frame
    from conftest import track_files

    qrels, runs = track_files("trec-covid-round2")
    return qrels, runs[:n], [read_run_frame(p) for p in runs[:n]]


def test_a_list_of_dataframes_is_runs_named_run0_run1():
    qrels, paths, frames = real_frames()
    by_path = quiet(reeval.evaluate, qrels, paths, ["map", "P@10"])
    listed = quiet(reeval.evaluate, qrels, frames, ["map", "P@10"])
    assert list(listed.index) == ["run0", "run1", "run2"]
    assert listed.to_numpy().tolist() == by_path.to_numpy().tolist()
    mixed = quiet(reeval.evaluate, qrels, [paths[0], frames[1].assign(run="named"), {"1": {"d": 1.0}}], ["map"])
    assert list(mixed.index) == [by_path.index[0], "named", "run2"]
    assert mixed.loc["named", "map"] == by_path["map"].iloc[1]
    with pytest.raises(reeval.InputError, match=r"^runs \(list\): items 0 and 1 are both named 'run0'"):
        reeval.evaluate(qrels, [frames[0], frames[1].assign(run="run0")], ["map"])


@pytest.mark.parametrize("run_a, message", [
    (lambda f: {"a": f[0], "b": f[1]}, r"^run 'run_a': a dict of named runs \('a', 'b'\); expected one run here$"),
    (lambda f: pd.concat([f[0].assign(run="a"), f[1].assign(run="b")]),
     r"^run 'run_a': a DataFrame holding 2 runs \(run column: 'a', 'b'\); expected one run here$"),
])
def test_compare_refuses_several_runs_as_one_and_names_no_topic_run_b(run_a, message):
    qrels, paths, frames = real_frames(2)
    with pytest.raises(reeval.InputError, match=message):
        reeval.compare(qrels, run_a(frames), frames[1], ["map"])
    got = quiet(reeval.compare, qrels, frames[0], frames[1], ["map"])
    want = quiet(reeval.compare, qrels, paths[0], paths[1], ["map"])
    assert got.drop(columns="measure").equals(want.drop(columns="measure"))


@pytest.mark.parametrize("change, message", [
    (lambda f: f.assign(score=f.score.astype(complex) + 1j),
     r"row 0: expected a real number in score; got np.complex128\("),
    (lambda f: f.assign(score=f.score.astype(object).where(f.index > 0, complex(1, 0))),
     r"row 0: expected a real number in score; got \(1\+0j\)"),
    (lambda f: f.assign(qid=f.query_id), r"columns query_id and qid name the same field; keep one"),
    (lambda f: f.rename(columns={"query_id": "qid"}).assign(docno=f.doc_id),
     r"columns doc_id and docno name the same field; keep one"),
    (lambda f: f.assign(doc_id=f.doc_id.where(f.index != 5, "doc\x00x")),
     r"row 5: expected an id without a NUL byte \(no file can hold one\) in doc_id; got 'doc\\x00x'"),
    (lambda f: f.assign(doc_id=[d.encode() for d in f.doc_id]),
     r"row 0: expected an id \(a string or an integer\) in doc_id; got b'.*' \(bytes: decode them first\)"),
])
def test_odd_values_in_a_real_run_are_refused_not_coerced(change, message):
    qrels, paths, frames = real_frames(1)
    with pytest.raises(reeval.InputError, match=message):
        reeval.evaluate(qrels, change(frames[0]), ["map"])


@pytest.mark.parametrize("change, message", [
    (lambda q: q.assign(relevance=q.relevance.astype(np.uint64) + np.uint64(2**63)),
     r"row 0: expected an integer grade in relevance; got np.uint64\(9223372036854775808\)"),
    (lambda q: q.assign(relevance=q.relevance.astype(complex)), r"row 0: expected an integer grade in relevance"),
    (lambda q: q.assign(relevance=q.relevance.astype(str)), r"row 0: expected an integer grade in relevance; got '"),
    (lambda q: q.assign(rel=q.relevance), r"columns relevance and rel name the same field; keep one"),
    (lambda q: q.assign(query_id=q.query_id.where(q.index != 2, "1\x00")), r"row 2: expected an id without a NUL"),
])
def test_odd_values_in_real_qrels_are_refused_not_coerced(change, message):
    from api_inputs import read_qrels_frame
    from conftest import track_files

    qrels, runs = track_files("trec-covid-round2")
    with pytest.raises(reeval.InputError, match=message):
        reeval.evaluate(change(read_qrels_frame(qrels)), runs[0], ["map"])


def test_integer_ids_of_every_width_are_their_decimal_text():
    qrels = pd.DataFrame({"query_id": np.array([2**64 - 1, 2**64 - 1], dtype=np.uint64), "doc_id": [1, 2],
                          "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": [str(2**64 - 1)] * 2, "doc_id": pd.array([2, 1], dtype="Int64"), "score": [2, 1]})
    df = reeval.evaluate(qrels, run, ["recip_rank"], per_topic=True)
    assert list(df.index) == [("run", "18446744073709551615")] and df["recip_rank"].iloc[0] == 0.5


def test_a_symlink_loop_or_an_unreadable_path_is_an_input_error_from_the_api(tmp_path):
    import os

    qrels, paths, frames = real_frames(1)
    os.symlink("loop", tmp_path / "loop")
    for runs in (str(tmp_path / "loop"), [paths[0], tmp_path / "loop"], {"a": tmp_path / "loop"}):
        with pytest.raises(reeval.InputError, match=r"loop: too many levels of symbolic links"):
            quiet(reeval.evaluate, qrels, runs, ["map"])
    with pytest.raises(reeval.InputError, match=r"loop: too many levels of symbolic links"):
        quiet(reeval.evaluate, tmp_path / "loop", paths, ["map"])
    with pytest.raises(reeval.InputError, match=r'"a\\x00b": a path cannot hold a NUL byte'):
        quiet(reeval.evaluate, qrels, "a\x00b", ["map"])
    with pytest.raises(reeval.InputError, match=r"^standard input given twice"):
        quiet(reeval.evaluate, qrels, ["-", "-"], ["map"])


@pytest.mark.parametrize("options, message", [
    ({"depth": 10**20}, r"^depth must be at most 9223372036854775807; got 100000000000000000000$"),
    ({"depth": np.uint64(2**63)}, r"^depth must be at most 9223372036854775807"),
    ({"relevance_level": -2**63 - 1}, r"^relevance_level must be at least -9223372036854775808"),
    ({"depth": 1.0}, r"^depth must be an integer; got 1.0$"),
])
def test_integer_options_are_bounded_as_on_the_command_line(options, message):
    with pytest.raises(reeval.InputError, match=message):
        reeval.evaluate("/nonexistent", "/nonexistent", **options)


def test_compare_options_are_bounded_as_on_the_command_line():
    for options, message in (({"seed": -1}, r"^seed must be at least 0"), ({"resamples": 10**10}, r"^resamples must "
                                                                             "be at most 1000000000")):
        with pytest.raises(reeval.InputError, match=message):
            reeval.compare("/nonexistent", "/a", "/b", **options)


def test_read_results_marks_the_tables_of_a_track_no_longer_configured(tmp_path):
    from reeval.io.tables import write_table

    for track in ("old", "new"):
        write_table(pd.DataFrame({"run": ["a"], "map": [0.5]}), tmp_path / "tracks" / track / "measures_by_run.csv")
    write_table(pd.DataFrame({"track": ["new"], "included": [True]}), tmp_path / "summary" / "inclusion.csv")
    results = reeval.read_results(tmp_path)
    assert sorted(results) == ["summary/inclusion", "tracks/new/measures_by_run", "tracks/old/measures_by_run"]
    assert list(results.stale) == ["tracks/old/measures_by_run"]
    assert "track 'old' is not in" in results.stale["tracks/old/measures_by_run"]
    assert "1 stale (see .stale)" in repr(results)
    with pytest.warns(reeval.ReevalWarning, match=r"tracks/old/measures_by_run is stale: track 'old'"):
        results["tracks/old/measures_by_run"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results["tracks/new/measures_by_run"]
    assert list(reeval.read_results(tmp_path / "tracks" / "old").stale) == ["measures_by_run"]
    assert reeval.read_results(tmp_path / "tracks" / "new").stale == {}
