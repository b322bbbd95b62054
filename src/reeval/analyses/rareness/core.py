"""Rareness ("innovation") measures: P@k and AP that reward rarely retrieved relevant documents.

Türkmen, Lease & Kutlu, "New Metrics to Encourage Innovation and Diversity in
Information Retrieval Approaches" (ECIR 2023), equations 1-4.

Definitions, for one topic q with R_q relevant documents (rel >= rel_level), S runs and
a cutoff k:

- c_k(d) = S_d: the number of runs whose top k (trec_eval order) holds the relevant
  document d, the run being scored included (so S_d >= 1 for every document a run is
  credited with).
- Rarity (the paper's equation 2): R(d) = 1 - S_d / S, in [0, (S-1)/S].
  Normalized (section 5.2): R'(d) = 1 - (S_d - 1)/(S - 1), in [0, 1], 1 when only one
  run found d (R' = 1 when S = 1, the limit for S_d = 1).
- ``P_rareness@k`` (equation 1) = (1/k) * sum over relevant d in the top k of
  (1 + alpha * R(d)); in [0, 2) for alpha in [0, 1].
- ``AP_rareness@k`` (equation 3) = (1/R_q) * sum over relevant d at rank r <= k of
  P_rareness@r with the 1/r of precision at r: [sum over relevant d' at rank <= r of
  (1 + alpha R(d'))] / r.
- ``P_rareness_norm@k`` (equation 4) = (1/k) * sum over relevant d in the top k of
  ((1 - alpha) + alpha * R'(d)), in [0, 1] for alpha in [0, 1]; ``AP_rareness_norm@k``
  is AP built on it as equation 3 builds AP_rareness on equation 1.
- alpha = 0 gives P@k and AP truncated at k (trec_eval ``P_k`` and ``map`` with -M k).
  ``alpha="1/R"`` uses alpha = 1/R_q per topic, as the authors' code allows.
- A topic with R_q = 0 scores 0; a run that did not answer a topic scores 0 on it.

Counting S (``systems``): ``"all"`` (default, the reference code's): S = the number of
runs evaluated together (every run file of the track / every RUN given on the command
line), the same for every topic. ``"answered"``: S_q = the runs that returned at least
one document for topic q (a run that skipped a topic does not make its documents rarer).

Every score is linear in the counts: with per-hit coefficients c_h (1/k for P; for AP
(1/R_q) times the sum of 1/rank over the relevant hits of the same ranking at or below
h) a run's topic score is sum_h c_h * w(S_d(h)), w = 1 + alpha R or (1 - alpha) + alpha R'.
The analyses (:mod:`reeval.analyses.rareness.analysis`) use that form to recompute rareness over
thousands of sampled sets of runs with a few matrix products.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reeval.choices import RARENESS_FAMILIES as FAMILIES
from reeval.choices import SYSTEMS
from reeval.io.arrays import group_starts
from reeval.measures import REGISTRY, Grid, Measure

PER_TOPIC_ALPHA = "1/R"


def parse_rareness(spec: str) -> Measure | None:
    """The rareness measure named by ``spec`` (``P_rareness@100``, ``AP_rareness_norm@10``,
    ``p_rareness.100``; default k = 100), or None if ``spec`` names no rareness measure
    (the registered rareness families' parsers; ValueError for a cutoff <= 0)."""
    for name in FAMILIES:
        found = REGISTRY[name].parse(spec.strip(), REGISTRY[name])
        if found is not None:
            return found[0]
    return None


def check_alpha(alpha):
    """``alpha`` as a float, or ``"1/R"``; ValueError otherwise (negative or non-finite)."""
    if isinstance(alpha, str):
        if alpha.replace(" ", "").upper() == PER_TOPIC_ALPHA:
            return PER_TOPIC_ALPHA
        try:
            alpha = float(alpha)
        except ValueError:
            raise ValueError(f"alpha must be a number >= 0 or '1/R', not {alpha!r}") from None
    alpha = float(alpha)
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a number >= 0 or '1/R', not {alpha!r}")
    return alpha


def alpha_label(alpha) -> str:
    """Text of an alpha in tables and file names: ``0.5``, ``1``, ``1/R``."""
    alpha = check_alpha(alpha)
    return alpha if isinstance(alpha, str) else f"{alpha:g}"


@dataclass
class Hits:
    """The relevant documents in every run's top k: one row ("hit") per (run, topic, doc).

    ``docs`` indexes the track's relevant qrels documents (``doc_topic``, ``doc_docno``).
    Hits are sorted by (run, topic, rank). ``coef_P``/``coef_AP`` are the per-hit
    coefficients of the linear form (module doc).
    """

    runs: list
    topics: list
    k: int
    run: np.ndarray        # (H,) run index
    topic: np.ndarray      # (H,) topic index
    doc: np.ndarray        # (H,) index into the relevant documents
    pos: np.ndarray        # (H,) 1-based rank
    coef_P: np.ndarray     # (H,) 1/k
    coef_AP: np.ndarray    # (H,) (1/R_q) * sum of 1/rank of relevant hits at or below h
    doc_topic: np.ndarray  # (D,) topic index of each relevant document
    doc_docno: np.ndarray  # (D,) its docno
    num_rel: np.ndarray    # (T,) R_q
    answered: np.ndarray   # (S, T) the run returned at least one document for the topic

    @property
    def shape(self):
        return len(self.runs), len(self.topics)

    def coef(self, family: str) -> np.ndarray:
        return self.coef_AP if family.startswith("AP") else self.coef_P


def top_k_hits(grid: Grid, k: int, rel_level: int = 1) -> Hits:
    """Relevant documents in the top ``k`` of every ranking of a grid built with
    ``build_grid(..., keep_docno=True)`` (the grid may already be cut at a depth)."""
    import pandas as pd

    if grid.docno is None or grid.qrels_docno is None:
        raise ValueError("rareness needs build_grid(..., keep_docno=True)")
    if k <= 0:
        raise ValueError("k must be a positive integer")
    S, T = grid.shape
    qmask = grid.qrels_rel >= rel_level
    doc_topic = grid.qrels_topic[qmask]
    doc_docno = np.asarray(grid.qrels_docno[qmask], dtype=object)
    num_rel = np.bincount(doc_topic, minlength=T).astype(np.int64)
    sel = (grid.rel >= rel_level) & (grid.pos <= k)
    g, pos = grid.g[sel], grid.pos[sel].astype(np.int64)
    topic = g % T
    # (topic, docno) of each hit -> index of the relevant qrels document
    key_docs = pd.MultiIndex.from_arrays([doc_topic, doc_docno])
    doc = key_docs.get_indexer(pd.MultiIndex.from_arrays([topic, np.asarray(grid.docno[sel], dtype=object)]))
    if (doc < 0).any():  # cannot happen for a grid built from the same qrels
        raise ValueError("a relevant judged document is missing from the qrels")
    # sum of 1/pos over the hits at or below h in the same ranking: a per-group cumulative
    # sum run backwards (pandas accumulates each group on its own: no cancellation)
    group = np.cumsum(group_starts(g))
    suffix = pd.Series((1.0 / pos)[::-1]).groupby(group[::-1]).cumsum().to_numpy()[::-1]
    coef_AP = suffix / num_rel[topic]
    return Hits(runs=list(grid.runs), topics=list(grid.topics), k=int(k), run=g // T, topic=topic,
                doc=doc.astype(np.int64), pos=pos, coef_P=np.full(len(g), 1.0 / k), coef_AP=coef_AP,
                doc_topic=doc_topic, doc_docno=doc_docno, num_rel=num_rel, answered=grid.n_ret > 0)


def retrieval_counts(hits: Hits) -> np.ndarray:
    """c_k(d) per relevant document: how many runs have d in their top k."""
    return np.bincount(hits.doc, minlength=len(hits.doc_topic)).astype(np.int64)


def n_systems(hits: Hits, systems: str = "all") -> np.ndarray:
    """S per topic (T,): every run (``all``) or the runs that answered the topic (``answered``)."""
    if systems not in SYSTEMS:
        raise ValueError(f"systems must be one of {SYSTEMS}, not {systems!r}")
    S, T = hits.shape
    if systems == "all":
        return np.full(T, S, dtype=np.int64)
    return hits.answered.sum(axis=0).astype(np.int64)


def rarity(counts, n_sys, normalized: bool = False) -> np.ndarray:
    """R(d) = 1 - S_d/S, or R'(d) = 1 - (S_d - 1)/(S - 1) (1 when S = 1); elementwise."""
    c = np.asarray(counts, dtype=np.float64)
    s = np.broadcast_to(np.asarray(n_sys, dtype=np.float64), c.shape)
    if not normalized:
        return 1.0 - np.divide(c, s, out=np.zeros(c.shape), where=s > 0)
    return np.where(s > 1, 1.0 - np.divide(c - 1.0, s - 1.0, out=np.zeros(c.shape), where=s > 1), 1.0)


def topic_alpha(hits: Hits, alpha) -> np.ndarray:
    """alpha per topic (T,): the constant, or 1/R_q for ``"1/R"`` (0 when R_q = 0)."""
    alpha = check_alpha(alpha)
    if alpha == PER_TOPIC_ALPHA:
        R = hits.num_rel.astype(np.float64)
        return np.divide(1.0, R, out=np.zeros(R.shape), where=R > 0)
    return np.full(len(hits.topics), alpha)


def scores(hits: Hits, family: str, alpha, systems: str = "all") -> np.ndarray:
    """Per (run, topic) values (S, T) of a rareness measure, counting S_d over every run of
    ``hits`` and S per topic as ``systems`` says. See the module doc for the formulas."""
    if family not in FAMILIES:
        raise ValueError(f"unknown rareness measure {family!r}")
    S, T = hits.shape
    counts = retrieval_counts(hits)
    normalized = family.endswith("_norm")
    a = topic_alpha(hits, alpha)[hits.topic]
    r = rarity(counts[hits.doc], n_systems(hits, systems)[hits.topic], normalized)
    w = ((1.0 - a) if normalized else 1.0) + a * r
    g = hits.run * T + hits.topic
    return np.bincount(g, weights=hits.coef(family) * w, minlength=S * T).reshape(S, T)


def document_table(hits: Hits, systems: str = "all"):
    """One row per relevant document: qid, docno, k, c_k (runs with d in their top k),
    n_systems (S), rarity (R) and rarity_norm (R'); the rarities are NaN when c_k = 0 (no
    run is ever credited with such a document). Sorted by qid, docno."""
    import pandas as pd

    counts = retrieval_counts(hits)
    S_t = n_systems(hits, systems)[hits.doc_topic]
    found = counts > 0
    out = pd.DataFrame({
        "qid": np.asarray(hits.topics, dtype=object)[hits.doc_topic],
        "docno": hits.doc_docno,
        "k": hits.k,
        "c_k": counts,
        "n_systems": S_t,
        "rarity": np.where(found, rarity(counts, S_t), np.nan),
        "rarity_norm": np.where(found, rarity(counts, S_t, normalized=True), np.nan),
    })
    return out.sort_values(["qid", "docno"], kind="stable").reset_index(drop=True)


def add_rareness(topic_scores, grid: Grid, measures, alpha, rel_level: int = 1,
                 systems: str = "all") -> None:
    """Put the (S, T) values of the rareness ``measures`` into ``topic_scores.values``
    (a :class:`reeval.measures.TopicScores` of the same grid), counting over the grid's runs."""
    hits_by_k: dict[int, Hits] = {}
    for m in measures:
        if m.cutoff not in hits_by_k:
            hits_by_k[m.cutoff] = top_k_hits(grid, m.cutoff, rel_level)
        topic_scores.values[m.name] = scores(hits_by_k[m.cutoff], m.family, alpha, systems=systems)
