"""Workflow steps of the reusability study (rules ``reusability`` and ``reusability_summary``).

Per track (``<results>/tracks/<track>/reusability/``, names in TRACK_TABLES/TRACK_FIGURES):

- ``by_run.parquet``/``.csv``: :func:`reeval.analyses.reusability.table.reusability_table`'s
  rows (group, run, measure, score, score_logo, delta, rank, rank_logo, removed,
  removed_relevant) with the track.
- ``verdict.csv``: one row per measure (:func:`.table.verdicts`) with the track, where the
  groups came from (``groups_from``) and the pool depth.
- ``groups.csv``: one row per group: its runs, the pairs removed, the relevant ones.
- ``preferences.csv``: one row per group: lexicographic precision's agreement
  (:func:`.preference_agreement.preference_agreement`; the track's is in ``verdict.csv``).
- figure ``scores`` (PNG + PDF, :func:`.figures.plot_scores`) when per-track figures are drawn.

A figure that cannot be drawn never ends the step (:func:`reeval.report.figures.drawn_or_told`):
the tables are written first, and the figure's files then state why it is missing.

Across tracks (``<results>/reusability/``): ``verdicts.csv`` (every track's verdicts),
``summary.md`` (where each track's groups came from; the tracks whose runs were each left
out alone, named with :data:`.groups.ALONE`: :func:`summary_markdown`) and the figure
``tau_by_track`` (:func:`.figures.plot_tau_by_track`).

Groups (:func:`track_groups`): a track entry's ``groups:`` (a mapping run -> group, a
file as ``reeval reusability --groups`` reads it, or a regular expression whose first
group names it), else the ``participant`` of each run of a fetched track (the
manifest's), else the participant (team, group) column of the track's official figures
when they are a leaderboard, else every run alone, which the log, ``verdict.csv``
(``groups_from``) and the report's ``summary.md`` say overstates reusability. The files
are the job's inputs (:func:`rule_inputs`): editing one reruns the job and what reads its
tables, nothing else. The pool depth: the entry's
``pool_depth``, else the study's ``reusability.depth``; the pooled runs: the entry's
``pooled`` (a file or a pattern), else every run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reeval.choices import REUSABILITY_PLACES
from reeval.errors import InputError
from reeval.io.tables import write_table, write_table_pair
from reeval.report.figures import drawn_or_told

from .preference_agreement import AGREEMENT_COLUMNS
from .table import TABLE_COLUMNS, VERDICT_COLUMNS

TRACK_TABLES = ("by_run.parquet", "by_run.csv", "verdict.csv", "groups.csv", "preferences.csv")
TRACK_FIGURES = ("scores.png", "scores.pdf")
#: under ``<results>/reusability/``
SUMMARY_TABLES = ("verdicts.csv",)
#: under ``<results>/reusability/``: the report's text above the tables (:func:`summary_markdown`)
SUMMARY_MARKDOWN = "summary.md"
SUMMARY_FIGURES = ("tau_by_track.png", "tau_by_track.pdf")
BY_RUN_COLUMNS = ("track",) + TABLE_COLUMNS
TRACK_VERDICT_COLUMNS = ("track", "groups_from") + VERDICT_COLUMNS
GROUP_COLUMNS = ("track", "group", "runs", "removed", "removed_relevant")
#: ``groups_from`` of a track given no groups (:func:`track_groups`)
ALONE_FROM = "each run alone"
PREFERENCE_COLUMNS = ("track",) + AGREEMENT_COLUMNS


def track_groups(entry: dict, official: str | None = None) -> tuple[dict | str | None, str]:
    """``(groups, where from)`` of a track entry, the first there is of: its ``groups:`` (a
    mapping, ``"config"``; a file's path as ``--groups`` reads it, ``"file"``; or a pattern
    string, ``"pattern"``), the manifest's ``participant`` of each fetched run
    (``"manifest"``), the track's official figures ``official`` when they are a leaderboard
    naming each run's participant, team or group (:func:`.groups.has_group_columns`; the
    file's path, ``"official"``), or None (``"each run alone"``: :data:`.groups.ALONE`).
    Files are read by the job (:func:`track_reusability`), which has them as inputs
    (:func:`rule_inputs`)."""
    import os

    from .groups import has_group_columns

    spec = entry.get("groups")
    if isinstance(spec, dict):
        return {str(k): str(v) for k, v in spec.items()}, "config"
    if isinstance(spec, str):
        return spec, "file" if os.path.isfile(spec) else "pattern"
    runs = (entry.get("urls") or {}).get("runs") or []
    found = {r["run"]: r["participant"] for r in runs if r.get("participant")}
    if found:
        return found, "manifest"
    if official and has_group_columns(official):
        return official, "official"
    return None, ALONE_FROM


def rule_options(config: dict, track: str, official: str | None = None) -> dict:
    """What the ``reusability`` rule passes for ``track`` of a config whose defaults are filled
    in (:func:`reeval.workflow.config_check.with_defaults` gives every track every reading
    option; ``official``: the file of the track's official figures, if any): groups and
    where they come from (:func:`track_groups`), pool depth, pooled runs, the study's options."""
    entry, section = config["tracks"][track], config["reusability"]
    groups, groups_from = track_groups(entry, official)
    return dict(groups=groups, groups_from=groups_from, depth=entry.get("pool_depth") or section["depth"],
                pooled=entry.get("pooled"), measures=list(section["measures"]), places=section["places"],
                relevance_level=entry["relevance_level"], precision=entry["precision"],
                unretrieved=config["asl"]["unretrieved"], alpha=section["alpha"],
                systems=config["rareness"]["systems"])


def rule_inputs(options: dict) -> dict:
    """The files of :func:`rule_options` the job reads besides the track's tables: the
    groups file (``groups``: a ``groups:`` file or the official leaderboard) and the pooled
    runs' file (``pooled``), so that editing one reruns the job, and only it and what reads
    its tables."""
    import os

    files = {}
    if options["groups_from"] in ("file", "official"):
        files["groups"] = options["groups"]
    if isinstance(options["pooled"], str) and os.path.isfile(options["pooled"]):
        files["pooled"] = options["pooled"]
    return files


def track_reusability(track: str, track_dir, out_dir, measure_specs, groups=None, groups_from: str = "",
                      depth: int = 100, rel_level: int = 1, precision: str = "float64",
                      unretrieved: str = "after_last", places: int = REUSABILITY_PLACES, alpha=1.0,
                      systems: str = "all",
                      pooled=None, figures: bool = True) -> dict:
    """Compute and write the per-track tables (module doc), and the figure when ``figures``.
    ``groups``: a mapping run -> group, a pattern, the path of a groups file (``groups_from``
    ``"file"`` or ``"official"``, :func:`.groups.read_groups`), or None; ``pooled``: the
    runs that built the pool, a file or a pattern (:func:`.groups.read_pooled`), or None
    (every run). A groups mapping from the config or a file, or a pooled-runs file, that
    names no run of the track (left out at ingest or not) while a run is not named is an
    InputError naming them; so is a pattern that does not match a run or captures nothing.
    Returns the tables."""
    from reeval.measures import build_grid, parse_measures
    from reeval.workflow.measures_step import read_track_tables
    from reeval.workflow.run_inclusion import included_runs, read_ingest_report

    from .core import coded_docnos, groups_from_pattern
    from .groups import check_known_runs, read_groups, read_pooled
    from .table import reusability_table, verdicts

    version = 9 if precision == "float32" else 10
    measures = [m for m in parse_measures(list(measure_specs), version) if not m.is_text and m.aggregate == "mean"]
    judged, depth_table, qrels = read_track_tables(track_dir)
    judged, qrels = coded_docnos(judged, qrels)
    report = read_ingest_report(track_dir)
    every_run = list(report.loc[report["kind"] == "run", "run"])  # those left out at ingest too
    grid = build_grid(judged, depth_table, qrels, runs=included_runs(report), keep_docno=True)
    if isinstance(groups, str) and groups_from in ("file", "official"):
        groups = read_groups(groups)
    if isinstance(groups, str):
        try:
            groups = groups_from_pattern(grid.runs, groups)
        except ValueError as exc:
            raise InputError(f"{track}: groups: {exc}") from None
    elif groups is not None and groups_from in ("config", "file", "official"):
        check_known_runs(groups, every_run, f"{track}: groups")
    if isinstance(pooled, str):
        pooled = read_pooled(pooled, every_run)
    table = reusability_table(grid, groups, measures, depth=depth, rel_level=rel_level, unretrieved=unretrieved,
                              version=version, alpha=alpha, systems=systems, pooled=pooled, preferences=True)
    table.insert(0, "track", track)
    verdict = verdicts(table, places)
    verdict.insert(0, "groups_from", groups_from)
    verdict.insert(0, "track", track)
    out = Path(out_dir)
    write_table_pair(table, out, "by_run", columns=list(BY_RUN_COLUMNS))
    write_table(verdict, out / "verdict.csv", columns=list(TRACK_VERDICT_COLUMNS))
    per_group = group_table(table)
    write_table(per_group, out / "groups.csv", columns=list(GROUP_COLUMNS))
    preferences = pd.DataFrame(table.attrs["preferences"]["by_group"], columns=list(AGREEMENT_COLUMNS))
    preferences.insert(0, "track", track)
    write_table(preferences, out / "preferences.csv", columns=list(PREFERENCE_COLUMNS))
    if figures:
        track_reusability_figure(track, out)
    return {"by_run": table, "verdict": verdict, "groups": per_group, "preferences": preferences}


def track_reusability_figure(track: str, out_dir) -> None:
    """The figure ``scores`` of one track, drawn from the ``by_run.parquet`` and the pool
    depth of ``verdict.csv`` :func:`track_reusability` wrote in ``out_dir`` (the rule
    ``track_figures``, apart from the per-track job, so that whether a study draws it is no
    input of that job). A figure that cannot be drawn says so in its files (:func:`drawn_or_told`)."""
    from .figures import plot_scores

    out = Path(out_dir)
    table = pd.read_parquet(out / "by_run.parquet")
    depth = pd.read_csv(out / "verdict.csv", usecols=["pool_depth"])["pool_depth"]
    if len(depth):
        table.attrs["depth"] = int(depth.iloc[0])
    with drawn_or_told(out / "scores"):
        plot_scores(table, out / "scores", track)


def group_table(table) -> pd.DataFrame:
    """One row per group of a track's table: track, group, runs, removed, removed_relevant."""
    first = table[table["measure"] == table["measure"].iloc[0]] if len(table) else table
    out = (first.groupby(["track", "group"], sort=False)
           .agg(runs=("run", "size"), removed=("removed", "first"), removed_relevant=("removed_relevant", "first"))
           .reset_index())
    return out.sort_values(["removed", "group"], ascending=[False, True], kind="stable").reset_index(drop=True)


def summarize_reusability(tracks: dict, out_dir) -> pd.DataFrame:
    """Stack every track's verdicts (``{track: its reusability folder}``) into
    ``verdicts.csv``, write ``summary.md`` (:func:`summary_markdown`) and draw
    ``tau_by_track`` in ``out_dir``. Returns the table."""
    from reeval.io.tables import write_text

    from .figures import plot_tau_by_track

    columns = list(TRACK_VERDICT_COLUMNS)
    frames = [pd.read_csv(Path(d) / "verdict.csv", keep_default_na=False, na_values=[""]) for d in tracks.values()]
    stacked = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    out = Path(out_dir)
    write_table(stacked, out / "verdicts.csv", columns=columns)
    write_text(summary_markdown(stacked), out / SUMMARY_MARKDOWN)
    with drawn_or_told(out / "tau_by_track"):
        plot_tau_by_track(stacked.astype({"kendall_tau_left_out": np.float64}), out / "tau_by_track")
    return stacked


def summary_markdown(stacked: pd.DataFrame) -> str:
    """The report's text on reusability: how many tracks took their groups from where
    (``groups_from``), and, in bold, the tracks whose runs were each left out alone (no
    groups given: :data:`.groups.ALONE`), named (Markdown-escaped)."""
    from reeval.report.escape import markdown_text

    from .groups import ALONE

    per_track = stacked.drop_duplicates("track")[["track", "groups_from"]] if len(stacked) else stacked
    lines = ["Leave one group out (docs/studies.md, \"Reusability\"): each group's runs scored without the "
             "judged documents only that group's runs placed in their top pool depth.", ""]
    if not len(per_track):
        return "\n".join(lines + ["No track was tested."]) + "\n"
    counts = per_track["groups_from"].value_counts(sort=False)
    lines.append(f"Groups of the {len(per_track)} track{'s' if len(per_track) > 1 else ''}: "
                 + ", ".join(f"{markdown_text(source)} {n}" for source, n in counts.items()) + ".")
    alone = per_track.loc[per_track["groups_from"] == ALONE_FROM, "track"].astype(str).tolist()
    if alone:
        lines += ["", f"**{ALONE[0].upper()}{ALONE[1:]}**, in {len(alone)} track{'s' if len(alone) > 1 else ''}: "
                  + ", ".join(markdown_text(t) for t in alone) + " (their entries' `groups:`, or an `official:` "
                  "leaderboard with a participant column, give the groups)."]
    return "\n".join(lines) + "\n"
