"""The measures engine: classic trec_eval measures and atomized search length (ASL).

Everything is computed from the judged-position table (one row per judged document a
run retrieved: run, qid, pos, rel), the depth table (run, qid, n_ret) and the qrels,
with vectorized group sums over a dense runs x topics grid. No loop over documents,
topics or runs.

Conventions (trec_eval 9/10; DESIGN.md):

- ``pos`` is the 1-based rank in trec_eval order. ``R_q`` is the number of qrels
  documents of topic q with ``rel >= rel_level``; ``rel_ret`` those the run retrieved.
- AP (``map``) = (1/R_q) * sum over retrieved relevant d of (relevant at or above d)/pos_d.
- ``P_k`` = (relevant in the top k)/k, also when fewer than k are retrieved.
- ``recall_k`` = (relevant in the top k)/R_q. ``Rprec`` = (relevant in the top R_q)/R_q.
- ``recip_rank`` = 1/(pos of the first relevant document), 0 if none.
- ``bpref`` = (1/R_q) * sum over retrieved relevant d of
  1 - min(n_d, R_q)/min(N_q, R_q), where n_d counts judged non-relevant documents
  (0 <= rel < rel_level) above d and N_q those in the qrels; a term is 1 when n_d = 0.
  Documents judged with a negative grade are skipped, as trec_eval skips them.
- ``ndcg`` / ``ndcg_cut_k``: gain = rel when rel > 0 (independent of rel_level), the
  discount of rank r is log2(r + 1) (trec_eval 9.0.5 and later), the ideal
  ranking sorts the qrels grades (> 0) descending; 0 when the ideal gain is 0.
- Every classic measure is 0 for a topic with R_q = 0 (and for an unanswered topic).
- ASL per relevant document d: ASL_qd = pos_d - (relevant documents above d)
  = 1 + non-relevant (incl. unjudged) documents above d. A relevant document the run
  did not retrieve gets irrel_q + 1 (``unretrieved="after_last"``, the paper's
  equation 1) or irrel_q (``unretrieved="eq3"``), with irrel_q = n_ret - rel_ret. For a
  topic the run did not answer at all, irrel_q is the track depth of the topic (the
  most documents any evaluated run returned for it; if no run answered it, the largest
  depth of any topic). ASL_q is the mean over the R_q relevant documents; ``ASL@g1-n``
  the mean over the first min(n, R_q) of them in the run's order (unretrieved last).
  ASL measures are undefined (NaN) for topics with R_q = 0 and their run means skip
  such topics. Lower is better.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .arrays import group_starts, position_in_group
from .bytetext import sorted_texts
from .choices import UNRETRIEVED_POLICIES

STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class Measure:
    """A named measure; parameters are part of the name (``P_20``, ``ASL@g1-10``).

    family: map, gm_map, P, recall, Rprec, recip_rank, bpref, ndcg, ndcg_cut,
    num_q, num_ret, num_rel, num_rel_ret, ASL, ASL_g.
    aggregate: how per-topic values combine into a run value (mean, sum, gmean, count).
    """

    name: str
    family: str
    cutoff: int | None = None
    aggregate: str = "mean"
    higher_is_better: bool = True

    @property
    def is_asl(self) -> bool:
        return self.family in ("ASL", "ASL_g")


def _m(family: str, cutoff: int | None = None) -> Measure:
    if family in ("P", "recall", "ndcg_cut"):
        return Measure(f"{family}_{cutoff}", family, cutoff)
    if family == "ASL_g":
        name = "ASL@g1" if cutoff == 1 else f"ASL@g1-{cutoff}"
        return Measure(name, family, cutoff, higher_is_better=False)
    if family == "ASL":
        return Measure("ASL", family, None, higher_is_better=False)
    if family in ("num_ret", "num_rel", "num_rel_ret"):
        return Measure(family, family, None, aggregate="sum")
    if family == "num_q":
        return Measure(family, family, None, aggregate="count")
    if family == "gm_map":
        return Measure(family, family, None, aggregate="gmean")
    if family == "iprec_at_recall":
        return Measure(f"iprec_at_recall_{cutoff / 10:.2f}", family, cutoff)
    return Measure(family, family, None)


_ALIASES = {"map": "map", "ap": "map", "gm_map": "gm_map", "recip_rank": "recip_rank",
            "rr": "recip_rank", "mrr": "recip_rank", "rprec": "Rprec", "bpref": "bpref",
            "ndcg": "ndcg", "num_q": "num_q", "num_ret": "num_ret", "num_rel": "num_rel",
            "num_rel_ret": "num_rel_ret", "asl": "ASL"}
_CUT_ALIASES = {"p": "P", "recall": "recall", "r": "recall", "ndcg_cut": "ndcg_cut",
                "ndcg": "ndcg_cut"}
OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P")
DEFAULT_ASL = ("ASL", "ASL@g1", "ASL@g1-10")
#: what :func:`parse_measure` accepts, for error messages (k: cutoffs, e.g. ``P.5,10``)
ACCEPTED_MEASURES = ("map, gm_map, P, P.k, recall, recall.k, ndcg, ndcg_cut, ndcg_cut.k, recip_rank, "
                     "Rprec, bpref, iprec_at_recall, num_q, num_ret, num_rel, num_rel_ret, official, "
                     "all_trec (trec_eval names; k as P_20 or P.5,10 too), AP, P@k, R@k, nDCG, nDCG@k, RR "
                     "(ir_measures names), ASL, ASL@g1, ASL@g1-n")


def parse_measure(spec: str) -> list[Measure]:
    """Measures named by one ``-m`` argument, trec_eval or ir_measures style.

    Accepted: ``map``, ``P_20``, ``P.5,10``, ``P`` (standard cutoffs), ``P@20``,
    ``recall_1000``, ``ndcg``, ``ndcg_cut.10``, ``nDCG@10``, ``recip_rank``/``RR``,
    ``Rprec``, ``bpref``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_q``,
    ``gm_map``, ``ASL``, ``ASL@g1``, ``ASL@g1-10``, ``official`` (trec_eval's default
    set we implement) and ``all_trec`` (every classic measure). Raises ValueError.
    """
    s = spec.strip()
    low = s.lower()
    if low == "official":
        return [m for x in OFFICIAL for m in parse_measure(x)]
    if low == "all_trec":
        return [m for x in OFFICIAL + ("recall", "ndcg", "ndcg_cut") for m in parse_measure(x)]
    m = re.fullmatch(r"asl@g1(?:-(\d+))?", low)
    if m:
        n = int(m.group(1) or 1)
        if n < 1:
            raise ValueError(f"unknown measure {spec!r}: ASL@g1-n needs n >= 1")
        return [_m("ASL_g", n)]
    if low in _ALIASES:
        return [_m(_ALIASES[low])]
    if low == "iprec_at_recall":
        return [_m("iprec_at_recall", j) for j in range(11)]
    m = re.fullmatch(r"iprec_at_recall_(0\.\d0|1\.00)", low)
    if m:
        return [_m("iprec_at_recall", int(round(float(m.group(1)) * 10)))]
    m = re.fullmatch(r"([a-z_]+?)(?:[_.@]([0-9,]+))?", low)
    if m and m.group(1) in _CUT_ALIASES:
        family = _CUT_ALIASES[m.group(1)]
        cuts = ([int(c) for c in m.group(2).split(",") if c] if m.group(2)
                else list(STANDARD_CUTOFFS))
        if not cuts or any(c <= 0 for c in cuts):
            raise ValueError(f"measure {spec!r}: cutoffs must be positive integers")
        return [_m(family, c) for c in cuts]
    raise ValueError(f"unknown measure {spec!r}")


def parse_measures(specs) -> list[Measure]:
    """All measures named by a list of specs, first occurrence order, no repeats."""
    out: dict[str, Measure] = {}
    for spec in specs:
        for m in parse_measure(spec):
            out.setdefault(m.name, m)
    return list(out.values())


@dataclass
class Grid:
    """Dense runs x topics evaluation input derived from the central tables.

    rows_* are the judged rows sorted by (run, topic, pos); ``g`` = run * T + topic.
    """

    runs: list
    topics: list
    g: np.ndarray
    pos: np.ndarray
    rel: np.ndarray
    docno: np.ndarray | None
    n_ret: np.ndarray      # (S, T) documents retrieved (after max_depth)
    qrels_topic: np.ndarray
    qrels_rel: np.ndarray
    qrels_docno: np.ndarray | None

    @property
    def shape(self):
        return len(self.runs), len(self.topics)


def _codes(values, categories) -> np.ndarray:
    """Index of each value in ``categories`` (-1 if absent).

    Arrow columns are looked up once per run of equal consecutive values (the central
    tables are sorted, so there are few), or through a dictionary when runs are short;
    a dictionary-encoded column through its dictionary (chunk by chunk).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        import pandas as pd

        return pd.Categorical(values, categories=categories).codes.astype(np.int64)
    if isinstance(values, pa.ChunkedArray) and pa.types.is_dictionary(values.type) and values.num_chunks > 1:
        # ingest's judged table: one chunk per run, each with its own dictionary
        return np.concatenate([_codes(chunk, categories) for chunk in values.chunks])
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    lookup = pa.array(list(categories), type=pa.string())

    def index_of(strings: pa.Array) -> np.ndarray:
        found = pc.index_in(strings.cast(pa.string()), value_set=lookup)
        return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)

    if not pa.types.is_dictionary(arr.type):
        change = pc.not_equal(arr[1:], arr[:-1]).to_numpy(zero_copy_only=False)
        starts = np.flatnonzero(np.r_[True, change])
        if len(starts) <= n // 8:
            return np.repeat(index_of(arr.take(pa.array(starts))), np.diff(np.r_[starts, n]))
        arr = pc.dictionary_encode(arr)
    return index_of(arr.dictionary)[arr.indices.to_numpy(zero_copy_only=False)]


def _col(table, name, raw: bool = False):
    """Column of a pandas DataFrame or pyarrow Table: numpy, or the Arrow column if raw."""
    if hasattr(table, "column_names"):
        col = table.column(name)
        return col if raw else col.to_numpy()
    return table[name].to_numpy()


def _sorted_distinct(table, name) -> list:
    """The distinct values of a column in byte order (trec_eval's ``strcmp`` order, of the
    bytes escaped texts stand for: :func:`reeval.bytetext.sorted_texts`)."""
    if hasattr(table, "column_names"):
        import pyarrow.compute as pc

        return sorted_texts(pc.unique(table.column(name)).to_pylist())
    return sorted_texts(set(table[name].tolist()))


def build_grid(judged, depth, qrels, runs=None, max_depth: int | None = None,
               keep_docno: bool = False) -> Grid:
    """Encode the central tables onto a runs x topics grid.

    ``runs`` fixes the run order (default: sorted names in ``depth``); topics are the
    qrels topics, sorted. Judged rows of other runs/topics are ignored. ``max_depth``
    keeps only the first max_depth documents of each ranking (trec_eval -M).
    """
    topics = _sorted_distinct(qrels, "qid")
    if runs is None:
        runs = _sorted_distinct(depth, "run")
    runs = list(runs)
    S, T = len(runs), len(topics)
    r = _codes(_col(judged, "run", raw=True), runs)
    t = _codes(_col(judged, "qid", raw=True), topics)
    pos = _col(judged, "pos").astype(np.int64)
    rel = _col(judged, "rel").astype(np.int64, copy=False)
    keep = (r >= 0) & (t >= 0)
    if max_depth is not None:
        keep &= pos <= max_depth
    g = r * T
    g += t
    docno = _col(judged, "docno") if keep_docno else None
    if not keep.all():
        g, pos, rel = g[keep], pos[keep], rel[keep]
        docno = docno[keep] if keep_docno else None
    if len(g) > 1 and not _is_sorted(g * (int(pos.max()) + 1) + pos):
        order = np.lexsort((pos, g))
        g, pos, rel = g[order], pos[order], rel[order]
        if docno is not None:
            docno = docno[order]
    n_ret = np.zeros((S, T), dtype=np.int64)
    dr = _codes(_col(depth, "run", raw=True), runs)
    dt = _codes(_col(depth, "qid", raw=True), topics)
    ok = (dr >= 0) & (dt >= 0)
    n_ret[dr[ok], dt[ok]] = _col(depth, "n_ret")[ok]
    if max_depth is not None:
        n_ret = np.minimum(n_ret, max_depth)
    qt = _codes(_col(qrels, "qid", raw=True), topics)
    return Grid(runs=runs, topics=topics, g=g, pos=pos, rel=rel, docno=docno, n_ret=n_ret,
                qrels_topic=qt, qrels_rel=_col(qrels, "rel").astype(np.int64),
                qrels_docno=_col(qrels, "docno") if keep_docno else None)


def grid_from_track(tables, runs=None, max_depth: int | None = None, keep_docno: bool = False) -> Grid:
    """The grid of an ingested track (:class:`reeval.ingest.TrackTables`) straight from its
    numpy parts, no Arrow table: equal to ``build_grid(tables.judged, tables.depth,
    tables.qrels, runs, max_depth, keep_docno)``.

    ``runs`` fixes the run order (default: the sorted names of the runs that answered a
    topic); a name without a part gets no row. Each part is sorted by topic and
    position, so concatenating them in run order gives the grid's (run, topic, pos) order.
    """
    q = tables.lookup.qrels
    parts = {part.name: part for part in tables.parts}
    if runs is None:
        runs = sorted_texts(part.name for part in tables.parts if part.n_ret.any())
    runs = list(runs)
    S, T = len(runs), len(q.topics)
    qrels_docno = np.array(q.docno.tolist(), dtype=object) if keep_docno else None
    g, pos, qrow = [], [], []
    n_ret = np.zeros((S, T), dtype=np.int64)
    for si, name in enumerate(runs):
        part = parts.get(name)
        if part is None:
            continue
        at = part.judged
        if max_depth is not None:
            at = at[part.pos[at] <= max_depth]
        g.append(si * T + part.topic[at])
        pos.append(part.pos[at].astype(np.int64))
        qrow.append(part.qrow[at])
        n_ret[si] = part.n_ret if max_depth is None else np.minimum(part.n_ret, max_depth)
    join = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64))
    g, pos, qrow = join(g), join(pos), join(qrow)
    return Grid(runs=runs, topics=list(q.topics), g=g, pos=pos, rel=q.rel[qrow].astype(np.int64),
                docno=qrels_docno[qrow] if keep_docno else None, n_ret=n_ret,
                qrels_topic=q.topic.astype(np.int64), qrels_rel=q.rel.astype(np.int64), qrels_docno=qrels_docno)


def _is_sorted(a: np.ndarray) -> bool:
    """True when ``a`` is non-decreasing."""
    return bool((a[1:] >= a[:-1]).all())


def grouped_cumsum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``values`` restarting at each group start (row 0 starts one).

    Booleans are summed as int64. Computed as the running total minus, repeated over
    each group, the total before the group.
    """
    c = np.cumsum(values, dtype=np.int64 if values.dtype == bool else None)
    if len(c) == 0:
        return c
    first = np.flatnonzero(starts)
    if len(first) == 0 or first[0] != 0:
        first = np.r_[0, first]
    before = c[first] - values[first]
    c -= np.repeat(before, np.diff(np.r_[first, len(c)]))
    return c


def _ideal_dcg(topic: np.ndarray, rel: np.ndarray, T: int, cutoffs) -> dict:
    """Ideal DCG per topic at each cutoff (None = no cutoff), discount log2(rank + 1)."""
    gain_mask = rel > 0
    t, gain = topic[gain_mask], rel[gain_mask].astype(np.float64)
    order = np.lexsort((-gain, t))
    t, gain = t[order], gain[order]
    rank = position_in_group(group_starts(t))
    disc = gain / np.log2(rank + 1.0)
    out = {}
    for k in cutoffs:
        sel = rank <= k if k is not None else np.ones(len(rank), dtype=bool)
        out[k] = np.bincount(t[sel], weights=disc[sel], minlength=T)
    return out


def _safe_div(num, den):
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)


@dataclass
class TopicScores:
    """Per (run, topic) values on the dense grid, plus ASL bookkeeping."""

    runs: list
    topics: list
    values: dict            # measure name -> (S, T) float array
    answered: np.ndarray    # (S, T) bool: the run returned documents for the topic
    num_rel: np.ndarray     # (T,)
    n_unretrieved: np.ndarray  # (S, T) relevant documents given the unretrieved value
    asl_unanswered: np.ndarray  # (S, T) bool: ASL used the track depth (topic unanswered)

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


def evaluate_grid(grid: Grid, measures, rel_level: int = 1,
                  unretrieved: str = "after_last") -> TopicScores:
    """Compute every measure for every (run, topic) of the grid (see module doc)."""
    if unretrieved not in UNRETRIEVED_POLICIES:
        raise ValueError(f"unretrieved must be one of {UNRETRIEVED_POLICIES}")
    S, T = grid.shape
    ST = S * T
    g, pos, rel = grid.g, grid.pos, grid.rel
    topic_of_row = g % T
    starts = group_starts(g)
    is_rel = rel >= rel_level
    cum_rel = grouped_cumsum(is_rel, starts)
    R = np.bincount(grid.qrels_topic[grid.qrels_rel >= rel_level], minlength=T).astype(np.float64)
    R_row = R[topic_of_row]

    def count(mask, weights=None):
        return np.bincount(g[mask], weights=None if weights is None else weights[mask],
                           minlength=ST).reshape(S, T).astype(np.float64)

    rel_ret = count(is_rel)
    answered = grid.n_ret > 0
    vals: dict[str, np.ndarray] = {}
    cache: dict = {}
    for m in measures:
        f, k = m.family, m.cutoff
        if f == "map" or f == "gm_map":
            if "map" not in cache:
                cache["map"] = _safe_div(count(is_rel, cum_rel / pos), R[None, :])
            v = cache["map"]
        elif f == "P":
            v = count(is_rel & (pos <= k)) / k
        elif f == "recall":
            v = _safe_div(count(is_rel & (pos <= k)), R[None, :])
        elif f == "Rprec":
            v = _safe_div(count(is_rel & (pos <= R_row)), R[None, :])
        elif f == "recip_rank":
            first = is_rel & (cum_rel == 1)
            v = count(first, 1.0 / pos)
        elif f == "bpref":
            v = _bpref(grid, is_rel, starts, R, rel_level, count)
        elif f == "iprec_at_recall":
            if "iprec" not in cache:
                cache["iprec"] = _iprec_at_recall(grid, is_rel, cum_rel, R)
            v = cache["iprec"][:, :, k]
        elif f in ("ndcg", "ndcg_cut"):
            key = ("idcg", k)
            if key not in cache:
                cache[key] = _ideal_dcg(grid.qrels_topic, grid.qrels_rel, T, [k])[k]
            sel = (rel > 0) & (pos <= k) if k is not None else rel > 0
            disc = rel / np.log2(pos + 1.0)
            dcg = count(sel, disc)
            idcg = cache[key][None, :]
            v = np.where(idcg > 0, _safe_div(dcg, idcg), dcg)
        elif f == "num_ret":
            v = grid.n_ret.astype(np.float64)
        elif f == "num_rel":
            v = np.broadcast_to(R[None, :], (S, T)).copy()
        elif f == "num_rel_ret":
            v = rel_ret
        elif f == "num_q":
            v = np.ones((S, T))
        elif m.is_asl:
            v = None  # below
        else:
            raise ValueError(f"measure {m.name} is not computed by evaluate_grid")
        if v is not None:
            vals[m.name] = v
    n_unret = (R[None, :] - rel_ret)
    unanswered = ~answered & (R[None, :] > 0)
    asl_measures = [m for m in measures if m.is_asl]
    if asl_measures:
        unret_value = unretrieved_asl(grid.n_ret, rel_ret, unretrieved)
        asl_doc = (pos - cum_rel + 1).astype(np.float64)
        for m in asl_measures:
            if m.family == "ASL":
                num = count(is_rel, asl_doc) + n_unret * unret_value
                den = np.broadcast_to(R[None, :], (S, T))
            else:
                n = m.cutoff
                n_eff = np.minimum(n, R)[None, :]
                ret_n = np.minimum(rel_ret, n)
                num = count(is_rel & (cum_rel <= n), asl_doc) + (n_eff - ret_n) * unret_value
                den = np.broadcast_to(n_eff, (S, T))
            vals[m.name] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return TopicScores(runs=grid.runs, topics=grid.topics, values=vals, answered=answered,
                       num_rel=R, n_unretrieved=np.where(R[None, :] > 0, n_unret, 0).astype(np.int64),
                       asl_unanswered=unanswered)


def track_depth(n_ret: np.ndarray) -> np.ndarray:
    """Per-topic track depth: the most documents any run returned for the topic.

    A topic no run answered gets the largest depth of any topic (0 if none at all).
    """
    depth = n_ret.max(axis=0) if n_ret.size else np.zeros(n_ret.shape[1], dtype=np.int64)
    fallback = int(n_ret.max()) if n_ret.size else 0
    return np.where(depth > 0, depth, fallback)


def unretrieved_asl(n_ret: np.ndarray, rel_ret: np.ndarray, policy: str = "after_last") -> np.ndarray:
    """ASL given to a relevant document the run did not retrieve, per (run, topic).

    irrel_q = n_ret - rel_ret for an answered topic, the track depth of the topic for an
    unanswered one; the value is irrel_q + 1 (``after_last``) or irrel_q (``eq3``).
    """
    depth = track_depth(n_ret)[None, :]
    irrel = np.where(n_ret > 0, n_ret - rel_ret, depth)
    return irrel + 1.0 if policy == "after_last" else irrel.astype(np.float64)


def _bpref(grid: Grid, is_rel, starts, R, rel_level, count):
    """trec_eval bpref on the grid (see module doc)."""
    S, T = grid.shape
    judged_nonrel = (grid.rel >= 0) & (grid.rel < rel_level)
    nonrel_at_or_above = grouped_cumsum(judged_nonrel, starts)
    N = np.bincount(grid.qrels_topic[(grid.qrels_rel >= 0) & (grid.qrels_rel < rel_level)],
                    minlength=T).astype(np.float64)
    t = grid.g % T
    n_d = nonrel_at_or_above.astype(np.float64)  # for a relevant row this counts rows above
    denom = np.minimum(N, R)[t]
    term = np.where(n_d > 0, 1.0 - np.minimum(n_d, R[t]) / np.where(denom > 0, denom, 1), 1.0)
    return _safe_div(count(is_rel, term), R[None, :])


#: The 11 standard recall levels of trec_eval's ``iprec_at_recall_*``.
RECALL_LEVELS = np.arange(11) / 10
IPREC_RULES = ("trec_eval9", "trec_eval10", "recall")


def recall_cutoff_ranks(num_rel, rule: str = "trec_eval9") -> np.ndarray:
    """For each topic, the relevant-document count k_L that stands for recall level L.

    Shape ``(len(num_rel), 11)`` of int64, one column per level L = 0.0, 0.1, ..., 1.0
    (the doubles 0.1 ... as written in C). trec_eval does not compare recall with L; it
    turns L into a number of relevant documents first (m_iprec_at_recall.c):

    - ``"trec_eval9"`` (trec_eval <= 9.x and pytrec_eval-terrier):
      k_L = (long)(L * R + 0.9), evaluated in doubles exactly as C does. So k_L is
      ceil(L R - 0.1) up to rounding: R = 3, L = 0.7 gives 0.7*3 + 0.9 =
      2.9999999999999996 and k_L = 2, although recall 2/3 < 0.7.
    - ``"trec_eval10"`` (trec_eval 10): k_L = lround(L * R), nearest, halves away from 0.
    - ``"recall"``: the textbook rule "recall >= L": k_L = ceil(L R) in integer arithmetic.

    A level with k_L = 0 behaves as k_L = 1 (the maximum over the whole ranking).
    """
    if rule not in IPREC_RULES:
        raise ValueError(f"rule must be one of {IPREC_RULES}, got {rule!r}")
    R = np.asarray(num_rel, dtype=np.int64)[:, None]
    if rule == "recall":
        j = np.arange(RECALL_LEVELS.size, dtype=np.int64)[None, :]
        return -(-(j * R) // 10)
    x = RECALL_LEVELS[None, :] * R.astype(np.float64)
    if rule == "trec_eval9":
        return np.floor(x + 0.9).astype(np.int64)
    low = np.floor(x)
    return np.where(x - low >= 0.5, low + 1, low).astype(np.int64)


def _iprec_at_recall(grid: Grid, is_rel, cum_rel, R) -> np.ndarray:
    """trec_eval's 11-point interpolated precision, shape (S, T, 11).

    Level L = j/10 stands for k_L = (long)(L * R_q + 0.9) relevant documents (trec_eval
    9.x and pytrec_eval; see recall_cutoff_ranks); the value is the
    highest precision rel_so_far/pos at any relevant document with rel_so_far >= max(k_L, 1),
    0 when the run retrieved fewer than k_L relevant documents.
    """
    S, T = grid.shape
    g = grid.g[is_rel]
    prec = cum_rel[is_rel] / grid.pos[is_rel]
    # suffix maximum of precision inside each (run, topic): on the ranks of the values
    # (exact integers, unlike offsets added to the floats), reversed, each group offset
    # above the ones before it, then a running maximum
    values_sorted, rank = np.unique(prec, return_inverse=True)
    span = np.int64(len(values_sorted))
    rev = slice(None, None, -1)
    offset = np.cumsum(group_starts(g[rev])) * span
    suffix_max = values_sorted[(np.maximum.accumulate(rank[rev] + offset) - offset)[rev]]
    rel_ret = np.bincount(g, minlength=S * T)
    first = np.concatenate([[0], np.cumsum(rel_ret)[:-1]])  # index of each group's first relevant row
    k = np.maximum(recall_cutoff_ranks(R.astype(np.int64)), 1)  # (T, 11)
    k_full = np.broadcast_to(k[None, :, :], (S, T, 11)).reshape(S * T, 11)
    reached = k_full <= rel_ret[:, None]
    idx = np.where(reached, first[:, None] + k_full - 1, 0)
    values = np.where(reached, suffix_max[idx] if len(suffix_max) else 0.0, 0.0)
    return values.reshape(S, T, 11)


def row_sums(x: np.ndarray) -> np.ndarray:
    """Sums of the rows, added left to right as trec_eval adds topics (numpy's pairwise
    ``sum`` can differ in the last bit)."""
    return np.cumsum(x, axis=1)[:, -1] if x.shape[1] else np.zeros(x.shape[0], dtype=x.dtype)


def aggregate_values(scores: TopicScores, measures, complete: bool = True) -> dict:
    """Per-run values: ``run`` (names), ``num_q``, then one array (one value per run) per measure.

    complete=True averages over every qrels topic (trec_eval -c: an unanswered topic
    scores as if nothing was retrieved); False over the topics the run answered
    (trec_eval's default). ASL measures use only topics with at least one relevant
    document. ``sum`` measures add up, ``gm_map`` is exp(mean(log(max(AP, 1e-5)))).
    Topics are added in the grid's order (sorted ids, as trec_eval), one after the other,
    so the means are trec_eval's to the bit.
    """
    S, T = len(scores.runs), len(scores.topics)
    base = np.ones((S, T), dtype=bool) if complete else scores.answered
    out = {"run": list(scores.runs), "num_q": base.sum(axis=1)}
    for m in measures:
        if m.family == "num_q":
            continue
        v = scores.values[m.name]
        use = base & (scores.num_rel[None, :] > 0) if m.is_asl else base
        n = use.sum(axis=1)
        if m.aggregate == "sum":
            out[m.name] = row_sums(np.where(use, v, 0))
        elif m.aggregate == "gmean":
            logs = row_sums(np.where(use, np.log(np.maximum(v, 1e-5)), 0.0))
            out[m.name] = np.where(n > 0, np.exp(logs / np.maximum(n, 1)), 0.0)
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


def per_document(grid: Grid, rel_level: int = 1, unretrieved: str = "after_last"):
    """One row per (run, topic, relevant document): rank, ASL and AP's precision.

    Columns run, qid, docno, rel, pos (0 when not retrieved), retrieved, rel_above
    (relevant documents ranked above), asl (ASL_qd; the unretrieved policy for missing
    ones), precision ((rel_above + 1)/pos, AP's per-document term; 0 if not retrieved).
    Needs a grid built with ``keep_docno=True``.
    """
    import pandas as pd

    if grid.docno is None or grid.qrels_docno is None:
        raise ValueError("per_document needs build_grid(..., keep_docno=True)")
    S, T = grid.shape
    is_rel = grid.rel >= rel_level
    starts = group_starts(grid.g)
    cum_rel = grouped_cumsum(is_rel, starts)
    rel_ret = np.bincount(grid.g[is_rel], minlength=S * T).reshape(S, T)
    unret = unretrieved_asl(grid.n_ret, rel_ret, unretrieved)
    # every (run, relevant qrels document)
    qmask = grid.qrels_rel >= rel_level
    qt, qdoc, qrel = grid.qrels_topic[qmask], grid.qrels_docno[qmask], grid.qrels_rel[qmask]
    run_idx = np.repeat(np.arange(S), len(qt))
    t_idx = np.tile(qt, S)
    full = pd.DataFrame({"g": run_idx * T + t_idx, "docno": np.tile(qdoc, S), "rel": np.tile(qrel, S)})
    ret = pd.DataFrame({"g": grid.g[is_rel], "docno": grid.docno[is_rel],
                        "pos": grid.pos[is_rel], "rel_above": cum_rel[is_rel] - 1})
    df = full.merge(ret, on=["g", "docno"], how="left")
    retrieved = df["pos"].notna().to_numpy()
    gi = df["g"].to_numpy()
    pos = df["pos"].fillna(0).to_numpy().astype(np.int64)
    rel_above = df["rel_above"].fillna(0).to_numpy().astype(np.int64)
    asl = np.where(retrieved, pos - rel_above, unret.ravel()[gi])
    out = pd.DataFrame({
        "run": np.array(grid.runs, dtype=object)[gi // T],
        "qid": np.array(grid.topics, dtype=object)[gi % T],
        "docno": df["docno"].to_numpy(),
        "rel": df["rel"].to_numpy(),
        "pos": pos,
        "retrieved": retrieved,
        "rel_above": np.where(retrieved, rel_above, rel_ret.ravel()[gi]),
        "asl": asl.astype(np.float64),
        "precision": np.where(retrieved, (rel_above + 1) / np.maximum(pos, 1), 0.0),
    })
    return out.sort_values(["run", "qid", "asl", "docno"], kind="stable").reset_index(drop=True)
