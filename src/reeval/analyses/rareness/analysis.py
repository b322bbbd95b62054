"""What the rareness measures change (Türkmen, Lease & Kutlu, ECIR 2023, sections 3-4).

Every analysis starts from :class:`reeval.analyses.rareness.core.Hits` (the relevant documents in each
run's top k) and is vectorized: the 1000-trial experiments use the linear form of the
measures (``reeval.analyses.rareness.core`` module doc), so a trial costs a few array operations and
there is no Python loop over trials, runs, topics or pairs of runs.

- :func:`rank_correlation`: Kendall tau-b (and tau_AP) between the ranking of runs by a
  rareness measure and by its base (alpha = 0: P@k, AP cut at k), per alpha (figure 2).
- :func:`discriminative_power`: run pairs significantly different by Tukey's HSD at 95% and
  99% (table 1), by the authors' procedure (a two-group HSD per pair of runs, topics
  unpaired) and by the topic-blocked HSD over all runs of :func:`reeval.stats.allpairs.tukey_hsd`.
- :func:`stability`: Buckley & Voorhees as the paper applies it (section 4.4) and its
  authors' code runs it: R trials each sample floor(T/2) topics without replacement; in a
  trial two runs tie when their means differ by at most the *fuzziness* (absolute 0.05 in
  the authors' code; Buckley & Voorhees's relative 5%, |a - b| <= 0.05 max(|a|, |b|), as an
  option); per pair of runs the share of all R trials won by its more frequent winner
  (ties count for neither run but stay in the denominator); the mean over pairs (table 2).
  With several seeds, the range of that mean over them (its Monte Carlo spread); and the
  same mean over the first :data:`CONVERGENCE_TRIALS` trials only (section 4.4's "the
  results largely converged after 100 trials").
- :func:`number_of_systems`: the paper's algorithm 1: sample N runs, recompute rareness
  with S = N over the sample only, Kendall tau-b with the full ranking restricted to the
  sample; the mean over trials (table 3).
- :func:`synthetic_ranks`: figure 1: a system retrieving D relevant documents no run
  found (S_rare) or the D most commonly found ones (S_common) joins the real runs of one
  topic (S + 1 systems); its rank by P_rareness@k as D grows.

Ties: run means are compared with a tolerance of ``EPS`` = 1e-12 (scores are at most 2),
so floating-point noise from different summation orders never breaks a tie. Randomness:
``numpy.random.default_rng`` seeded by (seed, N) or seed only; the same seed gives the
same numbers in every process.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reeval.stats.allpairs import tukey_hsd_significant, two_group_hsd_significant
from reeval.stats.compiled import kernels
from reeval.stats.correlation import kendall_tau, tau_ap

from . import core as rr

EPS = 1e-12
LEVELS = (0.95, 0.99)
#: the authors' fuzziness (ecir2023 ``stability.py``): means within 0.05 of each other tie
FUZZINESS = 0.05
#: the trials after which the paper says its stability "largely converged" (section 4.4)
CONVERGENCE_TRIALS = 100
#: how the fuzziness is applied: ``absolute`` |a - b| <= f (the authors' code), ``relative``
#: |a - b| <= f max(|a|, |b|) (Buckley & Voorhees 2000's "5% of the larger score")
FUZZINESS_SCALES = ("absolute", "relative")


def run_means(per_topic: np.ndarray) -> np.ndarray:
    """Mean over every qrels topic (trec_eval -c), per run."""
    return per_topic.mean(axis=1) if per_topic.shape[1] else np.zeros(per_topic.shape[0])


def _tie_round(x: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(x, dtype=np.float64), 12)


def rank_correlation(means: dict, base: dict) -> pd.DataFrame:
    """Kendall tau-b and tau_AP between rankings by run means.

    ``means``: {(measure, alpha): (S,) run means}; ``base``: {measure: (S,) means at
    alpha = 0}. tau_AP uses the base ranking as the reference. Means are rounded to 12
    decimals first (see EPS). Returns measure, alpha, tau, tau_ap.
    """
    rows = []
    for (measure, alpha), v in means.items():
        b, e = _tie_round(base[measure]), _tie_round(v)
        rows.append({"measure": measure, "alpha": rr.alpha_label(alpha),
                     "tau": kendall_tau(b, e), "tau_ap": tau_ap(b, e)})
    return pd.DataFrame(rows)


#: the methods of :func:`discriminative_power` (the ``method`` column of ``discriminative.csv``):
#: ``authors``: the rareness authors' released procedure (ecir2023 ``utils.discriminative_power(scores,
#: alpha, test='hsd')``: one two-group Tukey HSD per pair of runs, topics unpaired,
#: :func:`reeval.stats.allpairs.two_group_hsd_significant`), the paper's table 1;
#: ``blocked``: one topic-blocked Tukey HSD over all runs at once
#: (:func:`reeval.stats.allpairs.tukey_hsd_significant`), the textbook design for runs x topics
DISCRIMINATIVE_METHODS = ("authors", "blocked")


def discriminative_power(per_topic: dict, levels=LEVELS, methods=DISCRIMINATIVE_METHODS) -> pd.DataFrame:
    """Pairs of runs significantly different by Tukey's HSD, per method (DISCRIMINATIVE_METHODS).

    ``per_topic``: {(measure, alpha): (S, T) scores}, each measure's own scores (the authors'
    script hands its P_rareness scores to its AP_rareness rows; here AP rows are AP scores).
    A pair counts at level L when its studentized range q exceeds q_crit(L) (p < 1 - L):
    ``authors`` with the pair's two runs as the only groups (k = 2, df = 2T - 2), ``blocked``
    with all S runs and topics as blocks (k = S, df = (S - 1)(T - 1)). Returns measure,
    alpha, method, runs, pairs, and one ``significant_<L%>`` column per level.
    """
    tests = {"authors": lambda X, level: two_group_hsd_significant(X, confidence=level),
             "blocked": lambda X, level: tukey_hsd_significant(X, confidence=level)}
    unknown = [m for m in methods if m not in tests]
    if unknown:
        raise ValueError(f"discriminative power: unknown method {unknown[0]!r}; known: {DISCRIMINATIVE_METHODS}")
    rows = []
    for (measure, alpha), X in per_topic.items():
        S = X.shape[0]
        for method in methods:
            row = {"measure": measure, "alpha": rr.alpha_label(alpha), "method": method, "runs": S,
                   "pairs": S * (S - 1) // 2}
            for level in levels:
                row[f"significant_{level * 100:g}"] = int(tests[method](X, level).sum())
            rows.append(row)
    return pd.DataFrame(rows, columns=["measure", "alpha", "method", "runs", "pairs",
                                       *(f"significant_{level * 100:g}" for level in levels)])


def topic_samples(n_topics: int, size: int, trials: int, seed: int) -> np.ndarray:
    """(trials, n_topics) 0/1 matrix: each row marks ``size`` topics drawn without replacement."""
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((trials, n_topics)), axis=1)
    Z = np.zeros((trials, n_topics))
    np.put_along_axis(Z, order[:, :size], 1.0, axis=1)
    return Z


def tie_threshold(a: np.ndarray, b: np.ndarray, fuzziness: float = 0.0, scale: str = "absolute"):
    """The largest |a - b| that is a tie: ``fuzziness`` (absolute) or ``fuzziness`` *
    max(|a|, |b|) (relative), never below EPS (floating-point noise never breaks a tie)."""
    if scale not in FUZZINESS_SCALES:
        raise ValueError(f"fuzziness scale must be one of {FUZZINESS_SCALES}, not {scale!r}")
    if scale == "absolute":
        return max(float(fuzziness), EPS)
    return np.maximum(float(fuzziness) * np.maximum(np.abs(a), np.abs(b)), EPS)


def pair_stability(means: np.ndarray, fuzziness: float = 0.0,
                   scale: str = "absolute") -> tuple[np.ndarray, np.ndarray]:
    """Per pair of runs i < j (triu order), from (trials, S) means: the stability
    max(#trials i > j, #trials j > i) / trials and the share of tied trials; differences
    within :func:`tie_threshold` are ties and count for neither run.

    Runs whose means are equal in every trial (identical per-topic scores: many short
    runs of one track) tie in every trial (stability 0, tied 1); the other pairs are
    counted once per pair of distinct columns (:func:`_distinct_pair_stability`) and
    copied to every pair of runs they stand for, so the values are those of counting every
    pair, in (distinct columns)^2 x trials instead of S^2 x trials."""
    R, S = means.shape
    distinct, column = _distinct_columns(means)
    U = distinct.shape[1]
    if U == S:
        return _distinct_pair_stability(means, fuzziness, scale)
    stab_u, tied_u = _distinct_pair_stability(distinct, fuzziness, scale)
    ii, jj = np.triu_indices(S, 1)
    a, b = column[ii], column[jj]
    del ii, jj
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    k = lo * U - lo * (lo + 1) // 2 + (hi - lo - 1)
    same = a == b
    k[same] = 0
    if stab_u.size == 0:
        return np.zeros(a.size), np.ones(a.size)
    return np.where(same, 0.0, stab_u[k]), np.where(same, 1.0, tied_u[k])


def _distinct_columns(means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct columns of ``means``, each column's index among them), columns told
    apart by their bytes: one comparison of whole columns (``numpy.unique`` along an axis
    compares them value by value, field by field, a tenth of the stability's time). Columns
    grouped together are equal; 0.0 and -0.0 (or NaNs of other bits) stay apart, which only
    counts their pairs one by one, to the same values (:func:`pair_stability`)."""
    R, S = means.shape
    if R == 0 or S == 0:
        distinct, column = np.unique(means, axis=1, return_inverse=True)
        return distinct, column.reshape(-1)
    cols = np.ascontiguousarray(means.T)
    keys = cols.view(np.dtype((np.void, cols.itemsize * R))).ravel()
    _, first, column = np.unique(keys, return_index=True, return_inverse=True)
    return means[:, first], column.reshape(-1)


def _distinct_pair_stability(means: np.ndarray, fuzziness: float = 0.0,
                             scale: str = "absolute") -> tuple[np.ndarray, np.ndarray]:
    """:func:`pair_stability` counting every pair of columns: one run against the runs
    after it at a time, (S - i - 1) x trials contiguous differences, no gathered pair copies.
    With an absolute threshold the compiled kernel (``reeval.stats._kernels``, unless
    ``REEVAL_KERNELS=0``) counts the same differences against the same threshold in C."""
    R, S = means.shape
    by_run = np.ascontiguousarray(means.T)
    compiled = kernels()
    if compiled is not None and scale == "absolute" and S > 1 and by_run.dtype == np.float64:  # in C
        gt, lt = np.empty(S * (S - 1) // 2, dtype=np.int64), np.empty(S * (S - 1) // 2, dtype=np.int64)
        compiled.pair_sign_counts(by_run, gt, lt, S, R, tie_threshold(None, None, fuzziness, scale))
        return np.maximum(gt, lt) / R, (R - gt - lt) / R
    stab, tied = np.empty(S * (S - 1) // 2), np.empty(S * (S - 1) // 2)
    start = 0
    for i in range(S - 1):
        d = by_run[i + 1:] - by_run[i]
        thr = tie_threshold(by_run[i + 1:], by_run[i], fuzziness, scale)
        gt, lt = np.count_nonzero(d > thr, axis=1), np.count_nonzero(d < -thr, axis=1)
        stop = start + S - 1 - i
        stab[start:stop] = np.maximum(gt, lt) / R
        tied[start:stop] = (R - gt - lt) / R
        start = stop
    return stab, tied


def stability(per_topic: dict, trials: int = 1000, seed: int = 0, size: int | None = None,
              fuzziness: float = FUZZINESS, scale: str = "absolute", seeds: int = 1) -> pd.DataFrame:
    """Buckley-Voorhees stability (module doc) of each {(measure, alpha): (S, T)} matrix.

    Every measure sees the same topic samples. ``size`` defaults to floor(T/2) (the
    paper's; the authors' code rounds T/2 half to even, the same for T = 45 and every even
    T). ``fuzziness`` and ``scale``: :func:`tie_threshold`. ``seeds`` > 1 repeats the
    experiment with seeds seed, seed + 1, ...: ``stability`` and ``tied_share`` stay
    those of ``seed``, ``stability_low``/``stability_high`` give the range over all seeds.
    Returns measure, alpha, topics, sampled_topics, trials, fuzziness, fuzziness_scale,
    seeds, stability, stability_low, stability_high, tied_share (the share of trial x pair
    comparisons that were ties), stability_100 (``seed``'s stability over its first
    :data:`CONVERGENCE_TRIALS` trials, a prefix of the same samples; over all of them when
    ``trials`` is fewer).
    """
    rows = []
    samples: dict = {}
    for (measure, alpha), X in per_topic.items():
        S, T = X.shape
        k = T // 2 if size is None else int(size)
        values, tied_first, first_100 = [], math.nan, math.nan
        for n in range(max(int(seeds), 1)):
            if n not in samples:
                samples[n] = topic_samples(T, k, trials, seed + n)
            means = samples[n] @ X.T / max(k, 1)                   # (trials, S)
            per_pair, tied = pair_stability(means, fuzziness, scale)
            values.append(float(per_pair.mean()) if per_pair.size else math.nan)
            if n == 0:
                tied_first = float(tied.mean()) if tied.size else math.nan
                prefix = pair_stability(means[:CONVERGENCE_TRIALS], fuzziness, scale)[0]
                first_100 = float(prefix.mean()) if prefix.size else math.nan
        rows.append({"measure": measure, "alpha": rr.alpha_label(alpha), "topics": T,
                     "sampled_topics": k, "trials": trials, "fuzziness": float(fuzziness),
                     "fuzziness_scale": scale, "seeds": len(values), "stability": values[0],
                     "stability_low": min(values), "stability_high": max(values),
                     "tied_share": tied_first, "stability_100": first_100})
    return pd.DataFrame(rows, columns=list(STABILITY_COLUMNS))


#: the columns of :func:`stability`
STABILITY_COLUMNS = ("measure", "alpha", "topics", "sampled_topics", "trials", "fuzziness", "fuzziness_scale",
                     "seeds", "stability", "stability_low", "stability_high", "tied_share", "stability_100")


def batched_kendall_tau(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Kendall tau-b of each row pair of (trials, N) arrays (differences within EPS are
    ties): sum(sign dx * sign dy) / sqrt(#untied in x * #untied in y); NaN when either row
    is constant (as scipy). Counted one item against the items after it at a time, over
    every trial at once."""
    X = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
    Y = np.ascontiguousarray(np.asarray(Y, dtype=np.float64).T)
    N, R = X.shape
    num, untied_x, untied_y = (np.zeros(R, dtype=np.int64) for _ in range(3))
    for i in range(N - 1):
        sx, sy = _eps_sign(X[i + 1:] - X[i]), _eps_sign(Y[i + 1:] - Y[i])
        num += (sx * sy).sum(axis=0, dtype=np.int64)
        untied_x += np.count_nonzero(sx, axis=0)
        untied_y += np.count_nonzero(sy, axis=0)
    den = np.sqrt(untied_x.astype(np.float64) * untied_y)
    return np.divide(num, den, out=np.full(R, np.nan), where=den > 0)


def _eps_sign(d: np.ndarray) -> np.ndarray:
    """+1, -1 or 0 (|d| <= EPS) as int8."""
    return (d > EPS).astype(np.int8) - (d < -EPS)


class LinearRareness:
    """Run means of one rareness measure for any subset of runs (module doc of rareness).

    For run s: P0_s = sum_h c_h, P1_s = sum_h c_h alpha_h over its hits, and
    G[r, s] = sum_h c_h alpha_h [run r has d_h in its top k] (r != s). Over a subset of N
    runs with rareness counted on that subset (S = N):
        paper:      mean_s = (P0_s + P1_s - (P1_s + off_s) / N) / T
        normalized: mean_s = (P0_s - off_s / (N - 1)) / T        (P0_s / T when N = 1)
    where off_s = sum of G[r, s] over the other runs r of the subset.
    """

    def __init__(self, hits: rr.Hits, family: str, alpha):
        from scipy import sparse  # here, not at import: the Snakefile reads this module's report

        S, T = hits.shape
        self.T = T
        self.normalized = family.endswith("_norm")
        c = hits.coef(family)
        ca = c * rr.topic_alpha(hits, alpha)[hits.topic]
        self.P0 = np.bincount(hits.run, weights=c, minlength=S)
        self.P1 = np.bincount(hits.run, weights=ca, minlength=S)
        D = len(hits.doc_topic)
        A = sparse.csr_matrix((np.ones(len(hits.run)), (hits.run, hits.doc)), shape=(S, D))
        W = sparse.csc_matrix((ca, (hits.doc, hits.run)), shape=(D, S))
        G = (A @ W).toarray()
        np.fill_diagonal(G, 0.0)
        self.G = G

    def means(self, idx: np.ndarray) -> np.ndarray:
        """(trials, N) run means for the runs ``idx`` (trials, N, no run twice in a row) of
        each trial; off_s = sum_r G[r, s] over the sample's runs r: :func:`sample_block_sums`."""
        N = idx.shape[1]
        off = sample_block_sums(self.G, idx)
        P0, P1 = self.P0[idx], self.P1[idx]
        if self.normalized:
            total = P0 - off / (N - 1) if N > 1 else P0
        else:
            total = P0 + P1 - (P1 + off) / N
        return total / max(self.T, 1)

    def full_means(self) -> np.ndarray:
        return self.means(np.arange(len(self.P0))[None, :])[0]


def sample_block_sums(G: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """(trials, N) sums sum_r G[idx[t, r], idx[t, s]] over the sample's rows r, for each
    trial t and sample column s: the column sums of each trial's N x N block of G (S x S).
    Added row r after row r in sample order, one (trials, N) gather of the flat G per r:
    the bits of ``G[idx[:, :, None], idx[:, None, :]].sum(axis=1)`` (numpy adds along a
    non-contiguous axis in that order), without its trials x N x N temporary (a third of
    its time). N = 0 gives (trials, 0) zeros."""
    trials, N = idx.shape
    if N == 0:
        return np.zeros((trials, 0))
    flat, rows = G.ravel(), idx * G.shape[1]
    off = flat.take(rows[:, :1] + idx)
    for r in range(1, N):
        off += flat.take(rows[:, r:r + 1] + idx)
    return off


def sample_runs(n_runs: int, size: int, trials: int, seed: int) -> np.ndarray:
    """(trials, size) run indices, each row a sample without replacement; seeded by (seed, size)."""
    rng = np.random.default_rng([seed, size])
    return np.argsort(rng.random((trials, n_runs)), axis=1)[:, :size]


def number_of_systems(hits: rr.Hits, measures, sizes=(2, 4, 8, 16, 32, 64), trials: int = 1000,
                      seed: int = 0) -> pd.DataFrame:
    """Algorithm 1 of the paper for each (family, alpha) in ``measures`` and each sample
    size N <= S: mean Kendall tau-b between the full ranking (rareness over every run)
    restricted to the sample and the ranking with rareness recomputed on the sample.
    Trials where either ranking is all tied (tau undefined) are left out and counted.
    Returns measure, alpha, n_systems, trials, valid_trials, mean_tau, sd_tau.
    """
    S = hits.shape[0]
    rows = []
    samples = {N: sample_runs(S, N, trials, seed) for N in sizes if 2 <= N <= S}
    for family, alpha in measures:
        lin = LinearRareness(hits, family, alpha)
        full = lin.full_means()
        for N, idx in samples.items():
            tau = batched_kendall_tau(full[idx], lin.means(idx))
            ok = ~np.isnan(tau)
            rows.append({"measure": family, "alpha": rr.alpha_label(alpha), "n_systems": N,
                         "trials": trials, "valid_trials": int(ok.sum()),
                         "mean_tau": float(tau[ok].mean()) if ok.any() else math.nan,
                         "sd_tau": float(tau[ok].std(ddof=1)) if ok.sum() > 1 else math.nan})
    return pd.DataFrame(rows, columns=["measure", "alpha", "n_systems", "trials", "valid_trials", "mean_tau",
                                       "sd_tau"])


def default_topic(hits: rr.Hits) -> int:
    """The topic with the most relevant documents (the first in qid order on ties)."""
    return int(np.argmax(hits.num_rel)) if len(hits.num_rel) else -1


def synthetic_ranks(hits: rr.Hits, topic: int, alphas=(0.0, 0.5, 1.0), max_docs: int = 100,
                    family: str = "P_rareness") -> pd.DataFrame:
    """Figure 1 of the paper on one topic (index ``topic``) with the S real runs.

    S_rare retrieves D relevant documents no other system found (S_d = 1 each); S_common
    retrieves the D relevant documents the most runs found (c_k descending, then docno),
    raising their S_d by one. Each joins the real runs alone (S + 1 systems) and is
    ranked among them by ``family`` (P_rareness or P_rareness_norm) at cutoff k on this
    topic: rank = 1 + real runs scoring higher by more than EPS (a tie ranks it first).
    D runs over 1..min(max_docs, k) for S_rare and 1..min(max_docs, k, R_q) for
    S_common. Returns system, alpha, docs, score, rank, best_real, n_systems.
    """
    if family not in ("P_rareness", "P_rareness_norm"):
        raise ValueError("the synthetic experiment scores P_rareness or P_rareness_norm")
    S, T = hits.shape
    k, normalized = hits.k, family.endswith("_norm")
    on_t = hits.topic == topic
    docs_t = np.flatnonzero(hits.doc_topic == topic)
    local = np.full(len(hits.doc_topic), -1)
    local[docs_t] = np.arange(len(docs_t))
    counts = rr.retrieval_counts(hits)[docs_t].astype(np.float64)
    B = np.zeros((len(docs_t), S))                       # hit incidence: doc x run
    np.add.at(B, (local[hits.doc[on_t]], hits.run[on_t]), 1.0)
    order = np.lexsort((hits.doc_docno[docs_t].astype(str), -counts))  # most common first
    S1 = S + 1
    rows = []
    for system in ("rare", "common"):
        n_max = min(max_docs, k) if system == "rare" else min(max_docs, k, len(docs_t))
        D = np.arange(1, n_max + 1)
        if system == "rare":
            added = np.zeros((len(D), len(docs_t)))
        else:
            rank_of = np.empty(len(docs_t), dtype=np.int64)
            rank_of[order] = np.arange(len(docs_t))
            added = (rank_of[None, :] < D[:, None]).astype(np.float64)   # (D, docs)
        C = counts[None, :] + added
        for alpha in alphas:
            a = float(rr.check_alpha(alpha))
            weight = ((1 - a) if normalized else 1.0) + a * rr.rarity(C, S1, normalized)
            real = weight @ B / k                                     # (D, S)
            if system == "rare":
                own = D * (((1 - a) if normalized else 1.0) + a * rr.rarity(1, S1, normalized)) / k
            else:
                own = (weight * added).sum(axis=1) / k
            rank = 1 + (real > own[:, None] + EPS).sum(axis=1)
            rows.append(pd.DataFrame({"system": system, "alpha": rr.alpha_label(a), "docs": D,
                                      "score": own, "rank": rank,
                                      "best_real": real.max(axis=1) if S else np.full(len(D), np.nan),
                                      "n_systems": S1}))
    return pd.concat(rows, ignore_index=True)


def topic_documents(hits: rr.Hits, grades: np.ndarray, topic: int, systems: str = "all") -> pd.DataFrame:
    """The paper's table 4 for one topic (index ``topic``): each of its relevant documents
    with its grade (``grades``: the qrels grade of each relevant document, aligned with
    ``hits.doc_topic``), c_k (runs with it in their top k), S, its rarity R(d) = 1 - c_k/S
    (NaN when no run found it) and the runs that retrieved it in their top k (names
    separated by spaces: a run name holds no whitespace). Rarest first (R descending, then
    docno); documents no run found last. Empty for ``topic`` < 0."""
    cols = ["qid", "docno", "grade", "k", "c_k", "n_systems", "rarity", "retrieved_by"]
    if topic < 0:
        return pd.DataFrame(columns=cols)
    docs = np.flatnonzero(hits.doc_topic == topic)
    counts = rr.retrieval_counts(hits)[docs]
    S_t = int(rr.n_systems(hits, systems)[topic])
    on = hits.topic == topic
    names = pd.Series(np.asarray(hits.runs, dtype=object)[hits.run[on]]).groupby(hits.doc[on]).agg(" ".join)
    out = pd.DataFrame({
        "qid": hits.topics[topic], "docno": hits.doc_docno[docs], "grade": np.asarray(grades)[docs].astype(np.int64),
        "k": hits.k, "c_k": counts, "n_systems": S_t,
        "rarity": np.where(counts > 0, rr.rarity(counts, S_t), np.nan),
        "retrieved_by": names.reindex(docs).fillna("").to_numpy(dtype=object)}, columns=cols)
    out["_found"] = counts > 0
    out = out.sort_values(["_found", "rarity", "docno"], ascending=[False, False, True], kind="stable")
    return out.drop(columns="_found").reset_index(drop=True)
