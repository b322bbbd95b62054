# Helpers of a study with fetched tracks (rules in fetch.smk): settings, the tracks that
# go on to ingest, and the inputs that depend on the fetch checkpoint.
import json

from reeval.study import FETCH_DEFAULTS, MIN_RUNS

FETCH = {**FETCH_DEFAULTS, **{k: v for k, v in (config.get("fetch") or {}).items() if k != "data_dir"}}
DATA_DIR = (config.get("fetch") or {}).get("data_dir", f"{RESULTS}/raw")
STUDY_MIN_RUNS = (config.get("study") or {}).get("min_runs", MIN_RUNS)
FETCHED = [t for t in TRACKS if is_fetched(config["tracks"][t])]
# plain inputs (not through the checkpoint): every fetch job is in the DAG from the start
FETCH_STATUSES = [f"{RESULTS}/fetch/{t}/status.json" for t in FETCHED]


def usable_tracks():
    """Tracks that go on to ingest: local and synthetic ones, fetched ones whose status says usable."""
    usable = []
    for track in TRACKS:
        if track in FETCHED:
            status = checkpoints.fetch.get(track=track).output.status
            if not json.loads(Path(status).read_text())["usable"]:
                continue
        usable.append(track)
    return usable


def track_outputs(wildcards):
    """Per-track tables of every usable track (rule all)."""
    return expand(f"{RESULTS}/tracks/{{track}}/{{name}}", track=usable_tracks(),
                  name=TRACK_FILES + MEASURES_FILES)


def ingest_reports(wildcards):
    """Ingest reports of the usable tracks (the inclusion table's evidence)."""
    return [f"{RESULTS}/tracks/{t}/ingest_report.csv" for t in usable_tracks()]
