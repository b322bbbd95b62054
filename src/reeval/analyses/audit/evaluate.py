"""reeval's values of a track's runs under an audit setting: each input read once (a stream is
spooled to a temporary file first), the track ingested at most once per ordering and gain
map, each setting scored once. In the workflow the track's own tables (its ingest's Parquet)
serve every setting of the ordering it was ingested with; only the cause of the other ordering
reads the files again."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from contextlib import ExitStack

import numpy as np
import pandas as pd


def spooled(paths, stack: ExitStack) -> list[str]:
    """``paths`` with each one that is not a regular file (a pipe, a FIFO, ``-``) copied once
    to a temporary file (same base name) removed when ``stack`` closes, so that the audit may
    read it again."""
    folder = None
    out = []
    for i, path in enumerate(map(str, paths)):
        if path != "-" and os.path.exists(path) and stat.S_ISREG(os.stat(path).st_mode):
            out.append(path)
            continue
        if folder is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="reeval-audit-"))
        os.mkdir(os.path.join(folder, str(i)))
        copy = os.path.join(folder, str(i), os.path.basename(path) or "stdin")
        with open(copy, "wb") as dst:
            if path == "-":
                shutil.copyfileobj(sys.stdin.buffer, dst)
            else:
                with open(path, "rb") as src:
                    shutil.copyfileobj(src, dst)
        out.append(copy)
    return out


def zero_below(table, level: int):
    """An Arrow table with its ``rel`` column's grades from 1 to ``level - 1`` made 0 (the
    relabelling :meth:`reeval.analyses.audit.settings.Setting.grade_map` adds, applied to a
    track's ingested tables instead of its files)."""
    import pyarrow as pa

    rel = table.column("rel").to_numpy()
    return table.set_column(table.schema.get_field_index("rel"), "rel",
                            pa.array(np.where((rel >= 1) & (rel < level), 0, rel), table.schema.field("rel").type))


class TrackEvaluator:
    """``evaluate(setting, specs)`` for :func:`reeval.analyses.audit.core.audit`: a DataFrame
    indexed by run name with one column per spec (full precision).

    ``qrels_path``, ``run_paths``: files that can be read again (:func:`spooled`); ``names``:
    the runs' names as the caller knows them (the i-th path's run is ``names[i]``).
    ``grade_map``: the track's own relabelling of grades (its files are read with it).
    ``ingested``: optionally ``(precision, (judged, depth, qrels))``, the track's tables as
    its ingest wrote them (runs named as ``names``, grades relabelled by ``grade_map``), used
    for every setting with that precision (a setting's grades below its level made 0 on
    them, :func:`zero_below`), so the files are read again only for the other ordering.
    """

    def __init__(self, qrels_path, run_paths, names, warn=None, ingested=None, grade_map=None):
        from reeval.io.trecio import run_names

        self.qrels_path, self.run_paths, self.names, self.warn = qrels_path, list(run_paths), list(names), warn
        self.read_as = run_names(self.run_paths) if run_paths else list(names)
        self.ingested, self.grade_map = ingested, grade_map
        self._tables: dict = {}
        self._scores: dict = {}

    def tables(self, precision: str, grade_map):
        """The track read from its files with this ordering and gain map (once each)."""
        from reeval.compute import check_tables
        from reeval.io.ingest import ingest_track

        key = (precision, tuple(sorted((grade_map or {}).items())))
        if key not in self._tables:
            tables = ingest_track("audit", self.qrels_path, self.run_paths, precision=precision,
                                  grade_map=grade_map, keep_runs=False, tune=False)
            if not self._tables and self.warn is not None:
                for line in check_tables(tables):
                    self.warn(line)
            self._tables[key] = tables
        return self._tables[key]

    def limits(self) -> tuple[int, int]:
        """(highest grade, most documents a run ranks for a topic) of the track as given."""
        if self.ingested is not None:
            _, (_, depth, qrels) = self.ingested
            grades, n_ret = qrels.column("rel").to_numpy(), depth.column("n_ret").to_numpy()
        else:
            tables = self.tables("float64", self.grade_map)
            grades = tables.lookup.qrels.rel
            n_ret = np.concatenate([p.n_ret for p in tables.parts] or [np.zeros(0, dtype=np.int64)])
        return (int(grades.max()) if len(grades) else 1), (int(n_ret.max()) if len(n_ret) else 0)

    def grid(self, setting):
        """The runs x topics grid of the setting's ordering, gain map and depth."""
        from reeval.measures import build_grid, grid_from_track

        if self.ingested is not None and self.ingested[0] == setting.precision:
            judged, depth, qrels = self.ingested[1]
            if setting.zero_below:
                judged, qrels = zero_below(judged, setting.level), zero_below(qrels, setting.level)
            return build_grid(judged, depth, qrels, runs=self.names, max_depth=setting.depth)
        tables = self.tables(setting.precision, setting.grade_map(self.grade_map))
        return grid_from_track(tables, runs=self.read_as, max_depth=setting.depth)

    def __call__(self, setting, specs) -> pd.DataFrame:
        from reeval.compute import trec_eval_version
        from reeval.measures import aggregate_values, evaluate_grid, parse_measure

        key = (setting, tuple(specs))
        if key not in self._scores:
            version = trec_eval_version(setting.precision)
            measures = [parse_measure(s, version)[0] for s in specs]
            scores = evaluate_grid(self.grid(setting), measures, rel_level=setting.level, version=version)
            summary = aggregate_values(scores, measures, complete=setting.complete)
            self._scores[key] = pd.DataFrame({s: np.asarray(summary[m.name], dtype=np.float64)
                                              for s, m in zip(specs, measures)},
                                             index=pd.Index(self.names, name="run"))
        return self._scores[key]
