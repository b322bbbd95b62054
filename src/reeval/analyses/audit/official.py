"""Published official figures, read into one long table: ``run, block, measure, official``.

Two file formats (docs/audit.md), told apart by the header:

- **long**: the columns ``run, block, measure, value`` (in any order; other columns ignored),
  one figure a line;
- **wide**: the first column names the run; each other column whose cells hold numbers is
  one figure, named ``block:measure`` (trec-browser's export, as in ``meta/`` of the shared
  DL tracks) or a bare measure name, whose block is :data:`DEFAULT_BLOCK` (a leaderboard, as
  TREC-COVID's). Columns holding no number (team, report, run type) are not figures.

Tab-separated when the header line holds a tab, else comma-separated. Values are kept as
printed (text): the audit rounds reeval's value to the decimals each was printed with. An
empty cell is no figure. A cell that is not a number in a figure column, or one figure given
twice with two values, is an :class:`InputError` naming the file and the line.
"""

from __future__ import annotations

import csv
import re

import numpy as np
import pyarrow as pa

from reeval.errors import InputError

#: the columns of the official table
COLUMNS = ["run", "block", "measure", "official"]
#: the columns a long file has
LONG = ("run", "block", "measure", "value")
#: the block of a wide file's bare measure columns
DEFAULT_BLOCK = "official"
#: a printed figure: an optional minus, digits, optionally a point and decimals
NUMBER = re.compile(r"-?\d+(\.\d+)?")


def decimals_of(texts) -> np.ndarray:
    """The decimals each printed figure has (an int array): ``"0.4723"`` -> 4, ``"12"`` -> 0."""
    return np.array([len(str(t).partition(".")[2]) for t in texts], dtype=np.int64)


def read_official(path) -> pa.Table:
    """The figures of the file at ``path`` (module doc), one row each (:data:`COLUMNS`,
    strings), in file order."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the official figures: {exc}") from None
    sep = "\t" if "\t" in first else ","
    header, rows, lines = _read_rows(path, sep)
    if len(header) < 2 or not rows:
        raise InputError(f"{path}: expected a header and one line per run (a run column, then figures), "
                         "or the columns run, block, measure, value")
    columns = {name: [row[k] for row in rows] for k, name in enumerate(header)}
    figures, at = _long(columns) if set(LONG) <= set(header) else _wide(header, columns)
    figures = _checked(figures, [lines[i] for i in at], path)
    return pa.table({name: pa.array(figures[name], pa.string()) for name in COLUMNS})


def _read_rows(path, sep: str) -> tuple[list, list, list]:
    """(header, rows, the file line of each row) of a table, by the csv module: blank lines
    skipped, a short row padded with empty cells, a repeated column name ``x`` read as
    ``x.1`` (as pandas read these files); a row with more cells than the header, or a file
    that is not UTF-8, is an :class:`InputError` naming the file (and the line)."""
    kind = "tab" if sep == "\t" else "comma"
    rows, lines = [], []
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f, delimiter=sep)
            header = next(reader, [])
            for row in reader:
                if not row:
                    continue
                if len(row) > len(header):
                    raise InputError(f"{path}, line {reader.line_num}: not a {kind}-separated table: "
                                     f"{len(row)} cells where the header names {len(header)}")
                rows.append(row + [""] * (len(header) - len(row)))
                lines.append(reader.line_num)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: not a {kind}-separated table: {exc}") from None
    return _unique_names(header), rows, lines


def _unique_names(header: list) -> list:
    """Column names made unique: a repeated ``x`` becomes ``x.1``, ``x.2`` ..."""
    seen: dict = {}
    out = []
    for name in header:
        count = seen.get(name, 0)
        seen[name] = count + 1
        out.append(name if count == 0 else f"{name}.{count}")
    return out


def _long(columns: dict) -> tuple[dict, list]:
    """The figures of a long table (stripped; an empty value is no figure), and the row of each."""
    at = [i for i, value in enumerate(columns["value"]) if value.strip() != ""]
    figures = {name: [columns[source][i].strip() for i in at]
               for name, source in zip(COLUMNS, LONG)}
    return figures, at


def _wide(header: list, columns: dict) -> tuple[dict, list]:
    """The figures of a wide table, and the row of each: its number columns stacked (column
    by column, each in file order), the run from the first column."""
    cells = {c: [v.strip() for v in columns[c]] for c in header}
    runs = cells[header[0]]
    out: dict = {name: [] for name in COLUMNS}
    at = []
    for column in header[1:]:
        if not any(NUMBER.fullmatch(v) for v in cells[column]):
            continue
        block, colon, measure = column.partition(":")
        block, measure = (block.strip(), measure.strip()) if colon else (DEFAULT_BLOCK, block.strip())
        for row, value in enumerate(cells[column]):
            if value != "":
                at.append(row)
                for name, text in zip(COLUMNS, (runs[row], block, measure, value)):
                    out[name].append(text)
    return out, at


def _checked(figures: dict, lines: list, path) -> dict:
    """``figures`` (lists; ``lines``: the file line of each) with every figure a number,
    every (run, block, measure) once (a figure given twice with one value is kept once)."""
    for run, measure, value, line in zip(figures["run"], figures["measure"], figures["official"], lines):
        if not NUMBER.fullmatch(value):
            raise InputError(f"{path}, line {line}: expected a number for {measure} of run {run}, not {value!r}")
    for run, line in zip(figures["run"], lines):
        if run == "":
            raise InputError(f"{path}, line {line}: a figure without a run")
    first: dict = {}
    twice = set()
    for i, key in enumerate(zip(figures["run"], figures["block"], figures["measure"])):
        if key in first and figures["official"][first[key]] != figures["official"][i]:
            twice.add(key)
        first.setdefault(key, i)
    if twice:
        run, block, measure = min(twice)
        raise InputError(f"{path}: {measure} of run {run} (block {block}) is given twice with two values")
    keep = sorted(first.values())
    return {name: [values[i] for i in keep] for name, values in figures.items()}
