"""A study's tracks: fetching a ``urls`` track into a folder ingest reads, and the inclusion table.

A track enters the cross-track tables (as the reanalysis study decided) only when its
qrels and runs were identified and fetched (complete; a file whose md5 differs from the
catalog's is kept and reported unless ``strict_md5``), parse in the expected formats (with the
track's ``on_malformed`` option) and at least ``study.min_runs`` runs remain, a run
counting when it parses and has at least one line on a topic of the qrels.

:func:`fetch_track` never raises for a problem of the track itself: it returns a status
(``usable`` true/false and the reason) and a fetch report with one row per file, whose
``use`` column says ``ok`` or why the file is not used. A track's alternative qrels (the
manifest's ``urls: alternative_qrels:``, the qrels the audit searches) are fetched with it into
``alternative_qrels/<i>/``; one that fails is reported and never leaves the track out.
:func:`inclusion_table` turns the statuses and the ingest reports into one row per track.
"""

from __future__ import annotations

import json
import shutil
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from reeval.io.tables import write_text
from reeval.workflow.run_inclusion import read_ingest_report, run_inclusion

if TYPE_CHECKING:
    from .fetch import FileSpec

# Fetching (requests, tqdm, the readers, unpack) is imported by the functions that fetch:
# the Snakefile and the cross-track jobs read this module for its table and constants only.

#: What an empty cross-track output says (summary.md, paper_comparison.md, figures).
NO_TRACK_INCLUDED = ("No track is included, so the cross-track tables are empty (they keep their "
                     "columns). `summary/inclusion.csv` in the results folder lists every track of "
                     "the configuration and why it was left out (for instance fewer than "
                     "`study.min_runs` runs with a line on a judged topic).")
NO_TRACK_FIGURE_NOTE = "no track included:\nsee summary/inclusion.csv"


#: the fetch report's kind of an alternative qrels file, and the track folder's subfolder of them
ALTERNATIVE = "alternative qrels"
ALTERNATIVE_FOLDER = "alternative_qrels"


def file_specs(entry: dict) -> list[FileSpec]:
    """The files of a ``urls`` entry: qrels (``qrels``, ``qrels-2`` ...), its alternative qrels
    (``alternative-qrels-1`` ...), then runs by tag."""
    from .fetch import FileSpec

    urls = entry["urls"]
    specs = [FileSpec("qrels" if i == 0 else f"qrels-{i + 1}", "qrels", q["url"], q.get("md5"))
             for i, q in enumerate(urls["qrels"])]
    specs += [FileSpec(f"alternative-qrels-{i + 1}", ALTERNATIVE, q["url"], q.get("md5"))
              for i, q in enumerate(urls.get("alternative_qrels", []))]
    specs += [FileSpec(r["run"], "run", r["url"], r.get("md5")) for r in urls["runs"]]
    tags = [s.name for s in specs if s.kind == "run"]
    if len(set(tags)) != len(tags):
        raise ValueError(f"run tags listed twice: {sorted({t for t in tags if tags.count(t) > 1})}")
    return specs


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def check_runs(qrels_path, run_files: dict, on_malformed: str = "error", threads: int = 2):
    """Parse the qrels and each run; -> (judged topics, {tag: None if usable else reason}).

    Raises the qrels' parse error (the caller fails the track with it).
    """
    import pyarrow.compute as pc

    from reeval.io.trecio import parse_qrels, parse_run

    qrels, _ = parse_qrels(qrels_path, on_malformed=on_malformed)
    topics = pc.unique(qrels["qid"])

    def one(item):
        tag, path = item
        try:
            table, _ = parse_run(path, on_malformed=on_malformed)
        except Exception as exc:  # a run that does not parse is left out, with the reason
            return tag, f"does not parse: {_short(exc)}"
        if not table.num_rows or not pc.any(pc.is_in(table["qid"], value_set=topics)).as_py():
            return tag, "no line on a topic of the qrels"
        return tag, None

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        verdicts = dict(pool.map(one, sorted(run_files.items())))
    return topics, verdicts


FETCHED = ("downloaded", "cached", "mirror")


def _fetch_all(track: str, entry: dict, data_dir, fetch: dict, status: dict, log):
    """Fetch every file of the entry: (results, the fetch report with a ``use`` column,
    {file: path} of the files fetched); counts runs fetched and md5 mismatches kept."""
    from .fetch import fetch_files, report_frame

    results = fetch_files(file_specs(entry), data_dir, mirror=fetch["mirror"], jobs=fetch["jobs"],
                          attempts=fetch["attempts"], timeout=fetch["timeout"], backoff=fetch["backoff"],
                          auth_hosts=fetch["auth_hosts"], strict_md5=fetch["strict_md5"], desc=track)
    report = report_frame(results)
    report["use"] = [None if r.outcome in FETCHED else f"{r.outcome}: {r.error}" for r in results]
    got = {r.file: r.path for r in results if r.outcome in FETCHED}
    kept_mismatch = [r for r in results if r.file in got and r.md5_match == "mismatch"]
    status["files_md5_mismatch"] = len(kept_mismatch)
    if log:
        for r in kept_mismatch:
            log.warning("%s: %s kept with md5_match mismatch: md5 %s, the manifest's %s (the catalog's "
                        "sum of the submitted file; strict_md5: true would reject it)",
                        track, r.file, r.md5, r.expected_md5)
    status["runs_fetched"] = sum(1 for r in results if r.kind == "run" and r.file in got)
    return results, report, got


def _qrels_refusal(results, got: dict, entry: dict, folder: Path, status: dict) -> str | None:
    """Why the track cannot be used for want of its qrels (an unauthorized file first),
    or None once they are unpacked into ``folder/qrels.txt``."""
    from .unpack import combine_qrels

    refused = [r for r in results if r.outcome == "unauthorized" and r.kind != ALTERNATIVE]
    if refused:
        return refused[0].error
    qrels_rows = [r for r in results if r.kind == "qrels"]
    failed = [r for r in qrels_rows if r.file not in got]
    if failed:
        return f"qrels not fetched: {failed[0].error}"
    try:
        info = combine_qrels([got[r.file] for r in qrels_rows], folder / "qrels.txt", entry["urls"].get("topics"))
    except Exception as exc:
        return f"qrels cannot be unpacked: {_short(exc)}"
    status["qrels_lines_other_topics"] = info["lines_other_topics"]
    status["qrels_members"] = info["members"]
    return None


def _place_alternatives(results, got: dict, entry: dict, folder: Path, report: pd.DataFrame) -> None:
    """Unpack each fetched alternative qrels file into ``folder/alternative_qrels/<i>/<its URL's
    file name>`` (the i-th of the entry's list; the qrels the audit searches, in that order), keeping
    the track's ``topics``. One that was not fetched or cannot be unpacked is left out, its
    ``use`` saying why: never a reason to leave the track out."""
    from .unpack import combine_qrels

    urls = entry["urls"]
    for r in results:
        if r.kind != ALTERNATIVE or r.file not in got:
            continue
        index = r.file.rsplit("-", 1)[1]
        name = r.url.rstrip("/").rsplit("/", 1)[-1] or "qrels"
        try:
            combine_qrels([got[r.file]], folder / ALTERNATIVE_FOLDER / index / name, urls.get("topics"))
        except Exception as exc:
            report.loc[report.file == r.file, "use"] = f"cannot be unpacked: {_short(exc)}"


def fetched_alternatives(folder) -> list[str]:
    """The alternative qrels files a fetch placed in a track's folder, in the entry's order."""
    root = Path(folder) / ALTERNATIVE_FOLDER
    if not root.is_dir():
        return []
    found = sorted((int(d.name), f) for d in root.iterdir() if d.name.isdigit() for f in d.iterdir() if f.is_file())
    return [str(f) for _, f in found]


def _runs_refusal(results, got: dict, folder: Path, report: pd.DataFrame, status: dict, min_runs: int,
                  on_malformed: str, log) -> str | None:
    """Unpack the fetched runs into ``folder/runs``, keep those that parse against the
    qrels (the others' ``use`` says why); why the track cannot be used, or None."""
    from .unpack import place_run

    placed = {}
    for r in results:
        if r.kind == "run" and r.file in got:
            try:
                placed[r.file] = place_run(got[r.file], folder / "runs", r.file)
            except Exception as exc:
                report.loc[report.file == r.file, "use"] = f"cannot be unpacked: {_short(exc)}"
    try:
        topics, verdicts = check_runs(folder / "qrels.txt", placed, on_malformed)
    except Exception as exc:
        if log:
            log.info(traceback.format_exc())
        return f"qrels do not parse: {_short(exc)}"
    status["qrels_topics"] = len(topics)
    if not len(topics):
        return "qrels hold no judgment"
    for tag, reason in verdicts.items():
        if reason:
            report.loc[report.file == tag, "use"] = reason
            placed.pop(tag).unlink()
    status["runs_parsed"] = len(placed)
    if len(placed) < min_runs:
        network = [r.error for r in results if r.kind == "run" and r.outcome == "unreachable"]
        because = f": {network[0]}" if network else ""  # the hosts of some runs cannot be reached
        return (f"{len(placed)} usable runs of {status['runs_listed']} listed; the study needs >= {min_runs}"
                f"{because}{min_runs_fix(len(placed))}")
    return None


def fetch_track(track: str, entry: dict, data_dir, fetch: dict, min_runs: int, on_malformed: str = "error",
                log=None) -> tuple[dict, pd.DataFrame, Path]:
    """Fetch, verify, unpack and check one ``urls`` track (see the module docstring).

    ``fetch`` is the config's ``fetch`` section with its defaults filled in
    (:func:`reeval.workflow.config_check.with_defaults`; ``data_dir`` is not read from it),
    ``min_runs`` the config's ``study.min_runs``.

    Returns (status, fetch report, track folder). The folder ``<data_dir>/tracks/<track>``
    holds ``qrels.txt`` and ``runs/<tag>`` of the usable runs (emptied first). The status
    says ``usable`` and the first reason the track cannot be used (``usable`` when none).
    """
    folder = Path(data_dir) / "tracks" / track
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "runs").mkdir(parents=True)
    status = {"track": track, "usable": False, "reason": None, "runs_listed": len(entry["urls"]["runs"]),
              "runs_fetched": 0, "runs_parsed": 0, "qrels_topics": 0, "qrels_lines_other_topics": 0}
    results, report, got = _fetch_all(track, entry, data_dir, fetch, status, log)
    reason = _qrels_refusal(results, got, entry, folder, status)
    if reason is None:
        _place_alternatives(results, got, entry, folder, report)
    if reason is None:
        reason = _runs_refusal(results, got, folder, report, status, min_runs, on_malformed, log)
    status["usable"] = reason is None
    status["reason"] = reason or "usable"
    report["use"] = report["use"].fillna("ok")
    if log:
        log.info("%s: %s", track, status["reason"])
    return status, report, folder


def write_status(status: dict, path) -> None:
    """The status as JSON (keys sorted), atomically."""
    write_text(json.dumps(status, indent=1, sort_keys=True) + "\n", path)


def read_status(path) -> dict:
    return json.loads(Path(path).read_text())


def source_kind(entry: dict) -> str:
    if "synthetic" in entry:
        return "synthetic"
    return "local" if "qrels" in entry else "urls"


INCLUSION_COLUMNS = ["track", "source", "year", "included", "reason", "runs_listed", "runs_fetched",
                     "runs_parsed", "runs_ingested", "runs_included", "qrels_topics"]


def inclusion_table(entries: dict, statuses: dict, ingest_reports: dict, min_runs: int) -> pd.DataFrame:
    """One row per track: included or not, and why.

    ``statuses``: track -> fetch status (``urls`` tracks); ``ingest_reports``: track ->
    path of its ``ingest_report.csv`` (tracks that were ingested). ``runs_ingested``
    counts the track's run files, ``runs_included`` the runs its analyses use
    (:func:`reeval.workflow.run_inclusion.run_inclusion`: runs that kept a line). A track is
    included when it was ingested and at least ``min_runs`` runs are included; one with
    fewer names the setting that would include it (``study.min_runs: N``). A local track
    (no fetch status) takes ``runs_listed`` (the files of its runs folder), ``runs_parsed``
    (those read as runs) and ``qrels_topics`` (the topics of its ``qrels.parquet``) from
    its ingest.
    """
    rows = []
    for track in sorted(entries):
        entry = entries[track]
        st = statuses.get(track, {})
        row = {"track": track, "source": source_kind(entry), "year": entry.get("year"),
               "runs_listed": st.get("runs_listed"), "runs_fetched": st.get("runs_fetched"),
               "runs_parsed": st.get("runs_parsed"), "runs_ingested": None, "runs_included": None,
               "qrels_topics": st.get("qrels_topics")}
        if st and not st.get("usable"):
            row.update(included=False, reason=st.get("reason"))
        elif track not in ingest_reports:
            row.update(included=False, reason="not ingested")
        else:
            report = read_ingest_report(ingest_reports[track])
            runs = run_inclusion(report)
            n = int(runs.included.sum())
            row.update(runs_ingested=len(runs), runs_included=n)
            if not st:
                row.update(_local_counts(report, Path(ingest_reports[track]).parent / "qrels.parquet"))
            if n >= min_runs:
                row.update(included=True, reason="included")
            else:
                row.update(included=False, reason=too_few_runs(n, len(runs), min_runs))
        rows.append(row)
    return pd.DataFrame(rows, columns=INCLUSION_COLUMNS)


def too_few_runs(n: int, n_files: int, min_runs: int) -> str:
    """Why a track with ``n`` runs that kept a line (of ``n_files``) is below ``study.min_runs``,
    and the setting that would include it (a study needs 2 runs to compare)."""
    left_out = f" ({n_files - n} kept no line)" if n < n_files else ""
    return f"{n} runs kept a line{left_out}; the study needs >= {min_runs}{min_runs_fix(n)}"


def min_runs_fix(n: int) -> str:
    """``; to include it, set study.min_runs: n`` for a track of n >= 2 usable runs (a
    study needs two runs to compare), else nothing."""
    return f"; to include it, set study.min_runs: {n}" if n >= 2 else ""


def _local_counts(report: pd.DataFrame, qrels_path: Path) -> dict:
    """runs_listed (files of the runs folder: read as runs or skipped), runs_parsed (read as
    runs) and qrels_topics (distinct topics of the qrels table, when it exists) of a local track."""
    import pyarrow.parquet as pq

    kinds = report["kind"]
    topics = len(pq.read_table(qrels_path, columns=["qid"]).column("qid").unique()) if qrels_path.is_file() else None
    return {"runs_listed": int(kinds.isin(["run", "skipped"]).sum()), "runs_parsed": int((kinds == "run").sum()),
            "qrels_topics": topics}


def included_tracks(inclusion_csv, tracks: dict) -> dict:
    """The entries of ``tracks`` (track -> anything) that the inclusion table includes."""
    included = set(pd.read_csv(inclusion_csv).query("included").track.astype(str))
    return {t: v for t, v in tracks.items() if t in included}
