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

The audit evaluates through a function ``evaluate(setting, specs)`` returning a DataFrame
(index run, one column per measure spec, full precision), so that the command line, the
workflow (which reuses the measures job's values) and the tests give their own.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .official import decimals_of
from .settings import Setting, block_setting, causes

#: the audit table's columns (one row per official figure)
COLUMNS = ["run", "block", "measure", "official", "ours", "status", "cause", "ours_under_cause", "setting"]
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


def printed(values: pd.DataFrame, cells: pd.DataFrame) -> np.ndarray:
    """reeval's value of each cell (its run's row, its spec's column of ``values``) as text,
    rounded to the decimals its official figure was printed with (C's ``%.Nf``, as Python's
    format: correctly rounded from the binary value; ``nan`` for no value)."""
    rows = values.index.get_indexer(cells["run"])
    cols = values.columns.get_indexer(cells["spec"])
    found = values.to_numpy(dtype=np.float64)[rows, cols].tolist()
    places = decimals_of(cells["official"]).tolist()
    out = np.empty(len(found), dtype=object)
    out[:] = ["%.*f" % (d, x) for d, x in zip(places, found)]
    return out


def audit(official: pd.DataFrame, evaluate, track: Setting, runs, max_grade: int, max_depth: int,
          alternatives=()) -> pd.DataFrame:
    """The audit table (:data:`COLUMNS`) of the figures ``official``
    (:func:`reeval.analyses.audit.official.read_official`) against the track's ``runs``;
    ``alternatives``: the track's alternative qrels files (the last causes tried)."""
    names = official["measure"].unique()  # each name parsed once, not once per figure
    rows = official.assign(spec=official["measure"].map(dict(zip(names, map(measure_spec, names)))))
    present = rows["run"].isin(set(runs))
    known = rows["spec"].notna()
    rows["ours"] = rows["cause"] = rows["ours_under_cause"] = rows["setting"] = ""
    rows["status"] = "not compared"
    rows.loc[~known, "cause"] = "reeval knows no measure of this name"
    rows.loc[~present, "cause"] = "the run is not in the track"
    specs = rows.loc[present & known, "spec"]
    rows["program"] = specs.map({spec: program(spec) for spec in specs.unique()})
    compared = rows[present & known]
    specs = compared.groupby("block", sort=False)["spec"].agg(lambda found: sorted(found.unique()))
    open_specs = {block: differing_specs(cells, evaluate(block_setting(block, track), specs[block]))
                  for block, cells in compared.groupby("block", sort=False)}
    outcome = ["ours", "status", "cause", "ours_under_cause", "setting"]
    filled = {c: rows[c].to_numpy(dtype=object) for c in outcome}  # filled unit by unit, set once
    for (block, _), cells in compared.groupby(["block", "program"], sort=False):
        found = audit_block(cells, block, evaluate, track, max_grade, max_depth, alternatives, specs[block],
                            open_specs[block])
        at = rows.index.get_indexer(cells.index)
        for c in outcome:
            filled[c][at] = found[c].to_numpy(dtype=object)
    return rows.assign(**{c: pd.array(filled[c], dtype=rows[c].dtype) for c in outcome})[COLUMNS].reset_index(drop=True)


def differing_specs(cells: pd.DataFrame, values: pd.DataFrame) -> list:
    """The measures of the units of a block (its cells of one ``program``) holding a figure
    that ``values`` (the block's setting) do not print: those the causes are tried for, so
    that a cause evaluates only the measures still open, and the open units of a block
    share each of its evaluations."""
    differs = printed(values, cells) != cells["official"].to_numpy(dtype=object)
    units = set(cells.loc[differs, "program"])
    return sorted(cells.loc[cells["program"].isin(units), "spec"].unique())


def audit_block(cells, block, evaluate, track, max_grade, max_depth, alternatives=(), specs=None,
                cause_specs=None) -> pd.DataFrame:
    """ours, status, cause, ours_under_cause and setting of the cells of one block (module
    doc; one program's figures of it): the causes are tried in order, first on the whole block,
    then run by run. ``specs``: the measures evaluated (default the cells'; :func:`audit` gives
    every measure of the block, so that its programs share each setting's evaluation);
    ``cause_specs``: the measures evaluated under each cause (default ``specs``;
    :func:`audit` gives the open units' measures, :func:`differing_specs`)."""
    base = block_setting(block, track)
    specs = sorted(cells["spec"].unique()) if specs is None else specs
    cause_specs = specs if cause_specs is None else cause_specs
    ours = printed(evaluate(base, specs), cells)
    official = cells["official"].to_numpy(dtype=object)
    equal = ours == official
    out = pd.DataFrame({"ours": ours, "status": np.where(equal, "equal", "unexplained"), "cause": "",
                        "ours_under_cause": "", "setting": base.describe()}, index=cells.index)
    if equal.all():
        return out
    tried = []
    for cause, setting in causes(base, max_grade, max_depth, alternatives):  # lazily: the first that fits all ends it
        alt = printed(evaluate(setting, cause_specs), cells)
        if (alt == official).all():
            _explain(out, ~equal, cause, alt)
            return out
        tried.append((cause, alt))
    run = cells["run"].to_numpy()
    open_runs = set(run[~equal])
    for cause, alt in tried:
        fits = pd.Series(alt == official).groupby(run).all()
        runs = open_runs & set(fits.index[fits.to_numpy()])
        if runs:
            _explain(out, ~equal & np.isin(run, list(runs)), cause, alt)
            open_runs -= runs
    return out


def _explain(out: pd.DataFrame, where: np.ndarray, cause: str, alt: np.ndarray) -> None:
    """Mark the cells ``where`` explained by ``cause`` (``alt``: the values under it)."""
    out.loc[where, "status"] = "explained"
    out.loc[where, "cause"] = cause
    out.loc[where, "ours_under_cause"] = alt[where]


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per block: runs and figures compared, and the figures of each status."""
    compared = table[table["status"] != "not compared"]
    counts = table.pivot_table(index="block", columns="status", values="run", aggfunc="size", fill_value=0)
    counts = counts.reindex(columns=STATUSES, fill_value=0)
    counts.insert(0, "runs", compared.groupby("block")["run"].nunique().reindex(counts.index, fill_value=0))
    return counts.reset_index()
