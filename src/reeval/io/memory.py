"""Judgments and runs held in memory (columns of ids, scores, grades) as the parsed lines of files.

The Python API (:mod:`reeval.api`) takes DataFrames, dicts and iterables; this module turns
their columns into the :class:`~reeval.io.trecio.QrelsLines` and
:class:`~reeval.io.trecio.RunLines` a file would give, so that they are ordered,
deduplicated and matched by the same code as files (:func:`ingest_sources`, which calls
:func:`reeval.io.ingest.judge_run` and :func:`reeval.io.ingest.qrels_lookup`).

The columns are checked as a file's lines are: an id is a non-empty string without a NUL
byte (integers are written in decimal), a grade an integer of int64's range (booleans are 1
and 0; a float column of whole numbers is accepted), a score a real number (read as the
nearest float64, as a file's decimal text is). A value that is none of these (bytes, a
complex number, a string grade ...) raises :class:`InputError` naming the source and the
row (``where(i)`` names row i): nothing is coerced silently. As in files, NaN scores are dropped and counted
(``nan_score``), infinite ones kept, and an id holding a backslash is held in reeval's text
form (the backslash doubled, :mod:`reeval.io.bytetext`), so it orders by its bytes.
"""

from __future__ import annotations

import decimal
import numbers
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from reeval.errors import InputError

from .ingest import TrackTables, judge_run, load_run, qrels_lookup
from .sources import check_read_once
from .strings import Strings
from .trecio import LineCounts, QrelsLines, RunLines, _encoded

Where = Callable[[int], str]


def _first(mask) -> int:
    """Index of the first True of a boolean array (the caller knows there is one)."""
    return int(np.flatnonzero(np.asarray(mask, dtype=bool))[0])


def _bad(source: str, where: Where, i: int, column: str, expected: str, value) -> InputError:
    return InputError(f"{source}, {where(i)}: expected {expected} in {column}; got {value!r}")


def id_column(values: pd.Series, column: str, source: str, where: Where) -> pa.Array:
    """Ids as an Arrow string array in reeval's text form (see the module doc): strings as
    they are, integers (any integer dtype, uint64 included) in decimal; anything else (floats,
    bytes, dates ...), a missing value, an empty id or one holding a NUL byte (which no file
    can hold: the file reader refuses such a line) is an :class:`InputError` naming the row."""
    try:
        array = _string_array(values)
        if array is None:  # mixed or other types: row by row
            array = pa.array([_id_text(v, source, where, i, column)
                              for i, v in enumerate(values.to_numpy(dtype=object))], type=pa.string())
    except UnicodeError as exc:  # lone surrogates
        raise InputError(f"{source}: {column} holds text that is not valid Unicode ({exc})") from None
    if array.null_count:
        i = _first(array.is_null().to_numpy(zero_copy_only=False))
        raise InputError(f"{source}, {where(i)}: expected an id (a string or an integer) in {column}; "
                         "got a missing value")
    empty = pc.equal(pc.utf8_length(array), 0).to_numpy(zero_copy_only=False)
    if empty.any():
        raise _bad(source, where, _first(empty), column, "a non-empty id", "")
    nul = pc.match_substring(array, "\x00")
    if len(array) and pc.any(nul).as_py():
        i = _first(nul.to_numpy(zero_copy_only=False))
        raise _bad(source, where, i, column, "an id without a NUL byte (no file can hold one)", array[i].as_py())
    if len(array) and pc.any(pc.match_substring(array, "\\")).as_py():
        array = pc.replace_substring(array, "\\", "\\\\")
    return array


def _string_array(values: pd.Series) -> pa.Array | None:
    """A column of strings (any of pandas' string dtypes, object, categorical) or of
    integers (decimal text) as an Arrow string array, converted in C; None for anything
    else (mixed, floats, bytes ...), which goes row by row."""
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return None
    try:
        array = pa.Array.from_pandas(values)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    typ = array.type.value_type if pa.types.is_dictionary(array.type) else array.type
    integer = pd.api.types.is_integer_dtype(dtype) and pa.types.is_integer(typ)
    if not (integer or pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_null(typ)):
        return None
    return array.cast(pa.string())


def _id_text(value, source, where, i, column) -> str | None:
    """An id of a mixed column: a string as it is, an integer in decimal, None for a
    missing value, else an error (bytes: decode them; ids are text)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    error = _bad(source, where, i, column, "an id (a string or an integer)", value)
    if isinstance(value, bytes):
        error = InputError(f"{error} (bytes: decode them first)")
    raise error


def _dtype_error(source: str, column: str, values: pd.Series, expected: str) -> InputError:
    return InputError(f"{source}: expected {expected} in {column}; got a column of dtype {values.dtype}")


def _score(v) -> float | None:
    """A value of an object column as a score: a real number (any int, float, numpy number,
    Fraction, Decimal) as the nearest float64 (beyond float64's range: an infinity, as a
    file's ``1e400``), a missing value as NaN; None for anything else (booleans, strings,
    bytes, complex numbers ...)."""
    if v is None or v is pd.NA:
        return np.nan
    if isinstance(v, decimal.Decimal):
        return np.nan if v.is_nan() else float(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        return None
    try:
        return float(v)
    except OverflowError:
        return np.inf if v > 0 else -np.inf


def score_column(values: pd.Series, column: str, source: str, where: Where) -> np.ndarray:
    """Scores as float64, the nearest double to each number (as a file's decimal text is
    read); NaN and missing values kept here (:func:`run_lines` drops and counts them).
    Booleans, strings, complex numbers (never cut to their real part) and other objects
    are an :class:`InputError` naming the row; a column of another dtype (dates,
    categories, strings) is one naming its dtype."""
    dtype = values.dtype
    if dtype == object or pd.api.types.is_string_dtype(dtype) or isinstance(dtype, pd.CategoricalDtype):
        objects = values.to_numpy(dtype=object)
        if set(map(type, objects)) <= {float, int}:  # plain Python numbers (dicts, records): in C
            try:
                return np.array(objects, dtype=np.float64)
            except OverflowError:  # an int beyond float64: one by one
                pass
        scores = [_score(v) for v in objects]
        wrong = [i for i, x in enumerate(scores) if x is None]
        if wrong:
            raise _bad_score(source, where, wrong[0], column, values.iloc[wrong[0]])
        return np.array(scores, dtype=np.float64)
    if pd.api.types.is_complex_dtype(dtype) and len(values):
        raise _bad_score(source, where, 0, column, values.iloc[0])
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        raise _dtype_error(source, column, values, "numbers")
    return values.to_numpy(dtype=np.float64, na_value=np.nan)


def _bad_score(source: str, where: Where, i: int, column: str, value) -> InputError:
    """``expected a number``; for a complex number, ``a real number`` (never its real part)."""
    expected = "a real number" if isinstance(value, (complex, np.complexfloating)) else "a number"
    return _bad(source, where, i, column, expected, value)


INT64 = (-(2**63), 2**63 - 1)


def _grade(v) -> int | None:
    """A value of an object column as a grade, or None: an integer of int64's range, a
    boolean (1, 0), or a real number (float, Decimal, Fraction) that is a whole number of
    that range."""
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if not isinstance(v, (numbers.Real, decimal.Decimal)):
        return None
    try:
        whole = int(v)
        if whole != v:
            return None
    except (ValueError, OverflowError, TypeError, ArithmeticError):  # NaN, infinities
        return None
    return whole if INT64[0] <= whole <= INT64[1] else None


def grade_column(values: pd.Series, column: str, source: str, where: Where) -> np.ndarray:
    """Grades as int64: integers of int64's range (any integer dtype), booleans (1 and 0),
    whole numbers in a float or object column; nothing else (strings, complex numbers, missing
    values, grades beyond int64) is read as a grade: an :class:`InputError` naming the row."""
    dtype = values.dtype
    if dtype == object or pd.api.types.is_string_dtype(dtype) or isinstance(dtype, pd.CategoricalDtype):
        objects = values.to_numpy(dtype=object)
        if set(map(type, objects)) <= {int}:  # plain Python integers (dicts, records): in C
            try:
                return np.array(objects, dtype=np.int64)
            except OverflowError:  # beyond int64: named below
                pass
        grades = [_grade(v) for v in objects]
        wrong = np.fromiter((g is None for g in grades), dtype=bool, count=len(grades))
        if not wrong.any():
            return np.array(grades, dtype=np.int64)
    elif pd.api.types.is_bool_dtype(dtype):
        wrong = values.isna().to_numpy()
        if not wrong.any():
            return values.to_numpy(dtype=np.int64)
    elif pd.api.types.is_integer_dtype(dtype):
        wrong = values.isna().to_numpy().copy()
        if pd.api.types.is_unsigned_integer_dtype(dtype):
            wrong |= values.fillna(0).to_numpy(dtype=np.uint64) > np.uint64(INT64[1])
        if not wrong.any():
            return values.to_numpy(dtype=np.int64)
    elif pd.api.types.is_float_dtype(dtype):
        x = values.to_numpy(dtype=np.float64, na_value=np.nan)
        with np.errstate(invalid="ignore"):
            wrong = ~np.isfinite(x) | (x != np.round(x)) | (x >= 2.0**63) | (x < -(2.0**63))  # int64's range
        if not wrong.any():
            return x.astype(np.int64)
    elif pd.api.types.is_complex_dtype(dtype) and len(values):
        wrong = np.ones(len(values), dtype=bool)
    else:
        raise _dtype_error(source, column, values, "integer grades")
    i = _first(wrong)
    raise _bad(source, where, i, column, "an integer grade", values.iloc[i])


def qrels_lines(qid: pa.Array, docno: pa.Array, rel: np.ndarray) -> QrelsLines:
    """The judgments of checked columns as the kept lines of a qrels file."""
    qids, code = _encoded(qid)
    n = len(rel)
    return QrelsLines(qids, code, Strings.from_arrow(docno), rel, None, LineCounts(lines_read=n, kept=n))


def run_lines(qid: pa.Array, docno: pa.Array, score: np.ndarray, tag: str) -> RunLines:
    """The documents of checked columns as the lines of a run file with tag ``tag``; NaN
    scores dropped and counted (``nan_score``), as a file's."""
    counts = LineCounts(lines_read=len(score), tag=tag)
    nan = np.isnan(score)
    if nan.any():
        keep = pa.array(~nan)
        qid, docno, score = qid.filter(keep), docno.filter(keep), score[~nan]
        counts.nan_score = int(nan.sum())
    counts.kept = len(score)
    qids, code = _encoded(qid)
    return RunLines(qids, code, Strings.from_arrow(docno), score, [tag], np.zeros(len(score), dtype=np.int32),
                    None, counts)


def ingest_sources(qrels, runs, precision: str = "float64", threads: int = 2,
                   track: str = "api", orders=(), reordered: bool = False) -> TrackTables:
    """A track whose qrels and runs are files or parsed lines, judged as :func:`ingest_track` does.

    ``qrels``: ``(source, QrelsLines)`` or ``(path, None)`` (the file is read);
    ``runs``: ``[(name, source, RunLines or None)]``, None for a file read from
    ``source``. Run files are read and judged ``threads`` at once; no runs table is kept
    (``keep_runs=False``); the process's malloc settings are left alone. ``orders`` and
    ``reordered``: as :func:`reeval.io.ingest.ingest_track`'s.
    """
    from .ingest import read_qrels

    source, lines = qrels
    check_read_once([src for src, parsed in [qrels, *((src, parsed) for _, src, parsed in runs)] if parsed is None])
    lookup, report = qrels_lookup(track, source, read_qrels(source) if lines is None else lines)

    def judge(job):
        name, src, parsed = job
        if parsed is None:
            return load_run(name, src, lookup, track, precision, keep_runs=False, orders=orders, reordered=reordered)
        return judge_run(name, src, parsed, lookup, track, precision, keep_runs=False, orders=orders,
                         reordered=reordered)

    jobs = sorted(runs, key=lambda job: job[0])
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        parts = list(pool.map(judge, jobs))
    report.extend(part.row for part in parts)
    return TrackTables(lookup, parts, report, keep_runs=False)
