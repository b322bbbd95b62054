"""Track entries of the workflow configuration: where a track's files are and how to read them.

A track entry (``tracks: {<id>: {...}}`` in the config) is either

- local files: ``qrels`` (a path or a glob matching exactly one file) and ``runs`` (a
  folder, a glob, or a list of paths/globs); or
- ``synthetic: <name>``: a track of the built-in seeded campaign, written by the
  workflow itself (``reeval.synth.tracks.DEFAULT_CAMPAIGN``).

plus reading options: ``relevance_level`` (default 1), ``precision`` (``float64``, or
``float32`` to match trec_eval 9.x), ``on_malformed`` (``error`` or ``drop``),
``grade_map`` (relabel qrels grades, e.g. ``{1: 0}``). Relative paths are resolved
against the working directory of the workflow.

A third kind, ``urls: {qrels: [...], runs: [...]}``, is fetched by the workflow's
``fetch`` rule (:mod:`reeval.archive.fetch`) into ``<fetch.data_dir>/tracks/<id>/`` first, then
ingested from there. A study config names a ``manifest`` (a YAML file with a
``tracks:`` mapping, e.g. ``config/trec-manifest.yaml``) and ``study: {tracks: all |
[ids]}``; :func:`study_tracks` merges the selected entries with the config's own
``tracks`` (which win on a repeated id).
"""

from __future__ import annotations

import glob
from pathlib import Path

import yaml

from .config_check import ConfigError

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


def local_track_files(tracks: dict) -> dict:
    """track -> {"qrels": file, "runs": [files]} of every track given by local files, resolved
    once (:func:`resolve_qrels`, :func:`resolve_runs`).

    Raises :class:`reeval.workflow.config_check.ConfigError` naming the track and the entry that
    names no file, so a workflow stops before any job with that message.
    """
    files = {}
    for track, entry in tracks.items():
        if "qrels" not in entry or "synthetic" in entry:
            continue
        try:
            files[track] = {"qrels": resolve_qrels(entry["qrels"]), "runs": resolve_runs(entry["runs"])}
        except FileNotFoundError as exc:
            raise ConfigError(f"tracks: {track}: {exc}") from None
    return files


def load_manifest(path) -> dict:
    """The ``tracks`` mapping of a manifest YAML file."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: the study manifest in 0.3 s, not 2 s
    try:
        data = yaml.load(Path(path).read_text(), Loader=loader) or {}
    except OSError as exc:
        raise ConfigError(f"manifest {path}: cannot be read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"manifest {path}: not valid YAML ({' '.join(str(exc).split())})") from None
    tracks = data.get("tracks") if isinstance(data, dict) else None
    if not isinstance(tracks, dict):
        raise ConfigError(f"manifest {path}: expected a top-level `tracks:` mapping")
    return tracks


def study_tracks(config: dict) -> dict:
    """Every track of a config: its ``tracks`` plus the selected ``manifest`` entries.

    ``study.tracks`` is ``all`` (the default) or a list of manifest ids; an id the
    manifest does not have is an error naming it. Entries of the config's own
    ``tracks`` replace manifest entries of the same id.
    """
    tracks = dict(config.get("tracks") or {})
    if not config.get("manifest"):
        return tracks
    manifest = load_manifest(config["manifest"])
    wanted = (config.get("study") or {}).get("tracks", "all")
    if wanted != "all":
        unknown = sorted(set(wanted) - set(manifest))
        if unknown:
            raise ConfigError(f"study.tracks names tracks that {config['manifest']} does not have: {unknown}")
        manifest = {k: manifest[k] for k in wanted}
    return {**manifest, **tracks}


def is_fetched(entry: dict) -> bool:
    """True for a track the fetch rule downloads (``urls`` and no local files)."""
    return "urls" in entry and "qrels" not in entry and "synthetic" not in entry
