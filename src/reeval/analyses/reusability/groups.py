"""The groups and pooled runs of a reusability study, from the files and patterns users
give them as (``reeval reusability --groups/--pooled``, a track's ``groups:`` and
``pooled:``): ``RUN GROUP`` lines or a CSV or TSV table with a run and a group column (a
TREC leaderboard's ``participant`` or ``team``), a regular expression searched in the run
names."""

from __future__ import annotations

import csv
import os

from reeval.errors import InputError

#: the columns of a groups table (CSV or TSV with a header) naming the run, tried in this order
#: (TREC-COVID's leaderboards of rounds 2, 4 and 5: ``tag``)
RUN_COLUMNS = ("run", "runid", "run_id", "runtag", "tag")
#: the columns of a groups table naming the group, tried in this order (TREC leaderboards:
#: ``participant``, ``team``)
GROUP_COLUMNS = ("group", "team", "participant")
#: the columns of a CSV pooled-runs file saying whether a run was pooled, tried in this order
POOLED_COLUMNS = ("pooled", "contributed judgments")
#: what such a column says for a pooled run (case-insensitive)
YES = ("yes", "y", "true", "1")
#: what the console, the verdict and the report say when no groups are given
ALONE = ("each run left out alone (no groups given), which overstates reusability when a team submitted "
         "several runs: its other runs keep the documents they share in the pool")
#: the forms of a groups file, as a refusal names them
GROUPS_FORMS = ("'RUN GROUP' lines, or a CSV or TSV table whose header names a run column (run, runid, tag) "
                "and a group column (group, team or participant)")


def table_columns(header: list) -> tuple[int | None, int | None]:
    """``(run column, group column)`` indexes of a groups table's header cells (compared
    stripped and case-insensitive: ``Run``, ``participant``), the first of
    :data:`RUN_COLUMNS` and of :data:`GROUP_COLUMNS` present, None for one missing."""
    names = [c.strip().lower() for c in header]
    return (next((names.index(c) for c in RUN_COLUMNS if c in names), None),
            next((names.index(c) for c in GROUP_COLUMNS if c in names), None))


def table_delimiter(path, first_line: str) -> str | None:
    """The delimiter of a groups table whose first line is ``first_line``: ``,`` for a
    ``.csv``, a tab for a ``.tsv``, else a tab or a comma when the line holds one (a TREC
    leaderboard saved under another name), else None (``RUN GROUP`` lines)."""
    name = str(path).lower()
    if name.endswith(".csv"):
        return ","
    if name.endswith(".tsv"):
        return "\t"
    return next((d for d in ("\t", ",") if d in first_line), None)


def has_group_columns(path) -> bool:
    """Whether ``path`` is a table whose header (its first line that is not blank or a ``#``
    comment) names a run and a group column (:func:`table_columns`): a track's official
    figures in a TREC leaderboard's form, which give the groups of its runs. False for
    another file, or one that cannot be read as UTF-8 text."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            first = next((line.rstrip("\r\n") for line in f if line.strip() and not line.lstrip().startswith("#")), "")
    except (OSError, UnicodeDecodeError):
        return False
    delimiter = table_delimiter(path, first)
    return delimiter is not None and None not in table_columns(next(csv.reader([first], delimiter=delimiter)))


def read_groups(path) -> dict:
    """run -> group from a file in one of :data:`GROUPS_FORMS`:

    - a table with a header (a TREC leaderboard as published: ``run``, ``participant`` and
      the measures; tab-separated, or comma-separated with CSV quoting), the first line
      that is not blank or a ``#`` comment: :func:`table_columns` finds the run and group
      columns, any other column is ignored; a ``.csv`` or ``.tsv``, or a first line naming
      a run column, is always read so (refused when a column is missing);
    - else ``RUN GROUP`` per line (whitespace-separated; blank lines and ``#`` comments
      skipped).

    A file in neither form (a table whose header names no run or no group column, a line
    of other than two fields), a row without its run or group, or a run given two groups,
    is an InputError naming the file, the line and the accepted forms."""
    out: dict = {}

    def add(run, group, where):
        if out.get(run, group) != group:
            raise InputError(f"{where}: run {run!r} is already in group {out[run]!r}")
        out[run] = group

    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    first = next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")), None)
    if first is None:
        return out
    delimiter = table_delimiter(path, lines[first])
    rows = csv.reader(lines[first:], delimiter=delimiter) if delimiter else None
    run_at, group_at = table_columns(next(rows)) if rows is not None else (None, None)
    if run_at is not None and group_at is not None:
        for number, row in enumerate(rows, first + 2):
            if not any(cell.strip() for cell in row):
                continue
            run, group = (row[i].strip() if i < len(row) else "" for i in (run_at, group_at))
            if not run or not group:
                raise InputError(f"{path}: line {number}: expected a run and its group, found "
                                 f"{'no run' if not run else f'run {run!r} without a group'}")
            add(run, group, f"{path}: line {number}")
        return out
    if run_at is not None or str(path).lower().endswith((".csv", ".tsv")):  # a table's header, incomplete
        raise InputError(f"{path}: line {first + 1}: expected {GROUPS_FORMS}; the header names no "
                         f"{'group' if run_at is not None else 'run'} column")
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].split()
        if not text:
            continue
        if len(text) != 2:
            raise InputError(f"{path}: line {number}: expected {GROUPS_FORMS}; found {len(text)} fields")
        add(text[0], text[1], f"{path}: line {number}")
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
    expression searched in the run names (its first capturing group; a run it does not
    match, or for which it captures nothing, is an InputError naming it)."""
    import re

    from .core import groups_from_pattern  # numpy: only for a pattern

    if spec is None:
        return None
    if os.path.isfile(spec):
        groups = read_groups(spec)
        check_known_runs(groups, runs, f"--groups {spec}")
        return groups
    try:
        re.compile(spec)
    except re.error as exc:
        raise InputError(f"--groups: {spec!r} is neither a file nor a pattern: {exc}") from None
    try:
        return groups_from_pattern(runs, spec)
    except ValueError as exc:
        raise InputError(f"--groups: {exc}") from None


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
