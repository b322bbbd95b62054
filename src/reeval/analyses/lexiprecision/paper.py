"""Our lexiprecision tables beside the paper's (Diaz, tables 1-4), cell by cell: the values
the one paper comparison (:mod:`reeval.analyses.papers.comparison`, ``papers/paper_comparison``)
gives a status.

The paper's numbers are data (``reeval/analyses/papers/published.yaml``, key ``lexiprecision``).
Which of our tracks holds which of its benchmarks follows the data: a track whose id is the
benchmark's (:data:`BENCHMARK_TRACKS`, the ids of ../shared/data) holds it in every
configuration, and ``lexiprecision.paper`` (``{track: label}`` or ``{track: {benchmark:
label, tables: [2, 3]}}``, the label as the tables print it, e.g. ``deep-pass (2019)``)
names any other (an archive track, a track renamed in the configuration).
"""

from __future__ import annotations

import math

import pandas as pd

from reeval.analyses.papers.published import published

#: Columns of :func:`comparison_table`: ``setting`` the relevance level or correction ours
#: was computed with; ``other_setting`` and ``other_ours`` the other choice (a level the
#: paper does not state, tables 1-3; Holm beside table 4b's stated Bonferroni) and ours
#: under it (NaN when not computed).
COLUMNS = ("track", "benchmark", "table", "column", "paper", "ours", "ours_low", "ours_high",
           "setting", "other_setting", "other_ours")
#: the paired tests' correction table 4b states ("Paired test with Bonferroni correction")
STATED_CORRECTION = "bonferroni"
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
#: the benchmark a track id holds whatever the configuration: the ids ../shared/data and the
#: TREC archive's manifest (config/trec-manifest.yaml) give the TREC Deep Learning tracks
#: (whether a track holds all of the benchmark's runs and requests, its data decide)
BENCHMARK_TRACKS = {"trec2019-dl-passage": "deep-pass (2019)", "trec2020-dl-passage": "deep-pass (2020)",
                    "trec2019-deep-passages": "deep-pass (2019)", "trec2020-deep-passages": "deep-pass (2020)",
                    "trec2019-deep-docs": "deep-docs (2019)", "trec2020-deep-docs": "deep-docs (2020)"}


#: the relevance level the comparison takes for a benchmark whose data more than one
#: configuration holds (the paper states none): its official evaluation's level, TREC DL
#: passages' passages-eval grade >= 2, the document tasks' trec_eval default grade >= 1.
#: Table 4 of a track holding one is computed at it whatever the track's own level, so
#: the benchmark's cells are at one level in every configuration holding its data.
BENCHMARK_LEVELS = {"deep-pass (2019)": 2, "deep-pass (2020)": 2, "deep-docs (2019)": 1, "deep-docs (2020)": 1}


def official_level(opts: dict, track: str, rel_level: int) -> int:
    """Table 4's relevance level for ``track``: the :data:`BENCHMARK_LEVELS` level of the
    benchmark it holds (:func:`paper_tracks`), else ``rel_level`` (the track's own)."""
    held = paper_tracks(opts.get("paper"), [track]).get(track)
    return BENCHMARK_LEVELS.get(held[0], rel_level) if held else rel_level


def paper_tracks(mapping: dict | None, tracks=()) -> dict:
    """``{track: (benchmark, [table numbers])}``: each of ``tracks`` whose id holds a
    benchmark (:data:`BENCHMARK_TRACKS`), then the ``lexiprecision.paper`` option (which
    wins for a track it names); ValueError for a label the paper does not print or a table
    it does not have."""
    known = published("lexiprecision")["benchmarks"]
    out = {t: (BENCHMARK_TRACKS[t], sorted(SUBTABLES)) for t in tracks if t in BENCHMARK_TRACKS}
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


def other_level(level: int, rel_level: int) -> int:
    """The other choice of relevance level for a table at ``level`` whose level the paper
    does not state: 1 (grade > 0) when the table is at another level, else the study's
    level ``rel_level`` (the track's official one), or 2 when that is also 1."""
    if level != 1:
        return 1
    return rel_level if rel_level != 1 else 2


def compared(opts: dict, track: str) -> bool:
    """Whether ``track`` is compared with the paper (:func:`paper_tracks`), so that its
    per-track tables compute what the comparison needs (the other relevance level, both
    corrections, every seed): the same in every configuration holding the track."""
    return track in paper_tracks(opts.get("paper"), [track])


def _ours(tables: dict, track: str, sub: str) -> list:
    """Our cells of a sub-table: (value, low, high, setting, other_setting, other_value)
    per printed column; low = high = value except for table 4's randomised HSD
    (its range over seeds). Tables 1-3: the other relevance level where computed; table 4b:
    the paper's stated Bonferroni where computed, Holm as the other."""
    name, keys = OURS[sub]
    df = tables[name][tables[name].track == track]
    if name == "table4_discriminative_power" and len(df):   # table 4's own level (rows at another follow)
        df = df[df.relevance_level == df.relevance_level.iloc[0]]
    if name != "table4_discriminative_power":
        level = f"relevance >= {int(df.relevance_level.iloc[0])}" if len(df) else ""
        other_level = df["other_relevance_level"].iloc[0] if len(df) and "other_relevance_level" in df else math.nan
        other = f"relevance >= {int(other_level)}" if not pd.isna(other_level) else ""
        out = []
        for k in keys:
            v = float(df[k].iloc[0]) if len(df) else math.nan
            o = float(df[f"other_{k}"].iloc[0]) if other and f"other_{k}" in df else math.nan
            out.append((v, v, v, level, other, o))
        return out
    out = []
    for test, measure in keys:
        rows = df[(df.test == test) & (df.measure == measure)]
        if rows.empty:
            out.append((math.nan, math.nan, math.nan, "", "", math.nan))
            continue
        row, other = rows.iloc[0], None
        if test == "paired":
            stated = rows[rows.procedure.str.lower() == STATED_CORRECTION]
            if len(stated):
                row = stated.iloc[0]
            rest = rows[rows.procedure.str.lower() != str(row.procedure).lower()]
            other = rest.iloc[0] if len(rest) else None
        out.append((float(row.percent_significant), float(row.percent_low), float(row.percent_high),
                    str(row.procedure),
                    str(other.procedure) if other is not None else "",
                    float(other.percent_significant) if other is not None else math.nan))
    return out


def comparison_table(tables: dict, mapping: dict | None) -> pd.DataFrame:
    """One row per cell of the paper's tables for each track holding a benchmark
    (:func:`paper_tracks` of ``mapping`` and the tracks of the tables): track, benchmark,
    table (1, 2, 3, 4a, 4b), column (as printed), paper, ours, ours_low, ours_high (the
    range over seeds of a Monte Carlo cell, else ours), setting, other_setting, other_ours."""
    ref = published("lexiprecision")
    have = list(dict.fromkeys(tables["profile"].track))
    rows = []
    for track, (label, numbers) in paper_tracks(mapping, have).items():
        if track not in have:
            continue
        for sub in (s for n in numbers for s in SUBTABLES[n]):
            for column, paper, (ours, low, high, setting, other, other_ours) in zip(
                    ref["columns"][sub], ref["benchmarks"][label][sub], _ours(tables, track, sub)):
                rows.append({"track": track, "benchmark": label, "table": sub.removeprefix("table"),
                             "column": column, "paper": float(paper), "ours": ours, "ours_low": low,
                             "ours_high": high, "setting": setting, "other_setting": other, "other_ours": other_ours})
    return pd.DataFrame(rows, columns=list(COLUMNS))
