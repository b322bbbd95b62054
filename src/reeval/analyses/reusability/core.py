"""Leave one group out: each group's pool contribution and its runs re-scored without it.

The standard reusability test of a test collection (Zobel 1998; Buckley, Dimmick, Soboroff
& Voorhees 2007). For a track pooled to depth d from its participants' runs:

- the pool contribution of group g is the set of judged (topic, document) pairs that g's
  runs place in their top d (trec_eval order: score descending, docno descending, the
  grid's ``pos``) and no other group's runs do;
- g's runs are scored on the qrels less those pairs (a removed document counts as
  unjudged, so non-relevant, and leaves R_q); every other run keeps its full-qrels score.

All groups at once, in one pass over the judged rows: only the (run, topic) cells whose
group removed something at that topic can change. Those cells become the topics of one
"cell grid" (:func:`cell_grid`): its judged rows are the run's rows less the removed
ones, its qrels for cell (s, t) the qrels of t less the pairs removed for s's group. The
registered measures run on it unchanged (a second, empty row of the cell grid carries each
topic's track depth, which ASL reads for unanswered topics), and each cell's value replaces
the full-qrels value of that (run, topic). The run means follow trec_eval -c on the
reduced qrels: a topic whose every judgment was removed leaves the run's average (it is no
longer a qrels topic); ASL measures average over topics with a relevant document left.

Rareness measures (:mod:`reeval.analyses.rareness.core`) are recomputed as if the group had
not taken part: for a run s of group g, S_d counts s and the runs of the other groups
(c_k(d) - c_k^g(d) + 1), S counts the same runs (S - |g| + 1, or per topic the runs that
answered it), R_q and the hits are those of the reduced qrels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from reeval.errors import InputError
from reeval.io.arrays import group_starts
from reeval.measures import Grid, aggregate_values, evaluate_grid, track_depth


@dataclass
class Pool:
    """Every group's pool contribution on a grid.

    ``groups``: group names (index = group code); ``run_group`` (S,): each run's group code;
    ``qrow`` (N,): the qrels row of each judged row of the grid; ``owner`` (Q,): per qrels
    row, the code of the only group whose runs place it in their top ``depth``, -1 when no
    group or several do; ``contributors`` (Q,): how many groups do; ``qrels_topic`` (Q,):
    the topic of each qrels row.
    """

    groups: list
    run_group: np.ndarray
    qrow: np.ndarray
    owner: np.ndarray
    contributors: np.ndarray
    depth: int
    qrels_topic: np.ndarray

    def removed(self, n_topics: int, mask: np.ndarray | None = None) -> np.ndarray:
        """(G, T) pairs removed for each group, per topic (qrels rows of ``mask`` only)."""
        return _group_topic_counts(self.owner, self.qrels_topic, len(self.groups), n_topics, mask)


def _group_topic_counts(owner, qrels_topic, n_groups, n_topics, mask=None) -> np.ndarray:
    """(G, T) count of qrels rows per (owner group, topic), rows of ``mask`` only."""
    sel = owner >= 0 if mask is None else (owner >= 0) & mask
    return np.bincount(owner[sel] * n_topics + qrels_topic[sel],
                       minlength=n_groups * n_topics).reshape(n_groups, n_topics)


def group_codes(runs, groups) -> tuple[list, np.ndarray]:
    """(group names, (S,) group code of each run) for a mapping run -> group name.

    A run missing from ``groups`` is its own group (named as the run); ``groups=None``
    makes every run its own group. Group names are ordered by first appearance in ``runs``.
    InputError when a run missing from ``groups`` bears the name of another run's group:
    the two would silently form one group.
    """
    if groups is not None:
        given = set(runs)  # once: a set per mapping entry made this runs x entries
        named = {str(g) for r, g in groups.items() if r in given}
        clash = [r for r in runs if r not in groups and r in named]
        if clash:
            raise InputError(f"groups: run {clash[0]!r} has no group, but {clash[0]!r} is the group of other "
                             f"runs: give it its group (or another name) so that the two are not one group")
    names = [str(groups.get(r, r)) if groups is not None else r for r in runs]
    order = list(dict.fromkeys(names))
    index = {g: i for i, g in enumerate(order)}
    return order, np.array([index[n] for n in names], dtype=np.int64)


def groups_from_pattern(runs, pattern: str) -> dict:
    """run -> group from a regular expression searched in each run name: its first
    capturing group (the whole match when it has none). ValueError, in one line naming the
    first such run and how many more there are, for a pattern that does not compile, that
    does not match a run, or whose group captures nothing for a run (``^(x)?`` gives None,
    ``^()`` the empty text): each would put runs in a group of no name, or alone, unsaid."""
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"group pattern {pattern!r} is not a regular expression: {exc}") from None
    out, unmatched, empty = {}, [], []
    for run in runs:  # one search per run name
        m = rx.search(run)
        group = (m.group(1) if rx.groups else m.group(0)) if m else None
        if not m:
            unmatched.append(run)
        elif not group:
            empty.append(run)
        else:
            out[run] = group
    for refused, what in ((unmatched, "does not match run"), (empty, "captures nothing for run")):
        if refused:
            more = f" (and {len(refused) - 1} more run{'s' if len(refused) > 2 else ''})" if len(refused) > 1 else ""
            raise ValueError(f"group pattern {pattern!r} {what} {refused[0]!r}{more}: every run needs a "
                             "group (its first capturing group, not empty)")
    return out


def coded_docnos(judged, qrels) -> tuple:
    """Arrow tables ``judged`` and ``qrels`` with their ``docno`` column replaced by an int64
    code: the docno's index among the qrels' distinct docnos (-1 for a judged docno the qrels
    lack). A grid built from them with ``keep_docno=True`` matches judged rows to qrels rows
    by integers (:func:`judged_qrels_rows`, rareness's hits) instead of by Python strings.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    def text(values):
        return values.cast(pa.string()) if pa.types.is_dictionary(values.type) else values

    qdoc = text(qrels.column("docno").combine_chunks())
    docs = pc.unique(qdoc)

    def codes(values) -> pa.Array:
        return pc.fill_null(pc.index_in(values, value_set=docs), -1).cast(pa.int64())

    jdoc = text(judged.column("docno").combine_chunks())  # one lookup: index_in hashes docs per call
    return (judged.set_column(judged.column_names.index("docno"), "docno", codes(jdoc)),
            qrels.set_column(qrels.column_names.index("docno"), "docno", codes(qdoc)))


def judged_qrels_rows(grid: Grid) -> np.ndarray:
    """(N,) the qrels row of each judged row of a grid built with ``keep_docno=True``,
    matched on (topic, docno): docnos as strings (hashed by Arrow's ``index_in``) or as the
    integer codes of :func:`coded_docnos`; ValueError if one is missing (not a grid of these
    qrels)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    if grid.docno is None or grid.qrels_docno is None:
        raise ValueError("leave one group out needs a grid built with keep_docno=True")
    Q, T = len(grid.qrels_topic), grid.shape[1]
    if np.issubdtype(np.asarray(grid.docno).dtype, np.integer) and \
            np.issubdtype(np.asarray(grid.qrels_docno).dtype, np.integer):
        qcode, rcode = np.asarray(grid.qrels_docno, dtype=np.int64), np.asarray(grid.docno, dtype=np.int64)
        D = max(int(qcode.max(initial=-1)) + 1, 1)
    else:
        qdoc = pa.array(np.asarray(grid.qrels_docno, dtype=object), type=pa.string())
        docs = pc.unique(qdoc)
        D = max(len(docs), 1)

        def codes(values) -> np.ndarray:
            found = pc.index_in(pa.array(np.asarray(values, dtype=object), type=pa.string()), value_set=docs)
            return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)

        qcode, rcode = codes(qdoc), codes(grid.docno)
    qkey = grid.qrels_topic * D + qcode
    rkey = (grid.g % T) * D + rcode if T else rcode
    index = pd.Index(qkey)
    if index.is_unique:  # a hash lookup per judged row (qrels keep one row per topic and docno)
        found = index.get_indexer(rkey)
        if (found < 0).any() or (rcode < 0).any():
            raise ValueError("a judged row is missing from the qrels")
        return found.astype(np.int64)
    order = np.argsort(qkey, kind="stable")
    at = np.minimum(np.searchsorted(qkey[order], rkey), max(Q - 1, 0))
    if len(rkey) and (Q == 0 or (rcode < 0).any() or (qkey[order][at] != rkey).any()):
        raise ValueError("a judged row is missing from the qrels")
    return order[at] if Q else np.zeros(0, dtype=np.int64)


def pool_contributions(grid: Grid, groups, depth: int, pooled=None) -> Pool:
    """Each group's pool contribution (module doc): per qrels row, the groups whose runs
    place it in their top ``depth``. ``groups``: run -> group (None: each run alone);
    ``pooled``: the runs that contributed to the pool (None: every run), as TREC pooled
    only some runs of each group (their "priority" runs); the others are still scored."""
    if int(depth) < 1:
        raise ValueError(f"pool depth must be at least 1, not {depth}")
    names, run_group = group_codes(grid.runs, groups)
    S, T = grid.shape
    G, Q = len(names), len(grid.qrels_topic)
    qrow = judged_qrels_rows(grid)
    sel = grid.pos <= depth
    if pooled is not None:
        wanted = set(pooled)
        sel &= np.array([r in wanted for r in grid.runs], dtype=bool)[grid.g // T] if T else sel
    pairs = distinct(qrow[sel] * G + run_group[grid.g[sel] // T], Q * G) if T else np.zeros(0, dtype=np.int64)
    q, grp = pairs // G, pairs % G
    contributors = np.bincount(q, minlength=Q)
    owner = np.full(Q, -1, dtype=np.int64)
    only = contributors[q] == 1
    owner[q[only]] = grp[only]
    return Pool(names, run_group, qrow, owner, contributors, int(depth), grid.qrels_topic)


#: :func:`distinct` marks values in an array of at most this many bytes (else it sorts)
DISTINCT_MARKS = 1 << 26


def distinct(keys: np.ndarray, size: int) -> np.ndarray:
    """``np.unique(keys)`` of integer keys in [0, ``size``): the values marked in a boolean
    array of ``size`` when it is at most :data:`DISTINCT_MARKS` (two passes, no sort, no
    hash), else numpy's own."""
    if size > DISTINCT_MARKS:
        return np.unique(keys)
    marks = np.zeros(size, dtype=bool)
    marks[keys] = True
    return np.flatnonzero(marks).astype(np.asarray(keys).dtype, copy=False)


@dataclass
class CellGrid:
    """The (run, topic) cells a group's removal changes, as a grid (:func:`cell_grid`).

    ``run``/``topic`` (C,): the cell's run and topic; ``grid``: 2 x C (row 0 the cells,
    row 1 empty but for each topic's track depth).
    """

    run: np.ndarray
    topic: np.ndarray
    grid: Grid


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions of the concatenated ranges [starts[i], starts[i] + lengths[i]), in
    order: ``arange(total) + repeat(starts - first, lengths)``, first the offset of range i
    in the output (two passes over the output, no per-element lookup of its range)."""
    first = np.cumsum(lengths) - lengths
    return np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts - first, lengths)


def cell_grid(grid: Grid, pool: Pool) -> CellGrid:
    """The grid of the cells whose group removed pairs at their topic (module doc).

    A cell's qrels are its topic's less the rows its group owns. With the qrels ordered by
    (topic, owner), the rows group g owns at topic t are one block, so a cell's rows are the
    two ranges of its topic around that block: built straight as ranges, never as the whole
    topic masked (the cells' qrels are most of C x the topic's rows). Within a cell they are
    in (owner, qrels) order; the measures read a topic's qrels as a multiset of grades."""
    S, T = grid.shape
    G = len(pool.groups)
    removed = pool.removed(T)
    affected = removed[pool.run_group] > 0 if S else np.zeros((0, T), dtype=bool)
    run, topic = np.nonzero(affected)
    C = len(run)
    cell_of = np.full(S * T, -1, dtype=np.int64)
    cell_of[run * T + topic] = np.arange(C)
    row_cell = cell_of[grid.g]
    keep = (row_cell >= 0) & (pool.owner[pool.qrow] != pool.run_group[grid.g // T])
    key = grid.qrels_topic * (G + 1) + (pool.owner + 1)
    qorder = np.argsort(key, kind="stable")
    per_topic = np.bincount(grid.qrels_topic, minlength=T)
    topic_end = np.cumsum(per_topic)
    group = pool.run_group[run]
    cut = np.searchsorted(key[qorder], topic * (G + 1) + group + 1)  # where group's block starts
    after = cut + removed[group, topic]
    starts = np.stack([topic_end[topic] - per_topic[topic], after], axis=1).ravel()
    lengths = np.stack([cut - starts[0::2], topic_end[topic] - after], axis=1).ravel()
    rows = qorder[_ranges(starts, lengths)]
    n_ret = np.vstack([grid.n_ret[run, topic], track_depth(grid.n_ret)[topic] if S else np.zeros(C, dtype=np.int64)])
    cells = Grid(runs=["cells", "depth"], topics=list(range(C)), g=row_cell[keep], pos=grid.pos[keep],
                 rel=grid.rel[keep], docno=None, n_ret=n_ret.astype(np.int64),
                 qrels_topic=np.repeat(np.arange(C, dtype=np.int64), lengths[0::2] + lengths[1::2]),
                 qrels_rel=grid.qrels_rel[rows], qrels_docno=None)
    return CellGrid(run, topic, cells)


def topics_left(grid: Grid, pool: Pool) -> np.ndarray:
    """(S, T) True where the qrels less the run's group's contribution still judge the topic
    (trec_eval -c averages a run over those topics)."""
    S, T = grid.shape
    per_topic = np.bincount(grid.qrels_topic, minlength=T)
    return (per_topic[None, :] - pool.removed(T))[pool.run_group] > 0


def logo_topic_values(grid: Grid, pool: Pool, full_values: dict, measures, rel_level: int = 1,
                      unretrieved: str = "after_last", version: int = 10) -> tuple[dict, np.ndarray]:
    """Per-topic values of the registered ``measures`` with each run's group left out:
    ``(values, relevant_left)``, values a measure name -> (S, T) array (``full_values``,
    from :func:`reeval.measures.evaluate_grid` on ``grid``, where nothing changes),
    ``relevant_left`` (S, T) whether the reduced qrels hold a relevant document."""
    S, T = grid.shape
    cells = cell_grid(grid, pool)
    values = {m.name: np.array(full_values[m.name], dtype=np.float64, copy=True) for m in measures}
    relevant = (grid.qrels_rel >= rel_level) & (grid.qrels_rel >= 0)  # as Context.R counts them
    R = np.bincount(grid.qrels_topic[relevant], minlength=T)
    relevant_left = (R[None, :] - pool.removed(T, relevant))[pool.run_group] > 0
    if len(cells.run):
        scores = evaluate_grid(cells.grid, measures, rel_level=rel_level, unretrieved=unretrieved, version=version)
        for m in measures:
            values[m.name][cells.run, cells.topic] = scores.values[m.name][0]
    return values, relevant_left


def run_means(grid: Grid, values: dict, measures, topic_in, has_rel) -> dict:
    """Run means over the topics of ``topic_in`` (ASL measures: also ``has_rel``), added as
    :func:`reeval.measures.aggregate_values` adds them."""
    from reeval.measures import TopicScores

    out = {}
    for is_asl in (False, True):
        group = [m for m in measures if m.is_asl == is_asl]
        if not group:
            continue
        ts = TopicScores(runs=grid.runs, topics=grid.topics, values=values,
                         answered=topic_in & has_rel if is_asl else topic_in,
                         num_rel=np.ones(len(grid.topics)), n_unretrieved=None, asl_unanswered=None)
        agg = aggregate_values(ts, group, complete=False)
        out.update({m.name: np.asarray(agg[m.name], dtype=np.float64) for m in group})
    return out


def logo_rareness(grid: Grid, pool: Pool, measure, alpha, rel_level: int = 1, systems: str = "all"):
    """(S, T) values of a rareness measure with each run's group left out (module doc).

    For a hit h of run s (group g) on relevant document d: S_d = c_k(d) - c_k^g(d) + 1,
    S = S_all - |g| + 1 (``systems="all"``) or S_q - answered_q^g + 1 (``"answered"``);
    hits on removed documents drop; R_q is the reduced one (alpha ``1/R`` too).
    """
    from reeval.analyses.rareness.core import FAMILIES, check_alpha, rarity, top_k_hits

    if measure.family not in FAMILIES:
        raise ValueError(f"not a rareness measure: {measure.name}")
    S, T = grid.shape
    G = len(pool.groups)
    hits = top_k_hits(grid, measure.cutoff, rel_level)
    rel_rows = np.flatnonzero(grid.qrels_rel >= rel_level)
    hit_row = rel_rows[hits.doc]
    grp = pool.run_group[hits.run]
    counts = np.bincount(hits.doc, minlength=len(hits.doc_topic))
    _, inverse, per_key = np.unique(grp * max(len(hits.doc_topic), 1) + hits.doc, return_inverse=True,
                                    return_counts=True)
    size = np.bincount(pool.run_group, minlength=G)
    if systems == "all":
        n_sys = S - size[grp] + 1
    else:
        answered = hits.answered
        by_group = np.zeros((G, T), dtype=np.int64)
        np.add.at(by_group, pool.run_group, answered.astype(np.int64))
        n_sys = answered.sum(axis=0)[hits.topic] - by_group[grp, hits.topic] + 1
    removed_rel = pool.removed(T, grid.qrels_rel >= rel_level)
    R = (hits.num_rel[hits.topic] - removed_rel[grp, hits.topic]).astype(np.float64)
    keep = pool.owner[hit_row] != grp
    normalized = measure.family.endswith("_norm")
    alpha = check_alpha(alpha)
    a = np.divide(1.0, R, out=np.zeros(len(R)), where=R > 0) if isinstance(alpha, str) else np.full(len(R), alpha)
    r = rarity(counts[hits.doc] - per_key[inverse.ravel()] + 1, n_sys, normalized)
    w = (((1.0 - a) if normalized else 1.0) + a * r)[keep]
    g = (hits.run * T + hits.topic)[keep]
    if measure.family.startswith("AP"):
        import pandas as pd

        pos = hits.pos[keep]
        group = np.cumsum(group_starts(g))
        suffix = pd.Series((1.0 / pos)[::-1]).groupby(group[::-1]).cumsum().to_numpy()[::-1]
        coef = suffix / R[keep]
    else:
        coef = np.full(len(g), 1.0 / measure.cutoff)
    return np.bincount(g, weights=coef * w, minlength=S * T).reshape(S, T)


def ranks(values: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """1-based competition rank of each value (1 + the values strictly better); NaN last."""
    v = np.where(np.isnan(values), -np.inf if higher_is_better else np.inf, values)
    key = -v if higher_is_better else v
    ordered = np.sort(key)
    return 1 + np.searchsorted(ordered, key, side="left")


def logo_ranks(full: np.ndarray, logo: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Each run's rank when it scores ``logo`` and every other run its ``full`` score:
    1 + the other runs whose full score is strictly better than its ``logo`` score."""
    fill = -np.inf if higher_is_better else np.inf
    f, g = np.where(np.isnan(full), fill, full), np.where(np.isnan(logo), fill, logo)
    key_f, key_g = (-f, -g) if higher_is_better else (f, g)
    better = np.searchsorted(np.sort(key_f), key_g, side="left")
    return 1 + better - (key_f < key_g)
