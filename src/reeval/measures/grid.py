"""The judged-position grid the measures are computed on.

One row per judged document a run retrieved (``g`` = run * T + topic, ``pos`` its 1-based
rank in trec_eval order, ``rel`` its grade), sorted by (run, topic, pos), with the
documents retrieved per (run, topic) and the qrels; built from the central tables
(:func:`build_grid`) or straight from an ingested track (:func:`grid_from_track`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reeval.io.bytetext import sorted_texts


@dataclass
class Grid:
    """Dense runs x topics evaluation input derived from the central tables.

    rows_* are the judged rows sorted by (run, topic, pos); ``g`` = run * T + topic.
    """

    runs: list
    topics: list
    g: np.ndarray
    pos: np.ndarray
    rel: np.ndarray
    docno: np.ndarray | None
    n_ret: np.ndarray      # (S, T) documents retrieved (after max_depth)
    qrels_topic: np.ndarray
    qrels_rel: np.ndarray
    qrels_docno: np.ndarray | None
    #: (S, T) the run retrieved documents for the topic (None: n_ret > 0); a grid of only
    #: the judged documents (trec_eval -J) keeps the answered topics of the whole ranking
    answered: np.ndarray | None = None

    @property
    def shape(self):
        return len(self.runs), len(self.topics)

    @property
    def answered_topics(self) -> np.ndarray:
        """(S, T) the run answered the topic (retrieved documents, judged or not)."""
        return self.n_ret > 0 if self.answered is None else self.answered


def _codes(values, categories) -> np.ndarray:
    """Index of each value in ``categories`` (-1 if absent).

    Arrow columns are looked up once per run of equal consecutive values (the central
    tables are sorted, so there are few), or through a dictionary when runs are short;
    a dictionary-encoded column through its dictionary (chunk by chunk).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        import pandas as pd

        return pd.Categorical(values, categories=categories).codes.astype(np.int64)
    if isinstance(values, pa.ChunkedArray) and pa.types.is_dictionary(values.type) and values.num_chunks > 1:
        # ingest's judged table: one chunk per run, each with its own dictionary
        return np.concatenate([_codes(chunk, categories) for chunk in values.chunks])
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    lookup = pa.array(list(categories), type=pa.string())

    def index_of(strings: pa.Array) -> np.ndarray:
        found = pc.index_in(strings.cast(pa.string()), value_set=lookup)
        return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)

    if not pa.types.is_dictionary(arr.type):
        change = pc.not_equal(arr[1:], arr[:-1]).to_numpy(zero_copy_only=False)
        starts = np.flatnonzero(np.r_[True, change])
        if len(starts) <= n // 8:
            return np.repeat(index_of(arr.take(pa.array(starts))), np.diff(np.r_[starts, n]))
        arr = pc.dictionary_encode(arr)
    return index_of(arr.dictionary)[arr.indices.to_numpy(zero_copy_only=False)]


def _col(table, name, raw: bool = False):
    """Column of a pandas DataFrame or pyarrow Table: numpy, or the Arrow column if raw."""
    if hasattr(table, "column_names"):
        col = table.column(name)
        return col if raw else col.to_numpy()
    return table[name].to_numpy()


def _sorted_distinct(table, name) -> list:
    """The distinct values of a column in byte order (trec_eval's ``strcmp`` order, of the
    bytes escaped texts stand for: :func:`reeval.io.bytetext.sorted_texts`)."""
    if hasattr(table, "column_names"):
        import pyarrow.compute as pc

        return sorted_texts(pc.unique(table.column(name)).to_pylist())
    return sorted_texts(set(table[name].tolist()))


def build_grid(judged, depth, qrels, runs=None, max_depth: int | None = None,
               keep_docno: bool = False) -> Grid:
    """Encode the central tables onto a runs x topics grid.

    ``runs`` fixes the run order (default: sorted names in ``depth``); topics are the
    qrels topics, sorted. Judged rows of other runs/topics are ignored. ``max_depth``
    keeps only the first max_depth documents of each ranking (trec_eval -M).
    """
    topics = _sorted_distinct(qrels, "qid")
    if runs is None:
        runs = _sorted_distinct(depth, "run")
    runs = list(runs)
    S, T = len(runs), len(topics)
    r = _codes(_col(judged, "run", raw=True), runs)
    t = _codes(_col(judged, "qid", raw=True), topics)
    pos = _col(judged, "pos").astype(np.int64)
    rel = _col(judged, "rel").astype(np.int64, copy=False)
    keep = (r >= 0) & (t >= 0)
    if max_depth is not None:
        keep &= pos <= max_depth
    g = r * T
    g += t
    docno = _col(judged, "docno") if keep_docno else None
    if not keep.all():
        g, pos, rel = g[keep], pos[keep], rel[keep]
        docno = docno[keep] if keep_docno else None
    if len(g) > 1 and not _is_sorted(g * (int(pos.max()) + 1) + pos):
        order = np.lexsort((pos, g))
        g, pos, rel = g[order], pos[order], rel[order]
        if docno is not None:
            docno = docno[order]
    n_ret = np.zeros((S, T), dtype=np.int64)
    dr = _codes(_col(depth, "run", raw=True), runs)
    dt = _codes(_col(depth, "qid", raw=True), topics)
    ok = (dr >= 0) & (dt >= 0)
    n_ret[dr[ok], dt[ok]] = _col(depth, "n_ret")[ok]
    if max_depth is not None:
        n_ret = np.minimum(n_ret, max_depth)
    qt = _codes(_col(qrels, "qid", raw=True), topics)
    return Grid(runs=runs, topics=topics, g=g, pos=pos, rel=rel, docno=docno, n_ret=n_ret,
                qrels_topic=qt, qrels_rel=_col(qrels, "rel").astype(np.int64),
                qrels_docno=_col(qrels, "docno") if keep_docno else None)


def grid_from_track(tables, runs=None, max_depth: int | None = None, keep_docno: bool = False,
                    ordering: tuple | None = None) -> Grid:
    """The grid of an ingested track (:class:`reeval.io.ingest.TrackTables`) straight from its
    numpy parts, no Arrow table: equal to ``build_grid(tables.judged, tables.depth,
    tables.qrels, runs, max_depth, keep_docno)``.

    ``runs`` fixes the run order (default: the sorted names of the runs that answered a
    topic); a name without a part gets no row. Each part is sorted by topic and
    position, so concatenating them in run order gives the grid's (run, topic, pos) order.
    ``ordering``: another ordering the track was ingested with (a key of each part's
    ``orders``): its positions instead, each part's judged rows sorted by them.
    """
    q = tables.lookup.qrels
    parts = {part.name: part for part in tables.parts}
    if runs is None:
        runs = sorted_texts(part.name for part in tables.parts if part.n_ret.any())
    runs = list(runs)
    S, T = len(runs), len(q.topics)
    qrels_docno = np.array(q.docno.tolist(), dtype=object) if keep_docno else None
    g, pos, qrow = [], [], []
    n_ret = np.zeros((S, T), dtype=np.int64)
    for si, name in enumerate(runs):
        part = parts.get(name)
        if part is None:
            continue
        at = part.judged
        part_pos = part.pos if ordering is None else part.orders[ordering]
        if max_depth is not None:
            at = at[part_pos[at] <= max_depth]
        if ordering is not None:  # the topics stay sorted; within each, by the other positions
            at = at[np.lexsort((part_pos[at], part.topic[at]))]
        g.append(si * T + part.topic[at])
        pos.append(part_pos[at].astype(np.int64))
        qrow.append(part.qrow[at])
        n_ret[si] = part.n_ret if max_depth is None else np.minimum(part.n_ret, max_depth)
    join = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64))
    g, pos, qrow = join(g), join(pos), join(qrow)
    return Grid(runs=runs, topics=list(q.topics), g=g, pos=pos, rel=q.rel[qrow].astype(np.int64),
                docno=qrels_docno[qrow] if keep_docno else None, n_ret=n_ret,
                qrels_topic=q.topic.astype(np.int64), qrels_rel=q.rel.astype(np.int64), qrels_docno=qrels_docno)


def _is_sorted(a: np.ndarray) -> bool:
    """True when ``a`` is non-decreasing."""
    return bool((a[1:] >= a[:-1]).all())


def grouped_cumsum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``values`` restarting at each group start (row 0 starts one).

    Booleans are summed as int64. Computed as the running total minus, repeated over
    each group, the total before the group.
    """
    c = np.cumsum(values, dtype=np.int64 if values.dtype == bool else None)
    if len(c) == 0:
        return c
    first = np.flatnonzero(starts)
    if len(first) == 0 or first[0] != 0:
        first = np.r_[0, first]
    before = c[first] - values[first]
    c -= np.repeat(before, np.diff(np.r_[first, len(c)]))
    return c
