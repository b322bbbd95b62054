"""Ingest: trec_eval ordering, duplicates, unjudged topics and the report on real tracks."""

import numpy as np
import pytest

from conftest import REAL_TRACKS, ingested, write_lines
from reeval.io.ingest import ingest_track, write_track, TRACK_FILES


@pytest.fixture
def small(tmp_path):
    q = write_lines(tmp_path / "qrels", ["1 0 A 1", "1 0 B 0", "1 0 C 2", "2 0 A 1", "2 0 A 0"])
    (tmp_path / "runs").mkdir()
    r1 = write_lines(tmp_path / "runs" / "input.r1.gz.txt", [
        "1 Q0 A 1 1.0 x", "1 Q0 B 2 1.0 x", "1 Q0 C 3 2.0 x",   # tie A/B: docno descending -> B first
        "1 Q0 A 4 0.5 x",                                      # duplicate of A, lower score
        "9 Q0 A 1 5 x",                                        # topic without judgments
        "2 Q0 Z 1 1.00000001 x", "2 Q0 Y 2 1.0 x",             # equal in float32 only
    ])
    return q, r1


def test_trec_eval_order_duplicates_and_unjudged(small):
    q, r1 = small
    t = ingest_track("t", q, [r1])
    runs = t.runs.to_pandas()
    assert runs[runs.qid == "1"].docno.tolist() == ["C", "B", "A"]
    assert runs[runs.qid == "1"].pos.tolist() == [1, 2, 3]
    assert runs[(runs.qid == "1") & (runs.docno == "A")].score.item() == 1.0  # first kept
    assert runs[runs.qid == "2"].docno.tolist() == ["Z", "Y"]
    row = t.report[t.report.kind == "run"].iloc[0]
    assert (row.lines_read, row.kept, row.duplicate, row.unjudged_topic) == (7, 5, 1, 1)
    qrow = t.report[t.report.kind == "qrels"].iloc[0]
    assert (qrow.lines_read, qrow.kept, qrow.duplicate) == (5, 4, 1)
    # the qrels duplicate keeps the last judgment (2 A 0)
    assert t.qrels.to_pandas().query("qid == '2'").rel.tolist() == [0]
    judged = t.judged.to_pandas()
    assert judged[judged.qid == "1"][["docno", "pos", "rel"]].values.tolist() == [["C", 1, 2], ["B", 2, 0], ["A", 3, 1]]
    assert t.depth.to_pandas().n_ret.tolist() == [3, 2]


def test_judged_is_dictionary_encoded_in_memory_and_plain_strings_on_disk(small, tmp_path):
    import pyarrow.parquet as pq
    from reeval.io.ingest import JUDGED_ENCODED, JUDGED_SCHEMA
    q, r1 = small
    r2 = write_lines(tmp_path / "runs" / "r2", ["2 Q0 A 1 1 y", "1 Q0 B 1 1 y"])
    t = ingest_track("t", q, [r1, r2])
    assert t.judged.schema == JUDGED_ENCODED and t.judged["run"].num_chunks == 2
    write_track(t, tmp_path / "out")
    on_disk = pq.read_table(tmp_path / "out" / "judged.parquet")
    assert on_disk.schema == JUDGED_SCHEMA
    assert on_disk.equals(t.judged.cast(JUDGED_SCHEMA))
    assert on_disk.to_pydict() == t.judged.to_pydict()
    assert on_disk.to_pandas().astype(str).equals(t.judged.to_pandas().astype(str))
    assert on_disk.column("run").to_pylist() == ["r1.gz.txt"] * 3 + ["r2"] * 2
    assert on_disk.column("qid").to_pylist() == ["1", "1", "1", "1", "2"]


def test_float32_ties(small):
    q, r1 = small
    runs = ingest_track("t", q, [r1], precision="float32").runs.to_pandas()
    assert runs[runs.qid == "2"].docno.tolist() == ["Z", "Y"]  # tie -> docno descending: Z > Y
    # make docno order disagree with score order to see the tie act
    r2 = write_lines(r1.parent / "r2", ["2 Q0 A 1 1.00000001 x", "2 Q0 B 2 1.0 x"])
    d64 = ingest_track("t", q, [r2]).runs.to_pandas().docno.tolist()
    d32 = ingest_track("t", q, [r2], precision="float32").runs.to_pandas().docno.tolist()
    assert d64 == ["A", "B"] and d32 == ["B", "A"]


def test_two_files_with_the_same_run_name_get_distinct_names(tmp_path, small):
    import gzip
    q, r1 = small
    for folder in ("exp1", "exp2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run.txt").write_bytes(r1.read_bytes())
    (tmp_path / "exp2" / "run.txt.gz").write_bytes(gzip.compress(r1.read_bytes()))
    files = [tmp_path / "exp1" / "run.txt", tmp_path / "exp2" / "run.txt", tmp_path / "exp2" / "run.txt.gz"]
    t = ingest_track("t", q, files)
    assert [row["run"] for row in t.report_rows[1:]] == ["exp1/run.txt", "exp2/run.txt", "run.txt.gz"]
    assert t.depth.to_pandas().groupby("run").n_ret.sum().nunique() == 1  # three copies of one run
    with pytest.raises(ValueError, match="given twice"):
        ingest_track("t", q, [r1, r1])


def test_write_track_writes_all_files(tmp_path, small):
    q, r1 = small
    write_track(ingest_track("t", q, [r1]), tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(TRACK_FILES)


def test_a_run_keeps_only_its_kept_lines_and_the_runs_file_is_their_table(tmp_path, small):
    """The memory of a track is its kept lines: a run's lines on unjudged topics and its
    duplicates are not held after judging (KeptLines), and runs.parquet, written one run at
    a time, is the in-memory runs table (docs/cluster.md: the largest simulated track)."""
    import pyarrow.parquet as pq
    q, r1 = small
    r2 = write_lines(tmp_path / "runs" / "r2", ["9 Q0 A 1 1 y", "2 Q0 A 1 1 y", "1 Q0 B 1 1 y", "9 Q0 B 2 0 y"])
    t = ingest_track("t", q, [r1, r2])
    for part in t.parts:
        assert not hasattr(part, "lines") and len(part.kept.docno) == len(part.kept.score) == part.row["kept"]
        assert len(part.kept.docno.data) == part.kept.docno.offsets[-1]  # no buffer of the whole file
    assert [p.kept.docno.tolist() for p in t.parts] == [["C", "B", "A", "Z", "Y"], ["B", "A"]]
    write_track(t, tmp_path / "out")
    on_disk = pq.read_table(tmp_path / "out" / "runs.parquet")
    assert on_disk.equals(t.runs) and pq.ParquetFile(tmp_path / "out" / "runs.parquet").num_row_groups == 2


def test_the_runs_file_writes_docnos_without_a_dictionary_and_reads_back_the_same(tmp_path, small):
    """A run's docnos rarely repeat: a dictionary page for them was built and given up in
    every row group (half of runs.parquet's writing time, issue 41 item 4). Only the repeated
    columns get one; the table read back is the same, types included."""
    import pyarrow.parquet as pq
    q, r1 = small
    t = ingest_track("t", q, [r1])
    write_track(t, tmp_path / "out")
    meta = pq.ParquetFile(tmp_path / "out" / "runs.parquet").metadata
    group = meta.row_group(0)
    with_dictionary = {group.column(i).path_in_schema: group.column(i).has_dictionary_page
                       for i in range(group.num_columns)}
    assert with_dictionary == {"run": True, "qid": True, "docno": False, "score": False, "tag": True, "pos": False}
    assert pq.read_table(tmp_path / "out" / "runs.parquet").equals(t.runs)


def test_write_table_parts_reads_back_as_the_whole_table(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from reeval.io.ingest import RUNS_SCHEMA
    from reeval.io.tables import write_table, write_table_parts
    parts = [pa.table({"run": ["a"] * 2, "qid": ["1", "2"], "docno": ["x", "y"], "score": [1.0, 0.5],
                       "tag": ["t", "t"], "pos": np.array([1, 1], dtype=np.int32)}).cast(RUNS_SCHEMA),
             RUNS_SCHEMA.empty_table(),
             pa.table({"run": ["b"], "qid": ["1"], "docno": ["z"], "score": [2.0], "tag": ["u"],
                       "pos": np.array([1], dtype=np.int32)}).cast(RUNS_SCHEMA)]
    write_table_parts(iter(parts), RUNS_SCHEMA, tmp_path / "parts.parquet")
    write_table(pa.concat_tables(parts), tmp_path / "whole.parquet")
    assert pq.read_table(tmp_path / "parts.parquet").equals(pq.read_table(tmp_path / "whole.parquet"))
    # DataFrame parts too (the lexiprecision pairs are written so), also with dictionary columns
    for dictionary in (None, ("run", "qid", "tag")):
        write_table_parts((p.to_pandas() for p in parts), RUNS_SCHEMA, tmp_path / "frames.parquet", dictionary)
        assert pq.read_table(tmp_path / "frames.parquet").equals(pq.read_table(tmp_path / "whole.parquet"))
    (tmp_path / "frames.parquet").unlink()
    write_table_parts(iter([]), RUNS_SCHEMA, tmp_path / "none.parquet")  # a track of no run
    assert pq.read_table(tmp_path / "none.parquet").equals(RUNS_SCHEMA.empty_table())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["none.parquet", "parts.parquet", "whole.parquet"]


@pytest.mark.parametrize("parts_encoded", [True, False], ids=["dictionary parts", "string parts"])
def test_parts_with_dictionary_columns_read_back_as_the_whole_table_of_plain_strings(tmp_path, parts_encoded):
    """Dictionary-encoded run, qid and tag (as ingest holds them) are written as they are;
    the file reads back with the registry's plain types, values and schema as
    write_table of the concatenation (issue 41 item 4)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from reeval.io.ingest import RUNS_DICTIONARY, RUNS_SCHEMA, RUNS_STATISTICS
    from reeval.io.tables import write_table, write_table_parts
    plain = [pa.table({"run": ["a"] * 3, "qid": ["1", "2", "1"], "docno": ["x", "y", "w"], "score": [1.0, 0.5, -0.0],
                       "tag": ["t", "t", "t"], "pos": np.array([1, 1, 2], dtype=np.int32)}).cast(RUNS_SCHEMA),
             RUNS_SCHEMA.empty_table(),
             pa.table({"run": ["b"], "qid": ["10"], "docno": ["z"], "score": [2.0], "tag": ["u\u00e9"],
                       "pos": np.array([1], dtype=np.int32)}).cast(RUNS_SCHEMA)]

    def encoded(part):
        return pa.table({c: part[c].dictionary_encode() if c in RUNS_DICTIONARY else part[c] for c in part.column_names})
    parts = [encoded(part) for part in plain] if parts_encoded else plain
    write_table_parts(iter(parts), RUNS_SCHEMA, tmp_path / "parts.parquet", dictionary=RUNS_DICTIONARY,
                      statistics=RUNS_STATISTICS)
    write_table(pa.concat_tables(plain), tmp_path / "whole.parquet")
    back = pq.read_table(tmp_path / "parts.parquet")
    assert back.schema.equals(RUNS_SCHEMA, check_metadata=True)
    assert back.equals(pq.read_table(tmp_path / "whole.parquet"), check_metadata=True)
    group = pq.ParquetFile(tmp_path / "parts.parquet").metadata.row_group(0)
    assert {group.column(i).path_in_schema: group.column(i).is_stats_set for i in range(group.num_columns)} == {
        "run": True, "qid": True, "docno": False, "score": True, "tag": True, "pos": True}
    write_table_parts(iter([]), RUNS_SCHEMA, tmp_path / "none.parquet", dictionary=RUNS_DICTIONARY)
    assert pq.read_table(tmp_path / "none.parquet").equals(RUNS_SCHEMA.empty_table(), check_metadata=True)


@pytest.mark.parametrize("track", sorted(REAL_TRACKS))
def test_ingest_report_adds_up_on_real_tracks(track):
    t = ingested(track)
    rep = t.report
    outcomes = ["kept", "blank", "comment", "malformed", "nan_score", "unjudged_topic", "duplicate"]
    assert (rep[outcomes].sum(axis=1) == rep.lines_read).all()
    assert rep[rep.kind == "run"].kept.sum() == t.runs.num_rows
    assert rep[rep.kind == "qrels"].kept.sum() == t.qrels.num_rows
    assert t.depth["n_ret"].to_numpy().sum() == t.runs.num_rows
    # every run topic is judged, positions are 1..n_ret
    runs = t.runs.to_pandas()
    assert set(runs.qid) <= set(t.qrels["qid"].to_pylist())
    assert (runs.groupby(["run", "qid"]).pos.max() == runs.groupby(["run", "qid"]).size()).all()


def test_real_track_oddities_are_counted():
    dl = ingested("trec2019-dl-passage").report
    assert dl[dl.kind == "run"].unjudged_topic.gt(0).all()  # 200 queries, 43 judged
    cast = ingested("trec2021-cast-doc").report
    assert cast[cast.kind == "run"].unjudged_topic.sum() > 0
    clef16 = ingested("clef2016-ehealth-task3-ir2").report.set_index("run")
    assert clef16.loc["CUNI_EN_Run2.txt", "tag"] == "Run3"  # tag differs from file name


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_topic_score_order_equals_lexsort(dtype):
    from reeval.io.ordering import topic_score_order
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(1, 3000))
        q = rng.integers(0, 60, n)
        k = (np.round(rng.standard_normal(n) * rng.choice([1, 1e-30, 1e30]), 2)).astype(dtype)
        k[rng.random(n) < 0.2] = 0.0
        k = k + dtype(0.0)
        assert np.array_equal(topic_score_order(q, k), np.lexsort((-k, q)))
        # rows already in order (recognized without sorting), and one swap away from it
        o = np.lexsort((-k, q))
        q, k = q[o], k[o]
        assert np.array_equal(topic_score_order(q, k), np.arange(n))
        if n > 1:
            i = int(rng.integers(0, n - 1))
            q[[i, i + 1]], k[[i, i + 1]] = q[[i + 1, i]], k[[i + 1, i]]
            assert np.array_equal(topic_score_order(q, k), np.lexsort((-k, q)))


def test_string_hash64_equal_strings_equal_hashes_across_layouts():
    import pyarrow as pa
    from reeval.io.matching import string_hash64
    rng = np.random.default_rng(3)
    words = ["", "a", "D00000059", "clueweb12-0108wb-15-11534", "x" * 8, "x" * 16, "x" * 17,
             "WAPO_b2e89334-33f9-11e1-825f-dabc29fd7071-1", "caf\u00e9", "a\\xff"]
    words += ["".join(rng.choice(list("abcXYZ019-_"), int(rng.integers(0, 40)))) for _ in range(500)]
    arr = pa.array(words)
    h = string_hash64(arr)
    by_word = {}
    for w, v in zip(words, h):
        assert by_word.setdefault(w, v) == v
    assert len(set(h.tolist())) == len(set(words))  # no collision among distinct strings here
    # a slice (non-zero offset), a large_string array and a chunked array hash the same
    assert np.array_equal(string_hash64(arr.slice(7, 100)), h[7:107])
    assert np.array_equal(string_hash64(arr.cast(pa.large_string())), h)
    assert np.array_equal(string_hash64(pa.chunked_array([arr[:3], arr[3:]])), h)
    assert not np.array_equal(string_hash64(arr, seed=1), h)
    assert string_hash64(pa.array([], pa.string())).shape == (0,)
    # a string and its zero-padded or truncated variants differ
    assert len(set(string_hash64(pa.array(["ab", "ab\x00", "a", "ab\x00\x00\x00\x00\x00\x00"])).tolist())) == 4


def test_duplicates_and_judged_lookup_are_exact_even_when_hashes_collide(monkeypatch):
    import pyarrow as pa
    from reeval.io import compiled
    from reeval.io.matching import QrelsLookup, exact_duplicates
    from reeval.io.strings import Strings
    monkeypatch.setattr(compiled, "ENABLED", False)  # the numpy path (test_kernels.py: the compiled one)
    docno = Strings.from_list(["A", "B", "A", "C", "B", "A"])
    topic = np.array([0, 0, 0, 0, 1, 1])
    rows = np.arange(6)
    # every row gets the same hash: only true (topic, docno) repeats are duplicates
    collide = np.zeros(6, dtype=np.uint64)
    assert exact_duplicates(collide, topic, docno, rows).tolist() == [False, False, True, False, False, False]
    qrels = pa.table({"qid": ["1", "1", "2"], "docno": ["A", "C", "B"], "rel": [1, 0, 2]})
    lookup = QrelsLookup.build(qrels)
    # a hash match whose topic or docno differs is rejected
    keys = lookup.keys.to_numpy()
    run_rows, qrels_rows = lookup.match(np.array([0, 1, 0]), keys[[0, 0, 1]], Strings.from_list(["A", "A", "X"]))
    assert run_rows.tolist() == [0] and qrels_rows.tolist() == [0]


def test_ingest_is_independent_of_thread_count_and_file_order(tmp_path):
    from reeval.synth.tracks import DEFAULT_CAMPAIGN, write_track as write_synthetic
    from reeval.workflow.tracks import resolve_runs
    write_synthetic(tmp_path, DEFAULT_CAMPAIGN["syn-mixed"], seed=7)
    runs = resolve_runs(str(tmp_path / "runs"))
    one = ingest_track("t", tmp_path / "qrels.txt", runs, threads=1)
    two = ingest_track("t", tmp_path / "qrels.txt", runs[::-1], threads=2)
    for name in ("runs", "judged", "depth", "qrels"):
        assert getattr(one, name).equals(getattr(two, name)), name


def test_build_grid_is_independent_of_row_order_and_run_order():
    import pyarrow as pa
    from reeval.measures import build_grid
    from conftest import ingested
    t = ingested("trec-covid-round2")
    names = sorted(set(t.depth["run"].to_pylist()))
    base = build_grid(t.judged, t.depth, t.qrels, runs=names, keep_docno=True)
    perm = np.random.default_rng(1).permutation(t.judged.num_rows)
    shuffled = build_grid(t.judged.take(pa.array(perm)), t.depth, t.qrels, runs=names, keep_docno=True)
    for field in ("g", "pos", "rel", "docno", "n_ret"):
        assert np.array_equal(getattr(base, field), getattr(shuffled, field)), field
    # another run order permutes the grid's rows and nothing else
    rev = build_grid(t.judged, t.depth, t.qrels, runs=names[::-1])
    assert np.array_equal(rev.n_ret, base.n_ret[::-1])
    S, T = base.shape
    key = lambda g, pos: (g * 100000 + pos)
    moved = (S - 1 - base.g // T) * T + base.g % T
    assert np.array_equal(np.sort(key(rev.g, rev.pos)), np.sort(key(moved, base.pos)))


def test_a_malformed_run_among_several_names_its_file_and_line(tmp_path):
    import pickle
    from reeval.io.trecio import TrecFormatError
    q = write_lines(tmp_path / "qrels", ["1 0 A 1"])
    good = write_lines(tmp_path / "good", ["1 Q0 A 1 1.0 g"])
    bad = write_lines(tmp_path / "bad", ["1 Q0 A 1 1.0 b", "1 Q0 B 2 x b"])
    with pytest.raises(TrecFormatError) as err:
        ingest_track("t", q, [good, bad], threads=2)  # read by two threads
    assert (err.value.path, err.value.line_number) == (str(bad), 2)
    again = pickle.loads(pickle.dumps(err.value))  # it crosses process boundaries (e.g. Snakemake)
    assert str(again) == str(err.value) and again.line_text == "1 Q0 B 2 x b"


def test_a_malformed_run_stops_the_files_not_yet_begun(tmp_path, monkeypatch):
    """The one worker reads the bad file first; it may begin the next file before the error
    reaches ingest_track, but that file is held until the pool shuts down, and by then
    every file not begun must have been cancelled: true in every interleaving."""
    import concurrent.futures
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import reeval.io.ingest as ingest
    from reeval.io.trecio import TrecFormatError
    q = write_lines(tmp_path / "qrels", ["1 0 A 1"])
    bad = write_lines(tmp_path / "a-bad", ["1 Q0 B 2 x b"])
    good = [write_lines(tmp_path / f"good{i}", ["1 Q0 A 1 1.0 g"]) for i in range(8)]
    started, shutting_down = [], threading.Event()
    real = ingest.load_run

    class Pool(ThreadPoolExecutor):
        def shutdown(self, *args, **kwargs):
            shutting_down.set()
            super().shutdown(*args, **kwargs)

    def load_run(name, *args, **kwargs):
        started.append(name)
        if name != "a-bad":
            shutting_down.wait()
        return real(name, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", Pool)  # ingest_track imports it when it runs
    monkeypatch.setattr(ingest, "load_run", load_run)
    try:
        with pytest.raises(TrecFormatError):
            ingest_track("t", q, [bad, *good], threads=1)
        begun = list(started)
    finally:
        shutting_down.set()  # never leave a worker waiting, whatever ingest_track did
    assert begun in (["a-bad"], ["a-bad", "good0"])


def test_bad_qrels_are_the_error_even_while_runs_are_being_read(tmp_path):
    """Runs are read while the qrels are (a regular qrels file): a bad qrels file is the
    error reported, whatever the runs hold and however far their threads got; a run
    thread waiting for the qrels gets their error and stops."""
    from reeval.io.trecio import TrecFormatError
    q = write_lines(tmp_path / "qrels", ["1 0 A 1", "1 0 B x"])
    runs = [write_lines(tmp_path / "bad", ["1 Q0 B 2 x b"]),
            *[write_lines(tmp_path / f"good{i}", ["1 Q0 A 1 1.0 g"]) for i in range(4)]]
    for threads in (1, 2):
        with pytest.raises(TrecFormatError) as err:
            ingest_track("t", q, runs, threads=threads)
        assert (err.value.path, err.value.line_number) == (str(q), 2)


def test_one_run_file_is_read_as_among_others_and_a_bad_qrels_file_is_still_the_error(tmp_path, small):
    """One run file is read after the qrels in the caller's thread (no thread pool): its
    part and report row are those it gets read beside another run by two threads, and
    with both files bad the qrels' error is the one reported, as with threads."""
    from reeval.io.trecio import TrecFormatError
    q, r1 = small
    other = write_lines(tmp_path / "runs" / "other", ["1 Q0 C 1 3.0 y", "2 Q0 A 1 1.0 y"])
    alone = ingest_track("t", q, [r1], threads=2)
    among = ingest_track("t", q, [r1, other], threads=2)
    [part] = alone.parts
    twin = next(p for p in among.parts if p.name == part.name)
    for field in ("topic", "pos", "qrow", "n_ret"):
        assert np.array_equal(getattr(part, field), getattr(twin, field)), field
    assert part.row == twin.row and alone.report.iloc[0].equals(among.report.iloc[0])  # the qrels
    bad_qrels = write_lines(tmp_path / "bad-qrels", ["1 0 A 1", "1 0 B x"])
    bad_run = write_lines(tmp_path / "bad-run", ["1 Q0 B 2 x b"])
    with pytest.raises(TrecFormatError) as err:
        ingest_track("t", bad_qrels, [bad_run])
    assert (err.value.path, err.value.line_number) == (str(bad_qrels), 2)
    with pytest.raises(TrecFormatError) as err:
        ingest_track("t", q, [bad_run])
    assert (err.value.path, err.value.line_number) == (str(bad_run), 1)


def test_a_qrels_stream_is_read_before_any_run(tmp_path, monkeypatch):
    """From standard input (or a pipe) the qrels are read to their end before a run file
    is opened, so a run naming the same stream never races them for its bytes."""
    import io
    import sys

    import reeval.io.ingest as ingest
    q = write_lines(tmp_path / "qrels", ["1 0 A 1"])
    run = write_lines(tmp_path / "run", ["1 Q0 A 1 1.0 g"])
    events = []
    real_qrels, real_run = ingest.read_qrels, ingest.read_run
    monkeypatch.setattr(ingest, "read_qrels", lambda *a, **k: (events.append("qrels"), real_qrels(*a, **k))[1])
    monkeypatch.setattr(ingest, "read_run", lambda *a, **k: (events.append("run"), real_run(*a, **k))[1])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(q.read_bytes())))
    tables = ingest_track("t", "-", [run], threads=2)
    assert events == ["qrels", "run"] and tables.parts[0].row["kept"] == 1


def test_without_the_runs_table_the_other_tables_are_the_same():
    from conftest import track_files
    qrels, runs = track_files("trec2019-dl-passage")  # unjudged topics, ties, input. names
    full = ingest_track("t", qrels, runs, precision="float32")
    lean = ingest_track("t", qrels, runs, precision="float32", keep_runs=False)
    assert lean.runs is None
    for name in ("judged", "depth", "qrels"):
        assert getattr(full, name).equals(getattr(lean, name)), name
    assert full.report.equals(lean.report)


def test_tune_memory_applies_on_glibc_unless_disabled(monkeypatch):
    import platform
    from numpy._core.multiarray import _set_madvise_hugepage
    from reeval.io.ingest import tune_memory
    before = _set_madvise_hugepage(True)
    try:
        monkeypatch.setenv("REEVAL_MALLOC", "default")
        assert tune_memory() is False
        assert _set_madvise_hugepage(True) is True  # untouched
        monkeypatch.delenv("REEVAL_MALLOC")
        applied = tune_memory()
        assert _set_madvise_hugepage(True) is False  # numpy no longer asks for huge pages
    finally:
        _set_madvise_hugepage(before)
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt is glibc's")
    assert applied is True


def test_grouped_cumsum_equals_a_cumsum_per_group():
    from reeval.measures import grouped_cumsum
    rng = np.random.default_rng(2)
    for n in (0, 1, 2, 50, 1000):
        for values in (rng.random(n) < 0.4, rng.integers(-3, 5, n)):
            starts = rng.random(n) < 0.1
            if n:
                starts[0] = bool(rng.integers(0, 2))  # row 0 starts a group either way
            bounds = np.r_[0, np.flatnonzero(starts[1:]) + 1, n] if n else np.array([0, 0])
            expected = np.concatenate([np.cumsum(values[a:b], dtype=np.int64) for a, b in zip(bounds[:-1], bounds[1:])]
                                      ) if n else np.zeros(0, np.int64)
            assert grouped_cumsum(values, starts).tolist() == expected.tolist()
