"""A study's scope: which manifest tracks it takes, and its counts beside the ASL paper's.

``study.scope: all`` (the default) takes every manifest track (config/trec-manifest.yaml).
``study.scope: asl-paper`` applies the criteria the atomized-search-length paper states
(Alex, Hall & Metzler, section 4.1) to each manifest entry, and nothing else:

- the paper's years: "28 years of TREC" whose latest tracks are the 2020 Deep Learning
  tracks, so 1993-2020 (TREC 1992 published no runs);
- qrels and per-system run files identified, the runs from "the 'Past Results' section of
  the TREC website" (run URLs under :data:`PAST_RESULTS`; the TREC-COVID rounds sit in
  ir.nist.gov's own archive);
- at least 5 run files (the manifest's run files here; the fetch counts again the runs that
  parse, ``study.min_runs``);
- the 2003 Web track skipped (already absent from the manifest,
  :data:`reeval.archive.manifest.SKIPPED`).

The manifest holds every catalog track these criteria keep
(:mod:`reeval.archive.stated_criteria`), so this scope is the stated criteria on the whole
catalog: 138 tracks of ad hoc and other ranked tasks. ``study.scope: asl-paper-adhoc`` is
reeval's reading, not the paper's: the same criteria and the catalog's ad hoc tasks only
(an entry's ``kind`` is ``adhoc``), the restriction the paper's "70+ TREC tracks" seem to
imply but never state.

"All files were in expected formats" can only be decided on the files: the fetch and ingest
apply it (``summary/inclusion.csv`` says why a track is left out). No scope is tuned to hit
the paper's 76 tracks: :func:`counts_text` and :func:`year_table` say where and why ours
differ. The paper gives totals only (76 tracks, 4,302 run identifiers, 5,043 queries), so the
per-year table lists our tracks, not a year-by-year difference with the paper's.
"""

from __future__ import annotations

import pandas as pd

SCOPES = ("all", "asl-paper", "asl-paper-adhoc")
#: the scopes that apply the paper's stated criteria (the second adds the ad hoc restriction)
PAPER_SCOPES = ("asl-paper", "asl-paper-adhoc")
#: the ASL paper's own counts (section 4.1)
PAPER_COUNTS = {"tracks": 76, "runs": 4302, "queries": 5043}
#: the paper's years (see the module doc)
PAPER_YEARS = (1993, 2020)
#: where TREC's "Past Results" (run inputs) live
PAST_RESULTS = "https://trec.nist.gov/results/"
#: the paper's least number of run files per track
PAPER_MIN_RUNS = 5
#: the columns of :func:`scope_table`
SCOPE_COLUMNS = ("track", "year", "kind", "runs", "in_scope", "criterion", "reason")


#: the criteria of :func:`asl_paper_reason`, in the order they are tried: (key, what it says)
CRITERIA = {
    "years": f"outside the paper's 28 years ({PAPER_YEARS[0]}-{PAPER_YEARS[1]})",
    "qrels": "no qrels identified",
    "past results": "runs not in TREC's Past Results",
    "run files": f"fewer than {PAPER_MIN_RUNS} run files",
    "ad hoc": "not an ad hoc task (reeval's reading of the paper, study.scope asl-paper-adhoc)",
}


def asl_paper_reason(entry: dict, adhoc: bool = False) -> tuple[str, str] | None:
    """Why the ASL paper's criteria leave a manifest entry out, as (criterion, detail) with
    the criterion a key of :data:`CRITERIA` (the first that fails); None when they keep it.
    ``adhoc``: also leave out an entry whose ``kind`` is not ``adhoc`` (last, after the
    stated criteria)."""
    year = entry.get("year")
    if year is None or not PAPER_YEARS[0] <= int(year) <= PAPER_YEARS[1]:
        return "years", f"TREC {year}"
    if "urls" not in entry:  # a local folder or a synthetic track added to the manifest by hand
        return "past results", "files not from a URL"
    urls = entry.get("urls") or {}
    if not urls.get("qrels"):
        return "qrels", "no qrels URL"
    runs = urls.get("runs") or []
    elsewhere = sorted({str(r.get("url", "")).split("/")[2] if "//" in str(r.get("url", "")) else "no URL"
                        for r in runs if not str(r.get("url", "")).startswith(PAST_RESULTS)})
    if elsewhere:
        return "past results", f"runs on {', '.join(elsewhere)}"
    if len(runs) < PAPER_MIN_RUNS:
        return "run files", f"{len(runs)} run files"
    if adhoc and entry.get("kind") != "adhoc":
        return "ad hoc", f"the catalog's kind is {entry.get('kind') or 'not given'}"
    return None


def scope_table(manifest: dict, scope: str) -> pd.DataFrame:
    """One row per manifest track: track, year, kind (the catalog's, "" when the entry has
    none), runs (run files listed), in_scope, criterion
    (the :data:`CRITERIA` key that leaves it out, "" when kept) and reason (its detail).
    ValueError for a scope not in :data:`SCOPES`."""
    if scope not in SCOPES:
        raise ValueError(f"study.scope must be one of {SCOPES}, not {scope!r}")
    rows = []
    for track, entry in manifest.items():
        why = asl_paper_reason(entry, scope == "asl-paper-adhoc") if scope in PAPER_SCOPES else None
        rows.append({"track": track, "year": entry.get("year"), "kind": entry.get("kind") or "",
                     "runs": len((entry.get("urls") or {}).get("runs") or []),
                     "in_scope": why is None, "criterion": why[0] if why else "",
                     "reason": f"{CRITERIA[why[0]]}: {why[1]}" if why else ""})
    return pd.DataFrame(rows, columns=list(SCOPE_COLUMNS))


def in_scope(manifest: dict, scope: str) -> dict:
    """The manifest entries the scope keeps, in the manifest's order."""
    table = scope_table(manifest, scope)
    keep = set(table.track[table.in_scope])
    return {k: v for k, v in manifest.items() if k in keep}


def paper_track_sets(manifest: dict) -> dict:
    """``{scope: {"tracks": n, "runs": run files}}`` for each of :data:`PAPER_SCOPES` on the
    manifest: section 4.1's counts at the stated setting and at reeval's ad hoc reading."""
    out = {}
    for scope in PAPER_SCOPES:
        kept = scope_table(manifest, scope).query("in_scope")
        out[scope] = {"tracks": len(kept), "runs": int(kept.runs.sum())}
    return out


def year_table(table: pd.DataFrame, years: tuple[int, int] = PAPER_YEARS) -> pd.DataFrame:
    """Per year of :func:`scope_table` (and every year of ``years`` without a manifest
    track): the manifest's tracks and runs, those in scope, and the tracks left out with
    their reason (``id: reason``, ``;``-separated)."""
    rows = []
    all_years = sorted(set(int(y) for y in table.year.dropna()) | set(range(years[0], years[1] + 1)))
    for year in all_years:
        g = table[table.year == year]
        kept, out = g[g.in_scope], g[~g.in_scope]
        why = "; ".join(f"{t}: {r}" for t, r in zip(out.track, out.reason)) if len(g) else "no track in the manifest"
        rows.append({"year": year, "manifest tracks": len(g), "manifest runs": int(g.runs.sum()),
                     "tracks in scope": len(kept), "runs in scope": int(kept.runs.sum()), "left out (why)": why})
    return pd.DataFrame(rows, columns=["year", "manifest tracks", "manifest runs", "tracks in scope",
                                       "runs in scope", "left out (why)"])


def _short_why(text: str) -> str:
    """The left-out column of :func:`year_table` with each track's reason said once."""
    if not text or ": " not in text:
        return text
    by_reason: dict = {}
    for item in text.split("; "):
        track, _, reason = item.partition(": ")
        by_reason.setdefault(reason, []).append(track)
    return "; ".join(f"{', '.join(tracks)}: {reason}" for reason, tracks in by_reason.items())


def queries_known(table: pd.DataFrame, inclusion: pd.DataFrame | None) -> tuple[int, int]:
    """(queries, tracks they were counted on): the qrels topics of the in-scope tracks that
    the inclusion table (``summary/inclusion.csv`` of an earlier run) includes; (0, 0) without it."""
    if inclusion is None or inclusion.empty or "qrels_topics" not in inclusion:
        return 0, 0
    kept = set(table.track[table.in_scope])
    inc = inclusion[inclusion.track.isin(kept) & inclusion.included.astype(bool)]
    topics = pd.to_numeric(inc.qrels_topics, errors="coerce").dropna()
    return int(topics.sum()), int(len(topics))


def adhoc_years_text(table: pd.DataFrame, years: tuple[int, int] = PAPER_YEARS) -> str:
    """One line: per year of ``years``, the tracks in scope of :func:`scope_table` and the ad
    hoc tasks among them (``kind`` ``adhoc``): where the stated criteria and reeval's ad hoc
    reading part, the paper giving totals only."""
    kept = table[table.in_scope]
    per_year = ", ".join(f"{y} {int((kept.year == y).sum())} ({int(((kept.year == y) & (kept.kind == 'adhoc')).sum())})"
                         for y in range(years[0], years[1] + 1))
    return (f"per year, tracks in scope (ad hoc tasks among them; docs/trec-archive.md says which and why): "
            f"{per_year}")


def counts_text(table: pd.DataFrame, scope: str, inclusion: pd.DataFrame | None = None) -> str:
    """The lines a run or dry run of a manifest study prints: the scope's tracks, runs and
    queries beside the paper's, the years where the study differs from the manifest (or has
    no track) with the tracks left out and why, for the paper's scopes its tracks per year
    (:func:`adhoc_years_text`), and how many tracks each criterion leaves out."""
    kept = table[table.in_scope]
    queries, counted = queries_known(table, inclusion)
    paper = PAPER_COUNTS
    q = (f"{queries:,} queries on the {counted} tracks included so far" if counted
         else "queries known once the qrels are fetched (summary/inclusion.csv, qrels_topics)")
    lines = [f"study scope {scope}: {len(kept)} of {len(table)} manifest tracks, {int(kept.runs.sum()):,} run files, {q}; "
             f"the ASL paper: {paper['tracks']} tracks, {paper['runs']:,} run identifiers, {paper['queries']:,} queries "
             f"(docs/trec-archive.md: per year, what differs and why)"]
    out = table[~table.in_scope]
    years = year_table(table) if scope in PAPER_SCOPES else year_table(table, (0, -1))
    differ = years[(years["tracks in scope"] != years["manifest tracks"]) | (years["manifest tracks"] == 0)]
    if len(differ):
        lines.append("  per year, where the study differs from the manifest or has no track:")
        for y in differ.itertuples(index=False):
            lines.append(f"    {y[0]}: {y[3]} of {y[1]} tracks, {y[4]:,} of {y[2]:,} run files; {_short_why(y[5])}")
    if scope in PAPER_SCOPES:
        lines.append("  " + adhoc_years_text(table))
    for criterion in CRITERIA:
        g = out[out.criterion == criterion]
        if len(g):
            lines.append(f"  left out: {len(g)} tracks, {int(g.runs.sum()):,} run files: {CRITERIA[criterion]}")
    return "\n".join(lines) + "\n"
