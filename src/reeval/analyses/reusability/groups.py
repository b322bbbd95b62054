"""The groups and pooled runs of a reusability study, from the files and patterns users
give them as (``reeval reusability --groups/--pooled``, a track's ``groups:`` and
``pooled:``): ``RUN GROUP`` lines or a CSV with a run and a group column (a TREC
leaderboard's ``team``), a regular expression searched in the run names."""

from __future__ import annotations

import csv
import os

from reeval.errors import InputError

#: the columns of a CSV groups file naming the group, tried in this order
GROUP_COLUMNS = ("group", "team", "participant")
#: the columns of a CSV pooled-runs file saying whether a run was pooled, tried in this order
POOLED_COLUMNS = ("pooled", "contributed judgments")
#: what such a column says for a pooled run (case-insensitive)
YES = ("yes", "y", "true", "1")


def read_groups(path) -> dict:
    """run -> group from a file: ``RUN GROUP`` per line (whitespace-separated; blank lines
    and ``#`` comments skipped), or a ``.csv`` with a header holding ``run`` and one of
    :data:`GROUP_COLUMNS` (TREC leaderboards: ``team``). A bad line, or a run given two
    groups, is an InputError naming the file and the line."""
    out: dict = {}

    def add(run, group, where):
        if out.get(run, group) != group:
            raise InputError(f"{where}: run {run!r} is already in group {out[run]!r}")
        out[run] = group

    try:
        with open(path, newline="", encoding="utf-8") as f:
            if str(path).endswith(".csv"):
                reader = csv.DictReader(f)
                column = next((c for c in GROUP_COLUMNS if c in (reader.fieldnames or [])), None)
                if "run" not in (reader.fieldnames or []) or column is None:
                    raise InputError(f"{path}: line 1: expected a header with run and one of "
                                     f"{', '.join(GROUP_COLUMNS)}")
                for row in reader:
                    run, group = (row.get("run") or "").strip(), (row.get(column) or "").strip()
                    if not run or not group:
                        raise InputError(f"{path}: line {reader.line_num}: expected a run and its {column}")
                    add(run, group, f"{path}: line {reader.line_num}")
                return out
            for number, line in enumerate(f, 1):
                text = line.split("#", 1)[0].split()
                if not text:
                    continue
                if len(text) != 2:
                    raise InputError(f"{path}: line {number}: expected 'RUN GROUP', found {len(text)} fields")
                add(text[0], text[1], f"{path}: line {number}")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return out


#: how many names :func:`check_known_runs` quotes before "and N more"
QUOTED_NAMES = 5


def check_known_runs(named, runs, where: str, strict: bool = False) -> None:
    """InputError, in one line, when ``named`` (the run names of a groups or pooled-runs
    file or mapping) holds names that are no run of ``runs`` and some run of ``runs`` is
    not named there: the mark of a misspelt name (``runA_2`` for ``runA2``), which would
    otherwise leave that run silently alone in its group, or out of the pool. The message
    quotes both: ``where: 1 name that is no run given: 'runA_2'; 1 run given is not
    named there: 'runA2'``. A file naming every run given and more (a whole campaign's
    leaderboard for some of its runs) is accepted; with ``strict`` any unknown name is
    refused (a list of pooled runs, which need not name every run)."""
    known, listed = set(runs), set(named)
    unknown = list(dict.fromkeys(n for n in named if n not in known))
    unnamed = [r for r in dict.fromkeys(runs) if r not in listed]
    if not unknown or (not strict and not unnamed):
        return
    message = f"{where}: {_names(unknown, 'name that is', 'names that are')} no run given: {_quoted(unknown)}"
    if unnamed:
        message += f"; {_names(unnamed, 'run given is', 'runs given are')} not named there: {_quoted(unnamed)}"
    raise InputError(message)


def _names(items, one: str, several: str) -> str:
    return f"{len(items)} {one if len(items) == 1 else several}"


def _quoted(items) -> str:
    more = f" and {len(items) - QUOTED_NAMES} more" if len(items) > QUOTED_NAMES else ""
    return ", ".join(repr(n) for n in items[:QUOTED_NAMES]) + more


def groups_option(spec: str | None, runs) -> dict | None:
    """The groups of ``--groups``: a file (:func:`read_groups`) when ``spec`` names one (a
    misspelt run name in it is an InputError: :func:`check_known_runs`), else a regular
    expression searched in the run names (its first capturing group)."""
    from .core import groups_from_pattern  # numpy: only for a pattern

    if spec is None:
        return None
    if os.path.isfile(spec):
        groups = read_groups(spec)
        check_known_runs(groups, runs, f"--groups {spec}")
        return groups
    try:
        return groups_from_pattern(runs, spec)
    except ValueError as exc:
        raise InputError(f"--groups: {spec!r} is neither a file nor a pattern: {exc}") from None


def read_pooled(spec: str | None, runs) -> list | None:
    """The runs of ``--pooled``: a ``.csv`` with ``run`` and one of :data:`POOLED_COLUMNS`
    (yes/no: a TREC-COVID leaderboard's "contributed judgments"), another file with one
    run name per line (``#`` comments), or a regular expression searched in the run names.
    A misspelt run name is an InputError (:func:`check_known_runs`: strict for a list of
    names, which need not name the runs not pooled; a ``.csv`` names every run, yes or no)."""
    import re

    if spec is None:
        return None
    if not os.path.isfile(spec):
        try:
            rx = re.compile(spec)
        except re.error as exc:
            raise InputError(f"--pooled: {spec!r} is neither a file nor a pattern: {exc}") from None
        return [r for r in runs if rx.search(r)]
    with open(spec, newline="", encoding="utf-8") as f:
        if not spec.endswith(".csv"):
            pooled = [w for line in f for w in line.split("#", 1)[0].split()[:1]]
        else:
            reader = csv.DictReader(f)
            column = next((c for c in POOLED_COLUMNS if c in (reader.fieldnames or [])), None)
            if "run" not in (reader.fieldnames or []) or column is None:
                raise InputError(f"{spec}: line 1: expected a header with run and one of "
                                 f"{', '.join(POOLED_COLUMNS)}")
            rows = [(row["run"].strip(), (row.get(column) or "").strip().lower()) for row in reader]
            check_known_runs([run for run, _ in rows], runs, f"--pooled {spec}")
            return [run for run, said in rows if said in YES]
    check_known_runs(pooled, runs, f"--pooled {spec}", strict=True)
    return pooled
