"""Judgments and runs held in memory (columns of ids, scores, grades) as the parsed lines of files.

The Python API (:mod:`reeval.api`) takes DataFrames, dicts and iterables; this module turns
their columns into the :class:`~reeval.io.trecio.QrelsLines` and
:class:`~reeval.io.trecio.RunLines` a file would give, so that they are ordered,
deduplicated and matched by the same code as files (:func:`ingest_sources`, which calls
:func:`reeval.io.ingest.judge_run` and :func:`reeval.io.ingest.qrels_lookup`).

The columns are checked as a file's lines are: an id is a non-empty string (integers are
written in decimal), a grade an integer (a float column of whole numbers is accepted), a
score a number. A value that is none of these raises :class:`InputError` naming the source
and the row (``where(i)`` names row i). As in files, NaN scores are dropped and counted
(``nan_score``), infinite ones kept, and an id holding a backslash is held in reeval's text
form (the backslash doubled, :mod:`reeval.io.bytetext`), so it orders by its bytes.
"""

from __future__ import annotations

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
    """Ids as an Arrow string array in reeval's text form (see the module doc)."""
    if pd.api.types.is_integer_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
        if values.isna().any():
            i = _first(values.isna())
            raise _bad(source, where, i, column, "an id", values.iloc[i])
        values = values.astype(np.int64).astype(str)
    try:  # strings (object or pandas' string dtypes) convert in C; anything else goes row by row
        array = pa.array(values, type=pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        array = pa.array([_id_text(v, source, where, i, column) for i, v in enumerate(values.to_numpy(dtype=object))],
                         type=pa.string())
    except UnicodeError as exc:  # lone surrogates
        raise InputError(f"{source}: {column} holds text that is not valid Unicode ({exc})") from None
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.null_count:
        i = _first(array.is_null().to_numpy(zero_copy_only=False))
        raise InputError(f"{source}, {where(i)}: expected an id (a string or an integer) in {column}; "
                         "got a missing value")
    empty = pc.equal(pc.utf8_length(array), 0).to_numpy(zero_copy_only=False)
    if empty.any():
        raise _bad(source, where, _first(empty), column, "a non-empty id", "")
    if len(array) and pc.any(pc.match_substring(array, "\\")).as_py():
        array = pc.replace_substring(array, "\\", "\\\\")
    return array


def _id_text(value, source, where, i, column) -> str:
    """An id of a mixed column: a string as it is, an integer in decimal, else an error."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    raise _bad(source, where, i, column, "an id (a string or an integer)", value)


def score_column(values: pd.Series, column: str, source: str, where: Where) -> np.ndarray:
    """Scores as float64 (NaN kept here; :func:`run_lines` drops and counts them)."""
    if pd.api.types.is_bool_dtype(values.dtype) or not (
            pd.api.types.is_numeric_dtype(values.dtype) or values.dtype == object):
        raise _bad(source, where, 0, column, "a number", values.iloc[0] if len(values) else None)
    numbers = pd.to_numeric(values, errors="coerce")
    wrong = numbers.isna().to_numpy() & values.notna().to_numpy()
    if values.dtype == object:
        wrong |= np.fromiter((isinstance(v, (bool, np.bool_, str)) for v in values.to_numpy(dtype=object)),
                             dtype=bool, count=len(values))
    if wrong.any():
        i = _first(wrong)
        raise _bad(source, where, i, column, "a number", values.iloc[i])
    return numbers.to_numpy(dtype=np.float64, na_value=np.nan)


def grade_column(values: pd.Series, column: str, source: str, where: Where) -> np.ndarray:
    """Grades as int64: integers, or whole numbers of int64's range in a float column."""
    if pd.api.types.is_bool_dtype(values.dtype):
        return values.to_numpy(dtype=np.int64)
    numbers = values if pd.api.types.is_numeric_dtype(values.dtype) else pd.to_numeric(values, errors="coerce")
    if pd.api.types.is_integer_dtype(numbers.dtype) and not numbers.isna().any():
        return numbers.to_numpy(dtype=np.int64)
    x = numbers.to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        wrong = ~np.isfinite(x) | (x != np.round(x)) | (np.abs(x) >= 2.0**63)
    if values.dtype == object:
        wrong |= np.fromiter((isinstance(v, str) for v in values.to_numpy(dtype=object)), dtype=bool,
                             count=len(values))
    if wrong.any():
        i = _first(wrong)
        raise _bad(source, where, i, column, "an integer grade", values.iloc[i])
    return x.astype(np.int64)


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
                   track: str = "api") -> TrackTables:
    """A track whose qrels and runs are files or parsed lines, judged as :func:`ingest_track` does.

    ``qrels``: ``(source, QrelsLines)`` or ``(path, None)`` (the file is read);
    ``runs``: ``[(name, source, RunLines or None)]``, None for a file read from
    ``source``. Run files are read and judged ``threads`` at once; no runs table is kept
    (``keep_runs=False``); the process's malloc settings are left alone.
    """
    from .ingest import read_qrels

    source, lines = qrels
    check_read_once([src for src, parsed in [qrels, *((src, parsed) for _, src, parsed in runs)] if parsed is None])
    lookup, report = qrels_lookup(track, source, read_qrels(source) if lines is None else lines)

    def judge(job):
        name, src, parsed = job
        if parsed is None:
            return load_run(name, src, lookup, track, precision, keep_runs=False)
        return judge_run(name, src, parsed, lookup, track, precision, keep_runs=False)

    jobs = sorted(runs, key=lambda job: job[0])
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        parts = list(pool.map(judge, jobs))
    report.extend(part.row for part in parts)
    return TrackTables(lookup, parts, report, keep_runs=False)
