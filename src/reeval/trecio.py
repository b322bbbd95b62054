"""Reading TREC run and qrels files into Arrow tables, with every line accounted for.

A run line is ``qid iter docno rank score tag`` and a qrels line ``qid iter docno rel``,
fields separated by any ASCII whitespace (tabs, one or more spaces). The ``iter``
column (``Q0``, ``0``, ``q0``, a judging round such as ``0.5``) and the run's rank
column are ignored, as trec_eval ignores them. Inputs are read once each
(:mod:`reeval.sources`: files, pipes, FIFOs, stdin; plain, gzip, bzip2 or compress).

Every physical line of a file ends in exactly one of the outcomes counted by
:class:`LineCounts`: kept, blank, comment (first non-blank character ``#``), malformed
(wrong number of fields, a score that is not a number, a relevance that is not an
integer of int64's range, a NUL byte) or NaN score. Malformed lines raise
:class:`TrecFormatError` naming the file, the 1-based line number and what was expected,
unless the caller asks to drop them (``on_malformed="drop"``), in which case they are
counted. Scores ``inf``, ``-inf`` and numbers beyond the float64 range (``1e400``) are
kept as infinities, as trec_eval's ``atof`` reads them; NaN scores have no place in an
ordering and are dropped (trec_eval would sort them arbitrarily).

Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (trec_eval ends lines only at ``\\n``:
the lone CRs are counted so that callers can say so). A UTF-8 byte-order mark at the
start is removed and counted (trec_eval would read it into the first topic id). Bytes
that are not valid UTF-8 and backslashes are written in the one-to-one text form of
:mod:`reeval.bytetext` (``\\xNN``, ``\\\\``), identically in runs and qrels, and the lines
holding them are counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, asdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from . import compiled
from .bytetext import escape_text, needs_escape, show
from .errors import InputError
from .sources import BOM, read_source, source_from_bytes

__all__ = ["InputError", "TrecFormatError", "LineCounts", "parse_run", "parse_qrels",
           "decode_lines", "run_name_from_path", "run_names"]

RUN_FIELDS = ("qid", "iter", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".Z")
_INT_PATTERN = r"^[+-]?[0-9]+$"
_NAME_PREFIX = re.compile(r"^(?:.*[-_.])?input\.")


class TrecFormatError(InputError):
    """A line of a TREC file that does not have the expected form."""

    def __init__(self, path, line_number: int, expected: str, line_text: str):
        self.path = str(path)
        self.line_number = int(line_number)
        self.expected = expected
        self.line_text = line_text
        super().__init__(f"{self.path}:{self.line_number}: expected {expected}; got {show(line_text)}")

    def __reduce__(self):  # picklable: it can cross process boundaries (e.g. Snakemake's)
        return type(self), (self.path, self.line_number, self.expected, self.line_text)


@dataclass
class LineCounts:
    """Outcome of every physical line of one file; ``lines_read`` = the sum of the outcomes.

    Track-level drops (unjudged topic, duplicate document) are added by ingest. The
    fields after the outcomes describe the file and change no count: ``bom`` (1 when
    a byte-order mark was removed), ``lone_cr`` (line ends that are a CR alone),
    ``non_utf8_lines`` and ``backslash_lines`` (lines written in escaped text form),
    ``comment_as_data`` (qrels comment lines trec_eval would not skip: indented, or
    right after another comment line), ``hash_lines`` (other lines holding a ``#``,
    which trec_eval 10.0 miscounts) and ``tag`` (a run's tag on its last well-formed
    line, the ``runid`` trec_eval prints).
    """

    lines_read: int = 0
    kept: int = 0
    blank: int = 0
    comment: int = 0
    malformed: int = 0
    nan_score: int = 0
    unjudged_topic: int = 0
    duplicate: int = 0
    bom: int = 0
    lone_cr: int = 0
    non_utf8_lines: int = 0
    backslash_lines: int = 0
    comment_as_data: int = 0
    hash_lines: int = 0
    tag: str | None = field(default=None)

    OUTCOMES = ("kept", "blank", "comment", "malformed", "nan_score",
                "unjudged_topic", "duplicate")

    def as_dict(self) -> dict:
        return asdict(self)

    def balanced(self) -> bool:
        """True when the outcomes add up to the lines read."""
        return sum(getattr(self, k) for k in self.OUTCOMES) == self.lines_read


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


def run_names(paths) -> list[str]:
    """A distinct run name for each path, in the order given.

    A file's name is :func:`run_name_from_path`. A file whose name another one shares
    gets the shortest path suffix that tells it apart: first its run name under as
    few of its folders as needed (``exp1/run.txt`` beside ``exp2/run.txt``), then, for
    files of one folder whose run names are equal (``run.txt`` and ``run.txt.gz``), its
    whole file name under as few folders as needed. The same file given twice is an
    error.
    """
    paths = [str(p) for p in paths]
    seen: dict[str, str] = {}
    for p in paths:
        key = str(Path(p).resolve())
        if key in seen:
            raise InputError(f"{p}: given twice (also as {seen[key]}); give each run file once")
        seen[key] = p
    base = [run_name_from_path(p) for p in paths]
    names = list(base)
    group = [i for i, n in enumerate(base) if base.count(n) > 1]
    forms = {i: _name_forms(paths[i]) for i in group}
    for i in group:
        others = [forms[j] for j in group if base[j] == base[i] and j != i]
        names[i] = next((f for level, f in enumerate(forms[i])
                         if all(o[level] != f for o in others)), paths[i])
    if len(set(names)) != len(names):  # pragma: no cover - distinct files always differ
        raise InputError(f"run files {paths} cannot be given distinct names; rename them")
    return names


def _name_forms(path: str) -> list[str]:
    """Candidate names of a run file, shortest first: its run name under 0, 1, ...
    folders, then its file name under 0, 1, ... folders (every path has as many
    candidates: missing folders repeat the longest form)."""
    parts = Path(path).absolute().parts
    depth = 64
    def under(k, last):
        return "/".join([*parts[max(0, len(parts) - 1 - k):-1], last])
    return ([under(k, run_name_from_path(path)) for k in range(depth)] +
            [under(k, parts[-1]) for k in range(depth)])


_LINE_PARSE = pacsv.ParseOptions(delimiter="\x1f", quote_char=False, escape_char=False,
                                 newlines_in_values=False, ignore_empty_lines=False)
_LINE_READ = pacsv.ReadOptions(column_names=["line"], block_size=1 << 24)
_LINE_CONVERT = pacsv.ConvertOptions(column_types={"line": pa.string()}, null_values=[],
                                     strings_can_be_null=False, quoted_strings_can_be_null=False)
_LINE_END = re.compile("\r\n|\r|\n")
_SURROGATE = re.compile("[\udc80-\udcff]")


@dataclass
class LineInfo:
    """What splitting a file into lines found: lines holding bytes that are not UTF-8,
    lines holding a backslash (both in escaped text form), line ends that are a lone CR."""

    non_utf8_lines: int = 0
    backslash_lines: int = 0
    lone_cr: int = 0


def decode_lines(data) -> tuple[pa.Array, LineInfo]:
    r"""Split plain text bytes into an Arrow string array of physical lines.

    Lines end at ``\n``, ``\r\n`` or ``\r``; a final line without newline counts,
    nothing after a final newline does. Text that is valid UTF-8 without a backslash
    goes through pyarrow's multi-threaded CSV reader (one column, as is); otherwise
    through :func:`reeval.bytetext.escape_text` (invalid bytes as ``\xNN``, backslashes
    doubled). Returns (lines, :class:`LineInfo`).
    """
    info = LineInfo()
    if not len(data):
        return pa.array([], type=pa.string()), info
    if data.find(b"\r") >= 0:
        info.lone_cr = lone_cr_count(data)
    if not needs_escape(data) and data.find(b"\x1f") < 0 and data[:3] != BOM:  # Arrow would skip a BOM
        table = pacsv.read_csv(pa.BufferReader(pa.py_buffer(data)), read_options=_LINE_READ,
                               parse_options=_LINE_PARSE, convert_options=_LINE_CONVERT)
        return table.column("line").combine_chunks(), info
    raw = bytes(data)
    parts = _split_lines(escape_text(raw))
    if b"\\" in raw:
        info.backslash_lines = sum("\\" in p for p in _split_lines(raw.decode("utf-8", "surrogateescape")))
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        plain = _split_lines(raw.decode("utf-8", "surrogateescape"))
        info.non_utf8_lines = sum(_SURROGATE.search(p) is not None for p in plain)
    return pa.array(parts, type=pa.string()), info


def _split_lines(text: str) -> list[str]:
    parts = _LINE_END.split(text)
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def lone_cr_count(data) -> int:
    """Number of CR bytes not followed by LF (line ends trec_eval does not see)."""
    a = np.frombuffer(data, dtype=np.uint8)
    cr = a == 13
    if not cr.any():
        return 0
    lone = int((cr[:-1] & (a[1:] != 10)).sum())
    return lone + int(cr[-1])


@dataclass
class _Tokenized:
    fields: dict  # name -> pa.Array (only lines with the right field count)
    line_numbers: np.ndarray  # 1-based, of the kept candidate lines
    counts: LineCounts


def _tokenize(path, data, names: tuple[str, ...], what: str, on_malformed: str,
              counts: LineCounts) -> tuple[_Tokenized, pa.Array]:
    """Split each line on ASCII whitespace; classify blank, comment and malformed lines
    (another number of fields, a NUL byte)."""
    lines, info = decode_lines(data)
    counts.lines_read = len(lines)
    counts.non_utf8_lines, counts.backslash_lines, counts.lone_cr = (
        info.non_utf8_lines, info.backslash_lines, info.lone_cr)
    trimmed = pc.ascii_trim_whitespace(lines)
    blank = (pc.binary_length(trimmed).to_numpy(zero_copy_only=False) == 0)
    tokens = pc.ascii_split_whitespace(trimmed)
    n_tok = pc.list_value_length(tokens).to_numpy(zero_copy_only=False)
    if data.find(b"#") >= 0:
        comment = pc.match_substring_regex(lines, r"^[ \t\v\f]*#").to_numpy(zero_copy_only=False)
    else:
        comment = np.zeros(len(lines), dtype=bool)
    counts.blank = int(blank.sum())
    counts.comment = int(comment.sum())
    if counts.comment:
        counts.comment_as_data = _comments_read_as_data(lines, comment)
    if data.find(b"#") >= 0:
        counts.hash_lines = int((pc.match_substring(lines, "#").to_numpy(zero_copy_only=False) & ~comment).sum())
    wrong = ~blank & ~comment & (n_tok != len(names))
    nul = np.zeros(len(lines), dtype=bool)
    if data.find(b"\x00") >= 0:
        nul = pc.match_substring(lines, "\x00").to_numpy(zero_copy_only=False) & ~blank & ~comment
    bad = wrong | nul
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        expected = ("text without NUL bytes (is this a binary or UTF-16 file?)" if nul[first] else
                    f"{len(names)} whitespace-separated fields '{what}'")
        _malformed(path, lines, np.array([first]), expected, on_malformed)
        counts.malformed = int(bad.sum())
    good_mask = ~(blank | comment | bad)
    good = np.flatnonzero(good_mask)
    tok = tokens if good_mask.all() else tokens.filter(pa.array(good_mask))
    flat = pc.list_flatten(tok)
    width = len(names)
    fields = {name: flat.take(pa.array(np.arange(i, len(flat), width))) for i, name in enumerate(names)}
    return _Tokenized(fields=fields, line_numbers=good + 1, counts=counts), lines


def _comments_read_as_data(lines: pa.Array, comment: np.ndarray) -> int:
    """Comment lines trec_eval's qrels reader would not skip: it skips a ``#`` line only
    when ``#`` is the line's first byte and the line before was not skipped as one."""
    first_byte = pc.starts_with(lines, "#").to_numpy(zero_copy_only=False)
    skipped = comment & first_byte
    skipped[1:] &= ~skipped[:-1]  # a comment right after a skipped one is parsed as data
    return int(comment.sum() - skipped.sum())


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
    include_columns=["qid", "docno", "score", "tag"], null_values=[], strings_can_be_null=False,
    quoted_strings_can_be_null=False)
_RUN_FAST_READ = pacsv.ReadOptions(column_names=list(RUN_FIELDS), block_size=1 << 24)
_NOT_FAST = (b"#", b"\x0b", b"\x0c", b"\x00", b"\\", b"\x1f")


def _parse_run_fast(data) -> pa.Table | None:
    """Read a clean run file with pyarrow's CSV reader, or return None.

    Clean: one separator throughout (single tabs, or single spaces), no comment
    character, no other whitespace, no backslash; any line that is blank, has another
    number of fields, an unparsable score or invalid UTF-8 makes the reader fail, and
    the general line-by-line path (which names the line) takes over. No string is read
    as null (``null_values=[]``: a score ``NA`` is malformed, not missing).
    """
    if not len(data) or any(data.find(c) >= 0 for c in _NOT_FAST) or data[:3] == BOM:
        return None
    has_tab, has_space = data.find(b"\t") >= 0, data.find(b" ") >= 0
    if has_tab == has_space:
        return None
    delimiter = "\t" if has_tab else " "
    parse = pacsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                               newlines_in_values=False, ignore_empty_lines=False)
    try:
        return pacsv.read_csv(pa.BufferReader(pa.py_buffer(data)), read_options=_RUN_FAST_READ,
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
    plain decimal finite score, no backslash (whose text form differs from its bytes) and
    no ``#`` (counted by the general path); anything else is left to the other readers. qid and tag come
    dictionary-encoded (values in first-seen order).
    """
    kernels = compiled.kernels()
    if (kernels is None or not len(data) or len(data) >= 2**31 - 1 or data.find(b"\\") >= 0
            or data.find(b"#") >= 0):
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


def _finish_run(qid, docno, score: np.ndarray, tag, line_numbers: np.ndarray, counts: LineCounts):
    """Drop NaN scores (counted; infinities stay) and assemble the run table."""
    if len(tag):
        counts.tag = tag[len(tag) - 1].as_py()  # trec_eval's runid: the last line's tag
    nan = np.isnan(score)
    counts.nan_score = int(nan.sum())
    if counts.nan_score:
        keep = pa.array(~nan)
        qid, docno, tag = pc.filter(qid, keep), pc.filter(docno, keep), pc.filter(tag, keep)
        score, line_numbers = score[~nan], line_numbers[~nan]
    table = pa.table({"qid": qid, "docno": docno, "score": pa.array(score), "tag": tag,
                      "line": pa.array(line_numbers.astype(np.int64, copy=False))})
    counts.kept = table.num_rows
    return table, counts


def parse_run(path, on_malformed: str = "error", data=None):
    """Parse one run file (or ``data``, its plain bytes, when given), reading it once.

    Returns ``(table, counts)`` where table has columns qid, docno, score (float64),
    tag, line (1-based line number), in file order, for the kept lines; qid and tag
    are strings, dictionary-encoded when the compiled reader read the file. NaN scores
    are dropped and counted as ``nan_score``; infinite ones are kept.
    """
    src = read_source(path) if data is None else source_from_bytes(str(path), data)
    data = src.data
    counts = LineCounts(bom=int(src.bom))
    fast = _parse_run_compiled(data)
    if fast is None:
        fast = _parse_run_fast(data)
        if fast is not None and data.find(b"\r") >= 0:
            counts.lone_cr = lone_cr_count(data)
    if fast is not None:
        counts.lines_read = fast.num_rows
        return _finish_run(fast["qid"].combine_chunks(), fast["docno"].combine_chunks(),
                           fast["score"].to_numpy(), fast["tag"].combine_chunks(),
                           np.arange(1, fast.num_rows + 1, dtype=np.int64), counts)
    tk, lines = _tokenize(path, data, RUN_FIELDS, "qid iter docno rank score tag", on_malformed, counts)
    f = tk.fields
    try:  # every score parses (Arrow accepts nan, inf, infinity, any case; 1e400 is inf)
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


_INT64_DIGITS = 18  # any integer of at most 18 digits fits int64


def parse_qrels(path, on_malformed: str = "error", data=None):
    """Parse one qrels file (or ``data``, its plain bytes, when given), reading it once.

    Returns ``(table, counts)`` where table has columns qid, docno, rel (int64, may be
    negative), line, in file order. The second column is ignored. A grade must be an
    integer within int64's range.
    """
    src = read_source(path) if data is None else source_from_bytes(str(path), data)
    data = src.data
    counts = LineCounts(bom=int(src.bom))
    tk, lines = _tokenize(path, data, QRELS_FIELDS, "qid iter docno rel", on_malformed, counts)
    f = tk.fields
    ok = _check_pattern(path, lines, tk.line_numbers, f["rel"], _INT_PATTERN,
                        "an integer relevance in field 4", on_malformed)
    long = ok & (pc.utf8_length(f["rel"]).to_numpy(zero_copy_only=False) > _INT64_DIGITS)
    if long.any():
        ok &= ~long | _fits_int64(f["rel"], long)
        if not ok.all():
            _malformed(path, lines, tk.line_numbers[~ok] - 1,
                       "an integer relevance in field 4 between -2^63 and 2^63 - 1", on_malformed)
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


def _fits_int64(values: pa.Array, rows: np.ndarray) -> np.ndarray:
    """True for each of ``rows`` (a mask) whose integer text fits int64 (others: True)."""
    fits = np.ones(len(values), dtype=bool)
    for i in np.flatnonzero(rows):  # only grades of 19 or more characters: rare
        fits[i] = -2**63 <= int(values[int(i)].as_py()) < 2**63
    return fits
