import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from reeval.ingest import TRACK_FILES
from reeval.pipeline import MEASURES_FILES
from reeval.tracks import resolve_qrels, resolve_runs, track_options

RESULTS = config.get("results", "results")
TRACKS = sorted(config["tracks"])
SUMMARY_FILES = [f"{RESULTS}/summary/{name}" for name in ("runs.parquet", "runs.csv", "tracks.csv")]
DEFAULT_MEASURES = ["official", "P.20,30,100,1000", "recall.100,1000", "ndcg", "ndcg_cut.10,20",
                    "ASL", "ASL@g1", "ASL@g1-10"]


wildcard_constraints:
    track="|".join(map(str, TRACKS)) if TRACKS else "[^/]+",


def is_synthetic(track):
    return "synthetic" in config["tracks"][track]


def ingest_inputs(wildcards):
    """Files a track's ingest reads: the generated folder, or the local qrels and runs."""
    entry = config["tracks"][wildcards.track]
    if "synthetic" in entry:
        return {"synthetic": f"{RESULTS}/synthetic/{wildcards.track}"}
    return {"qrels": resolve_qrels(entry["qrels"]), "runs": resolve_runs(entry["runs"])}
