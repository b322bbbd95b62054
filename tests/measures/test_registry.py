"""The measure registry: one hand-checked value for every registered family, the parser a
loop over the registry, ``reeval measures`` printed from it, a new family one definition.

The track (relevance level 1): topic 1 judges A (grade 2), B (1), D (1) relevant and C
(0) not; topic 2 judges E (1). Run ``one`` ranks X (unjudged), A, C, B for topic 1 and F
(unjudged) for topic 2; run ``two`` ranks only A for topic 1. So for run one, topic 1:
R = 3, relevant at ranks 2 and 4, D not retrieved, 4 documents retrieved.
"""

import math
import re

import pytest

from conftest import ROOT, write_lines
from reeval import cli
from reeval.measures import REGISTRY, Family, evaluate_grid, family_of, grid_from_track, parse_measure, register
from reeval.measures.registry import cutoffs

LOG2 = math.log2

#: measure -> its value for run one on topic 1 (for the measures printed only as run values,
#: gm_map and num_q, its run value), worked out by hand from the definitions
HAND_CHECKED = {
    "map": (1 / 2 + 2 / 4) / 3,
    "gm_map": math.exp((math.log(1 / 3) + math.log(1e-5)) / 2),  # run value: topic 2's AP 0 floored at 1e-5
    "P_2": 1 / 2,
    "recall_2": 1 / 3,
    "Rprec": 1 / 3,                 # top R = 3: X, A, C
    "recip_rank": 1 / 2,
    "bpref": (1 + 0) / 3,           # A: no judged non-relevant above; B: C above, min(1, 3) / min(N = 1, 3)
    "ndcg": (2 / LOG2(3) + 1 / LOG2(5)) / (2 + 1 / LOG2(3) + 1 / LOG2(4)),
    "ndcg_cut_2": (2 / LOG2(3)) / (2 + 1 / LOG2(3)),
    "iprec_at_recall_0.70": 0.5,    # k = lround(0.7 * 3) = 2 relevant: max precision 1/2, 2/4
    "iprec_at_recall_0.80": 0.5,    # k = lround(2.4) = 2 (trec_eval 9.x: (long)(2.4 + 0.9) = 3, so 0)
    "iprec_at_recall_0.90": 0.0,    # k = lround(2.7) = 3 relevant: only 2 retrieved
    # k_L = 0,0,1,1,1,2,2,2,2,3,3: nine levels at 1/2 (k = 0 takes the value at the first)
    "11pt_avg": 9 * 0.5 / 11,
    "yaap": math.log((1 + 1) / (1 + 3 - 1)),   # s = AP x R = 1/2 + 2/4 = 1
    "map_cut_2": (1 / 2) / 3,
    "relative_P_2": 1 / 2,          # 1 relevant in the top 2, min(2, R = 3)
    "success_2": 1.0,
    "Rprec_mult_0.60": 1 / 2,       # c = (long)(0.6 * 3 + 0.9) = 2
    "binG": (1 / LOG2(3) + 1 / LOG2(4)) / 3,   # A: 1 non-relevant above, B: 2
    "gm_bpref": math.exp((math.log(1 / 3) + math.log(1e-5)) / 2),
    "infAP": (1 / 2 + (1 / 4 + (3 / 4) * (2 / 3) * ((1 + 1e-5) / (2 + 2e-5)))) / 3,  # A at rank 2, B at 4 (C above)
    # graded: ideal gains 2, 1, 1 (A; B, D); A (2) at rank 2, C (0) at 3, B (1) at 4
    "dcg": 2 / LOG2(3) + 1 / LOG2(5),
    "ideal_dcg": 2 + 1 / LOG2(3) + 1 / LOG2(4),
    "G": (2 / LOG2(2 + 3 - 2) + 1 / LOG2(2 + 5 - 3)) / 4,  # cost 2, 3, 4, 5 by rank; gains so far 2, 3
    "ndcg_rel": ((2 / LOG2(3)) / (2 + 1 / LOG2(3))
                 + 2 * (2 / LOG2(3) + 1 / LOG2(5)) / (2 + 1 / LOG2(3) + 1 / LOG2(4))) / 3,
    "Rndcg": (0 + (2 / LOG2(3)) / (2 + 1 / LOG2(3) + 1 / LOG2(4))) / 2,  # R-levels at ranks 1 and 3
    "rbp": 0.1 * (1 * 0.9 + 0.5 * 0.9 ** 3),    # gains 0, 1, 2 rescaled to 0, 1/2, 1
    "rbp_resid": 0.9 ** 4 + 0.1 * 1,           # X (rank 1) unjudged
    "ERR@10": (3 / 16) / 2 + (1 / 16) * (13 / 16) / 4,
    "Judged@2": 1 / 2,              # X, A: A in the qrels
    "num_nonrel_judged_ret": 1,
    "unj_5": 1 / 5,                 # X; A, C, B judged; the top 5 counts 4 retrieved
    "set_P": 2 / 4,
    "set_relative_P": 2 / 3,
    "set_recall": 2 / 3,
    "set_map": 2 * 2 / (4 * 3),
    "set_F": 2 * (1 / 2) * (2 / 3) / ((1 / 2) + (2 / 3)),
    "utility.1,-1,-0.5,0": 1 * 2 - 1 * 2 - 0.5 * 1,
    "relstring": "-201",            # X not in the qrels, A 2, C 0, B 1
    "runid": "one",                 # run value: the tag
    "num_q": 2,                     # run value: the topics run one answered
    "num_ret": 4,
    "num_rel": 3,
    "num_rel_ret": 2,
    "ASL": (2 + 3 + 3) / 3,         # A: 1 + 1 above; B: 1 + 2 above; D: irrel 2 + 1
    "ASL@g1": 2,
    "ASL@g1-2": (2 + 3) / 2,
    # textbook measures: C is topic 1's one judged non-relevant document, retrieved at rank 3
    "fallout": 1 / 1,
    "fallout_2": 0 / 1,
    "CG@3": 0 + 2 + 0,              # X, A, C
    "DCG@4": 2 / LOG2(3) + 1 / LOG2(5),
    "dcg_jk_4": 2 / 1 + 1 / LOG2(4),  # rel_1 + sum_{i>=2} rel_i / log2 i: A at 2, B at 4
    # ranx's: A relevant at 2, B at 4 (R = 3)
    "hits@2": 1,
    "hits": 2,
    "f1@2": 2 * (1 / 2) * (1 / 3) / ((1 / 2) + (1 / 3)),
    "f1": 2 * (2 / 4) * (2 / 3) / ((2 / 4) + (2 / 3)),   # the whole ranking: set_F
    # two runs, alpha 1: A is found by both (rarity 0), B by one (rarity 1 - 1/2; normalized 1)
    "P_rareness@4": (1 + 1.5) / 4,
    "AP_rareness@4": (1 / 2 + (1 + 1.5) / 4) / 3,
    "P_rareness_norm@4": (0 + 1) / 4,
    "AP_rareness_norm@4": (0 / 2 + (0 + 1) / 4) / 3,
}


@pytest.fixture()
def track(tmp_path):
    qrels = write_lines(tmp_path / "qrels", ["1 0 A 2", "1 0 B 1", "1 0 C 0", "1 0 D 1", "2 0 E 1"])
    one = write_lines(tmp_path / "one", ["1 Q0 X 1 4 one", "1 Q0 A 2 3 one", "1 Q0 C 3 2 one",
                                         "1 Q0 B 4 1 one", "2 Q0 F 1 1 one"])
    two = write_lines(tmp_path / "two", ["1 Q0 A 1 1 two"])
    return qrels, [one, two]


def per_topic(track, spec):
    """Run one's value on topic 1, as ``reeval score -q`` prints it (its run value when
    the measure has no per-topic line; text as text)."""
    qrels, runs = track
    lines = cli.score_lines(qrels, runs, [spec], per_topic=True, decimals=17)
    values = {(run, measure.strip(), qid): _number(value) for run, measure, qid, value in
              (line.split("\t") for line in lines)}
    (name,) = {m.name for m in parse_measure(spec)}
    return values.get(("one", name, "1"), values.get(("one", name, "all")))


def _number(text: str):
    try:
        return float(text)
    except ValueError:
        return text.strip("'")


def test_every_registered_family_has_a_hand_checked_case():
    covered = {m.family for spec in HAND_CHECKED for m in parse_measure(spec)}
    assert set(REGISTRY) - covered == set(), "add a hand-checked value for every new family"


@pytest.mark.parametrize("spec", HAND_CHECKED)
def test_hand_checked_value(track, spec):
    expected = HAND_CHECKED[spec]
    assert per_topic(track, spec) == (expected if isinstance(expected, str) else pytest.approx(expected, abs=1e-15))


def test_the_parser_reads_every_spelling_of_a_family():
    same = [["map", "AP", "ap"], ["P_20", "P.20", "P@20", "p_20"], ["recall_10", "R@10", "recall.10"],
            ["ndcg_cut_10", "nDCG@10", "ndcg_cut.10"], ["recip_rank", "RR", "MRR"],
            ["ASL@g1-1", "ASL@g1"], ["P_rareness@100", "p_rareness.100", "P_rareness"]]
    for spellings in same:
        assert len({tuple(parse_measure(s)) for s in spellings}) == 1, spellings
    assert [m.name for m in parse_measure("P.5,10")] == ["P_5", "P_10"]
    assert len(parse_measure("iprec_at_recall")) == 11 and len(parse_measure("P")) == 9
    for bad, message in [("mapp", "unknown measure 'mapp'"), ("P.0", "cutoffs must be positive"),
                         ("ASL@g1-0", "needs n >= 1"), ("P_rareness@0", "positive integer")]:
        with pytest.raises(ValueError, match=message):
            parse_measure(bad)


def test_reeval_measures_lists_every_family_and_set(capsys):
    assert cli.main(["measures", "--formulas"]) == 0
    out = capsys.readouterr().out
    for family in REGISTRY.values():
        assert ", ".join(family.names) + "\n    " + family.description in out
    assert "lower is better" in out and "run value: gmean" in out
    assert "official: runid, num_q, num_ret" in out and "| AP = (1/R_q)" in out


def test_a_new_family_is_one_definition(track):
    """misses@k (judged documents not relevant in the top k), registered here and removed
    afterwards: it parses, computes and prints with nothing else changed."""
    def misses(ctx, m):
        """misses_k = the judged documents not relevant in the top k (the grid's rows: judged)."""
        return ctx.count(~ctx.is_rel & (ctx.pos <= m.cutoff))

    register(Family("misses", ("misses_k", "misses@k"), "documents not relevant in the top k",
                    cutoffs("misses"), misses, doc=misses.__doc__))
    try:
        assert [m.name for m in parse_measure("misses@1")] == ["misses_1"]
        assert (per_topic(track, "misses@1"), per_topic(track, "misses@4")) == (0.0, 1.0)  # C at 3
        assert family_of(parse_measure("misses@3")[0]).doc.startswith("misses_k")
    finally:
        del REGISTRY["misses"]


def test_evaluate_grid_refuses_a_family_computed_over_runs(track):
    from reeval.io.ingest import ingest_track

    qrels, runs = track
    grid = grid_from_track(ingest_track("t", qrels, runs))
    with pytest.raises(ValueError, match="not computed by evaluate_grid"):
        evaluate_grid(grid, parse_measure("P_rareness@4"))


def test_docs_measures_is_the_registry_s_table():
    """docs/measures.md is what ``reeval measures --markdown`` prints (regenerate it so)."""
    page = ROOT / "docs" / "measures.md"
    assert page.read_text() == cli.measure_markdown() + "\n", "run: reeval measures --markdown > docs/measures.md"


def test_every_family_in_the_measures_table_links_to_its_definition_on_the_page():
    """Issue 39 item 8: the family names link to their headings; the page rendered as MkDocs
    renders it (Python-Markdown's tables and toc) holds an element with each linked id."""
    import markdown

    page = cli.measure_markdown()
    table = [line for line in page.splitlines() if line.startswith("| [`")]
    links = [re.match(r"\| \[`([^`]+)`\]\(#([^)]+)\)", line).groups() for line in table]
    assert [name for name, _ in links] == [f.name for f in sorted(REGISTRY.values(), key=lambda f: f.order)]
    html = markdown.markdown(page, extensions=["tables", "toc"])
    ids = re.findall(r'<h3 id="([^"]+)"><code>([^<]+)</code></h3>', html)
    assert sorted(ids) == sorted((anchor, name) for name, anchor in links)   # each anchor its family's heading


def test_the_measures_page_gives_each_rareness_family_its_formula():
    """Issue 39 item 8: the rareness formulas were only in docs/studies.md."""
    page = cli.measure_markdown()
    sections = dict(re.split(r"\n\n", part, maxsplit=1) for part in page.split("### ")[1:])
    expected = {"`P_rareness`": "P_rareness@k = (1/k) x sum over relevant d in the top k of (1 + alpha R(d))",
                "`AP_rareness`": "AP_rareness@k = (1/R_q) x sum over relevant d at rank r <= k of [sum over "
                                 "relevant d' at rank <= r of (1 + alpha R(d'))] / r",
                "`P_rareness_norm`": "(1 - alpha) + alpha R'(d)", "`AP_rareness_norm`": "(1 - alpha) + alpha R'(d)"}
    for heading, formula in expected.items():
        assert formula in sections[heading] and "R(d) = 1 - S_d/S" in sections[heading], heading
    for heading in ("`P_rareness_norm`", "`AP_rareness_norm`"):
        assert "R'(d) = 1 - (S_d - 1)/(S - 1)" in sections[heading]


def test_the_schema_names_the_registry_s_rareness_families():
    """The config schema's rareness.measures enum is the registry's families computed over
    runs (the measures: list is checked against the registry by reeval.workflow.config_check)."""
    from reeval.workflow.config_check import load_schema
    schema = load_schema()
    enum = schema["properties"]["rareness"]["properties"]["measures"]["items"]["enum"]
    assert enum == [f.name for f in REGISTRY.values() if f.needs_runs]


def test_every_family_says_where_it_is_computed(capsys):
    """`reeval measures --formulas` names the function computing each family, and it exists."""
    import importlib

    for family in REGISTRY.values():
        if family.compute is None:
            assert "reeval.analyses.rareness.core" in family.defined_in, family.name
            continue
        module, _, name = family.defined_in.rpartition(".")
        assert callable(getattr(importlib.import_module(module), name)), family.defined_in
    assert cli.main(["measures", "--formulas"]) == 0
    assert "    defined in reeval.measures.classic.precision\n" in capsys.readouterr().out


def test_the_package_exports_every_family_module_and_re_exported_name():
    """reeval.measures.__all__ spells out the lazily imported names (griffe reads strings only)."""
    import reeval.measures as M

    assert set(M.__all__) >= set(M.FAMILY_MODULES) | set(M._IN_FAMILY_MODULES)
    assert len(M.__all__) == len(set(M.__all__))


def test_parse_measure_returns_equal_lists_that_share_no_list_with_the_next_call():
    """Each spec is parsed once (a cache): every call gets a new list of the same measures."""
    first = parse_measure("P.5,10")
    first.append("changed by its caller")
    again = parse_measure(" P.5,10 ")
    assert again == parse_measure("P.5,10") == first[:2]
    assert [m.name for m in again] == ["P_5", "P_10"]
    assert again is not parse_measure("P.5,10")


def test_a_parse_follows_the_families_registered_and_removed_after_it():
    """AP@10 is an ir_measures name (a fallback, after every family) until a family takes
    it; removed, the family no longer parses anything (no parse kept from before)."""
    assert [m.name for m in parse_measure("AP@10")] == ["map_cut_10"]
    register(Family("apk", ("AP@k",), "a family taking AP@k", cutoffs("AP"), lambda ctx, m: None))
    try:
        assert [(m.family, m.name) for m in parse_measure("AP@10")] == [("apk", "apk_10")]
    finally:
        del REGISTRY["apk"]
    assert [(m.family, m.name) for m in parse_measure("AP@10")] == [("map_cut", "map_cut_10")]


def test_known_measures_is_parse_measure_without_its_error_message(monkeypatch):
    """known_measures: parse_measure's measures, or None for a name nothing accepts, with no
    "did you mean" computed (the table writer asks it of every column); parse_measure still
    raises with the nearest names. A miss is remembered only until a family registers."""
    from reeval.measures import known_measures, registry

    assert known_measures(" P.5,10 ") == parse_measure("P.5,10")
    assert known_measures("official") == parse_measure("official")

    def no_suggestion(spec):
        raise AssertionError(f"a suggestion computed for {spec!r}")

    monkeypatch.setattr(registry, "suggestion", no_suggestion)
    assert known_measures("run") is None and known_measures("APKX@10") is None
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"^unknown measure 'mapp'; did you mean 'map'"):
        parse_measure(" mapp ")
    register(Family("apkx", ("APKX@k",), "a family taking APKX@k", cutoffs("APKX"), lambda ctx, m: None))
    try:
        assert [m.name for m in known_measures("APKX@10")] == ["apkx_10"]
    finally:
        del REGISTRY["apkx"]
    assert known_measures("APKX@10") is None
