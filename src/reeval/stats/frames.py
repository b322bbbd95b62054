"""Per-topic scores in the forms the statistics accept: a matrix, or ``reeval.evaluate``'s frames.

A runs x topics matrix (``(S, T)``, the same topic order in every row) is what every
test computes on. The same scores arrive from the API as:

- ``reeval.evaluate(..., per_topic=True)``'s frame, index (``run``, ``query_id``), one
  column per measure: pass one column (``by_topic["AP"]``) or a frame with one column;
- a wide DataFrame, runs as the index and topics as columns (``by_topic["AP"].unstack()``);
- a per-run Series or one-column frame (``reeval.evaluate(...)["AP"]``), for the
  functions on one value per run (Kendall's tau, tau_AP).

Runs keep the order in which they first appear, topics too. Topics where no run has a
value (ASL measures on a topic without a relevant document) are dropped; a topic where
some runs have a value and others not cannot be paired and is an
:class:`~reeval.errors.InputError` (``evaluate(complete=True)``, the default, scores every
run on every qrels topic).
"""

from __future__ import annotations

import numpy as np

from reeval.errors import InputError

from .checks import numbers

#: Index level names of ``reeval.evaluate(..., per_topic=True)``.
PER_TOPIC_INDEX = ("run", "query_id")


def _one_column(frame, what: str):
    """The only column of a DataFrame as a Series; InputError naming the columns otherwise."""
    if frame.shape[1] != 1:
        names = ", ".join(map(str, frame.columns))
        raise InputError(f"{what}: {frame.shape[1]} measures ({names}); pass one column, "
                         f"e.g. frame[{str(frame.columns[0])!r}]" if frame.shape[1] else
                         f"{what}: a frame without a measure column")
    return frame.iloc[:, 0]


def _is_per_topic(obj) -> bool:
    names = getattr(getattr(obj, "index", None), "names", None)
    return names is not None and tuple(names) == PER_TOPIC_INDEX


def _unstack(series, what: str):
    """A (run, query_id)-indexed Series as (runs x topics values, runs, topics), in order
    of first appearance; all-missing topics dropped, partly missing ones refused."""
    import pandas as pd

    runs = pd.unique(series.index.get_level_values(0))
    topics = pd.unique(series.index.get_level_values(1))
    if series.index.has_duplicates:
        raise InputError(f"{what}: a (run, query_id) appears twice")
    wide = series.unstack(level=1).reindex(index=runs, columns=topics)
    values = numbers(wide.to_numpy(), what)
    missing = np.isnan(values)
    keep = ~missing.all(axis=0)
    partly = missing[:, keep].any(axis=0)
    if partly.any():
        t = topics[keep][np.argmax(partly)]
        raise InputError(f"{what}: topic {t!r} has values for some runs only "
                         f"({int(partly.sum())} such topics); score every run on every topic "
                         "(evaluate's complete=True) to pair them")
    return values[:, keep], list(runs), list(topics[keep])


def score_matrix(scores, runs=None, what: str = "scores"):
    """``(X, runs, topics)``: the runs x topics float64 matrix of ``scores`` with its run
    labels and topic labels (``None`` for a bare array).

    ``scores``: a 2-D array; a wide DataFrame (runs x topics); a (run, query_id)-indexed
    Series or one-column DataFrame (``evaluate(per_topic=True)``). ``runs`` names the
    rows of a bare array (default 0..S-1) or, for a frame, picks and orders runs by name.
    InputError for another shape, a run name not found, or a non-finite value.
    """
    import pandas as pd

    topics = None
    labels = None
    if isinstance(scores, pd.DataFrame) and _is_per_topic(scores):
        scores = _one_column(scores, what)
    if isinstance(scores, pd.Series):
        if not _is_per_topic(scores):
            raise InputError(f"{what}: a Series must be indexed by (run, query_id), "
                             "as evaluate(per_topic=True) returns it")
        X, labels, topics = _unstack(scores, what)
    elif isinstance(scores, pd.DataFrame):
        X, labels, topics = numbers(scores.to_numpy(), what), list(scores.index), list(scores.columns)
    else:
        X = numbers(scores, f"{what} (runs x topics)")
    if X.ndim != 2:
        raise InputError(f"{what} must be 2-D (runs x topics), got shape {X.shape}")
    X = np.ascontiguousarray(X)   # row-major whatever the source: the same sums as a matrix
    if not np.isfinite(X).all():
        raise InputError(f"{what} must be finite (no NaN or inf)")
    if labels is None:
        return X, _labels(runs, X.shape[0], what), topics
    if runs is None:
        return X, np.asarray(labels, dtype=object), topics
    rows = _rows_of(labels, runs, what)
    return X[rows], np.asarray(labels, dtype=object)[rows], topics


def _labels(runs, S: int, what: str) -> np.ndarray:
    if runs is None:
        return np.arange(S)
    labels = np.asarray(list(runs), dtype=object)
    if labels.size != S:
        raise InputError(f"{what}: {labels.size} run names for {S} runs")
    return labels


def _rows_of(labels, runs, what: str) -> np.ndarray:
    where = {name: i for i, name in enumerate(labels)}
    missing = [r for r in runs if r not in where]
    if missing:
        raise InputError(f"{what}: run {missing[0]!r} not found; runs: {', '.join(map(str, labels))}")
    return np.array([where[r] for r in runs], dtype=np.int64)


def run_vector(values, what: str = "values"):
    """``(v, runs)``: one float64 value per run from a 1-D array, a per-run Series or a
    one-column per-run DataFrame (``reeval.evaluate(...)["AP"]``); runs ``None`` for an array."""
    import pandas as pd

    if isinstance(values, pd.DataFrame):
        values = _one_column(values, what)
    if isinstance(values, pd.Series):
        return numbers(values.to_numpy(), what), list(values.index)
    v = numbers(values, what)
    if v.ndim != 1:
        raise InputError(f"{what} must be 1-D (one value per run), got shape {v.shape}")
    return v, None


def aligned(a, b, what: str = "a and b"):
    """Two 1-D vectors over the same items as float64 arrays. Two labelled Series (per-run
    values, or one run's per-topic values ``by_topic.loc["runA", "AP"]``) are aligned on
    their labels, which must be the same set (InputError otherwise); arrays are taken as
    they are (same order)."""
    import pandas as pd

    if isinstance(a, pd.DataFrame):
        a = _one_column(a, what)
    if isinstance(b, pd.DataFrame):
        b = _one_column(b, what)
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        if a.index.has_duplicates or b.index.has_duplicates or set(a.index) != set(b.index):
            only = sorted(map(str, set(a.index) ^ set(b.index)))[:3]
            raise InputError(f"{what}: the two series must have the same labels, once each"
                             + (f"; only in one: {', '.join(only)}" if only else ""))
        b = b.reindex(a.index)
    return numbers(a, what), numbers(b, what)
