"""Our lexiprecision tables beside the paper's (Diaz, tables 1-4), cell by cell.

The paper's numbers are data (``reeval/analyses/papers/published.yaml``, key ``lexiprecision``);
which of our tracks stands for which of its benchmark rows is configuration
(``lexiprecision.paper``: ``{track: label}`` or ``{track: {benchmark: label, tables:
[2, 3]}}``, the label as the tables print it, e.g. ``deep-pass (2019)``).
"""

from __future__ import annotations

import math

import pandas as pd

from reeval.report.escape import markdown_text
from reeval.report.markdown import fmt, table
from reeval.analyses.papers.published import published

#: Columns of ``paper_comparison.csv``: ``setting`` the relevance level or correction ours
#: was computed with; ``other_setting`` and ``other_ours`` the other choice (a level the
#: paper does not state, tables 2-3; Holm beside table 4b's stated Bonferroni) and ours
#: under it (NaN when not computed).
COLUMNS = ("track", "benchmark", "table", "column", "paper", "ours", "ours_low", "ours_high", "match",
           "setting", "other_setting", "other_ours")
#: the paired tests' correction table 4b states ("Paired test with Bonferroni correction")
STATED_CORRECTION = "bonferroni"
#: A Monte Carlo cell (the randomised HSD of table 4a) matches when the paper's value is
#: within this many percentage points of ours and of the range [ours_low, ours_high].
MONTE_CARLO_TOLERANCE = 1.5
#: Paper table -> the sub-tables it holds (table 4: (a) Tukey HSD, (b) paired tests).
SUBTABLES = {1: ("table1",), 2: ("table2",), 3: ("table3",), 4: ("table4a", "table4b")}
#: Sub-table -> (our table, our column or (test, measure)) per printed column, in order.
OURS = {
    "table1": ("profile", ["requests", "runs", "rel_per_request", "docs_per_request"]),
    "table2": ("table2_agreement", ["sgnLP_suffix_agree", "dRR2_agree"]),
    "table3": ("table3_ties", ["LP_ties", "RR_ties"]),
    "table4a": ("table4_discriminative_power", [("tukey_hsd", m) for m in ("rrLP", "sgnLP", "RR")]),
    "table4b": ("table4_discriminative_power", [("paired", m) for m in ("rrLP", "sgnLP", "RR")]),
}


def paper_tracks(mapping: dict | None) -> dict:
    """``{track: (benchmark, [table numbers])}`` from the ``lexiprecision.paper`` option;
    ValueError for a label the paper does not print or a table it does not have."""
    known = published("lexiprecision")["benchmarks"]
    out = {}
    for track, spec in (mapping or {}).items():
        label, tables = (spec, sorted(SUBTABLES)) if isinstance(spec, str) else \
            (spec.get("benchmark"), sorted(spec.get("tables") or SUBTABLES))
        if label not in known:
            raise ValueError(f"lexiprecision.paper: {track}: no benchmark {label!r} in the paper; "
                             f"known: {sorted(known)}")
        bad = [t for t in tables if t not in SUBTABLES]
        if bad:
            raise ValueError(f"lexiprecision.paper: {track}: tables {bad} unknown; the paper has {sorted(SUBTABLES)}")
        out[track] = (label, tables)
    return out


def _ours(tables: dict, track: str, sub: str) -> list:
    """Our cells of a sub-table: (value, low, high, monte_carlo, setting, other_setting,
    other_value) per printed column; low = high = value except for table 4's randomised HSD
    (its range over seeds). Tables 1-3: the other relevance level where computed; table 4b:
    the paper's stated Bonferroni where computed, Holm as the other."""
    name, keys = OURS[sub]
    df = tables[name][tables[name].track == track]
    if name != "table4_discriminative_power":
        level = f"relevance >= {int(df.relevance_level.iloc[0])}" if len(df) else ""
        other_level = df["other_relevance_level"].iloc[0] if len(df) and "other_relevance_level" in df else math.nan
        other = f"relevance >= {int(other_level)}" if not pd.isna(other_level) else ""
        out = []
        for k in keys:
            v = float(df[k].iloc[0]) if len(df) else math.nan
            o = float(df[f"other_{k}"].iloc[0]) if other and f"other_{k}" in df else math.nan
            out.append((v, v, v, False, level, other, o))
        return out
    out = []
    for test, measure in keys:
        rows = df[(df.test == test) & (df.measure == measure)]
        if rows.empty:
            out.append((math.nan, math.nan, math.nan, False, "", "", math.nan))
            continue
        row, other = rows.iloc[0], None
        if test == "paired":
            stated = rows[rows.procedure.str.lower() == STATED_CORRECTION]
            if len(stated):
                row = stated.iloc[0]
            rest = rows[rows.procedure.str.lower() != str(row.procedure).lower()]
            other = rest.iloc[0] if len(rest) else None
        out.append((float(row.percent_significant), float(row.percent_low), float(row.percent_high),
                    bool(row.resamples > 0), str(row.procedure),
                    str(other.procedure) if other is not None else "",
                    float(other.percent_significant) if other is not None else math.nan))
    return out


def _match(paper: float, ours: float, low: float, high: float, monte_carlo: bool) -> bool:
    """Equal at the paper's two printed decimals (integers: equal). A Monte Carlo cell:
    within :data:`MONTE_CARLO_TOLERANCE` points of ``ours`` and of [low, high]."""
    if math.isnan(ours):
        return False
    if not monte_carlo:
        return f"{ours:.2f}" == f"{paper:.2f}"
    tol = MONTE_CARLO_TOLERANCE
    return abs(paper - ours) <= tol and low - tol <= paper <= high + tol


def comparison_table(tables: dict, mapping: dict | None) -> pd.DataFrame:
    """One row per cell of the paper's tables for each mapped track that has our tables:
    track, benchmark, table (1, 2, 3, 4a, 4b), column (as printed), paper, ours, ours_low,
    ours_high (the range over seeds of a Monte Carlo cell, else ours), match (:func:`_match`)."""
    ref = published("lexiprecision")
    have = set(tables["profile"].track)
    rows = []
    for track, (label, numbers) in paper_tracks(mapping).items():
        if track not in have:
            continue
        for sub in (s for n in numbers for s in SUBTABLES[n]):
            for column, paper, (ours, low, high, mc, setting, other, other_ours) in zip(
                    ref["columns"][sub], ref["benchmarks"][label][sub], _ours(tables, track, sub)):
                rows.append({"track": track, "benchmark": label, "table": sub.removeprefix("table"),
                             "column": column, "paper": float(paper), "ours": ours, "ours_low": low,
                             "ours_high": high, "match": _match(float(paper), ours, low, high, mc),
                             "setting": setting, "other_setting": other, "other_ours": other_ours})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _settings(tables: dict, track: str) -> str:
    """How our numbers for a track were computed: levels per table, table 4's procedures."""
    lv = {n: tables[n][tables[n].track == track].relevance_level
          for n in ("profile", "table2_agreement", "table3_ties", "table4_discriminative_power")}
    lv = {n: (int(v.iloc[0]) if len(v) else "n/a") for n, v in lv.items()}
    t4 = tables["table4_discriminative_power"]
    t4 = t4[t4.track == track]
    proc = dict(t4.groupby("test").procedure.first())
    hsd = proc.get("tukey_hsd", "n/a")
    mc = t4[(t4.test == "tukey_hsd") & (t4.resamples > 0)]
    if len(mc):
        hsd += f" ({int(mc.resamples.iloc[0])} permutations, range over {int(mc.seeds.iloc[0])} seeds)"
    return (f"relevance >= {lv['profile']} (table 1), {lv['table2_agreement']} (2), "
            f"{lv['table3_ties']} (3), {lv['table4_discriminative_power']} (4); Tukey HSD "
            f"{hsd}, paired tests {proc.get('paired', 'n/a')}-adjusted over all run pairs")


def _range(low: float, high: float) -> str:
    return "" if low == high or math.isnan(low) else f"{fmt(float(low), 2)} to {fmt(float(high), 2)}"


def comparison_markdown(tables: dict, rows: pd.DataFrame, empty_note: str) -> str:
    """Markdown of :func:`comparison_table`: per track its settings, the count of its cells
    by status, then one table of cells (paper, ours, range over seeds, status and note, as
    :func:`reeval.analyses.papers.comparison.lexiprecision_rows` gives them: the statuses of
    ``papers/paper_comparison.md``, so a cell matched only by the tolerance is flagged and a
    known difference says why)."""
    from reeval.analyses.papers.cells import STATUSES
    from reeval.analyses.papers.comparison import lexiprecision_rows

    src = published("lexiprecision")["source"]
    lines = ["# Lexicographic precision: our numbers beside the paper's", "", f"Paper: {src}.",
             "Tracks are mapped to the paper's benchmark rows by `lexiprecision.paper` in the "
             "config. The data decide first: a track with other runs or requests than the benchmark "
             "gives *data not here*, ours beside. Then a cell is *exact* when the paper's stated method "
             "prints the paper's value (two decimals), *reproduced by another method* when only another "
             "does (table 4b: Holm beside the stated Bonferroni); a Monte Carlo "
             "cell (table 4a under the randomised HSD, ours from the first seed) is *within Monte "
             "Carlo error* when the paper's value lies in our range over seeds, and *within "
             f"tolerance* (flagged) when it lies only within {fmt(MONTE_CARLO_TOLERANCE, 1)} points; "
             "*differs* says why where the cause is known. The three papers' cells together: "
             "`papers/paper_comparison.md`.", ""]
    if tables["profile"].empty:
        lines += [empty_note, ""]
    if rows.empty:
        lines.append("No configured track is mapped to a benchmark of the paper "
                     "(`lexiprecision: {paper: {<track>: \"deep-pass (2019)\"}}`).")
        return "\n".join(lines) + "\n"
    cells = lexiprecision_rows(rows, tables)
    cells = cells[cells.track != ""].assign(table=lambda d: d["item"].str.removeprefix("table "))
    status = cells.set_index(["track", "table", "column"])[["status", "note"]]
    for (track, label), g in rows.groupby(["track", "benchmark"], sort=False):
        s = status.reindex(pd.MultiIndex.from_arrays([g.track, g.table.astype(str), g.column]))
        counts = s.status.value_counts()
        said = ", ".join(f"{int(counts[k])} {k}" for k in STATUSES if k in counts)
        lines += [f"## {markdown_text(track)} as {markdown_text(label)}", "", _settings(tables, track), "",
                  f"{len(g)} cells: {said}.", "",
                  table(pd.DataFrame({"table": g.table, "column": g.column,
                                      "paper": [fmt(float(v), 2) for v in g.paper],
                                      "ours": [fmt(float(v), 2) for v in g.ours],
                                      "range": [_range(lo, hi) for lo, hi in zip(g.ours_low, g.ours_high)],
                                      "status": s.status.fillna("").to_numpy(),
                                      "note": s.note.fillna("").to_numpy()})), ""]
    return "\n".join(lines)
