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

import re

import numpy as np
import pandas as pd

from reeval.errors import InputError

#: the columns of the official table
COLUMNS = ["run", "block", "measure", "official"]
#: the columns a long file has
LONG = ("run", "block", "measure", "value")
#: the block of a wide file's bare measure columns
DEFAULT_BLOCK = "official"
#: a printed figure: an optional minus, digits, optionally a point and decimals
NUMBER = re.compile(r"-?\d+(\.\d+)?")


def decimals_of(texts: pd.Series) -> np.ndarray:
    """The decimals each printed figure has (an int array): ``"0.4723"`` -> 4, ``"12"`` -> 0."""
    return np.array([len(str(t).partition(".")[2]) for t in texts], dtype=np.int64)


def read_official(path) -> pd.DataFrame:
    """The figures of the file at ``path`` (module doc), one row each, in file order."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the official figures: {exc}") from None
    sep = "\t" if "\t" in first else ","
    try:
        table = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, encoding="utf-8")
    except (ValueError, pd.errors.ParserError) as exc:
        raise InputError(f"{path}: not a {'tab' if sep == chr(9) else 'comma'}-separated table: {exc}") from None
    if len(table.columns) < 2 or table.empty:
        raise InputError(f"{path}: expected a header and one line per run (a run column, then figures), "
                         "or the columns run, block, measure, value")
    frame = _long(table) if set(LONG) <= set(table.columns) else _wide(table)
    return _checked(frame, path).reset_index(drop=True)


def _long(table: pd.DataFrame) -> pd.DataFrame:
    """The figures of a long table (its file line is its index + 2)."""
    frame = table[list(LONG)].rename(columns={"value": "official"})
    return frame[frame["official"].str.strip() != ""].apply(lambda c: c.str.strip())


def _wide(table: pd.DataFrame) -> pd.DataFrame:
    """The figures of a wide table: its number columns stacked (column by column, each in file
    order; the index is the table row), the run from the first column. Plain Python over the
    cells: a leaderboard is a few thousand cells, where pandas' melt and string methods cost
    more than the reading."""
    cells = {c: [v.strip() if isinstance(v, str) else "" for v in table[c].tolist()] for c in table.columns}
    runs = cells[table.columns[0]]
    out = {"run": [], "block": [], "measure": [], "official": []}
    index = []
    for column in table.columns[1:]:
        if not any(NUMBER.fullmatch(v) for v in cells[column]):
            continue
        block, colon, measure = str(column).partition(":")
        block, measure = (block.strip(), measure.strip()) if colon else (DEFAULT_BLOCK, block.strip())
        for row, value in enumerate(cells[column]):
            if value != "":
                index.append(row)
                for name, text in zip(out, (runs[row], block, measure, value)):
                    out[name].append(text)
    return pd.DataFrame({name: pd.Series(texts, dtype="str") for name, texts in out.items()}).set_axis(
        pd.Index(index, dtype=np.int64))


def _checked(frame: pd.DataFrame, path) -> pd.DataFrame:
    """``frame`` with every figure a number, every (run, block, measure) once (its index:
    the table row; a figure given twice with one value is kept once)."""
    bad = ~frame["official"].str.fullmatch(NUMBER.pattern)
    if bad.any():
        row = frame[bad].iloc[0]
        raise InputError(f"{path}, line {frame.index[bad][0] + 2}: expected a number for {row['measure']} "
                         f"of run {row['run']}, not {row['official']!r}")
    if (frame["run"] == "").any():
        raise InputError(f"{path}, line {frame.index[frame['run'] == ''][0] + 2}: a figure without a run")
    key = ["run", "block", "measure"]
    repeated = frame.duplicated(key, keep=False)
    if repeated.any():
        twice = frame[repeated].groupby(key)["official"].nunique()
        if (twice > 1).any():
            run, block, measure = twice[twice > 1].index[0]
            raise InputError(f"{path}: {measure} of run {run} (block {block}) is given twice with two values")
    return frame.drop_duplicates(key)
