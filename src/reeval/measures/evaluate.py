"""Per-topic values of registered measures on a grid, and their run means.

:func:`evaluate_grid` computes every measure for every (run, topic) through its family's
``compute`` (:mod:`.registry`), the shared intermediates once (:class:`.context.Context`);
:func:`aggregate_values` turns them into one value per run as trec_eval does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .context import Context
from .grid import Grid
from .registry import REGISTRY


@dataclass
class TopicScores:
    """Per (run, topic) values on the dense grid, plus ASL bookkeeping. ``positive`` (T,):
    the qrels documents graded > 0 per topic (trec_eval -c's num_rel total)."""

    runs: list
    topics: list
    values: dict            # measure name -> (S, T) float array (object array of str for text measures)
    answered: np.ndarray    # (S, T) bool: the run returned documents for the topic
    num_rel: np.ndarray     # (T,)
    n_unretrieved: np.ndarray  # (S, T) relevant documents given the unretrieved value
    asl_unanswered: np.ndarray  # (S, T) bool: ASL used the track depth (topic unanswered)
    positive: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def to_frame(self):
        """Long-by-topic table: run, qid, answered, num_rel, one column per measure."""
        S, T = len(self.runs), len(self.topics)
        import pandas as pd

        df = pd.DataFrame({
            "run": np.repeat(np.array(self.runs, dtype=object), T),
            "qid": np.tile(np.array(self.topics, dtype=object), S),
            "answered": self.answered.ravel(),
        })
        for name, v in self.values.items():
            df[name] = v.ravel()
        df["asl_unretrieved_docs"] = self.n_unretrieved.ravel()
        df["asl_unanswered_topic"] = self.asl_unanswered.ravel()
        return df


def evaluate_grid(grid: Grid, measures, rel_level: int = 1, unretrieved: str = "after_last",
                  version: int = 10, num_docs: int = 0) -> TopicScores:
    """Every measure (registered, computed per topic) for every (run, topic) of the grid.

    ``rel_level``: rel >= rel_level is relevant (a measure with a level of its own uses
    that); ``unretrieved``: the ASL of a relevant document the run did not retrieve
    (:mod:`.asl`); ``version``: 10, or 9 for trec_eval 9.x's conventions where they differ
    (iprec_at_recall, 11pt_avg); ``num_docs``: documents in the collection (trec_eval -N).
    Measures computed over a set of runs (rareness) are not computed here: ValueError.
    """
    ctx = Context(grid, rel_level, unretrieved, version, num_docs)
    values = {}
    for m in measures:
        compute = REGISTRY[m.family].compute
        if compute is None:
            raise ValueError(f"measure {m.name} is not computed by evaluate_grid")
        values[m.name] = compute(ctx.variant(m.rel, m.judged_only), m)
    R, rel_ret = ctx.R[None, :], ctx.rel_ret
    positive = np.bincount(grid.qrels_topic[grid.qrels_rel > 0], minlength=ctx.T)
    return TopicScores(runs=grid.runs, topics=grid.topics, values=values, answered=ctx.answered,
                       num_rel=ctx.R, n_unretrieved=np.where(R > 0, R - rel_ret, 0).astype(np.int64),
                       asl_unanswered=~ctx.answered & (R > 0), positive=positive)


def row_sums(x: np.ndarray) -> np.ndarray:
    """Sums of the rows, added left to right as trec_eval adds topics (numpy's pairwise
    ``sum`` can differ in the last bit)."""
    return np.cumsum(x, axis=1)[:, -1] if x.shape[1] else np.zeros(x.shape[0], dtype=x.dtype)


def c_exp(x: np.ndarray) -> np.ndarray:
    """exp of each value by the C library (``math.exp``), as trec_eval takes it: numpy's own
    exp can differ in the last bit (exp(log(0.25625)): C 0.25625000000000003, numpy 0.25625),
    which the fourth printed decimal can show. One value per run: a loop over runs only."""
    return np.array([math.exp(v) for v in np.asarray(x, dtype=np.float64).ravel()]).reshape(np.shape(x))


def aggregate_values(scores: TopicScores, measures, complete: bool = True) -> dict:
    """Per-run values: ``run`` (names), ``num_q``, then one array (one value per run) per measure.

    complete=True averages over every qrels topic (trec_eval -c: an unanswered topic
    scores as if nothing was retrieved); False over the topics the run answered
    (trec_eval's default). ASL measures use only topics with at least one relevant
    document. ``sum`` measures add up (``num_rel`` under -c: the qrels documents graded
    > 0, as trec_eval), ``gmean`` ones are exp(mean(log(max(x, 1e-5)))); text measures
    (runid, relstring) have no run value here. Topics are added in the grid's order
    (sorted ids, as trec_eval), one after the other, so the means are trec_eval's to the bit.
    """
    S, T = len(scores.runs), len(scores.topics)
    base = np.ones((S, T), dtype=bool) if complete else scores.answered
    out = {"run": list(scores.runs), "num_q": base.sum(axis=1)}
    for m in measures:
        if m.family == "num_q" or m.aggregate == "none":
            continue
        v = scores.values[m.name]
        use = base & (scores.num_rel[None, :] > 0) if m.is_asl else base
        n = use.sum(axis=1)
        if m.family == "num_rel" and complete and m.rel is None and len(scores.positive):
            out[m.name] = np.full(S, float(scores.positive.sum()))
        elif m.aggregate == "sum":
            out[m.name] = row_sums(np.where(use, v, 0))
        elif m.aggregate == "gmean":
            logs = row_sums(np.where(use, np.log(np.maximum(v, 1e-5)), 0.0))
            out[m.name] = np.where(n > 0, c_exp(logs / np.maximum(n, 1)), 0.0)
        else:
            total = row_sums(np.where(use, v, 0.0))
            out[m.name] = np.where(n > 0, total / np.maximum(n, 1), np.nan if m.is_asl else 0.0)
        if m.is_asl:
            out.setdefault("asl_num_q", n)
    return out


def aggregate(scores: TopicScores, measures, complete: bool = True):
    """:func:`aggregate_values` as a DataFrame: one row per run, one column per measure."""
    import pandas as pd

    return pd.DataFrame(aggregate_values(scores, measures, complete))
