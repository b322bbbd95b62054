"""The compiled kernels (src/reeval/io/_kernels.c) against the numpy/pyarrow paths they replace.

Every test that runs the compiled code compares it with the code that runs without it
(``compiled.ENABLED = False``), which the rest of the suite checks against trec_eval.
"""

import os
from contextlib import contextmanager

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import track_files, write_lines
from reeval.io import compiled
from reeval.io.matching import QrelsLookup, dedupe_and_match
from reeval.io.ingest import ingest_track
from reeval.io.textreader import _parse_run_fast
from reeval.io.trecio import _compiled_run, parse_run


def _parse_run_compiled(data: bytes):
    """The compiled reader's lines as a table, or None when it leaves the file to the general path."""
    lines = _compiled_run(data)
    return None if lines is None else lines.to_table()

needs_kernels = pytest.mark.skipif(compiled._kernels is None, reason="compiled kernels not built "
                                   "(pip install -e . with a C compiler builds them)")


def test_ci_builds_the_compiled_kernels():
    """CI installs with a C compiler: the fast path must be the one the suite exercises."""
    if not os.environ.get("CI"):
        pytest.skip("checked on CI, where the install must have built the kernels")
    assert compiled._kernels is not None and compiled.ENABLED


@contextmanager
def kernels(enabled: bool):
    """Run a block with the compiled kernels on or off (off: the numpy/pyarrow path)."""
    before = compiled.ENABLED
    compiled.ENABLED = enabled
    try:
        yield
    finally:
        compiled.ENABLED = before


# ---- dedupe_and_match ----

def _both_paths(qrels, topic, docno, rows, mask=(1 << 64) - 1):
    with kernels(False):
        ref = dedupe_and_match(QrelsLookup.build(qrels), topic, docno, rows)
    with kernels(True):
        got = dedupe_and_match(QrelsLookup.build(qrels, mask=mask), topic, docno, rows)
    return ref, got


pair_lists = st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["A", "B", "AB", "", "a" * 9, "a" * 17, "é"])),
                      max_size=40)


@needs_kernels
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=pair_lists, judged=pair_lists, mask=st.sampled_from([(1 << 64) - 1, 0, 0xF, 0xFFFF << 32]))
def test_dedupe_and_match_equals_the_numpy_path(run, judged, mask):
    """Same duplicates and qrels rows, also when (masked) hashes collide everywhere."""
    judged = sorted(set(judged))
    qrels = pa.table({"qid": [str(t) for t, _ in judged] or ["0"], "docno": [d for _, d in judged] or ["z"],
                      "rel": list(range(len(judged))) or [0]})
    lookup = QrelsLookup.build(qrels)
    codes = {q: i for i, q in enumerate(lookup.topics)}
    run = sorted((t, i, d) for i, (t, d) in enumerate(run) if str(t) in codes)
    docno = pa.array([d for _, _, d in reversed(run)], pa.string())  # rows point into a reversed array
    rows = np.arange(len(run))[::-1].copy()
    topic = np.array([codes[str(t)] for t, _, _ in run], dtype=np.int64)
    (dup_ref, q_ref), (dup, q) = _both_paths(qrels, topic, docno, rows, mask)
    assert dup.tolist() == dup_ref.tolist() and q.tolist() == q_ref.tolist()
    # and both are right: a duplicate repeats an earlier (topic, docno); a match is that pair
    seen = set()
    for k, (t, _, d) in enumerate(run):
        assert dup[k] == ((t, d) in seen)
        seen.add((t, d))
        expected = judged.index((t, d)) if (t, d) in judged and not dup[k] else -1
        assert q[k] == expected


@needs_kernels
def test_dedupe_match_rejects_bad_input():
    from reeval.io import _kernels
    lookup = QrelsLookup.build(pa.table({"qid": ["1", "2"], "docno": ["A", "B"], "rel": [1, 1]}))
    docno = pa.array(["A", "B"])
    with pytest.raises(ValueError, match="topics must not decrease"):
        dedupe_and_match(lookup, np.array([1, 0]), docno, np.array([0, 1]))
    with pytest.raises(ValueError, match="outside the table"):
        dedupe_and_match(lookup, np.array([0, 5]), docno, np.array([0, 1]))
    with pytest.raises(ValueError, match="not a string"):
        dedupe_and_match(lookup, np.array([0, 0]), docno, np.array([0, 2]))
    with pytest.raises(ValueError, match="outside the data|no valid topic"):
        _kernels.build_table(np.array([0], np.int64), np.array([0, 99], np.int64), b"A",
                             np.array([0, 8], np.int64), np.full(8, (1 << 64) - 1, np.uint64), (1 << 64) - 1)


# ---- the run reader ----

def _fast_paths(data: bytes):
    compiled_table = _parse_run_compiled(data)
    assert compiled_table is not None
    reference = _parse_run_fast(data)  # pyarrow's CSV reader
    if reference is None:  # mixed separators: the general line reader
        with kernels(False):
            reference = parse_run("x", data=data)[0].drop_columns(["line"])
    return compiled_table, reference


def _same(a: pa.Table, b: pa.Table):
    for name in ("qid", "docno", "tag"):
        assert a[name].to_pylist() == b[name].to_pylist(), name
    x, y = a["score"].to_numpy(), b["score"].to_numpy()
    assert x.view(np.uint64).tolist() == y.view(np.uint64).tolist()  # bit for bit (-0.0 too)


SCORES = ["1", "-0", "0.0", "+.5", "5.", "1e-3", "-2.5E+10", "6.5635", "0.1000000000000000055511151231257827",
          "123456789012345678901234567890", "9007199254740993", "1.7976931348623157e308", "4.9e-324",
          "2.2250738585072011e-308", "1e-400", "0000000000000000000000012.5", "3.14159265358979323846264338",
          "1e22", "1e23", "8.589973e9", "-1.234567890123456789e-5"]


@needs_kernels
@pytest.mark.parametrize("sep", [" ", "\t", "  ", " \t"])
def test_reader_equals_pyarrow_on_numbers_separators_and_line_ends(sep):
    lines = [sep.join(["q1", "Q0", f"d{i}", str(i), s, "tag"]) for i, s in enumerate(SCORES)]
    for text in ("\n".join(lines) + "\n", "\n".join(lines), "\r\n".join(lines) + "\r\n",
                 "\n".join(line + sep for line in lines)):
        got, ref = _fast_paths(text.encode())
        _same(got, ref)
        assert got["score"].to_pylist() == [float(s) for s in SCORES]  # Python's correctly rounded parse


@needs_kernels
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.text("ab01-._", min_size=1, max_size=20), st.text("xyz09", min_size=1, max_size=30),
                          st.floats(allow_nan=False, allow_infinity=False, width=64),
                          st.sampled_from(["{:.4f}", "{!r}", "{:.17g}", "{:e}", "{:.0f}"])), min_size=1, max_size=30))
def test_reader_equals_pyarrow_on_generated_runs(rows):
    text = "".join(f"{q} Q0 {d} {i} {fmt.format(s)} run\n" for i, (q, d, s, fmt) in enumerate(rows))
    got, ref = _fast_paths(text.encode())
    _same(got, ref)


REFUSED = [
    "1 Q0 A 1 1.0 t\n\n", "# c\n1 Q0 A 1 1.0 t\n", "1 Q0 A 1 1.0\n", "1 Q0 A 1 1.0 t x\n",
    "1 Q0 A 1 nan t\n", "1 Q0 A 1 inf t\n", "1 Q0 A 1 1e400 t\n", "1 Q0 A 1 0x1p3 t\n", "1 Q0 A 1 1.0.0 t\n",
    "1 Q0 A 1 1e t\n", "1 Q0 A 1 - t\n", "1 Q0 A 1 1.0 t\r1 Q0 B 2 0.5 t\n", "1 Q0 A\x0b 1 1.0 t\n",
    "1 Q0 d\xc3\xa9 1 1.0 t\n", "1 Q0 \xff 1 1.0 t\n", "1 Q0 A\x00 1 1.0 t\n", "1 Q0 A\x7f 1 1.0 t\n",
    "1 Q0 A 1 1.0 t\r\r\n", "\r\n", " \n",
    "1 Q0 A#1 1 1.0 t\n", "1 Q0 A 1 1.0 t#\n", "1 Q0 A\\B 1 1.0 t\n",  # '#', backslash: the general path's
]


@needs_kernels
@pytest.mark.parametrize("text", [""] + REFUSED)
def test_reader_leaves_other_files_to_the_general_path(text):
    assert _parse_run_compiled(text.encode("latin-1")) is None


@needs_kernels
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("text", REFUSED)
def test_reader_refuses_a_bad_line_whichever_way_it_reads_it(text, where):
    """A line followed by 64 bytes or more is classified 64 bytes at a time (SSE2), the
    last ones byte by byte: both must refuse the same lines."""
    clean = "7 Q0 doc-0000001 1 0.5 tag\n" * 4  # 108 bytes
    data = {"first": text + clean, "middle": clean + text + clean, "last": clean + text}[where]
    assert _parse_run_compiled(data.encode("latin-1")) is None
    assert _parse_run_compiled(clean.encode()) is not None


@needs_kernels
@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("sep", [" ", "\t "])
def test_reader_on_lines_around_the_64_byte_window(end, sep):
    """Lines of 50 to 100 bytes: the line end inside the window, on its edge (\\r in it,
    \\n not) and beyond it (read byte by byte)."""
    lines = [sep.join(["1", "Q0", "d" * n, str(n), "0.25", "t"]) for n in range(38, 90)]
    got, ref = _fast_paths((end.join(lines) + end).encode())
    _same(got, ref)
    assert got["docno"].to_pylist() == ["d" * n for n in range(38, 90)]


@needs_kernels
def test_mapped_and_compressed_files_read_alike(tmp_path):
    import gzip
    lines = [f"{q} Q0 D{i} {i} {1 / (i + 1):.6f} r" for q in (3, 1) for i in range(50)]
    plain = write_lines(tmp_path / "r.txt", lines)
    (tmp_path / "r.gz").write_bytes(gzip.compress(plain.read_bytes()))
    a, ca = parse_run(plain)
    b, cb = parse_run(tmp_path / "r.gz")
    assert a.equals(b) and ca == cb and ca.kept == 100


# ---- whole tracks ----

@needs_kernels
@pytest.mark.parametrize("track", ["trec2019-dl-passage", "trec2021-cast-doc", "clef2016-ehealth-task3-ir2"])
def test_real_tracks_ingest_identically_with_and_without_the_kernels(track):
    qrels, runs = track_files(track)
    with kernels(True):
        fast = ingest_track(track, qrels, runs, precision="float32", threads=1)
    with kernels(False):
        slow = ingest_track(track, qrels, runs, precision="float32", threads=1)
    for name in ("runs", "qrels", "judged", "depth"):
        assert getattr(fast, name).equals(getattr(slow, name)), name
    assert fast.report.equals(slow.report)


@needs_kernels
def test_synthetic_oddities_ingest_identically(tmp_path):
    """Ties, duplicates, unjudged topics, float32 ties, shallow runs: the synthetic campaign."""
    from reeval.synth.tracks import DEFAULT_CAMPAIGN, write_track as write_synthetic
    from reeval.workflow.tracks import resolve_runs
    for name, spec in DEFAULT_CAMPAIGN.items():
        write_synthetic(tmp_path / name, spec, seed=11)
        runs = resolve_runs(str(tmp_path / name / "runs"))
        tables = []
        for enabled in (True, False):
            with kernels(enabled):
                tables.append(ingest_track(name, tmp_path / name / "qrels.txt", runs, precision="float64",
                                           threads=2))
        for field in ("runs", "judged", "depth"):
            assert getattr(tables[0], field).equals(getattr(tables[1], field)), (name, field)
        assert tables[0].report.drop(columns="file").equals(tables[1].report.drop(columns="file"))


# ---- ties ordered by docno ----

@needs_kernels
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups=st.lists(st.lists(st.text("ab\x7fé", max_size=20), min_size=1, max_size=40), min_size=1, max_size=12),
       wide=st.booleans(), data=st.data())
def test_sort_ties_equals_the_numpy_order(groups, wide, data):
    """Blocks of equal (topic, key) sorted by bytes descending, stably (long blocks merge,
    short ones insert); a block ends where the topic or the key changes."""
    from reeval.io.strings import Strings
    values = [v for g in groups for v in g]
    docno = Strings.from_list(values)
    rows = np.arange(len(values), dtype=np.int64)[::-1].copy()  # rows point anywhere, here backwards
    sizes = [len(g) for g in groups]
    bounds = np.r_[0, np.cumsum(sizes)]
    group = np.repeat(np.arange(len(sizes)), sizes)
    # consecutive groups differ in topic or in key only (both must split a block)
    split_by_key = data.draw(st.lists(st.booleans(), min_size=len(sizes), max_size=len(sizes)))
    topic_of = np.cumsum([not k for k in split_by_key]) * 3 - 7
    key_of = np.cumsum(split_by_key) * -0.5
    topic = np.empty(len(values), np.int64)
    key = np.empty(len(values), np.float64 if wide else np.float32)
    topic[rows] = topic_of[group]  # row rows[k] is in group group[k]
    key[rows] = key_of[group]
    expected = rows[docno.take(rows).order(descending=True, groups=group)]
    got = rows.copy()
    tied = compiled._kernels.sort_ties(got, topic, key, docno.offsets, docno.data)
    assert got.tolist() == expected.tolist()
    assert tied == sum(n for n in sizes if n > 1)
    for g in range(len(sizes)):  # and it is the byte order, descending, ties in input order
        block = [values[r] for r in got[bounds[g]:bounds[g + 1]]]
        assert [v.encode() for v in block] == sorted((v.encode() for v in block), reverse=True)


@needs_kernels
def test_sort_ties_rejects_bad_rows_and_sizes():
    from reeval.io.strings import Strings
    docno = Strings.from_list(["a", "b"])
    topic, key = np.zeros(2, np.int64), np.zeros(2, np.float64)
    with pytest.raises(ValueError, match="rows must be strings"):
        compiled._kernels.sort_ties(np.array([0, 5], np.int64), topic, key, docno.offsets, docno.data)
    with pytest.raises(ValueError, match="one entry per row"):
        compiled._kernels.sort_ties(np.array([0, 1], np.int64), topic, np.zeros(2, np.int16), docno.offsets, docno.data)
    with pytest.raises(ValueError, match="one entry per row"):
        compiled._kernels.sort_ties(np.array([0, 1], np.int64), topic[:1], key[:1], docno.offsets, docno.data)


def test_the_environment_switches_the_kernels_off_for_a_whole_process():
    import subprocess
    import sys
    code = "import reeval.io.compiled as c; print(c.kernels() is None)"
    off = subprocess.run([sys.executable, "-c", code], env={**os.environ, "REEVAL_KERNELS": "0"},
                         capture_output=True, text=True, check=True).stdout.strip()
    on = subprocess.run([sys.executable, "-c", code], env={k: v for k, v in os.environ.items() if k != "REEVAL_KERNELS"},
                        capture_output=True, text=True, check=True).stdout.strip()
    assert off == "True" and on == str(compiled._kernels is None)
