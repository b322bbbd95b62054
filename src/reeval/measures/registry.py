"""The registry of measure families: each family is defined once, here or in a module that
registers it (:mod:`.classic`, :mod:`.asl`, :mod:`.rareness`), with its names, a one-line
description, how its run value aggregates, its direction and its computation.

A :class:`Family` turns a name written on the command line or in the config (trec_eval
style ``P_20``, ``P.5,10``, ``P``; ir_measures style ``P@20``) into :class:`Measure` s,
and computes their per-topic values from a :class:`~reeval.measures.context.Context`
(the judged-position grid and the intermediates measures share). :func:`parse_measure`
is a loop over the registry; ``reeval measures`` prints it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

#: trec_eval's cutoffs for a family named without one (``P`` = P_5 ... P_1000)
STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class Measure:
    """One measure: a family and its parameter, named as reeval prints it (``P_20``,
    ``ASL@g1-10``, ``iprec_at_recall_0.50``). ``aggregate`` says how per-topic values make a
    run value (mean, sum, gmean, count)."""

    name: str
    family: str
    cutoff: int | None = None
    aggregate: str = "mean"
    higher_is_better: bool = True

    @property
    def is_asl(self) -> bool:
        """An atomized search length (undefined on topics without a relevant document)."""
        return self.family in ("ASL", "ASL_g")


@dataclass(frozen=True)
class Family:
    """A measure family: ``name`` (the family id), ``names`` (how to write it, for help and
    docs: k, k1,k2, n and L stand for numbers), ``description`` (one line), ``parse`` ((spec, family) -> its measures, or None when
    the spec names another family; names are case-insensitive), ``compute`` ((context, measure) -> (S, T) values;
    None for families computed over a set of runs, such as rareness), ``aggregate``,
    ``higher_is_better``, ``trec_eval`` (a trec_eval measure, checked against it) and
    ``doc`` (the formula and conventions: the compute function's docstring)."""

    name: str
    names: tuple
    description: str
    parse: Callable[[str], list | None]
    compute: Callable | None = None
    aggregate: str = "mean"
    higher_is_better: bool = True
    trec_eval: bool = False
    needs_runs: bool = False
    doc: str = field(default="", compare=False)

    @property
    def direction(self) -> str:
        """``higher is better``, ``lower is better``, or ``a count`` (num_q, num_ret ...)."""
        if self.aggregate in ("sum", "count"):
            return "a count"
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def defined_in(self) -> str:
        """Where the family's values are computed: the compute function's dotted name, or
        for a family computed over a set of runs the text of its ``doc``. A compute function
        built by a factory is named by the factory."""
        if self.compute is None:
            return self.doc
        return f"{self.compute.__module__}.{self.compute.__qualname__.split('.<locals>')[0]}"

    def measure(self, name: str, cutoff: int | None = None) -> Measure:
        return Measure(name, self.name, cutoff, self.aggregate, self.higher_is_better)


REGISTRY: dict[str, Family] = {}
#: named sets of measures: spec (lower case) -> the specs it stands for
SETS: dict[str, tuple[str, ...]] = {}


def register(family: Family) -> Family:
    """Add a family (its name must be new); the parse order is the registration order."""
    if family.name in REGISTRY:
        raise ValueError(f"measure family {family.name!r} registered twice")
    REGISTRY[family.name] = family
    return family


def family_of(measure: Measure) -> Family:
    """The family of a measure."""
    return REGISTRY[measure.family]


def exact(*spellings: str, name: str | None = None):
    """A parser for a family without parameter, written as any of ``spellings`` (case
    insensitive); the measure is named ``name`` (default: the first spelling)."""
    lowered = {s.lower() for s in spellings}

    def parse(spec: str, family: Family):
        return [family.measure(name or spellings[0])] if spec.lower() in lowered else None
    return parse


def cutoffs(*prefixes: str, default=STANDARD_CUTOFFS, name: str | None = None):
    """A parser for ``prefix``, ``prefix_k``, ``prefix.k1,k2`` and ``prefix@k`` (case
    insensitive; no cutoff = ``default``); measures named ``{name}_{k}`` (default: the
    family's name)."""
    pattern = re.compile(r"(%s)(?:[_.@]([0-9,]+))?" % "|".join(re.escape(p.lower()) for p in prefixes))

    def parse(spec: str, family: Family):
        m = pattern.fullmatch(spec.lower())
        if not m:
            return None
        cuts = [int(c) for c in m.group(2).split(",") if c] if m.group(2) else list(default)
        if not cuts or any(c <= 0 for c in cuts):
            raise ValueError(f"measure {spec!r}: cutoffs must be positive integers")
        return [family.measure(f"{name or family.name}_{k}", k) for k in cuts]
    return parse


def parse_measure(spec: str) -> list[Measure]:
    """The measures named by one ``-m`` argument or config entry (see ``reeval measures``):
    a named set (``official``, ``all_trec``) or the first family whose parser accepts it.
    Raises ValueError naming what is accepted."""
    spec = spec.strip()
    if spec.lower() in SETS:
        return [m for s in SETS[spec.lower()] for m in parse_measure(s)]
    for family in REGISTRY.values():
        found = family.parse(spec, family)
        if found is not None:
            return found
    raise ValueError(f"unknown measure {spec!r}")


def parse_measures(specs) -> list[Measure]:
    """All measures named by a list of specs, first occurrence order, no repeats."""
    out: dict[str, Measure] = {}
    for spec in specs:
        for m in parse_measure(spec):
            out.setdefault(m.name, m)
    return list(out.values())


def accepted_names(per_topic_only: bool = False) -> str:
    """What :func:`parse_measure` accepts, in one line (for error messages): the spellings of
    every family (``per_topic_only``: without the families computed over a set of runs),
    then the named sets."""
    families = [f for f in REGISTRY.values() if not (per_topic_only and f.needs_runs)]
    return ", ".join([n for f in families for n in f.names] + list(SETS))
