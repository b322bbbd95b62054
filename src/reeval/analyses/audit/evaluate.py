"""reeval's values of a track's runs under an audit setting: each input read once (a stream is
spooled to a temporary file first), the track ingested at most once per ordering and gain
map, each setting scored once. In the workflow the track's own tables (its ingest's Parquet)
serve every setting, its ``runs.parquet`` the other orderings (float32 scores, ties by docno
ascending); only an alternative qrels file is read there. The command reads the files again
for the other orderings too."""

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


def ties_reversed(topic: np.ndarray, pos: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The positions of a run's lines with each group of tied scores in reverse order.

    The lines are given in trec_eval order (``topic`` codes grouped, ``pos`` 1-based and
    consecutive within a topic, ties by docno descending). A group of equal ``score`` in one
    topic holds the positions ``first .. last`` in either order, so reversing it (docno
    ascending) moves a line from ``pos`` to ``first + last - pos``. A line without a tie keeps
    its position; no line leaves its topic. Scores compare as given (float32 scores for
    trec_eval 9.x's ties)."""
    n = len(pos)
    if n == 0:
        return pos.copy()
    starts = np.r_[True, (topic[1:] != topic[:-1]) | (score[1:] != score[:-1])]
    group = np.cumsum(starts) - 1
    ends = np.r_[starts[1:], True]
    return pos[starts][group] + pos[ends][group] - pos


def reversed_ties(tables, precision: str):
    """A track's tables (read with its kept lines' scores) with every run's ties ordered by
    docno ascending (:func:`ties_reversed`); the lines' order follows the new positions."""
    from dataclasses import replace

    from reeval.io.ingest import TrackTables

    parts = []
    for part in tables.parts:
        score = part.kept.score.astype(np.float32 if precision == "float32" else np.float64)
        pos = ties_reversed(part.topic, part.pos, score)
        order = np.lexsort((pos, part.topic))
        parts.append(replace(part, topic=part.topic[order], pos=pos[order], qrow=part.qrow[order], kept=None))
    return TrackTables(tables.lookup, parts, tables.report_rows, keep_runs=False)


def judged_reordered(runs, qrels, precision: str, ties: str):
    """The judged table (run, qid, docno, pos, rel) of a track's runs table as its ingest wrote
    it (run, qid, docno, score, pos: every kept line, grouped by run and topic) ordered anew:
    score descending compared at ``precision`` (float32: rounded first, as the ingest does;
    ``-0.0`` as ``0.0``), ties by docno descending (``ties`` trec_eval) or ascending (byte
    order), joined with ``qrels`` (qid, docno, rel): no run file read again. None where a
    docno holds a backslash (the ingest orders such a text by the bytes it stands for: read the
    files instead)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    runs = runs.select(["run", "qid", "docno", "score"])
    n = runs.num_rows
    docno = runs.column("docno")
    if n and pc.any(pc.match_substring(docno, "\\")).as_py():
        return None
    run, qid = runs.column("run"), runs.column("qid")
    changed = (pc.or_(pc.not_equal(run.slice(1), run.slice(0, n - 1)), pc.not_equal(qid.slice(1), qid.slice(0, n - 1)))
               .to_numpy(zero_copy_only=False) if n > 1 else np.zeros(0, dtype=bool))
    group = np.r_[0, np.cumsum(changed)] if n else np.zeros(0, dtype=np.int64)
    score = runs.column("score").to_numpy() + 0.0
    if precision == "float32":
        with np.errstate(over="ignore"):
            score = score.astype(np.float32)
    order = pc.sort_indices(pa.table({"group": group, "score": score, "docno": docno}),
                            sort_keys=[("group", "ascending"), ("score", "descending"),
                                       ("docno", "descending" if ties == "trec_eval" else "ascending")]).to_numpy()
    start = np.flatnonzero(np.r_[True, changed]) if n else np.zeros(0, dtype=np.int64)
    pos = np.arange(n) - start[group[order]] + 1
    table = runs.select(["run", "qid", "docno"]).take(pa.array(order)).append_column("pos", pa.array(pos.astype(np.int32)))
    return table.join(qrels.select(["qid", "docno", "rel"]), keys=["qid", "docno"], join_type="inner")


class TrackEvaluator:
    """``evaluate(setting, specs)`` for :func:`reeval.analyses.audit.core.audit`: a DataFrame
    indexed by run name with one column per spec (full precision).

    ``qrels_path``, ``run_paths``: files that can be read again (:func:`spooled`); ``names``:
    the runs' names as the caller knows them (the i-th path's run is ``names[i]``).
    ``grade_map``: the track's own relabelling of grades (its files are read with it).
    ``ingested``: optionally ``(precision, (judged, depth, qrels))``, the track's tables as
    its ingest wrote them (runs named as ``names``, grades relabelled by ``grade_map``), used
    for every setting with that precision (a setting's grades below its level made 0 on
    them, :func:`zero_below`); the files are read again for another ordering unless
    ``runs_table`` serves it.
    ``runs_table``: a function returning the track's runs table as its ingest wrote it (read
    once, when asked), which serves the other ordering and docno-ascending ties
    (:func:`judged_reordered`) without reading the run files again.
    """

    def __init__(self, qrels_path, run_paths, names, warn=None, ingested=None, grade_map=None, runs_table=None):
        from reeval.io.trecio import run_names

        self.qrels_path, self.run_paths, self.names, self.warn = qrels_path, list(run_paths), list(names), warn
        self.read_as = run_names(self.run_paths) if run_paths else list(names)
        self.ingested, self.grade_map, self.runs_table = ingested, grade_map, runs_table
        self._runs = None
        self._reordered: dict = {}
        self._tables: dict = {}
        self._scores: dict = {}

    def tables(self, precision: str, grade_map, ties: str = "trec_eval", qrels=None):
        """The track read from its files with this ordering, gain map, order of ties and qrels
        file (None: the track's) (once each)."""
        from reeval.compute import check_tables
        from reeval.io.ingest import ingest_track

        key = (precision, tuple(sorted((grade_map or {}).items())), ties, qrels)
        if key not in self._tables:
            tables = ingest_track("audit", qrels or self.qrels_path, self.run_paths, precision=precision,
                                  grade_map=grade_map, keep_runs=ties != "trec_eval", tune=False)
            if ties != "trec_eval":
                tables = reversed_ties(tables, precision)
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

    def reordered(self, precision: str, ties: str, qrels):
        """The ingested judged table in another ordering, from the runs table
        (:func:`judged_reordered`, once each), or None without one."""
        if self.runs_table is None:
            return None
        if (precision, ties) not in self._reordered:
            if self._runs is None:
                self._runs = self.runs_table()
            self._reordered[precision, ties] = judged_reordered(self._runs, qrels, precision, ties)
        return self._reordered[precision, ties]

    def grid(self, setting):
        """The runs x topics grid of the setting's ordering, gain map, depth, ties and qrels."""
        from reeval.measures import build_grid, grid_from_track

        judged = None
        if self.ingested is not None and setting.qrels is None:
            judged, depth, qrels = self.ingested[1]
            if (setting.precision, setting.ties) != (self.ingested[0], "trec_eval"):
                judged = self.reordered(setting.precision, setting.ties, qrels)
        if judged is not None:
            if setting.zero_below:
                judged, qrels = zero_below(judged, setting.level), zero_below(qrels, setting.level)
            return build_grid(judged, depth, qrels, runs=self.names, max_depth=setting.depth)
        tables = self.tables(setting.precision, setting.grade_map(self.grade_map), setting.ties, setting.qrels)
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
