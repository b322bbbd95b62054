"""Track entries of the workflow configuration: where a track's files are and how to read them.

A track entry (``tracks: {<id>: {...}}`` in the config) is either

- local files: ``qrels`` (a path or a glob matching exactly one file) and ``runs`` (a
  folder, a glob, or a list of paths/globs); or
- ``synthetic: <name>``: a track of the built-in seeded campaign, written by the
  workflow itself (``reeval.synthetic.DEFAULT_CAMPAIGN``).

plus reading options: ``relevance_level`` (default 1), ``precision`` (``float64``, or
``float32`` to match trec_eval 9.x), ``on_malformed`` (``error`` or ``drop``),
``grade_map`` (relabel qrels grades, e.g. ``{1: 0}``). Entries may also carry ``urls``
for a downloader; local paths are what ingest reads. Relative paths are resolved
against the working directory of the workflow.
"""

from __future__ import annotations

import glob
from pathlib import Path

TRACK_DEFAULTS = {"relevance_level": 1, "precision": "float64", "on_malformed": "error",
                  "grade_map": None}


def track_options(config: dict, track: str) -> dict:
    """The track's reading options: config ``defaults`` overridden by the track entry."""
    entry = config["tracks"][track]
    opts = dict(TRACK_DEFAULTS)
    opts.update({k: v for k, v in (config.get("defaults") or {}).items() if k in TRACK_DEFAULTS})
    opts.update({k: v for k, v in entry.items() if k in TRACK_DEFAULTS})
    if opts["grade_map"]:
        opts["grade_map"] = {int(k): int(v) for k, v in opts["grade_map"].items()}
    return opts


def resolve_qrels(spec: str) -> str:
    """A qrels path or glob -> the one file it names (error if none or several)."""
    matches = sorted(glob.glob(spec)) if glob.has_magic(spec) else [spec]
    if len(matches) != 1 or not Path(matches[0]).is_file():
        raise FileNotFoundError(f"qrels {spec!r} must name exactly one existing file, "
                                f"found {len(matches) if glob.has_magic(spec) else 0 if not Path(spec).is_file() else 1}")
    return matches[0]


def resolve_runs(spec) -> list[str]:
    """Run files named by a folder, a glob or a list of paths/globs; sorted, no repeats.

    Hidden files (starting with ``.``) in a folder are skipped. An empty result is an
    error naming the spec.
    """
    specs = spec if isinstance(spec, list) else [spec]
    files: set[str] = set()
    for s in specs:
        p = Path(s)
        if p.is_dir():
            files.update(str(f) for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
        elif glob.has_magic(s):
            files.update(f for f in glob.glob(s) if Path(f).is_file())
        elif p.is_file():
            files.add(str(p))
        else:
            raise FileNotFoundError(f"run source {s!r} is neither a folder, a glob nor a file")
    if not files:
        raise FileNotFoundError(f"no run files found for {spec!r}")
    return sorted(files)
