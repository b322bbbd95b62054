"""Every pair of runs in blocks: lexicographic precision's pair analyses in bounded memory.

:func:`reeval.analyses.lexiprecision.core.compare_pairs` holds pairs x topics x (levels
+ 3) numbers: at 3,000 runs (4.5 M pairs) and 12 topics that is 9 GB. Here the pairs are
compared a block at a time (:func:`pair_blocks`, the pairs of ``numpy.triu_indices`` order
cut into consecutive ranges), and each block is folded into :class:`PairTotals`: counts
that add up (tables 2 and 3, figures 5 and 6), per-pair sums (table 2's system
agreement, the pair tests), the runs x topics sums of the mean-preference scores, the
rows of figure 7 and, when written, the block's rows of ``pairs.parquet``. Every value is
computed per pair and topic and every sum in pair order, so the tables equal those of
the whole :class:`~reeval.analyses.lexiprecision.core.PairComparison`, bit for bit
(``tests/analyses/test_pair_blocks.py``), with two stated exceptions for tracks beyond
what can be held or afforded (figure 7 above :data:`LOCALITY_ROWS`, the randomised HSD
above :data:`HSD_PREFERENCE_CELLS`).

Memory, with S runs, T topics with a relevant document, L = ``levels`` (20) and
P = S(S - 1)/2 pairs (docs/cluster.md):

- one block: b pairs x T x :data:`CELL_BYTES` (its arrays and its rows of pairs.parquet
  as pandas and Arrow), b from the budget :data:`PAIR_BLOCK_BYTES` (:func:`pairs_per_block`);
- per pair, about :data:`PAIR_BYTES` (the sums, the pair tests table of 19 columns);
- figure 7: at most :data:`LOCALITY_ROWS` rows of 8 numbers (4 copies), then an 8 x 8 sum;
- the randomised HSD of rrLP and sgnLP (the default of table 4a) needs every pair x topic
  value and per-topic S x S matrices, P x T x 27 bytes, and B x T x P gathers of time
  (B = ``hsd_resamples``): run when B x T x P <= :data:`HSD_PREFERENCE_CELLS`; above it,
  those two measures take the topic-blocked parametric HSD of their mean-preference
  scores, and table 4's ``procedure`` cell says so (:func:`preference_procedure`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reeval.stats.randomised import SHARED_PERMUTATION_CELLS

from . import core as lx
from . import significance as ls
from . import ties as lt
from .core import PairComparison, PositionVectors

#: Memory budget of one block of pairs, bytes (its arrays and its rows of pairs.parquet).
PAIR_BLOCK_BYTES = 256 << 20
#: Bytes per pair x topic in a block with L levels: ~3 copies (arrays, pandas rows, Arrow
#: rows) of 8 L + 64 bytes (dRR_1..L, rrLP, i*, signs, and the run, topic, m columns).
CELL_BYTES_PER_LEVEL, CELL_BYTES_FIXED = 3 * 8, 3 * 64
#: Bytes held per pair for the whole track: the sums and the pair tests table.
PAIR_BYTES = 400
#: Figure 7 from its rows (numpy's corrcoef and lstsq, as core) up to this many pair-topics;
#: above, from their cross-products (:func:`reeval.analyses.lexiprecision.ties.locality_from_moments`).
LOCALITY_ROWS = 2 << 20
#: The randomised HSD of the preferences runs when resamples x topics x pairs is at most
#: this (2000 x 50 x 26,796 for the study's largest track, 232 runs: 2.7e9).
HSD_PREFERENCE_CELLS = 10 ** 10


def cell_bytes(levels: int) -> int:
    """Bytes a block holds per pair x topic (:data:`CELL_BYTES_PER_LEVEL` x levels + fixed)."""
    return CELL_BYTES_PER_LEVEL * levels + CELL_BYTES_FIXED


def pairs_per_block(n_topics: int, levels: int, budget: int | None = None) -> int:
    """Pairs per block: budget // (topics x :func:`cell_bytes`), at least 1."""
    budget = PAIR_BLOCK_BYTES if budget is None else budget
    return max(1, int(budget) // (max(n_topics, 1) * cell_bytes(levels)))


def pair_range(S: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """(ii, jj): the pairs a .. b - 1 of ``numpy.triu_indices(S, 1)`` order, computed
    without the whole index (row i starts at pair i S - i (i + 1) / 2)."""
    rows = np.arange(S, dtype=np.int64)
    starts = rows * S - rows * (rows + 1) // 2
    k = np.arange(a, b, dtype=np.int64)
    ii = np.searchsorted(starts, k, side="right") - 1
    return ii, k - starts[ii] + ii + 1


def pair_blocks(pv: PositionVectors, levels: int = lx.DEFAULT_LEVELS, budget: int | None = None):
    """Yield :class:`PairComparison` of consecutive ranges of pairs (``triu`` order), each
    of at most :func:`pairs_per_block` pairs; their rows, one under the other, are
    :func:`~reeval.analyses.lexiprecision.core.compare_pairs`'s."""
    S, T = pv.shape
    P = S * (S - 1) // 2
    step = pairs_per_block(T, levels, budget)
    for a in range(0, P, step):
        ii, jj = pair_range(S, a, min(P, a + step))
        yield lx.compare_pair_block(pv, ii, jj, levels)


@dataclass
class PairTotals:
    """What the tables need from every pair x topic of a track, folded block by block.

    ``keep_values``: also keep rrLP and sgnLP of every pair x topic (the randomised HSD
    of the preferences needs them)."""

    pv: PositionVectors
    levels: int
    keep_values: bool = False
    ranking: np.ndarray = field(default_factory=lambda: np.zeros(5, dtype=np.int64))
    ties: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=np.int64))
    by_level: np.ndarray | None = None
    i_star: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    sums: dict = field(default_factory=dict)
    pref: dict = field(default_factory=dict)
    locality_parts: list | None = field(default_factory=list)
    gram: np.ndarray = field(default_factory=lambda: np.zeros((lt.LOCALITY_LEVELS,) * 2))
    locality_n: int = 0
    values: dict = field(default_factory=dict)

    def __post_init__(self):
        S, T = self.pv.shape
        self.by_level = np.zeros((2, self.levels), dtype=np.int64)
        self.pref = {name: (np.zeros((S, T)), np.zeros((S, T))) for name in ls.PREFERENCES}
        self._sums, self._values = [], {name: [] for name in ls.PREFERENCES}

    def add(self, pc: PairComparison) -> None:
        """Fold one block of pairs in (blocks in pair order)."""
        self.ranking += lx.ranking_counts(pc)
        self.ties += lx.tie_rate_counts(pc)
        self.by_level += lt.level_tie_counts(pc)
        self.i_star = lt.add_counts(self.i_star, lt.i_star_counts(pc))
        self._sums.append(lx.pair_sums(pc))
        for name, values in (("rrLP", pc.rr), ("sgnLP", pc.sgn.astype(np.float64))):
            lx.preference_sums(pc.ii, pc.jj, values, *self.pref[name])
        if self.keep_values:
            self._values["rrLP"].append(pc.rr)
            self._values["sgnLP"].append(pc.sgn)
        if self.levels >= lt.LOCALITY_LEVELS:
            self._add_locality(lt.locality_rows(pc))

    def _add_locality(self, rows: np.ndarray) -> None:
        self.locality_n += rows.shape[0]
        self.gram += rows.T @ rows
        if self.locality_parts is not None:
            self.locality_parts.append(rows)
            if self.locality_n > LOCALITY_ROWS:
                self.locality_parts = None

    def finish(self) -> "PairTotals":
        """Join the per-pair parts (call once, after the last block)."""
        S = len(self.pv.runs)
        P = S * (S - 1) // 2
        keys = ("dRR1", "rrLP", "sgnLP", "wins", "losses", "ties", "p_rrLP")
        self.sums = {k: (np.concatenate([s[k] for s in self._sums]) if self._sums else np.zeros(0)) for k in keys}
        if self.keep_values:
            T = len(self.pv.topics)
            self.values = {k: (np.concatenate(v) if v else np.zeros((P, T))) for k, v in self._values.items()}
        self._sums, self._values = [], {}
        return self

    # --- the tables, as core and ties compute them from a whole PairComparison ---

    def ranking_agreement(self) -> dict:
        return lx.ranking_agreement_from(self.ranking)

    def system_agreement(self) -> dict:
        return lx.system_agreement_from(self.sums, len(self.pv.topics))

    def tie_rates(self) -> dict:
        return lx.tie_rates_from(self.ties)

    def tie_probability_by_level(self):
        return lt.tie_probability_by_level_from(self.by_level)

    def i_star_distribution(self):
        return lt.i_star_distribution_from(self.i_star)

    def locality(self):
        if self.locality_parts is None:
            return lt.locality_from_moments(self.gram, self.locality_n)
        rows = (np.concatenate(self.locality_parts) if self.locality_parts
                else np.zeros((0, lt.LOCALITY_LEVELS)))
        return lt.locality_from(rows)

    def preference_scores(self) -> dict:
        S = len(self.pv.runs)
        return {name: (A - B) / max(S - 1, 1) for name, (A, B) in self.pref.items()}


def randomised_preferences(n_runs: int, n_topics: int, resamples: int) -> bool:
    """Whether the randomised HSD of rrLP and sgnLP is run: resamples x topics x pairs <=
    :data:`HSD_PREFERENCE_CELLS`."""
    return resamples * n_topics * (n_runs * (n_runs - 1) // 2) <= HSD_PREFERENCE_CELLS


def preference_procedure(n_runs: int, n_topics: int, resamples: int) -> str:
    """Table 4's ``procedure`` cell for rrLP and sgnLP when their randomised HSD is not run."""
    cells = resamples * n_topics * (n_runs * (n_runs - 1) // 2)
    return (f"blocked (randomised not run: {resamples} resamples x {n_topics} topics x "
            f"{n_runs * (n_runs - 1) // 2} pairs = {cells:.2g} > {HSD_PREFERENCE_CELLS:.0e} cells)")


def _pair_values(totals: PairTotals):
    """What :func:`~reeval.analyses.lexiprecision.significance.hsd_p_values` reads of a
    PairComparison (rr, sgn, n_pairs, topics), from the folded pairs."""
    from types import SimpleNamespace

    S = len(totals.pv.runs)
    return SimpleNamespace(rr=totals.values.get("rrLP"), sgn=totals.values.get("sgnLP"),
                           n_pairs=S * (S - 1) // 2, topics=totals.pv.topics)


def _hsd_measures(totals: PairTotals, resamples: int) -> tuple:
    """The measures the randomised HSD is run on: all three, or RR alone beyond the cap."""
    S, T = totals.pv.shape
    return ls.MEASURES if randomised_preferences(S, T, resamples) else ("RR",)


def hsd_verdicts(totals: PairTotals, rr: np.ndarray, alpha: float, design: str, resamples: int,
                 seed: int) -> dict:
    """:func:`~reeval.analyses.lexiprecision.significance.hsd_verdicts` from the folded pairs
    (the values of every pair kept when :func:`randomised_preferences`); beyond the cap,
    rrLP and sgnLP by the topic-blocked parametric HSD of their mean-preference scores."""
    if design != "randomised":
        return ls.parametric_hsd({"RR": rr, **totals.preference_scores()}, alpha, design)
    measures = _hsd_measures(totals, resamples)
    p = ls.hsd_p_values(_pair_values(totals), rr, resamples, seed, measures)
    out = {name: values < alpha for name, values in p.items()}
    if measures != ls.MEASURES:
        out.update(ls.parametric_hsd(totals.preference_scores(), alpha, "blocked"))
    return out


def hsd_seed_range(totals: PairTotals, rr: np.ndarray, alpha: float, resamples: int, seeds) -> dict:
    """:func:`~reeval.analyses.lexiprecision.significance.hsd_seed_range` from the folded pairs
    (RR alone beyond the cap)."""
    return ls.hsd_seed_range(_pair_values(totals), rr, alpha, resamples, seeds, _hsd_measures(totals, resamples))


def mark_blocked_preferences(power, n_runs: int, n_topics: int, resamples: int) -> None:
    """In table 4 (:func:`~reeval.analyses.lexiprecision.significance.discriminative_power`),
    beyond the cap: the rrLP and sgnLP rows of the Tukey HSD name their procedure
    (:func:`preference_procedure`), with no resamples and one seed. In place."""
    if randomised_preferences(n_runs, n_topics, resamples):
        return
    rows = (power.test == "tukey_hsd") & power.measure.isin(ls.PREFERENCES)
    power.loc[rows, "procedure"] = preference_procedure(n_runs, n_topics, resamples)
    power.loc[rows, ["resamples", "seeds"]] = [0, 1]


def fold_pairs(pv: PositionVectors, levels: int, keep_values: bool = False, budget: int | None = None) -> PairTotals:
    """:class:`PairTotals` of every pair of ``pv``, a block at a time."""
    totals = PairTotals(pv, levels, keep_values=keep_values)
    for block in pair_blocks(pv, levels, budget):
        totals.add(block)
    return totals.finish()


def pair_rows(pv: PositionVectors, levels: int, totals: PairTotals, budget: int | None = None):
    """Yield the rows of ``pairs.parquet`` (:meth:`PairComparison.to_frame`) block by
    block, folding each block into ``totals`` on the way (one pass over the pairs)."""
    for block in pair_blocks(pv, levels, budget):
        totals.add(block)
        yield block.to_frame()
    totals.finish()


def planned_memory(n_runs: int, n_topics: int, levels: int = lx.DEFAULT_LEVELS, resamples: int = 2000,
                   budget: int | None = None) -> dict:
    """The bytes the pair analyses of one relevance level plan to hold (module doc): one
    block, the per-pair arrays, the runs x topics sums, figure 7's rows and the randomised
    HSD's values (with its permutations when they are drawn once, up to
    ``SHARED_PERMUTATION_CELLS``) when it runs. Their sum bounds the pair analyses' memory, apart from the
    interpreter and the track's own tables."""
    S, T = n_runs, n_topics
    P = S * (S - 1) // 2
    block = min(P, pairs_per_block(T, levels, budget)) * T * cell_bytes(levels)
    hsd = P * T * 27 if randomised_preferences(S, T, resamples) else 0
    if hsd and resamples * T * S <= SHARED_PERMUTATION_CELLS:  # its permutations, drawn once for 3 measures
        hsd += 4 * resamples * T * S
    out = {"pairs": P, "pairs_per_block": pairs_per_block(T, levels, budget), "block": block,
           "per_pair": P * PAIR_BYTES, "runs_x_topics": 4 * S * T * 8,
           "figure7": 4 * min(P * T, LOCALITY_ROWS) * lt.LOCALITY_LEVELS * 8, "hsd_values": hsd}
    out["total"] = sum(v for k, v in out.items() if k not in ("pairs", "pairs_per_block"))
    return out
