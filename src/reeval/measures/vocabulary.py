"""ir_measures' names for the registered families: ``AP(rel=2)@10``, ``RR@10``,
``nDCG(gains={0:0,1:1,2:3})@10``, ``P(judged_only=True)@5``, ``RBP(p=0.8,rel=1)``,
``SetF(beta=0.5)``, ``NumRet(rel=1)``, ``IPrec@0.5``, ``Judged@10``, ``ERR@20`` ...; and
ranx's ``hit_rate@k`` and ``r-precision`` (:data:`RANX_NAMES`, :func:`ranx_name`).

A name maps to a family and its parameters (:data:`IR_MEASURES`). One rule names the
measure, whatever the spelling: a measure trec_eval 10 computes gets trec_eval's name
(``AP``, ``MAP`` and ``map`` are ``map``; ``AP@10`` is ``map_cut_10``, ``P@10`` is
``P_10``, ``nDCG@10`` is ``ndcg_cut_10``); any other gets its canonical ir_measures name
(:func:`canonical_name`): the measure's first name in :data:`IR_MEASURES` (``MAP(rel=2)``
and ``AP(rel=2)`` are both ``AP(rel=2)``, ``MRR@10`` is ``RR@10``), the parameters it was
given in the order listed there, without those equal to ir_measures' defaults
(judged_only=False, relative=False, beta=1), and the cutoff last; RBP always shows its
persistence p, since trec_eval's rbp defaults to another. ``rel=n`` gives the
measure a relevance level of its own (without it, the evaluation's, default 1, which is
ir_measures' default); ``judged_only=True`` ranks only the judged documents (trec_eval
-J). ir_measures' measures of other kinds (diversity, BPM, SDCG, NERR, INST, Compat ...)
are refused with a message.
"""

from __future__ import annotations

from .params import check_persistence, format_cutoff, ir_bool, ir_float, ir_gains, ir_int, split_ir_measures
from .registry import (FALLBACK_NAMES, FALLBACKS, REGISTRY, Measure, known_measures, load_families, parse_measure,
                       with_name)

load_families(before=__name__)  # the family modules before this one register first

#: ir_measures name -> (family, the parameters it takes, how a cutoff is written: "int",
#: "real" or None, the trec_eval name of its default measure (``{k}`` the cutoff))
IR_MEASURES = {
    "AP": ("map", ("rel", "judged_only"), "int", "map"),
    "MAP": ("map", ("rel", "judged_only"), "int", "map"),
    "P": ("P", ("rel", "judged_only"), "int", None),
    "Precision": ("P", ("rel", "judged_only"), "int", None),
    "R": ("recall", ("rel", "judged_only"), "int", None),
    "Recall": ("recall", ("rel", "judged_only"), "int", None),
    "RR": ("recip_rank", ("rel", "judged_only"), "int", "recip_rank"),
    "MRR": ("recip_rank", ("rel", "judged_only"), "int", "recip_rank"),
    "Rprec": ("Rprec", ("rel", "judged_only"), None, "Rprec"),
    "RPrec": ("Rprec", ("rel", "judged_only"), None, "Rprec"),
    "nDCG": ("ndcg", ("gains", "judged_only", "dcg"), "int", "ndcg"),
    "Bpref": ("bpref", ("rel",), None, "bpref"),
    "BPref": ("bpref", ("rel",), None, "bpref"),
    "infAP": ("infAP", ("rel",), None, "infAP"),
    "SetP": ("set_P", ("rel", "relative", "judged_only"), None, "set_P"),
    "SetRelP": ("set_relative_P", ("rel", "judged_only"), None, "set_relative_P"),
    "SetR": ("set_recall", ("rel",), None, "set_recall"),
    "SetF": ("set_F", ("rel", "beta", "judged_only"), None, "set_F"),
    "SetAP": ("set_map", ("rel", "judged_only"), None, "set_map"),
    "NumQ": ("num_q", (), None, "num_q"),
    "NumRet": ("num_ret", ("rel",), None, "num_ret"),
    "NumRelRet": ("num_rel_ret", ("rel",), None, "num_rel_ret"),
    "NumRel": ("num_rel", ("rel",), None, "num_rel"),
    "Success": ("success", ("rel", "judged_only"), "int", None),
    "IPrec": ("iprec_at_recall", ("rel", "judged_only", "recall"), "real", None),
    "ERR": ("ERR", (), "int", None),
    "Judged": ("Judged", (), "int", None),
    "RBP": ("rbp", ("p", "rel"), None, None),
}
NEEDS_CUTOFF = {"P", "Precision", "R", "Recall", "Success"}
NOT_COMPUTED = ("alpha_nDCG", "alpha_DCG", "α_nDCG", "α_DCG", "nERR_IA", "ERR_IA", "AP_IA", "P_IA", "MAP_IA",
                "StRecall", "NRBP", "nNRBP", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ",
                "Compat", "Accuracy")


#: ir_measures' names by their lower case: reeval reads them in any case, as it reads
#: trec_eval's (``mrr@10`` as ``ndcg@10``), but for RBP, which only its case tells apart
#: from trec_eval's rbp (another default persistence)
FOLDED = {n.lower(): n for n in IR_MEASURES if n != "RBP"}
NOT_COMPUTED_FOLDED = {n.lower(): n for n in NOT_COMPUTED}


def ir_measures_name(name: str) -> str | None:
    """ir_measures' spelling of ``name`` written in any case (:data:`FOLDED`), else None."""
    return name if name in IR_MEASURES else FOLDED.get(name.lower())


#: ir_measures' names (lower case) that are trec_eval's too: written alone, trec_eval's
TREC_EVAL_TOO = frozenset({"map", "p", "recall", "rprec", "ndcg", "bpref", "infap", "success"})


def spelled_as_ir_measures(spec: str) -> bool:
    """``spec`` is written as ir_measures writes a measure: a name of :data:`IR_MEASURES`
    (any case) with parameters or ``@cutoff`` (``P@10``, ``ndcg@10``, ``AP(rel=2)``), or
    alone where trec_eval has no such name (``AP``, ``RR``, ``SetP``; not ``map``)."""
    try:
        parts = split_ir_measures(spec)
    except ValueError:
        return False
    name = spec.strip() if parts is None else parts[0]
    return ir_measures_name(name) is not None and (parts is not None or name.lower() not in TREC_EVAL_TOO)


def parse_ir_measures(spec: str) -> list[Measure] | None:
    """The measure an ir_measures name (in any case: :data:`FOLDED`) stands for; None when
    ``spec`` is not one."""
    parts = split_ir_measures(spec)
    name, params, cut = parts if parts is not None else (spec.strip(), {}, None)
    if name.lower() in NOT_COMPUTED_FOLDED:
        raise ValueError(f"measure {spec!r}: ir_measures' {NOT_COMPUTED_FOLDED[name.lower()]} is not computed "
                         "by reeval")
    known = ir_measures_name(name)
    if known is None:
        return None
    return [_measure(spec, known, params, cut)]


def _measure(spec: str, name: str, params: dict, cut: str | None) -> Measure:
    family_name, accepted, cut_kind, trec_name = IR_MEASURES[name]
    for key in params:
        if key not in accepted:
            raise ValueError(f"measure {spec!r}: {name} takes {', '.join(accepted) or 'no parameter'}, not {key}")
    if cut is not None and cut_kind is None:
        raise ValueError(f"measure {spec!r}: {name} takes no cutoff")
    if "recall" in params:
        cut = params["recall"]
    if cut is None and name in NEEDS_CUTOFF | {"IPrec"}:
        raise ValueError(f"measure {spec!r}: {name} needs a cutoff ({name}@k)")
    kw = _keywords(spec, name, params)
    cutoff = None if cut is None else (ir_float(spec, "the recall level", cut) if cut_kind == "real"
                                       else ir_int(spec, "the cutoff", cut))
    if isinstance(cutoff, int) and cutoff <= 0:
        raise ValueError(f"measure {spec!r}: the cutoff must be a positive integer")
    family_name, cutoff, extra, default_name = _trec_form(name, family_name, cutoff, kw)
    measure = REGISTRY[family_name].measure(default_name, cutoff, explicit=True, **extra)
    if measure.trec_eval or (not params and cut is None):
        return measure
    return with_name(measure, canonical_name(name, kw, cutoff))


#: ir_measures' parameter values that name no difference (omitted from canonical names)
IR_DEFAULTS = {"judged_only": False, "relative": False, "beta": 1.0}


def canonical_name(name: str, kw: dict, cutoff) -> str:
    """The one name of an ir_measures measure that trec_eval does not compute:
    ``primary(key=value,...)@cutoff`` with ``primary`` the first name of ``name``'s
    family in :data:`IR_MEASURES` (AP for MAP, RR for MRR, P for Precision ...), the
    keys of ``kw`` in the order :data:`IR_MEASURES` lists them, values not equal to
    :data:`IR_DEFAULTS` (RBP: p always, default 0.8), numbers as ``%g``, gains as
    ``{grade:gain,...}``; no parentheses without parameters, no ``@`` without cutoff."""
    family, accepted = IR_MEASURES[name][:2]
    primary = next(n for n, entry in IR_MEASURES.items() if entry[0] == family)
    if family == "rbp":
        kw = {"p": 0.8, **kw}
    parts = [f"{key}={_value_text(kw[key])}" for key in accepted if key in kw and IR_DEFAULTS.get(key) != kw[key]]
    text = f"{primary}({','.join(parts)})" if parts else primary
    if cutoff is None:
        return text
    return f"{text}@{cutoff:g}" if isinstance(cutoff, float) else f"{text}@{cutoff}"


def _value_text(value) -> str:
    """A parameter value in a canonical name: True/False, %g, {grade:gain,...}, an integer."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return "{" + ",".join(f"{grade}:{gain:g}" for grade, gain in value) + "}"
    return str(value)


def _keywords(spec: str, name: str, params: dict) -> dict:
    """rel, judged_only and the family parameters of an ir_measures name."""
    kw: dict = {}
    if "rel" in params:
        kw["rel"] = ir_int(spec, "rel", params["rel"])
    if "judged_only" in params:
        kw["judged_only"] = ir_bool(spec, "judged_only", params["judged_only"])
    if "relative" in params:
        kw["relative"] = ir_bool(spec, "relative", params["relative"])
    if "beta" in params:
        kw["beta"] = ir_float(spec, "beta", params["beta"])
    if "p" in params:
        kw["p"] = check_persistence(spec, ir_float(spec, "p", params["p"]))
    if "gains" in params:
        kw["gains"] = ir_gains(spec, params["gains"])
    if params.get("dcg", "log2") != "log2":
        raise ValueError(f"measure {spec!r}: reeval's nDCG discounts by log2 (dcg=log2), not {params['dcg']}")
    return kw


def _trec_form(name: str, family: str, cutoff, kw: dict):
    """(family, cutoff, Measure keywords, trec_eval name) of an ir_measures name's measure."""
    extra = {k: kw[k] for k in ("rel", "judged_only") if k in kw and kw[k] not in (None, False)}
    if family == "map" and cutoff is not None:
        return "map_cut", cutoff, extra, f"map_cut_{cutoff}"
    if family == "ndcg":
        params = kw.get("gains", ())
        if cutoff is not None:
            return "ndcg_cut", cutoff, {**extra, "params": params}, f"ndcg_cut_{cutoff}"
        text = ",".join(f"{grade}={gain:g}" for grade, gain in params)
        return "ndcg", None, {**extra, "params": params}, f"ndcg_{text}" if params else "ndcg"
    if family == "num_ret" and "rel" in kw:
        return "num_rel_ret", None, extra, "num_rel_ret"
    if family == "set_P" and kw.get("relative"):
        return "set_relative_P", None, extra, "set_relative_P"
    if family == "set_F":
        beta = kw.get("beta", 1.0)
        return "set_F", None, {**extra, "params": (beta,)}, "set_F" if beta == 1.0 else f"set_F_{beta:g}"
    if family == "rbp":
        return "rbp", None, {**extra, "params": (("p", kw.get("p", 0.8)),)}, f"RBP(p={kw.get('p', 0.8):g})"
    if family == "iprec_at_recall":
        return family, cutoff, extra, f"iprec_at_recall_{format_cutoff(cutoff)}"
    if family == "recip_rank" and cutoff is not None:
        return family, cutoff, extra, f"RR@{cutoff}"
    if family in ("ERR", "Judged"):
        return family, cutoff, extra, family if cutoff is None else f"{family}@{cutoff}"
    prefix = {"P": "P", "recall": "recall", "success": "success"}.get(family)
    if prefix is not None:
        return family, cutoff, extra, f"{prefix}_{cutoff}"
    return family, cutoff, extra, IR_MEASURES[name][3]


#: trec_eval's names with a cutoff (``{prefix}_{k}``) -> ir_measures' name (``{name}@{k}``)
DISPLAY_CUTOFFS = {"map_cut": "AP", "P": "P", "recall": "R", "ndcg_cut": "nDCG", "success": "Success"}
#: trec_eval's names without a cutoff -> ir_measures' primary name (``map`` -> ``AP``,
#: ``recip_rank`` -> ``RR``): the first name :data:`IR_MEASURES` lists for that default measure
DISPLAY_NAMES = {trec: name for name, (_, _, _, trec) in reversed(IR_MEASURES.items()) if trec is not None}


def display_name(name: str) -> str:
    """The name a figure or a table meant for reading gives the measure reeval names ``name``:
    ir_measures' spelling of a trec_eval name (``map`` -> ``AP``, ``map_cut_100`` ->
    ``AP@100``, ``P_20`` -> ``P@20``, ``ndcg_cut_10`` -> ``nDCG@10``, ``recip_rank`` ->
    ``RR``), which reads back as the same measure; any other name as it is
    (``ASL``, ``P_rareness@100``, ``RR@10``, ``ndcg_rel``). CSV and Parquet columns keep
    reeval's names: they are keys, joined across tables."""
    if name in DISPLAY_NAMES:
        return DISPLAY_NAMES[name]
    prefix, _, k = name.rpartition("_")
    if prefix in DISPLAY_CUTOFFS and k.isdigit() and not k.startswith("0"):
        return f"{DISPLAY_CUTOFFS[prefix]}@{k}"
    return name


#: ranx's metric names that name a registered measure under another name (ranx name ->
#: reeval's, ``@k`` carried over): ``hit_rate@k`` is success_k, ``r-precision`` Rprec.
#: ranx's hits@k and f1@k are families of their own (:mod:`.textbook`); its precision@k,
#: recall@k, mrr@k, map@k, ndcg@k and dcg@k are reeval's spellings already (its bpref is
#: not trec_eval's: docs/api.md, "Coming from ranx").
RANX_NAMES = {"hit_rate": ("success", True), "r-precision": ("Rprec", False)}


def parse_ranx(spec: str) -> list[Measure] | None:
    """The measure a ranx name of :data:`RANX_NAMES` stands for (any case), or None."""
    name, at, cut = spec.strip().lower().partition("@")
    if name not in RANX_NAMES:
        return None
    ours, takes_cutoff = RANX_NAMES[name]
    if takes_cutoff != bool(at):
        need = f"needs a cutoff ({name}@k)" if takes_cutoff else "takes no cutoff"
        raise ValueError(f"measure {spec!r}: ranx's {name} {need}")
    return parse_measure(f"{ours}@{cut}" if at else ours)


#: ranx's name of each family it computes the same way (``{name}@{k}`` with a cutoff);
#: a name that reads back as another measure is not its (ranx's bpref is not trec_eval's)
RANX_FAMILIES = {"hits": "hits", "f1": "f1", "success": "hit_rate", "P": "precision", "recall": "recall",
                 "recip_rank": "mrr", "map": "map", "map_cut": "map", "ndcg": "ndcg", "ndcg_cut": "ndcg",
                 "dcg_cut": "dcg", "Rprec": "r-precision"}


def ranx_name(m: Measure) -> str | None:
    """ranx's name of measure ``m`` (``hits@10``, ``mrr@10``, ``r-precision``), None where
    ranx has none: the family's :data:`RANX_FAMILIES` name, with ``@k``, if it reads back
    as ``m``."""
    name = RANX_FAMILIES.get(m.family)
    if name is None:
        return None
    name = name if m.cutoff is None else f"{name}@{m.cutoff}"
    return name if known_measures(name) == [m] else None


FALLBACKS.append(parse_ir_measures)
FALLBACKS.append(parse_ranx)
FALLBACK_NAMES.extend(["AP@k", "AP(rel=n)", "P(rel=n)@k", "RR@k", "RR(rel=n)@k", "nDCG(gains={g:x,...})@k",
                       "P(judged_only=True)@k", "SetP", "SetR", "SetF(beta=x)", "SetAP", "NumRet", "NumRel",
                       "NumQ", "IPrec@L", "Success@k", "Judged@k", "ERR@k", "RBP(p=x)", "RBP(p=x,rel=n)",
                       "infAP", "Bpref", "Rprec", "hit_rate@k", "r-precision"])
