"""docs/configuration.md, generated from the config schema (``schema.yaml`` beside this module):
every key, its default and what it accepts, so that each default is stated once.

    python -m reeval.workflow.config_doc > docs/configuration.md

A test keeps the page equal to :func:`markdown`.
"""

from __future__ import annotations

import json

from .config_check import MAX_CONFIG_ITEMS, _resolved, load_schema

INTRO = f"""# Configuration

Generated from the config schema, `src/reeval/workflow/schema.yaml`, the one place a default
is stated (`python -m reeval.workflow.config_doc > docs/configuration.md`; a test keeps this
page current). The workflow validates a config against the schema and fills in every
default (`reeval.workflow.config_check.with_defaults`) before any rule reads it; an unknown
key or a wrong value stops it with a message naming the key, e.g.
`config defaults.precision: 'double' is not one of ['float64', 'float32']`.

Before that, each config file (and the manifest) is read as written: a key given twice in
one mapping stops the workflow naming the key and both lines (YAML would keep the last
value silently), and so does a config that spells out more than {MAX_CONFIG_ITEMS:,} values once its
YAML aliases (`*name`) are expanded. A message quotes at most a few hundred characters of
a value. Every number is finite (`.nan` and `.inf` are refused), and a track's `groups` or
`pooled` string that names no file must compile as a regular expression.

Two defaults depend on other keys: a track's reading option (`relevance_level`,
`precision`, `on_malformed`, `grade_map`) that its entry does not set is the `defaults`
value, and `fetch.data_dir` null is `<results>/raw`. `tracks` has no default: the tracks
are the study's data (a config names `tracks`, a `manifest`, or both; README.md and
docs/trec-archive.md describe the entries).
"""


def _value(value) -> str:
    """A default as YAML flow text in backquotes (``null``, ``[0, 0.5]``, ``{}``)."""
    text = json.dumps(value, ensure_ascii=False).replace('"', "")
    return f"`{text}`"


def _accepts(schema: dict) -> str:
    """What a key accepts, from its type, enum, const, bounds and items."""
    schema = _resolved(schema)
    if "enum" in schema:
        return " or ".join(f"`{v}`" for v in schema["enum"])
    if "oneOf" in schema:
        return "; or ".join(_accepts(s) if "const" not in s else f"`{s['const']}`" for s in schema["oneOf"])
    kinds = schema.get("type", "")
    text = "/".join(kinds) if isinstance(kinds, list) else kinds
    bounds = [f"{op} {schema[k]}" for k, op in (("minimum", ">="), ("exclusiveMinimum", ">"),
                                                 ("maximum", "<="), ("exclusiveMaximum", "<")) if k in schema]
    if bounds:
        text += " " + ", ".join(bounds)
    if kinds == "array" and isinstance(schema.get("items"), dict):
        text += " of " + _accepts(schema["items"])
    return text.replace("number/null", "number or null").replace("string/null", "string or null")


def _rows(properties: dict, prefix: str) -> list[str]:
    """One table row per key with a default, depth first (an object's keys after it)."""
    rows = []
    for key, sub in properties.items():
        if "default" not in sub:
            continue
        path = f"{prefix}{key}"
        resolved = _resolved(sub)
        nested = resolved.get("properties") if resolved.get("type") == "object" else None
        if not nested or sub["default"] != {}:
            what = " ".join(str(resolved.get("description", "")).split())
            rows.append(f"| `{path}` | {_value(sub['default'])} | {_accepts(sub)} | {what} |")
        if nested:
            rows += _rows(nested, f"{path}.")
    return rows


HEADER = ["| key | default | accepts | meaning |", "|---|---|---|---|"]

#: the keys of a track's entry whose value, when the entry does not set it, comes from
#: another key (reeval.workflow.config_check.with_defaults and the rules that read them)
TRACK_KEY_DEFAULTS = {
    "relevance_level": "`defaults.relevance_level`",
    "precision": "`defaults.precision`",
    "on_malformed": "`defaults.on_malformed`",
    "grade_map": "`defaults.grade_map`",
    "pool_depth": "`reusability.depth`",
}

TRACK_INTRO = """## A track's entry (`tracks.<id>`)

Each entry of `tracks` (and of a manifest's `tracks:`) names one track by its id (ASCII
letters, digits, `.`, `_`, `-` and `+`, not starting with `.`). It gives its data in one of
three ways: `synthetic` (a generated track), `qrels` and `runs` (local files), or `urls`
(files the fetch rule downloads). A key not set has the default named here; "-" means the
key is simply absent.
"""

FILE_INTRO = """### A file of `urls` (`urls.qrels[]`, `urls.runs[]`, `urls.alternative_qrels[]`)
"""


def _entry_rows(properties: dict, defaults: dict) -> list[str]:
    """One row per key of an entry (a track, a file): key, the default from ``defaults``
    ("-" when absent), what it accepts and its description."""
    rows = []
    for key, sub in properties.items():
        resolved = _resolved(sub)
        what = " ".join(str(sub.get("description") or resolved.get("description", "")).split())
        accepts = "mapping" if resolved.get("type") == "object" and "oneOf" not in resolved else _accepts(sub)
        rows.append(f"| `{key}` | {defaults.get(key, '-')} | {accepts} | {what} |")
    return rows


def track_entry_markdown() -> str:
    """The section of a track's entry: every key of ``$defs/track`` and of ``$defs/file``."""
    defs = load_schema()["$defs"]
    # a reading option's meaning is stated once, in $defs/options (the `defaults` section)
    track = {key: sub if "description" in sub else {**sub, **{"description": defs["options"]["properties"].get(
        key, {}).get("description", "")}} for key, sub in defs["track"]["properties"].items()}
    lines = [TRACK_INTRO] + HEADER + _entry_rows(track, TRACK_KEY_DEFAULTS) + [""]
    lines += [FILE_INTRO] + HEADER + _entry_rows(defs["file"]["properties"], {}) + [""]
    return "\n".join(lines)


def _is_section(schema: dict) -> bool:
    return _resolved(schema).get("type") == "object" and "properties" in _resolved(schema)


def markdown() -> str:
    """The page: the introduction, a table of the top-level keys that are values, one table
    per section (an object's own line is left out when its default is ``{}``: its keys
    follow), then the keys of a track's entry and of a downloaded file."""
    properties = {k: v for k, v in load_schema()["properties"].items() if "default" in v}
    values = {k: v for k, v in properties.items() if not _is_section(v)}
    lines = [INTRO, "## Top-level keys", ""] + HEADER + _rows(values, "") + [""]
    for section, sub in properties.items():
        if section in values:
            continue
        description = " ".join(str(_resolved(sub).get("description", "")).split())
        lines += [f"## `{section}`", "", description[:1].upper() + description[1:] + ".", ""]
        lines += HEADER + _rows({section: sub}, "") + [""]
    lines.append(track_entry_markdown())
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(), end="")
