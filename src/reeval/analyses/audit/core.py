"""The audit: each official figure beside reeval's value at its block's setting, rounded as
printed, with a status (docs/audit.md):

- ``equal``: reeval at the block's setting prints the official figure;
- ``explained``: it does under one named cause (:func:`reeval.analyses.audit.settings.causes`),
  accepted only where it reproduces a whole block (every figure of every run), else a run's
  whole block (every figure of that run in the block), never one number alone;
- ``unexplained``: no cause tried reproduces the run's block;
- ``not compared``: the run is not in the track, or reeval knows no measure of that name.

A block is audited per program (:func:`program`): the figures trec_eval prints under their own
names are one unit, and each family trec_eval (9.x, the archive's) does not compute, as
TREC-COVID's ``J@k`` or ``rbp_p5``, is a unit of its own, since whoever published them computed
those with another program, whose settings (its order of ties) may differ from trec_eval's.
"Block" below means such a unit.

The audit evaluates through a function ``evaluate(setting, specs)`` returning an Arrow table
(a ``run`` column, then one float64 column per measure spec, full precision), so that the
command line, the workflow (which reuses the measures job's values) and the tests give their
own. Tables in and out are Arrow tables, worked on as Python lists and numpy arrays: the
workflow's audit job imports no pandas (tests/workflow/test_workflow_imports.py).
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa

from .official import decimals_of
from .settings import Setting, block_setting, causes

#: the audit table's columns (one row per official figure)
COLUMNS = ["run", "block", "measure", "official", "ours", "status", "cause", "ours_under_cause", "setting"]
#: the columns :func:`audit_block` fills
OUTCOME = ["ours", "status", "cause", "ours_under_cause", "setting"]
#: the statuses, from the most to the least trusted
STATUSES = ["equal", "explained", "unexplained", "not compared"]
#: official names reeval spells otherwise (the catalog's and leaderboards' own)
ALIASES = {"rbp_p5": "RBP(p=0.5)", "mrr": "recip_rank", "ndcg_20": "ndcg_cut_20"}
#: TREC-COVID's leaderboards write Judged@k (the share of the top k judged) as J@k
JUDGED = re.compile(r"J@(\d+)")


def measure_spec(name: str) -> str | None:
    """The reeval measure an official column names (:data:`ALIASES`, else the name as
    ``reeval score -m`` reads it, ir_measures' spellings included), or None where it names
    none or several (a set)."""
    from reeval.measures import parse_measure

    spec = JUDGED.sub(r"Judged@\1", ALIASES.get(name, name))
    try:
        found = parse_measure(spec)
    except ValueError:
        return None
    return spec if len(found) == 1 and not found[0].is_text else None


def program(spec: str) -> str:
    """The program a figure of this reeval measure was computed with, as far as the name
    tells: ``trec_eval`` where trec_eval computes it under this name (``map``, ``P_5``,
    ``ndcg_cut_10``), else the measure's family (``Judged``, ``rbp``: trec_eval 9.x has
    neither, and RBP(p=0.5) is not trec_eval 10's name)."""
    from reeval.measures import REGISTRY, parse_measure

    measure = parse_measure(spec)[0]
    family = REGISTRY[measure.family]
    return "trec_eval" if family.trec_eval and family.native(measure) else family.name


def printed(values: pa.Table, cells: dict) -> np.ndarray:
    """reeval's value of each cell (``cells``: lists ``run``, ``spec``, ``official``) as text:
    its run's row and its spec's column of ``values`` (an ``evaluate`` table), rounded to the
    decimals its official figure was printed with (C's ``%.Nf``, as Python's format:
    correctly rounded from the binary value; ``nan`` for no value). An object array."""
    at = {run: i for i, run in enumerate(values.column("run").to_pylist())}
    columns = {spec: values.column(spec).to_numpy(zero_copy_only=False) for spec in set(cells["spec"])}
    places = decimals_of(cells["official"]).tolist()
    out = np.empty(len(places), dtype=object)
    out[:] = ["%.*f" % (d, float(columns[spec][at[run]]))
              for d, run, spec in zip(places, cells["run"], cells["spec"])]
    return out


def _groups(*keys) -> dict:
    """The positions of each distinct key (a tuple of ``keys``' items), keys in the order
    they first appear."""
    out: dict = {}
    for i, key in enumerate(zip(*keys)):
        out.setdefault(key, []).append(i)
    return out


def _take(cells: dict, at) -> dict:
    """The cells at positions ``at`` (every list of ``cells``)."""
    return {name: [values[i] for i in at] for name, values in cells.items()}


def audit(official: pa.Table, evaluate, track: Setting, runs, max_grade: int, max_depth: int,
          alternatives=()) -> pa.Table:
    """The audit table (:data:`COLUMNS`, strings) of the figures ``official``
    (:func:`reeval.analyses.audit.official.read_official`) against the track's ``runs``;
    ``alternatives``: the track's alternative qrels files (the last causes tried)."""
    rows = official.select(["run", "block", "measure", "official"]).to_pydict()
    n = len(rows["run"])
    specs_of = {name: measure_spec(name) for name in dict.fromkeys(rows["measure"])}  # each name parsed once
    rows["spec"] = [specs_of[name] for name in rows["measure"]]
    present = set(runs)
    filled = {c: [""] * n for c in OUTCOME}
    filled["status"] = ["not compared"] * n
    for i, (run, spec) in enumerate(zip(rows["run"], rows["spec"])):
        if run not in present:
            filled["cause"][i] = "the run is not in the track"
        elif spec is None:
            filled["cause"][i] = "reeval knows no measure of this name"
    compared = [i for i in range(n) if rows["run"][i] in present and rows["spec"][i] is not None]
    programs = {spec: program(spec) for spec in dict.fromkeys(rows["spec"][i] for i in compared)}
    cells = _take(rows, compared)
    cells["program"] = [programs[spec] for spec in cells["spec"]]
    blocks = {block: _take(cells, at) for (block,), at in _groups(cells["block"]).items()}
    specs = {block: sorted(set(c["spec"])) for block, c in blocks.items()}
    open_specs = {block: differing_specs(c, evaluate(block_setting(block, track), specs[block]))
                  for block, c in blocks.items()}
    for (block, _), at in _groups(cells["block"], cells["program"]).items():
        found = audit_block(_take(cells, at), block, evaluate, track, max_grade, max_depth, alternatives,
                            specs[block], open_specs[block])
        for c in OUTCOME:
            for k, value in zip(at, found[c]):
                filled[c][compared[k]] = value
    out = {c: rows[c] for c in ("run", "block", "measure", "official")} | filled
    return pa.table({c: pa.array(out[c], pa.string()) for c in COLUMNS})


def differing_specs(cells: dict, values: pa.Table) -> list:
    """The measures of the units of a block (its cells of one ``program``) holding a figure
    that ``values`` (the block's setting) do not print: those the causes are tried for, so
    that a cause evaluates only the measures still open, and the open units of a block
    share each of its evaluations."""
    differs = printed(values, cells) != np.array(cells["official"], dtype=object)
    units = {p for p, d in zip(cells["program"], differs) if d}
    return sorted({s for s, p in zip(cells["spec"], cells["program"]) if p in units})


def audit_block(cells: dict, block, evaluate, track, max_grade, max_depth, alternatives=(), specs=None,
                cause_specs=None) -> dict:
    """ours, status, cause, ours_under_cause and setting (lists, one item per cell) of the
    cells of one block (``cells``: lists ``run``, ``spec``, ``official``; module doc; one
    program's figures of it): the causes are tried in order, first on the whole block,
    then run by run. ``specs``: the measures evaluated (default the cells'; :func:`audit`
    gives every measure of the block, so that its programs share each setting's evaluation);
    ``cause_specs``: the measures evaluated under each cause (default ``specs``;
    :func:`audit` gives the open units' measures, :func:`differing_specs`)."""
    base = block_setting(block, track)
    specs = sorted(set(cells["spec"])) if specs is None else specs
    cause_specs = specs if cause_specs is None else cause_specs
    ours = printed(evaluate(base, specs), cells)
    official = np.array(cells["official"], dtype=object)
    equal = ours == official
    n = len(ours)
    out = {"ours": ours, "status": np.where(equal, "equal", "unexplained").astype(object),
           "cause": np.full(n, "", dtype=object), "ours_under_cause": np.full(n, "", dtype=object),
           "setting": np.full(n, base.describe(), dtype=object)}
    if equal.all():
        return {c: v.tolist() for c, v in out.items()}
    tried = []
    for cause, setting in causes(base, max_grade, max_depth, alternatives):  # lazily: the first that fits all ends it
        alt = printed(evaluate(setting, cause_specs), cells)
        if (alt == official).all():
            _explain(out, ~equal, cause, alt)
            return {c: v.tolist() for c, v in out.items()}
        tried.append((cause, alt))
    run = np.array(cells["run"], dtype=object)
    open_runs = set(run[~equal])
    for cause, alt in tried:
        misses = set(run[alt != official])
        runs = open_runs - misses  # the open runs whose every figure the cause prints
        if runs:
            _explain(out, ~equal & np.isin(run, list(runs)), cause, alt)
            open_runs -= runs
    return {c: v.tolist() for c, v in out.items()}


def _explain(out: dict, where: np.ndarray, cause: str, alt: np.ndarray) -> None:
    """Mark the cells ``where`` explained by ``cause`` (``alt``: the values under it)."""
    out["status"][where] = "explained"
    out["cause"][where] = cause
    out["ours_under_cause"][where] = alt[where]
