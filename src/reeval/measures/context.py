"""What the measures of one grid share, computed once on first use.

For a :class:`~reeval.measures.grid.Grid` (S runs x T topics, judged rows sorted by run,
topic and position) and a relevance level (a level below 0 is read as 0: a negative grade
is never relevant): ``is_rel`` (rel >= rel_level per row),
``cum_rel`` (relevant rows at or above each row in its ranking), ``R`` (relevant qrels
documents per topic), ``rel_ret`` (relevant documents each run retrieved per topic) and
:meth:`Context.count` (a sum per (run, topic) of selected rows), plus a cache for
intermediates several measures of a family use (AP for map and gm_map, the interpolated
precisions of iprec_at_recall, the gains of the nDCG family).

A measure with a relevance level of its own (``AP(rel=2)``) or ranking only the judged
documents (``judged_only``, trec_eval -J) is computed on :meth:`Context.variant`, a
context of the same grid for that level, or of the grid with every document that is not
judged (not in the qrels, or judged with a negative grade) removed and the others moved
up. ``version`` is the trec_eval whose conventions apply where 9.x and 10 differ (10 by
default; 9 for ``precision="float32"``); ``num_docs`` is trec_eval's -N (documents in
the collection, for ``utility``).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

import numpy as np

from reeval.choices import UNRETRIEVED_POLICIES
from reeval.io.arrays import group_starts, position_in_group

from .grid import Grid, grouped_cumsum

#: Largest number of cells a padded (groups x positions) work array may have at once.
PADDED_CELLS = 1 << 23


class Context:
    """The shared intermediates of the measures on one grid (see the module doc)."""

    def __init__(self, grid: Grid, rel_level: int = 1, unretrieved: str = "after_last",
                 version: int = 10, num_docs: int = 0):
        if unretrieved not in UNRETRIEVED_POLICIES:
            raise ValueError(f"unretrieved must be one of {UNRETRIEVED_POLICIES}")
        if version not in (9, 10):
            raise ValueError(f"version must be 9 or 10, not {version!r}")
        # a level below 0 is 0: a negative grade means "not judged", never relevant (trec_eval
        # counts such documents, and unjudged ones, as relevant retrieved but not in num_rel)
        self.grid, self.rel_level, self.unretrieved = grid, max(int(rel_level), 0), unretrieved
        self.version, self.num_docs = version, num_docs
        self.S, self.T = grid.shape
        self.g, self.pos, self.rel = grid.g, grid.pos, grid.rel
        self.cache: dict = {}
        self.variants: dict = {}

    def variant(self, rel_level: int | None = None, judged_only: bool = False) -> "Context":
        """The context of this grid at another relevance level, or with only the judged
        documents ranked (``judged_only``); this context when neither changes."""
        level = self.rel_level if rel_level is None else max(int(rel_level), 0)
        if level == self.rel_level and not judged_only:
            return self
        key = (level, judged_only)
        if key not in self.variants:
            grid = judged_only_grid(self.grid) if judged_only else self.grid
            self.variants[key] = Context(grid, level, self.unretrieved, self.version, self.num_docs)
        return self.variants[key]

    @cached_property
    def starts(self) -> np.ndarray:
        """True at the first judged row of each ranking."""
        return group_starts(self.g)

    @cached_property
    def topic_of_row(self) -> np.ndarray:
        return self.g % self.T

    @property
    def judged_only(self) -> bool:
        """Only the judged documents are ranked (trec_eval -J)."""
        return self.grid.answered is not None

    @property
    def phantom(self) -> int:
        """Documents in trec_eval's ranking of a topic the run missed, under -c: one document
        not in the qrels (trec_eval evaluates it, then zeroes num_ret, unj and the measures
        named ``utility``, ``relstring`` and ``rbp_resid`` exactly, so not those names with
        parameters), none under -J, which removes it."""
        return 0 if self.judged_only else 1

    @cached_property
    def is_rel(self) -> np.ndarray:
        return self.rel >= self.rel_level

    @cached_property
    def judged(self) -> np.ndarray:
        """Rows judged with a grade >= 0 (trec_eval: a row graded < 0 is 'in the pool but
        not judged')."""
        return self.rel >= 0

    @cached_property
    def cum_rel(self) -> np.ndarray:
        """Relevant rows at or above each row, in its ranking."""
        return grouped_cumsum(self.is_rel, self.starts)

    @cached_property
    def R(self) -> np.ndarray:
        """(T,) relevant qrels documents per topic (grade >= rel_level and >= 0, as
        trec_eval counts them), float."""
        grid = self.grid
        qrel = grid.qrels_rel
        return np.bincount(grid.qrels_topic[(qrel >= self.rel_level) & (qrel >= 0)],
                           minlength=self.T).astype(np.float64)

    @cached_property
    def rel_ret(self) -> np.ndarray:
        """(S, T) relevant documents retrieved."""
        return self.count(self.is_rel)

    @cached_property
    def n_ret(self) -> np.ndarray:
        """(S, T) documents retrieved, float."""
        return self.grid.n_ret.astype(np.float64)

    @cached_property
    def answered(self) -> np.ndarray:
        """(S, T) the run returned documents for the topic."""
        return self.grid.answered_topics

    def count(self, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """(S, T) float: the rows of ``mask`` counted (or their ``weights`` summed, one
        after the other in ranking order) per (run, topic)."""
        return np.bincount(self.g[mask], weights=None if weights is None else weights[mask],
                           minlength=self.S * self.T).reshape(self.S, self.T).astype(np.float64)

    def top(self, k) -> np.ndarray:
        """Rows at rank <= k (k a number, or one per topic, shape (T,))."""
        return self.pos <= (k[self.topic_of_row] if np.ndim(k) else k)

    def rel_in_top(self, k) -> np.ndarray:
        """(S, T) relevant documents at rank <= k."""
        return self.count(self.is_rel & self.top(k))

    def once(self, key, make):
        """``make()``, computed once per key on this grid."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    def powers(self, p: float, n: int) -> np.ndarray:
        """p^0, p^1, ..., p^n, each the previous one times p (as C multiplies in a loop)."""
        return self.once(("powers", p, n), lambda: np.cumprod(np.r_[1.0, np.full(n, p)]))


def safe_div(num, den):
    """num / den, 0 where den is 0."""
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):  # huge or infinite sums give inf or NaN, as C: no warning
        return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)


def sequential_cumsum(values: np.ndarray, groups: np.ndarray, op=np.add) -> np.ndarray:
    """Inclusive running sum (``op=np.multiply``: product) of ``values`` within each run of
    equal ``groups`` (sorted), each formed one operation after the other, as a C loop
    accumulates: bit for bit the doubles trec_eval computes. (Subtracting a global running
    sum, as :func:`.grid.grouped_cumsum` does for counts, would round differently.)
    Computed on a padded (groups x longest group) array, in chunks of at most
    :data:`PADDED_CELLS`."""
    values = np.asarray(values, dtype=np.float64)
    out = np.empty_like(values)
    if not len(values):
        return out
    starts = group_starts(groups)
    first = np.flatnonzero(starts)
    col = position_in_group(starts) - 1
    lengths = np.diff(np.r_[first, len(values)])
    lo = 0
    while lo < len(first):
        width = int(lengths[lo])
        hi = lo + 1
        while hi < len(first) and (hi - lo + 1) * max(width, int(lengths[hi])) <= PADDED_CELLS:
            width = max(width, int(lengths[hi]))
            hi += 1
        rows = slice(first[lo], first[hi] if hi < len(first) else len(values))
        block = np.full((hi - lo, width), op.identity, dtype=np.float64)
        r = np.repeat(np.arange(hi - lo), lengths[lo:hi])
        block[r, col[rows]] = values[rows]
        out[rows] = op.accumulate(block, axis=1)[r, col[rows]]
        lo = hi
    return out


def judged_only_grid(grid: Grid) -> Grid:
    """The grid trec_eval -J evaluates: only the documents judged with a grade >= 0, ranked
    in their order (rank = their position among them), documents retrieved = their
    number; the topics answered stay those of the whole ranking (trec_eval evaluates a
    topic whose retrieved documents are all unjudged)."""
    keep = grid.rel >= 0
    g = grid.g[keep]
    pos = position_in_group(group_starts(g)).astype(np.int64) if len(g) else g.astype(np.int64)
    n_ret = np.bincount(g, minlength=grid.n_ret.size).reshape(grid.n_ret.shape).astype(np.int64)
    return replace(grid, g=g, pos=pos, rel=grid.rel[keep], n_ret=n_ret, answered=grid.answered_topics,
                   docno=None if grid.docno is None else grid.docno[keep])
