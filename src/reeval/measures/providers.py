"""Which of ir_measures' providers computes a measure, and how that provider orders ties.

ir_measures (0.4.3) asks its providers in turn (runtime, pytrec_eval, cwl_eval, compat,
pyndeval, judged, msmarco, gdeval, accuracy, ranx) and the first that supports a measure
computes it. Each ranks a topic's documents by score descending and breaks ties its own
way (``ties="ir_measures"`` ranks each measure as its provider does):

============  ===============================================  =======  ===================
provider      reeval's measures it computes                    scores   tied documents
============  ===============================================  =======  ===================
pytrec_eval   P, AP, nDCG, RR without cutoff, R, Rprec, Bpref,  float32  docno descending
              infAP, SetP/R/F/AP, NumRet, NumRel, Success,
              IPrec (trec_eval 9.x)
msmarco       RR@k (rel=n)                                     float64  docno ascending
judged        Judged@k                                         float64  docno ascending
cwl_eval      RBP(rel=n)                                       float64  as the lines came
gdeval        ERR@k                                            float64  docno descending
============  ===============================================  =======  ===================

pytrec_eval's float32 is reeval's ``precision="float32"`` (with it, pytrec_eval's
9.x conventions too): this module leaves the precision of those measures to the caller
and gives the others their provider's float64. ir_measures has no provider for RR@k with
judged_only=True, RBP without rel=, ERR without a cutoff, nor for reeval's own measures
(ASL, rareness ...): they keep trec_eval's order.

Where reeval's order is not the provider's, :func:`reordered_topics` finds the topics on
which the provider would rank a measure's top k otherwise (the notes of
:func:`reeval.compute.tie_notes`).
"""

from __future__ import annotations

import re

from reeval.choices import TIES

#: the ordering every measure has by default: trec_eval's tie rule (the precision is the caller's)
TREC_EVAL_RULE = "docno_desc"


def provider(m) -> str | None:
    """The ir_measures provider of measure ``m`` other than pytrec_eval (msmarco, judged,
    cwl_eval, gdeval), or None: pytrec_eval's measures, and those ir_measures lacks."""
    if m.family == "recip_rank" and m.cutoff is not None and not m.judged_only:
        return "msmarco"
    if m.family == "Judged":
        return "judged"
    if m.family == "rbp" and m.rel is not None:
        return "cwl_eval"
    if m.family == "ERR" and m.cutoff is not None:
        return "gdeval"
    return None


#: (tie rule, precision) of each provider that is not pytrec_eval (reeval.io.ordering.TIE_RULES)
PROVIDER_ORDERS = {"msmarco": ("docno_asc", "float64"), "judged": ("docno_asc", "float64"),
                   "cwl_eval": ("input", "float64"), "gdeval": ("docno_desc", "float64")}


def ordering(m, ties: str = "trec_eval", precision: str = "float64") -> tuple[str, str]:
    """``(tie rule, precision)`` measure ``m`` is ranked with: trec_eval's order at
    ``precision`` unless ``ties="ir_measures"`` names a provider with an order of its own."""
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    own = provider(m) if ties == "ir_measures" else None
    return PROVIDER_ORDERS[own] if own is not None else (TREC_EVAL_RULE, precision)


def other_orderings(measures, ties: str = "trec_eval", precision: str = "float64") -> tuple:
    """The orderings besides trec_eval's at ``precision`` that ``measures`` need (ingest
    places each run's lines in them: :func:`reeval.io.ingest.ingest_track`'s ``orders``)."""
    main = (TREC_EVAL_RULE, precision)
    return tuple(dict.fromkeys(o for o in (ordering(m, ties, precision) for m in measures) if o != main))


#: how each tie rule of a provider orders tied documents, in words
RULE_WORDS = {"docno_asc": "docno ascending", "input": "the run's line order",
              "float32": "scores read as float32, ties by docno descending"}


def by_pytrec_eval(m) -> bool:
    """ir_measures computes ``m`` with pytrec_eval (float32 scores): a trec_eval family
    pytrec_eval has, no provider of its own (:func:`provider`), and not RR@k, which
    ir_measures computes only with msmarco (RR(judged_only=True)@k: with none)."""
    from .registry import PYTREC_EVAL

    return provider(m) is None and m.family in PYTREC_EVAL and not (m.family == "recip_rank" and m.cutoff)


def provider_rule(m, ties: str = "trec_eval", precision: str = "float64") -> str | None:
    """The tie rule by which ir_measures' provider of ``m`` ranks otherwise than reeval
    does under ``ties`` and ``precision`` (:func:`reeval.io.ordering.first_reordered`'s
    keys), or None: ``docno_asc`` or ``input`` for msmarco, judged and cwl_eval under
    trec_eval's ties; ``float32`` for pytrec_eval's measures at float64."""
    own = provider(m)
    if own is not None:
        rule = PROVIDER_ORDERS[own][0]
        return None if rule == TREC_EVAL_RULE or ties == "ir_measures" else rule
    return "float32" if precision == "float64" and by_pytrec_eval(m) else None


def reordered_topics(measures, first: dict, max_depth: int | None = None, ties: str = "trec_eval",
                     precision: str = "float64") -> dict:
    """{measure: topics per run where its ir_measures provider ranks otherwise}, for each
    of ``measures`` with a :func:`provider_rule`. ``first``: tie rule -> runs x topics
    matrix of the first position that rule places otherwise
    (:func:`reeval.io.ordering.first_reordered`); a topic counts when that position is
    within the measure's cutoff (and the depth kept, trec_eval -M): all of the ranking
    for a measure without one (or with a real one: iprec_at_recall's recall level)."""
    import numpy as np

    out = {}
    for m in measures:
        rule = provider_rule(m, ties, precision)
        if rule is None:
            continue
        cutoff = m.cutoff if isinstance(m.cutoff, int) else None
        limit = min(x for x in (cutoff, max_depth, np.iinfo(np.int64).max - 1) if x is not None)
        out[m] = (first[rule] <= limit).sum(axis=1)
    return out


def ir_measures_spelled(spec: str) -> bool:
    """``spec`` is an ir_measures name (:func:`.vocabulary.spelled_as_ir_measures`): asked
    only of a spec with ``@`` or ``(``, or of a name of letters alone with a capital
    (``AP``, ``SetP``: ir_measures' bare names are letters), so that a trec_eval name in lower
    case (``map``, ``p.10``) or with a digit, ``_`` or ``.`` (``P_20``, ``P.5,10``,
    ``ndcg_cut.10``) imports no other family module."""
    if not re.search(r"[@(]", spec) and not re.fullmatch(r"\s*[A-Za-z]*[A-Z][A-Za-z]*\s*", spec):
        return False
    from .vocabulary import spelled_as_ir_measures

    return spelled_as_ir_measures(spec)
