"""The ``reeval`` command line.

``reeval score QRELS RUN [RUN ...]`` prints what trec_eval prints
(``measure<TAB>qid<TAB>value``, measure names padded to 22 characters as trec_eval
does), plus the ASL measures trec_eval lacks. With several runs each line starts with
the run's name and a tab; the qrels are read once. Rareness measures
(``P_rareness@k``, ``AP_rareness@k`` and their ``_norm`` variants, ``--alpha``) count
how many of the RUN files given retrieve each relevant document in their top k.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys

from reeval import __version__
from reeval.choices import ALL_PAIRS_TESTS, ALTERNATIVES, PAIR_CORRECTIONS, SYSTEMS, UNRETRIEVED_POLICIES, integer_problem
from reeval.errors import InputError

# Only argparse at import: each command imports what it needs (numpy and the compiled
# kernels for `score`; scipy for `compare`; pandas only where a file needs the general
# reader, or for rareness and `prefer`). tests/cli/test_cli_imports.py keeps it so.

LONG_FAMILIES = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref", "runid"}


def format_value(m, value, decimals: int = 4) -> str:
    """A value as trec_eval prints it: ``%ld`` for counts (truncated), quoted text for
    relstring, else ``%6.4f`` (``--decimals`` changes the 4)."""
    if m.family in LONG_FAMILIES:
        return str(int(value)) if math.isfinite(value) else f"{value}"
    if m.family == "relstring":
        return f"'{value}'"
    if math.isnan(value):  # C's printf writes the sign of a NaN (0.0 / 0.0 is -nan on x86)
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.{decimals}f}"


def format_line(measure: str, qid: str, text: str, prefix: str = "") -> str:
    """One trec_eval line: name padded to 22, tab, qid, tab, the value's text."""
    return f"{prefix}{measure:<22}\t{qid}\t{text}"


def read_inputs(qrels_path, run_paths, precision="float64", warn=None, verbose=False):
    """Ingest the qrels and runs of a command (no runs table: the measures read the parts).

    ``warn`` (a callable, e.g. printing to stderr) receives one line per file that had
    lines dropped or read differently from trec_eval, then one line summing up what was
    read as trec_eval reads it (per file with ``verbose``: :func:`reeval.compute.check_tables`).
    A run that keeps no line (empty, or every line dropped) is an :class:`InputError`.
    """
    from reeval.compute import check_tables
    from reeval.io.ingest import ingest_track

    tables = ingest_track("cli", qrels_path, run_paths, precision=precision, keep_runs=False)
    notes = check_tables(tables, verbose or getattr(warn, "verbose", False))
    if warn is not None:
        for line in notes:
            warn(line)
    return tables


def score_measures(measure_specs, precision: str = "float64"):
    """(measures, notes) of ``reeval score -m ...``: what trec_eval would compute for the same
    ``-m`` options, in its print order (:func:`reeval.measures.trec_eval_selection`),
    ``official`` when none is given; ValueError for a name no family takes."""
    from reeval.measures import trec_eval_selection

    return trec_eval_selection(measure_specs or ["official"], 9 if precision == "float32" else 10)


def score_lines(qrels_path, run_paths, measure_specs=None, per_topic=False, complete=False,
                rel_level=1, max_depth=None, precision="float64", decimals=4,
                unretrieved="after_last", alpha=1.0, systems="all", warn=None, summary=True,
                judged_only=False, num_docs=0):
    """Yield the output lines of ``reeval score`` (see the module doc): trec_eval 10's lines
    for the same options, in its order (trec_eval 9.x's with ``precision="float32"``:
    no lines for the topics a run missed under ``-c -q``), then reeval's own measures.
    The values are :func:`reeval.compute.score_track`'s; notes on the files and on
    options trec_eval would read otherwise go to ``warn``."""
    from reeval.analyses.rareness.core import check_alpha
    from reeval.compute import score_notes, score_track, trec_eval_version
    from reeval.io.trecio import run_names

    measures, notes = score_measures(measure_specs, precision)
    check_alpha(alpha)
    tables = read_inputs(qrels_path, run_paths, precision=precision, warn=warn)
    for note in notes:
        if warn is not None:
            warn(note)
    names = run_names(run_paths)
    scores, summary_values = score_track(tables, names, measures, rel_level=rel_level, max_depth=max_depth,
                                         unretrieved=unretrieved, alpha=alpha, systems=systems,
                                         complete=complete, judged_only=judged_only, num_docs=num_docs,
                                         version=trec_eval_version(precision))
    for note in score_notes(scores, names, complete, rel_level, trec_eval_version(precision)) if warn else ():
        warn(note)
    multi = len(run_paths) > 1
    every_topic = complete and precision != "float32"
    for si, name in enumerate(names):
        prefix = f"{name}\t" if multi else ""
        if per_topic:
            yield from _topic_lines(scores, measures, si, every_topic, decimals, prefix)
        if summary:
            yield from _summary_lines(summary_values, measures, si, decimals, prefix)


def _topic_lines(scores, measures, si: int, every_topic: bool, decimals: int, prefix: str):
    """The ``-q`` lines of run ``si``: every qrels topic (``-c`` under trec_eval 10) or the
    topics it answered, in order; per topic every measure that has a per-topic value."""
    import numpy as np

    topics = range(len(scores.topics)) if every_topic else np.flatnonzero(scores.answered[si])
    shown = [m for m in measures if m.name not in SUMMARY_ONLY and m.family not in SUMMARY_ONLY]
    for ti in topics:
        for m in shown:
            value = scores.values[m.name][si, ti]
            if m.is_asl and np.isnan(value):
                continue
            yield format_line(m.name, scores.topics[ti], format_value(m, value, decimals), prefix)


def _summary_lines(summary, measures, si: int, decimals: int, prefix: str):
    """The ``all`` lines of run ``si``, in the measures' order (runid prints the run's tag,
    relstring has none)."""
    for m in measures:
        if m.family == "relstring":
            continue
        if m.family == "runid":
            yield format_line("runid", "all", summary["runid"][si], prefix)
            continue
        yield format_line(m.name, "all", format_value(m, float(summary[m.name][si]), decimals), prefix)


def _warn(args):
    """Where a command's notes on its input files go: stderr, unless --quiet (``verbose``:
    what was read as trec_eval reads it, per file rather than in one line)."""
    if args.quiet:
        return None

    def warn(line):
        print(f"reeval: {line}", file=sys.stderr)
    warn.verbose = args.verbose
    return warn


def _score(args) -> int:
    for line in score_lines(args.qrels, args.runs, args.measure, per_topic=args.q,
                            complete=args.c, rel_level=args.l, max_depth=args.M,
                            precision=_precision(args), decimals=args.decimals,
                            unretrieved=args.unretrieved, alpha=args.alpha, systems=args.systems,
                            warn=_warn(args), summary=not args.n, judged_only=args.J, num_docs=args.N):
        print(line)
    return 0


def _precision(args) -> str:
    """float32 (trec_eval 9.x semantics) with --trec-eval-9 or its older name --float32."""
    return "float32" if args.float32 else "float64"


#: What ``reeval compare --format`` prints: the table (text, markdown, latex) or every row.
COMPARE_FORMATS = ("text", "markdown", "latex", "pairs")
#: The columns of ``reeval compare --format pairs`` (``reeval.compare_runs``'s).
PAIRS_COLUMNS = ("measure", "test", "run_a", "run_b", "mean_a", "mean_b", "diff", "effect_size", "p_value",
                 "p_adjusted", "ci_method", "ci_low", "ci_high")


def compare_rows(qrels_path, run_paths, measure_specs=None, tests=None, correction="holm", baseline=None,
                 alternative="two-sided", seed=0, n_resamples=10000, rel_level=1, precision="float64",
                 unretrieved="after_last", warn=None):
    """The rows of ``reeval compare``: :func:`reeval.compute.compare_runs_track` on the runs
    read from ``run_paths`` (``attrs``: the settings its table needs)."""
    from reeval.compute import check_compare, compare_runs_track, level_notes, trec_eval_version
    from reeval.io.trecio import run_names
    from reeval.measures import parse_measures

    if len(run_paths) < 2:
        raise InputError("compare needs at least two runs")
    version = trec_eval_version(precision)
    measures = list(dict.fromkeys(parse_measures(measure_specs or ["map"], version)))
    check_compare(measures, n_resamples)
    tables = read_inputs(qrels_path, run_paths, precision=precision, warn=warn)
    for note in level_notes(rel_level) if warn else ():
        warn(note)
    names = run_names(run_paths)
    return compare_runs_track(tables, names, measures, list(dict.fromkeys(tests or ["t"])), correction, baseline,
                              alternative, seed, n_resamples, rel_level=rel_level, unretrieved=unretrieved,
                              version=version)


def compare_lines(rows, fmt="text", test=None, max_p=0.05, decimals=4):
    """Yield what ``reeval compare`` prints of :func:`compare_rows`' ``rows``: the table of
    ``test`` (default the first) in ``fmt`` (:func:`reeval.report.significance_table.render`),
    or with ``pairs`` a header and one tab-separated line per row (p-values to ``decimals``
    significant digits, the other numbers to ``decimals`` decimals)."""
    if fmt != "pairs":
        from reeval.report.significance_table import render

        yield from render(rows, rows.attrs, test or rows.attrs["tests"][0], max_p, fmt, decimals).splitlines()
        return
    yield "\t".join(PAIRS_COLUMNS)
    for r in rows.itertuples(index=False):
        numbers = [f"{getattr(r, k):.{decimals}f}" for k in ("mean_a", "mean_b", "diff", "effect_size")]
        ps = [f"{getattr(r, k):.{decimals}g}" for k in ("p_value", "p_adjusted")]
        ci = [f"{getattr(r, k):.{decimals}f}" for k in ("ci_low", "ci_high")]
        yield "\t".join([r.measure, r.test, str(r.run_a), str(r.run_b), *numbers, *ps, r.ci_method or "none", *ci])


def _compare(args) -> int:
    if args.table_test and args.table_test not in (args.test or ["t"]):
        raise InputError(f"--table-test {args.table_test} is not among the tests run ({', '.join(args.test or ['t'])})")
    rows = compare_rows(args.qrels, args.runs, args.measure, args.test, correction=args.correction,
                        baseline=args.baseline, alternative=args.alternative, seed=args.seed,
                        n_resamples=args.resamples, rel_level=args.l, precision=_precision(args), warn=_warn(args))
    for line in compare_lines(rows, args.format, args.table_test, args.max_p, args.decimals):
        print(line)
    return 0


def prefer_lines(qrels_path, run_paths, rel_level=1, precision="float64", decimals=4, warn=None):
    """Yield ``run_i<TAB>run_j<TAB>qid<TAB>sgnLP<TAB>rrLP`` lines of ``reeval prefer``.

    Pairs i < j in argument order; per pair one line per topic with a relevant document
    (sorted qrels topics; a topic a run misses counts as nothing retrieved), then one
    line per pair with qid ``all`` holding the means over those topics
    (:func:`reeval.compute.prefer_track`).
    """
    from reeval.compute import prefer_track
    from reeval.io.trecio import run_names

    if len(run_paths) < 2:
        raise InputError("prefer needs at least two runs")
    tables = read_inputs(qrels_path, run_paths, precision=precision, warn=warn)
    per_topic, means = prefer_track(tables, run_names(run_paths), rel_level=rel_level)
    frames = [per_topic]
    if len(per_topic):
        frames.append(means.assign(qid="all")[["run_i", "run_j", "qid", "sgnLP", "rrLP"]])
    for frame in frames:  # per-topic lines (sgnLP an integer), then the means
        yield from frame.to_csv(sep="\t", header=False, index=False, float_format=f"%.{decimals}f",
                                lineterminator="\n").splitlines()


def _prefer(args) -> int:
    for line in prefer_lines(args.qrels, args.runs, rel_level=args.l,
                             precision="float32" if args.float32 else "float64",
                             decimals=args.decimals, warn=_warn(args)):
        print(line)
    return 0


def _integer(name: str):
    """An argparse type: an integer within the bounds of option ``name``
    (:data:`reeval.choices.INTEGER_BOUNDS`, which the API checks too), checked before any
    file is read."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, not {text!r}") from None
        problem = integer_problem(name, value)
        if problem:
            raise argparse.ArgumentTypeError(f"{problem}, not {value}")
        return value
    return parse


def _input_options() -> argparse.ArgumentParser:
    """Options every command shares: relevance level, float32 ordering, decimals, --quiet."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-l", type=_integer("relevance_level"), default=1, metavar="LEVEL",
                        help="relevance level: rel >= LEVEL is relevant (default 1)")
    common.add_argument("--trec-eval-9", "--float32", dest="float32", action="store_true",
                        help="trec_eval 9.x and pytrec_eval semantics instead of trec_eval 10's: scores "
                             "read as float32 (more ties), iprec_at_recall and 11pt_avg levels rounded "
                             "as 9.x did, all_trec without unj, rbp, rbp_resid, -c -q without the topics "
                             "a run missed (docs/semantics.md)")
    common.add_argument("--decimals", type=_integer("decimals"), default=4,
                        help="decimals printed, 0 to 30 (default 4)")
    common.add_argument("--quiet", action="store_true",
                        help="no notes on stderr about lines dropped or read differently from trec_eval")
    common.add_argument("--verbose", action="store_true",
                        help="also note per file what was read as trec_eval reads it (lines on topics without "
                             "judgments, text after the sixth field, several tags), not in one line")
    return common


INPUTS_HELP = ("files, pipes, FIFOs, /dev/stdin or - (standard input); plain, gzip, bzip2 or compress (.Z), "
               "recognised from their bytes")


def _add_score(sub, common) -> None:
    """``reeval score``: trec_eval's lines (plus ASL and rareness)."""
    p = sub.add_parser("score", parents=[common], help="evaluate runs like trec_eval (plus ASL)",
                       description="Evaluate runs against qrels and print trec_eval-style lines. "
                                   f"Inputs: {INPUTS_HELP}.")
    p.add_argument("qrels", help="qrels file")
    p.add_argument("runs", nargs="+", help="run files")
    p.add_argument("-q", action="store_true", help="also print per-topic values")
    p.add_argument("-c", action="store_true",
                   help="average over every qrels topic (missing topics score 0)")
    p.add_argument("-M", type=_integer("depth"), default=None, metavar="DEPTH",
                   help="use only the first DEPTH documents of each ranking")
    p.add_argument("-n", action="store_true", help="no summary (all) lines, as trec_eval -n")
    p.add_argument("-J", action="store_true",
                   help="rank only the judged documents (grade >= 0), as trec_eval -J")
    p.add_argument("-N", type=_integer("num_docs"), default=0, metavar="DOCS",
                   help="documents in the collection (for utility's fourth coefficient), as trec_eval -N")
    p.add_argument("-m", dest="measure", action="append", metavar="MEASURE",
                   help="measure to print, repeatable: trec_eval names such as map, P.5,10, "
                        "ndcg_cut.10, all_trec, ir_measures names such as P@20, nDCG@10, RR@10, "
                        "AP(rel=2), and ASL, ASL@g1-10, P_rareness@100 ...; printed in trec_eval's "
                        "order, reeval's own after; `reeval measures` lists them all; default: official")
    p.add_argument("--unretrieved", choices=UNRETRIEVED_POLICIES, default="after_last",
                   help="ASL of an unretrieved relevant document: irrel+1 (after_last, "
                        "default) or irrel (eq3)")
    p.add_argument("--alpha", default="1", metavar="ALPHA",
                   help="weight of rarity in the rareness measures: a number >= 0 or 1/R "
                        "(1/relevant documents of the topic); default 1")
    p.add_argument("--systems", choices=SYSTEMS, default="all",
                   help="rareness: S = every RUN given (all, default) or, per topic, the runs "
                        "that answered it (answered)")
    p.set_defaults(func=_score)


def _probability(text: str) -> float:
    """An argparse type: a number in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], not {value}")
    return value


def _add_compare(sub, common) -> None:
    """``reeval compare``: significance tests between two or more runs, as a table."""
    c = sub.add_parser("compare", parents=[common], help="significance tests between two or more runs",
                       description="Compare runs topic by topic: every pair of runs (or each run against "
                                   "--baseline) under each test. Prints a table: a row per run (marked a, b, "
                                   "...), the mean of each measure followed by the markers of the runs it beats "
                                   "at adjusted p < --max-p, and a caption naming the test; --format pairs "
                                   "prints every pair instead (measure, test, run_a, run_b, means, diff, "
                                   "effect size, p_value, p_adjusted, ci_method, ci_low, ci_high). "
                                   f"Inputs: {INPUTS_HELP}.")
    c.add_argument("qrels")
    c.add_argument("runs", nargs="+", metavar="RUN", help="two or more run files")
    c.add_argument("--measure", "-m", action="append", metavar="MEASURE",
                   help="per-topic measure, repeatable (default map)")
    c.add_argument("--test", action="append", choices=ALL_PAIRS_TESTS,
                   help="test, repeatable (default t); tukey_hsd and randomised_tukey_hsd test all runs at once")
    c.add_argument("--correction", choices=PAIR_CORRECTIONS, default="holm",
                   help="adjustment of the paired tests' p-values over the pairs of each measure (default holm)")
    c.add_argument("--baseline", metavar="RUN", help="compare each run with this one (a run name) instead of all pairs")
    c.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided",
                   help="two-sided (default); greater: run_a better than run_b (paired tests only); less")
    c.add_argument("--seed", type=_integer("seed"), default=0,
                   help="seed of the permutation, bootstrap and randomised HSD tests (default 0)")
    c.add_argument("--resamples", type=_integer("resamples"), default=10000, help="resamples (default 10000)")
    c.add_argument("--format", choices=COMPARE_FORMATS, default="text",
                   help="text (default), markdown or latex table, or pairs (every row, tab-separated)")
    c.add_argument("--max-p", type=_probability, default=0.05, help="threshold of the table's markers (default 0.05)")
    c.add_argument("--table-test", choices=ALL_PAIRS_TESTS, help="the test the table shows (default: the first)")
    c.set_defaults(func=_compare)


def _add_prefer(sub, common) -> None:
    """``reeval prefer``: lexicographic precision between runs."""
    f = sub.add_parser("prefer", parents=[common], help="lexicographic precision (sgnLP, rrLP) between runs",
                       description="Lexicographic precision for each pair of runs (i < j in "
                                   "argument order) and each topic with a relevant document: "
                                   "run_i, run_j, qid, sgnLP, rrLP; then the means (qid all). "
                                   f"Inputs: {INPUTS_HELP}.")
    f.add_argument("qrels", help="qrels file")
    f.add_argument("runs", nargs="+", help="two or more run files")
    f.set_defaults(func=_prefer)


def _add_measures(sub) -> None:
    """``reeval measures``: the registry's families."""
    ms = sub.add_parser("measures", help="list every measure family (names, parameters, description)",
                        description="Every measure family reeval computes: how to name it with -m "
                                    "(k, k1,k2, n and L stand for numbers), what it is, and its "
                                    "direction; then the named sets.")
    ms.add_argument("--formulas", action="store_true",
                    help="also print each family's formula, conventions and the function computing it")
    ms.add_argument("--markdown", action="store_true",
                    help="print docs/measures.md: a table of the families, then their formulas")
    ms.set_defaults(func=_measures)


def build_parser() -> argparse.ArgumentParser:
    """The command line: score, compare, prefer (sharing the input options) and measures."""
    parser = argparse.ArgumentParser(prog="reeval", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"reeval {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    common = _input_options()
    _add_score(sub, common)
    _add_compare(sub, common)
    _add_prefer(sub, common)
    _add_measures(sub)
    return parser


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
    import re

    return re.sub(r":(?:func|mod|class|data|meth|attr):`~?(?:[\w.]*\.)?([\w]+)`", r"`\1`", text)


def measure_markdown() -> str:
    """docs/measures.md, generated from the registry (``reeval measures --markdown``)."""
    from reeval.measures import REGISTRY, SETS, asl, classic, graded, interpolated, judgments, setbased, vocabulary

    def cell(text):
        return text.replace("|", "\\|")

    families = sorted(REGISTRY.values(), key=lambda f: f.order)
    lines = ["# Measures", "",
             "Generated from the measure registry (`src/reeval/measures/`) by `reeval measures "
             "--markdown > docs/measures.md`; a test keeps it current. Most names are case-insensitive "
             "(`rbp` is trec_eval's, `RBP` ir_measures'); k, k1,k2, x, n and L stand for numbers. "
             "`reeval score -m NAME` prints trec_eval's measures in trec_eval's order, reeval's own after; "
             "`reeval.evaluate` and the config's `measures:` take any spelling (rareness measures go under "
             "`rareness.measures`). The last column names what the tests check each family against, "
             "topic by topic, on every shared track.", "",
             "| family | spellings | what it is | direction | run value | checked against |",
             "|---|---|---|---|---|---|"]
    for f in families:
        run_value = f.aggregate + (", over the runs given together" if f.needs_runs else "")
        lines.append(f"| `{f.name}` | {', '.join(f'`{n}`' for n in f.names)} | {cell(f.description)} | "
                     f"{f.direction} | {run_value} | {cell(f.checked_against)} |")
    lines += ["", "Named sets: " + "; ".join(f"`{name}` = {', '.join(specs)}" for name, specs in SETS.items()) +
              ". Under trec_eval 9.x semantics (`--trec-eval-9`, `precision: float32`) `all_trec` lacks unj, "
              "rbp and rbp_resid, as 9.x's did.", "", "## Definitions", ""]
    for module in (classic, interpolated, graded, setbased, judgments, vocabulary, asl):
        lines += [" ".join(plain_doc(p).split()) for p in module.__doc__.split("\n\n")[1:]] + [""]
    for f in families:
        lines += [f"### `{f.name}`", "", " ".join(plain_doc(f.doc).split()) if f.doc else f.description, ""]
    return "\n".join(lines)


def _measures(args) -> int:
    if args.markdown:
        print(measure_markdown())
        return 0
    for line in measure_table(args.formulas):
        print(line)
    return 0


def _option_error(parser, args, exc) -> None:
    """Exit 2 with the command's usage line and the message (argparse's way)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[args.command]
    sub.error(str(exc))


def process_settings() -> None:
    """Settings of a command's process, made before numpy is imported.

    OpenBLAS (numpy's linear algebra) would start one spinning thread per core, which the
    commands never use (no matrix products) but which took CPU from the reading threads
    (10% of a 20-run ``score`` under perf): ``OPENBLAS_NUM_THREADS=1`` unless the user set
    it. The cycle collector is switched off: the commands are short-lived, their large
    data are numpy arrays freed by reference counting, and collections during the imports
    cost about 3% of a ``score``.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    gc.disable()


def run() -> int:
    """The ``reeval`` console script: :func:`process_settings`, then :func:`main` (which
    tests and other programs call in their own process, settings untouched)."""
    process_settings()
    return main()


def main(argv=None) -> int:
    """Run a command; bad input ends it with one line on stderr and status 1, never a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "runs", None) is not None and args.func in (_prefer, _compare) and len(args.runs) < 2:
        parser.error(f"{args.command} needs at least two runs")
    if args.func in (_score, _compare):
        try:  # a measure name is an option: checked before any file is read, exit 2 with usage
            score_measures(args.measure, _precision(args))
        except ValueError as exc:
            _option_error(parser, args, exc)
    try:
        sys.stdout.reconfigure(errors="backslashreplace")  # ids print in any locale
    except (AttributeError, ValueError):  # pragma: no cover - a replaced stdout
        pass
    try:
        return args.func(args)
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("reeval: out of memory", file=sys.stderr)
        return 1
    except (ValueError, OSError) as exc:  # InputError and the option checks of the library
        print(f"reeval: {exc}".splitlines()[0], file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
