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
  claims) turned into rows by :func:`asl_rows`;
- the lecture notes' interpolated precision table, computed on their own example
  (:func:`reeval.analyses.papers.notes.notes_rows`).

Statuses (:data:`reeval.analyses.papers.cells.STATUSES`), decided before the value is
compared (../shared/DESIGN.md, "Paper comparisons"): first the data (a lexiprecision track
with other runs or requests than the paper's benchmark, an ASL table 1 track lacking runs of
the campaign, a rareness track of another task: ``data not here``, ours beside), then the
method: ``exact`` (the paper's stated method, at its settings, prints the paper's cell),
``reproduced by another method`` (another method prints it: table 4b's Holm beside the
stated Bonferroni; both values in the row), ``within Monte Carlo error`` (a seeded cell
whose range over seeds holds the paper's value), ``within tolerance`` (matched only by
lexiprecision's 1.5-point tolerance: flagged), ``differs`` (with the known reason, or
"cause unknown"). A setting the paper does not state (the relevance level of lexiprecision
tables 2 and 3) is named beside the cell, with ours under the other choice.

The markdown opens with the counts by status, then every cell with a value of ours, then
the cells without one grouped by the dataset they need (one line each: how many cells it
would fill and what to add to the configuration).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from reeval.report.escape import markdown_code as code
from reeval.report.escape import markdown_text as escape
from reeval.report.markdown import table

from .cells import (ANOTHER_METHOD, DIFFERS, EXACT, MONTE_CARLO, NOT_HERE, STATUSES, TOLERANCE, cell, decimals,
                    frame, printed)
from .lexi_claims import claim_rows as lexi_claim_rows
from .lexi_claims import figure_claim_rows
from .notes import notes_rows
from .texts import text_rows
from .published import published

#: the files of rule ``papers`` under ``<results>/papers/``
FILES = ("paper_comparison.csv", "paper_comparison.md")
#: differences we know and cannot remove, by (study, benchmark, table, column): the reason
KNOWN_DIFFERENCES = {
    ("lexiprecision", "deep-pass (2019)", "4a", "sgnLP"): "sgnLP 115 vs 123 pairs: cause unknown",
}
LEXI_MONTE_CARLO_TOLERANCE = 1.5
#: the lexiprecision tables whose relevance level the paper does not state
LEXI_UNSTATED_LEVEL = ("1", "2", "3")
#: the ASL text's items on table 1's passage campaign (:mod:`reeval.analyses.asl.paper_text`)
PASSAGE_ITEMS = ("section 4.3", "section 4.5")
#: what to add to the configuration for a dataset no track stands for, per study
ADD = {
    "lexiprecision": "its qrels and runs under `tracks:` and `lexiprecision: {{paper: {{<track>: \"{label}\"}}}}`",
    "rareness": "its qrels and runs under `tracks:` and `rareness: {{paper: {{<track>: {label}}}}}`",
    "asl": "its qrels and runs under `tracks:`, `study: {{paper: {{{label}: <track>}}}}` and its "
           "`study: techniques:` groups (baseline bm25, neural)",
    "asl_tracks": "the TREC archive's tracks: run config/trec-study.yaml (docs/trec-archive.md)",
}


def paper_level(table_: str, table4_level) -> int | None:
    """The relevance level the comparison takes for a lexiprecision table whose level the
    paper does not state, whatever the configuration's: tables 1-2 at grade > 0 (1, pref_eval's
    default, and what prints its DL-2019 rows), table 3 at table 4's level (the track's
    official binary level, as the paper's DL-2019 row shows); None for the other tables."""
    if table_ in ("1", "2"):
        return 1
    if table_ == "3" and table4_level is not None:
        return int(table4_level)
    return None


def _at_paper_level(r, level):
    """The lexiprecision comparison row ``r`` with ours at relevance ``level`` when its
    ``other_setting`` is that level (ours and the other choice swapped), else as it is."""
    if level is None or str(getattr(r, "other_setting", "")) != f"relevance >= {level}":
        return r
    ours, other = float(r.other_ours), float(r.ours)
    return r._replace(ours=ours, ours_low=ours, ours_high=ours, setting=r.other_setting,
                      other_setting=r.setting, other_ours=other)


def _lexi_method(power: pd.DataFrame, levels: dict, track: str, table_: str, column: str, setting: str) -> tuple[str, dict]:
    """(method text, table-4 row as a dict or {}) of one lexiprecision cell of ``track``;
    ``setting``: the level or correction ours used (the comparison table's ``setting``)."""
    level = levels.get((track, table_[0]))
    if setting.startswith("relevance >= "):
        level = int(setting.removeprefix("relevance >= "))
    lv = f"relevance >= {level}" if level is not None else ""
    if not table_.startswith("4"):
        return lv + (" (the paper does not state the level)" if table_ in LEXI_UNSTATED_LEVEL else ""), {}
    test = "tukey_hsd" if table_ == "4a" else "paired"
    p = power[(power.track == track) & (power.test == test) & (power.measure == column)]
    if test == "paired" and setting and "procedure" in p:
        p = p[p.procedure.astype(str) == setting]
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


def _lexi_status(row, method_row: dict, digits: int = 2) -> tuple[str, str]:
    """Status and note of one lexiprecision cell on sufficient data (module doc), compared
    at ``digits``; table 4b's ``other_setting`` is another correction than the stated one."""
    paper, ours, low, high = float(row.paper), float(row.ours), float(row.ours_low), float(row.ours_high)
    if math.isnan(ours):
        return NOT_HERE, "not computed for this track"
    known = KNOWN_DIFFERENCES.get(("lexiprecision", row.benchmark, str(row.table), row.column))
    if str(row.table) == "4b":
        other, other_ours = str(getattr(row, "other_setting", "") or ""), float(getattr(row, "other_ours", math.nan))
        stated = str(getattr(row, "setting", "") or "").lower() == "bonferroni"
        if printed(ours, digits) == printed(paper, digits):
            return (EXACT, "") if stated else (ANOTHER_METHOD, "the paper states Bonferroni; not computed here")
        if other and not math.isnan(other_ours) and printed(other_ours, digits) == printed(paper, digits):
            return ANOTHER_METHOD, f"{other} prints the paper's value; the stated Bonferroni gives {printed(ours, digits)}"
    if printed(ours, digits) == printed(paper, digits):
        return EXACT, ""
    monte_carlo = bool(method_row.get("resamples", 0) and method_row["resamples"] > 0)
    interval = f"ours {low:.2f} to {high:.2f} over {int(method_row.get('seeds', 0) or 0)} seeds"
    if monte_carlo and low - 0.005 <= paper <= high + 0.005:
        return MONTE_CARLO, interval
    if known:
        return DIFFERS, _join(known, interval if monte_carlo else "")
    tol = LEXI_MONTE_CARLO_TOLERANCE
    if monte_carlo and abs(paper - ours) <= tol and low - tol <= paper <= high + tol:
        return TOLERANCE, f"flagged: within {tol:g} points, outside the interval ({interval})"
    return DIFFERS, "cause unknown"


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


def lexi_sufficiency(profile: pd.DataFrame, track: str, paper_table1) -> tuple[bool, str]:
    """Whether ``track`` holds the paper's benchmark, from the data alone: the same number
    of runs and of requests (judged topics) in its profile (table 1's ``runs`` and
    ``requests``) as the paper's table 1 (``paper_table1``: requests, runs, ...). Returns
    (sufficient, ``"12 of the benchmark's 59 runs, 54 of its 54 requests"``)."""
    p = profile[profile.track == track] if len(profile) and "track" in profile else profile.iloc[0:0]
    paper = {"requests": int(paper_table1[0]), "runs": int(paper_table1[1])}
    if p.empty or any(pd.isna(p[k].iloc[0]) for k in paper if k in p) or not set(paper) <= set(p.columns):
        return False, "runs and requests unknown"
    parts, same = [], True
    for what, its in (("runs", "the benchmark's"), ("requests", "its")):
        ours = int(p[what].iloc[0])
        same &= ours == paper[what]
        parts.append(f"{ours} of {its} {paper[what]} {what}")
    return same, ", ".join(parts)


def lexiprecision_rows(cells: pd.DataFrame, tables: dict) -> pd.DataFrame:
    """Rows for every cell of the lexiprecision paper's tables 1-4: ours where a track
    stands for the benchmark (``cells``: :func:`reeval.analyses.lexiprecision.paper.comparison_table`,
    ``tables``: its stacked tables, ``profile`` ... ``table4_discriminative_power``), else
    ``data not here``. A track with other runs or requests than the benchmark gives ``data
    not here`` with ours beside (:func:`lexi_sufficiency`)."""
    ref = published("lexiprecision")
    power = tables.get("table4_discriminative_power", pd.DataFrame(columns=["track", "test", "measure"]))
    levels = _lexi_levels(tables)
    rows, done = [], set(cells.benchmark) if len(cells) else set()
    mapped = dict(zip(cells.track, cells.benchmark)) if len(cells) else {}
    sufficient = {t: lexi_sufficiency(tables.get("profile", pd.DataFrame()), t, ref["benchmarks"][b]["table1"])
                  for t, b in mapped.items()}
    for benchmark, values in ref["benchmarks"].items():
        if benchmark in done:
            continue
        need = f"{benchmark} ({values['table1'][1]} runs, {values['table1'][0]} requests)"
        for sub, cols in ref["columns"].items():
            for column, v in zip(cols, values[sub]):
                rows.append(cell("lexiprecision", f"table {sub.removeprefix('table')}", benchmark, column,
                                 _lexi_printed(v), NOT_HERE, f"needs {need}", needs=need,
                                 to_add=ADD["lexiprecision"].format(label=benchmark)))
    for track, g in cells.groupby("track", sort=False):
        enough, share = lexi_sufficiency(tables.get("profile", pd.DataFrame()), track,
                                         ref["benchmarks"][g.benchmark.iloc[0]]["table1"])
        for r in g.itertuples(index=False):
            table_ = str(r.table)
            r = _at_paper_level(r, paper_level(table_, levels.get((track, "4"))))
            setting = str(getattr(r, "setting", "") or "")
            method, method_row = _lexi_method(power, levels, track, table_, r.column, setting)
            level = int(setting.removeprefix("relevance >= ")) if setting.startswith("relevance >= ") else \
                levels.get((track, table_[0]))
            text = _lexi_printed(ref["benchmarks"][r.benchmark][f"table{table_}"][
                list(ref["columns"][f"table{table_}"]).index(r.column)])
            digits = decimals(text)
            other, other_ours = str(getattr(r, "other_setting", "") or ""), float(getattr(r, "other_ours", math.nan))
            other_text = printed(other_ours, digits) if other and not math.isnan(other_ours) else ""
            if not enough:
                status, note = NOT_HERE, f"on {share}: ours beside; needs the whole {r.benchmark}"
            else:
                status, note = _lexi_status(r, method_row, digits)
                if table_ == "1" and level not in (None, 1):
                    note = _join(f"relevance >= {level} here; the paper's table 1 counts grade > 0",
                                 "" if note == "cause unknown" else note)
            if table_ == "1" and other_text == text and status == EXACT:
                other, other_text = "", ""   # a count that does not depend on the level
            if status == ANOTHER_METHOD and not str(getattr(r, "setting", "")).lower() == "bonferroni":
                other, other_text = setting, printed(float(r.ours), digits)   # ours is the other method
            if table_ in LEXI_UNSTATED_LEVEL and other_text:
                note = _join(note, f"the paper does not state which grades count: at {other}, {other_text}")
            rows.append(cell("lexiprecision", f"table {table_}", r.benchmark, r.column, text,
                             status, note, ours=float(r.ours), low=float(r.ours_low), high=float(r.ours_high),
                             digits=digits, track=track, method=method,
                             other_setting=other if other_text else "", other_value=other_text))
    ecdf = tables.get("fig6_i_star_ecdf", pd.DataFrame(columns=["track", "i_star", "ecdf"]))
    return pd.concat([frame(rows), text_rows(mapped, ecdf, sufficient)], ignore_index=True)


def combine(*parts: pd.DataFrame) -> pd.DataFrame:
    """The studies' rows in one table (asl, lexiprecision, rareness order kept as given);
    ValueError for a status outside :data:`STATUSES`."""
    out = pd.concat([frame(p) for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else frame([])
    bad = sorted(set(out.status) - set(STATUSES))
    if bad:
        raise ValueError(f"unknown statuses {bad}; known: {STATUSES}")
    return frame(out)


def status_counts(rows: pd.DataFrame) -> pd.DataFrame:
    """Cells per status (columns :data:`STATUSES` and ``cells``), one row per paper and a
    last row ``all``: the counts every document that counts cells reads."""
    def counts(g):
        return {**{s: int((g.status == s).sum()) for s in STATUSES}, "cells": len(g)}
    out = [{"paper": study, **counts(g)} for study, g in rows.groupby("study", sort=False)]
    return pd.DataFrame(out + [{"paper": "all", **counts(rows)}], columns=["paper", *STATUSES, "cells"])


def summary_lines(rows: pd.DataFrame) -> list[str]:
    """One line per status with its count, over all papers and per paper."""
    lines = [f"{len(rows)} published cells: " + ", ".join(f"{int((rows.status == s).sum())} {s}" for s in STATUSES)]
    for study, g in rows.groupby("study", sort=False):
        lines.append(f"- {study}: " + ", ".join(f"{int((g.status == s).sum())} {s}" for s in STATUSES
                                                 if (g.status == s).any()))
    return lines


_HYPHEN_RANGE = re.compile(r"^(-?\d[\d.]*)(%|x)?-(\d[\d.]*)(%|x)?$")


def as_range(text: str) -> str:
    """A printed range ``a-b`` as ``a to b`` (``26-60%`` -> ``26% to 60%``, ``0.3-0.6x`` ->
    ``0.3x to 0.6x``), the unit on both ends; any other text as it is."""
    m = _HYPHEN_RANGE.match(str(text).strip())
    if not m:
        return str(text)
    unit = m.group(4) or m.group(2) or ""
    return f"{m.group(1)}{unit} to {m.group(3)}{unit}"


def _has_ours(rows: pd.DataFrame) -> pd.Series:
    return rows.reproduced.fillna("").astype(str) != ""


def missing_data_lines(rows: pd.DataFrame) -> list[str]:
    """One line per dataset that the cells without a value of ours need: the study, the
    dataset, how many cells it would fill (in which tables) and what to add."""
    lacking = rows[(rows.status == NOT_HERE) & ~_has_ours(rows)]
    lines = []
    for (study, needs), g in lacking.groupby(["study", lacking.needs.fillna("").replace("", "(unnamed)")],
                                             sort=False):
        items = ", ".join(dict.fromkeys(g["item"]))
        add = next((a for a in g.to_add.fillna("") if a), "")
        lines.append(f"- {escape(study)}: {escape(needs)}: {len(g)} cell{'s' if len(g) != 1 else ''} ({escape(items)})"
                     + (f"; add {add}" if add else ""))
    return lines


def comparison_markdown(rows: pd.DataFrame) -> str:
    """``paper_comparison.md``: the counts by status (all papers and each), then per paper
    and item a table of the cells with a value of ours (row, column, paper, ours, status,
    the other method or setting with ours under it, note, track, method), then one line
    per dataset the other cells need (:func:`missing_data_lines`); names escaped."""
    counts = status_counts(rows)
    shown_counts = counts.rename(columns={"paper": "paper"})
    lines = ["# The three papers, cell by cell", "", summary_lines(rows)[0] + ".", "",
             table(shown_counts.astype(str)), "",
             "A status is decided before the value is compared: first whether the data the cell needs are all "
             "here, then the method. *exact*: the paper's stated method, at the paper's settings, prints the "
             "paper's value. *reproduced by another method*: another method prints it (both values shown). "
             "*within Monte Carlo error*: a seeded cell whose range over seeds holds the paper's value. *within "
             "tolerance*: flagged, only lexiprecision's 1.5-point tolerance matches. *differs*: with the known "
             "reason, or cause unknown. *data not here*: the data the cell needs are not all here; ours is "
             "beside it when these data give one. A setting the paper does not state is named in *other*, "
             "with ours under the other choice.", ""]
    have = rows[_has_ours(rows)]
    lines += [f"## Cells with a value of ours ({len(have)})", ""]
    for (study, item), g in have.groupby(["study", "item"], sort=False):
        other = [f"{s}: {v}" if s else "" for s, v in zip(g.other_setting.fillna(""), g.other_value.fillna(""))]
        shown = pd.DataFrame({"row": g.row, "column": g.column, "paper": g.published.map(as_range),
                              "ours": g.reproduced.fillna(""), "status": g.status, "other": other,
                              "note": g.note.fillna(""), "track": g.track.fillna(""),
                              "method": g.method.fillna("")})  # table() escapes
        lines += [f"### {escape(study)}: {escape(item)}", "", table(shown), ""]
    missing = missing_data_lines(rows)
    n_missing = int(((rows.status == NOT_HERE) & ~_has_ours(rows)).sum())
    lines += [f"## Data not here ({n_missing} cells without a value of ours)", ""]
    lines += (["One line per dataset the cells need: how many cells it would fill and what to add to the "
               "configuration.", "", *missing] if missing else ["None."])
    return "\n".join(lines) + "\n"


_TEXT = ("study", "item", "row", "column", "published", "reproduced", "track", "method", "status", "note",
         "benchmark", "table", "setting", "other_setting", "other_value", "needs", "to_add")


def _read_csv(path: Path) -> pd.DataFrame:
    """A comparison CSV as written: text columns as text ("" for empty), numbers as floats."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    for col in df.columns:
        if col not in _TEXT:
            df[col] = pd.to_numeric(df[col].replace("", math.nan), errors="coerce")
    return df


def asl_rows(study_rows: pd.DataFrame, mapping: dict | None = None) -> pd.DataFrame:
    """The ASL study's cells (:func:`reeval.analyses.asl.paper.paper_rows`: item, row,
    column, published, ours, ours_low, ours_high, reproduced, method, status, note) as rows
    of :mod:`.cells`: ``reproduced`` as the study printed it (table 1 as the paper prints
    the cell, RRIE in percent; table 2 its range); ``track`` is the track ``mapping``
    (``study.paper``: half -> track) names for the cell's half of table 1. A table 1 half
    no track stands for names the campaign it needs."""
    mapping = mapping or {}
    campaigns = published("asl")["table1_campaign"]
    rows = []
    for r in study_rows.itertuples(index=False):
        ours, published_text = float(r.ours), str(r.published)
        half = "passages" if r.item in PASSAGE_ITEMS else str(r.column).split(" ")[0]
        track = (mapping.get(half) or "") if r.item in ("table 1", *PASSAGE_ITEMS) else ""
        text = getattr(r, "reproduced", "")
        text = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text)
        needs = to_add = ""
        if r.item in ("table 1", *PASSAGE_ITEMS) and r.status == NOT_HERE and not text:
            c = campaigns[half]
            needs, to_add = f"{c['track']} ({c['runs']} runs)", ADD["asl"].format(label=half)
        elif r.status == NOT_HERE and not text:
            needs, to_add = f"the paper's {published('asl')['tracks']} TREC tracks", ADD["asl_tracks"]
        out = cell("asl", r.item, r.row, r.column, published_text, r.status, "" if pd.isna(r.note) else str(r.note),
                   track=track, method="" if pd.isna(r.method) else str(r.method), needs=needs, to_add=to_add)
        low, high = (float(getattr(r, k, ours)) for k in ("ours_low", "ours_high"))
        out.update({"reproduced": text, "ours_value": ours, "ours_low": low, "ours_high": high})
        rows.append(out)
    return frame(rows)


def lexi_figure_claims(cells: pd.DataFrame, tables: dict) -> pd.DataFrame:
    """Figures 8 and 9's claims (:func:`.lexi_claims.figure_claim_rows`) on the tracks the
    lexiprecision cells map to a benchmark, each track's data judged by :func:`lexi_sufficiency`."""
    ref = published("lexiprecision")
    mapped = dict(zip(cells.track, cells.benchmark)) if len(cells) else {}
    sufficient = {t: lexi_sufficiency(tables.get("profile", pd.DataFrame()), t, ref["benchmarks"][b]["table1"])
                  for t, b in mapped.items()}
    return figure_claim_rows(mapped, sufficient, tables["fig8_agreement"], tables["fig9_label_removal"])


def paper_comparison(results, asl_mapping: dict | None = None) -> pd.DataFrame:
    """The three studies' rows from a results folder (module doc): ``results``/rareness,
    lexiprecision and study outputs; ``asl_mapping``: the ``study.paper`` option (table
    1's halves -> tracks)."""
    results = Path(results)
    lexi = results / "lexiprecision"
    tables = {name: pd.read_parquet(lexi / f"{name}.parquet") for name in
              ("profile", "table2_agreement", "table3_ties", "table4_discriminative_power", "fig6_i_star_ecdf",
               "fig8_agreement", "fig9_label_removal")}
    study = pd.read_csv(results / "study" / "paper_comparison.csv", dtype={"published": str, "reproduced": str})
    lexi_cells = _read_csv(lexi / "paper_comparison.csv")
    lexi_rows = lexiprecision_rows(lexi_cells, tables)
    return combine(asl_rows(study, asl_mapping), lexi_rows, lexi_claim_rows(lexi_rows),
                   lexi_figure_claims(lexi_cells, tables),
                   _read_csv(results / "rareness" / "paper_comparison.csv"), notes_rows())


def write_paper_comparison(results, out_dir, asl_mapping: dict | None = None) -> pd.DataFrame:
    """Write ``paper_comparison.csv`` and ``.md`` (:data:`FILES`) into ``out_dir``."""
    from reeval.io.tables import write_table, write_text

    rows = paper_comparison(results, asl_mapping)
    out = Path(out_dir)
    write_table(rows, out / FILES[0])
    write_text(comparison_markdown(rows), out / FILES[1])
    return rows
