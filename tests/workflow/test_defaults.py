"""Every default of the config is stated once, in the schema, and filled in by with_defaults."""

import copy

import pytest

from conftest import ROOT
from reeval.workflow.config_check import (_resolved, fill_defaults, load_schema, section_with_defaults,
                                          track_option_keys, with_defaults)
from reeval.workflow.config_doc import markdown
from reeval.workflow.tracks import study_tracks, track_options

#: keys without a default: the study's data, not options
DATA_KEYS = {"tracks"}
#: defaults that depend on other keys (with_defaults resolves them)
DERIVED = {("fetch", "data_dir"): lambda cfg: f"{cfg['results']}/raw"}


def defaults(properties: dict, prefix=()):
    """(key path, schema) of every property below ``properties``, depth first."""
    for key, sub in properties.items():
        path = prefix + (key,)
        yield path, sub
        resolved = _resolved(sub)
        if key not in DATA_KEYS and resolved.get("type") == "object":
            yield from defaults(resolved.get("properties", {}), path)


def walk(node, inside=()):
    """Every (schema node, the combinators above it) of the schema."""
    if isinstance(node, dict):
        yield node, inside
        for key, value in node.items():
            for child in value if key in ("oneOf", "anyOf") and isinstance(value, list) else [value]:
                yield from walk(child, inside + ((key,) if key in ("oneOf", "anyOf") else ()))
    elif isinstance(node, list):
        for child in node:
            yield from walk(child, inside)


def at(cfg, path):
    for key in path:
        cfg = cfg[key]
    return cfg


def test_every_option_of_the_schema_has_a_default():
    paths = list(defaults(load_schema()["properties"]))
    missing = [".".join(p) for p, sub in paths if "default" not in sub and p[0] not in DATA_KEYS]
    assert not missing
    assert len(paths) > 50  # nested objects included (study.reorder.margin ...)


def test_no_default_sits_where_the_filler_does_not_go():
    """fill_defaults does not choose among oneOf/anyOf branches: no default may be there."""
    assert not [node for node, inside in walk(load_schema()) if inside and "default" in node]


def test_a_config_with_nothing_but_tracks_gets_every_default():
    cfg = with_defaults({"tracks": {"t": {"synthetic": "syn-graded"}}})
    for path, sub in defaults(load_schema()["properties"]):
        if path[0] in DATA_KEYS or (sub.get("default") == {} and _resolved(sub).get("properties")):
            continue  # the data, and objects whose keys are checked one by one
        want = DERIVED[path](cfg) if path in DERIVED else sub["default"]
        assert at(cfg, path) == want, path
    assert cfg["fetch"]["data_dir"] == "results/raw"
    assert with_defaults(dict(cfg, results="out", fetch={}))["fetch"]["data_dir"] == "out/raw"


def test_every_track_gets_every_reading_option():
    given = {"defaults": {"relevance_level": 2, "grade_map": {3: 2}},
             "tracks": {"a": {"synthetic": "syn-graded"}, "b": {"qrels": "q", "runs": "r", "precision": "float32"},
                        "c": {"urls": {"qrels": [{"url": "https://x/q"}], "runs": [{"url": "https://x/r", "run": "r"}]},
                              "relevance_level": 1, "grade_map": None}}}
    before = copy.deepcopy(given)
    cfg = with_defaults(given)
    assert given == before  # a copy: the config given is not changed
    assert track_option_keys() == ("relevance_level", "precision", "on_malformed", "grade_map")
    assert {t: {k: e[k] for k in track_option_keys()} for t, e in cfg["tracks"].items()} == {
        "a": {"relevance_level": 2, "precision": "float64", "on_malformed": "error", "grade_map": {3: 2}},
        "b": {"relevance_level": 2, "precision": "float32", "on_malformed": "error", "grade_map": {3: 2}},
        "c": {"relevance_level": 1, "precision": "float64", "on_malformed": "error", "grade_map": None}}
    cfg["tracks"]["a"]["grade_map"][1] = 0  # each track its own copy
    assert cfg["tracks"]["b"]["grade_map"] == {3: 2} == cfg["defaults"]["grade_map"]
    assert track_options(cfg, "b") == {"relevance_level": 2, "precision": "float32", "on_malformed": "error",
                                       "grade_map": {3: 2}}


def test_manifest_tracks_get_their_options_on_the_second_fill():
    """As common.smk does: fill, add the manifest's selected tracks, fill again."""
    cfg = with_defaults({"manifest": str(ROOT / "config" / "trec-manifest.yaml"), "defaults": {"precision": "float32"},
                         "study": {"tracks": ["trec2004-robust"]}, "tracks": {"mine": {"qrels": "q", "runs": "r"}}})
    cfg["tracks"] = study_tracks(cfg)
    cfg = with_defaults(cfg)
    assert sorted(cfg["tracks"]) == ["mine", "trec2004-robust"]
    assert all(e["precision"] == "float32" and "on_malformed" in e for e in cfg["tracks"].values())


def test_filling_is_idempotent_and_keeps_what_is_given():
    cfg = with_defaults({"tracks": {"t": {"synthetic": "syn-graded"}}, "rareness": {"synthetic": {"max_docs": 5}},
                         "study": {"reorder": {"margin": 0.2}}, "lexiprecision": {"relevance_level": 2}})
    assert with_defaults(cfg) == cfg
    assert cfg["rareness"]["synthetic"] == {"max_docs": 5, "alpha": [0, 0.5, 1], "topics": {}}
    assert cfg["study"]["reorder"] == {"margin": 0.2, "alpha": 0.05, "ttest_space": "aggregate",
                                       "unretrieved_precision": "asl"}
    assert cfg["lexiprecision"]["relevance_level"] == 2 and cfg["lexiprecision"]["levels"] == 20


def test_a_section_alone_gets_the_same_defaults():
    full = with_defaults({"tracks": {"t": {"synthetic": "syn-graded"}}, "rareness": {"trials": 3}})
    assert section_with_defaults("rareness", {"trials": 3}) == full["rareness"]
    for name in ("study", "lexiprecision", "fetch", "asl", "synthetic"):
        section = section_with_defaults(name)
        assert section == (full[name] if name != "fetch" else dict(full[name], data_dir=None)), name


def test_defaults_are_copies():
    schema = load_schema()
    one, two = {}, {}
    fill_defaults(one, schema)
    fill_defaults(two, schema)
    one["rareness"]["alpha"].append(9)
    assert two["rareness"]["alpha"] == [0, 0.25, 0.5, 0.75, 1] == load_schema()["properties"]["rareness"][
        "properties"]["alpha"]["default"]


@pytest.mark.parametrize("name", ["config.yaml", "shared-data.yaml", "simulated-study.yaml", "trec-study.yaml"])
def test_shipped_configs_do_not_restate_defaults(name):
    """A shipped config sets a key only to a value other than its default."""
    import yaml

    cfg = yaml.safe_load((ROOT / "config" / name).read_text())
    restated = [".".join(p) for p, sub in defaults(load_schema()["properties"])
                if p[0] not in DATA_KEYS and "default" in sub
                and not isinstance(sub["default"], dict) and _has(cfg, p) and at(cfg, p) == sub["default"]]
    assert not restated, f"{name} restates the defaults of {restated}"


def _has(cfg, path):
    for key in path:
        if not isinstance(cfg, dict) or key not in cfg:
            return False
        cfg = cfg[key]
    return True


def test_docs_configuration_is_the_schema_s_table():
    page = ROOT / "docs" / "configuration.md"
    assert page.read_text() == markdown(), "run: python -m reeval.workflow.config_doc > docs/configuration.md"


def test_every_key_of_the_configuration_page_says_what_it_means():
    """Issue 39 item 8: lexiprecision.table_relevance.table1-4 had an empty meaning column."""
    rows = [line for line in markdown().splitlines() if line.startswith("| `")]
    assert len(rows) > 50
    empty = [row.split(" | ")[0] for row in rows if not row.rstrip(" |").split(" | ")[-1].strip()
             or row.endswith("|  |")]
    assert empty == []


def test_the_configuration_page_lists_every_key_of_a_track_entry_with_its_meaning():
    """docs/configuration.md has a row for every key a track's entry (and a downloaded file's
    entry) accepts, each with a meaning, and the reading options name the key they default to."""
    from reeval.workflow.config_check import load_schema
    from reeval.workflow.config_doc import track_entry_markdown

    section = track_entry_markdown()
    defs = load_schema()["$defs"]
    for entry in ("track", "file"):
        for key in defs[entry]["properties"]:
            rows = [line for line in section.splitlines() if line.startswith(f"| `{key}` |")]
            assert rows, f"{entry} key {key} missing from the page"
            meaning = rows[0].rstrip(" |").rsplit("|", 1)[-1].strip()
            assert meaning, f"{entry} key {key} has no meaning"
    assert "| `relevance_level` | `defaults.relevance_level` |" in section
    assert "| `pool_depth` | `reusability.depth` |" in section
    assert section in (ROOT / "docs" / "configuration.md").read_text()
