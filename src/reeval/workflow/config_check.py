"""Checks of a workflow config made when the workflow is parsed, with messages naming the bad value,
and the config with every default filled in.

The JSON schema (``schema.yaml`` beside this module, package data) checks keys and types
and holds every default (its ``default:`` keywords, the one place a default is stated);
:func:`with_defaults` validates a config against it and fills them in. The checks below
say what the schema cannot say clearly, before any job runs:

- track ids (under ``tracks:``, in a manifest, in ``study.tracks``) are file and folder
  names and Snakemake wildcard values: ASCII letters, digits, ``.``, ``_``, ``-`` and
  ``+``, not starting with ``.`` (:data:`TRACK_ID`, also the schema's pattern). A ``/``
  would nest folders, a space or a regex character would break the rules' patterns.
- the ``measures:`` list, read by the package's own parser
  (:func:`reeval.measures.parse_measures`), as the ``measures`` rule will read it, each
  integer parameter (a cutoff) within int64 (:func:`check_measures`), and
  ``reusability.measures`` (measures with a mean over topics, rareness ones included).
- ``results`` names a folder: not an existing file (:func:`check_results`; the schema
  refuses ``''``, which would put every output under ``/``), and neither inside a local
  track's ``runs`` or ``qrels`` nor holding them (:func:`check_results_apart`): the workflow
  would read its own outputs as runs.
- the config files as written: a key given twice in one mapping is refused
  (:func:`check_config_file`; YAML keeps the last silently), and so is a config that
  spells out more than :data:`MAX_CONFIG_ITEMS` values once its YAML aliases are expanded
  (:func:`check_expanded_size`, before anything walks it). An error quotes at most about
  :data:`QUOTE_LIMIT` characters of a value (:func:`quoted`).
- ``grade_map`` keys are integers within int64 (written as numbers or as strings of digits,
  as ``--config`` gives them; the schema bounds the values), :func:`check_grade_maps`.
- a track's ``groups`` or ``pooled`` string that names no file compiles as a regular
  expression (:func:`check_patterns`); every number is finite (the validator's ``number``:
  no ``.nan`` or ``.inf``), and ``lexiprecision.hsd_resamples`` and the seeds have the
  command line's bounds (the schema).

Integers are strict: the schema's ``integer`` is an int, not a float with no fraction
(JSON Schema's own rule lets ``1e20`` or ``2.0`` pass as an integer, and a job then fails
on it): :data:`INT64` bounds what numpy holds, as the command line bounds it
(:data:`reeval.choices.INTEGER_BOUNDS`).
"""

from __future__ import annotations

import copy
import fnmatch
import glob
import os
import re
from functools import lru_cache
from pathlib import Path

import yaml

from reeval.errors import InputError

from .config_values import QUOTE_LIMIT, is_finite_number, pattern_problem, quoted, unknown_key_message

# the measures' and rareness parsers (numpy, pandas, pyarrow) are imported by the checks
# that call them: ConfigError, which every config reader raises, needs neither

TRACK_ID = r"^[A-Za-z0-9_+-][A-Za-z0-9._+-]*$"
TRACK_ID_RULE = "ASCII letters, digits, '.', '_', '-' and '+', not starting with '.'"
#: the integers a grade, a relevance level or a cutoff can be: numpy's int64
INT64 = (-(2**63), 2**63 - 1)


class ConfigError(InputError):
    """A config value the workflow cannot use; the message names it and what is accepted."""


def check_track_ids(ids, where: str = "tracks") -> None:
    """Raise ConfigError naming the first id in ``ids`` that is not a safe track id."""
    for track in ids:
        if not isinstance(track, str) or not re.fullmatch(TRACK_ID, track):
            raise ConfigError(f"{where}: track id {quoted(track)} is not allowed; a track id may hold "
                              f"{TRACK_ID_RULE}")


def check_measures(specs) -> None:
    """Raise ConfigError naming the first entry of a ``measures:`` list the measures rule cannot
    compute (not a measure name, or a rareness measure: those are listed under rareness.measures)."""
    from reeval.measures import accepted_names, family_of, parse_measures

    accepted = accepted_names(per_topic_only=True)
    for spec in specs:
        if not isinstance(spec, str):
            raise ConfigError(f"measures: {quoted(spec)} is not a measure name; accepted: {accepted}")
        try:
            measures = parse_measures([spec])
        except ValueError as exc:
            raise ConfigError(f"measures: {exc}") from None  # the nearest names, not the whole list
        if any(family_of(m).needs_runs for m in measures):
            raise ConfigError(f"measures: {quoted(spec)} is a rareness measure, computed over a set of runs: "
                              f"rareness measures are listed under rareness.measures; accepted here: {accepted}")
        if len(measures) == 1 and measures[0].is_text:
            raise ConfigError(f"measures: {quoted(spec)} is text (reeval score prints it), not a number the "
                              f"tables can hold; accepted here: {accepted}")
        for measure in measures:
            _check_measure_integers(spec, measure)


def _check_measure_integers(spec: str, measure) -> None:
    """Raise ConfigError if an integer parameter of ``measure`` (its cutoff, its ``rel``, a
    number among its ``params``) lies outside :data:`INT64`: it would end a job in an
    OverflowError."""
    values = [measure.cutoff, measure.rel, *_numbers(measure.params)]
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool) and not INT64[0] <= value <= INT64[1]:
            raise ConfigError(f"measures: {quoted(spec)}: {value} is outside the integers a measure accepts "
                              f"({INT64[0]} to {INT64[1]})")


def _numbers(params) -> list:
    """Every number nested in a measure's params (tuples of pairs, numbers, strings)."""
    if isinstance(params, (tuple, list)):
        return [n for item in params for n in _numbers(item)]
    return [params] if isinstance(params, (int, float)) else []


def check_results(results) -> None:
    """Raise ConfigError if ``results`` names something that exists and is not a folder."""
    if isinstance(results, str) and results and Path(results).exists() and not Path(results).is_dir():
        raise ConfigError(f"config results: {quoted(results)} is a file; results must name a folder "
                          f"(made if absent)")


def check_results_apart(results: str, tracks: dict) -> None:
    """Raise ConfigError if the results folder lies inside a local track's ``runs`` or
    ``qrels`` (a folder, a file, a glob or a list of them), or one of them inside the results.

    Inside a runs folder the workflow would read its own outputs as runs (the first run
    fails on ``inputs.json``, the next finds a cycle); inside the results, a track's inputs
    sit among files the workflow writes and removes. Paths are compared resolved (symbolic
    links followed, relative ones from the working directory); for a glob, the results are
    inside it when the glob names the results folder or a folder above it (what
    :func:`reeval.workflow.tracks.list_runs` would walk). Synthetic and fetched tracks are not
    checked: the workflow writes their files itself."""
    out = _real(results)
    for track, entry in tracks.items():
        if not isinstance(entry, dict) or "synthetic" in entry:
            continue
        for key in ("qrels", "runs"):
            specs = entry.get(key)
            for spec in specs if isinstance(specs, list) else [specs]:
                if not isinstance(spec, str) or not spec:
                    continue
                base, pattern = _static_part(spec)
                if _names_or_holds(pattern, base, out):
                    raise ConfigError(f"config results {quoted(results)} is inside tracks.{track}.{key} "
                                      f"{quoted(spec)}: the workflow would read its own outputs as inputs; "
                                      f"choose a results folder outside every track's runs and qrels")
                if base.is_relative_to(out):
                    raise ConfigError(f"config tracks.{track}.{key} {quoted(spec)} is inside results "
                                      f"{quoted(results)}, where the workflow writes; keep a track's runs and "
                                      f"qrels outside the results folder")


def _real(path: str) -> Path:
    """``path`` absolute, with every symbolic link of its existing part followed."""
    return Path(os.path.realpath(os.path.abspath(path)))


def _static_part(spec: str) -> tuple[Path, tuple]:
    """A path or glob split at its first component holding a wildcard: (that folder,
    resolved; the components from there on, empty for a plain path)."""
    parts = Path(spec).parts
    for i, part in enumerate(parts):
        if glob.has_magic(part):
            return _real(str(Path(*parts[:i])) if i else "."), parts[i:]
    return _real(spec), ()


def _names_or_holds(pattern: tuple, base: Path, target: Path) -> bool:
    """True if ``base`` joined with the glob components ``pattern`` names ``target`` or a
    folder above it; with no pattern, if ``target`` is ``base`` or inside it."""
    if not target.is_relative_to(base):
        return False
    rel = target.relative_to(base).parts
    return len(rel) >= len(pattern) and all(fnmatch.fnmatchcase(r, p) for r, p in zip(rel, pattern))


def check_grade_maps(config: dict) -> None:
    """Raise ConfigError naming the first ``grade_map`` (in ``defaults`` or a track entry)
    with a key that is not an integer within :data:`INT64`."""
    entries = [("defaults", config.get("defaults"))]
    tracks = config.get("tracks")
    if isinstance(tracks, dict):
        entries += [(f"tracks.{track}", entry) for track, entry in tracks.items()]
    for where, entry in entries:
        grade_map = entry.get("grade_map") if isinstance(entry, dict) else None
        for key in grade_map if isinstance(grade_map, dict) else ():
            if not _is_int64(key):
                raise ConfigError(f"config {where}.grade_map: key {quoted(key)} is not a grade; a grade is "
                                  f"an integer from {INT64[0]} to {INT64[1]}")


def check_synthetic_names(config: dict) -> None:
    """Raise ConfigError naming a track whose ``synthetic:`` is a name the built-in campaign
    does not have (the schema's enum, :data:`reeval.synth.tracks.DEFAULT_CAMPAIGN`)."""
    names = _schema()["$defs"]["track"]["properties"]["synthetic"]["oneOf"][0]["enum"]
    tracks = config.get("tracks")
    for track, entry in tracks.items() if isinstance(tracks, dict) else ():
        name = entry.get("synthetic") if isinstance(entry, dict) else None
        if isinstance(name, str) and name not in names:
            raise ConfigError(f"config tracks.{track}.synthetic: {quoted(name)} is not a track of the built-in "
                              f"campaign ({', '.join(names)}); give one of those or a track's shape "
                              f"(n_runs, n_topics, ...)")


def check_patterns(config: dict) -> None:
    """Raise ConfigError for the first track ``groups`` or ``pooled`` string that names no file
    and is no regular expression (:func:`.config_values.pattern_problem`)."""
    problem = pattern_problem(config)
    if problem:
        raise ConfigError(problem)


def _is_int64(value) -> bool:
    """An int (or a string of one, as ``--config`` gives a key) within :data:`INT64`."""
    if isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value.strip()):
        value = int(value)
    return isinstance(value, int) and not isinstance(value, bool) and INT64[0] <= value <= INT64[1]


def check_reusability_measures(specs) -> None:
    """Raise ConfigError naming the first entry of ``reusability.measures`` that is not a
    measure with a mean over topics (rareness measures are allowed there)."""
    from reeval.measures import parse_measures

    for spec in specs:
        try:
            measures = parse_measures([str(spec)])
        except ValueError as exc:
            raise ConfigError(f"reusability.measures: {exc}") from None
        if any(m.is_text or m.aggregate != "mean" for m in measures):
            raise ConfigError(f"reusability.measures: {quoted(spec)} has no mean over topics (num_*, gm_map, text)")


def check_config(config: dict) -> None:
    """The checks of the module docstring on a config as loaded (before the schema's), the
    first its size once YAML aliases are expanded (:func:`check_expanded_size`)."""
    check_expanded_size(config)
    tracks = config.get("tracks")
    if isinstance(tracks, dict):
        check_track_ids(tracks, "tracks")
    wanted = (config.get("study") or {}).get("tracks") if isinstance(config.get("study"), dict) else None
    if isinstance(wanted, list):
        check_track_ids(wanted, "study.tracks")
    measures = config.get("measures")
    if isinstance(measures, list):
        check_measures(measures)
    check_results(config.get("results"))
    reuse = config.get("reusability")
    if isinstance(reuse, dict) and isinstance(reuse.get("measures"), list):
        check_reusability_measures(reuse["measures"])


#: the most items a config (or a manifest) may hold once its YAML aliases are spelled out:
#: 20 times the TREC study's manifest (51,271 items); a scalar, a list, a mapping and each
#: key count one
MAX_CONFIG_ITEMS = 1_000_000
#: the deepest nesting of lists and mappings a config may have (the schema's is 5)
MAX_CONFIG_DEPTH = 50


def expanded_size(value, limit: int = MAX_CONFIG_ITEMS) -> int:
    """How many items ``value`` holds with every YAML alias (``*name``) spelled out where it
    stands: 1 for a scalar; for a list, 1 plus its items'; for a mapping, 1 plus 1 per key
    plus its values'. An object that several aliases share is sized once (by identity), so
    nine levels of nine aliases (9**9 items, a "billion laughs") take a few steps, not 9**9.
    Raises ConfigError for a value nested deeper than :data:`MAX_CONFIG_DEPTH` or holding
    itself (``&a [*a]``); stops counting once past ``limit``."""
    sizes: dict = {}

    def size(item, depth: int) -> int:
        if not isinstance(item, (dict, list)):
            return 1
        if id(item) in sizes:
            if sizes[id(item)] is None:
                raise ConfigError("a value holds itself through a YAML alias (an &anchor used inside its own "
                                  "value); a configuration is a tree of values")
            return sizes[id(item)]
        if depth > MAX_CONFIG_DEPTH:
            raise ConfigError(f"values nested more than {MAX_CONFIG_DEPTH} levels deep")
        sizes[id(item)] = None  # being sized
        total = 1
        for child in item.values() if isinstance(item, dict) else item:
            total += size(child, depth + 1) + isinstance(item, dict)
            if total > limit:
                break
        sizes[id(item)] = total
        return total

    return size(value, 0)


def check_expanded_size(value, where: str = "config") -> None:
    """Raise ConfigError if ``value`` spells out more than :data:`MAX_CONFIG_ITEMS` items once
    its YAML aliases are expanded (:func:`expanded_size`): checking, validating or quoting it
    would take the memory and time of every copy."""
    try:
        size = expanded_size(value)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if size > MAX_CONFIG_ITEMS:
        raise ConfigError(f"{where}: more than {MAX_CONFIG_ITEMS:,} values once its YAML aliases (*name) are "
                          f"spelled out; an alias of a value that holds aliases multiplies them (a 'billion "
                          f"laughs' file): write the values out, or use fewer aliases")


class DuplicateKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """YAML's safe loader (libyaml's when installed) that refuses a key given twice in one
    mapping, where PyYAML and Snakemake keep the last silently. Merge keys (``<<: *base``)
    may still be overridden: only the keys written in the mapping itself are compared."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    if key in first:
                        raise DuplicateKeyError(key, line, first[key])
                    first[key] = line
                except TypeError:  # an unhashable key: the constructor says so below
                    continue
        return super().construct_mapping(node, deep=deep)


class DuplicateKeyError(yaml.YAMLError):
    """A key given twice in one YAML mapping (:class:`DuplicateKeyLoader`)."""

    def __init__(self, key, line: int, first: int):
        super().__init__(f"line {line}: key {quoted(key)} is given twice in one mapping (first on line {first}); "
                         f"YAML would keep only the last value: give each key once")


def check_config_file(path) -> None:
    """Raise ConfigError if the config file ``path`` gives a key twice in one mapping (naming
    the key and both lines) or spells out too much once its aliases are expanded
    (:func:`check_expanded_size`). Snakemake has read the file already (keeping the last value
    of a repeated key): a file it read that this loader cannot parse is left to it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    try:
        data = yaml.load(text, Loader=DuplicateKeyLoader)
    except DuplicateKeyError as exc:
        raise ConfigError(f"config file {path}: {exc}") from None
    except yaml.YAMLError:
        return
    check_expanded_size(data, f"config file {path}")


SCHEMA_PATH = Path(__file__).with_name("schema.yaml")


@lru_cache(maxsize=1)
def _schema() -> dict:
    """``schema.yaml`` as read by libyaml's loader where PyYAML has it (the same mapping as
    ``yaml.safe_load``'s pure-Python reading, which costs a fresh process about 8 times the CPU:
    every job of benchmarks/bench_audit.py fills a config's defaults from it)."""
    return yaml.load(SCHEMA_PATH.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def load_schema() -> dict:
    """The workflow config's JSON schema (a fresh copy of ``schema.yaml``)."""
    return copy.deepcopy(_schema())


def _resolved(schema: dict) -> dict:
    """``schema`` with its local ``$ref`` (``#/$defs/<name>``) followed; its own keys win."""
    while "$ref" in schema:
        target = _schema()
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _validate(instance, schema: dict, where: str) -> None:
    """Raise ConfigError naming the key path of the most relevant schema violation."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator()({**schema, "$defs": _schema()["$defs"]}).iter_errors(instance))
    if error is not None:
        path = ".".join([where] * bool(where) + [str(p) for p in error.absolute_path])
        raise ConfigError(f"config {path or '(top level)'}: {_bounded_message(error)}")


def _bounded_message(error) -> str:
    """A schema error's message with the value it spells out (the whole offending mapping or
    list, as jsonschema writes it) quoted within :data:`QUOTE_LIMIT` (:func:`quoted`)."""
    message = error.message
    if isinstance(error.instance, float) and not is_finite_number(error.instance):
        return f"{error.instance} is not a finite number"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        schema = _resolved(error.schema)
        return unknown_key_message(error.instance, schema.get("properties", {}),
                                   schema.get("patternProperties", {})) or message
    if len(message) > 2 * QUOTE_LIMIT:
        message = message.replace(repr(error.instance), quoted(error.instance))
    return message if len(message) <= 4 * QUOTE_LIMIT else message[:4 * QUOTE_LIMIT - 3] + "..."


@lru_cache(maxsize=1)
def _validator():
    """Draft 2020-12 whose ``integer`` is an int only (not 2.0 or 1e20, which the draft
    counts as integers and numpy or a cutoff then refuses in a job), never a bool, and whose
    ``number`` is finite (YAML's ``.nan`` and ``.inf`` pass every bound of the draft's: a
    margin of NaN printed "at least nan% better")."""
    from jsonschema import Draft202012Validator, validators

    checker = Draft202012Validator.TYPE_CHECKER.redefine_many({
        "integer": lambda _, value: isinstance(value, int) and not isinstance(value, bool),
        "number": lambda _, value: is_finite_number(value)})
    return validators.extend(Draft202012Validator, type_checker=checker)


def fill_defaults(instance, schema: dict) -> None:
    """Set, in place, every absent property whose schema has a ``default`` (a copy of it),
    at every depth: an object whose default is ``{}`` is created, then its own defaults
    filled. Follows ``$ref``, ``allOf``, ``additionalProperties``, ``patternProperties`` and
    ``items``; not ``oneOf``/``anyOf`` (which branch applies is the validator's business,
    and the schema puts no default there: a test checks)."""
    schema = _resolved(schema)
    for sub in schema.get("allOf", []):
        fill_defaults(instance, sub)
    if isinstance(instance, list) and isinstance(schema.get("items"), dict):
        for item in instance:
            fill_defaults(item, schema["items"])
    if not isinstance(instance, dict):
        return
    properties = schema.get("properties", {})
    for key, sub in properties.items():
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        if key in instance:
            fill_defaults(instance[key], sub)
    for key, value in instance.items():
        if key in properties:
            continue
        subs = [sub for pattern, sub in schema.get("patternProperties", {}).items() if re.search(pattern, key)]
        extra = schema.get("additionalProperties")
        for sub in subs or ([extra] if isinstance(extra, dict) else []):
            fill_defaults(value, sub)


def track_option_keys() -> tuple:
    """The reading options a track entry may set (those of the config's ``defaults``)."""
    return tuple(_schema()["$defs"]["options"]["properties"])


def with_defaults(config: dict) -> dict:
    """A copy of ``config``, validated against the schema, with every default filled in.

    Two defaults depend on other keys: a track's reading option that its entry does not
    set is the config's ``defaults`` value (every track gets every one of
    :func:`track_option_keys`), and ``fetch.data_dir`` null is ``<results>/raw``. Raises
    ConfigError (``config <key path>: <what is wrong>``) for a config the schema refuses.
    Idempotent: a filled config fills to itself.
    """
    check_grade_maps(config)  # also a manifest's entries, which join the config after check_config
    check_synthetic_names(config)
    check_patterns(config)
    _validate(config, _schema(), "")
    out = copy.deepcopy(config)
    fill_defaults(out, _schema())
    for entry in (out.get("tracks") or {}).values():
        for key in track_option_keys():
            entry.setdefault(key, copy.deepcopy(out["defaults"][key]))
    if out["fetch"]["data_dir"] is None:
        out["fetch"]["data_dir"] = f"{out['results']}/raw"
    return out


def section_with_defaults(name: str, values: dict | None = None) -> dict:
    """One top-level section of the config (``rareness``, ``study``, ``lexiprecision`` ...),
    validated, with its defaults filled in: what :func:`with_defaults` gives a config
    holding ``values`` there. For code called outside the workflow (tests, the API)."""
    schema = _schema()["properties"][name]
    section = copy.deepcopy(values) if values is not None else copy.deepcopy(schema["default"])
    _validate(section, schema, name)
    fill_defaults(section, schema)
    return section
