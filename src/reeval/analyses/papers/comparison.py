"""One comparison of the three papers: every published cell beside ours, with a status.

``<results>/papers/paper_comparison.csv`` and ``.md`` (rule ``papers``) stack the rows
(:mod:`.cells`) each study gives:

- rareness: ``<results>/rareness/paper_comparison.csv``, already rows
  (:func:`reeval.analyses.rareness.paper.comparison_rows`);
- lexiprecision: its cell-by-cell table, built here from the study's stacked tables
  (``<results>/lexiprecision/*.parquet``, :func:`reeval.analyses.lexiprecision.paper.comparison_table`),
  turned into rows by :func:`lexiprecision_rows`, with the method of table 4 (test,
  correction, permutations, seeds) from ``table4_discriminative_power``; every benchmark no
  track holds gives ``data not here`` rows;
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
``exact at an inferred setting`` (a setting the paper does not state was inferred: the
lexiprecision paper's relevance level, one per benchmark, and its Tukey HSD form; the
method column says which and why, the other choice and ours under it beside),
``reproduced by another method`` (another method or setting prints it: table 4b's Holm
beside the stated Bonferroni; both values in the row), ``within Monte Carlo error`` (a
seeded cell whose range over seeds holds the paper's value), ``within tolerance``
(matched only by lexiprecision's 1.5-point tolerance: flagged), ``differs`` (with the
known reason, or "cause unknown").

The markdown opens with the counts by status per paper (the lecture notes apart) and the
status ladder, then every cell with a value of ours, each table's method stated once, then
the cells without one grouped by the dataset they need (one line each: how many cells it
would fill and what to add to the configuration).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from reeval.report.escape import markdown_text as escape
from reeval.report.markdown import table

from reeval.analyses.lexiprecision.paper import other_level as lp_other_level

from .cells import (ANOTHER_METHOD, DIFFERS, EXACT, INFERRED, MONTE_CARLO, NOT_COMPUTED, NOT_HERE, STATUSES,
                    TOLERANCE, cell, decimals, frame, printed)
from .lexi_claims import claim_rows as lexi_claim_rows
from .lexi_claims import figure_claim_rows, figure_levels
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
#: table 1's cells read from the qrels alone (judged requests, relevant per request): decided
#: on the requests, whatever share of the runs is here
LEXI_QRELS_ONLY = {("1", "requests"), ("1", "rel/request")}
#: why the comparison takes one relevance level per benchmark
LEVEL_WHY = ("the paper does not state which grades count; one level per benchmark, table 4's: the level of the "
             "benchmark's official evaluation, the same in every configuration")
#: why table 4a's Tukey HSD is the one the configuration names (randomised by default)
HSD_WHY = "the paper cites Carterette (2012) for Tukey's HSD and does not say which form"
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


def benchmark_level(levels: dict, track: str) -> int | None:
    """The one relevance level the comparison takes for every lexiprecision table of the
    benchmark ``track`` holds (the paper states none; :data:`LEVEL_WHY`): table 4's level,
    :data:`reeval.analyses.lexiprecision.paper.BENCHMARK_LEVELS` for a Deep Learning
    benchmark, else the track's relevance level (table 1's when table 4 is not computed);
    None without either. ``levels``: (track, table number as text) -> level (:func:`_lexi_levels`)."""
    return next((levels[(track, t)] for t in ("4", "1") if (track, t) in levels), None)


def _at_paper_level(r, level):
    """The lexiprecision comparison row ``r`` with ours at relevance ``level`` when its
    ``other_setting`` is that level (ours and the other choice swapped), else as it is."""
    if level is None or str(getattr(r, "other_setting", "")) != f"relevance >= {level}":
        return r
    ours, other = float(r.other_ours), float(r.ours)
    return r._replace(ours=ours, ours_low=ours, ours_high=ours, setting=r.other_setting,
                      other_setting=r.setting, other_ours=other)


def _lexi_method(power: pd.DataFrame, track: str, table_: str, column: str, setting: str,
                 level: int | None) -> tuple[str, dict]:
    """(method text, table-4 row as a dict or {}) of one lexiprecision cell of ``track``:
    the test and its settings, the relevance ``level`` (the benchmark's, :func:`benchmark_level`),
    and which settings were inferred and why (:data:`LEVEL_WHY`, :data:`HSD_WHY`);
    ``setting``: the correction ours used for table 4b."""
    lv = f"relevance >= {level} (inferred: {LEVEL_WHY})" if level is not None else ""
    if not table_.startswith("4"):
        return lv, {}
    test = "tukey_hsd" if table_ == "4a" else "paired"
    p = power[(power.track == track) & (power.test == test) & (power.measure == column)]
    if level is not None and "relevance_level" in p:   # table 4's own rows, not table 4b's at the other level
        p = p[p.relevance_level == level]
    if test == "paired" and setting and "procedure" in p:
        p = p[p.procedure.astype(str) == setting]
    if p.empty:
        return lv, {}
    r = p.iloc[0].to_dict()
    if test == "tukey_hsd":
        text = f"Tukey HSD, {r['procedure']} (inferred: {HSD_WHY})"
    else:
        text = f"paired test, {r['procedure']}" + (" (stated)" if str(r["procedure"]).lower() == "bonferroni" else "")
    if r.get("resamples", 0) and r["resamples"] > 0:
        text += f", {int(r['resamples'])} permutations, {int(r['seeds'])} seeds"
    return f"{text}; {lv}", r


def _paired_at(power: pd.DataFrame, track: str, level: int, procedure: str, measure: str) -> float:
    """Table 4b's percentage of ``track`` at relevance ``level`` by ``procedure`` (the rows
    a track compared with the paper has at the other level); NaN where not computed."""
    if "relevance_level" not in power or "procedure" not in power:
        return math.nan
    p = power[(power.track == track) & (power.relevance_level == level) & (power.test == "paired")
              & (power.procedure.astype(str) == procedure) & (power.measure == measure)]
    return float(p.percent_significant.iloc[0]) if len(p) else math.nan


def _lexi_printed(value) -> str:
    """A lexiprecision cell as the paper prints it: counts whole, percentages and ratios
    with 2 decimals."""
    return str(value) if isinstance(value, int) else f"{float(value):.2f}"


def _lexi_status(row, method_row: dict, digits: int, level_other: tuple[str, str]) -> tuple[str, str, tuple]:
    """(status, note, (other setting, ours under it)) of one lexiprecision cell on
    sufficient data, compared at ``digits`` (the ladder of :mod:`.cells`). Every cell's
    relevance level is inferred (:data:`LEVEL_WHY`), so a cell ours prints is ``exact at an
    inferred setting`` with ``level_other`` (the other level and ours under it, or
    :data:`NOT_COMPUTED`) beside, unless ours prints the same at the other level (``exact``:
    the level does not matter). Table 4b's ``other_setting`` is another correction than the
    stated Bonferroni; another method or level that prints the paper's value gives
    ``reproduced by another method``."""
    paper, ours, low, high = float(row.paper), float(row.ours), float(row.ours_low), float(row.ours_high)
    if math.isnan(ours):
        return NOT_HERE, "not computed for this track", ("", "")
    target, ours_text, table_ = printed(paper, digits), printed(ours, digits), str(row.table)
    level_free = level_other[1] == ours_text and table_[0] in "123"
    other_method = ("", "")
    if table_ == "4b":
        other, other_ours = str(getattr(row, "other_setting", "") or ""), float(getattr(row, "other_ours", math.nan))
        other_method = (other, printed(other_ours, digits)) if other and not math.isnan(other_ours) else ("", "")
        if str(getattr(row, "setting", "") or "").lower() != "bonferroni" and ours_text == target:
            return ANOTHER_METHOD, "the paper states Bonferroni; not computed here", (str(row.setting), ours_text)
    if ours_text == target:
        return (EXACT, "", ("", "")) if level_free else (INFERRED, "", level_other)
    for alt, what in ((other_method, "the stated Bonferroni"), (level_other, "the inferred level")):
        if alt[0] and alt[1] == target:
            return ANOTHER_METHOD, f"{alt[0]} prints the paper's value; {what} gives {ours_text}", alt
    known = KNOWN_DIFFERENCES.get(("lexiprecision", row.benchmark, table_, row.column))
    monte_carlo = bool(method_row.get("resamples", 0) and method_row["resamples"] > 0)
    interval = f"ours {low:.2f} to {high:.2f} over {int(method_row.get('seeds', 0) or 0)} seeds"
    beside = ("", "") if level_free else level_other
    if monte_carlo and low - 0.005 <= paper <= high + 0.005:
        return MONTE_CARLO, interval, beside
    if known:
        return DIFFERS, _join(known, interval if monte_carlo else ""), beside
    tol = LEXI_MONTE_CARLO_TOLERANCE
    if monte_carlo and abs(paper - ours) <= tol and low - tol <= paper <= high + tol:
        return TOLERANCE, f"flagged: within {tol:g} points, outside the interval ({interval})", beside
    return DIFFERS, "cause unknown", beside


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


def lexi_sufficiency(profile: pd.DataFrame, track: str, paper_table1, needs=("runs", "requests")) -> tuple[bool, str]:
    """Whether ``track`` holds the data of the paper's benchmark a cell needs, from the
    data alone: the same number of runs and of requests (judged topics) in its profile
    (table 1's ``runs`` and ``requests``) as the paper's table 1 (``paper_table1``:
    requests, runs, ...); ``needs=("requests",)`` for a cell read from the qrels alone.
    Returns (sufficient, ``"12 of the benchmark's 59 runs, 54 of its 54 requests"``)."""
    p = profile[profile.track == track] if len(profile) and "track" in profile else profile.iloc[0:0]
    paper = {"requests": int(paper_table1[0]), "runs": int(paper_table1[1])}
    if p.empty or not set(paper) <= set(p.columns) or any(pd.isna(p[k].iloc[0]) for k in paper):
        return False, "runs and requests unknown"
    parts, same = [], True
    for what, its in (("runs", "the benchmark's"), ("requests", "its")):
        ours = int(p[what].iloc[0])
        same &= ours == paper[what] or what not in needs
        parts.append(f"{ours} of {its} {paper[what]} {what}")
    return same, ", ".join(parts)


def lexiprecision_rows(cells: pd.DataFrame, tables: dict) -> pd.DataFrame:
    """Rows for every cell of the lexiprecision paper's tables 1-4: ours where a track
    holds the benchmark (``cells``: :func:`reeval.analyses.lexiprecision.paper.comparison_table`,
    ``tables``: its stacked tables, ``profile`` ... ``table4_discriminative_power``), else
    ``data not here``. The data decide first (:func:`lexi_sufficiency`): a cell read from
    the qrels alone (:data:`LEXI_QRELS_ONLY`) on the benchmark's requests, the others on its
    runs and requests; a track with less gives ``data not here`` with ours beside. Then
    :func:`_lexi_status` at the benchmark's one level (:func:`benchmark_level`)."""
    ref = published("lexiprecision")
    power = tables.get("table4_discriminative_power", pd.DataFrame(columns=["track", "test", "measure"]))
    profile = tables.get("profile", pd.DataFrame())
    levels = _lexi_levels(tables)
    rows, done = [], set(cells.benchmark) if len(cells) else set()
    mapped = dict(zip(cells.track, cells.benchmark)) if len(cells) else {}
    sufficient = {t: lexi_sufficiency(profile, t, ref["benchmarks"][b]["table1"]) for t, b in mapped.items()}
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
        table1 = ref["benchmarks"][g.benchmark.iloc[0]]["table1"]
        by_needs = {"runs": sufficient[track], "requests": lexi_sufficiency(profile, track, table1, ("requests",))}
        level = benchmark_level(levels, track)
        other_int = lp_other_level(level, level) if level is not None else None
        other_level = f"relevance >= {other_int}" if level is not None else ""
        for r in g.itertuples(index=False):
            table_ = str(r.table)
            r = _at_paper_level(r, level)
            setting = str(getattr(r, "setting", "") or "")
            method, method_row = _lexi_method(power, track, table_, r.column, setting, level)
            text = _lexi_printed(ref["benchmarks"][r.benchmark][f"table{table_}"][
                list(ref["columns"][f"table{table_}"]).index(r.column)])
            digits = decimals(text)
            other_ours = float(getattr(r, "other_ours", math.nan))
            computed = table_[0] in "123" and str(getattr(r, "other_setting", "")) == other_level
            if table_ == "4b" and other_int is not None:
                other_ours, computed = _paired_at(power, track, other_int, setting, r.column), True
            level_other = (other_level, printed(other_ours, digits) if computed and not math.isnan(other_ours)
                           else NOT_COMPUTED) if other_level else ("", "")
            enough, share = by_needs["requests" if (table_, r.column) in LEXI_QRELS_ONLY else "runs"]
            if not enough:
                status, other = NOT_HERE, ("", "")
                needs = ("its requests (read from the qrels alone)" if (table_, r.column) in LEXI_QRELS_ONLY
                         else f"the whole {r.benchmark}")
                note = f"on {share}: ours beside; needs {needs}"
            else:
                status, note, other = _lexi_status(r, method_row, digits, level_other)
            rows.append(cell("lexiprecision", f"table {table_}", r.benchmark, r.column, text,
                             status, note, ours=float(r.ours), low=float(r.ours_low), high=float(r.ours_high),
                             digits=digits, track=track, method=method,
                             other_setting=other[0], other_value=other[1]))
    ecdf = tables.get("fig6_i_star_ecdf", pd.DataFrame(columns=["track", "i_star", "ecdf"]))
    return pd.concat([frame(rows), text_rows(mapped, ecdf, sufficient, profile)], ignore_index=True)


def combine(*parts: pd.DataFrame) -> pd.DataFrame:
    """The studies' rows in one table (asl, lexiprecision, rareness order kept as given);
    ValueError for a status outside :data:`STATUSES`."""
    out = pd.concat([frame(p) for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else frame([])
    bad = sorted(set(out.status) - set(STATUSES))
    if bad:
        raise ValueError(f"unknown statuses {bad}; known: {STATUSES}")
    return frame(out)


#: the three papers' studies (the lecture notes' table is counted apart: it is no paper's)
PAPERS = ("asl", "lexiprecision", "rareness")


def status_counts(rows: pd.DataFrame) -> pd.DataFrame:
    """Cells per status (columns :data:`STATUSES` and ``cells``), one row per paper (the
    lecture notes after the three papers), then ``the three papers`` (their sum, without
    the notes): the counts every document that counts cells reads."""
    def counts(g):
        return {**{s: int((g.status == s).sum()) for s in STATUSES}, "cells": len(g)}
    order = [p for p in PAPERS if (rows.study == p).any()] + [p for p in dict.fromkeys(rows.study) if p not in PAPERS]
    out = [{"paper": study, **counts(rows[rows.study == study])} for study in order]
    papers = rows[rows.study.isin(PAPERS)]
    return pd.DataFrame(out + [{"paper": "the three papers", **counts(papers)}], columns=["paper", *STATUSES, "cells"])


def summary_lines(rows: pd.DataFrame) -> list[str]:
    """The three papers' cells by status (one line), then one line per study with the
    statuses it has (the lecture notes' table last)."""
    papers = rows[rows.study.isin(PAPERS)]
    lines = [f"{len(papers)} cells of the three papers: "
             + ", ".join(f"{int((papers.status == s).sum())} {s}" for s in STATUSES)]
    for study in status_counts(rows).paper[:-1]:
        g = rows[rows.study == study]
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


#: the status ladder as the comparison's first page explains it
LADDER = ("A status is decided before the value is compared, strongest first: first the data (the runs, topics "
          "and qrels the cell needs all here, else *data not here*, ours beside where these data give one), then "
          "the method. *exact*: the paper's stated method, at the settings it states, prints its value. *exact at "
          "an inferred setting*: a setting the paper does not state was inferred (the method says which and why) "
          "and prints the value; *other* gives ours under the other choice. *reproduced by another method*: "
          "another method or setting prints it (both values shown). *within Monte Carlo error*: a seeded cell "
          "whose range over seeds holds the value. *within tolerance*: flagged, only lexiprecision's 1.5-point "
          "tolerance matches. *differs*: with the known reason, or cause unknown.")


def _methods(methods: pd.Series, what: str = "Method") -> tuple[list[str], list[str]]:
    """(lines stating a table's methods once, the column pointing each row at its method):
    one method: a line ``Method: ...`` and no column; several: a numbered list and the
    number per row; none: nothing. ``what="Note"``: the same for a note every row shares
    (several notes: no lines, the notes as they are)."""
    values = methods.fillna("")
    distinct = [m for m in dict.fromkeys(values) if m]
    if not distinct:
        return [], []
    if len(distinct) == 1 and (what == "Method" or (values == distinct[0]).all()):
        return [f"{what}: {escape(distinct[0])}", ""], []
    if what != "Method":
        return [], list(values)
    lines = ["Methods:", "", *[f"{k}. {escape(m)}" for k, m in enumerate(distinct, start=1)], ""]
    return lines, [str(distinct.index(m) + 1) if m else "" for m in values]


def comparison_markdown(rows: pd.DataFrame) -> str:
    """``paper_comparison.md``: the cells by status per paper (the three papers' total, the
    lecture notes apart), the status ladder (:data:`LADDER`), then per paper and item the
    method once, and a note every cell shares once (:func:`_methods`), and a table of the cells with a value of ours (row,
    column, paper, ours, status, the other method or setting with ours under it, note,
    track), then one line per dataset the other cells need (:func:`missing_data_lines`);
    names escaped."""
    lines = ["# The three papers, cell by cell", "", summary_lines(rows)[0] + ".", "",
             table(status_counts(rows).astype(str)), "", LADDER, ""]
    have = rows[_has_ours(rows)]
    lines += [f"## Cells with a value of ours ({len(have)})", ""]
    for (study, item), g in have.groupby(["study", "item"], sort=False):
        other = [f"{s}: {v}" if s else "" for s, v in zip(g.other_setting.fillna(""), g.other_value.fillna(""))]
        said, column = _methods(g.method)
        noted, notes = _methods(g.note, "Note")
        shown = pd.DataFrame({"row": g.row, "column": g.column, "paper": g.published.map(as_range),
                              "ours": g.reproduced.fillna(""), "status": g.status, "other": other,
                              "track": g.track.fillna("")})  # table() escapes
        if notes:
            shown.insert(6, "note", notes)
        if column:
            shown["method"] = column
        lines += [f"### {escape(study)}: {escape(item)}", "", *said, *noted, table(shown), ""]
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
    """Figures 8 and 9's claims (:func:`.lexi_claims.figure_claim_rows`) on the tracks holding
    a benchmark (``cells``: :func:`reeval.analyses.lexiprecision.paper.comparison_table`), each
    track's data judged by :func:`lexi_sufficiency`. Their data are at the benchmark's one
    relevance level (:data:`reeval.analyses.lexiprecision.paper.BENCHMARK_LEVELS`, table 4's,
    whatever the track's own level: the same cell in every configuration holding the data), a
    setting the paper does not state (:data:`LEVEL_WHY`), read from the tables'
    ``relevance_level`` (:func:`.lexi_claims.figure_levels`); the other level not computed."""
    ref = published("lexiprecision")
    profile = tables.get("profile", pd.DataFrame())
    mapped = dict(zip(cells.track, cells.benchmark)) if len(cells) else {}
    sufficient = {t: lexi_sufficiency(profile, t, ref["benchmarks"][b]["table1"]) for t, b in mapped.items()}
    fig8, fig9 = tables["fig8_agreement"], tables["fig9_label_removal"]
    inferred = figure_levels(pd.concat([fig8, fig9], ignore_index=True), mapped, LEVEL_WHY)
    return figure_claim_rows(mapped, sufficient, fig8, fig9, inferred)


def paper_comparison(results, asl_mapping: dict | None = None, lexi_mapping: dict | None = None) -> pd.DataFrame:
    """The three studies' rows from a results folder (module doc): ``results``/rareness,
    lexiprecision and study outputs; ``asl_mapping``: the ``study.paper`` option (table
    1's halves -> tracks); ``lexi_mapping``: the ``lexiprecision.paper`` option (tracks ->
    benchmarks, beside the tracks whose id holds one)."""
    from reeval.analyses.lexiprecision.paper import comparison_table

    results = Path(results)
    lexi = results / "lexiprecision"
    tables = {name: pd.read_parquet(lexi / f"{name}.parquet") for name in
              ("profile", "table2_agreement", "table3_ties", "table4_discriminative_power", "fig6_i_star_ecdf",
               "fig8_agreement", "fig9_label_removal")}
    study = pd.read_csv(results / "study" / "paper_comparison.csv", dtype={"published": str, "reproduced": str})
    lexi_cells = comparison_table(tables, lexi_mapping)
    lexi_rows = lexiprecision_rows(lexi_cells, tables)
    return combine(asl_rows(study, asl_mapping), lexi_rows, lexi_claim_rows(lexi_rows),
                   lexi_figure_claims(lexi_cells, tables),
                   _read_csv(results / "rareness" / "paper_comparison.csv"), notes_rows())


def write_paper_comparison(results, out_dir, asl_mapping: dict | None = None,
                           lexi_mapping: dict | None = None) -> pd.DataFrame:
    """Write ``paper_comparison.csv`` and ``.md`` (:data:`FILES`) into ``out_dir``."""
    from reeval.io.tables import write_table, write_text

    rows = paper_comparison(results, asl_mapping, lexi_mapping)
    out = Path(out_dir)
    write_table(rows, out / FILES[0])
    write_text(comparison_markdown(rows), out / FILES[1])
    return rows
