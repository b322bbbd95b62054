"""Our ASL numbers beside the paper's (Alex, Hall & Metzler), cell by cell, as rows of
:mod:`reeval.analyses.papers.cells`.

Today: table 1 (section 4.3, the technique reanalysis of TREC DL 2020): for a track that
stands for one half of the table (``study.paper``: ``{track: passages}`` or ``documents``),
the BM25 column is the best run of the track's baseline group and the neural column the
best of its ``neural`` group (else its first other group), per measure, from
``study/techniques`` (:func:`reeval.analyses.asl.techniques.technique_table`); RRIE as the
paper's eq. 11-12. A half no track stands for gives ``data not here`` rows. Further
published cells (table 2, appendix A.1, the abstract's shares) join as more functions
returning rows, stacked by :func:`comparison_rows`.
"""

from __future__ import annotations

import math

import pandas as pd

from reeval.analyses.papers.cells import DIFFERS, EXACT, NOT_HERE, cell, decimals, frame, printed
from reeval.analyses.papers.published import published

STUDY = "asl"
#: table 1's measures as printed -> their names in the techniques table
MEASURES = {"P@20": "P_20", "ASL@g1-10": "ASL@g1-10", "MAP": "map", "ASL": "ASL"}
#: the halves of table 1 and the data each needs
HALVES = {"documents": "TREC DL 2020 document ranking runs (the paper's best BM25 and neural runs)",
          "passages": "TREC DL 2020 passage ranking runs (the paper's best BM25 and neural runs)"}


def _ours(tech: pd.DataFrame, track: str, measure: str, column: str) -> tuple[float, str]:
    """(value, run) of one cell: column "BM25" (the baseline group's best), "neural" (the
    neural group's, else the first other group's) or "RRIE" (that group's rrie, in %)."""
    t = tech[(tech.track == track) & (tech.measure == MEASURES.get(measure, measure))]
    if t.empty:
        return math.nan, ""
    baseline = t.baseline.iloc[0]
    others = [g for g in dict.fromkeys(t.group) if g != baseline]
    group = baseline if column == "BM25" else ("neural" if "neural" in others else (others[0] if others else None))
    row = t[t.group == group]
    if row.empty:
        return math.nan, ""
    r = row.iloc[0]
    if column == "RRIE":
        return 100.0 * float(r.rrie), str(r.run)
    return float(r.value), str(r.run)


def table1_rows(tech: pd.DataFrame, mapping: dict | None, levels: dict | None = None) -> list:
    """Rows for every cell of table 1 (module doc); ``levels``: track -> relevance level."""
    levels = levels or {}
    by_half = {}
    for track, half in (mapping or {}).items():
        if half not in HALVES:
            raise ValueError(f"study.paper: {track}: {half!r} is not a half of table 1; known: {sorted(HALVES)}")
        by_half.setdefault(half, []).append(track)
    rows = []
    for entry in published(STUDY)["table1"]:
        measure = entry["measure"]
        for half in HALVES:
            for column in ("BM25", "neural", "RRIE"):
                text = entry[f"{half} {column}"]
                tracks = [t for t in by_half.get(half, []) if (tech.track == t).any()]
                if not tracks:
                    rows.append(cell(STUDY, "table 1", measure, f"{half} {column}", text, NOT_HERE,
                                     f"needs {HALVES[half]}"))
                    continue
                for track in tracks:
                    rows.append(_table1_cell(tech, track, measure, half, column, text, levels.get(track)))
    return rows


def _table1_cell(tech, track, measure, half, column, text, level) -> dict:
    value, run = _ours(tech, track, measure, column)
    digits = decimals(text)
    paper_value = float(str(text).rstrip("%"))
    status = NOT_HERE if math.isnan(value) else (
        EXACT if printed(value, digits) == printed(paper_value, digits) else DIFFERS)
    note = "" if status == EXACT else (
        "no run of that group in the track" if status == NOT_HERE else
        "cause unknown" if level in (None, 1) else
        f"relevance >= {level} here; the paper's table 1 reproduces at >= 1")
    if status == DIFFERS and level in (None, 1):
        note = "the paper's best run of the group may not be among this track's runs"
    lv = f"relevance >= {level}" if level is not None else "the track's relevance level"
    method = ("RRIE from the baseline group's best (eq. 11-12)" if column == "RRIE"
              else f"best run of the group by {measure}: {run}") + f"; {lv}"
    out = cell(STUDY, "table 1", measure, f"{half} {column}", text, status, note, ours=value, digits=digits,
               track=track, method=method)
    if column == "RRIE" and out["reproduced"]:
        out["reproduced"] += "%"
    return out


def comparison_rows(techniques: pd.DataFrame, mapping: dict | None, levels: dict | None = None) -> pd.DataFrame:
    """Every published ASL cell this module compares (today table 1), as rows."""
    return frame(table1_rows(techniques, mapping, levels))
