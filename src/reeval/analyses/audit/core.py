"""The audit: each official figure beside reeval's value at its block's setting, rounded as
printed, with a status (docs/audit.md):

- ``equal``: reeval at the block's setting prints the official figure;
- ``explained``: it does under another setting of the lattice
  (:func:`reeval.analyses.audit.settings.lattice`), every cause of which the row names:
  the setting with the fewest causes that reproduces the whole block (every figure of every
  run), else, where none does, the one that reproduces the run's whole block (every figure
  of that run in the block), never one number alone (:func:`search`, :class:`Unit`);
- ``unexplained``: no setting of the lattice reproduces the run's block; the row gives the
  setting printing the nearest figure and the difference;
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
import time

import numpy as np
import pyarrow as pa

from .official import decimals_of
from .settings import Setting, block_setting, causes, causes_text, lattice

#: the audit table's columns (one row per official figure)
COLUMNS = ["run", "block", "measure", "official", "ours", "status", "cause", "ours_under_cause", "setting",
           "reproduced_by", "nearest", "difference", "settings_tried"]
#: the columns :meth:`Unit.outcome` fills
OUTCOME = COLUMNS[4:]
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
    ``alternatives``: the track's alternative qrels files (:func:`lattice`'s last dimension).
    Its schema's metadata holds ``settings`` (the distinct settings evaluated) and
    ``seconds`` (the time the search took)."""
    started = time.perf_counter()
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
    units = [Unit(key[0], block_setting(key[0], track), _take(cells, at), at)
             for key, at in _groups(cells["block"], cells["program"]).items()]
    evaluated = search(units, evaluate, max_grade, max_depth, alternatives)
    for unit in units:
        found = unit.outcome()
        for c in OUTCOME:
            for k, value in zip(unit.at, found[c]):
                filled[c][compared[k]] = value
    out = {c: rows[c] for c in ("run", "block", "measure", "official")} | filled
    table = pa.table({c: pa.array(out[c], pa.string()) for c in COLUMNS})
    return table.replace_schema_metadata({"settings": str(evaluated),
                                          "seconds": f"{time.perf_counter() - started:.3f}"})


class Unit:
    """One program's figures of one block (module doc), audited at ``base``: ``cells`` (lists
    ``run``, ``spec``, ``official``), ``at`` (their positions among the compared figures).
    ``order``: its :func:`lattice`; ``printed``: reeval's figures under each setting compared
    so far; ``whole``: the first setting that prints every figure, None until found."""

    def __init__(self, block: str, base: Setting, cells: dict, at: list):
        self.block, self.base, self.cells, self.at = block, base, cells, at
        self.specs = sorted(set(cells["spec"]))
        self.official = np.array(cells["official"], dtype=object)
        self.order: list = []
        self.printed: dict = {}
        self.whole = None

    def compare(self, setting: Setting, values: pa.Table) -> None:
        """Keep the figures ``values`` (an ``evaluate`` table holding the unit's measures)
        print under ``setting``."""
        self.printed[setting] = printed(values, self.cells)

    def settle(self, settings) -> bool:
        """Whether the unit's setting is known from ``settings`` (a round's, in the unit's
        order): the first of them printing every figure once those before it are compared
        (:attr:`whole`), or none of them once all are."""
        for setting in settings:
            if setting not in self.printed:
                return False
            if (self.printed[setting] == self.official).all():
                self.whole = setting
                return True
        return True

    def outcome(self) -> dict:
        """ours, status, cause, ours_under_cause, setting, reproduced_by, nearest, difference
        and settings_tried (lists, one item per cell): each run's figures reproduced by the
        unit's setting (:attr:`whole`), else by the first setting that prints every figure
        of the run, else unexplained, with the setting printing the nearest value."""
        settings = [s for s in self.order if s in self.printed]
        grid = np.array([self.printed[s] for s in settings], dtype=object).reshape(len(settings), -1)
        fits = grid == self.official  # settings x cells
        ours = grid[0]
        n = len(ours)
        chosen = np.full(n, -1)
        if self.whole is not None:
            chosen[:] = settings.index(self.whole)
        else:
            run = np.array(self.cells["run"], dtype=object)
            for name in dict.fromkeys(self.cells["run"]):
                mine = run == name
                whole_run = np.flatnonzero(fits[:, mine].all(axis=1))
                if len(whole_run):
                    chosen[mine] = whole_run[0]
        equal = fits[0]
        chosen[equal & (chosen < 0)] = 0  # a figure the block's setting prints, its run's block reproduced by none
        reproduced = chosen >= 0
        explained = reproduced & ~equal
        out = {"ours": ours.tolist(), "setting": [self.base.describe()] * n,
               "status": np.where(equal, "equal", np.where(explained, "explained", "unexplained")).tolist(),
               "cause": [""] * n, "ours_under_cause": [""] * n, "reproduced_by": [""] * n,
               "nearest": [""] * n, "difference": [""] * n, "settings_tried": [str(len(settings))] * n}
        nearest = _nearest(grid, self.official) if not reproduced.all() else chosen
        decimals = decimals_of(self.official)
        for i in range(n):
            if reproduced[i]:
                setting = settings[chosen[i]]
                out["reproduced_by"][i] = setting.describe()
                if explained[i]:
                    out["cause"][i] = causes_text(causes(self.base, setting))
                    out["ours_under_cause"][i] = grid[chosen[i], i]
            elif nearest[i] >= 0:
                out["nearest"][i] = settings[nearest[i]].describe()
                gap = float(self.official[i]) - float(grid[nearest[i], i])
                out["difference"][i] = "%+.*f" % (int(decimals[i]), gap)
        return out


def _nearest(grid: np.ndarray, official: np.ndarray) -> np.ndarray:
    """Per cell (column of ``grid``, printed figures settings x cells), the first setting
    whose figure is nearest the official one; -1 where none is a number."""
    values = np.array([[float(v) for v in row] for row in grid], dtype=np.float64).reshape(grid.shape)
    distance = np.abs(values - official.astype(np.float64)[None, :])
    distance[np.isnan(distance)] = np.inf
    out = np.argmin(distance, axis=0) if len(grid) else np.zeros(grid.shape[1], dtype=np.int64)
    return np.where(np.isfinite(distance.min(axis=0, initial=np.inf)), out, -1)


def search(units: list, evaluate, max_grade: int, max_depth: int, alternatives=()) -> int:
    """Compare each unit's figures under the settings of its :func:`lattice`, in rounds of
    the same number of causes: round k evaluates, in the units' order, each setting that an
    open unit (none of whose settings so far prints every figure) has k causes away, once
    for every unit asking (the union of their measures), until each unit of the round found
    the first setting printing all its figures (:meth:`Unit.settle`) or compared them all;
    an open unit is thus compared under every setting of its lattice, which the run by run
    choice and the nearest setting of a figure (:meth:`Unit.outcome`) read. Returns the
    number of distinct settings evaluated."""
    counts = {}
    for unit in units:
        if unit.base not in counts:
            counts[unit.base] = {s: len(causes(unit.base, s))
                                 for s in lattice(unit.base, max_grade, max_depth, alternatives)}
        unit.order = list(counts[unit.base])
    evaluated = set()
    for k in range(1 + max((c for order in counts.values() for c in order.values()), default=0)):
        rounds = {unit: [s for s in unit.order if counts[unit.base][s] == k] for unit in units if unit.whole is None}
        if not rounds:  # every unit has its setting
            break
        asked: dict = {}
        for unit, settings in rounds.items():
            for setting in settings:
                asked.setdefault(setting, []).append(unit)
        settled: set = set()
        for setting, waiting in asked.items():
            waiting = [unit for unit in waiting if unit not in settled]
            if not waiting:  # each unit asking for it found its setting earlier in the round
                continue
            values = evaluate(setting, sorted({s for unit in waiting for s in unit.specs}))
            evaluated.add(setting)
            for unit in waiting:
                unit.compare(setting, values)
                if unit.settle(rounds[unit]):
                    settled.add(unit)
    return len(evaluated)


def reproduced_text(status, reproduced_by) -> str:
    """How a block's compared figures (``status``, ``reproduced_by``: one item each, as in
    the audit table) are reproduced: each setting with the figures it prints, the most first,
    then the unexplained: ``relevance >= 2, grades below 2 gain 0, trec_eval 10 ordering, -c:
    156/156`` or ``... -c: 711/715; ... trec_eval 9.x ordering (float32 scores), -c: 4/715``."""
    total = len(status)
    counts: dict = {}
    for s, by in zip(status, reproduced_by):
        key = by if s in ("equal", "explained") else None
        counts[key] = counts.get(key, 0) + 1
    shown = sorted((k for k in counts if k is not None), key=lambda k: -counts[k])
    parts = [f"{k}: {counts[k]:,}/{total:,}" for k in shown]
    if None in counts:
        parts.append(f"unexplained: {counts[None]:,}/{total:,}")
    return "; ".join(parts)
