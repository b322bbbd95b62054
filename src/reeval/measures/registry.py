"""The registry of measure families: each family is defined once, in the module that
registers it (:mod:`.classic`, :mod:`.interpolated`, :mod:`.graded`, :mod:`.setbased`,
:mod:`.judgments`, :mod:`.asl`, :mod:`.rareness`), with its names, a one-line description,
how its run value aggregates, its direction and its computation.

A :class:`Family` turns a name written on the command line or in the config (trec_eval
style ``P_20``, ``P.5,10``, ``P``; ir_measures style ``P@20``, ``AP(rel=2)@10``: see
:mod:`.vocabulary`) into :class:`Measure` s, and computes their per-topic values from a
:class:`~reeval.measures.context.Context`. :func:`parse_measure` is a loop over the
registry; ``reeval measures`` prints it. :data:`TREC_EVAL_ORDER` is the order in which
trec_eval 10 prints its measures (its table in ``measures.c``); :func:`print_order` sorts
measures by it, reeval's own measures after trec_eval's.

The family modules are imported lazily, in :data:`FAMILY_MODULES` order: parsing a name
imports modules only until one of their families takes it (``map`` needs only
:mod:`.classic`), and each module imports the modules before it first, so the
registration order, hence the parse order and every listing, is the same whichever
module is imported first. :data:`REGISTRY` seen whole (iterated, counted, asked for a
family not registered yet) imports them all first.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass, field, replace
from importlib import import_module
from typing import Callable

from .params import trimmed

#: The trec_eval families pytrec_eval-terrier (trec_eval 9.x) computes
PYTREC_EVAL = frozenset({
    "11pt_avg", "G", "P", "Rndcg", "Rprec", "Rprec_mult", "binG", "bpref", "gm_bpref", "gm_map", "infAP",
    "iprec_at_recall", "map", "map_cut", "ndcg", "ndcg_cut", "ndcg_rel", "num_nonrel_judged_ret", "num_q",
    "num_rel", "num_rel_ret", "num_ret", "recall", "recip_rank", "relative_P", "relstring", "runid", "set_F",
    "set_P", "set_map", "set_recall", "set_relative_P", "success", "utility"})

#: trec_eval's cutoffs for a family named without one (``P`` = P_5 ... P_1000)
STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: The families of trec_eval 10.0 in the order it prints them (its measures table).
TREC_EVAL_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
    "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid", "unj")


@dataclass(frozen=True)
class Measure:
    """One measure: a family and its parameters, named as reeval prints it (``P_20``,
    ``ndcg_1=3,2=9``, ``RR@10``, ``AP(rel=2)``). ``cutoff`` is the one number of a
    family measured at cutoffs (P_k's k, iprec_at_recall's recall level); ``params`` the
    others (gains, coefficients, persistence), hashable; ``rel`` a relevance level of
    its own (None: the evaluation's); ``judged_only`` ranks only the judged documents
    (trec_eval -J); ``aggregate`` says how per-topic values make a run value (mean, sum,
    gmean, count, none). ``explicit`` (not compared): the parameters were written, not
    a family default (trec_eval then drops the default parameters of the family);
    ``read_as`` (not compared): what trec_eval read in parameters that are not plain
    numbers, a note for stderr (:func:`.params.read_note`; ``""`` when plain)."""

    name: str
    family: str
    cutoff: int | float | None = None
    aggregate: str = "mean"
    higher_is_better: bool = True
    params: tuple = ()
    rel: int | None = None
    judged_only: bool = False
    explicit: bool = field(default=False, compare=False)
    read_as: str = field(default="", compare=False)

    @property
    def is_asl(self) -> bool:
        """An atomized search length (undefined on topics without a relevant document)."""
        return self.family in ("ASL", "ASL_g")

    @property
    def is_text(self) -> bool:
        """A measure whose value is text (runid, relstring), not a number."""
        return REGISTRY[self.family].kind == "text"

    @property
    def trec_eval(self) -> bool:
        """trec_eval 10 computes this measure under this name (no reeval-only parameter)."""
        family = REGISTRY[self.family]
        return family.trec_eval and self.rel is None and not self.judged_only and family.native(self)


@dataclass(frozen=True)
class Family:
    """A measure family: ``name`` (the family id), ``names`` (how to write it, for help and
    docs: k, k1,k2, x, n and L stand for numbers), ``description`` (one line), ``parse``
    ((spec, family) -> its measures, or None when the spec names another family; most
    names are case-insensitive), ``compute`` ((context, measure) -> (S, T) values; None
    for families computed over a set of runs, such as rareness), ``aggregate``,
    ``higher_is_better``, ``trec_eval`` (a trec_eval measure, checked against it),
    ``kind`` (``number`` or ``text``), ``native`` (measure -> trec_eval computes it under
    this name; false for reeval's additions to a family such as RR@10) and ``doc`` (the
    formula and conventions: the compute function's docstring)."""

    name: str
    names: tuple
    description: str
    parse: Callable[[str], list | None]
    compute: Callable | None = None
    aggregate: str = "mean"
    higher_is_better: bool = True
    trec_eval: bool = False
    needs_runs: bool = False
    kind: str = "number"
    native: Callable = field(default=lambda m: True, compare=False)
    doc: str = field(default="", compare=False)
    oracle: str = ""

    @property
    def checked_against(self) -> str:
        """The independent implementation the tests check the family's values against."""
        if not self.trec_eval:
            return self.oracle
        found = "trec_eval 10.0" + (" and pytrec_eval-terrier (9.x)" if self.name in PYTREC_EVAL else "")
        return found + (f"; {self.oracle}" if self.oracle else "")

    @property
    def direction(self) -> str:
        """``higher is better``, ``lower is better``, ``a count`` or ``text``."""
        if self.kind == "text":
            return "text"
        if self.aggregate in ("sum", "count"):
            return "a count"
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def order(self) -> int:
        """Where trec_eval prints the family; reeval's own families after, in registration order."""
        if self.name in TREC_EVAL_ORDER:
            return TREC_EVAL_ORDER.index(self.name)
        return len(TREC_EVAL_ORDER) + list(dict.keys(REGISTRY)).index(self.name)

    @property
    def defined_in(self) -> str:
        """Where the family's values are computed: the compute function's dotted name, or
        for a family computed over a set of runs the text of its ``doc``. A compute function
        built by a factory is named by the factory."""
        if self.compute is None:
            return self.doc
        return f"{self.compute.__module__}.{self.compute.__qualname__.split('.<locals>')[0]}"

    def measure(self, name: str, cutoff=None, **kw) -> Measure:
        return Measure(name, self.name, cutoff, self.aggregate, self.higher_is_better, **kw)


#: the modules registering families, in registration order: trec_eval's families, ASL,
#: rareness, the textbook measures trec_eval lacks, then ir_measures' names (:mod:`.vocabulary`, after every family it names)
FAMILY_MODULES = ("classic", "interpolated", "graded", "setbased", "judgments", "asl", "rareness", "textbook",
                  "vocabulary")


def load_families(before: str | None = None) -> None:
    """Import the family modules of :data:`FAMILY_MODULES` in order, up to but not
    including ``before`` (a module's name, last part or dotted); all of them when None.
    A family module calls it first with its own name, so the modules before it register
    first."""
    stop = None if before is None else before.rpartition(".")[2]
    for name in FAMILY_MODULES:
        if name == stop:
            return
        import_module(f"{__package__}.{name}")


class Registry(dict):
    """Family name -> :class:`Family`, in registration order. Seen whole (iterated,
    counted, tested for a name, asked for a family not registered yet) it imports every
    family module first (:func:`load_families`), so that readers never see part of it;
    :func:`parse_measure` alone walks it module by module."""

    def __delitem__(self, name):
        dict.__delitem__(self, name)
        _parsed.cache_clear()  # no parse may still name the family removed

    def pop(self, name, *default):
        _parsed.cache_clear()
        return dict.pop(self, name, *default)

    def __missing__(self, name):
        load_families()
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        raise KeyError(name)

    def __contains__(self, name):
        load_families()
        return dict.__contains__(self, name)

    def __iter__(self):
        load_families()
        return dict.__iter__(self)

    def __len__(self):
        load_families()
        return dict.__len__(self)

    def keys(self):
        load_families()
        return dict.keys(self)

    def values(self):
        load_families()
        return dict.values(self)

    def items(self):
        load_families()
        return dict.items(self)


REGISTRY: Registry = Registry()
#: named sets of measures: spec (lower case) -> the specs it stands for (trec_eval 10's)
SETS: dict[str, tuple[str, ...]] = {}
#: where a set differs under trec_eval 9.x semantics (``precision="float32"``)
SETS_9: dict[str, tuple[str, ...]] = {}
#: other spellings tried after the registry's families (ir_measures' names: .vocabulary)
FALLBACKS: list[Callable[[str], list | None]] = []
#: the names those spellings start with (for help and suggestions), filled with FALLBACKS
FALLBACK_NAMES: list[str] = []


def register(family: Family) -> Family:
    """Add a family (its name must be new); the parse order is the registration order.
    Registered from outside the modules of :data:`FAMILY_MODULES`, it comes after all of
    theirs (they are imported first)."""
    package, _, module = sys._getframe(1).f_globals.get("__name__", "").rpartition(".")  # the caller's module
    if package != __package__ or module not in FAMILY_MODULES:
        load_families()
    if dict.__contains__(REGISTRY, family.name):
        raise ValueError(f"measure family {family.name!r} registered twice")
    REGISTRY[family.name] = family
    _parsed.cache_clear()  # a name parsed before may belong to the new family now
    return family


def families_in_order():
    """The registered families in registration order, importing the next family module
    only when the families registered so far are exhausted (for :func:`parse_measure`)."""
    seen = 0
    for name in (*FAMILY_MODULES, None):
        registered = list(dict.values(REGISTRY))
        yield from registered[seen:]
        seen = len(registered)
        if name is not None:
            import_module(f"{__package__}.{name}")


def family_of(measure: Measure) -> Family:
    """The family of a measure."""
    return REGISTRY[measure.family]


def exact(*spellings: str, name: str | None = None, case: bool = False):
    """A parser for a family without parameter, written as any of ``spellings`` (case
    insensitive unless ``case``); the measure is named ``name`` (default: the first
    spelling). Parameters (``map.5``) are refused: the family takes none."""
    keys = set(spellings) if case else {s.lower() for s in spellings}

    def parse(spec: str, family: Family):
        base = spec.partition(".")[0]
        if (base if case else base.lower()) not in keys:
            return None
        if base != spec:
            raise ValueError(f"measure {spec!r}: {family.name} takes no parameters")
        return [family.measure(name or spellings[0])]
    return parse


def cutoffs(*prefixes: str, default=STANDARD_CUTOFFS, name: str | None = None):
    """A parser for ``prefix``, ``prefix_k``, ``prefix.k1,k2`` (trec_eval's integer cutoffs:
    :func:`.params.long_cutoffs`) and ``prefix@k`` (case insensitive; no cutoff =
    ``default``); measures named ``{name}_{k}`` (default: the family's name)."""
    from .params import LONG_MAX, long_cutoffs, read_note

    pattern = re.compile(r"(%s)(?:([_@])([0-9]+)|\.(.+))?" % "|".join(re.escape(p.lower()) for p in prefixes),
                         re.DOTALL)

    def parse(spec: str, family: Family):
        m = pattern.fullmatch(spec.lower())
        if not m:
            return None
        note = ""
        if m.group(3) is not None:
            cuts, explicit = [int(m.group(3))], True
            if not 0 < cuts[0] <= LONG_MAX:
                raise ValueError(f"measure {spec!r}: cutoffs must be integers from 1 to 2^63 - 1")
        elif m.group(4) is not None:
            params = spec.partition(".")[2]
            cuts, explicit, note = long_cutoffs(spec, params), True, read_note(spec, params, integer=True)
        else:
            cuts, explicit = list(default), False
        return [family.measure(f"{name or family.name}_{k}", k, explicit=explicit, read_as=note) for k in cuts]
    return parse


def named_set(spec: str, version: int = 10) -> tuple[str, ...] | None:
    """The specs a named set stands for (``official``, ``all_trec``, ``set``), None if
    ``spec`` names no set. ``version`` 9: trec_eval 9.x's sets."""
    key = trimmed(spec).lower()
    if version == 9 and key in SETS_9:
        return SETS_9[key]
    return SETS.get(key)


def parse_measure(spec: str, version: int = 10) -> list[Measure]:
    """The measures named by one ``-m`` argument or config entry (see ``reeval measures``):
    a named set, the first family whose parser accepts it, or an ir_measures name
    (:mod:`.vocabulary`). Raises ValueError naming the nearest accepted names.

    Each (spec, version) is parsed once (:func:`_parsed`, emptied when a family registers):
    every call returns a new list of the same measures (frozen, so the caller may change
    the list, not them)."""
    found = known_measures(spec, version)
    if found is None:
        raise ValueError(f"unknown measure {trimmed(spec)!r}{suggestion(trimmed(spec))}")
    return found


def known_measures(spec: str, version: int = 10) -> list[Measure] | None:
    """:func:`parse_measure`'s measures, or None where no set, family or ir_measures name
    accepts ``spec``: the test without the error message (no "did you mean" is computed, and
    a miss is remembered like a hit, so asking whether a table's column names a measure is
    a dictionary look-up after the first time). A family that accepts the name but not its
    parameters still raises its ValueError (never remembered)."""
    found = _parsed(trimmed(spec), version)
    return None if found is None else list(found)


@functools.lru_cache(maxsize=None)
def _parsed(spec: str, version: int) -> tuple[Measure, ...] | None:
    """:func:`known_measures` of a stripped spec, as a tuple (cached)."""
    members = named_set(spec, version)
    if members is not None:
        return tuple(m for s in members for m in parse_measure(s, version))
    for family in families_in_order():
        found = family.parse(spec, family)
        if found is not None:
            return tuple(found)
    for fallback in FALLBACKS:
        found = fallback(spec)
        if found is not None:
            return tuple(found)
    return None


def parse_measures(specs, version: int = 10) -> list[Measure]:
    """All measures named by a list of specs, first occurrence order, no repeats."""
    out: dict[Measure, Measure] = {}
    for spec in specs:
        for m in parse_measure(spec, version):
            out.setdefault(m, m)
    return list(out.values())


def trec_eval_selection(specs, version: int = 10) -> tuple[list[Measure], list[str]]:
    """The measures ``trec_eval -m spec -m spec ...`` computes, in its print order, and notes
    where reeval's choice differs from trec_eval's.

    As in trec_eval, parameters written for a family (``P.5``) replace the family's
    default parameters wherever a set names it (``-m all_trec -m P.5``: P_5 only). Where
    a family is given parameters twice (``-m P.5 -m P.10``) trec_eval keeps the first;
    reeval computes both and says so in a note.
    """
    found = [(spec, parse_measure(spec, version)) for spec in specs]
    explicit: dict[str, list] = {}  # family -> the specs giving it trec_eval parameters
    chosen: dict = {}
    for spec, measures in found:
        for m in measures:
            if m.explicit and m.trec_eval:
                explicit.setdefault(m.family, []).append(spec)
                chosen.setdefault(m, m)
    # a set's default measures of such a family go: the parameters' measures take their
    # place, in the parameters' order (-m all_trec -m ndcg_cut.1,10: ndcg_cut_1, ndcg_cut_10);
    # ir_measures' variants (AP(rel=2), RR@10) are other measures and replace nothing
    kept = [m for m in parse_measures(specs, version) if not (m.trec_eval and m.family in explicit)]
    kept += list(chosen)
    notes = [f"-m {' -m '.join(given)}: trec_eval 10 uses only the first parameters given for "
             f"{family}; reeval computes them all" for family, given in explicit.items() if len(set(given)) > 1]
    return print_order(kept), read_notes(m for _, measures in found for m in measures) + notes


def read_notes(measures) -> list[str]:
    """The notes of parameters trec_eval reads leniently (:attr:`Measure.read_as`:
    ``ndcg_cut.1O read as cutoff 1, as trec_eval does``), once each, in the order given."""
    return list(dict.fromkeys(m.read_as for m in measures if m.read_as))


def print_order(measures) -> list[Measure]:
    """Measures in the order trec_eval prints them (by family, then as given); measures
    trec_eval does not compute (RR@10, ASL, rareness ...) after, as given."""
    indexed = list(enumerate(measures))
    return [m for _, m in sorted(indexed, key=lambda im: (0 if im[1].trec_eval else 1,
                                                          REGISTRY[im[1].family].order, im[0]))]


def accepted_spellings(per_topic_only: bool = False) -> list[str]:
    """The spellings of every family (``per_topic_only``: without the families computed over
    a set of runs), the ir_measures names, then the named sets."""
    families = [f for f in REGISTRY.values() if not (per_topic_only and f.needs_runs)]
    return list(dict.fromkeys([n for f in families for n in f.names] + FALLBACK_NAMES + list(SETS)))


def accepted_names(per_topic_only: bool = False) -> str:
    """What :func:`parse_measure` accepts, in one line (for error messages)."""
    return ", ".join(accepted_spellings(per_topic_only))


def suggestion(spec: str) -> str:
    """``"; did you mean 'A' or 'B'? (reeval measures lists every name)"``: the accepted
    spellings nearest ``spec`` (its name before any parameter), or only the pointer."""
    base = re.split(r"[.@(]", spec, maxsplit=1)[0]
    words = {n.split("@")[0].split("(")[0]: n for n in FALLBACK_NAMES}
    words.update({n.split("@")[0].split(".")[0].split("(")[0]: n.split(".")[0]
                  for f in REGISTRY.values() for n in f.names})
    words.update({n: n for n in SETS})
    import difflib  # here: only a misspelled name needs it

    lowered = {w.lower(): w for w in words}
    near = difflib.get_close_matches(base.lower(), list(lowered), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(words[lowered[w]]) for w in near)}?" if near else ""
    return f"{hint} (`reeval measures` lists every name)"


def with_name(m: Measure, name: str) -> Measure:
    """``m`` under another printed name."""
    return replace(m, name=name)


#: trec_eval 10's named sets (``measures.c``); 9.x's ``all_trec`` lacks unj, rbp and rbp_resid
SETS["official"] = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                    "recip_rank", "iprec_at_recall", "P")
SETS["all_trec"] = SETS["official"] + (
    "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
    "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P",
    "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret")
SETS["set"] = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
               "set_relative_P", "set_map", "set_F")
SETS_9["all_trec"] = tuple(name for name in SETS["all_trec"] if name not in ("unj", "rbp", "rbp_resid"))
