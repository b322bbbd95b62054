"""Single config values as the config check (:mod:`reeval.workflow.config_check`) judges them,
in pure functions that return what is wrong: a value quoted within bounds, a track's
``groups``/``pooled`` pattern, a finite number, and the key a misspelt one meant."""

from __future__ import annotations

import difflib
import math
import os
import re
import reprlib

#: the most characters of a config value an error message quotes
QUOTE_LIMIT = 200
#: the track keys whose string is a file, else a regular expression searched in run names
PATTERN_KEYS = ("groups", "pooled")


def quoted(value, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for an error message, at most about ``limit`` characters: a long string
    or a deep or long list or mapping is cut (``...``) before it is spelled out, so a value
    built from YAML aliases (millions of items sharing a few objects) costs no more than
    ``limit`` characters to quote."""
    short = reprlib.Repr()  # its keyword arguments need Python 3.12
    short.maxlevel, short.maxdict, short.maxlist, short.maxtuple, short.maxset = 3, 6, 6, 6, 6
    short.maxstring = short.maxother = short.maxlong = limit
    text = short.repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def pattern_problem(config: dict) -> str | None:
    """The message for the first track whose ``groups`` or ``pooled`` string names no file and
    does not compile as a regular expression (``groups: '('``: the reusability job would
    fail on it), else None. A string that names a file is the job's to read."""
    tracks = config.get("tracks")
    for track, entry in tracks.items() if isinstance(tracks, dict) else ():
        for key in PATTERN_KEYS:
            spec = entry.get(key) if isinstance(entry, dict) else None
            if not isinstance(spec, str) or os.path.isfile(spec):
                continue
            try:
                re.compile(spec)
            except re.error as exc:
                return (f"config tracks.{track}.{key}: {quoted(spec)} names no file and is not a regular "
                        f"expression ({exc})")
    return None


def is_finite_number(value) -> bool:
    """An int or a finite float, never a bool (YAML's ``.nan`` and ``.inf`` are floats that pass
    every bound JSON Schema states: a margin of NaN printed "at least nan% better")."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def unknown_key_message(instance: dict, known, patterns=()) -> str:
    """``unknown key 'relevence_level'; did you mean 'relevance_level'?`` for the first key of
    ``instance`` that is neither among ``known`` nor matches one of ``patterns`` (regular
    expressions), with the closest known keys (:func:`difflib.get_close_matches`), else every
    known key; "" when there is no known key or no unknown one."""
    known = list(known)
    unknown = [k for k in instance if k not in known and not any(re.search(p, str(k)) for p in patterns)]
    if not known or not unknown:
        return ""
    close = difflib.get_close_matches(str(unknown[0]), known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(map(repr, close))}?" if close else f"accepted keys: {', '.join(known)}"
    return f"unknown key {quoted(unknown[0])}; {hint}"
