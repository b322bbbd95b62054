"""Track entries of the workflow configuration: where a track's files are and how to read them.

A track entry (``tracks: {<id>: {...}}`` in the config) is either

- local files: ``qrels`` (a path or a glob matching exactly one file) and ``runs`` (a
  folder, read with every subfolder, :func:`list_runs`; a glob; or a list of paths/globs); or
- ``synthetic: <name>``: a track of the built-in seeded campaign, written by the
  workflow itself (``reeval.synth.tracks.DEFAULT_CAMPAIGN``).

plus reading options: ``relevance_level``, ``precision``, ``on_malformed``, ``grade_map``
(relabel qrels grades, e.g. ``{1: 0}``), each defaulting to the config's ``defaults`` (the
schema, ``reeval/workflow/schema.yaml``, holds every default;
:func:`reeval.workflow.config_check.with_defaults` fills them in). Relative paths are
resolved against the working directory of the workflow.

A third kind, ``urls: {qrels: [...], runs: [...]}``, is fetched by the workflow's
``fetch`` rule (:mod:`reeval.archive.fetch`) into ``<fetch.data_dir>/tracks/<id>/`` first, then
ingested from there. A study config names a ``manifest`` (a YAML file with a
``tracks:`` mapping, e.g. ``config/trec-manifest.yaml``) and ``study: {tracks: all |
[ids]}``; :func:`study_tracks` merges the selected entries with the config's own
``tracks`` (which win on a repeated id).
"""

from __future__ import annotations

import glob
import math
import os
import re
from pathlib import Path

import yaml

from reeval.errors import InputError
from reeval.io.runfolder import RunListing, add_path, check_run_names
from reeval.io.sources import path_error
from reeval.report.escape import line_text

from .config_check import ConfigError, DuplicateKeyError, DuplicateKeyLoader, check_expanded_size, track_option_keys


#: the keys of a track entry that rule fetch (:func:`reeval.archive.inclusion.fetch_track`)
#: and rule inclusion (:func:`reeval.archive.inclusion.inclusion_table`) read: their params
#: hold only these (:func:`entry_keys`), so that editing the rest of an entry (a track's
#: ``groups:``, ``pooled:``, ``pool_depth:`` ...) reruns neither them nor every cross-track
#: job after them, only the rules that read it
FETCH_KEYS = ("urls",)
INCLUSION_KEYS = ("qrels", "synthetic", "year")


def entry_keys(entry: dict, keys) -> dict:
    """The part of a track entry under ``keys`` (:data:`FETCH_KEYS`, :data:`INCLUSION_KEYS`)."""
    return {key: entry[key] for key in keys if key in entry}


def track_options(config: dict, track: str) -> dict:
    """The track's reading options, from a config filled by
    :func:`reeval.workflow.config_check.with_defaults` (which gave every track every option);
    ``grade_map`` keys and values as integers (a ``--config`` gives them as strings)."""
    entry = config["tracks"][track]
    opts = {key: entry[key] for key in track_option_keys()}
    if opts["grade_map"]:
        opts["grade_map"] = {int(k): int(v) for k, v in opts["grade_map"].items()}
    return opts


def resolve_qrels(spec: str) -> str:
    """A qrels path or glob -> the one file it names (error if none or several; a path that
    cannot be examined, such as a link loop, is an InputError naming it)."""
    matches = sorted(glob.glob(spec)) if glob.has_magic(spec) else [spec]
    if not glob.has_magic(spec):
        try:
            os.stat(spec)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise path_error(f"qrels {spec}", exc) from None
    if len(matches) != 1 or not Path(matches[0]).is_file():
        raise FileNotFoundError(f"qrels {spec!r} must name exactly one existing file, "
                                f"found {len(matches) if glob.has_magic(spec) else 0 if not Path(spec).is_file() else 1}")
    return matches[0]


def list_runs(spec) -> RunListing:
    """What a track's ``runs`` names: a folder, walked with everything below it (subfolders
    included, hidden files and litter skipped and listed, :mod:`reeval.io.runfolder`), a glob
    (what it matches: a matching folder is walked) or a list of paths/globs. The listing's
    problems (a link loop, two files of one run name ...) are for the caller to raise
    (:meth:`RunListing.check`); a source that does not exist, or names no run file at all, is
    a FileNotFoundError naming the spec.
    """
    listing = RunListing()
    check_listed_once(spec)
    for s in spec if isinstance(spec, list) else [spec]:
        if glob.has_magic(s):
            for match in sorted(glob.glob(s)):
                add_path(match, listing)
            continue
        try:
            os.stat(s)
        except FileNotFoundError:
            raise FileNotFoundError(f"run source {s!r} is neither a folder, a glob nor a file") from None
        except OSError as exc:
            raise path_error(f"run source {s}", exc) from None
        add_path(s, listing)
    check_run_names(listing)
    if not listing.files and not listing.problems:
        skipped = f" ({len(listing.skipped)} skipped: {', '.join(p for p, _ in listing.skipped[:3])})" \
            if listing.skipped else ""
        raise FileNotFoundError(f"no run files found for {spec!r}{skipped}")
    return listing


def check_listed_once(spec) -> None:
    """Raise InputError naming the first entry of a ``runs:`` list given twice (as written, or
    the same path written otherwise: ``a/r1`` and ``./a/r1``), as ``reeval score`` refuses a
    run file given twice: collapsed, the list would hold fewer runs than it says."""
    first: dict = {}
    for i, s in enumerate(spec if isinstance(spec, list) else [], 1):
        key = os.path.normpath(s) if isinstance(s, str) else s
        if key in first:
            raise InputError(f"runs: {line_text(str(s))} is listed twice (entries {first[key]} and {i}); "
                             f"list each run file once")
        first[key] = i


def resolve_runs(spec) -> list[str]:
    """The run files :func:`list_runs` finds, sorted; its problems are left to the ingest rule,
    which raises them (:meth:`RunListing.check`)."""
    return sorted(list_runs(spec).files)


def local_track_files(tracks: dict) -> dict:
    """track -> {"qrels": file, "runs": [files]} of every track given by local files, resolved
    once (:func:`resolve_qrels`, :func:`list_runs`).

    Raises :class:`reeval.workflow.config_check.ConfigError` naming the track and the entry that
    names no file, or a path below it that cannot be read as a run (:meth:`RunListing.check`),
    so a workflow stops before any job with that message.
    """
    files = {}
    for track, entry in tracks.items():
        if "qrels" not in entry or "synthetic" in entry:
            continue
        try:
            qrels, listing = resolve_qrels(entry["qrels"]), list_runs(entry["runs"])
            listing.check()
        except (FileNotFoundError, InputError) as exc:
            raise ConfigError(f"tracks: {track}: {exc}") from None
        for path in [qrels, *listing.files]:
            check_snakemake_path(track, path)
        files[track] = {"qrels": qrels, "runs": sorted(listing.files)}
    return files


def empty_run_tracks(files: dict) -> dict:
    """track -> the fetch-like status (``usable`` false, ``reason``, ``runs_listed``,
    ``runs_parsed`` 0) of each local track whose run files are all empty (0 bytes: no run can
    keep a line), from :func:`local_track_files`' ``{track: {"qrels", "runs"}}``. Such a
    track is left out when the workflow is planned, named with its files in the inclusion
    table, and no job runs on it; a track with one non-empty run file is ingested as usual
    (a run that keeps no line for another reason, all NaN scores say, is left out by ingest,
    :mod:`reeval.workflow.run_inclusion`). A size that cannot be read counts as non-empty
    (ingest then names the problem)."""
    out = {}
    for track, entry in files.items():
        runs = entry["runs"]
        try:
            empty = bool(runs) and all(os.path.getsize(f) == 0 for f in runs)
        except OSError:
            empty = False
        if empty:
            shown = ", ".join(line_text(Path(f).name) for f in runs[:3]) + (f" and {len(runs) - 3} more"
                                                                              if len(runs) > 3 else "")
            out[track] = {"usable": False, "runs_listed": len(runs), "runs_parsed": 0,
                          "reason": f"no line kept: every run file is empty ({len(runs)}: {shown})"}
    return out


#: what Snakemake reads in an input path: a wildcard ``{name}`` (any brace) or, since
#: Snakemake 9, a path variable ``<name>``
SNAKEMAKE_PATH_SYNTAX = re.compile(r"[{}]|<[a-z][a-z0-9_]*>")


def check_snakemake_path(track: str, path: str) -> None:
    """Raise ConfigError if ``path`` cannot be an input of a rule: Snakemake would read a brace
    as a wildcard and ``<name>`` as a path variable (:data:`SNAKEMAKE_PATH_SYNTAX`), and stop
    with a message that names neither the file nor the way out. ``reeval score`` reads such a
    file; the workflow needs it renamed."""
    found = SNAKEMAKE_PATH_SYNTAX.search(path)
    if found:
        raise ConfigError(f"tracks: {track}: {line_text(path)}: Snakemake reads {found.group()!r} in a file name as "
                          f"{'a path variable' if found.group().startswith('<') else 'a wildcard'}; rename the "
                          f"file (without braces or <lowercase> in angle brackets)")


def load_manifest(path) -> dict:
    """The ``tracks`` mapping of a manifest YAML file."""
    try:  # libyaml's loader when installed: the study manifest in 0.3 s, not 2 s
        data = yaml.load(Path(path).read_text(), Loader=DuplicateKeyLoader) or {}
    except OSError as exc:
        raise ConfigError(f"manifest {path}: cannot be read ({exc.strerror or exc})") from None
    except DuplicateKeyError as exc:
        raise ConfigError(f"manifest {path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"manifest {path}: not valid YAML ({' '.join(str(exc).split())})") from None
    check_expanded_size(data, f"manifest {path}")
    tracks = data.get("tracks") if isinstance(data, dict) else None
    if not isinstance(tracks, dict):
        raise ConfigError(f"manifest {path}: expected a top-level `tracks:` mapping")
    return tracks


def study_tracks(config: dict) -> dict:
    """Every track of a config: its ``tracks`` plus the selected ``manifest`` entries.

    ``study.tracks`` is ``all`` or a list of manifest ids; an id the
    manifest does not have is an error naming it. ``study.scope`` (:mod:`reeval.archive.scope`)
    keeps the manifest tracks it selects (``all``: every one); a listed id outside it is an
    error naming its reason. ``manifest_options`` (track -> reading options, e.g.
    ``relevance_level: 1``) replace those of the manifest entries (of the study's tracks; an id
    the manifest does not have is an error naming it). With ``study.official`` (a folder), a
    manifest entry gets ``official: <folder>/<id>.csv`` where that file exists. Entries of the
    config's own ``tracks`` replace manifest entries of the same id.
    """
    tracks = dict(config.get("tracks") or {})
    if not config.get("manifest"):
        return tracks
    from reeval.archive.scope import scope_table

    manifest = load_manifest(config["manifest"])
    scope = config["study"].get("scope", "all")
    table = scope_table(manifest, scope)
    wanted = config["study"]["tracks"]
    if wanted != "all":
        unknown = sorted(set(wanted) - set(manifest))
        if unknown:
            raise ConfigError(f"study.tracks names tracks that {config['manifest']} does not have: {unknown}")
        outside = table[table.track.isin(wanted) & ~table.in_scope]
        if len(outside):
            raise ConfigError(f"study.tracks names tracks outside study.scope {scope}: "
                              + "; ".join(f"{t} ({r})" for t, r in zip(outside.track, outside.reason)))
        manifest = {k: manifest[k] for k in wanted}
    else:
        kept = set(table.track[table.in_scope])
        manifest = {k: v for k, v in manifest.items() if k in kept}
    options = config.get("manifest_options") or {}
    absent = sorted(set(options) - set(table.track))
    if absent:
        raise ConfigError(f"manifest_options names tracks that {config['manifest']} does not have: {absent}")
    manifest = {k: {**v, **options.get(k, {})} for k, v in manifest.items()}
    folder = (config.get("study") or {}).get("official")
    if folder:
        manifest = {k: {**entry, "official": str(Path(folder) / f"{k}.csv")}
                    if (Path(folder) / f"{k}.csv").is_file() and "official" not in entry else entry
                    for k, entry in manifest.items()}
    return {**manifest, **tracks}


def scope_counts(config: dict, inclusion_csv=None) -> str:
    """The lines a manifest study prints on every run and dry run
    (:func:`reeval.archive.scope.counts_text`): its scope's tracks, runs and queries beside the
    ASL paper's; queries from ``inclusion_csv`` (an earlier run's ``summary/inclusion.csv``)
    when it exists. "" without a manifest."""
    if not config.get("manifest"):
        return ""
    import pandas as pd

    from reeval.archive.scope import counts_text, scope_table

    scope = config["study"].get("scope", "all")
    inclusion = pd.read_csv(inclusion_csv) if inclusion_csv and Path(inclusion_csv).is_file() else None
    return counts_text(scope_table(load_manifest(config["manifest"]), scope), scope, inclusion)


def paper_track_sets(config: dict) -> dict:
    """The ASL paper's track sets on the config's manifest
    (:func:`reeval.archive.scope.paper_track_sets`); {} without a manifest."""
    if not config.get("manifest"):
        return {}
    from reeval.archive.scope import paper_track_sets as sets

    return sets(load_manifest(config["manifest"]))


def is_fetched(entry: dict) -> bool:
    """True for a track the fetch rule downloads (``urls`` and no local files)."""
    return "urls" in entry and "qrels" not in entry and "synthetic" not in entry


#: ingest parses a local track's run files with 2 threads from this many bytes of run files
#: on disk on. Below, the second thread saves less than the core it holds for the whole job
#: costs the other jobs: on the simulated study's tracks of 5 topics, ingest used 1.0 core of
#: the 2 it held. (A synthetic track is generated and ingested by one 1-thread job, rule
#: synthetic_track: see workflow/rules/synthetic.smk.)
INGEST_TWO_THREADS_BYTES = 64 * 2**20


def ingest_threads(entry: dict, run_files=()) -> int:
    """Threads of a local or fetched track's ingest job: 2 for a large local track
    (:data:`INGEST_TWO_THREADS_BYTES` of run files), 1 for a small one; 2 for a fetched track
    (its files are not there when the jobs are planned) and whenever a size cannot be read."""
    if is_fetched(entry) or not run_files:
        return 2
    try:
        size = sum(os.path.getsize(f) for f in run_files)
    except OSError:
        return 2
    return 2 if size >= INGEST_TWO_THREADS_BYTES else 1


#: bytes of a run file's line, about (a 1,000-deep TREC run: 35-60 bytes a line), and run
#: lines of a fetched run, about (50 topics x 1,000 documents): only to order the jobs
BYTES_PER_RUN_LINE = 50
LINES_PER_FETCHED_RUN = 50_000


def track_work(entry: dict, run_files=()) -> int:
    """An estimate of a track's run lines, to start the largest tracks' jobs first
    (:func:`job_priorities`): runs x topics x depth for a synthetic track, the run files'
    bytes / :data:`BYTES_PER_RUN_LINE` for a local one, the runs listed x
    :data:`LINES_PER_FETCHED_RUN` for a fetched one (its files are not there when the jobs
    are planned); 0 when nothing can be read."""
    if "synthetic" in entry:
        from reeval.synth.campaign import run_lines
        from reeval.synth.tracks import spec_from_config

        return run_lines(spec_from_config(entry["synthetic"]))
    if is_fetched(entry):
        return len((entry.get("urls") or {}).get("runs") or ()) * LINES_PER_FETCHED_RUN
    try:
        return sum(os.path.getsize(f) for f in run_files) // BYTES_PER_RUN_LINE
    except OSError:
        return 0


def job_priorities(work: dict) -> dict:
    """Per track, the share of a per-track job's priority that orders tracks: its
    :func:`track_work` over 1 + the largest, rounded down to 4 decimals (so below 1). A rule's
    job has priority tier + share (synthetic_track 2, ingest 1, the others 0): every
    generator still comes before every ingest and every ingest before the analyses, and
    within a rule the largest track's job starts first (longest job first, so the study's
    last minutes are not one large track's analyses on one core while the other idles)."""
    top = max(work.values(), default=0)
    return {track: math.floor(w * 10_000 / (1 + top)) / 10_000 for track, w in work.items()}


#: per study section, the mappings keyed by track id (paths of keys) that per-track jobs
#: read, and the keys only the cross-track job reads: a per-track job's params hold its own
#: track's entries only (:func:`own_section`)
TRACK_KEYED = {
    "rareness": {"keyed": (("synthetic", "topics"), ("table4", "topics"), ("paper",)),
                 "cross_track": (("table4", "rarest"),)},
    "lexiprecision": {"keyed": (("paper",),), "cross_track": (("figure2",),)},
}


def own_section(options: dict, section: str, track: str) -> dict:
    """``options``, the config section ``section`` (its defaults filled in), as one track's
    job reads it: every mapping keyed by
    track id (:data:`TRACK_KEYED`) reduced to ``track``'s entry (or none), the keys only the
    cross-track job reads left out. A per-track job whose params held another track's
    entry, or the whole study's, would rerun for every track when that entry changed."""
    import copy

    out = copy.deepcopy(options)
    for *parents, key in TRACK_KEYED[section]["keyed"]:
        node = out
        for p in parents:
            node = node[p]
        node[key] = {k: v for k, v in (node.get(key) or {}).items() if str(k) == track}
    for *parents, key in TRACK_KEYED[section]["cross_track"]:
        node = out
        for p in parents:
            node = node[p]
        node.pop(key, None)
    return out
