"""Leave one group out for lexicographic precision: do a left-out run's preferences hold?

Lexicographic precision (:mod:`reeval.analyses.lexiprecision.core`) compares two runs per
topic by their relevant documents' positions; a preference needs one qrels for both runs.
For a group g, a run s of g and a run o of another group face, as a new run evaluated
against the existing collection would, g's reduced qrels (the qrels less g's pool
contribution, :mod:`.core`) for both. For every such (s, o) and every topic t with a
relevant document in the full qrels (lexiprecision's topics), the **agreement** is the
share of those pair-topics whose preference sign is the same under g's reduced qrels as
under the full qrels. sign(rrLP) = sgnLP always (rrLP = 1/x_{i*} - 1/y_{i*} and sgnLP =
+1 iff x_{i*} < y_{i*}, a missed document being worst), so one share serves both.
A topic whose every relevant document g removed is a tie (sign 0) under the reduced qrels.

Only topics where g removed a relevant document can change a sign (removing a non-relevant
judgment moves no relevant position): the other pair-topics agree and are counted, not
compared. The pair-topics at risk (s in g, o not in g, t where g removed a relevant
document) are compared, all of them up to :data:`MAX_PAIR_TOPICS`; above it, about that
many, drawn without replacement with ``seed``, stratified by group: group g gets
ceil(B a_g / N) of its a_g at-risk pair-topics (B the bound, N = sum a_g), so every group
with one at risk is compared at least once, and its share among them stands for its a_g
(``sampled`` < ``at_risk`` says so). The track's agreement is the stratified estimate
sum_g (n_g - a_g d_g / s_g) / sum_g n_g (n_g its pair-topics, s_g compared, d_g of them
flipped); its standard error is at most 0.5 / sqrt(sampled) x N / sum_g n_g.

Position vectors as lexiprecision builds them: per (run, topic) the ascending trec_eval
positions of the retrieved relevant documents, then :data:`UNRETRIEVED`. Under g's qrels
a removed document leaves the vector (its entry becomes UNRETRIEVED and the row is sorted
again: the same vector, since unretrieved entries compare equal and m only pads).
"""

from __future__ import annotations

import numpy as np

from reeval.analyses.lexiprecision.core import UNRETRIEVED
from reeval.io.arrays import group_starts, position_in_group

#: At most this many at-risk pair-topics are compared per track; above, a seeded sample.
MAX_PAIR_TOPICS = 100_000
#: At most this many (pair-topic x position) cells are held at once.
CHUNK_CELLS = 1 << 21
#: The columns of :func:`preference_agreement`, in order.
AGREEMENT_COLUMNS = ("group", "runs", "pair_topics", "at_risk", "sampled", "disagree_sampled", "agreement")


def relevant_positions(grid, pool, rel_level: int = 1):
    """``(P, owner, topics)``: P (S, T', W) int32 the position vectors of every run on the T'
    topics with a relevant document (:data:`UNRETRIEVED` padded, W the most relevant
    documents a run retrieved for a topic, at least 1), ``owner`` (S, T', W) the group whose
    pool contribution holds each entry's document (-1: none), ``topics`` (T',) their grid
    topic indices."""
    S, T = grid.shape
    m = np.bincount(grid.qrels_topic[grid.qrels_rel >= rel_level], minlength=T)
    topics = np.flatnonzero(m > 0)
    new_t = np.full(T, -1)
    new_t[topics] = np.arange(topics.size)
    is_rel = grid.rel >= rel_level
    g = grid.g[is_rel]
    rank = position_in_group(group_starts(g)) - 1
    W = max(int(rank.max(initial=-1)) + 1, 1)
    P = np.full((S, topics.size, W), UNRETRIEVED, dtype=np.int32)
    owner = np.full((S, topics.size, W), -1, dtype=np.int32)
    s_row, t_row = np.divmod(g, T) if T else (g, g)
    P[s_row, new_t[t_row], rank] = grid.pos[is_rel]
    owner[s_row, new_t[t_row], rank] = pool.owner[pool.qrow[is_rel]]
    return P, owner, topics


def first_difference_sign(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """sgnLP of rows X[r] against Y[r] (position vectors): +1 where X holds the smaller
    entry at the first column where they differ, -1 where Y does, 0 where equal."""
    neq = X != Y
    k = neq.argmax(axis=1)
    r = np.arange(len(X))
    return np.where(neq.any(axis=1), np.sign(Y[r, k].astype(np.int64) - X[r, k]), 0).astype(np.int8)


def _without(rows: np.ndarray, owners: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Position vectors ``rows`` less the entries owned by each row's ``group``."""
    return np.sort(np.where(owners == group[:, None], UNRETRIEVED, rows), axis=1)


def pair_topic_signs(P, owner, group, s, o, t) -> tuple[np.ndarray, np.ndarray]:
    """(full, reduced) sgnLP of runs s against o at topic t (arrays of pair-topics, t the
    index into P's topics), reduced: both without ``group``'s pool contribution. Compares
    topic by topic (the only loop), each in chunks of :data:`CHUNK_CELLS` cells, over the
    columns that hold a retrieved relevant document at that topic."""
    full = np.zeros(len(s), dtype=np.int8)
    reduced = np.zeros(len(s), dtype=np.int8)
    found = (P != UNRETRIEVED).sum(axis=2)
    for topic in np.unique(t):
        at = np.flatnonzero(t == topic)
        width = max(int(found[:, topic].max()), 1)
        step = max(1, CHUNK_CELLS // width)
        for a in range(0, len(at), step):
            k = at[a:a + step]
            X, Y = P[s[k], topic, :width], P[o[k], topic, :width]
            full[k] = first_difference_sign(X, Y)
            reduced[k] = first_difference_sign(_without(X, owner[s[k], topic, :width], group[k]),
                                               _without(Y, owner[o[k], topic, :width], group[k]))
    return full, reduced


def at_risk_pairs(run_group: np.ndarray, risky: np.ndarray, index: np.ndarray):
    """Decode at-risk pair-topic numbers ``index`` into (group, s, o, t).

    ``risky`` (G, T') whether each group removed a relevant document at each topic. The
    at-risk pair-topics are numbered block by block: per (g, t) with ``risky`` (row-major),
    |g| (S - |g|) numbers, member k of g (runs in group order) against the l-th run of the
    other groups: number k (S - |g|) + l within the block."""
    S = len(run_group)
    order = np.argsort(run_group, kind="stable")
    size = np.bincount(run_group, minlength=risky.shape[0])
    start = np.cumsum(size) - size
    blocks = np.flatnonzero(risky.ravel())
    bg, bt = np.divmod(blocks, risky.shape[1])
    block_size = size[bg] * (S - size[bg])
    first = np.cumsum(block_size) - block_size
    b = np.searchsorted(first, index, side="right") - 1
    g, t = bg[b], bt[b]
    k, l = np.divmod(index - first[b], S - size[g])
    s = order[start[g] + k]
    o = order[np.where(l < start[g], l, l + size[g])]
    return g, s, o, t


def sample_at_risk(at_risk: np.ndarray, bound: int, seed: int) -> np.ndarray:
    """The at-risk pair-topic numbers compared (sorted): all when sum(at_risk) <= ``bound``;
    else per group g (its numbers are consecutive, :func:`at_risk_pairs`) ceil(bound a_g / N)
    of its a_g, drawn without replacement with ``seed`` (module doc). The loop is over groups."""
    N = int(at_risk.sum())
    if N <= bound:
        return np.arange(N)
    rng = np.random.default_rng(seed)
    quota = np.minimum(at_risk, -(-bound * at_risk // N))
    first = np.cumsum(at_risk) - at_risk
    parts = [first[g] + np.sort(rng.choice(int(at_risk[g]), size=int(quota[g]), replace=False))
             for g in np.flatnonzero(quota)]
    return np.concatenate(parts).astype(np.int64)


def preference_agreement(grid, pool, rel_level: int = 1, seed: int = 0,
                         max_pair_topics: int = MAX_PAIR_TOPICS):
    """One row per group (:data:`AGREEMENT_COLUMNS`, module doc): its runs, the pair-topics
    (left-out run, other run, topic) it makes, those at risk, those compared (``sampled``),
    the compared ones whose sign changed, and the agreement (%; the at-risk share estimated
    from the sample when sampled < at_risk; NaN without pair-topics). ``attrs``: ``overall``
    (the track's agreement, %, over all pair-topics), ``pair_topics``, ``at_risk``,
    ``sampled``, ``seed``."""
    import pandas as pd

    S = len(pool.run_group)
    G = len(pool.groups)
    P, owner, topics = relevant_positions(grid, pool, rel_level)
    relevant = (grid.qrels_rel >= rel_level)
    risky = (pool.removed(grid.shape[1], relevant)[:, topics] > 0) if G else np.zeros((0, 0), dtype=bool)
    size = np.bincount(pool.run_group, minlength=G)
    per_pair = size * (S - size)
    total = per_pair * topics.size
    at_risk = per_pair * risky.sum(axis=1)
    N = int(at_risk.sum())
    index = sample_at_risk(at_risk, max_pair_topics, seed)
    g, s, o, t = at_risk_pairs(pool.run_group, risky, index)
    full, reduced = pair_topic_signs(P, owner, g, s, o, t)
    sampled = np.bincount(g, minlength=G)
    disagree = np.bincount(g, weights=full != reduced, minlength=G).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        changed = np.where(sampled > 0, at_risk * disagree / np.maximum(sampled, 1), 0.0)
        agreement = 100.0 * (total - changed) / total
        overall = 100.0 * (1.0 - changed.sum() / total.sum()) if total.sum() else np.nan
    out = pd.DataFrame({"group": np.array(pool.groups, dtype=object), "runs": size, "pair_topics": total,
                        "at_risk": at_risk, "sampled": sampled, "disagree_sampled": disagree,
                        "agreement": np.where(total > 0, agreement, np.nan)}, columns=list(AGREEMENT_COLUMNS))
    out.attrs.update(overall=float(overall), pair_topics=int(total.sum()), at_risk=N, sampled=len(index),
                     seed=int(seed))
    return out
