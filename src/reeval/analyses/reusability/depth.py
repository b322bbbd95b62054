"""Whether a collection's judgments stop at the pool depth: the condition of the
leave-one-group-out test.

Leave one group out removes from the qrels the judged documents that only one group's runs
placed in their top d, the pool depth. That tests a collection whose judgments came from
such a pool. A collection judged beyond it (CLEF TAR, where every candidate document of a
topic was judged; or a depth given lower than the one the track was pooled to) is not
tested: the documents a run places below d are judged whatever the groups did, so taking
one group out removes little, and a verdict of "reusable" would say nothing.

The test, from the data alone (:func:`judged_beyond_depth`): for each run that retrieved
documents below the depth (ranks d + 1 and deeper, over all topics, in trec_eval order),
the share of those documents the qrels judge (at any grade, 0 included). The collection is
*judged beyond the pool depth* when for more than half of those runs more than half of
those documents are judged. Under pooling at d, a document below a run's top d is judged
only when another pooled run placed it in its own top d, which for most runs is the case
for a minority of their deeper documents; with every candidate judged it is all of them.
With no run retrieving below the depth there is nothing to decide: not judged beyond.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reeval.measures import Grid


@dataclass(frozen=True)
class BeyondDepth:
    """The test's counts at one pool depth: ``runs`` that retrieved documents below it,
    ``judged_runs`` of them with more than half of those documents judged."""

    depth: int
    runs: int
    judged_runs: int

    @property
    def judged_beyond(self) -> bool:
        """More than half of the runs that retrieved below the depth are judged there."""
        return 2 * self.judged_runs > self.runs

    def sentence(self) -> str:
        """The finding in words, for a verdict or a log line."""
        return (f"the qrels judge most of the documents below the pool depth {self.depth} for "
                f"{self.judged_runs} of the {self.runs} runs that retrieved below it")


def judged_beyond_depth(grid: Grid, depth: int) -> BeyondDepth:
    """:class:`BeyondDepth` of a grid's runs at pool depth ``depth`` (module doc): per run,
    documents below the depth ``sum_t max(0, n_ret[s, t] - depth)`` against its judged rows
    at ``pos > depth``."""
    S, T = grid.shape
    below = np.maximum(grid.n_ret.astype(np.int64) - int(depth), 0).sum(axis=1) if S else np.zeros(0, np.int64)
    deep = np.asarray(grid.pos) > depth
    judged = np.bincount(np.asarray(grid.g)[deep] // max(T, 1), minlength=S) if S else np.zeros(0, np.int64)
    has = below > 0
    return BeyondDepth(int(depth), int(has.sum()), int((2 * judged[has] > below[has]).sum()))
