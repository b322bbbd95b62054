"""Atomized search length (ASL), registered: ``ASL``, ``ASL@g1``, ``ASL@g1-n``. Lower is better.

ASL per relevant document d: ASL_qd = pos_d - (relevant documents above d) = 1 + the
non-relevant (incl. unjudged) documents above d. A relevant document the run did not
retrieve gets irrel_q + 1 (``unretrieved="after_last"``, the paper's equation 1) or
irrel_q (``unretrieved="eq3"``), with irrel_q = n_ret - rel_ret. For a topic the run did
not answer at all, irrel_q is the track depth of the topic (the most documents any
evaluated run returned for it; if no run answered it, the largest depth of any topic).
ASL_q is the mean over the R_q relevant documents; ``ASL@g1-n`` the mean over the first
min(n, R_q) of them in the run's order (unretrieved last). ASL measures are undefined
(NaN) for topics with R_q = 0 and their run means skip such topics.
"""

from __future__ import annotations

import re

import numpy as np

from reeval.io.arrays import group_starts

from .context import Context
from .grid import Grid, grouped_cumsum
from .registry import Family, Measure, exact, load_families, register

load_families(before=__name__)  # the family modules before this one register first


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


def _asl_parts(ctx: Context):
    """(ASL of each judged row, the value of an unretrieved relevant document per (run, topic))."""
    return ctx.once("asl", lambda: ((ctx.pos - ctx.cum_rel + 1).astype(np.float64),
                                    unretrieved_asl(ctx.grid.n_ret, ctx.rel_ret, ctx.unretrieved)))


def _mean_where_defined(num, den):
    return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def asl(ctx: Context, m: Measure) -> np.ndarray:
    """ASL_q = (sum of ASL_qd over the retrieved relevant d + (R_q - rel_ret) x the
    unretrieved value) / R_q; NaN when R_q = 0."""
    asl_doc, unret_value = _asl_parts(ctx)
    R = ctx.R[None, :]
    num = ctx.count(ctx.is_rel, asl_doc) + (R - ctx.rel_ret) * unret_value
    return _mean_where_defined(num, np.broadcast_to(R, (ctx.S, ctx.T)))


def asl_first(ctx: Context, m: Measure) -> np.ndarray:
    """ASL@g1-n = the mean ASL_qd of the first min(n, R_q) relevant documents in the run's
    order, unretrieved ones last (each the unretrieved value); NaN when R_q = 0."""
    asl_doc, unret_value = _asl_parts(ctx)
    n = m.cutoff
    n_eff = np.minimum(n, ctx.R)[None, :]
    num = (ctx.count(ctx.is_rel & (ctx.cum_rel <= n), asl_doc)
           + (n_eff - np.minimum(ctx.rel_ret, n)) * unret_value)
    return _mean_where_defined(num, np.broadcast_to(n_eff, (ctx.S, ctx.T)))


_FIRST = re.compile(r"asl@g1(?:-(\d+))?")


def _parse_first(spec: str, family: Family):
    m = _FIRST.fullmatch(spec.lower())
    if not m:
        return None
    n = int(m.group(1) or 1)
    if n < 1:
        raise ValueError(f"unknown measure {spec!r}: ASL@g1-n needs n >= 1")
    return [family.measure("ASL@g1" if n == 1 else f"ASL@g1-{n}", n)]


register(Family("ASL", ("ASL",), "atomized search length: mean over the relevant documents", exact("ASL"),
                asl, higher_is_better=False, doc=asl.__doc__, oracle="hand-checked cases of the ASL paper's definition"))
register(Family("ASL_g", ("ASL@g1", "ASL@g1-n"), "ASL of the first n relevant documents found (n = 1: ASL@g1)",
                _parse_first, asl_first, higher_is_better=False, doc=asl_first.__doc__,
                oracle="hand-checked cases of the ASL paper's definition"))

#: the ASL measures computed by default
DEFAULT_ASL = ("ASL", "ASL@g1", "ASL@g1-10")


def per_document(grid: Grid, rel_level: int = 1, unretrieved: str = "after_last"):
    """:func:`per_document_table` as a pandas DataFrame."""
    return per_document_table(grid, rel_level, unretrieved).to_pandas()


def per_document_table(grid: Grid, rel_level: int = 1, unretrieved: str = "after_last"):
    """One row per (run, topic, relevant document): rank, ASL and AP's precision (Arrow table).

    Columns run, qid, docno, rel, pos (0 when not retrieved), retrieved, rel_above
    (relevant documents ranked above), asl (ASL_qd; the unretrieved policy for missing
    ones), precision ((rel_above + 1)/pos, AP's per-document term; 0 if not retrieved).
    Rows: every run x every relevant qrels row, sorted by run, qid, asl, docno (Python's
    string order, code points), ties in qrels order. A relevant row is retrieved when the
    run's grid holds a row of its topic and docno (at most one: ingest keeps the first of
    duplicates). Needs a grid built with ``keep_docno=True``.
    """
    import pyarrow as pa

    if grid.docno is None or grid.qrels_docno is None:
        raise ValueError("per_document needs build_grid(..., keep_docno=True)")
    S, T = grid.shape
    rel_level = max(int(rel_level), 0)  # negative grades are never relevant (as Context)
    is_rel = grid.rel >= rel_level
    cum_rel = grouped_cumsum(is_rel, group_starts(grid.g))
    rel_ret = np.bincount(grid.g[is_rel], minlength=S * T).reshape(S, T)
    unret = unretrieved_asl(grid.n_ret, rel_ret, unretrieved).ravel()
    qrows = np.flatnonzero(grid.qrels_rel >= rel_level)
    docs, qcode, rcode = _docno_codes(np.asarray(grid.qrels_docno, dtype=object)[qrows], grid.docno[is_rel])
    gi = (np.arange(S, dtype=np.int64)[:, None] * T + grid.qrels_topic[qrows][None, :]).ravel()
    run, topic = np.divmod(gi, max(T, 1))
    code, D = np.tile(qcode, S), len(docs)
    row = _matching_rows(gi * D + code, np.where(rcode >= 0, grid.g[is_rel] * D + rcode, -1))
    retrieved = row >= 0
    pos = _taken(grid.pos[is_rel], row).astype(np.int64)
    above = _taken(cum_rel[is_rel] - 1, row)
    asl = np.where(retrieved, pos - above, unret[gi]).astype(np.float64)
    order = np.lexsort((code, asl, _text_ranks(grid.topics)[topic], _text_ranks(grid.runs)[run]))
    return pa.table({
        "run": pa.array(list(grid.runs), pa.string()).take(run[order]),
        "qid": pa.array(list(grid.topics), pa.string()).take(topic[order]),
        "docno": docs.take(code[order]),
        "rel": np.tile(grid.qrels_rel[qrows], S)[order],
        "pos": pos[order],
        "retrieved": retrieved[order],
        "rel_above": np.where(retrieved, above, rel_ret.ravel()[gi])[order],
        "asl": asl[order],
        "precision": np.where(retrieved, (above + 1) / np.maximum(pos, 1), 0.0)[order],
    })


def _taken(values: np.ndarray, row: np.ndarray) -> np.ndarray:
    """``values[row]`` where ``row`` >= 0, else 0."""
    return np.where(row >= 0, values[np.maximum(row, 0)], 0) if len(values) else np.zeros(len(row), values.dtype)


def _text_ranks(names) -> np.ndarray:
    """(n,) each name's rank among ``names`` in Python's string order (code points)."""
    ranks = np.empty(len(names), dtype=np.int64)
    ranks[sorted(range(len(names)), key=list(names).__getitem__)] = np.arange(len(names))
    return ranks


def _docno_codes(qdoc, rdoc):
    """``(docs, qcode, rcode)``: the distinct ``qdoc`` as an Arrow array in Python's string
    order (so a code orders as its docno), and each docno of ``qdoc`` and ``rdoc`` as its
    index there (-1 for one of ``rdoc`` that ``qdoc`` lacks)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    docs = pa.array(sorted(set(qdoc.tolist())), pa.string())

    def codes(values) -> np.ndarray:
        found = pc.index_in(pa.array(values, pa.string()), value_set=docs)
        return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)

    return docs, codes(qdoc), codes(np.asarray(rdoc, dtype=object))


def _matching_rows(wanted: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """For each of ``wanted``, the index of the entry of ``keys`` equal to it (keys are
    distinct but for -1, which matches nothing), -1 where none is."""
    order = np.argsort(keys, kind="stable")
    at = np.minimum(np.searchsorted(keys[order], wanted), max(len(keys) - 1, 0))
    if not len(keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    return np.where((keys[order][at] == wanted) & (wanted >= 0), order[at], -1)
