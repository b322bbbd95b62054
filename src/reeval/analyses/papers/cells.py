"""One published cell beside ours: the row every study's paper comparison is made of.

Each study turns its own tables into these rows (``reeval.analyses.rareness.paper``,
``reeval.analyses.asl.paper``, the lexiprecision adapter in :mod:`.comparison`); the one
paper comparison (:mod:`.comparison`) stacks them. A row is one cell a paper prints:

- ``study`` (``asl``, ``lexiprecision``, ``rareness``: the key of ``published.yaml``),
  ``item`` (``table 2``, ``table 4a`` ...), ``row`` and ``column`` as the paper labels them;
- ``published``: the cell as printed; ``reproduced``: ours at the paper's precision
  (empty when there is no number of ours); ``ours_value``: ours at full precision,
  ``ours_low``/``ours_high``: its range over seeds for a Monte Carlo cell (else ours);
- ``track``: the track standing for the paper's data (empty when none does);
- ``method``: how ours was computed (test, correction, relevance level, seed, resamples);
- ``other_setting`` and ``other_value``: the other method that reproduces the cell
  (``reproduced by another method``), or the other choice of a setting the paper does not
  state (e.g. ``relevance >= 2``), and ours under it as the paper prints the cell
  (``not computed`` where this run does not compute it);
- ``status``: one of :data:`STATUSES`; ``note``: the reason of ``differs``, the interval of
  ``within Monte Carlo error``, the data needed for ``data not here``, a different task;
- ``needs`` and ``to_add``: for a ``data not here`` cell, the dataset it needs and what to add
  to the configuration for it (the comparison groups these cells by ``needs``).

A status is decided before the value is compared (../shared/DESIGN.md, "Paper
comparisons"), a ladder from the strongest (an ACM-badge-like order):

1. the data: the runs, topics and qrels the cell needs all here, else ``data not here``
   (ours beside where the data here give one);
2. ``exact``: the paper's stated method, at the settings it states, prints its value;
3. ``exact at an inferred setting``: a setting the paper does not state (a relevance
   level, which Tukey HSD) was inferred, and at it ours prints the paper's value; the
   method column names the inferred setting and why, ``other_setting``/``other_value``
   the other choice and ours under it;
4. ``reproduced by another method``: the stated (or inferred) method does not print the
   paper's value, another method or setting does (both values in the row);
5. ``within Monte Carlo error``: a seeded cell whose range over seeds holds the value;
6. ``within tolerance`` (flagged) and ``differs`` (with the reason, or "cause unknown").
"""

from __future__ import annotations

import math

import pandas as pd

#: the columns of every paper comparison table, in order
COLUMNS = ("study", "item", "row", "column", "published", "reproduced", "ours_value", "ours_low", "ours_high",
           "track", "method", "other_setting", "other_value", "status", "note", "needs", "to_add")
EXACT, INFERRED, ANOTHER_METHOD, MONTE_CARLO, TOLERANCE, DIFFERS, NOT_HERE = (
    "exact", "exact at an inferred setting", "reproduced by another method", "within Monte Carlo error",
    "within tolerance", "differs", "data not here")
#: every status a cell can have, strongest first (the ladder of the module doc), in the
#: order the summary lines count them
STATUSES = (EXACT, INFERRED, ANOTHER_METHOD, MONTE_CARLO, TOLERANCE, DIFFERS, NOT_HERE)
#: what ``other_value`` says when this run does not compute the other choice
NOT_COMPUTED = "not computed"
#: the statuses of a cell whose data are here (all but :data:`NOT_HERE`)
DATA_HERE = STATUSES[:-1]


def cell(study: str, item: str, row: str, column: str, published, status: str, note: str = "",
         ours: float = math.nan, low: float | None = None, high: float | None = None, digits: int | None = None,
         track: str = "", method: str = "", other_setting: str = "", other_value: str = "", needs: str = "",
         to_add: str = "") -> dict:
    """One row of :data:`COLUMNS`. ``reproduced`` is ``ours`` with ``digits`` decimals (the
    paper's; None: as an integer when whole, else 4 decimals), empty when ours is NaN;
    ``low``/``high`` default to ``ours``. ValueError for a status not in :data:`STATUSES`,
    and for ``reproduced by another method`` without the other method and its value."""
    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of {STATUSES}")
    if status == ANOTHER_METHOD and not (other_setting and other_value):
        raise ValueError(f"status {status!r} needs the other method and its value")
    ours = float(ours)
    return {"study": study, "item": item, "row": str(row), "column": str(column), "published": str(published),
            "reproduced": printed(ours, digits), "ours_value": ours,
            "ours_low": ours if low is None else float(low), "ours_high": ours if high is None else float(high),
            "track": track, "method": method, "other_setting": other_setting, "other_value": other_value,
            "status": status, "note": note, "needs": needs, "to_add": to_add}


def printed(value: float, digits: int | None = None) -> str:
    """``value`` as the paper prints its cell: ``digits`` decimals, an integer when
    ``digits`` is 0 or (None) when whole; "" for NaN."""
    if value is None or math.isnan(value):
        return ""
    if digits is None:
        return f"{value:.0f}" if float(value).is_integer() else f"{value:.4f}"
    return f"{value:.{digits}f}"


def decimals(text: str) -> int:
    """The decimals a printed cell shows: ``0.071`` -> 3, ``598`` -> 0."""
    text = str(text).strip().rstrip("%")
    return len(text.split(".")[1]) if "." in text else 0


def monte_carlo_status(published: float, ours: float, low: float, high: float, digits: int) -> str:
    """A cell from seeded trials: ``exact`` when ours prints as the paper's value,
    ``within Monte Carlo error`` when the paper's value lies in ours' range over seeds
    (widened by half a unit of the paper's last printed digit), else ``differs``."""
    if math.isnan(ours):
        return NOT_HERE
    if printed(ours, digits) == printed(published, digits):
        return EXACT
    half = 0.5 * 10 ** -digits
    return MONTE_CARLO if low - half <= published <= high + half else DIFFERS


def frame(rows) -> pd.DataFrame:
    """Rows of :func:`cell` (a list, or a DataFrame from an older writer) as a DataFrame with
    :data:`COLUMNS` (also when empty); a column the rows lack is empty text."""
    df = pd.DataFrame(rows)
    for col in COLUMNS:
        if col not in df.columns:
            df[col] = ""
    return df[list(COLUMNS)]
