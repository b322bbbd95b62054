"""reeval measures: every measure family of the registry (names, description, direction,
formulas with --formulas), or docs/measures.md with --markdown."""

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


def command(args) -> int:
    """Print the table, the formulas or the markdown page."""
    from reeval.cli.options import print_lines

    print_lines([measure_markdown()] if args.markdown else measure_table(args.formulas))
    return 0


def add_parser(sub, common) -> None:
    """``reeval measures``: the registry's families (reads no file: ``common`` unused)."""
    ms = sub.add_parser("measures", help="list every measure family (names, parameters, description)",
                        description="Every measure family reeval computes: how to name it with -m "
                                    "(k, k1,k2, n and L stand for numbers), what it is, and its "
                                    "direction; then the named sets.")
    ms.add_argument("--formulas", action="store_true",
                    help="also print each family's formula, conventions and the function computing it")
    ms.add_argument("--markdown", action="store_true",
                    help="print docs/measures.md: a table of the families, then their formulas")
    ms.set_defaults(func=command)
