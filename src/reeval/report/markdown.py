"""Markdown building blocks of the reports: numbers, tables, images, templates.

Every function is pure (text in, text out); the reports write the result with
:func:`reeval.io.tables.write_text`.
"""

from __future__ import annotations

import math
import re
from importlib import resources
from string import Template

import numpy as np
import pandas as pd


#: decimals of a measure's value in a table meant for reading: trec_eval prints 4 (CSV and
#: Parquet files keep full precision)
MEASURE_DECIMALS = 4


def fmt(value, digits: int = MEASURE_DECIMALS) -> str:
    """A number as report text: ``n/a`` for None, NaN and +-inf; an integer (Python or
    numpy) as it is; any other number with ``digits`` decimals, by default trec_eval's 4
    (``fmt(0.45678) == "0.4568"``, ``fmt(2.5, 0) == "2"``: Python's round-half-to-even of
    the formatted value)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    if isinstance(value, (int, np.integer)):
        return str(value)
    return f"{value:.{digits}f}"


def table(df: pd.DataFrame) -> str:
    """A DataFrame as a markdown table: a header row of the column names, a ``|---|``
    separator, one row per row with each cell as ``str(cell)`` (format the cells first).
    No trailing newline; a table with no row is the header and separator only."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
    return "\n".join(lines)


def image(alt: str, path: str) -> str:
    """An inline image: ``![alt](path)`` (``path`` relative to the markdown file)."""
    return f"![{alt}]({path})"


def counts_line(label: str, names, counts) -> str:
    """``label: name1: count1, name2: count2, ...`` (the buckets beside a histogram)."""
    return f"{label}: " + ", ".join(f"{a}: {c}" for a, c in zip(names, counts))


def fill(text: str, **values) -> str:
    """``text`` with its ``$name`` / ``${name}`` placeholders replaced by ``values``
    (:class:`string.Template`; a placeholder without a value is a KeyError, ``$$`` is a
    literal ``$``; values are inserted as they are, never read as placeholders).

    An optional block: a placeholder alone on its line and followed by an empty line
    (``"$note\\n\\n"``) whose value is ``""`` goes away with that empty line, so a section
    that has nothing to say leaves no blank lines behind.
    """
    values = {k: str(v) for k, v in values.items()}
    for key, value in values.items():
        if value == "":
            text = re.sub(rf"^\$(?:{re.escape(key)}|\{{{re.escape(key)}\}})\n\n", "", text, flags=re.MULTILINE)
    return Template(text).substitute(values)


def render(name: str, **values) -> str:
    """The report template ``reeval/report/templates/<name>`` (package data), filled by
    :func:`fill`."""
    text = resources.files("reeval.report").joinpath("templates", name).read_text(encoding="utf-8")
    return fill(text, **values)
