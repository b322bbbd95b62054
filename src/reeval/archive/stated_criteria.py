"""The ASL paper's stated track criteria applied to the whole TREC catalog, year by year,
and reeval's ad hoc reading of them beside.

This module applies the paper's stated criteria (section 4.1) to every catalog track
(``../shared/catalog/tracks.csv``), and nothing else; the manifest
(:mod:`reeval.archive.manifest`) holds every track they keep, so the study's scope
``asl-paper`` (:mod:`reeval.archive.scope`) is this set:

- ``years``: 1993-2020 (:data:`reeval.archive.scope.PAPER_YEARS`);
- ``web 2003``: the 2003 Web track skipped (both its tasks);
- ``qrels``: "we could identify ... qrels": the catalog has a direct qrels-file link
  (``has_qrels_file_link = yes``);
- ``run files``: "... and per-system run files" from "the 'Past Results' section of the
  TREC website": run input URLs under :data:`reeval.archive.scope.PAST_RESULTS`
  (``run_url_pattern``), and "at least 5 run files" (``n_runs_with_input_url >= 5``);
- ``formats``: "all files were in expected formats": ranked lists in TREC's run format.
  Decided from the catalog's ``kind``: a ``not-ranked`` track (filtering sets, answer
  strings, novelty sentences, push notifications) or one without runs fails; the other
  kinds (``adhoc``, ``ranked-other``) pass, whatever their task, since the paper names no
  task. Whether the files really parse is decided only on the files (the fetch).

The stated criteria keep far more than the paper's 76 tracks (:func:`totals_text`), so the
paper applied choices it does not state. reeval's reading (``study.scope:
asl-paper-adhoc``): the catalog's ad hoc tasks only (``kind = adhoc``); it keeps 71 tracks,
not 76 either (the 5 TREC-COVID rounds, ad hoc but outside TREC's Past Results, would make
76 with a stated criterion broken). :func:`year_table` names, per year, the tracks the
stated criteria keep that are not ad hoc tasks, and the ad hoc tasks they leave out, why.
"""

from __future__ import annotations

import math

import pandas as pd

from .scope import PAPER_COUNTS, PAPER_MIN_RUNS, PAPER_YEARS, PAST_RESULTS

#: the stated criteria, in the order they are tried: key -> what failing it means
CRITERIA = {
    "years": f"outside the paper's 28 years ({PAPER_YEARS[0]}-{PAPER_YEARS[1]})",
    "web 2003": "the 2003 Web track, which the paper skipped",
    "qrels": "no qrels file identified (the catalog has no direct qrels-file link)",
    "past results": "run files not in TREC's Past Results",
    "run files": f"fewer than {PAPER_MIN_RUNS} run files",
    "formats": "runs not ranked lists in TREC's run format",
}
#: the catalog kinds whose runs are not ranked lists
NOT_RANKED = ("not-ranked", "no-runs")
#: the columns of :func:`catalog_table`
TABLE_COLUMNS = ("edition", "year", "track", "task", "kind", "notes", "runs", "stated", "adhoc", "criterion", "reason",
                 "study", "catalog")


def _text(value) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def stated_reason(row) -> tuple[str, str] | None:
    """Why the paper's stated criteria leave a catalog track (a mapping with ``tracks.csv``'s
    columns) out, as (criterion, detail) with the criterion a key of :data:`CRITERIA` (the
    first that fails); None when they keep it."""
    year = int(row["year"])
    if not PAPER_YEARS[0] <= year <= PAPER_YEARS[1]:
        return "years", f"TREC {year}"
    if row["trec_edition"] == "trec12" and row["track"] == "web":
        return "web 2003", "topic sets meant to be evaluated separately"
    if _text(row["has_qrels_file_link"]) != "yes":
        return "qrels", _text(row.get("notes")) or "no qrels link"
    pattern = _text(row["run_url_pattern"])
    if not pattern.startswith(PAST_RESULTS):
        return "past results", f"runs on {pattern.split('/')[2]}" if "//" in pattern else "no run URL"
    runs = int(row["n_runs_with_input_url"])
    if runs < PAPER_MIN_RUNS:
        return "run files", f"{runs} run files"
    if _text(row["kind"]) in NOT_RANKED:
        return "formats", _text(row.get("notes")) or _text(row["kind"])
    return None


def _key(edition, track, task) -> tuple:
    return str(edition), str(track), _text(task)


def catalog_table(tracks: pd.DataFrame, study: dict) -> pd.DataFrame:
    """One row per catalog track (``tracks``: ``tracks.csv``): edition, year, track, task,
    kind and notes (the catalog's), runs (run files with an input URL), stated (the stated criteria
    keep it), adhoc (they keep it and its kind is ``adhoc``: reeval's ad hoc reading),
    criterion and reason (why not, :func:`stated_reason`), study (the id of the study's track
    for it, "" when the study has none; ``study``: the in-scope manifest entries) and catalog
    (its ``analysis_candidate`` flag and notes)."""
    ids = {_key(e.get("edition"), e.get("track"), e.get("task")): tid for tid, e in study.items()}
    rows = []
    for r in tracks.to_dict("records"):
        why = stated_reason(r)
        notes = _text(r.get("notes"))
        rows.append({"edition": r["trec_edition"], "year": int(r["year"]), "track": r["track"],
                     "task": _text(r.get("task")), "kind": _text(r["kind"]), "notes": notes,
                     "runs": int(r["n_runs_with_input_url"]),
                     "stated": why is None, "adhoc": why is None and _text(r["kind"]) == "adhoc",
                     "criterion": why[0] if why else "", "reason": f"{CRITERIA[why[0]]}: {why[1]}" if why else "",
                     "study": ids.get(_key(r["trec_edition"], r["track"], r.get("task")), ""),
                     "catalog": f"analysis_candidate = {r['analysis_candidate']}" + (f" ({notes})" if notes else "")})
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


def _name(r) -> str:
    return f"{r.edition} {r.track}" + (f" ({r.task})" if r.task else "")


def year_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per year of the paper (:data:`PAPER_YEARS`) of :func:`catalog_table`: the tracks and
    run files the stated criteria keep and the ad hoc ones among them (reeval's reading), with
    why each side differs from the other (``;``-separated): the tracks kept that are not ad
    hoc tasks (their catalog kind and notes), and the ad hoc tasks the stated criteria leave
    out (the criterion)."""
    rows = []
    for year in range(PAPER_YEARS[0], PAPER_YEARS[1] + 1):
        g = table[table.year == year]
        kept, adhoc = g[g.stated], g[g.adhoc]
        other = kept[~kept.adhoc]
        dropped = g[(g.kind == "adhoc") & ~g.stated]
        rows.append({"year": year, "stated: tracks": len(kept), "stated: run files": int(kept.runs.sum()),
                     "ad hoc: tracks": len(adhoc), "ad hoc: run files": int(adhoc.runs.sum()),
                     "stated, not ad hoc (catalog)": "; ".join(f"{_name(r)}, {r.runs} runs: {r.kind}"
                                                               + (f" ({r.notes})" if r.notes else "")
                                                               for r in other.itertuples()),
                     "ad hoc, not stated (why)": "; ".join(f"{_name(r)}: {r.reason}" for r in dropped.itertuples())})
    return pd.DataFrame(rows)


def totals_text(table: pd.DataFrame) -> str:
    """One sentence: the tracks and run files the stated criteria keep, the ad hoc ones among
    them, and the paper's (:data:`reeval.archive.scope.PAPER_COUNTS`), and the tracks each
    criterion leaves out in the paper's years."""
    years = table[table.year.between(*PAPER_YEARS)]
    kept, adhoc = years[years.stated], years[years.adhoc]
    out = years[~years.stated]
    left = ", ".join(f"{int((out.criterion == c).sum())} by {c}" for c in CRITERIA if (out.criterion == c).any())
    return (f"The paper's stated criteria keep {len(kept)} of the catalog's {len(years)} tracks of "
            f"{PAPER_YEARS[0]}-{PAPER_YEARS[1]} ({int(kept.runs.sum()):,} run files; left out: {left}); the ad hoc "
            f"tasks among them {len(adhoc)} ({int(adhoc.runs.sum()):,} run files); the paper "
            f"{PAPER_COUNTS['tracks']} tracks and {PAPER_COUNTS['runs']:,} run identifiers.")
