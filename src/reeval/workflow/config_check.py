"""Checks of a workflow config made when the workflow is parsed, with messages naming the bad value.

The JSON schema (``config/schema.yaml``) checks keys and types; these check what it
cannot say clearly, before any job runs:

- track ids (under ``tracks:``, in a manifest, in ``study.tracks``) are file and folder
  names and Snakemake wildcard values: ASCII letters, digits, ``.``, ``_``, ``-`` and
  ``+``, not starting with ``.`` (:data:`TRACK_ID`, also the schema's pattern). A ``/``
  would nest folders, a space or a regex character would break the rules' patterns.
- the ``measures:`` list, read by the package's own parser
  (:func:`reeval.measures.parse_measures`), as the ``measures`` rule will read it.
"""

from __future__ import annotations

import re

from reeval.errors import InputError

# the measures' and rareness parsers (numpy, pandas, pyarrow) are imported by the checks
# that call them: ConfigError, which every config reader raises, needs neither

TRACK_ID = r"^[A-Za-z0-9_+-][A-Za-z0-9._+-]*$"
TRACK_ID_RULE = "ASCII letters, digits, '.', '_', '-' and '+', not starting with '.'"


class ConfigError(InputError):
    """A config value the workflow cannot use; the message names it and what is accepted."""


def check_track_ids(ids, where: str = "tracks") -> None:
    """Raise ConfigError naming the first id in ``ids`` that is not a safe track id."""
    for track in ids:
        if not isinstance(track, str) or not re.fullmatch(TRACK_ID, track):
            raise ConfigError(f"{where}: track id {track!r} is not allowed; a track id may hold "
                              f"{TRACK_ID_RULE}")


def check_measures(specs) -> None:
    """Raise ConfigError naming the first entry of a ``measures:`` list the measures rule cannot
    compute (not a measure name, or a rareness measure: those are listed under rareness.measures)."""
    from reeval.measures import accepted_names, family_of, parse_measures

    accepted = accepted_names(per_topic_only=True)
    for spec in specs:
        if not isinstance(spec, str):
            raise ConfigError(f"measures: {spec!r} is not a measure name; accepted: {accepted}")
        try:
            measures = parse_measures([spec])
        except ValueError as exc:
            raise ConfigError(f"measures: {exc}; accepted: {accepted}") from None
        if any(family_of(m).needs_runs for m in measures):
            raise ConfigError(f"measures: {spec!r} is a rareness measure, computed over a set of runs: "
                              f"rareness measures are listed under rareness.measures; accepted here: {accepted}")


def check_config(config: dict) -> None:
    """The checks of the module docstring on a config as loaded (before the schema's)."""
    tracks = config.get("tracks")
    if isinstance(tracks, dict):
        check_track_ids(tracks, "tracks")
    wanted = (config.get("study") or {}).get("tracks") if isinstance(config.get("study"), dict) else None
    if isinstance(wanted, list):
        check_track_ids(wanted, "study.tracks")
    measures = config.get("measures")
    if isinstance(measures, list):
        check_measures(measures)
