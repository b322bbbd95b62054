"""The compiled qrels reader (``_kernels.parse_qrels``) against the general reader.

``parse_qrels`` reads a clean qrels file (the rule: :func:`clean_rows`, an independent
model of it) or returns -1, and the caller then reads the file with
:func:`reeval.io.trecio.parse_qrels`. Every file the kernel reads must come out as the
general reader reads it; every file it refuses must break the rule.
"""

import gzip
import mmap
import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from conftest import REAL_TRACKS, SHARED_DATA
from reeval.io import compiled
from reeval.io.trecio import parse_qrels

pytestmark = pytest.mark.skipif(compiled.kernels() is None, reason="compiled kernels not built "
                                "(pip install -e . with a C compiler builds them)")


# ---- the kernel, the model of a clean file, the general reader ----

def buffers(data_len: int, lines: int):
    """Output buffers for data of data_len bytes and at most `lines` lines."""
    return (np.empty(lines + 1, np.int32), np.empty(data_len + 16, np.uint8), np.empty(lines, np.int32),
            np.empty(lines + 1, np.int32), np.empty(data_len + 16, np.uint8), np.empty(lines, np.int64))


def kernel_rows(data, lines=None):
    """(qid, docno, rel) per line as the kernel reads them (qids decoded), or None for -1."""
    lines = (len(data) + 1) // 8 + 1 if lines is None else lines  # a clean line: 7 bytes and \n
    qo, qd, qc, do, dd, rel = out = buffers(len(data), lines)
    n, n_qids = compiled.kernels().parse_qrels(data, *out)
    if n < 0:
        return None
    assert 0 <= n <= lines and 1 <= n_qids <= n and qo[0] == do[0] == 0
    assert 0 <= qc[:n].min() and qc[:n].max() == n_qids - 1
    qids = [bytes(qd[qo[k]:qo[k + 1]]).decode() for k in range(n_qids)]
    assert len(set(qids)) == n_qids
    assert list(dict.fromkeys(qc[:n].tolist())) == list(range(n_qids))  # first-seen order
    return [(qids[c], bytes(dd[do[k]:do[k + 1]]).decode(), int(rel[k])) for k, c in enumerate(qc[:n])]


_F = rb"[\x21\x22\x24-\x5b\x5d-\x7e]+"  # printable ASCII but '#' and the backslash
_LINE = re.compile(rb"[ \t]*(%s)[ \t]+%s[ \t]+(%s)[ \t]+([+-]?[0-9]{1,18})[ \t]*" % (_F, _F, _F))


def clean_rows(data: bytes):
    """The rule, as a model: the (qid, docno, rel) of each line of a clean file, else None.

    Clean: not empty, under 2^31 - 1 bytes; lines end in \\n or \\r\\n (the last one may end the
    data instead); each holds four fields of bytes 0x21-0x7E other than '#' and the
    backslash, separated by runs of spaces and tabs (also before and after), the fourth
    [+-]?[0-9]{1,18}.
    """
    if not data or len(data) >= 2**31 - 1:
        return None
    pieces = data.split(b"\n")
    ended = pieces[-1] == b""
    if ended:
        pieces.pop()
    rows = []
    for k, line in enumerate(pieces):
        if (ended or k + 1 < len(pieces)) and line.endswith(b"\r"):
            line = line[:-1]
        m = _LINE.fullmatch(line)
        if m is None or m[1].startswith(b"#"):
            return None
        rows.append((m[1].decode(), m[2].decode(), int(m[3])))
    return rows


def general_rows(data: bytes):
    """The qrels rows of the general line reader (the kernels switched off)."""
    before = compiled.ENABLED
    compiled.ENABLED = False
    try:
        table = parse_qrels("x", data=data)[0]
    finally:
        compiled.ENABLED = before
    return list(zip(table["qid"].to_pylist(), table["docno"].to_pylist(), table["rel"].to_pylist()))


def assert_reads_as_general(data: bytes):
    got = kernel_rows(data)
    assert got is not None, data[:200]
    assert got == clean_rows(data)
    assert got == general_rows(data)


# ---- real qrels ----

NOT_CLEAN: set = set()  # real qrels files the kernel leaves to the general reader: none


@pytest.mark.parametrize("track", sorted(REAL_TRACKS))
def test_real_qrels_read_as_the_general_reader_reads_them(track):
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real tracks not found at {SHARED_DATA} (../shared/data beside the project)")
    paths = sorted((SHARED_DATA / track / "qrels").glob("*"))
    if len(paths) != 1:
        pytest.skip(f"track {track} has no single qrels file under {SHARED_DATA}")
    data = gzip.decompress(paths[0].read_bytes()) if paths[0].suffix == ".gz" else paths[0].read_bytes()
    got = kernel_rows(data)
    if track in NOT_CLEAN:
        assert got is None and clean_rows(data) is None
    else:
        assert got is not None and got == general_rows(data)


# ---- generated clean files ----

CHARS = [chr(c) for c in range(0x21, 0x7F) if c not in (0x23, 0x5C)]  # no '#', no backslash
SEPS = st.text(" \t", min_size=1, max_size=3)
ROWS = st.lists(st.tuples(
    st.text(CHARS, min_size=1, max_size=12),                                # qid
    st.text(CHARS, min_size=1, max_size=6),                                 # iter, ignored
    st.text(CHARS, min_size=1, max_size=60),                                # docno
    st.sampled_from(["", "-", "+"]), st.text("0123456789", min_size=1, max_size=18),
    st.tuples(st.text(" \t", max_size=2), SEPS, SEPS, SEPS, st.text(" \t", max_size=2)),
    st.sampled_from(["\n", "\r\n"])), min_size=1, max_size=40)


def qrels_text(rows, final_newline=True) -> bytes:
    lines = [f"{lead}{q}{s1}{it}{s2}{d}{s3}{sign}{digits}{trail}{end}"
             for q, it, d, sign, digits, (lead, s1, s2, s3, trail), end in rows]
    if not final_newline:
        lines[-1] = lines[-1].rstrip("\r\n")
    return "".join(lines).encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=ROWS, final_newline=st.booleans())
def test_generated_clean_files_read_as_the_general_reader_reads_them(rows, final_newline):
    """Field widths 1-60, runs of spaces and tabs, CRLF, no final newline, signed and
    18-digit grades (with leading zeros too): lines of 8 to 100 bytes and more, inside
    and across the 64-byte window."""
    data = qrels_text(rows, final_newline)
    assert_reads_as_general(data)
    assert [r for _, _, r in kernel_rows(data)] == [int(s + d) for _, _, _, s, d, _, _ in rows]


@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("sep", [" ", "\t", "\t ", "  \t"])
@pytest.mark.parametrize("final_newline", [True, False])
def test_lines_around_the_64_byte_window(end, sep, final_newline):
    """Lines of 50 to 100 bytes: the line end inside the window, on its edge (\\r in it,
    \\n not) and beyond it (read byte by byte)."""
    lines = [sep.join(["q7", "0", "d" * n, str(n - 60)]) for n in range(38, 92)]
    data = (end.join(lines) + (end if final_newline else "")).encode()
    assert_reads_as_general(data)
    assert [d for _, d, _ in kernel_rows(data)] == [line.split(sep)[2] for line in lines]


def test_grades_at_the_limits():
    grades = ["0", "-0", "+0", "7", "-1", "+12", "000000000000000001", "999999999999999999",
              "-999999999999999999", "+999999999999999999", "-000000000000000000"]
    data = "".join(f"1 0 d{k} {g}\n" for k, g in enumerate(grades)).encode()
    assert [r for _, _, r in kernel_rows(data)] == [int(g) for g in grades]
    assert_reads_as_general(data)


def test_general_reader_reads_plus_signed_grades():
    """'+5' is 5, as trec_eval's atol reads it (pyarrow's cast alone refused the sign)."""
    assert general_rows(b"1 0 A +5\n") == [("1", "A", 5)]


def test_many_qids_in_no_order_grow_the_dictionary():
    rng = random.Random(5)
    lines = [f"t{rng.randrange(1500)} 0 D{k} {rng.randrange(-1, 4)}\n" for k in range(6000)]
    data = "".join(lines).encode()
    assert_reads_as_general(data)


def test_mapped_files_read_as_bytes(tmp_path):
    data = "".join(f"{q} Q0 doc{k} {k % 3}\n" for q in (3, 1, 2) for k in range(40)).encode()
    (tmp_path / "q").write_bytes(data)
    with open(tmp_path / "q", "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert kernel_rows(m) == kernel_rows(data) == general_rows(data)
    assert kernel_rows(bytearray(data)) == kernel_rows(memoryview(data)) == kernel_rows(data)


# ---- files that are not clean ----

DEFECTS = [  # {d}: a docno, short or long enough for a line of 64 bytes or more
    "1 0 {d}\n", "1 0 {d} 1 x\n", "1 {d}\n", "1 0 {d} 1 2 3\n",   # 3, 5 fields
    "\n", " \n", "\t\n", "\r\n",                                     # blank lines
    "# 0 {d} 1\n", "#1 0 {d} 1\n", "  # 0 {d} 1\n", "\t#x 0 {d} 1\r\n",  # comment lines
    "1 0 {d}#x 1\n", "1 0# {d} 1\n",                                # '#' inside a field
    "1 0 {d} 1234567890123456789\n", "1 0 {d} -0000000000000000001\n",  # 19 digits
    "1 0 {d} +1000000000000000000\n", "1 0 {d} 99999999999999999999999\n",
    "1 0 {d} 1.5\n", "1 0 {d} 1.\n", "1 0 {d} -\n", "1 0 {d} +\n", "1 0 {d} 1e3\n", "1 0 {d} 0x1\n",
    "1 0 {d} --1\n", "1 0 {d} +-1\n", "1 0 {d} 1-\n", "1 0 {d} one\n", "1 0 {d} 1:\n", "1 0 {d} /1\n",
    "1 0 {d}\xc3\xa9 1\n", "1 0 \xff{d} 1\n", "\xef\xbb\xbf1 0 {d} 1\n",  # non-ASCII
    "1 0 {d}\x00 1\n", "1 0 {d} 1\x00\n",                             # NUL
    "1 0 {d} 1\r", "1 0 {d} 1\r\r\n", "1 0 {d}\r1\n", "1\r0 {d} 1\n",  # lone CR
    "1 0 {d}\\ 1\n", "1 0\\ {d} 1\n", "1\\2 0 {d} 1\n", "1 0 {d} 1\\\n",  # backslash
    "1 0 {d}\x0b 1\n", "1 0 {d}\x0c 1\n", "1 0 {d}\x7f 1\n", "1 0 {d}\x1f 1\n",  # other bytes
]
CLEAN = "7 0 doc-0000001 1\n" * 4  # 72 bytes: a line before it is read 64 bytes at a time


@pytest.mark.parametrize("docno", ["A", "L" * 70], ids=["short", "long"])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("defect", DEFECTS)
def test_a_defect_anywhere_makes_the_file_not_clean(defect, where, docno):
    """A short line followed by 64 bytes or more is classified 64 bytes at a time (SSE2);
    a long one, or one in the last 64 bytes, byte by byte: both must refuse it."""
    text = defect.replace("{d}", docno)
    data = {"first": text + CLEAN, "middle": CLEAN + text + CLEAN, "last": CLEAN + text}[where]
    data = data.encode("latin-1")
    assert clean_rows(data) is None  # the model agrees
    assert kernel_rows(data) is None
    assert kernel_rows(CLEAN.encode()) is not None


@pytest.mark.parametrize("data", [b"", b"\n", b"\r\n", b" ", b"1 0 A 1\n\n", b"1 0 A", b"1 0 A 5\\"])
def test_nothing_to_read_or_short_files(data):
    assert kernel_rows(data) is None and clean_rows(data) is None


NASTY = [b" ", b"\t", b"\n", b"\r", b"\r\n", b"#", b"\\", b"\x00", b"\xff", b".", b"-", b"+", b"9", b"x", b":",
         b"1 0 d 5\n", b" 1 2 3 ", b"123456789"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=ROWS, final_newline=st.booleans(),
       edits=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 3), st.sampled_from(NASTY)),
                      min_size=1, max_size=3))
def test_mutated_files_are_read_when_clean_and_refused_otherwise(rows, final_newline, edits):
    """Clean files with bytes inserted, replaced or deleted: the kernel reads exactly the
    files the model calls clean, as the general reader does."""
    data = bytearray(qrels_text(rows, final_newline))
    for at, cut, insert in edits:
        k = int(at * len(data))
        data[k:k + cut] = insert
    data = bytes(data)
    expected = clean_rows(data)
    event("clean" if expected is not None else "not clean")
    got = kernel_rows(data)
    assert got == expected
    if got is not None:
        assert got == general_rows(data)


# ---- arguments ----

def test_output_buffers_too_small_raise():
    data = b"1 0 A 1\n2 0 B 0\n"
    kernels = compiled.kernels()
    for k in range(5):  # every buffer but rel, whose length sets the number of lines
        out = list(buffers(len(data), 3))
        out[k] = out[k][:-1]
        with pytest.raises(ValueError, match="output buffers too small"):
            kernels.parse_qrels(data, *out)
    with pytest.raises(TypeError):
        kernels.parse_qrels(data, bytes(16), *buffers(len(data), 3)[1:])  # not writable
    assert kernels.parse_qrels(data, *buffers(len(data), 2)) == (2, 2)
    assert kernels.parse_qrels(data, *buffers(len(data), 1)) == (-1, 1)  # more lines than rel holds
    assert kernels.parse_qrels(b"", *buffers(0, 0)) == (-1, 0)


def test_files_of_2_gib_or_more_are_not_read(tmp_path):
    """Sparse files mapped: nothing is read or written, only their sizes matter."""
    for size in (2**31 - 1, 2**31):
        paths = [tmp_path / name for name in ("data", "qid", "docno")]
        for path, n in zip(paths, (size, size + 16, size + 16)):
            with open(path, "wb") as fh:
                fh.truncate(n)
        with open(paths[0], "rb") as f0, open(paths[1], "r+b") as f1, open(paths[2], "r+b") as f2, \
                mmap.mmap(f0.fileno(), 0, access=mmap.ACCESS_READ) as data, \
                mmap.mmap(f1.fileno(), 0) as qd, mmap.mmap(f2.fileno(), 0) as dd:
            qo, _, qc, do, _, rel = buffers(0, 4)
            assert compiled.kernels().parse_qrels(data, qo, qd, qc, do, dd, rel)[0] == -1
