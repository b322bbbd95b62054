"""reeval measures: every measure family of the registry (names, description, direction,
formulas with --formulas), docs/measures.md with --markdown, or one measure looked up by
name (``reeval measures ERR@10``: its definition, parameters, peers and tests)."""

from __future__ import annotations

import re


def measure_table(formulas: bool = False) -> list[str]:
    """The lines of ``reeval measures``: one block per registered family (trec_eval's in its
    print order, then reeval's own), then the sets."""
    from reeval.measures import REGISTRY, SETS

    lines = []
    for family in sorted(REGISTRY.values(), key=lambda f: f.order):
        extra = [f"run value: {family.aggregate}" if family.aggregate not in ("mean", "none") else "",
                 "over the runs given together" if family.needs_runs else ""]
        lines.append(f"{', '.join(family.names)}")
        lines.append(f"    {family.description}; {'; '.join([family.direction] + [e for e in extra if e])}")
        if formulas and family.doc:
            lines.extend("    | " + line.strip() for line in plain_doc(family.doc).splitlines() if line.strip())
        if formulas and family.compute is not None:
            lines.append(f"    defined in {family.defined_in}")
    lines.extend(f"{name}: {', '.join(specs)}" for name, specs in SETS.items())
    return lines


def plain_doc(text: str) -> str:
    """A docstring without Sphinx roles (``:func:`~a.b``` -> ```b```)."""
    return re.sub(r":(?:func|mod|class|data|meth|attr):`~?(?:[\w.]*\.)?([\w]+)`", r"`\1`", text)


def measure_markdown() -> str:
    """docs/measures.md, generated from the registry (``reeval measures --markdown``)."""
    from reeval.measures import (REGISTRY, SETS, asl, classic, graded, interpolated, judgments, setbased, textbook,
                                 vocabulary)

    def cell(text):
        return text.replace("|", "\\|")

    families = sorted(REGISTRY.values(), key=lambda f: f.order)
    lines = ["# Measures", "",
             "Generated from the measure registry (`src/reeval/measures/`) by `reeval measures "
             "--markdown > docs/measures.md`; a test keeps it current. Names are read in any case, "
             "trec_eval's and ir_measures' alike (`MAP`, `mrr@10`, `NDCG@10`), but for `G`, `rbp` and "
             "`rbp_resid` (trec_eval's) and `RBP` (ir_measures'), which only their case tells apart: "
             "those as written. k, k1,k2, x, n and L stand for numbers. "
             "`reeval score -m NAME` prints trec_eval's measures in trec_eval's order, reeval's own after; "
             "`reeval.evaluate` and the config's `measures:` take any spelling (rareness measures go under "
             "`rareness.measures`). Each family links to its definition below, which also names what "
             "the tests check the family against, topic by topic, on every shared track.", "",
             "| family | spellings | what it is | direction |",
             "|---|---|---|---|"]
    for f in families:
        lines.append(f"| [`{f.name}`](#{family_anchor(f.name)}) | {', '.join(f'`{n}`' for n in f.names)} | "
                     f"{cell(f.description)} | {cell(direction_cell(f))} |")
    lines += ["", "Named sets: " + "; ".join(f"`{name}` = {', '.join(specs)}" for name, specs in SETS.items()) +
              ". Under trec_eval 9.x semantics (`--trec-eval-9`, `precision: float32`) `all_trec` lacks unj, "
              "rbp and rbp_resid, as 9.x's did.", "", "## Definitions", ""]
    for module in (classic, interpolated, graded, setbased, judgments, textbook, vocabulary, asl):
        lines += [" ".join(plain_doc(p).split()) for p in module.__doc__.split("\n\n")[1:]] + [""]
    for f in families:
        lines += [f"### `{f.name}`", "", " ".join(plain_doc(f.doc).split()) if f.doc else f.description, "",
                  f"Run value: {f.aggregate}{', over the runs given together' if f.needs_runs else ''}. "
                  f"Checked against: {f.checked_against}.", ""]
    return "\n".join(lines)


def family_anchor(name: str) -> str:
    """The anchor of the heading ``### `name``` on the generated page: its text lowercased,
    as GitHub and Python-Markdown's toc (MkDocs) both make it of a name of letters, digits
    and underscores (the registry's family names; unique in lower case, checked by a test)."""
    return name.lower()


def direction_cell(family) -> str:
    """The table's direction column: higher or lower is better, a count or text, with the
    run value when it is not the mean over topics (``gmean``) and ``over the runs`` for a
    family computed over the runs given together."""
    extra = [family.aggregate] if family.aggregate not in ("mean", "none", "sum", "count") else []
    return ", ".join([family.direction, *extra] + (["over the runs"] if family.needs_runs else []))


#: the test files checking a family against each oracle its ``checked_against`` names
#: (the words they are recognized by, in that text)
ORACLE_TESTS = (("trec_eval 10.0", "tests/measures/test_trec_eval10.py"),
                ("pytrec_eval", "tests/measures/test_parity_trec_eval.py"),
                ("ir_measures", "tests/measures/test_ir_measures_names.py"),
                ("rareness authors", "tests/measures/test_rareness.py"), ("ranx", "tests/api/test_api_ranx.py"))
#: the family modules with a test file of their own (tests/measures/test_<module>.py)
MODULE_TESTS = ("asl", "textbook")


def measure_tests(family) -> list[str]:
    """The test files checking ``family``: tests/measures/test_registry.py (a hand-checked
    value of every family), one per oracle its ``checked_against`` names
    (:data:`ORACLE_TESTS`), and its module's own (:data:`MODULE_TESTS`)."""
    module = family.defined_in.split(".")[2] if family.compute is not None else ""
    own = [f"tests/measures/test_{module}.py"] if module in MODULE_TESTS else []
    return ["tests/measures/test_registry.py"] + [path for words, path in ORACLE_TESTS
                                                  if words in family.checked_against] + own


def measure_lookup(spec: str) -> list[str]:
    """The lines of ``reeval measures NAME``: for each measure ``spec`` names (a set or a
    list of cutoffs names several; a set's are listed, not described), its name, family,
    parameters, direction, the peers it equals (the implementations the tests check it
    against), the spellings of its family, where it is computed, its tests and its
    definition. ValueError (naming the nearest names) for a name no family takes."""
    from reeval.measures.registry import family_of, named_set, parse_measure

    members = named_set(spec)
    if members is not None:
        return [f"{spec.strip()}: a named set of {len(members)} measure families: {', '.join(members)}",
                "(reeval measures NAME describes each)"]
    lines = []
    for m in parse_measure(spec):
        family = family_of(m)
        params = [] if m.cutoff is None else [f"cutoff {m.cutoff:g}" if isinstance(m.cutoff, float)
                                               else f"cutoff {m.cutoff}"]
        params += [f"relevance level {m.rel} (its own)"] if m.rel is not None else []
        params += ["judged documents only"] if m.judged_only else []
        params += [f"{'parameters' if len(m.params) > 1 else 'parameter'} {_params_text(m.params)}"] if m.params else []
        lines += [m.name,
                  f"    family {family.name}: {family.description}; {family.direction}",
                  f"    parameters: {', '.join(params) or 'none'}",
                  f"    the same measure in: {'; '.join(measure_peers(m)) or 'no other tool'}",
                  f"    checked against: {family.checked_against or 'no other implementation'}",
                  f"    written as: {', '.join(family.names)}",
                  f"    defined in {family.defined_in}",
                  f"    tested in {', '.join(measure_tests(family))}"]
        lines += ["    | " + line.strip() for line in plain_doc(family.doc).splitlines() if line.strip()]
    return lines


def measure_peers(m) -> list[str]:
    """How the tools reeval is checked against name measure ``m``: trec_eval's name where
    trec_eval computes it, ir_measures' where an ir_measures name reads back as ``m``,
    ranx's where it has one (:func:`reeval.measures.vocabulary.ranx_name`)."""
    from reeval.measures.vocabulary import display_name, parse_ir_measures, ranx_name

    peers = [f"trec_eval 10 ({m.name})"] if m.trec_eval else []
    ir_name = display_name(m.name)
    try:
        if parse_ir_measures(ir_name) == [m]:
            peers.append(f"ir_measures ({ir_name})")
    except ValueError:
        pass
    ranx = ranx_name(m)
    return peers + ([f"ranx ({ranx})"] if ranx is not None else [])


def _params_text(params) -> str:
    """A measure's ``params`` in words: ``p=0.8``, ``1=3,2=9`` (gains), ``0.5`` (a beta)."""
    def one(value):
        if isinstance(value, tuple) and len(value) == 2:
            return f"{value[0]}={value[1]:g}" if isinstance(value[1], float) else f"{value[0]}={value[1]}"
        return f"{value:g}" if isinstance(value, float) else str(value)
    return ", ".join(one(v) for v in params)


def command(args) -> int:
    """Print the table, the formulas, the markdown page or one measure."""
    from reeval.cli.options import print_lines

    if args.name is not None:
        print_lines(measure_lookup(args.name))
    else:
        print_lines([measure_markdown()] if args.markdown else measure_table(args.formulas))
    return 0


def check(args) -> None:
    """The name looked up names a measure (ValueError naming the nearest names, before anything runs)."""
    from reeval.measures.registry import named_set, parse_measure

    if args.name is not None and named_set(args.name) is None:
        parse_measure(args.name)


def add_parser(sub, common) -> None:
    """``reeval measures``: the registry's families (reads no file: ``common`` unused)."""
    ms = sub.add_parser("measures", help="list every measure family (names, parameters, description)",
                        description="Every measure family reeval computes: how to name it with -m "
                                    "(k, k1,k2, n and L stand for numbers), what it is, and its "
                                    "direction; then the named sets.")
    ms.add_argument("name", nargs="?", default=None,
                    help="one measure to describe (ERR@10, P_20, AP(rel=2)): its definition, parameters, the "
                         "implementations it equals and its tests")
    ms.add_argument("--formulas", action="store_true",
                    help="also print each family's formula, conventions and the function computing it")
    ms.add_argument("--markdown", action="store_true",
                    help="print docs/measures.md: a table of the families, then their formulas")
    ms.set_defaults(func=command, check=check)
