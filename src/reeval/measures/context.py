"""What the measures of one grid share, computed once on first use.

For a :class:`~reeval.measures.grid.Grid` (S runs x T topics, judged rows sorted by run,
topic and position) and a relevance level: ``is_rel`` (rel >= rel_level per row),
``cum_rel`` (relevant rows at or above each row in its ranking), ``R`` (relevant qrels
documents per topic), ``rel_ret`` (relevant documents each run retrieved per topic) and
:meth:`Context.count` (a sum per (run, topic) of selected rows), plus a cache for
intermediates several measures of a family use (AP for map and gm_map, the 11 levels of
iprec_at_recall, the ideal DCG per cutoff).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from reeval.choices import UNRETRIEVED_POLICIES
from reeval.io.arrays import group_starts

from .grid import Grid, grouped_cumsum


class Context:
    """The shared intermediates of the measures on one grid (see the module doc)."""

    def __init__(self, grid: Grid, rel_level: int = 1, unretrieved: str = "after_last"):
        if unretrieved not in UNRETRIEVED_POLICIES:
            raise ValueError(f"unretrieved must be one of {UNRETRIEVED_POLICIES}")
        self.grid, self.rel_level, self.unretrieved = grid, rel_level, unretrieved
        self.S, self.T = grid.shape
        self.g, self.pos, self.rel = grid.g, grid.pos, grid.rel
        self.cache: dict = {}

    @cached_property
    def starts(self) -> np.ndarray:
        """True at the first judged row of each ranking."""
        return group_starts(self.g)

    @cached_property
    def topic_of_row(self) -> np.ndarray:
        return self.g % self.T

    @cached_property
    def is_rel(self) -> np.ndarray:
        return self.rel >= self.rel_level

    @cached_property
    def cum_rel(self) -> np.ndarray:
        """Relevant rows at or above each row, in its ranking."""
        return grouped_cumsum(self.is_rel, self.starts)

    @cached_property
    def R(self) -> np.ndarray:
        """(T,) relevant qrels documents per topic (rel >= rel_level), float."""
        grid = self.grid
        return np.bincount(grid.qrels_topic[grid.qrels_rel >= self.rel_level], minlength=self.T).astype(np.float64)

    @cached_property
    def rel_ret(self) -> np.ndarray:
        """(S, T) relevant documents retrieved."""
        return self.count(self.is_rel)

    @cached_property
    def answered(self) -> np.ndarray:
        """(S, T) the run returned documents for the topic."""
        return self.grid.n_ret > 0

    def count(self, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """(S, T) float: the rows of ``mask`` counted (or their ``weights`` summed) per
        (run, topic)."""
        return np.bincount(self.g[mask], weights=None if weights is None else weights[mask],
                           minlength=self.S * self.T).reshape(self.S, self.T).astype(np.float64)

    def once(self, key, make):
        """``make()``, computed once per key on this grid."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]


def safe_div(num, den):
    """num / den, 0 where den is 0."""
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)
