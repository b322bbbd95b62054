"""The atomized-search-length study (Alex, Hall & Metzler, "Atomized Search Length:
Beyond User Models"): headroom, per-document ASL views, the MAP-to-ASL reordering
ablation, the technique reanalysis and the appendix A.1 share.

Inputs are the per-track tables the ``measures`` rule writes (``measures_by_topic``,
``measures_by_run``, ``asl_by_document``); nothing here re-reads runs or qrels. All
computations are vectorized over runs x topics matrices and over documents.

Notation (per run, topic q with n_q >= 1 relevant documents, relevant document d):

- ``rank_qd`` 1-based position, ``rel_qd`` relevant documents above d.
- MAP's per-document precision (paper eq. 6): P_qd = (rel_qd + 1) / rank_qd, 0 when d
  was not retrieved. AP_q = (1/n_q) sum_d P_qd (eq. 7), MAP = (1/Q) sum_q AP_q (eq. 8).
- ASL_qd = rank_qd - rel_qd (eq. 2) = irrel_qd + 1 (eq. 1); an unretrieved relevant
  document gets the measures rule's value (irrel_q + 1, or irrel_q with ``eq3``).
  ASL_q = (1/n_q) sum_d ASL_qd and ASL = (1/Q) sum_q ASL_q (eq. 4).

Topics: every step of the reordering ablation and appendix A.1 use the topics with at
least one relevant document (where ASL is defined), for every run; headroom and the
technique table report the per-run means of ``measures_by_run`` (trec_eval -c for the
classic measures, topics with a relevant document for ASL).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reeval.measures import row_sums
from reeval.stats.allpairs import all_pairs_ttest
from reeval.stats.correlation import kendall_tau

#: the measures the study reads from ``measures_by_topic`` (config ``measures`` must
#: produce them: ``official`` gives map, recip_rank and P_20)
REQUIRED_MEASURES = ("map", "P_20", "recip_rank", "ASL", "ASL@g1", "ASL@g1-10")
LADDER_STEPS = ("map", "atomized_p", "docs_harmonic", "topics_harmonic")
#: (name, from, to) of each reordering comparison of table 2; the ladder steps by name,
#: the top-document rows by measure
COMPARISONS = (
    ("atomize_p", "map", "atomized_p"),
    ("docs_within_query", "atomized_p", "docs_harmonic"),
    ("rates_across_queries", "docs_harmonic", "topics_harmonic"),
    ("cumulative", "map", "topics_harmonic"),
    ("p20_to_aslg1-10", "P_20", "ASL@g1-10"),
    ("mrr_to_aslg1", "recip_rank", "ASL@g1"),
)
TTEST_SPACES = ("aggregate", "rate")
UNRETRIEVED_PRECISION = ("asl", "zero")
#: headroom measures: (measure, higher_is_better)
HEADROOM_MEASURES = (("P_20", True), ("ASL@g1-10", False), ("map", True), ("ASL", False))

# The columns of the study's tables (also when they have no row: no track included)
#: :func:`reordering`'s per-track table (``reordering.parquet``)
REORDERING_COLUMNS = ("track", "comparison", "old", "new", "max_delta_sort", "max_delta_sort_run",
                      "kendall_tau", "delta_value", "n_runs", "n_topics")
#: :func:`reordering`'s per-run table (``reordering_by_run.parquet``)
REORDERING_BY_RUN_COLUMNS = ("track", "comparison", "old", "new", "run", "old_value", "new_value",
                             "n0", "n1", "delta_sort", "value_ratio")
#: :func:`headroom` (``headroom.parquet``): per measure its best value, run and depth
HEADROOM_COLUMNS = ("track", "n_runs") + tuple(c for m, _ in HEADROOM_MEASURES
                                               for c in (m, f"{m}_run", f"{m}_depth"))


# ------------------------------------------------------------------ track matrices

@dataclass
class TrackMatrices:
    """One track's per-topic values on a dense runs x topics grid.

    runs and topics are sorted as the measures engine sorts them, so row sums here are
    bit-identical to the ones behind ``measures_by_run``. ``use`` (T,) marks the topics
    with at least one relevant document; ``values[measure]`` is (S, T).
    """

    track: str
    runs: list
    topics: list
    use: np.ndarray
    values: dict

    @property
    def shape(self):
        return len(self.runs), len(self.topics)


def category_codes(values, categories) -> np.ndarray:
    """Index of each value in ``categories`` (-1 if absent), as int64."""
    return pd.Categorical(values, categories=categories).codes.astype(np.int64)


def track_matrices(by_topic: pd.DataFrame, track: str = "") -> TrackMatrices:
    """Dense (S, T) matrices of the study's measures from a ``measures_by_topic`` table.

    Raises ValueError naming any measure of :data:`REQUIRED_MEASURES` that is missing
    (add it to the config's ``measures``).
    """
    missing = [m for m in REQUIRED_MEASURES if m not in by_topic.columns]
    if missing:
        raise ValueError(f"track {track}: measures_by_topic lacks {missing}; the study needs "
                         f"{list(REQUIRED_MEASURES)} in the config's measures")
    runs = sorted(pd.unique(by_topic["run"]).tolist())
    topics = sorted(pd.unique(by_topic["qid"]).tolist())
    S, T = len(runs), len(topics)
    r, t = category_codes(by_topic["run"], runs), category_codes(by_topic["qid"], topics)
    if len(by_topic) != S * T:
        raise ValueError(f"track {track}: measures_by_topic is not a full runs x topics grid")
    values = {}
    for m in REQUIRED_MEASURES:
        M = np.full((S, T), np.nan)
        M[r, t] = by_topic[m].to_numpy(dtype=np.float64)
        values[m] = M
    use = ~np.isnan(values["ASL"]).all(axis=0) if S else np.zeros(T, dtype=bool)
    return TrackMatrices(track=track, runs=runs, topics=topics, use=use, values=values)


def topic_mean(M: np.ndarray, use: np.ndarray) -> np.ndarray:
    """Per-run mean of ``M`` (S, T) over the topics where ``use`` (T,) is true.

    The same expression as :func:`reeval.measures.aggregate` (``where(use, M, 0)`` added
    along topics in order, divided by the topic count), so ``topic_mean(ASL_q)`` equals
    ``measures_by_run.ASL`` bit for bit. NaN when no topic is used.
    """
    use2 = np.broadcast_to(use[None, :], M.shape)
    n = use2.sum(axis=1)
    total = row_sums(np.where(use2, M, 0.0))
    return np.where(n > 0, total / np.maximum(n, 1), np.nan)


# ------------------------------------------------------------------ the ladder

def atomized_precision(docs: pd.DataFrame, tm: TrackMatrices,
                       unretrieved: str = "asl") -> np.ndarray:
    """Per-topic mean of the atomized precision 1/ASL_qd, (S, T) (step "atomize P").

    AP'_q = (1/n_q) sum_d p_qd with p_qd = 1/ASL_qd for a retrieved relevant document.
    An unretrieved one gets p_qd = 1/ASL_qd with the measures rule's ASL value
    (``unretrieved="asl"``: the reciprocal of eq. 3/1, the paper's "reciprocal of
    Equation 2" applied to every document) or 0 as MAP does (``"zero"``: this step then
    removes only the coupling through rel_qd, and the next step also moves the
    unretrieved documents from 0 to 1/ASL_qd). NaN for topics without relevant documents.
    ``docs`` is ``asl_by_document`` (one row per run x relevant document). Under eq. 3
    (``asl: unretrieved: eq3``) an unretrieved document of a topic where the run retrieved
    no irrelevant document has ASL_qd = irrel_q = 0: its precision is 1 (the shortest
    search length), not 1/0.
    """
    if unretrieved not in UNRETRIEVED_PRECISION:
        raise ValueError(f"unretrieved precision must be one of {UNRETRIEVED_PRECISION}")
    S, T = tm.shape
    g = category_codes(docs["run"], tm.runs) * T + category_codes(docs["qid"], tm.topics)
    p = 1.0 / np.maximum(docs["asl"].to_numpy(dtype=np.float64), 1.0)
    if unretrieved == "zero":
        p = np.where(docs["retrieved"].to_numpy(), p, 0.0)
    total = np.bincount(g, weights=p, minlength=S * T).reshape(S, T)
    n = np.bincount(g, minlength=S * T).reshape(S, T)
    return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def ladder(tm: TrackMatrices, docs: pd.DataFrame, unretrieved: str = "asl"):
    """The four steps from MAP to 1/ASL (paper section 4.4), per topic and per run.

    Returns ``(per_topic, per_run)``: dicts step -> (S, T) per-topic values and step ->
    (S,) run values, all "higher is better" rates:

    - ``map``: AP_q (eq. 7); run value mean_q AP_q = MAP (over topics with n_q >= 1).
    - ``atomized_p``: AP'_q = mean_d 1/ASL_qd (eq. 6 replaced by the reciprocal of
      eq. 2; see :func:`atomized_precision` for unretrieved documents); run: mean_q.
    - ``docs_harmonic``: the harmonic mean over d of 1/ASL_qd, n_q / sum_d ASL_qd =
      1/ASL_q; run: mean_q 1/ASL_q.
    - ``topics_harmonic``: per topic still 1/ASL_q; run: the harmonic mean over q,
      Q / sum_q ASL_q = 1/ASL, computed as 1/topic_mean(ASL_q) so it equals
      ``1 / measures_by_run.ASL`` exactly.
    """
    asl_q = tm.values["ASL"]
    rate_q = 1.0 / asl_q
    per_topic = {
        "map": tm.values["map"],
        "atomized_p": atomized_precision(docs, tm, unretrieved),
        "docs_harmonic": rate_q,
        "topics_harmonic": rate_q,
    }
    per_run = {step: topic_mean(per_topic[step], tm.use) for step in LADDER_STEPS[:3]}
    per_run["topics_harmonic"] = 1.0 / topic_mean(asl_q, tm.use)
    return per_topic, per_run


# ------------------------------------------------------------------ orderings

@dataclass
class Ordering:
    """Runs ordered by one metric: per-topic values for the t-test (S, T'), the
    aggregate each run is ranked by (S,), and its direction."""

    per_topic: np.ndarray
    aggregate: np.ndarray
    higher_is_better: bool = True

    @property
    def score(self) -> np.ndarray:
        """The aggregate oriented so that higher is better (for Kendall's tau)."""
        return self.aggregate if self.higher_is_better else -self.aggregate


def better_matrix(o: Ordering, margin: float = 0.1, alpha: float = 0.05) -> np.ndarray:
    """B[i, j] = run i is significantly better than run j, (S, S) bool.

    "Significantly better" (paper section 4.4): the aggregate is at least ``margin``
    better, agg_i >= (1 + margin) agg_j when higher is better, agg_i <= (1 - margin) agg_j
    when lower is better, and strictly better; and a two-tailed paired Student t-test
    on the per-topic values gives p <= alpha (:func:`reeval.stats.allpairs.all_pairs_ttest`, all
    pairs at once). Fewer than 2 topics: nothing is significant.
    """
    X = np.asarray(o.per_topic, dtype=np.float64)
    a = np.asarray(o.aggregate, dtype=np.float64)
    S = X.shape[0]
    P = np.ones((S, S))
    if S >= 2:
        ii, jj = np.triu_indices(S, 1)
        p = all_pairs_ttest(X)["p_value"].to_numpy()
        p = np.where(np.isnan(p), 1.0, p)
        P[ii, jj] = p
        P[jj, ii] = p
    ai, aj = a[:, None], a[None, :]
    if o.higher_is_better:
        margin_ok = (ai >= (1.0 + margin) * aj) & (ai > aj)
    else:
        margin_ok = (ai <= (1.0 - margin) * aj) & (ai < aj)
    return margin_ok & (P <= alpha)


def n_better(o: Ordering, margin: float = 0.1, alpha: float = 0.05) -> np.ndarray:
    """For each run s, the number of runs significantly better than s (S,)."""
    return better_matrix(o, margin, alpha).sum(axis=0)


def delta_sort(old: Ordering, new: Ordering, margin: float = 0.1, alpha: float = 0.05):
    """DeltaSort_s = 100 |n0_s - n1_s| / |S| per run (paper section 4.4), with n0/n1 the
    runs significantly better than s under the old/new metric. Returns (delta, n0, n1)."""
    n0 = n_better(old, margin, alpha)
    n1 = n_better(new, margin, alpha)
    S = len(n0)
    return 100.0 * np.abs(n0 - n1) / max(S, 1), n0, n1


def sl_ordering(x_q: np.ndarray, use: np.ndarray, space: str = "aggregate") -> Ordering:
    """Ordering by a search-length measure (ASL, ASL@g1-n) from its per-topic values.

    ``space="aggregate"``: t-test on the per-topic search lengths x_q, runs ranked by
    mean_q x_q, lower is better (the space where the aggregate is an arithmetic mean, so
    the t-test tests exactly the difference that ranks the runs; the paper's remark that
    reporting in 1/P space "can change significance testing results").
    ``space="rate"``: t-test on the per-topic rates 1/x_q, runs ranked by the harmonic
    mean of the rates 1/mean_q x_q, higher is better. Both rank the runs identically.
    """
    if space not in TTEST_SPACES:
        raise ValueError(f"t-test space must be one of {TTEST_SPACES}")
    cols = x_q[:, use]
    if space == "aggregate":
        return Ordering(cols, topic_mean(x_q, use), higher_is_better=False)
    return Ordering(1.0 / cols, 1.0 / topic_mean(x_q, use), higher_is_better=True)


def orderings(tm: TrackMatrices, docs: pd.DataFrame, space: str = "aggregate",
              unretrieved: str = "asl") -> dict:
    """Every metric a comparison of :data:`COMPARISONS` needs, as an :class:`Ordering`.

    The ladder's first three steps and P@20 and MRR are rates averaged arithmetically:
    t-test on their per-topic values. The last ladder step and ASL@g1-n follow
    :func:`sl_ordering` (``space``).
    """
    per_topic, per_run = ladder(tm, docs, unretrieved)
    u = tm.use
    out = {step: Ordering(per_topic[step][:, u], per_run[step]) for step in LADDER_STEPS[:3]}
    out["topics_harmonic"] = sl_ordering(tm.values["ASL"], u, space)
    for m in ("P_20", "recip_rank"):
        out[m] = Ordering(tm.values[m][:, u], topic_mean(tm.values[m], u))
    for m in ("ASL@g1-10", "ASL@g1"):
        out[m] = sl_ordering(tm.values[m], u, space)
    out["_ladder"] = per_run
    return out


def reordering(tm: TrackMatrices, docs: pd.DataFrame, space: str = "aggregate",
               unretrieved: str = "asl", margin: float = 0.1, alpha: float = 0.05):
    """Table 2 of the paper for one track.

    Returns ``(by_run, by_track)``. ``by_run``: one row per comparison x run: the ladder
    values old/new (rates; for the top-document rows the measures themselves), n0, n1,
    delta_sort, value_ratio = new/old for the ladder comparisons (AP vs 1/ASL; NaN when
    old is 0 and for the top-document rows). ``by_track``: one row per comparison:
    max_delta_sort (and its run), kendall_tau between the two orderings of all runs
    (tau-b, :func:`reeval.stats.correlation.kendall_tau`), delta_value (mean value_ratio over the
    runs with a finite ratio), n_runs, n_topics.
    """
    ords = orderings(tm, docs, space, unretrieved)
    lad = ords.pop("_ladder")
    S = len(tm.runs)
    n_sig = {key: n_better(o, margin, alpha) for key, o in ords.items()}   # each metric once
    rows, summary = [], []
    for name, a, b in COMPARISONS:
        old, new = ords[a], ords[b]
        n0, n1 = n_sig[a], n_sig[b]
        ds = 100.0 * np.abs(n0 - n1) / max(S, 1)       # = delta_sort(old, new, margin, alpha)
        ladder_row = a in lad and b in lad
        v_old = lad[a] if ladder_row else old.aggregate
        v_new = lad[b] if ladder_row else new.aggregate
        ratio = (np.where(v_old > 0, v_new / np.where(v_old > 0, v_old, 1.0), np.nan)
                 if ladder_row else np.full(S, np.nan))
        rows.append(pd.DataFrame({
            "track": tm.track, "comparison": name, "old": a, "new": b, "run": tm.runs,
            "old_value": v_old, "new_value": v_new, "n0": n0, "n1": n1,
            "delta_sort": ds, "value_ratio": ratio,
        }))
        finite = np.isfinite(ratio)
        k = int(np.argmax(ds)) if S else -1
        summary.append({
            "track": tm.track, "comparison": name, "old": a, "new": b,
            "max_delta_sort": float(ds[k]) if S else math.nan,
            "max_delta_sort_run": tm.runs[k] if S else None,
            "kendall_tau": kendall_tau(old.score, new.score) if S >= 2 else math.nan,
            "delta_value": float(ratio[finite].mean()) if finite.any() else math.nan,
            "n_runs": S, "n_topics": int(tm.use.sum()),
        })
    return pd.concat(rows, ignore_index=True), pd.DataFrame(summary)


def mean_std_range(x) -> dict:
    """mean, std (ddof=1; NaN for fewer than 2 values), the paper's (mean - std) to
    (mean + std) range, the median, and n, over the finite values of ``x``."""
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = x.size
    mean = float(x.mean()) if n else math.nan
    std = float(x.std(ddof=1)) if n >= 2 else math.nan
    return {"mean": mean, "std": std, "low": mean - std, "high": mean + std,
            "median": float(np.median(x)) if n else math.nan, "n": n}


def geometric_range(x) -> dict:
    """A range that fits ratios (positive numbers): the geometric mean ``gmean`` =
    exp(mean(log x)) divided and multiplied by the geometric sd exp(sd(log x), ddof=1),
    ``glow`` to ``ghigh`` (always > 0), and ``gn``, the finite values > 0 it is over (a
    ratio of 0 or below has no logarithm and is left out); NaN below 2 such values."""
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x) & (x > 0)]
    if x.size < 2:
        g = float(x[0]) if x.size else math.nan
        return {"gmean": g, "glow": math.nan, "ghigh": math.nan, "gn": int(x.size)}
    logs = np.log(x)
    gmean, gsd = math.exp(float(logs.mean())), math.exp(float(logs.std(ddof=1)))
    return {"gmean": gmean, "glow": gmean / gsd, "ghigh": gmean * gsd, "gn": int(x.size)}


def reordering_across_tracks(by_track: pd.DataFrame, by_run: pd.DataFrame) -> pd.DataFrame:
    """One row per comparison across tracks, as the paper's table 2 reports it.

    DeltaSort: the largest per track, then mean/std across tracks. Kendall's tau: per
    track, then across tracks. DeltaValue: new/old pooled over every run of every track
    ("averaged over all systems in all tracks"), and, since mean - std of a ratio can fall
    below 0, its :func:`geometric_range` (``delta_value_gmean``, ``_glow``, ``_ghigh``, ``_gn``).
    """
    rows = []
    for name, _, _ in COMPARISONS:
        t = by_track[by_track.comparison == name]
        r = by_run[by_run.comparison == name]
        row = {"comparison": name, "n_tracks": len(t)}
        for col, values in (("delta_sort", t.max_delta_sort), ("kendall_tau", t.kendall_tau),
                            ("delta_value", r.value_ratio)):
            s = mean_std_range(values)
            row.update({f"{col}_{k}": v for k, v in s.items()})
        row.update({f"delta_value_{k}": v for k, v in geometric_range(r.value_ratio).items()})
        rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ headroom

def headroom(by_run: pd.DataFrame, track: str = "") -> dict:
    """The best run's P@20, ASL@g1-10, MAP and ASL of one track (paper section 4.2).

    Best = highest P@20 / MAP, lowest ASL@g1-10 / ASL, each measure on its own (the
    per-run means of ``measures_by_run``); ties go to the first run by name.
    ``<measure>_depth`` is the best run's mean number of documents per topic (a shallow
    run's ASL is a loose lower bound), NaN without ``num_ret`` and ``num_q`` in the table.
    Keys: :data:`HEADROOM_COLUMNS`.
    """
    df = by_run.sort_values("run", kind="stable").reset_index(drop=True)
    row = {"track": track, "n_runs": len(df)}
    for m, higher in HEADROOM_MEASURES:
        v = df[m].to_numpy(dtype=np.float64)
        ok = np.isfinite(v)
        if not ok.any():
            row[m], row[f"{m}_run"], row[f"{m}_depth"] = math.nan, None, math.nan
            continue
        i = int(np.nanargmax(v) if higher else np.nanargmin(v))
        row[m], row[f"{m}_run"] = float(v[i]), df.run[i]
        row[f"{m}_depth"] = (float(df.num_ret[i] / max(df.num_q[i], 1)) if "num_ret" in df and "num_q" in df
                             else math.nan)
    return row


# ------------------------------------------------------------------ per-document views


# ------------------------------------------------------------------ appendix A.1


# ------------------------------------------------------------------ technique reanalysis
