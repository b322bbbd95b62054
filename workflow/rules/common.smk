import json
import os
import re
import sys
from functools import partial
from pathlib import Path

from snakemake.exceptions import WorkflowError

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from reeval.workflow.config_check import (check_config, check_config_file, check_results_apart, check_track_ids,
                                          with_defaults)
from reeval.workflow.outputs import draws_track_figures, track_files
from reeval.workflow.measures_step import SUMMARY_FILES as SUMMARY_NAMES
from reeval.analyses.asl.study import REQUIRED_MEASURES as STUDY_MEASURES
from reeval.workflow.tracks import (empty_run_tracks, ingest_threads, is_fetched, job_priorities, local_track_files,
                                   own_section, resolve_runs, scope_counts, study_tracks, track_options, track_work)
from reeval.errors import InputError
from reeval.report.escape import line_text
from reeval.workflow.scheduling import coalesce_reevaluation_timers
from reeval.workflow.folder_lock import hold_folder
from reeval.workflow.fingerprint import FINGERPRINT, changed_fingerprint, refresh_fingerprint
from reeval.workflow.audit_step import SUMMARY_FIGURES as AUDIT_SUMMARY_FIGURES
from reeval.workflow.audit_step import SUMMARY_TABLES as AUDIT_SUMMARY_TABLES
from reeval.workflow.audit_step import TRACK_AUDIT_FILES, alternative_qrels_files, official_file

# Snakemake's rate-limit timers pile up, one more for every finished job, each waking the
# scheduler every second: keep one pending (reeval.workflow.scheduling, docs/cluster.md)
coalesce_reevaluation_timers()


def checked(check, *args):
    """check(*args); its InputError (a bad track id, measure or file) stops the workflow with
    the one message naming the value (the schema's would be a dump, an input function's a traceback)."""
    try:
        return check(*args)
    except InputError as exc:
        raise WorkflowError(str(exc)) from None


# Snakemake has read the config files already, keeping the last of a key given twice: each is
# read again to refuse that (check_config_file). The config checked (first its size with YAML
# aliases expanded, before anything walks it), then validated against the schema
# (src/reeval/workflow/schema.yaml) and filled with its defaults: from here on every key is
# present, no rule states a default
for _path in workflow.configfiles:
    checked(check_config_file, _path)
checked(check_config, config)
config.update(checked(with_defaults, config))
RESULTS = config["results"]
if config["manifest"]:  # a study: the manifest's selected tracks join the config's own
    config["tracks"] = checked(study_tracks, config)
    checked(check_track_ids, config["tracks"], config["manifest"])
    config.update(checked(with_defaults, config))  # the manifest's entries: validated, options filled
    if workflow.is_main_process:  # on every run and dry run: the scope's counts beside the ASL paper's
        sys.stderr.write(checked(scope_counts, config, f"{RESULTS}/summary/inclusion.csv"))
TRACKS = sorted(config["tracks"])
# the results folder apart from every local track's runs and qrels: inside a runs folder the
# workflow would read its own outputs as runs (reeval.workflow.config_check)
checked(check_results_apart, RESULTS, config["tracks"])


# one workflow at a time on the results folder, held until this process ends; not taken by a
# dry run, --report or --lint, which run no job (reeval.workflow.folder_lock)
onstart:
    try:
        hold_folder(RESULTS)
    except InputError as exc:  # one write: print's text and its newline are two, and the
        sys.stderr.write(line_text(f"error: {exc}") + "\n")  # console's thread may write between them
        sys.stderr.flush()
        sys.exit(1)


LOCAL_FILES = checked(local_track_files, config["tracks"])  # track -> its qrels and run files
# local tracks whose run files are all empty: left out now, no job runs on them (the
# inclusion table names them with their files; reeval.workflow.tracks.empty_run_tracks)
EMPTY_RUN_TRACKS = empty_run_tracks(LOCAL_FILES)
# per local track, a file rewritten only when an input's content (not its mtime) changes:
# ingest depends on it, so `cp -p` of new content reruns it (reeval.workflow.fingerprint)
INPUT_FINGERPRINTS = {t: f"{RESULTS}/tracks/{t}/{FINGERPRINT}" for t in LOCAL_FILES}
# A dry run (-n) writes nothing in the results: a fingerprint that would change is written to
# Snakemake's own temporary folder instead (removed when it ends), newer than the tables, so
# the plan shows the ingest a real run would do
DRY_RUN = bool(getattr(workflow.output_settings, "dryrun", False))
if workflow.is_main_process:
    for _track, _files in LOCAL_FILES.items():
        _folder, _inputs = f"{RESULTS}/tracks/{_track}", [_files["qrels"], *_files["runs"]]
        if not DRY_RUN:
            checked(refresh_fingerprint, _folder, _inputs, _stale := [])
            for _path in _stale:  # the tables were made from bytes the file no longer holds
                sys.stderr.write(line_text(f"{_track}: {_path} holds other bytes than its ingest read (sha256 of "
                                           f"ingest_report.csv): the track is ingested again") + "\n")
        elif (_text := checked(changed_fingerprint, _folder, _inputs)) is not None:
            _planned = workflow.snakemake_tmp_dir / "fingerprints" / _track / FINGERPRINT
            _planned.parent.mkdir(parents=True, exist_ok=True)
            _planned.write_text(_text)
            INPUT_FINGERPRINTS[_track] = str(_planned)
SUMMARY_FILES = [f"{RESULTS}/summary/{name}" for name in SUMMARY_NAMES]
INCLUSION = f"{RESULTS}/summary/inclusion.csv"
RUN_INCLUSION = f"{RESULTS}/summary/run_inclusion.csv"
# each track's own figures (config figures.per_track; auto: small studies only)
TRACK_FIGURES = draws_track_figures(config["figures"]["per_track"], len(TRACKS))
# every output of one track ({track} unfilled), by step in reeval.workflow.outputs
PER_TRACK_FILES = [f"{RESULTS}/tracks/{{track}}/{name}" for name in track_files(figures=TRACK_FIGURES)]


def step_files(step, track="{track}"):
    """The tables of one step for a track (the {track} wildcard unless a track is given)."""
    return [f"{RESULTS}/tracks/{track}/{name}" for name in track_files(step, figures=False)]


def track_figure_outputs(step, reports):
    """The figures of a per-track step as named outputs (of rule track_figures; the default
    target asks for them when figures.per_track draws them). Each PNG goes in the report
    (``reports`` maps a figure stem to the keywords of report(), caption, category ...),
    each PDF beside it as <stem>_pdf."""
    out = {}
    for stem, keywords in reports.items():
        out[stem] = report(f"{RESULTS}/tracks/{{track}}/{step}/{stem}.png", **keywords)
        out[f"{stem}_pdf"] = f"{RESULTS}/tracks/{{track}}/{step}/{stem}.pdf"
    return out


# the configured measures, plus those the ASL study reads (reeval.analyses.asl.study.REQUIRED_MEASURES)
MEASURE_SPECS = list(config["measures"]) + list(STUDY_MEASURES)


wildcard_constraints:
    track="|".join(map(re.escape, TRACKS)) if TRACKS else "[^/]+",


def is_synthetic(track):
    return "synthetic" in config["tracks"][track]


def tracks_pattern(tracks):
    """A wildcard constraint matching exactly these track ids (none: a pattern that matches nothing)."""
    return "|".join(map(re.escape, tracks)) if tracks else "(?!)"


# whose tables rule synthetic_track writes (it generates and ingests the track in one job),
# and whose rule ingest writes (a local or fetched track's files)
SYNTHETIC_PATTERN = tracks_pattern([t for t in TRACKS if is_synthetic(t)])
READ_PATTERN = tracks_pattern([t for t in TRACKS if not is_synthetic(t)])


def ingest_inputs(wildcards):
    """Files a track's ingest reads: the local qrels and runs, or the fetched ones."""
    entry = config["tracks"][wildcards.track]
    if is_fetched(entry):  # fetched and unpacked by the fetch checkpoint (fetch.smk)
        folder = checkpoints.fetch.get(track=wildcards.track).output.folder
        return {"qrels": f"{folder}/qrels.txt", "runs": resolve_runs(f"{folder}/runs")}
    return {**LOCAL_FILES[wildcards.track], "fingerprint": INPUT_FINGERPRINTS[wildcards.track]}


def track_ingest_threads(wildcards):
    """2 threads for the ingest of a large track, 1 for a small one (ingest_threads)."""
    return ingest_threads(config["tracks"][wildcards.track], LOCAL_FILES.get(wildcards.track, {}).get("runs", ()))


# per track, the share of its jobs' priority that starts the largest tracks first
# (reeval.workflow.tracks.job_priorities)
TRACK_SHARE = job_priorities({t: track_work(config["tracks"][t], LOCAL_FILES.get(t, {}).get("runs", ()))
                              for t in config["tracks"]})


def track_priority(tier):
    """Priority of a per-track job: the rule's tier plus its track's share (job_priorities)."""
    return lambda wildcards: round(tier + TRACK_SHARE.get(wildcards.track, 0.0), 4)


def runs_spec(wildcards):
    """What names a track's run files, as ingest walks it again (reeval.workflow.tracks.list_runs):
    the config's folder, glob or list, or the folder the synthetic or fetch rule wrote."""
    entry = config["tracks"][wildcards.track]
    if "synthetic" in entry:
        return f"{RESULTS}/synthetic/{wildcards.track}/runs"
    if is_fetched(entry):
        return f"{DATA_DIR}/tracks/{wildcards.track}/runs"
    return entry["runs"]


# Tracks given by URLs (the fetch checkpoint, fetch.smk): settings, the tracks that go on
# to ingest, and the inputs that depend on that checkpoint.
FETCH = {k: v for k, v in config["fetch"].items() if k != "data_dir"}
DATA_DIR = config["fetch"]["data_dir"]
STUDY_MIN_RUNS = config["study"]["min_runs"]
FETCHED = [t for t in TRACKS if is_fetched(config["tracks"][t])]
# plain inputs (not through the checkpoint): every fetch job is in the DAG from the start
FETCH_STATUSES = [f"{RESULTS}/fetch/{t}/status.json" for t in FETCHED]


def is_usable(track):
    """Local and synthetic tracks (not one whose run files are all empty); a fetched one when
    its status says usable (after its fetch)."""
    if track in EMPTY_RUN_TRACKS:
        return False
    if track not in FETCHED:
        return True
    status = checkpoints.fetch.get(track=track).output.status
    return json.loads(Path(status).read_text())["usable"]


def usable_tracks():
    """Tracks that go on to ingest."""
    return [track for track in TRACKS if is_usable(track)]


def track_outputs(wildcards, track):
    """A track's tables and analyses (PER_TRACK_FILES), once its fetch found it usable."""
    if not is_usable(track):
        return []
    return expand(PER_TRACK_FILES, track=track)


# Inputs of the default target, one function per track: a track's ingest and measures start
# as soon as its own fetch is done (one function for all would wait for every fetch)
TRACK_OUTPUTS = [partial(track_outputs, track=track) for track in TRACKS]


def ingest_reports(wildcards):
    """Ingest reports of the usable tracks (the inclusion table's evidence)."""
    return [f"{RESULTS}/tracks/{t}/ingest_report.csv" for t in usable_tracks()]


def report_inputs(wildcards):
    """What the report shows: the cross-track outputs, and per usable track its runs'
    means and, when figures.per_track draws them, its figures (rule track_figures)."""
    files = [*SUMMARY_FILES, *STUDY_FILES, *LEXI_SUMMARY_FILES, *LEXI_SUMMARY_PNGS, *RARENESS_SUMMARY_FILES,
             *PAPERS_FILES, *REUSABILITY_SUMMARY_FILES, *AUDIT_SUMMARY_FILES]
    for track in usable_tracks():
        files.append(f"{RESULTS}/tracks/{track}/measures_by_run.parquet")
        if TRACK_FIGURES:
            files += [f.format(track=track) for f in rules.track_figures.output if f.endswith(".png")]
    return files


def report_captions():
    """Figure path pattern (relative to the results) -> its caption text, from the
    ``report(..., caption=...)`` of every rule's outputs (the Snakemake report's too)."""
    captions = {}
    for step in workflow.rules:
        for path in step.output:
            flag = path.flags.get("report") if hasattr(path, "flags") else None
            if flag is not None and flag.caption is not None and path.endswith(".png"):
                text = Path(getattr(flag.caption, "path", flag.caption)).read_text()
                captions[os.path.relpath(path, RESULTS)] = " ".join(text.replace("``", "").split())
    return captions


# The audit of official figures (rules audit and audit_summary, audit.smk)

# the tracks with official figures (a synthetic track has none), each checked once here
AUDITED = {t: checked(official_file, t, config["tracks"][t]) for t in TRACKS if not is_synthetic(t)}
AUDITED = {t: path for t, path in AUDITED.items() if path}
ALTERNATIVE_QRELS = {t: checked(alternative_qrels_files, t, config["tracks"][t]) for t in AUDITED
                     if not is_fetched(config["tracks"][t])}
# the audit's summary only for a study with official figures (none: no audit/ folder at all)
AUDIT_SUMMARY_FILES = [f"{RESULTS}/{name}" for name in AUDIT_SUMMARY_TABLES + AUDIT_SUMMARY_FIGURES] if AUDITED else []


def audit_inputs(wildcards):
    """A track's official figures, its ingest's tables, the files ingest read (read again only
    for a cause that reads them otherwise) and its alternative qrels files (a fetched track's:
    those its fetch placed in its folder)."""
    files = ingest_inputs(wildcards)
    track = wildcards.track
    if is_fetched(config["tracks"][track]):
        folder = checkpoints.fetch.get(track=track).output.folder
        alternatives = alternative_qrels_files(track, config["tracks"][track], folder)
    else:
        alternatives = ALTERNATIVE_QRELS[track]
    return {"official": AUDITED[track], "tables": step_files("ingest", track),
            "qrels": files["qrels"], "runs": files["runs"], "alternative_qrels": alternatives}


def audit_outputs(wildcards):
    """The audit tables of the tracks with official figures that go on to ingest."""
    return [f"{RESULTS}/tracks/{t}/{name}" for t in usable_tracks() if t in AUDITED for name in TRACK_AUDIT_FILES]


# Where PYTHONDONTWRITEBYTECODE keeps Python from writing __pycache__ beside the sources, the
# jobs (not this process) keep their bytecode in .snakemake/pycache instead, rather than
# compiling every module again (reeval.workflow.bytecode; docs/cluster.md)
from reeval.workflow.bytecode import give_jobs_a_pycache_prefix

give_jobs_a_pycache_prefix(os.environ, os.getcwd())


# Leave one group out (reusability.smk): a track's groups, their source and the files the job reads
from reeval.analyses.reusability.groups import read_groups
from reeval.analyses.reusability.report import rule_inputs as reusability_files
from reeval.analyses.reusability.report import rule_options as reusability_options


def track_reusability_options(wildcards):
    """The track's groups, where they come from (its official leaderboard among them: AUDITED,
    common.smk), pool depth, pooled runs and the study's options."""
    return reusability_options(config, wildcards.track, AUDITED.get(wildcards.track))


# a track's groups file in a form no reader takes stops the workflow before any job, in one
# line naming the file, the line and the accepted forms (reeval.analyses.reusability.groups)
for _track in TRACKS:
    _options = reusability_options(config, _track, AUDITED.get(_track))
    if _options["groups_from"] == "file":
        checked(read_groups, _options["groups"])


def reusability_inputs(wildcards):
    """The track's tables and the groups and pooled-runs files the job reads: the groups are
    inputs of this job alone, so changing them reruns it and what reads its tables only."""
    return {"tables": step_files("ingest", wildcards.track), **reusability_files(track_reusability_options(wildcards))}
