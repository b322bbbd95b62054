"""One comparison of the three papers: every published cell beside ours, with a status.

``<results>/papers/paper_comparison.csv`` and ``.md`` (rule ``papers``) stack the rows
(:mod:`.cells`) each study gives:

- rareness: ``<results>/rareness/paper_comparison.csv``, already rows
  (:func:`reeval.analyses.rareness.paper.comparison_rows`);
- lexiprecision: its cell-by-cell table (``<results>/lexiprecision/paper_comparison.csv``,
  :func:`reeval.analyses.lexiprecision.paper.comparison_table`) turned into rows by
  :func:`lexiprecision_rows`, with the method of table 4 (test, correction, permutations,
  seeds) from ``table4_discriminative_power``; every benchmark no track stands for gives
  ``data not here`` rows;
- ASL: the study's own cell-by-cell table (``<results>/study/paper_comparison.csv``,
  :func:`reeval.analyses.asl.paper.paper_rows`: tables 1-2, appendix A.1, the headline
  claims) turned into rows by :func:`asl_rows`.

Statuses (:data:`reeval.analyses.papers.cells.STATUSES`): ``exact`` (ours prints as the
paper's cell), ``within Monte Carlo error`` (a seeded cell whose range over seeds holds the
paper's value), ``within tolerance`` (matched only by lexiprecision's 1.5-point tolerance:
flagged), ``differs`` (with the known reason, or "cause unknown"), ``data not here``
(which data would be needed). The markdown opens with one summary line per status.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from reeval.report.escape import markdown_text as escape
from reeval.report.markdown import table

from .cells import DIFFERS, EXACT, MONTE_CARLO, NOT_HERE, STATUSES, TOLERANCE, cell, decimals, frame, printed
from .published import published

#: the files of rule ``papers`` under ``<results>/papers/``
FILES = ("paper_comparison.csv", "paper_comparison.md")
#: differences we know and cannot remove, by (study, benchmark, table, column): the reason
KNOWN_DIFFERENCES = {
    ("lexiprecision", "deep-pass (2019)", "4a", "sgnLP"): "sgnLP 115 vs 123 pairs: cause unknown",
}
#: the paper's table 4b says Bonferroni; its cells reproduce with Holm's step-down correction
BONFERRONI_AS_HOLM = "paper's Bonferroni reproduces as Holm"
LEXI_MONTE_CARLO_TOLERANCE = 1.5


def _lexi_method(power: pd.DataFrame, levels: dict, track: str, table_: str, column: str) -> tuple[str, dict]:
    """(method text, table-4 row as a dict or {}) of one lexiprecision cell of ``track``."""
    level = levels.get((track, table_[0]))
    lv = f"relevance >= {level}" if level is not None else ""
    if not table_.startswith("4"):
        return lv, {}
    test = "tukey_hsd" if table_ == "4a" else "paired"
    p = power[(power.track == track) & (power.test == test) & (power.measure == column)]
    if p.empty:
        return lv, {}
    r = p.iloc[0].to_dict()
    text = ("Tukey HSD" if test == "tukey_hsd" else "paired test") + f", {r['procedure']}"
    if r.get("resamples", 0) and r["resamples"] > 0:
        text += f", {int(r['resamples'])} permutations, {int(r['seeds'])} seeds"
    return f"{text}; {lv}", r


def _lexi_printed(value) -> str:
    """A lexiprecision cell as the paper prints it: counts whole, percentages and ratios
    with 2 decimals."""
    return str(value) if isinstance(value, int) else f"{float(value):.2f}"


def _lexi_status(row, method_row: dict, data_note: str, digits: int = 2) -> tuple[str, str]:
    """Status and note of one lexiprecision cell (module doc), compared at ``digits``."""
    paper, ours, low, high = float(row.paper), float(row.ours), float(row.ours_low), float(row.ours_high)
    if math.isnan(ours):
        return NOT_HERE, "not computed for this track"
    known = KNOWN_DIFFERENCES.get(("lexiprecision", row.benchmark, str(row.table), row.column))
    procedure = str(method_row.get("procedure", ""))
    holm_note = BONFERRONI_AS_HOLM if str(row.table) == "4b" and procedure.lower() == "holm" else ""
    if printed(ours, digits) == printed(paper, digits):
        return EXACT, _join(holm_note and f"{holm_note}: ours with Holm", data_note)
    monte_carlo = bool(method_row.get("resamples", 0) and method_row["resamples"] > 0)
    interval = f"ours {low:.2f}-{high:.2f} over {int(method_row.get('seeds', 0) or 0)} seeds"
    if monte_carlo and low - 0.005 <= paper <= high + 0.005:
        return MONTE_CARLO, _join(interval, data_note)
    if known:
        return DIFFERS, _join(known, interval if monte_carlo else "", data_note)
    if str(row.table) == "4b" and procedure.lower() == "bonferroni":
        return DIFFERS, _join(f"{BONFERRONI_AS_HOLM} (set the correction to holm)", data_note)
    tol = LEXI_MONTE_CARLO_TOLERANCE
    if monte_carlo and abs(paper - ours) <= tol and low - tol <= paper <= high + tol:
        return TOLERANCE, _join(f"flagged: within {tol:g} points, outside the interval ({interval})", data_note)
    return DIFFERS, _join(data_note or "cause unknown")


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _lexi_levels(tables: dict) -> dict:
    """(track, table number as text) -> relevance level, from the lexiprecision tables."""
    out = {}
    for number, name in (("1", "profile"), ("2", "table2_agreement"), ("3", "table3_ties"),
                         ("4", "table4_discriminative_power")):
        df = tables.get(name)
        if df is not None and len(df):
            for track, level in df.groupby("track").relevance_level.first().items():
                out[(track, number)] = int(level)
    return out


def lexiprecision_rows(cells: pd.DataFrame, tables: dict) -> pd.DataFrame:
    """Rows for every cell of the lexiprecision paper's tables 1-4: ours where a track
    stands for the benchmark (``cells``: :func:`reeval.analyses.lexiprecision.paper.comparison_table`,
    ``tables``: its stacked tables, ``profile`` ... ``table4_discriminative_power``), else
    ``data not here``. A track with fewer runs or requests than the benchmark says so."""
    ref = published("lexiprecision")
    power = tables.get("table4_discriminative_power", pd.DataFrame(columns=["track", "test", "measure"]))
    levels = _lexi_levels(tables)
    rows, done = [], set(cells.benchmark) if len(cells) else set()
    for benchmark, values in ref["benchmarks"].items():
        if benchmark in done:
            continue
        need = f"needs {benchmark} ({values['table1'][1]} runs, {values['table1'][0]} requests)"
        for sub, cols in ref["columns"].items():
            for column, v in zip(cols, values[sub]):
                rows.append(cell("lexiprecision", f"table {sub.removeprefix('table')}", benchmark, column,
                                 _lexi_printed(v), NOT_HERE, need))
    for track, g in cells.groupby("track", sort=False):
        t1 = g[g.table.astype(str) == "1"].set_index("column")
        data = []
        for what in ("runs", "requests"):
            if what in t1.index and not math.isnan(float(t1.ours[what])) and float(t1.ours[what]) != float(t1.paper[what]):
                data.append(f"{int(float(t1.ours[what]))} {what} here, {int(float(t1.paper[what]))} in the paper")
        data_note = "; ".join(data)
        for r in g.itertuples(index=False):
            table_ = str(r.table)
            method, method_row = _lexi_method(power, levels, track, table_, r.column)
            level = levels.get((track, table_[0]))
            level_note = (f"relevance >= {level} here; the paper's tables 1-2 count grade > 0"
                          if table_ in ("1", "2") and level not in (None, 1) else "")
            text = _lexi_printed(ref["benchmarks"][r.benchmark][f"table{table_}"][
                list(ref["columns"][f"table{table_}"]).index(r.column)])
            status, note = _lexi_status(r, method_row, _join(level_note, data_note), decimals(text))
            rows.append(cell("lexiprecision", f"table {table_}", r.benchmark, r.column, text,
                             status, note, ours=float(r.ours), low=float(r.ours_low), high=float(r.ours_high),
                             digits=decimals(text), track=track, method=method))
    return frame(rows)


def combine(*parts: pd.DataFrame) -> pd.DataFrame:
    """The studies' rows in one table (asl, lexiprecision, rareness order kept as given);
    ValueError for a status outside :data:`STATUSES`."""
    out = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else frame([])
    bad = sorted(set(out.status) - set(STATUSES))
    if bad:
        raise ValueError(f"unknown statuses {bad}; known: {STATUSES}")
    return out[list(frame([]).columns)]


def summary_lines(rows: pd.DataFrame) -> list[str]:
    """One line per status with its count, over all papers and per paper."""
    lines = [f"{len(rows)} published cells: " + ", ".join(f"{int((rows.status == s).sum())} {s}" for s in STATUSES)]
    for study, g in rows.groupby("study", sort=False):
        lines.append(f"- {study}: " + ", ".join(f"{int((g.status == s).sum())} {s}" for s in STATUSES
                                                 if (g.status == s).any()))
    return lines


def comparison_markdown(rows: pd.DataFrame) -> str:
    """``paper_comparison.md``: the summary lines, then per paper and item a table of its
    cells (row, column, paper, ours, status, note, track, method); names escaped."""
    counts = summary_lines(rows)
    lines = ["# The three papers, cell by cell", "", counts[0], "", *counts[1:], "",
             "Statuses: *exact* (ours prints as the paper's cell), *within Monte Carlo error* (a seeded "
             "cell: the paper's value lies in our range over seeds), *within tolerance* (flagged: only "
             "lexiprecision's 1.5-point tolerance matches), *differs* (with the known reason), *data not "
             "here* (the data it needs). Each row's method says how ours was computed.", ""]
    for (study, item), g in rows.groupby(["study", "item"], sort=False):
        lines += [f"## {escape(study)}: {escape(item)}", ""]
        shown = pd.DataFrame({"row": g.row, "column": g.column, "paper": g.published,
                              "ours": g.reproduced.fillna(""), "status": g.status, "note": g.note.fillna(""),
                              "track": g.track.fillna(""), "method": g.method.fillna("")})  # table() escapes
        lines += [table(shown), ""]
    return "\n".join(lines)


_TEXT = ("study", "item", "row", "column", "published", "reproduced", "track", "method", "status", "note",
         "benchmark", "table")


def _read_csv(path: Path) -> pd.DataFrame:
    """A comparison CSV as written: text columns as text ("" for empty), numbers as floats."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    for col in df.columns:
        if col not in _TEXT:
            df[col] = pd.to_numeric(df[col].replace("", math.nan), errors="coerce")
    return df


def asl_rows(study_rows: pd.DataFrame, mapping: dict | None = None) -> pd.DataFrame:
    """The ASL study's cells (:func:`reeval.analyses.asl.paper.paper_rows`: item, row,
    column, published, ours, method, status, note) as rows of :mod:`.cells`: ``reproduced``
    is ours as the paper prints the cell (its decimals; a share such as RRIE, ``25%``, in
    percent of ours), only for table 1, whose cells are single numbers (the other items'
    notes say ours); ``track`` is the track ``mapping`` (``study.paper``: half -> track)
    names for the cell's half of table 1."""
    mapping = mapping or {}
    rows = []
    for r in study_rows.itertuples(index=False):
        ours, published_text = float(r.ours), str(r.published)
        digits, share = decimals(published_text), published_text.endswith("%")
        value = 100 * ours if share else ours
        half = str(r.column).split(" ")[0]
        track = (mapping.get(half) or "") if r.item == "table 1" else ""
        out = cell("asl", r.item, r.row, r.column, published_text, r.status, "" if pd.isna(r.note) else str(r.note),
                   ours=value if r.item == "table 1" else math.nan, digits=digits, track=track,
                   method="" if pd.isna(r.method) else str(r.method))
        if r.item == "table 1" and share and out["reproduced"]:
            out["reproduced"] += "%"
        out["ours_value"] = out["ours_low"] = out["ours_high"] = ours
        rows.append(out)
    return frame(rows)


def paper_comparison(results, asl_mapping: dict | None = None) -> pd.DataFrame:
    """The three studies' rows from a results folder (module doc): ``results``/rareness,
    lexiprecision and study outputs; ``asl_mapping``: the ``study.paper`` option (table
    1's halves -> tracks)."""
    results = Path(results)
    lexi = results / "lexiprecision"
    tables = {name: pd.read_parquet(lexi / f"{name}.parquet") for name in
              ("profile", "table2_agreement", "table3_ties", "table4_discriminative_power")}
    study = pd.read_csv(results / "study" / "paper_comparison.csv", dtype={"published": str})
    return combine(asl_rows(study, asl_mapping),
                   lexiprecision_rows(_read_csv(lexi / "paper_comparison.csv"), tables),
                   _read_csv(results / "rareness" / "paper_comparison.csv"))


def write_paper_comparison(results, out_dir, asl_mapping: dict | None = None) -> pd.DataFrame:
    """Write ``paper_comparison.csv`` and ``.md`` (:data:`FILES`) into ``out_dir``."""
    from reeval.io.tables import write_table, write_text

    rows = paper_comparison(results, asl_mapping)
    out = Path(out_dir)
    write_table(rows, out / FILES[0])
    write_text(comparison_markdown(rows), out / FILES[1])
    return rows
