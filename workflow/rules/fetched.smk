# Helpers of a study with fetched tracks (rules in fetch.smk): settings, the tracks that
# go on to ingest, and the inputs that depend on the fetch checkpoint.
import json
from functools import partial

from reeval.inclusion import FETCH_DEFAULTS, MIN_RUNS

FETCH = {**FETCH_DEFAULTS, **{k: v for k, v in (config.get("fetch") or {}).items() if k != "data_dir"}}
DATA_DIR = (config.get("fetch") or {}).get("data_dir", f"{RESULTS}/raw")
STUDY_MIN_RUNS = (config.get("study") or {}).get("min_runs", MIN_RUNS)
FETCHED = [t for t in TRACKS if is_fetched(config["tracks"][t])]
# plain inputs (not through the checkpoint): every fetch job is in the DAG from the start
FETCH_STATUSES = [f"{RESULTS}/fetch/{t}/status.json" for t in FETCHED]


def is_usable(track):
    """Local and synthetic tracks; a fetched one when its status says usable (after its fetch)."""
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
