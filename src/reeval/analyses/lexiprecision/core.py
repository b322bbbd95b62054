"""Lexicographic precision (Diaz, "Best-Case Retrieval Evaluation: Improving the
Sensitivity of Reciprocal Rank with Lexicographic Precision") for every pair of runs.

Definitions (the paper, section 3; the semantics of the authors' pref_eval code, see
``../shared/reference/README.md``):

- Relevant: ``rel >= rel_level`` (default 1, i.e. grade > 0 for non-negative grades).
  ``m_q`` is the number of relevant qrels documents of topic q. Topics with m_q = 0 are
  dropped (nothing to compare).
- Position vector of run s on topic q: the 1-based trec_eval positions of the relevant
  documents s retrieved, ascending, then ``UNRETRIEVED`` (a sentinel larger than any
  rank) for each relevant document s missed, m_q entries in all. A topic the run did not
  answer is all UNRETRIEVED. Two UNRETRIEVED entries are equal.
- ``RR_i`` = 1/p_i, 0 when p_i is UNRETRIEVED; ``dRR_i(x, y) = RR_i(x) - RR_i(y)``,
  defined for i <= m_q (NaN beyond).
- ``i*`` = the first index where the position vectors differ (1-based), 0 when they are
  identical (a tie).
- ``sgnLP(x, y)`` = +1 if x_{i*} < y_{i*} (x ranks its i*-th relevant document higher,
  or y did not retrieve it), -1 otherwise, 0 for a tie.
  ``rrLP(x, y)`` = dRR_{i*}(x, y) (0 for a tie); it equals dRR_1 whenever dRR_1 != 0.

Everything is vectorized: per topic a runs x L matrix of positions (L = the most relevant
documents any run retrieved for the topic, columns beyond it are all UNRETRIEVED) is
compared for all pairs of runs at once, in chunks of pairs so memory stays bounded.
The Python loop over topics is the only loop (a handful to a few hundred iterations).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from reeval.measures import build_grid

#: Position of a relevant document the run did not retrieve (worse than any rank).
UNRETRIEVED = np.iinfo(np.int32).max
#: Recall levels whose dRR_i are kept per pair (the paper's figure 5 shows 1..20).
DEFAULT_LEVELS = 20
#: At most this many (pair x position) cells are compared at once (~40 MB of temporaries).
CHUNK_CELLS = 1 << 22
#: Positions compared for every pair before the rest is compared for the still-equal pairs.
HEAD_COLUMNS = 8


@dataclass
class PositionVectors:
    """Sorted positions of relevant documents, runs x topics x L (int32).

    ``topics`` are the qrels topics with at least one relevant document (sorted);
    ``m`` their relevant counts (after a label removal, possibly 0); ``found[s, t]`` the
    relevant documents run s retrieved for topic t; ``positions[s, t, k]`` the position
    of its (k+1)-th, UNRETRIEVED for k >= found[s, t]. L >= ``levels`` and >= max(found).
    """

    runs: list
    topics: list
    m: np.ndarray
    found: np.ndarray
    positions: np.ndarray
    rel_level: int

    @property
    def shape(self):
        return len(self.runs), len(self.topics)

    def to_table(self) -> pa.Table:
        """One row per (run, topic): run, qid, m, found, positions (list of the retrieved
        relevant documents' ranks, ascending; the m - found unretrieved ones are implicit)."""
        S, T = self.shape
        s_idx, t_idx = np.divmod(np.arange(S * T), T)
        found = self.found.ravel()
        flat = self.positions.reshape(S * T, self.positions.shape[2])
        values = flat[np.arange(flat.shape[1])[None, :] < found[:, None]]
        offsets = np.concatenate([[0], np.cumsum(found)]).astype(np.int32)
        return pa.table({"run": np.array(self.runs, dtype=object)[s_idx],
                         "qid": np.array(self.topics, dtype=object)[t_idx],
                         "m": self.m[t_idx], "found": found,
                         "positions": pa.ListArray.from_arrays(pa.array(offsets), pa.array(values))})

    def to_frame(self) -> pd.DataFrame:
        """:meth:`to_table` as pandas, positions as Python lists."""
        table = self.to_table()
        df = table.drop_columns(["positions"]).to_pandas()
        df["positions"] = table.column("positions").to_pylist()
        return df


def position_vectors(judged, qrels, depth=None, runs=None, rel_level: int = 1,
                     levels: int = DEFAULT_LEVELS) -> PositionVectors:
    """Build the position vectors of every run on every topic with a relevant document.

    ``judged``/``qrels``/``depth`` are the central tables (Arrow or pandas), where ingest
    has already dropped repeated documents; a run with more relevant rows for a topic than
    the topic has relevant documents is refused (ValueError). ``runs`` fixes the run
    order (default: sorted names of ``depth``).
    """
    return grid_position_vectors(_grid(judged, qrels, depth, runs), rel_level, levels)


def grid_position_vectors(grid, rel_level: int = 1, levels: int = DEFAULT_LEVELS) -> PositionVectors:
    """:func:`position_vectors` of a track's grid (:func:`reeval.measures.build_grid`, docnos
    kept or not): the grid's runs, in its order, on every topic with a relevant document."""
    T_all = grid.shape[1]
    m = np.bincount(grid.qrels_topic[grid.qrels_rel >= rel_level], minlength=T_all)
    is_rel = grid.rel >= rel_level
    return _assemble(grid, grid.g[is_rel], grid.pos[is_rel], m, m, rel_level, levels)


def _grid(judged, qrels, depth, runs, keep_docno: bool = False):
    if depth is None and runs is None:
        raise ValueError("position vectors need depth or runs to know the runs")
    if depth is None:
        depth = pd.DataFrame({"run": pd.Series([], dtype=object), "qid": pd.Series([], dtype=object),
                              "n_ret": pd.Series([], dtype=np.int64)})
    return build_grid(judged, depth, qrels, runs=runs, keep_docno=keep_docno)


def _assemble(grid, g, pos, m_topics, m, rel_level, levels) -> PositionVectors:
    """PositionVectors from the relevant judged rows (g = run * T + topic, sorted by g
    then pos, as a grid holds them) of a grid; the topics are those with m_topics > 0,
    ``m`` their counts. A row's rank in its (run, topic) cell is its index less the index
    of the cell's first row (the counts of the cells before it, g being sorted); each row
    goes to its cell's place in the flat S x T x L array in one scatter."""
    S, T_all = grid.shape
    counts = np.bincount(g, minlength=S * T_all)
    found_all = counts.reshape(S, T_all)
    if (found_all > m[None, :]).any():
        raise ValueError("a run retrieved more relevant documents than the qrels hold "
                         "(duplicate documents in a ranking?)")
    topics_keep = np.flatnonzero(m_topics > 0)
    found = found_all[:, topics_keep]
    L = max(levels, int(found.max(initial=0)), 1)
    cell = np.full((S, T_all), -1, dtype=np.int64)     # each grid cell's row of the S x T' cells
    cell[:, topics_keep] = np.arange(S * topics_keep.size).reshape(S, topics_keep.size)
    first = np.cumsum(counts) - counts                  # index of each cell's first row
    c = cell.ravel()[g]
    at = c * L + (np.arange(g.size) - first[g])
    P = np.full(S * topics_keep.size * L, UNRETRIEVED, dtype=np.int32)
    if topics_keep.size == T_all:
        P[at] = pos
    else:
        ok = c >= 0
        P[at[ok]] = pos[ok]
    return PositionVectors(runs=list(grid.runs), topics=[grid.topics[t] for t in topics_keep],
                           m=m[topics_keep].astype(np.int64), found=found.astype(np.int64),
                           positions=P.reshape(S, topics_keep.size, L), rel_level=rel_level)


def _inverse(p: np.ndarray) -> np.ndarray:
    """1/p, 0 where p is UNRETRIEVED."""
    return np.where(p == UNRETRIEVED, 0.0, 1.0 / np.maximum(p, 1))


@dataclass
class PairComparison:
    """Every pair of runs i < j (order of ``numpy.triu_indices``) on every topic.

    Arrays are pairs x topics: ``i_star`` (int, 0 = identical vectors), ``sgn``
    (int8), ``rr`` (float64 rrLP), ``sgn_suffix`` (sgnLP of p_2..m, Table 2);
    ``drr`` is pairs x topics x levels (dRR_1..dRR_levels, NaN for levels beyond m).
    """

    runs: list
    topics: list
    m: np.ndarray
    ii: np.ndarray
    jj: np.ndarray
    i_star: np.ndarray
    sgn: np.ndarray
    rr: np.ndarray
    sgn_suffix: np.ndarray
    drr: np.ndarray

    @property
    def n_pairs(self) -> int:
        return self.ii.size

    def to_frame(self) -> pd.DataFrame:
        """Long table (:func:`pair_columns`): run_i, run_j, qid, m, i_star, sgnLP, rrLP,
        sgnLP_suffix, dRR_1..."""
        P, T = self.i_star.shape
        p_idx, t_idx = np.divmod(np.arange(P * T), T)
        runs = np.array(self.runs, dtype=object)
        df = pd.DataFrame({"run_i": runs[self.ii[p_idx]], "run_j": runs[self.jj[p_idx]],
                           "qid": np.array(self.topics, dtype=object)[t_idx],
                           "m": self.m[t_idx], "i_star": self.i_star.ravel(),
                           "sgnLP": self.sgn.ravel(), "rrLP": self.rr.ravel(),
                           "sgnLP_suffix": self.sgn_suffix.ravel()})
        for k in range(self.drr.shape[2]):
            df[f"dRR_{k + 1}"] = self.drr[:, :, k].ravel()
        return df


def pair_columns(levels: int) -> list:
    """The columns of :meth:`PairComparison.to_frame` (``pairs.parquet``)."""
    return ["run_i", "run_j", "qid", "m", "i_star", "sgnLP", "rrLP", "sgnLP_suffix",
            *(f"dRR_{k}" for k in range(1, levels + 1))]


def _first_difference(Pt: np.ndarray, i: np.ndarray, j: np.ndarray, start: int = 0):
    """(i*, sgn, rr) of rows Pt[i[r]] vs Pt[j[r]] compared from column ``start`` on.

    i* is the 1-based index (relative to ``start``) of the first differing column, 0 when
    the rows are equal. Most pairs differ early: the first HEAD_COLUMNS columns are
    compared for every pair, the remaining ones only for pairs still equal after them.
    """
    head = HEAD_COLUMNS
    n = len(i)
    width = Pt.shape[1] - start
    k = np.zeros(n, dtype=np.int64)
    differ = np.zeros(n, dtype=bool)
    if width > 0:
        stop = start + min(head, width)
        neq = Pt[i, start:stop] != Pt[j, start:stop]
        differ = neq.any(axis=1)
        k = neq.argmax(axis=1)
        rest = np.flatnonzero(~differ)
        if rest.size and stop < Pt.shape[1]:
            neq = Pt[i[rest], stop:] != Pt[j[rest], stop:]
            differ[rest] = neq.any(axis=1)
            k[rest] = neq.argmax(axis=1) + (stop - start)
    x = Pt[i, np.minimum(start + k, Pt.shape[1] - 1)].astype(np.int64)
    y = Pt[j, np.minimum(start + k, Pt.shape[1] - 1)].astype(np.int64)
    sgn = np.where(differ, np.sign(y - x), 0).astype(np.int8)
    rr = np.where(differ, _inverse(x) - _inverse(y), 0.0)
    return np.where(differ, k + 1, 0), sgn, rr


def compare_pairs(pv: PositionVectors, levels: int = DEFAULT_LEVELS,
                  chunk_cells: int = CHUNK_CELLS) -> PairComparison:
    """sgnLP, rrLP, i*, the suffix sgnLP and dRR_1..levels for all pairs and topics.

    Holds pairs x topics x (levels + 3) numbers at once: for many runs use
    :func:`reeval.analyses.lexiprecision.pairblocks.pair_blocks`, which yields the same
    values a block of pairs at a time."""
    ii, jj = np.triu_indices(len(pv.runs), 1)
    return compare_pair_block(pv, ii, jj, levels, chunk_cells)


def compare_pair_block(pv: PositionVectors, ii: np.ndarray, jj: np.ndarray, levels: int = DEFAULT_LEVELS,
                       chunk_cells: int = CHUNK_CELLS) -> PairComparison:
    """:func:`compare_pairs` for the pairs (ii[k], jj[k]) only. Every value is computed
    per pair and topic, so a block's rows equal the same pairs' rows of the whole."""
    T = pv.shape[1]
    P = ii.size
    i_star = np.zeros((P, T), dtype=np.int32)
    sgn = np.zeros((P, T), dtype=np.int8)
    sgn_suffix = np.zeros((P, T), dtype=np.int8)
    rr = np.zeros((P, T))
    drr = np.full((P, T, levels), np.nan)
    for t in range(T):
        width = max(levels, int(pv.found[:, t].max(initial=0)), 1)
        Pt = pv.positions[:, t, :width]
        inv = _inverse(Pt[:, :levels])
        valid = min(levels, int(pv.m[t]))
        step = max(1, chunk_cells // width)
        for a in range(0, P, step):
            b = min(P, a + step)
            i, j = ii[a:b], jj[a:b]
            i_star[a:b, t], sgn[a:b, t], rr[a:b, t] = _first_difference(Pt, i, j)
            # the suffix p_2..m: pairs first differing after p_1 keep their sign
            late = i_star[a:b, t] > 1
            suffix = sgn[a:b, t].copy()
            early = np.flatnonzero(~late)
            suffix[early] = _first_difference(Pt, i[early], j[early], start=1)[1]
            sgn_suffix[a:b, t] = suffix
            drr[a:b, t, :valid] = inv[i, :valid] - inv[j, :valid]
    return PairComparison(runs=pv.runs, topics=pv.topics, m=pv.m, ii=ii, jj=jj, i_star=i_star,
                          sgn=sgn, rr=rr, sgn_suffix=sgn_suffix, drr=drr)


def lexiprecision_pair(x, y) -> tuple[int, float]:
    """(sgnLP, rrLP) of two position vectors given as Python lists, one element at a time.

    The per-pair loop of the reference semantics (``None`` = not retrieved), kept as the
    slow baseline of the benchmark and a cross-check in the tests.
    """
    for a, b in zip(x, y):
        if a is None and b is None:
            continue
        if a is None:
            return -1, -1.0 / b
        if b is None:
            return 1, 1.0 / a
        if a != b:
            return (1 if a < b else -1), 1.0 / a - 1.0 / b
    return 0, 0.0


# ----------------------------------------------------------------------- analyses

def reciprocal_rank(pv: PositionVectors) -> np.ndarray:
    """RR = 1/p_1 (0 if no relevant document retrieved), runs x topics."""
    return _inverse(pv.positions[:, :, 0])


def ranking_agreement(pc: PairComparison) -> dict:
    """Table 2 (ranking): over pair-topics with dRR_1 != 0, the share (%) where the sign
    of dRR_1 equals sgnLP computed on p_2..m, and where it equals the sign of dRR_2.

    A tie of the predictor (suffix identical, or dRR_2 = 0, also when m = 1) counts as a
    disagreement; the tie shares are reported too.
    """
    return ranking_agreement_from(ranking_counts(pc))


def ranking_counts(pc: PairComparison) -> np.ndarray:
    """The counts behind :func:`ranking_agreement` (they add up over blocks of pairs):
    pair-topics with dRR_1 != 0, of them suffix agreeing, dRR_2 agreeing, suffix tied,
    dRR_2 zero (int64)."""
    d1 = pc.drr[:, :, 0]
    use = d1 != 0
    target = np.sign(d1[use])
    suffix = pc.sgn_suffix[use]
    d2 = pc.drr[:, :, 1][use] if pc.drr.shape[2] > 1 else np.zeros(target.size)
    d2 = np.nan_to_num(d2, nan=0.0)
    return np.array([use.sum(), (suffix == target).sum(), (np.sign(d2) == target).sum(),
                     (suffix == 0).sum(), (d2 == 0).sum()], dtype=np.int64)


def ranking_agreement_from(counts) -> dict:
    """:func:`ranking_agreement` from :func:`ranking_counts` (summed over blocks)."""
    n = int(counts[0])
    pct = (lambda k: 100.0 * int(k) / n if n else math.nan)
    return {"n_pair_topics": n, "sgnLP_suffix_agree": pct(counts[1]), "dRR2_agree": pct(counts[2]),
            "sgnLP_suffix_ties": pct(counts[3]), "dRR2_ties": pct(counts[4])}


def system_agreement(pc: PairComparison, tol: float = 1e-12) -> dict:
    """Table 2 (system): over run pairs whose mean dRR_1 over topics is non-zero
    (|mean| > tol, as sums of reciprocals need not cancel exactly), the share (%) whose
    mean rrLP and mean sgnLP have the same sign as the mean dRR_1."""
    return system_agreement_from(pair_sums(pc), len(pc.topics), tol)


def pair_sums(pc: PairComparison) -> dict:
    """Per pair (rows of ``pc``): the sums over topics of dRR_1 (``dRR1``), rrLP and sgnLP
    (int64), the sgnLP wins, losses and ties, and the one-sample t-test p-value of rrLP
    (``p_rrLP``, :func:`reeval.stats.paired.ttest_rows`; NaN without a pair). Each is
    computed row by row, so blocks of pairs concatenate to the whole."""
    from reeval.stats.paired import ttest_rows

    T = len(pc.topics)
    return {"dRR1": pc.drr[:, :, 0].sum(axis=1), "rrLP": pc.rr.sum(axis=1), "sgnLP": pc.sgn.sum(axis=1),
            "wins": (pc.sgn > 0).sum(axis=1), "losses": (pc.sgn < 0).sum(axis=1),
            "ties": (pc.sgn == 0).sum(axis=1),
            "p_rrLP": ttest_rows(pc.rr)["p_value"] if pc.n_pairs and T else np.full(pc.n_pairs, np.nan)}


def system_agreement_from(sums: dict, n_topics: int, tol: float = 1e-12) -> dict:
    """:func:`system_agreement` from :func:`pair_sums` of every pair."""
    T = max(n_topics, 1)  # no topic: every mean is 0, no pair counts
    mean_rr1 = sums["dRR1"] / T
    use = np.abs(mean_rr1) > tol
    target = np.sign(mean_rr1[use])

    def sign(v):
        return np.where(np.abs(v) > tol, np.sign(v), 0.0)

    n = int(use.sum())
    return {"n_run_pairs": n,
            "rrLP_agree": 100.0 * float((sign(sums["rrLP"] / T)[use] == target).sum()) / n if n else math.nan,
            "sgnLP_agree": 100.0 * float((sign(sums["sgnLP"] / T)[use] == target).sum()) / n if n else math.nan}


def tie_rates(pc: PairComparison) -> dict:
    """Table 3: share (%) of pairs of rankings (pair of runs x topic) tied under RR
    (p_1 = p'_1, both unretrieved included) and under lexiprecision (identical vectors)."""
    return tie_rates_from(tie_rate_counts(pc))


def tie_rate_counts(pc: PairComparison) -> np.ndarray:
    """(pair-topics, tied under LP, tied under RR), int64, adding up over blocks."""
    return np.array([pc.i_star.size, (pc.i_star == 0).sum(), (pc.drr[:, :, 0] == 0).sum()], dtype=np.int64)


def tie_rates_from(counts) -> dict:
    """:func:`tie_rates` from :func:`tie_rate_counts`."""
    n = int(counts[0])
    return {"n_pair_topics": n,
            "LP_ties": 100.0 * float(counts[1]) / n if n else math.nan,
            "RR_ties": 100.0 * float(counts[2]) / n if n else math.nan}


def mean_preference_scores(pc: PairComparison, values: np.ndarray) -> np.ndarray:
    """Per-run, per-topic mean preference against every other run, runs x topics:
    s_i(q) = (1/(S-1)) sum_{j != i} D(i, j, q) with D(j, i) = -D(i, j).

    For D = dRR_1 this is S/(S-1) * (RR_i(q) - mean_s RR_s(q)): the topic-blocked ANOVA
    (Tukey HSD) on it gives exactly the HSD of RR itself, which is why preference
    measures are tested through it. Computed as (A - B) / (S - 1), A the sums of D(i, j,
    q) over the pairs where the run is i, B where it is j, each added in pair order
    (:func:`preference_sums`), so blocks of pairs give the same bits.
    """
    S, T = len(pc.runs), len(pc.topics)
    A, B = np.zeros((S, T)), np.zeros((S, T))
    preference_sums(pc.ii, pc.jj, values, A, B)
    return (A - B) / max(S - 1, 1)


def preference_sums(ii: np.ndarray, jj: np.ndarray, values: np.ndarray, A: np.ndarray, B: np.ndarray) -> None:
    """Add each pair's row of ``values`` (pairs x topics) to A[ii] and to B[jj], in place,
    one pair after the other (``numpy.add.at``)."""
    np.add.at(A, ii, values)
    np.add.at(B, jj, values)
