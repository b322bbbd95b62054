"""reeval's values of a track's runs under an audit setting: each input read once (a stream is
spooled to a temporary file first), each setting scored once. In the workflow the track's own
tables (its ingest's Parquet) serve every setting, its ``runs.parquet`` the other orderings
(float32 scores, ties by docno ascending: each line's new position, :func:`runs_positions`,
set on the judged table); the command reads the files once, its runs table kept, which then
serves as they do. An alternative qrels file is read once, at the ingested ordering, its
judged lines placed in the other orderings the same way. Either way the orderings are
:func:`reeval.io.ordering.ranked_order`'s, the ingest's own; ``read_once=False`` reads the
files again for each ordering, gain map and qrels instead (the ingest placing the lines in
docno-ascending ties itself), the independent path the tests compare with."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from contextlib import ExitStack

import numpy as np


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


#: the tie rule of each order of ties of a setting (:data:`reeval.analyses.audit.settings.TIES`,
#: :data:`reeval.io.ordering.TIE_RULES`)
TIE_RULE = {"trec_eval": "docno_desc", "docno ascending": "docno_asc"}


def runs_positions(runs, precision: str, ties: str, ingested: str) -> np.ndarray | None:
    """The 1-based position of each line of a runs table in another ordering: scores compared
    at ``precision``, ties by ``ties`` (:data:`TIE_RULE`), as
    :func:`reeval.io.ordering.ranked_order` orders a run (the ingest's own order).

    ``runs`` (pos, score, docno) is the table as the ingest wrote it at precision ``ingested``:
    lines grouped by run and topic, each group in trec_eval order, ``pos`` 1 .. n in it. At the
    ingest's precision, docno-ascending ties are each tied block reversed (no docno read). At
    the other precision only the lines of a block of scores equal in float32 (the coarser
    comparison, so no line leaves its block) move: they alone are ranked anew. None where
    ``pos`` is not 1 .. n per group."""
    from reeval.io.ordering import ordering_key, ranked_order, reverse_ties
    from reeval.io.strings import Strings

    pos = runs.column("pos").to_numpy()
    n = len(pos)
    first = pos == 1
    group = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    if n and (not first[0] or (pos != np.arange(n) - starts[group] + 1).any()):
        return None
    score = runs.column("score").to_numpy()
    rule = TIE_RULE[ties]
    if precision != ingested:
        order = np.arange(n)
        coarse = ordering_key(score, "float32")
        same = (group[1:] == group[:-1]) & (coarse[1:] == coarse[:-1])
        rows = np.flatnonzero(np.r_[same, False] | np.r_[False, same])  # only their docnos are read
        docno = Strings.from_arrow(runs.column("docno").take(rows))
        order[rows] = rows[ranked_order(group[rows], docno, score[rows], precision, rule=rule)]
    elif rule == "docno_asc":
        order = reverse_ties(np.arange(n), group, ordering_key(score, precision))
    else:
        return pos.astype(np.int64)
    out = np.empty(n, dtype=np.int64)
    out[order] = np.arange(n) - starts[group[order]] + 1  # order keeps the groups in place
    return out


def judged_reordered(runs, judged, precision: str, ties: str, ingested: str, rows=None):
    """The judged table (run, qid, docno, pos, rel) of a track as its ingest wrote it, with each
    line's position in another ordering (:func:`runs_positions` of its runs table ``runs``: run,
    qid, pos, score, docno), found at its row of ``runs`` (``rows``: :func:`judged_rows`, found
    here when not given): no run file read again, no join. None where the runs table is not as
    the ingest writes it (a (run, topic) of ``judged`` absent from it, or positions not 1 .. n)."""
    import pyarrow as pa

    new = runs_positions(runs, precision, ties, ingested)
    if new is None:
        return None
    if judged.num_rows == 0:
        return judged
    rows = judged_rows(runs, judged) if rows is None else rows
    if rows is None or (rows >= len(new)).any():
        return None
    return judged.set_column(judged.schema.get_field_index("pos"), "pos", pa.array(new[rows].astype(np.int32)))


def judged_rows(runs, judged) -> np.ndarray | None:
    """The row of ``runs`` (the track's runs table: run, qid, pos, lines grouped by run and
    topic, ``pos`` 1 .. n in each) holding each line of ``judged`` (run, qid, pos): the start
    of its (run, topic) in ``runs`` + pos - 1. None where a (run, topic) of ``judged`` is
    absent from ``runs``; the same for every ordering, so found once."""
    import pyarrow as pa
    import pyarrow.compute as pc

    starts = np.flatnonzero(runs.column("pos").to_numpy() == 1)
    found = dict(zip(zip(runs.column("run").take(starts).to_pylist(), runs.column("qid").take(starts).to_pylist()),
                     starts.tolist()))
    n = judged.num_rows
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    run, qid = (judged.column(name) for name in ("run", "qid"))
    run, qid = (c.cast(pa.string()) if pa.types.is_dictionary(c.type) else c for c in (run, qid))
    change = pc.or_(pc.not_equal(run.slice(1), run.slice(0, n - 1)),
                    pc.not_equal(qid.slice(1), qid.slice(0, n - 1))).to_numpy(zero_copy_only=False)
    segment = np.flatnonzero(np.r_[True, change])
    keys = zip(run.take(segment).to_pylist(), qid.take(segment).to_pylist())
    at = np.array([found.get(key, -1) for key in keys], dtype=np.int64)
    if (at < 0).any():
        return None
    return np.repeat(at, np.diff(np.r_[segment, n])) + judged.column("pos").to_numpy() - 1


def grid_key(setting) -> tuple:
    """What of a setting decides its runs x topics grid (:meth:`TrackEvaluator.grid`): the
    ordering, order of ties, depth and qrels file, and the level below which grades are made
    0 where they are (None where not). Settings of one key share a grid; the relevance level
    otherwise and ``-c`` act only when the grid is evaluated and averaged."""
    zeroed = setting.level if setting.zero_below and setting.level > 1 else None
    return (setting.precision, setting.ties, setting.depth, setting.qrels, zeroed)


class TrackEvaluator:
    """``evaluate(setting, specs)`` for :func:`reeval.analyses.audit.core.audit`: an Arrow
    table, a ``run`` column (the names) then one float64 column per spec (full precision).

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
    ``read_once``: without ``ingested``, read the files once (trec_eval 10's ordering, the runs
    table kept: :meth:`own_tables`), which then serve every setting of the track's qrels as
    ``ingested`` and ``runs_table`` do; False reads them again for each ordering, gain map and
    qrels file.
    """

    def __init__(self, qrels_path, run_paths, names, warn=None, ingested=None, grade_map=None, runs_table=None,
                 read_once=True):
        from reeval.io.trecio import run_names

        self.qrels_path, self.run_paths, self.names, self.warn = qrels_path, list(run_paths), list(names), warn
        self.read_as = run_names(self.run_paths) if run_paths else list(names)
        self.ingested, self.grade_map, self.runs_table = ingested, grade_map, runs_table
        self.read_once, self.grid_runs = read_once and ingested is None, self.names
        self._runs = None
        self._rows: dict = {}
        self._reordered: dict = {}
        self._tables: dict = {}
        self._grids: dict = {}
        self._topic_scores: dict = {}
        self._scores: dict = {}

    def tables(self, precision: str, grade_map, ties: str = "trec_eval", qrels=None, keep_runs: bool = False):
        """The track read from its files with this ordering, gain map, order of ties and qrels
        file (None: the track's) (once each; ``keep_runs``: with its runs table)."""
        from reeval.compute import check_tables
        from reeval.io.ingest import ingest_track

        key = (precision, tuple(sorted((grade_map or {}).items())), ties, qrels)
        if key not in self._tables:
            other = () if ties == "trec_eval" else ((TIE_RULE[ties], precision),)
            tables = ingest_track("audit", qrels or self.qrels_path, self.run_paths, precision=precision,
                                  grade_map=grade_map, keep_runs=keep_runs, tune=False, orders=other)
            if not self._tables and self.warn is not None:
                for line in check_tables(tables):
                    self.warn(line)
            self._tables[key] = tables
        return self._tables[key]

    def own_tables(self) -> None:
        """With ``read_once`` and no ``ingested`` tables: read the track's files once, in trec_eval
        10's ordering with the runs table kept, and serve every setting of the track's qrels
        from them (``ingested``, ``runs_table``; runs named as read)."""
        if self.read_once:
            self.read_once = False
            tables = self.tables("float64", self.grade_map, keep_runs=True)
            self.ingested = ("float64", (tables.judged, tables.depth, tables.qrels))
            self.runs_table, self.grid_runs = (lambda: tables.runs), self.read_as

    def limits(self) -> tuple[int, int]:
        """(highest grade, most documents a run ranks for a topic) of the track as given."""
        self.own_tables()
        if self.ingested is not None:
            _, (_, depth, qrels) = self.ingested
            grades, n_ret = qrels.column("rel").to_numpy(), depth.column("n_ret").to_numpy()
        else:
            tables = self.tables("float64", self.grade_map)
            grades = tables.lookup.qrels.rel
            n_ret = np.concatenate([p.n_ret for p in tables.parts] or [np.zeros(0, dtype=np.int64)])
        return (int(grades.max()) if len(grades) else 1), (int(n_ret.max()) if len(n_ret) else 0)

    def judged_tables(self, qrels=None) -> tuple:
        """(judged, depth, qrels) of the track's qrels (the ingested tables) or of the
        alternative qrels file ``qrels``, read once at the ingested ordering (its judged lines
        then placed in the other orderings from the runs table, as the track's are)."""
        if qrels is None:
            return self.ingested[1]
        tables = self.tables(self.ingested[0], self.grade_map, qrels=qrels)
        return tables.judged, tables.depth, tables.qrels

    def reordered(self, precision: str, ties: str, qrels=None):
        """The judged table of the track's qrels (or of the alternative ``qrels``) in another
        ordering, from the runs table (:func:`judged_reordered`, once each; the judged lines'
        rows in it found once per qrels), or None without one."""
        if self.runs_table is None:
            return None
        if (precision, ties, qrels) not in self._reordered:
            judged = self.judged_tables(qrels)[0]
            if self._runs is None:
                self._runs = self.runs_table()
            if qrels not in self._rows:
                self._rows[qrels] = judged_rows(self._runs, judged)
            rows = self._rows[qrels]
            self._reordered[precision, ties, qrels] = (None if rows is None else
                                                       judged_reordered(self._runs, judged, precision, ties,
                                                                        self.ingested[0], rows))
        return self._reordered[precision, ties, qrels]

    def grid(self, setting):
        """The runs x topics grid of the setting's ordering, gain map, depth, ties and qrels."""
        from reeval.measures import build_grid, grid_from_track

        judged = None
        self.own_tables()
        if self.ingested is not None and (setting.qrels is None or self.runs_table is not None):
            judged, depth, qrels = self.judged_tables(setting.qrels)
            if (setting.precision, setting.ties) != (self.ingested[0], "trec_eval"):
                judged = self.reordered(setting.precision, setting.ties, setting.qrels)
        if judged is not None:
            if setting.zero_below:
                judged, qrels = zero_below(judged, setting.level), zero_below(qrels, setting.level)
            return build_grid(judged, depth, qrels, runs=self.grid_runs, max_depth=setting.depth)
        tables = self.tables(setting.precision, setting.grade_map(self.grade_map), setting.ties, setting.qrels)
        other = None if setting.ties == "trec_eval" else (TIE_RULE[setting.ties], setting.precision)
        return grid_from_track(tables, runs=self.read_as, max_depth=setting.depth, ordering=other)

    def topic_scores(self, setting, measures, version: int):
        """The per-topic values of ``measures`` under ``setting`` (:func:`grid_key`'s grid at its
        relevance level), once each: settings that differ only in ``-c`` share them, since
        ``-c`` changes only how they average."""
        from reeval.measures import evaluate_grid

        key = (grid_key(setting), setting.level, version, tuple(measures))
        if key not in self._topic_scores:
            if grid_key(setting) not in self._grids:
                self._grids[grid_key(setting)] = self.grid(setting)
            self._topic_scores[key] = evaluate_grid(self._grids[grid_key(setting)], measures, rel_level=setting.level,
                                                    version=version)
        return self._topic_scores[key]

    def __call__(self, setting, specs):
        import pyarrow as pa

        from reeval.compute import trec_eval_version
        from reeval.measures import aggregate_values, parse_measure

        key = (setting, tuple(specs))
        if key not in self._scores:
            version = trec_eval_version(setting.precision)
            measures = [parse_measure(s, version)[0] for s in specs]
            scores = self.topic_scores(setting, measures, version)
            summary = aggregate_values(scores, measures, complete=setting.complete)
            self._scores[key] = pa.table({"run": pa.array(self.names, pa.string()),
                                          **{s: pa.array(np.asarray(summary[m.name], dtype=np.float64))
                                             for s, m in zip(specs, measures)}})
        return self._scores[key]
