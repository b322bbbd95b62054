"""The inputs the Python API takes, turned into one ingested track.

Qrels: a path; a DataFrame with ``query_id, doc_id, relevance`` (ir_measures and ir_datasets
names; ``qid, docno, rel`` or ``qid, docno, label`` also accepted); a dict
``{query_id: {doc_id: relevance}}`` (pytrec_eval); or an iterable of objects with those
attributes (ir_datasets' ``qrels_iter()``).

Runs: a path or a list of paths (named as ``reeval score`` names them, from the file
names); a DataFrame with ``query_id, doc_id, score`` (or ``qid, docno, score``) and
optionally ``run``, one run per distinct value (in order of appearance); a dict
``{query_id: {doc_id: score}}`` (one run); an iterable of objects with those attributes
(ir_datasets' ``scoreddocs_iter()``, one run); a dict ``{run_name: one of those}``; or a
list of any of those, item ``i`` named ``run<i>`` unless a file or a ``run`` column names
it. A single run that is not named by a file, a ``run`` column or a dict key is called ``run``.

What cannot be read as given is an :class:`InputError` naming the input and the row, never a
guess: a frame with two names of one field (``qid`` and ``query_id``), several runs where one
is expected, two runs of one name; the values themselves are checked by :mod:`reeval.io.memory`.

Every form goes through :mod:`reeval.io.memory` to the lines a file would give, then
through the ordering, deduplication and matching of files; files given as paths only
(qrels and runs) are read by :func:`reeval.io.ingest.ingest_track`, as ``reeval score``
reads them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from reeval.errors import InputError
from reeval.io import memory

QRELS_COLUMNS = (("query_id", "doc_id", "relevance"), ("qid", "docno", "rel"), ("qid", "docno", "label"))
RUN_COLUMNS = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))
DEFAULT_RUN = "run"


def is_path(value) -> bool:
    return isinstance(value, (str, os.PathLike))


def _frame_where(frame: pd.DataFrame):
    if isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0 and frame.index.step == 1:
        return lambda i: f"row {i}"
    return lambda i: f"row {i} (index {frame.index[i]!r})"


def _pick(frame: pd.DataFrame, choices, source: str) -> tuple:
    """The columns of a frame read as (qid, docno, value): the first of ``choices`` it has.
    Two names of one field (``qid`` and ``query_id``), or a column name given twice, are
    refused: which one is meant cannot be guessed."""
    columns = list(frame.columns)
    for aliases in map(dict.fromkeys, zip(*choices)):
        present = [name for name in aliases if name in columns]
        if len(present) > 1:
            raise InputError(f"{source}: columns {' and '.join(present)} name the same field; keep one")
        if present and columns.count(present[0]) > 1:
            raise InputError(f"{source}: column {present[0]} appears {columns.count(present[0])} times; keep one")
    for names in choices:
        if all(n in columns for n in names):
            return names
    wanted = " or ".join(", ".join(names) for names in choices)
    raise InputError(f"{source}: expected columns {wanted}; got {', '.join(map(str, columns)) or 'none'}")


def _records(items, value: str, source: str) -> pd.DataFrame:
    """An iterable of objects with attributes query_id, doc_id and ``value`` as a DataFrame."""
    items = list(items)
    try:  # object columns: the values as given, to be checked (no type inferred, nothing converted)
        return pd.DataFrame({"query_id": pd.Series([r.query_id for r in items], dtype=object),
                             "doc_id": pd.Series([r.doc_id for r in items], dtype=object),
                             value: pd.Series([getattr(r, value) for r in items], dtype=object)})
    except AttributeError:
        i = next(i for i, r in enumerate(items) if not all(hasattr(r, a) for a in ("query_id", "doc_id", value)))
        raise InputError(f"{source}, item {i}: expected an object with attributes query_id, doc_id, {value}; "
                         f"got {items[i]!r}") from None


def _nested(d: Mapping, value: str, source: str) -> tuple[pd.DataFrame, object]:
    """A dict {query_id: {doc_id: value}} as a DataFrame, and a namer of its rows."""
    for qid, docs in d.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"{source}: topic {qid!r} maps to {type(docs).__name__}, expected a dict "
                             f"{{doc_id: {value}}}")
    qids = [q for q, docs in d.items() for _ in range(len(docs))]
    docs = [doc for docs in d.values() for doc in docs]
    frame = pd.DataFrame({"query_id": pd.Series(qids, dtype=object), "doc_id": pd.Series(docs, dtype=object),
                          value: pd.Series([v for docs in d.values() for v in docs.values()], dtype=object)})
    return frame, lambda i: f"topic {qids[i]!r}, document {docs[i]!r}"


def _as_frame(obj, value: str, source: str):
    """(DataFrame, namer of its rows, columns (qid, docno, value)) of an in-memory form."""
    if isinstance(obj, pd.DataFrame):
        return obj, _frame_where(obj), _pick(obj, QRELS_COLUMNS if value == "relevance" else RUN_COLUMNS, source)
    if isinstance(obj, Mapping):
        frame, where = _nested(obj, value, source)
        return frame, where, ("query_id", "doc_id", value)
    if isinstance(obj, Iterable) and not isinstance(obj, (bytes, str)):
        return _records(obj, value, source), (lambda i: f"item {i}"), ("query_id", "doc_id", value)
    raise InputError(f"{source}: expected a path, a DataFrame, a dict or an iterable of records; "
                     f"got {type(obj).__name__}")


def qrels_source(qrels) -> tuple:
    """``(source, QrelsLines)`` of in-memory qrels, or ``(path, None)`` for a file."""
    if is_path(qrels):
        return os.fspath(qrels), None
    kind = type(qrels).__name__
    source = f"qrels ({'DataFrame' if kind == 'DataFrame' else kind})"
    frame, where, (q, d, r) = _as_frame(qrels, "relevance", source)
    lines = memory.qrels_lines(memory.id_column(frame[q], q, source, where),
                               memory.id_column(frame[d], d, source, where),
                               memory.grade_column(frame[r], r, source, where))
    return source, lines


def _one_run(obj, name: str, source: str) -> tuple:
    """``(name, source, RunLines)`` of one in-memory run (a path: ``(name, path, None)``).
    Several runs where one is expected (a dict of named runs, a DataFrame whose ``run``
    column holds several) are an :class:`InputError`, never read as one run."""
    if is_path(obj):
        return name, os.fspath(obj), None
    if isinstance(obj, pd.DataFrame) and "run" in obj.columns and obj["run"].nunique(dropna=False) > 1:
        runs = ", ".join(repr(str(r)) for r in pd.unique(obj["run"])[:5])
        raise InputError(f"{source}: a DataFrame holding {obj['run'].nunique(dropna=False)} runs (run column: "
                         f"{runs}); expected one run here")
    if isinstance(obj, Mapping) and obj and not _is_one_run_dict(obj):
        names = ", ".join(repr(k) for k in list(obj)[:5])
        raise InputError(f"{source}: a dict of named runs ({names}); expected one run here")
    frame, where, (q, d, s) = _as_frame(obj, "score", source)
    lines = memory.run_lines(memory.id_column(frame[q], q, source, where),
                             memory.id_column(frame[d], d, source, where),
                             memory.score_column(frame[s], s, source, where), tag=name)
    return name, source, lines


def _frame_runs(frame: pd.DataFrame, source: str = "runs (DataFrame)") -> list:
    """The runs of a DataFrame with a ``run`` column, in order of first appearance."""
    where = _frame_where(frame)
    q, d, s = _pick(frame, RUN_COLUMNS, source)
    run = memory.id_column(frame["run"], "run", source, where)
    qid, docno = memory.id_column(frame[q], q, source, where), memory.id_column(frame[d], d, source, where)
    score = memory.score_column(frame[s], s, source, where)
    codes, names = pd.factorize(run.to_numpy(zero_copy_only=False))
    order = np.argsort(codes, kind="stable")
    qid, docno, score = qid.take(order), docno.take(order), score[order]
    bounds = np.r_[0, np.cumsum(np.bincount(codes, minlength=len(names)))]
    return [(str(name), f"{source}, run {name!r}",
             memory.run_lines(qid[a:b], docno[a:b], score[a:b], tag=str(name)))
            for name, a, b in zip(names, bounds[:-1].tolist(), bounds[1:].tolist())]


def _is_scalar(value) -> bool:
    """Not a container: a score (or a wrong value the score check names), not a run."""
    return not isinstance(value, (Mapping, pd.DataFrame)) and (
        isinstance(value, (str, bytes)) or not isinstance(value, Iterable))


def _is_one_run_dict(d: Mapping) -> bool:
    """A dict {query_id: {doc_id: score}} (not a dict of named runs, whose values are runs:
    DataFrames, paths, lists, dicts of dicts)."""
    for docs in d.values():
        if not isinstance(docs, Mapping):
            return False
        for value in docs.values():
            return _is_scalar(value)
    return True


def _is_run_form(item) -> bool:
    """An item of a list of runs: a path, a DataFrame, a dict, or an iterable of records
    (a record itself, such as ir_datasets' ``ScoredDoc``, is not a run)."""
    if is_path(item) or isinstance(item, (pd.DataFrame, Mapping)):
        return True
    return (isinstance(item, Iterable) and not isinstance(item, (str, bytes))
            and not all(hasattr(item, a) for a in ("query_id", "doc_id")))


def _list_runs(items: list) -> list:
    """A list of runs in any forms: a path named by its file (:func:`run_names`), a DataFrame
    with a ``run`` column by that column, any other item ``i`` is ``run<i>``. Two runs of one
    name are an :class:`InputError`."""
    from reeval.io.trecio import run_names

    at = [i for i, item in enumerate(items) if is_path(item)]
    path_names = dict(zip(at, run_names([items[i] for i in at])))
    found, given = [], {}
    for i, item in enumerate(items):
        source = f"runs (list), item {i}"
        if i in path_names:
            runs = [(path_names[i], os.fspath(item), None)]
        elif isinstance(item, pd.DataFrame) and "run" in item.columns:
            runs = _frame_runs(item, source)
        else:
            runs = [_one_run(item, f"run{i}", f"{source} (run{i})")]
        for run in runs:
            if run[0] in given:
                raise InputError(f"runs (list): items {given[run[0]]} and {i} are both named {run[0]!r}; "
                                 "name each run once")
            given[run[0]] = i
        found.extend(runs)
    return found


def run_sources(runs) -> list:
    """``[(name, source, RunLines or None)]`` of the runs, in the caller's order (None: a file)."""
    from reeval.io.trecio import run_names

    if is_path(runs):
        runs = [runs]
    if isinstance(runs, (list, tuple)) and runs and all(is_path(p) for p in runs):
        return [(name, os.fspath(p), None) for name, p in zip(run_names(runs), runs)]
    if isinstance(runs, (list, tuple)) and runs and all(map(_is_run_form, runs)):
        found = _list_runs(list(runs))
    elif isinstance(runs, pd.DataFrame) and "run" in runs.columns:
        found = _frame_runs(runs)
    elif isinstance(runs, Mapping) and runs and not _is_one_run_dict(runs):
        bad = [k for k in runs if not isinstance(k, str) or not k]
        if bad:
            raise InputError(f"runs (dict of runs): run names must be non-empty strings, not {bad[0]!r}")
        found = [_one_run(obj, name, f"run {name!r}") for name, obj in runs.items()]
    else:
        found = [_one_run(runs, DEFAULT_RUN, f"runs ({type(runs).__name__})")]
    if not found:
        raise InputError("runs: no run given")
    return found


def load_track(qrels, runs, precision: str = "float64", orders=(), reordered: bool = False):
    """``(tables, run names in the caller's order, notes)``: the track of any accepted
    qrels and runs (module doc), ingested as ``reeval score`` ingests its files (``orders``:
    the other orderings the measures need, :func:`reeval.compute.needed_orders`; ``reordered``:
    as :func:`reeval.io.ingest.ingest_track`'s); notes as
    :func:`reeval.compute.check_tables` gives them."""
    from reeval.compute import check_tables
    from reeval.io.ingest import ingest_track

    q = qrels_source(qrels)
    found = run_sources(runs)
    names = [name for name, _, _ in found]
    if q[1] is None and all(lines is None for _, _, lines in found) and not isinstance(runs, Mapping):
        tables = ingest_track("api", q[0], [src for _, src, _ in found], precision=precision,
                              keep_runs=False, tune=False, orders=orders, reordered=reordered)
    else:
        tables = memory.ingest_sources(q, found, precision=precision, orders=orders, reordered=reordered)
    return tables, names, check_tables(tables)
