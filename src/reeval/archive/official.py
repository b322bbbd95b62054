"""The published official figures of the manifest's runs, one file per track, from the catalog
(``runs.csv``'s ``summary_json``: per run, each summary block's figures as printed).

    python -m reeval.archive.official --catalog ../shared/catalog --manifest config/trec-manifest.yaml \\
        --out config/trec-official

writes ``<out>/<track id>.csv`` (the audit's long format: run, block, measure, value;
docs/audit.md) for every manifest track whose runs have published figures; a study whose
``study.official`` names that folder audits each track against its file (rule ``audit``).
A run is matched by its edition, track, task and run tag, as the manifest lists it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

#: the columns of a track's file (the audit's long format)
COLUMNS = ["run", "block", "measure", "value"]


def summary_figures(summary_json: str) -> list[tuple[str, str, str]]:
    """(block, measure, value) of one run's ``summary_json`` (``{block: {measure: value}}``),
    values as printed; a value that is not a number is left out."""
    from reeval.analyses.audit.official import NUMBER

    try:
        blocks = json.loads(summary_json)
    except (TypeError, ValueError):
        return []
    return [(str(block), str(measure), str(value).strip()) for block, figures in blocks.items()
            if isinstance(figures, dict) for measure, value in figures.items()
            if NUMBER.fullmatch(str(value).strip())]


def official_tables(catalog_dir, manifest: dict) -> dict:
    """``{track id: DataFrame}`` (:data:`COLUMNS`) of the manifest's tracks with figures."""
    runs = pd.read_csv(Path(catalog_dir) / "runs.csv", low_memory=False, dtype=str,
                       usecols=["trec_edition", "track", "catalog_task", "run_tag", "summary_json"])
    runs = runs[runs["summary_json"].notna()]
    by_key = {k: g for k, g in runs.groupby(["trec_edition", "track", runs["catalog_task"].fillna("")])}
    out = {}
    for tid, entry in manifest.items():
        group = by_key.get((entry.get("edition"), entry.get("track"), entry.get("task") or ""))
        if group is None:
            continue
        listed = {r["run"] for r in entry.get("urls", {}).get("runs", [])}
        rows = [(tag, *figure) for tag, js in zip(group["run_tag"], group["summary_json"]) if tag in listed
                for figure in summary_figures(js)]
        if rows:
            out[tid] = pd.DataFrame(rows, columns=COLUMNS).sort_values(["run", "block", "measure"], kind="stable")
    return out


def write_official(tables: dict, out_dir) -> None:
    """Write each track's figures to ``<out_dir>/<track>.csv`` (atomically)."""
    from reeval.io.atomic import atomic_write

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for tid, table in tables.items():
        atomic_write(folder / f"{tid}.csv", lambda tmp, t=table: t.to_csv(tmp, index=False, lineterminator="\n"))


def main(argv=None) -> None:
    import argparse

    from reeval.workflow.tracks import load_manifest

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default="../shared/catalog")
    parser.add_argument("--manifest", default="config/trec-manifest.yaml")
    parser.add_argument("--out", default="config/trec-official")
    args = parser.parse_args(argv)
    tables = official_tables(args.catalog, load_manifest(args.manifest))
    write_official(tables, args.out)
    print(f"{args.out}: {len(tables)} tracks, {sum(t['run'].nunique() for t in tables.values())} runs, "
          f"{sum(len(t) for t in tables.values())} figures")


if __name__ == "__main__":
    main()
