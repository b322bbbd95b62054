"""Per-document views of the ASL study: the bucketed histograms of figures 1-6 and the
appendix A.1 share of MAP's per-document precision.

Inputs are the per-track tables of the ``measures`` rule (``measures_by_run``,
``asl_by_document``); see :mod:`reeval.analyses.asl.study` for the notation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reeval.measures import row_sums

from .study import category_codes

#: :func:`map_share` with the track (``map_share.parquet``)
MAP_SHARE_COLUMNS = ("track", "run", "n_docs", "target_sl", "n_closest", "share")


#: the dash of a range (en dash) and the minus sign of the bucket labels
DASH, MINUS = "\u2013", "\u2212"


def bucket_labels(edges, integer: bool = True) -> list:
    """Labels of the buckets [e_k, e_k+1) and [e_last, inf): for integer values ``"a–b"``
    (an en dash) with b = e_k+1 - 1 (``"a"`` when a = b); for real values (a mean such as
    ASL@g1-10) the half-open ``"[a, b)"``, so that neighbours never share an end ("1–10",
    "10–20" would both seem to hold 10); ``"≥e_last"`` for the last."""
    labels = []
    for a, b in zip(edges[:-1], edges[1:]):
        if integer:
            labels.append(f"{a:g}" if b - 1 == a else f"{a:g}{DASH}{b - 1:g}")
        else:
            labels.append(f"[{a:g}, {b:g})")
    labels.append(f"\u2265{edges[-1]:g}")
    return labels


def bucket_counts(values, edges) -> np.ndarray:
    """Counts in [e_k, e_k+1) for each k and [e_last, inf); values below e_0 are not
    counted (search lengths are >= 1, so e_0 = 1 counts everything)."""
    v = np.asarray(values, dtype=np.float64)
    idx = np.searchsorted(np.asarray(edges, dtype=np.float64), v, side="right") - 1
    idx = idx[idx >= 0]
    return np.bincount(idx, minlength=len(edges))


def unit_histogram(values, n_bins: int = 10) -> np.ndarray:
    """Counts in n_bins equal bins of [0, 1], the last closed ([0.9, 1.0] for 10 bins)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    idx = np.minimum(np.floor(v * n_bins).astype(np.int64), n_bins - 1)
    return np.bincount(idx[idx >= 0], minlength=n_bins)


def best_and_median_run(by_run: pd.DataFrame) -> tuple:
    """(best, median) run by ASL: runs sorted by (ASL, name) ascending, the first and the
    one at index (S - 1) // 2 (the better of the two middle runs when S is even)."""
    df = by_run[np.isfinite(by_run["ASL"].to_numpy(dtype=np.float64))]
    if df.empty:
        return None, None
    df = df.sort_values(["ASL", "run"], kind="stable").reset_index(drop=True)
    return df.run[0], df.run[(len(df) - 1) // 2]


def docs_per_topic(by_run: pd.DataFrame) -> pd.Series:
    """Mean documents a run returned per topic (``num_ret / num_q``, indexed by run); NaN
    for every run when ``measures_by_run`` has no ``num_ret`` or ``num_q``."""
    if not {"num_ret", "num_q"} <= set(by_run.columns):
        return pd.Series(np.nan, index=by_run["run"])
    return pd.Series((by_run["num_ret"] / by_run["num_q"].clip(lower=1)).to_numpy(dtype=float), index=by_run["run"])


#: a run returning fewer than this share of the deepest run's documents per topic is called
#: shallow on figures 5-6: its ASL is a loose lower bound (DESIGN.md), so "best by ASL" needs saying
SHALLOW_SHARE = 0.5


def best_run_caption(best: str, depth: pd.Series) -> str:
    """How figures 5-6 qualify the best run by ASL: its documents per topic beside the
    deepest run's (each phrase kept on one line by no-break spaces), and, when it returns
    fewer than :data:`SHALLOW_SHARE` of them, that it is shallow, its ASL only a lower
    bound; ``""`` when the depths are unknown."""
    d_best, d_max = depth.get(best, np.nan), depth.max()
    if not np.isfinite(d_best):
        return ""
    nb = "\u00a0"
    text = f"{d_best:.0f}{nb}docs/topic (deepest{nb}run:{nb}{d_max:.0f})"
    if d_best < SHALLOW_SHARE * d_max:
        text += "\na shallow run: its ASL is a lower\u00a0bound"
    return text


def document_histogram(docs: pd.DataFrame, run: str, edges) -> pd.DataFrame:
    """Figure 5: per-document ASL of one run's relevant documents in buckets of
    :func:`bucket_counts` (retrieved ones), plus a last bucket "not retrieved"."""
    d = docs[docs["run"] == run]
    ret = d["retrieved"].to_numpy()
    counts = bucket_counts(d["asl"].to_numpy()[ret], edges)
    return pd.DataFrame({"bucket": bucket_labels(edges) + ["not retrieved"],
                         "count": np.append(counts, int((~ret).sum()))})


def _signed(v: float) -> str:
    """A number with a true minus sign."""
    return f"{MINUS}{-v:g}" if v < 0 else f"{v:g}"


def signed_bucket_labels(edges) -> list:
    """Labels of :func:`signed_bucket_counts` for integer differences, in the paper's form
    (figure 6: no bucket of its own for 0), e.g. for edges 1, 10, 100:
    ``≤−100``, ``−99 – −10``, ``−9 – −1``, ``0 – 9``, ``10 – 99``, ``≥100``."""
    e = [float(x) for x in edges]
    neg = [f"\u2264{_signed(-e[-1])}"]
    for a, b in reversed(list(zip(e[:-1], e[1:]))):
        neg.append(_signed(-a) if b - 1 == a else f"{_signed(-(b - 1))} {DASH} {_signed(-a)}")
    pos = [f"0 {DASH} {e[1] - 1:g}"]
    for a, b in zip(e[1:-1], e[2:]):
        pos.append(f"{a:g}" if b - 1 == a else f"{a:g} {DASH} {b - 1:g}")
    return neg + pos + [f"\u2265{e[-1]:g}"]


def signed_bucket_counts(diff, edges) -> np.ndarray:
    """Counts of signed differences in symmetric magnitude buckets, the paper's figure 6:
    the smallest wins and losses are "the middle two buckets", with no bucket of its own
    for 0.

    Wins (d < 0) by magnitude in (0, e_1), [e_1, e_2) ... [e_last, inf); losses and ties
    (d >= 0) in [0, e_1), [e_1, e_2) ... [e_last, inf): a difference of 0 (the two runs
    give the document the same ASL) counts in the smallest-losses bucket, being no win
    (count them with :func:`ties`). Order: the largest wins to the largest losses;
    ``2 (len(edges) - 1) + 2`` buckets. Edges as :func:`bucket_counts` (e_0 is the
    smallest magnitude of an integer difference, 1).
    """
    d = np.asarray(diff, dtype=np.float64)
    e = [0.0, *[float(x) for x in edges[1:]]]
    wins = bucket_counts(-d[d < 0], e)
    losses = bucket_counts(d[d >= 0], e)
    return np.concatenate([wins[::-1], losses]).astype(np.int64)


def ties(diff) -> int:
    """How many differences are 0 (counted by :func:`signed_bucket_counts` in the bucket
    of the smallest losses)."""
    return int((np.asarray(diff, dtype=np.float64) == 0).sum())


def document_differences(docs: pd.DataFrame, run_a: str, run_b: str) -> np.ndarray:
    """ASL_qd(run_a) - ASL_qd(run_b) over every relevant document of the track (both
    runs have a row for each, unretrieved ones at their unretrieved value)."""
    a = docs[docs["run"] == run_a].set_index(["qid", "docno"])["asl"]
    b = docs[docs["run"] == run_b].set_index(["qid", "docno"])["asl"]
    a, b = a.align(b, join="inner")
    return (a - b).to_numpy()


def difference_histogram(docs: pd.DataFrame, run_a: str, run_b: str, edges) -> pd.DataFrame:
    """Figure 6: :func:`signed_bucket_counts` of :func:`document_differences`; the number
    of differences of 0 in ``attrs["ties"]``."""
    d = document_differences(docs, run_a, run_b)
    out = pd.DataFrame({"bucket": signed_bucket_labels(edges), "count": signed_bucket_counts(d, edges)})
    out.attrs["ties"] = ties(d)
    return out


def map_share(docs: pd.DataFrame, target: str = "pooled") -> pd.DataFrame:
    """How many of its documents MAP really averages (paper appendix A.1), per run.

    Per run, the N relevant documents (over the topics with one) have precision P_i
    (AP's per-document term) and search length SL_i = 1/P_i (inf when not retrieved).
    Sorted by P descending, the prefix means m_n = (1/n) sum_{i<=n} SL_i grow with n;
    the run's share is n*/N for the n* whose m_n is closest to the target search
    length (the smallest such n on ties). Target: ``pooled`` = 1/mean_i P_i, the
    search length of the unweighted mean precision of the same documents (the
    identity of eq. 14-15); ``map`` = 1/MAP (mean over topics of AP_q). A run with
    mean precision 0 has no finite target: share NaN.

    Returns run, n_docs, target_sl, n_closest, share (no row when ``docs`` is empty).
    """
    if target not in ("pooled", "map"):
        raise ValueError("target must be 'pooled' or 'map'")
    if not len(docs):  # no run, or no relevant document: no row
        dtypes = {"run": object, "n_docs": np.int64, "target_sl": np.float64, "n_closest": np.int64,
                  "share": np.float64}
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in dtypes.items()})
    runs = sorted(pd.unique(docs["run"]).tolist())
    r = category_codes(docs["run"], runs)
    p = docs["precision"].to_numpy(dtype=np.float64)
    order = np.lexsort((-p, r))
    r, p = r[order], p[order]
    S = len(runs)
    N = np.bincount(r, minlength=S)
    if target == "pooled":
        mean_p = np.bincount(r, weights=p, minlength=S) / np.maximum(N, 1)
    else:
        tq = category_codes(docs["qid"], sorted(pd.unique(docs["qid"]).tolist()))[order]
        T = int(tq.max()) + 1 if len(tq) else 0
        g = r * T + tq
        ap = (np.bincount(g, weights=p, minlength=S * T)
              / np.maximum(np.bincount(g, minlength=S * T), 1)).reshape(S, T)
        has = np.bincount(g, minlength=S * T).reshape(S, T) > 0
        mean_p = row_sums(np.where(has, ap, 0)) / np.maximum(has.sum(axis=1), 1)
    with np.errstate(divide="ignore"):
        sl = np.where(p > 0, 1.0 / np.where(p > 0, p, 1.0), np.inf)
        target_sl = np.where(mean_p > 0, 1.0 / np.where(mean_p > 0, mean_p, 1.0), np.nan)
    first = np.concatenate([[0], np.cumsum(N)[:-1]])
    k = np.arange(len(r)) - first[r] + 1                     # n of each prefix
    finite_sl = np.where(np.isfinite(sl), sl, 0.0)
    csum = np.cumsum(finite_sl)
    before = np.where(first > 0, csum[np.maximum(first - 1, 0)], 0.0)
    prefix = np.where(np.isfinite(sl), (csum - before[r]) / k, np.inf)
    dist = np.abs(prefix - target_sl[r])
    dist = np.where(np.isnan(dist), np.inf, dist)
    pick = np.lexsort((k, dist, r))                            # per run: smallest dist, then n
    starts = np.ones(len(pick), dtype=bool)
    starts[1:] = r[pick][1:] != r[pick][:-1]
    best = pick[starts]
    n_closest = np.zeros(S, dtype=np.int64)
    n_closest[r[best]] = k[best]
    ok = np.isfinite(target_sl) & (N > 0)
    return pd.DataFrame({
        "run": runs, "n_docs": N, "target_sl": target_sl,
        "n_closest": np.where(ok, n_closest, 0),
        "share": np.where(ok, n_closest / np.maximum(N, 1), np.nan),
    })
