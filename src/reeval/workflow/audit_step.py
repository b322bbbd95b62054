"""The audit step of the workflow (rules ``audit`` and ``audit_summary``, docs/audit.md).

Per track with official figures (its entry's ``official:`` file): ``audit/official.csv`` and
``.parquet``, one row per figure (:data:`reeval.analyses.audit.core.COLUMNS`). The settings the
track was ingested with come from its Parquet tables (the other score ordering and
docno-ascending ties from its ``runs.parquet``); only an alternative qrels file is read. Across tracks:
``audit/summary.csv`` and ``summary.md`` (per track and block: runs, figures and their
statuses, the causes; tracks sorted from the most to the least trusted) and the figure
``trust_by_track``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reeval.analyses.audit.core import COLUMNS, STATUSES, audit
from reeval.io.tables import write_table, write_text

if TYPE_CHECKING:
    import pandas as pd

#: the columns of a track's ``runs.parquet`` the audit reads (the other orderings: no tag)
RUNS_COLUMNS = ["run", "qid", "docno", "score", "pos"]
#: those read dictionary-encoded: a name per run and per topic, repeated on every line, is
#: decoded once per row group rather than once per line (half the CPU of reading the table)
RUNS_DICTIONARY = ["run", "qid"]
#: a track's audit tables, relative to its folder
TRACK_AUDIT_FILES = ("audit/official.csv", "audit/official.parquet")
#: the cross-track outputs, relative to the results folder
SUMMARY_TABLES = ("audit/summary.csv", "audit/summary.md")
SUMMARY_FIGURES = ("audit/trust_by_track.png", "audit/trust_by_track.pdf")
#: the columns of summary.csv: one row per track and block
SUMMARY_COLUMNS = ["track", "block", "runs", "figures", "equal", "explained", "unexplained", "not_compared",
                   "causes", "setting", "reproduced", "settings_tried", "mismatched"]
#: the columns of summary.md's list of unexplained figures
UNEXPLAINED_COLUMNS = ["track", "block", "run", "measure", "official", "ours", "nearest", "difference"]
#: a track whose MAP figures are unexplained in more than this share is flagged as probably
#: matched to the wrong qrels or task
MISMATCH_SHARE = 0.5


def track_audit(track_dir, official_path, qrels_path, run_paths, options, out_dir, alternative_qrels=()):
    """Audit one track's official figures and write :data:`TRACK_AUDIT_FILES` under ``out_dir`` (the
    track's results folder).

    ``options``: the track's reading options (:func:`reeval.workflow.tracks.track_options`):
    its relevance level, precision and grade map are the audit's base setting.
    ``alternative_qrels``: its other qrels files (:func:`alternative_qrels_files`), searched as the
    qrels of its settings.
    Returns the audit table (Arrow, :data:`COLUMNS`). No pandas: the audit job imports none."""
    from reeval.analyses.audit.evaluate import TrackEvaluator
    from reeval.analyses.audit.official import read_official
    from reeval.analyses.audit.settings import Setting
    from reeval.io.trecio import run_names

    from .run_inclusion import included_runs, ingest_report_rows

    d = Path(track_dir)
    tables = tuple(read_parquet(d / f"{name}.parquet") for name in ("judged", "depth", "qrels"))
    names = run_names(run_paths)
    evaluate = TrackEvaluator(qrels_path, run_paths, names, ingested=(options["precision"], tables),
                              grade_map=options.get("grade_map"),
                              runs_table=lambda: read_parquet(d / "runs.parquet", columns=RUNS_COLUMNS,
                                                              dictionary=RUNS_DICTIONARY))
    setting = Setting(level=options["relevance_level"], precision=options["precision"])
    table = audit(read_official(official_path), evaluate, setting, included_runs(ingest_report_rows(d)),
                  *evaluate.limits(), alternatives=[str(p) for p in alternative_qrels])
    write_table(as_written(table), *(Path(out_dir) / name for name in TRACK_AUDIT_FILES))
    return table


def read_parquet(path, columns=None, dictionary=None):
    """The Arrow table of one Parquet file (``columns``: only those; ``dictionary``: those
    string columns as dictionary arrays, the same values), read by
    ``pyarrow.parquet.ParquetFile``: the same table as ``pq.read_table`` (one chunk per
    column rather than one per row group), without the dataset layer that ``pq.read_table``
    imports and sets up, which costs a fresh process about 0.1-0.3 s of CPU, a large part
    of an audit job."""
    import pyarrow.parquet as pq

    with pq.ParquetFile(path, read_dictionary=dictionary) as f:
        return f.read(columns=columns)


def as_written(table):
    """The audit table (Arrow) as the workflow writes it: ``ours``, ``ours_under_cause`` and
    ``difference`` as numbers (rounded as the figure was printed; null where not computed or
    ``nan``), ``settings_tried`` as an integer, ``official`` as printed."""
    import pyarrow as pa

    for name, kind, read in (("ours", pa.float64(), float), ("ours_under_cause", pa.float64(), float),
                             ("difference", pa.float64(), float), ("settings_tried", pa.int64(), int)):
        numbers = pa.array([read(text) if text else None for text in table.column(name).to_pylist()], kind,
                           from_pandas=True)  # NaN as null
        table = table.set_column(table.schema.get_field_index(name), name, numbers)
    return table


def block_summary(track: str, table: pd.DataFrame) -> pd.DataFrame:
    """One row per block of a track's audit table (:data:`SUMMARY_COLUMNS`)."""
    import pandas as pd

    from reeval.analyses.audit.core import reproduced_text

    rows = []
    for block, cells in table.groupby("block", sort=True):
        counts = cells["status"].value_counts()
        compared = cells[cells["status"] != "not compared"]
        causes = compared.loc[compared["status"] == "explained", "cause"].value_counts()
        maps = compared[compared["measure"].str.lower().isin(["map", "ap"])]
        rows.append({"track": track, "block": block, "runs": compared["run"].nunique(), "figures": len(compared),
                     **{s: int(counts.get(s, 0)) for s in STATUSES[:3]},
                     "not_compared": int(counts.get("not compared", 0)),
                     "causes": "; ".join(f"{c} ({n})" for c, n in causes.items()),
                     "setting": compared["setting"].iloc[0] if len(compared) else "",
                     "reproduced": reproduced_text(compared["status"], compared["reproduced_by"]),
                     "settings_tried": int(pd.to_numeric(compared["settings_tried"]).max()) if len(compared) else 0,
                     "mismatched": bool(len(maps)) and (maps["status"] == "unexplained").mean() > MISMATCH_SHARE})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def summarize_audits(tracks: dict, out_dir) -> pd.DataFrame:
    """Stack the audits of ``tracks`` (track -> its ``official.csv``) into
    :data:`SUMMARY_TABLES` and draw :data:`SUMMARY_FIGURES` under ``out_dir`` (the results
    folder). Tracks sorted by trust: the share of their figures equal or explained, then name."""
    import numpy as np
    import pandas as pd

    from reeval.analyses.audit.figures import plot_audit_trust

    tables = {t: pd.read_csv(p, dtype=str, keep_default_na=False) for t, p in tracks.items()}
    frames = [block_summary(t, table) for t, table in tables.items()]
    summary = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=SUMMARY_COLUMNS)
    summary = summary.astype({c: np.int64 for c in ("runs", "figures", "equal", "explained", "unexplained",
                                                    "not_compared", "settings_tried")})
    trust = trust_by_track(summary)
    summary = summary.set_index("track").loc[trust["track"]].reset_index() if len(summary) else summary
    out = Path(out_dir)
    write_table(summary, out / SUMMARY_TABLES[0], columns=SUMMARY_COLUMNS)
    write_text(summary_markdown(summary, trust, unexplained_figures(tables)), out / SUMMARY_TABLES[1])
    plot_audit_trust(trust, out / SUMMARY_FIGURES[0].removesuffix(".png"))
    return summary


def trust_by_track(summary: pd.DataFrame) -> pd.DataFrame:
    """Per track: figures compared, equal, explained, unexplained and the share trusted
    (equal or explained), most trusted first (ties by track name)."""
    import numpy as np

    per = summary.groupby("track")[["figures", "equal", "explained", "unexplained"]].sum().reset_index()
    per["trusted"] = np.where(per["figures"] > 0, (per["equal"] + per["explained"]) / per["figures"].clip(lower=1),
                              np.nan)
    per["mismatched"] = summary.groupby("track")["mismatched"].any().reindex(per["track"]).to_numpy()
    return per.sort_values(["trusted", "track"], ascending=[False, True], na_position="last").reset_index(drop=True)


def closing_line(summary: pd.DataFrame) -> str:
    """``official scores: 6,123 of 6,497 equal, 301 explained, 73 unexplained in 3 tracks``."""
    total = int(summary["figures"].sum())
    unexplained = summary.loc[summary["unexplained"] > 0, "track"].nunique()
    return (f"official scores: {int(summary['equal'].sum()):,} of {total:,} equal, "
            f"{int(summary['explained'].sum()):,} explained, {int(summary['unexplained'].sum()):,} unexplained"
            + (f" in {unexplained} track{'s' if unexplained != 1 else ''}" if unexplained else ""))


def unexplained_figures(tables: dict) -> pd.DataFrame:
    """The unexplained figures of the tracks' audit tables (track -> table, strings), with
    the setting printing the nearest figure and the difference (:data:`UNEXPLAINED_COLUMNS`)."""
    import pandas as pd

    frames = [table.loc[table["status"] == "unexplained"].assign(track=track)[UNEXPLAINED_COLUMNS]
              for track, table in tables.items()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=UNEXPLAINED_COLUMNS)


def summary_markdown(summary: pd.DataFrame, trust: pd.DataFrame, unexplained=None) -> str:
    """summary.md: the closing line, the tracks by trust, each block's counts, causes and the
    settings reproducing its figures, then each unexplained figure with the setting printing
    the nearest figure (``unexplained``: :func:`unexplained_figures`)."""
    from reeval.report.escape import markdown_text

    lines = ["# Official figures against reeval's", "", closing_line(summary) + ".", ""]
    if not len(summary):
        return "\n".join(lines + ["No track of this study gives official figures (a track's `official:` file)."]) + "\n"
    lines += ["| track | figures | equal | explained | unexplained | trusted |", "|---|---:|---:|---:|---:|---:|"]
    for row in trust.itertuples(index=False):
        flag = " (probably mismatched: most MAPs unexplained)" if row.mismatched else ""
        lines.append(f"| {markdown_text(row.track)}{flag} | {row.figures:,} | {row.equal:,} | {row.explained:,} | "
                     f"{row.unexplained:,} | {row.trusted:.1%} |")
    lines += ["", "Each block is audited at its setting; where figures differ, the settings of the lattice (relevance "
              "level, the gains below it, trec_eval 9.x or 10 ordering, -c, -M, ties, alternative qrels) are searched, "
              "the fewest causes first. *Reproduced by* says which setting prints each block's figures.", "",
              "| track | block | runs | audited at | equal | explained | unexplained | not compared | causes | "
              "reproduced by | settings tried |", "|---|---|---:|---|---:|---:|---:|---:|---|---|---:|"]
    for row in summary.itertuples(index=False):
        lines.append(f"| {markdown_text(row.track)} | {markdown_text(row.block)} | {row.runs:,} | "
                     f"{markdown_text(row.setting)} | {row.equal:,} | {row.explained:,} | {row.unexplained:,} | {row.not_compared:,} | "
                     f"{markdown_text(row.causes)} | {markdown_text(row.reproduced)} | {row.settings_tried:,} |")
    if unexplained is not None and len(unexplained):
        lines += ["", "## Unexplained figures", "", "No setting tried reproduces the figure's run in its block; the "
                  "nearest is the setting printing the figure nearest the official one, the difference official - "
                  "nearest.", "", "| " + " | ".join(UNEXPLAINED_COLUMNS) + " |",
                  "|" + "---|" * len(UNEXPLAINED_COLUMNS)]
        lines += ["| " + " | ".join(markdown_text(str(v)) for v in row) + " |"
                  for row in unexplained.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def official_file(track: str, entry: dict) -> str | None:
    """The file of a track's official figures (its entry's ``official:``), None when it gives
    none. Raises :class:`reeval.errors.InputError` naming the track when the file is missing."""
    from reeval.errors import InputError

    path = entry.get("official")
    if path and not Path(path).is_file():
        raise InputError(f"tracks: {track}: official: {path}: no such file (the track's published figures, "
                         "docs/audit.md)")
    return path or None


def alternative_qrels_files(track: str, entry: dict, fetched_folder=None) -> list[str]:
    """A track's alternative qrels files, searched by the audit as the qrels of its settings, in order:
    a local track's ``alternative_qrels:``, or, given the folder a fetch wrote
    (``fetched_folder``), the files of a manifest track's ``urls: alternative_qrels:`` it
    placed there (:func:`reeval.archive.inclusion.fetched_alternatives`). Raises
    :class:`reeval.errors.InputError` naming the track and the file when a local one is missing."""
    from reeval.errors import InputError

    if fetched_folder is not None:
        from reeval.archive.inclusion import fetched_alternatives

        return fetched_alternatives(fetched_folder)
    paths = [str(p) for p in entry.get("alternative_qrels") or ()]
    for path in paths:
        if not Path(path).is_file():
            raise InputError(f"tracks: {track}: alternative_qrels: {path}: no such file (another qrels file the "
                             "track's official figures may come from, docs/audit.md)")
    return paths
