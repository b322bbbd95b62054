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

from reeval.report.escape import markdown_text


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


#: decimals of a p-value in a table meant for reading; below 10**-P_DECIMALS it is written
#: as a floor, "< 0.001" (CSV and tab-separated outputs keep full precision)
P_DECIMALS = 3


def fmt_p(p, decimals: int = P_DECIMALS) -> str:
    """A p-value as report text, in fixed notation with a floor: ``n/a`` for None and NaN;
    below ``10**-decimals`` the floor ``< 0.001`` (for 3 decimals); else ``decimals``
    decimals (``fmt_p(3.518e-05) == "< 0.001"``, ``fmt_p(0.0456) == "0.046"``,
    ``fmt_p(0.001) == "0.001"``, ``fmt_p(1.0) == "1.000"``). Never scientific notation."""
    if p is None or not math.isfinite(p):
        return "n/a"
    floor = 10.0 ** -decimals
    return f"< {floor:.{decimals}f}" if p < floor else f"{p:.{decimals}f}"


def table(df: pd.DataFrame, markup=()) -> str:
    """A DataFrame as a markdown table: a header row of the column names, a ``|---|``
    separator, one row per row with each cell as ``str(cell)`` (format the cells first).
    Every header and cell is escaped (:func:`reeval.report.escape.markdown_text`: a name
    holding ``|``, a newline, ``<script>`` or a backtick shows as itself and keeps the row's
    cells under their headers), except the cells of the columns named in ``markup``, which
    hold markdown the caller wrote (and escaped its names in). No trailing newline; a
    table with no row is the header and separator only."""
    cols = list(df.columns)
    raw = [c in set(markup) for c in cols]
    lines = ["| " + " | ".join(markdown_text(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(x) if r else markdown_text(x) for x, r in zip(row, raw)) + " |")
    return "\n".join(lines)


def image(alt: str, path: str) -> str:
    """An inline image: ``![alt](path)`` (``path`` relative to the markdown file), ``alt``
    escaped (:func:`reeval.report.escape.markdown_text`), ``path`` percent-encoded where it
    holds a space, a parenthesis or a character a link cannot hold."""
    from urllib.parse import quote

    return f"![{markdown_text(alt)}]({quote(str(path), safe='/._-+~,=@')})"


def counts_line(label: str, names, counts) -> str:
    """``label: name1: count1, name2: count2, ...`` (the buckets beside a histogram), every
    part escaped for markdown (:func:`reeval.report.escape.markdown_text`)."""
    return f"{markdown_text(label)}: " + ", ".join(f"{markdown_text(a)}: {c}" for a, c in zip(names, counts))


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
