"""reeval's values of a track's runs under an audit setting, from its files: each input read
once (a stream is spooled to a temporary file first), the track ingested once per ordering
and gain map, each setting scored once."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from contextlib import ExitStack

import numpy as np
import pandas as pd


def spooled(paths, stack: ExitStack) -> list[str]:
    """``paths`` with each one that is not a regular file (a pipe, a FIFO, ``-``) copied once
    to a temporary file removed when ``stack`` closes, so the audit may read it again."""
    import sys

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


class TrackEvaluator:
    """``evaluate(setting, specs)`` for :func:`reeval.analyses.audit.core.audit` on files:
    a DataFrame indexed by run name with one column per spec (full precision).

    ``run_paths`` are files that can be read again (:func:`spooled`); ``names`` the runs'
    names as the user gave them (the i-th path's run is named ``names[i]``)."""

    def __init__(self, qrels_path, run_paths, names, warn=None):
        from reeval.io.trecio import run_names

        self.qrels_path, self.run_paths, self.names, self.warn = qrels_path, list(run_paths), list(names), warn
        self.read_as = run_names(self.run_paths)
        self._tables: dict = {}
        self._scores: dict = {}

    def tables(self, precision: str, grade_map):
        """The track ingested with this ordering and gain map (once each)."""
        from reeval.compute import check_tables
        from reeval.io.ingest import ingest_track

        key = (precision, tuple(sorted((grade_map or {}).items())))
        if key not in self._tables:
            tables = ingest_track("audit", self.qrels_path, self.run_paths, precision=precision,
                                  grade_map=grade_map, keep_runs=False)
            if not self._tables and self.warn is not None:
                for line in check_tables(tables):
                    self.warn(line)
            self._tables[key] = tables
        return self._tables[key]

    def limits(self) -> tuple[int, int]:
        """(highest grade, most documents a run ranks for a topic) of the track as given."""
        tables = self.tables("float64", None)
        grades = tables.lookup.qrels.rel
        depth = max((int(p.n_ret.max()) for p in tables.parts if len(p.n_ret)), default=0)
        return (int(grades.max()) if len(grades) else 1), depth

    def __call__(self, setting, specs) -> pd.DataFrame:
        from reeval.compute import score_track, trec_eval_version
        from reeval.measures import parse_measure

        key = (setting, tuple(specs))
        if key not in self._scores:
            version = trec_eval_version(setting.precision)
            measures = [parse_measure(s, version)[0] for s in specs]
            tables = self.tables(setting.precision, setting.grade_map())
            _, summary = score_track(tables, self.read_as, measures, rel_level=setting.level,
                                     max_depth=setting.depth, complete=setting.complete, version=version)
            self._scores[key] = pd.DataFrame({s: np.asarray(summary[m.name], dtype=np.float64)
                                              for s, m in zip(specs, measures)},
                                             index=pd.Index(self.names, name="run"))
        return self._scores[key]
