"""Reading TREC run and qrels files into Arrow tables, with every line accounted for.

A run line is ``qid iter docno rank score tag`` and a qrels line ``qid iter docno rel``,
fields separated by any ASCII whitespace (tabs, one or more spaces). The ``iter``
column (``Q0``, ``0``, ``q0``, a judging round such as ``0.5``) and the run's rank
column are ignored, as trec_eval ignores them.

Every physical line of a file ends in exactly one of the outcomes counted by
:class:`LineCounts`: kept, blank, comment (first non-blank character ``#``), malformed
(wrong number of fields, a score that is not a number, a relevance that is not an
integer) or non-finite score (``nan``, ``inf``). Malformed lines raise
:class:`TrecFormatError` naming the file, the 1-based line number and what was expected,
unless the caller asks to drop them (``on_malformed="drop"``), in which case they are
counted.

Bytes that are not valid UTF-8 are kept, written as ``\\xNN`` escapes (identically in
runs and qrels, so document ids still match), and the number of lines holding such
bytes is reported.
"""

from __future__ import annotations

import bz2
import gzip
import mmap
import os
import re
from dataclasses import dataclass, field, asdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from . import compiled

RUN_FIELDS = ("qid", "iter", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".Z")
_INT_PATTERN = r"^[+-]?[0-9]+$"
_NAME_PREFIX = re.compile(r"^(?:.*[-_.])?input\.")


class InputError(ValueError):
    """Bad input (a file, a pipe, an option): the message names the source and what was
    expected. Commands print it as one line and exit 1; rules log it and fail without a
    traceback."""


class TrecFormatError(InputError):
    """A line of a TREC file that does not have the expected form."""

    def __init__(self, path, line_number: int, expected: str, line_text: str):
        self.path = str(path)
        self.line_number = int(line_number)
        self.expected = expected
        self.line_text = line_text
        shown = line_text if len(line_text) <= 120 else line_text[:117] + "..."
        super().__init__(f"{self.path}:{self.line_number}: expected {expected}; got {shown!r}")

    def __reduce__(self):  # picklable: it can cross process boundaries (e.g. Snakemake's)
        return type(self), (self.path, self.line_number, self.expected, self.line_text)


@dataclass
class LineCounts:
    """Outcome of every physical line of one file; ``lines_read`` = the sum of the rest.

    Track-level drops (unjudged topic, duplicate document) are added by ingest.
    """

    lines_read: int = 0
    kept: int = 0
    blank: int = 0
    comment: int = 0
    malformed: int = 0
    nan_score: int = 0
    unjudged_topic: int = 0
    duplicate: int = 0
    non_utf8_lines: int = field(default=0)  # informative: not an outcome, lines keep

    OUTCOMES = ("kept", "blank", "comment", "malformed", "nan_score",
                "unjudged_topic", "duplicate")

    def as_dict(self) -> dict:
        return asdict(self)

    def balanced(self) -> bool:
        """True when the outcomes add up to the lines read."""
        return sum(getattr(self, k) for k in self.OUTCOMES) == self.lines_read


def read_bytes(path) -> bytes:
    """Whole file content, decompressed by magic number (gzip, bzip2) or plain.

    Unix ``compress`` (``.Z``) files are recognised and refused with a clear message.
    """
    path = Path(path)
    with open(path, "rb") as fh:
        head = fh.read(3)
    if head[:2] == b"\x1f\x8b":
        return gzip.decompress(path.read_bytes())  # one call: faster than streaming reads
    if head == b"BZh":
        with bz2.open(path, "rb") as fh:
            return fh.read()
    if head[:2] == b"\x1f\x9d":
        raise TrecFormatError(path, 1, "plain text, gzip or bzip2 (Unix compress .Z files "
                              "must be unpacked first, e.g. with `uncompress`)", "<binary>")
    return path.read_bytes()


def run_name_from_path(path) -> str:
    """Run name from a file name: compression suffix and NIST ``input.`` prefix removed.

    ``input.MU03rob01.gz`` -> ``MU03rob01``; ``dl-19-official-input.TUA1-1.gz`` ->
    ``TUA1-1``; ``CUNI_EN_Run.2.dat.gz`` -> ``CUNI_EN_Run.2.dat``.
    """
    name = Path(path).name
    for suffix in COMPRESSION_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    stripped = _NAME_PREFIX.sub("", name)
    return stripped or name


_LINE_PARSE = pacsv.ParseOptions(delimiter="\x1f", quote_char=False, escape_char=False,
                                 newlines_in_values=False, ignore_empty_lines=False)
_LINE_READ = pacsv.ReadOptions(column_names=["line"], block_size=1 << 24)
_LINE_CONVERT = pacsv.ConvertOptions(column_types={"line": pa.string()},
                                     strings_can_be_null=False, quoted_strings_can_be_null=False)


def decode_lines(data: bytes) -> tuple[pa.Array, int]:
    """Split file bytes into an Arrow string array of physical lines.

    Lines end at ``\\n``, ``\\r\\n`` or ``\\r``; a final line without newline counts,
    nothing after a final newline does. Valid UTF-8 goes through pyarrow's multi-threaded
    CSV reader (one column); otherwise invalid bytes become ``\\xNN`` escapes. Returns
    (lines, number of lines that held invalid bytes).
    """
    if not data:
        return pa.array([], type=pa.string()), 0
    try:
        data.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    if valid and b"\x1f" not in data:
        table = pacsv.read_csv(pa.BufferReader(data), read_options=_LINE_READ,
                               parse_options=_LINE_PARSE, convert_options=_LINE_CONVERT)
        return table.column("line").combine_chunks(), 0
    text = data.decode("utf-8", errors="backslashreplace")
    parts = re.split("\r\n|\r|\n", text)
    if parts and parts[-1] == "":
        parts.pop()
    n_bad = 0
    if not valid:
        good = re.split("\r\n|\r|\n", data.decode("utf-8", errors="ignore"))
        n_bad = sum(a != b for a, b in zip(parts, good))
    return pa.array(parts, type=pa.string()), n_bad


@dataclass
class _Tokenized:
    fields: dict  # name -> pa.Array (only lines with the right field count)
    line_numbers: np.ndarray  # 1-based, of the kept candidate lines
    counts: LineCounts


def _tokenize(path, data: bytes, names: tuple[str, ...], what: str,
              on_malformed: str) -> tuple[_Tokenized, pa.Array]:
    """Split each line on ASCII whitespace; classify blank, comment and wrong-width lines."""
    lines, n_bad = decode_lines(data)
    data_hint = "#" if b"#" in data else ""
    counts = LineCounts(lines_read=len(lines), non_utf8_lines=n_bad)
    trimmed = pc.ascii_trim_whitespace(lines)
    blank = (pc.binary_length(trimmed).to_numpy(zero_copy_only=False) == 0)
    tokens = pc.ascii_split_whitespace(trimmed)
    n_tok = pc.list_value_length(tokens).to_numpy(zero_copy_only=False)
    if "#" in data_hint:
        comment = pc.match_substring_regex(lines, r"^[ \t\v\f]*#").to_numpy(zero_copy_only=False)
    else:
        comment = np.zeros(len(lines), dtype=bool)
    wrong = ~blank & ~comment & (n_tok != len(names))
    counts.blank = int(blank.sum())
    counts.comment = int(comment.sum())
    if wrong.any():
        _malformed(path, lines, np.flatnonzero(wrong), f"{len(names)} whitespace-separated "
                   f"fields '{what}'", on_malformed)
        counts.malformed = int(wrong.sum())
    good_mask = ~(blank | comment | wrong)
    good = np.flatnonzero(good_mask)
    tok = tokens if good_mask.all() else tokens.filter(pa.array(good_mask))
    flat = pc.list_flatten(tok)
    width = len(names)
    fields = {name: flat.take(pa.array(np.arange(i, len(flat), width))) for i, name in enumerate(names)}
    return _Tokenized(fields=fields, line_numbers=good + 1, counts=counts), lines


def _malformed(path, lines: pa.Array, bad_idx: np.ndarray, expected: str, on_malformed: str):
    """Raise for the first malformed line unless malformed lines are to be dropped."""
    if on_malformed == "drop":
        return
    if on_malformed != "error":
        raise ValueError(f"on_malformed must be 'error' or 'drop', not {on_malformed!r}")
    i = int(bad_idx[0])
    raise TrecFormatError(path, i + 1, expected, lines[i].as_py())


def _check_pattern(path, lines, line_numbers, values: pa.Array, pattern: str, expected: str,
                   on_malformed: str) -> np.ndarray:
    """Boolean mask of values matching ``pattern``; raise (or allow drop) for the others."""
    ok = pc.match_substring_regex(values, pattern).to_numpy(zero_copy_only=False)
    if not ok.all():
        _malformed(path, lines, line_numbers[~ok] - 1, expected, on_malformed)
    return ok


_FLOAT_PATTERN = (r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                  r"|(?i:nan|inf|infinity))$")


_RUN_FAST_CONVERT = pacsv.ConvertOptions(
    column_types={"qid": pa.string(), "iter": pa.string(), "docno": pa.string(),
                  "rank": pa.string(), "score": pa.float64(), "tag": pa.string()},
    include_columns=["qid", "docno", "score", "tag"], strings_can_be_null=False,
    quoted_strings_can_be_null=False)
_RUN_FAST_READ = pacsv.ReadOptions(column_names=list(RUN_FIELDS), block_size=1 << 24)


def _parse_run_fast(data: bytes) -> pa.Table | None:
    """Read a clean run file with pyarrow's CSV reader, or return None.

    Clean: one separator throughout (single tabs, or single spaces), no comment
    character, no other whitespace; any line that is blank, has another number of
    fields, an unparsable score or invalid UTF-8 makes the reader fail, and the
    general line-by-line path (which names the line) takes over.
    """
    if not data or b"#" in data or b"\x0b" in data or b"\x0c" in data:
        return None
    has_tab, has_space = b"\t" in data, b" " in data
    if has_tab == has_space:
        return None
    delimiter = "\t" if has_tab else " "
    parse = pacsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                               newlines_in_values=False, ignore_empty_lines=False)
    try:
        return pacsv.read_csv(pa.BufferReader(data), read_options=_RUN_FAST_READ,
                              parse_options=parse, convert_options=_RUN_FAST_CONVERT)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _strings(offsets: np.ndarray, chars: np.ndarray, n: int) -> pa.Array:
    """An Arrow string array over the first n strings of (int32 offsets, bytes) buffers."""
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets[: n + 1]),
                                                  pa.py_buffer(chars[: offsets[n]])])


def _parse_run_compiled(data) -> pa.Table | None:
    """Read a clean run file with the compiled reader (``_kernels.parse_run``), or return None.

    Clean: every line six fields of printable ASCII separated by spaces or tabs, with a
    plain decimal score; anything else is left to the other readers. qid and tag come
    dictionary-encoded (values in first-seen order).
    """
    kernels = compiled.kernels()
    if kernels is None or not len(data) or len(data) >= 2**31 - 1:
        return None
    lines = (len(data) + 1) // 12 + 1  # a clean line has at least 11 characters and its newline
    offsets = [np.empty(lines + 1, dtype=np.int32) for _ in range(3)]
    chars = [np.empty(len(data) + 16, dtype=np.uint8) for _ in range(3)]
    codes = [np.empty(lines, dtype=np.int32) for _ in range(2)]
    score = np.empty(lines, dtype=np.float64)
    n, n_qids, n_tags = kernels.parse_run(data, offsets[0], chars[0], codes[0], offsets[1], chars[1],
                                          offsets[2], chars[2], codes[1], score)
    if n < 0:
        return None
    qid = pa.DictionaryArray.from_arrays(pa.array(codes[0][:n]), _strings(offsets[0], chars[0], n_qids))
    tag = pa.DictionaryArray.from_arrays(pa.array(codes[1][:n]), _strings(offsets[2], chars[2], n_tags))
    return pa.table({"qid": qid, "docno": _strings(offsets[1], chars[1], n), "score": pa.array(score[:n]),
                     "tag": tag})


def _parse_mapped_run(path) -> pa.Table | None:
    """The compiled reader on an uncompressed file mapped in memory (no copy), or None.

    None for compressed files, empty ones and files the compiled reader does not take.
    """
    if compiled.kernels() is None:
        return None
    with open(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return None
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            if mapped[:2] in (b"\x1f\x8b", b"BZ", b"\x1f\x9d"):
                return None
            return _parse_run_compiled(mapped)


def _finish_run(qid, docno, score: np.ndarray, tag, line_numbers: np.ndarray, counts: LineCounts):
    """Drop non-finite scores (counted) and assemble the run table."""
    finite = np.isfinite(score)
    counts.nan_score = int((~finite).sum())
    if not finite.all():
        keep = pa.array(finite)
        qid, docno, tag = pc.filter(qid, keep), pc.filter(docno, keep), pc.filter(tag, keep)
        score, line_numbers = score[finite], line_numbers[finite]
    table = pa.table({"qid": qid, "docno": docno, "score": pa.array(score), "tag": tag,
                      "line": pa.array(line_numbers.astype(np.int64, copy=False))})
    counts.kept = table.num_rows
    return table, counts


def parse_run(path, on_malformed: str = "error", data: bytes | None = None):
    """Parse one run file.

    Returns ``(table, counts)`` where table has columns qid, docno, score (float64),
    tag, line (1-based line number), in file order, for the kept lines; qid and tag
    are strings, dictionary-encoded when the compiled reader read the file. Scores that
    are NaN or infinite are dropped and counted as ``nan_score``.
    """
    fast = _parse_mapped_run(path) if data is None else None
    if fast is None:
        data = read_bytes(path) if data is None else data
        fast = _parse_run_compiled(data)
    if fast is None:
        fast = _parse_run_fast(data)
    if fast is not None:
        counts = LineCounts(lines_read=fast.num_rows)
        return _finish_run(fast["qid"].combine_chunks(), fast["docno"].combine_chunks(),
                           fast["score"].to_numpy(), fast["tag"].combine_chunks(),
                           np.arange(1, fast.num_rows + 1, dtype=np.int64), counts)
    tk, lines = _tokenize(path, data, RUN_FIELDS, "qid iter docno rank score tag", on_malformed)
    f, counts = tk.fields, tk.counts
    try:  # every score parses (Arrow accepts nan, inf, infinity, any case)
        score = pc.cast(f["score"], pa.float64()).to_numpy(zero_copy_only=False)
        ok = np.ones(len(score), dtype=bool)
    except pa.ArrowInvalid:
        ok = _check_pattern(path, lines, tk.line_numbers, f["score"], _FLOAT_PATTERN,
                            "a number in the score column (field 5)", on_malformed)
        score = np.full(len(ok), np.nan)
        score[ok] = pc.cast(pc.filter(f["score"], pa.array(ok)), pa.float64()).to_numpy()
    counts.malformed += int((~ok).sum())
    keep = pa.array(ok)
    return _finish_run(pc.filter(f["qid"], keep), pc.filter(f["docno"], keep), score[ok],
                       pc.filter(f["tag"], keep), tk.line_numbers[ok], counts)


def parse_qrels(path, on_malformed: str = "error", data: bytes | None = None):
    """Parse one qrels file.

    Returns ``(table, counts)`` where table has columns qid, docno, rel (int64, may be
    negative), line, in file order. The second column is ignored.
    """
    if data is None:
        data = read_bytes(path)
    tk, lines = _tokenize(path, data, QRELS_FIELDS, "qid iter docno rel", on_malformed)
    f, counts = tk.fields, tk.counts
    ok = _check_pattern(path, lines, tk.line_numbers, f["rel"], _INT_PATTERN,
                        "an integer relevance in field 4", on_malformed)
    counts.malformed += int((~ok).sum())
    keep = pa.array(ok)
    table = pa.table({
        "qid": pc.filter(f["qid"], keep),
        "docno": pc.filter(f["docno"], keep),
        "rel": pc.cast(pc.filter(f["rel"], keep), pa.int64()),
        "line": pa.array(tk.line_numbers[ok].astype(np.int64)),
    })
    counts.kept = table.num_rows
    return table, counts
