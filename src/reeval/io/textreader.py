"""The general reader of TREC text files, line by line, with pyarrow.

:mod:`reeval.io.trecio` hands a file here when the compiled reader does not take it (no
kernels, or a file that is not clean: comments, blank lines, other widths, non-ASCII
bytes, odd scores ...). Every physical line is classified (kept, blank, comment,
malformed, NaN score) and the columns come back as Arrow arrays; pyarrow is imported
only by callers that need this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .bytetext import escape_text, needs_escape
from .sources import BOM
from .trecformat import QRELS_FIELDS, RUN_FIELDS, LineCounts, TrecFormatError, lone_cr_count

_INT_PATTERN = r"^[+-]?[0-9]+$"


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
    through :func:`reeval.io.bytetext.escape_text` (invalid bytes as ``\xNN``, backslashes
    doubled). Returns (lines, :class:`LineInfo`).
    """
    info = LineInfo()
    if not len(data):
        return pa.array([], type=pa.string()), info
    if data.find(b"\r") >= 0:
        info.lone_cr = lone_cr_count(data)
    if not needs_escape(data) and data.find(b"\x1f") < 0 and data[:3] != BOM:  # Arrow would skip a BOM
        return _arrow_lines(data), info
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


def _arrow_lines(data) -> pa.Array:
    """The lines of clean text by pyarrow's CSV reader in blocks of 16 MiB. A line longer
    than a block (a file of one 50 MB line without a newline) makes Arrow stop with
    "straddling object straddles two block boundaries": read it again in one block of the
    whole file, so that the line is judged like any other (and, malformed, named)."""
    def read(options):
        return pacsv.read_csv(pa.BufferReader(pa.py_buffer(data)), read_options=options,
                              parse_options=_LINE_PARSE, convert_options=_LINE_CONVERT)

    try:
        table = read(_LINE_READ)
    except pa.ArrowInvalid as exc:
        if "straddl" not in str(exc) or len(data) >= 2**31 - 1:
            raise
        table = read(pacsv.ReadOptions(column_names=["line"], block_size=len(data) + 1))
    return table.column("line").combine_chunks()


def _split_lines(text: str) -> list[str]:
    parts = _LINE_END.split(text)
    if parts and parts[-1] == "":
        parts.pop()
    return parts


@dataclass
class _Tokenized:
    fields: dict  # name -> pa.Array (only lines with the right field count)
    line_numbers: np.ndarray  # 1-based, of the kept candidate lines
    counts: LineCounts


def _tokenize(path, data, names: tuple[str, ...], what: str, on_malformed: str,
              counts: LineCounts, extra_ok: bool = False) -> tuple[_Tokenized, pa.Array]:
    """Split each line on ASCII whitespace; classify blank, comment and malformed lines
    (another number of fields, a NUL byte). ``extra_ok``: a line with more fields keeps the
    first ones (trec_eval ignores what follows a run line's sixth field), counted in
    ``counts.extra_fields``."""
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
    longer = ~blank & ~comment & (n_tok > len(names)) if extra_ok else np.zeros(len(lines), dtype=bool)
    wrong = ~blank & ~comment & (n_tok != len(names)) & ~longer
    nul = np.zeros(len(lines), dtype=bool)
    if data.find(b"\x00") >= 0:
        nul = pc.match_substring(lines, "\x00").to_numpy(zero_copy_only=False) & ~blank & ~comment
    bad = wrong | nul
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        expected = ("text without NUL bytes (is this a binary or UTF-16 file?)" if nul[first] else
                    f"{len(names)}{' or more' if extra_ok else ''} whitespace-separated fields '{what}'")
        _malformed(path, lines, np.array([first]), expected, on_malformed)
        counts.malformed = int(bad.sum())
    good_mask = ~(blank | comment | bad)
    good = np.flatnonzero(good_mask)
    tok = tokens if good_mask.all() else tokens.filter(pa.array(good_mask))
    if longer.any():
        counts.extra_fields = int((longer & good_mask).sum())
        tok = pc.list_slice(tok, 0, len(names))
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
    null_values=[], strings_can_be_null=False,
    quoted_strings_can_be_null=False)
_RUN_FAST_READ = pacsv.ReadOptions(column_names=list(RUN_FIELDS), block_size=1 << 24)
_NOT_FAST = (b"#", b"\x0b", b"\x0c", b"\x00", b"\\", b"\x1f")


def _parse_run_fast(data) -> pa.Table | None:
    r"""Read a clean run file with pyarrow's CSV reader, or return None.

    Clean: one separator throughout (single tabs, or single spaces), no comment
    character, no other whitespace, no backslash; any line that is blank, has another
    number of fields, an unparsable score or invalid UTF-8 makes the reader fail, and
    the general line-by-line path (which names the line) takes over. So does a file
    where a field is empty: a separator leading or trailing a line, or two in a row,
    which trec_eval reads as one separator after skipping the whitespace before a
    line's first field (``\tQ0\td\t1\t5\tx`` is five fields for it: it stops with
    "Malformed line"; pyarrow would read six, the first one empty). No string is read as
    null (``null_values=[]``: a score ``NA`` is malformed, not missing). Returns the
    columns qid, docno, score, tag.
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
        table = pacsv.read_csv(pa.BufferReader(pa.py_buffer(data)), read_options=_RUN_FAST_READ,
                               parse_options=parse, convert_options=_RUN_FAST_CONVERT)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    text = [name for name in RUN_FIELDS if name != "score"]  # an empty score fails to convert
    if any(pc.min(pc.binary_length(table[name])).as_py() == 0 for name in text):
        return None
    return table.select(["qid", "docno", "score", "tag"])


def run_columns(path, data, on_malformed: str, counts: LineCounts):
    """qid, docno, tag (Arrow strings) and score, line (numpy) of a run's lines, NaN
    scores included; counts filled but for ``nan_score`` and ``kept``.

    pyarrow's CSV reader reads a clean file with one separator throughout; any other
    file goes line by line (:func:`_tokenize`), which names a malformed line.
    """
    fast = _parse_run_fast(data)
    if fast is not None:
        if data.find(b"\r") >= 0:
            counts.lone_cr = lone_cr_count(data)
        counts.lines_read = fast.num_rows
        return (fast["qid"].combine_chunks(), fast["docno"].combine_chunks(), fast["tag"].combine_chunks(),
                fast["score"].to_numpy(), np.arange(1, fast.num_rows + 1, dtype=np.int64))
    tk, lines = _tokenize(path, data, RUN_FIELDS, "qid iter docno rank score tag", on_malformed, counts,
                          extra_ok=True)
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
    return (pc.filter(f["qid"], keep), pc.filter(f["docno"], keep), pc.filter(f["tag"], keep),
            score[ok], tk.line_numbers[ok])


_INT64_DIGITS = 18  # any integer of at most 18 digits fits int64


def qrels_columns(path, data, on_malformed: str, counts: LineCounts):
    """qid, docno (Arrow strings), rel (int64) and line (numpy) of a qrels file's kept
    lines; counts filled but for ``kept``. A grade must be an integer within int64."""
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
    unsigned = pc.replace_substring_regex(pc.filter(f["rel"], keep), r"^\+", "")  # '+5' is 5, as atol reads it
    rel = pc.cast(unsigned, pa.int64()).to_numpy(zero_copy_only=False)
    return pc.filter(f["qid"], keep), pc.filter(f["docno"], keep), rel, tk.line_numbers[ok].astype(np.int64)


def _fits_int64(values: pa.Array, rows: np.ndarray) -> np.ndarray:
    """True for each of ``rows`` (a mask) whose integer text fits int64 (others: True)."""
    fits = np.ones(len(values), dtype=bool)
    for i in np.flatnonzero(rows):  # only grades of 19 or more characters: rare
        fits[i] = -2**63 <= int(values[int(i)].as_py()) < 2**63
    return fits
