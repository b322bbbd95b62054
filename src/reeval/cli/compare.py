"""reeval compare QRELS RUN RUN [RUN ...]: significance tests between runs, as the table IR
papers print, or every pair of runs as tab-separated rows."""

from __future__ import annotations

from reeval.choices import (ALL_PAIRS_TESTS, ALTERNATIVES, PAIR_CORRECTIONS, REPORT_FORMAT, REPORT_FORMATS,
                            STATSMODELS_CORRECTIONS)
from reeval.cli.options import INPUTS_HELP, add_ties, integer, precision, print_lines, probability, read_inputs, warn
from reeval.cli.score import score_measures
from reeval.errors import InputError
from reeval.report.escape import tsv_field

#: What ``reeval compare --format`` prints: the table (text, markdown, latex) or every row.
COMPARE_FORMATS = REPORT_FORMATS + ("pairs",)
#: The columns of ``reeval compare --format pairs`` (``reeval.compare_runs``'s).
PAIRS_COLUMNS = ("measure", "test", "run_a", "run_b", "mean_a", "mean_b", "diff", "effect_size", "p_value",
                 "p_adjusted", "ci_method", "ci_low", "ci_high", "topics_a_higher", "topics_a_lower")


def compare_rows(qrels_path, run_paths, measure_specs=None, tests=None, correction="holm", baseline=None,
                 alternative="two-sided", seed=0, n_resamples=10000, rel_level=1, precision="float64",
                 unretrieved="after_last", warn=None, ties="trec_eval"):
    """The rows of ``reeval compare``: :func:`reeval.compute.compare_runs_track` on the runs
    read from ``run_paths`` (``attrs``: the settings its table needs), each measure named as
    asked (``-m nDCG@10`` heads its column ``nDCG@10``, as ``reeval.compare_runs`` does);
    ``ties``: the tie order (:func:`reeval.compute.score_track`)."""
    from reeval.api.comparison import asked_names
    from reeval.api.scoring import ir_spelled, measure_columns
    from reeval.compute import (check_compare, compare_runs_track, level_notes, needed_orders, tie_notes,
                                tie_notes_needed, trec_eval_version)
    from reeval.io.trecio import run_names
    from reeval.measures import parse_measures

    if len(run_paths) < 2:
        raise InputError("compare needs at least two runs")
    version = trec_eval_version(precision)
    measures = list(dict.fromkeys(parse_measures(measure_specs or ["map"], version)))
    check_compare(measures, n_resamples)
    columns = measure_columns(measure_specs or ["map"], precision=precision)
    asked = ir_spelled(columns)
    tables = read_inputs(qrels_path, run_paths, precision=precision, warn=warn,
                         orders=needed_orders(measures, ties, precision),
                         reordered=warn is not None and tie_notes_needed(measures, ties, precision, asked))
    names = run_names(run_paths)
    for note in level_notes(rel_level) + tie_notes(tables, names, measures, ties, precision=precision,
                                                   ir_spelled=asked) if warn else ():
        warn(note)
    rows = compare_runs_track(tables, names, measures, list(dict.fromkeys(tests or ["t"])), correction, baseline,
                              alternative, seed, n_resamples, rel_level=rel_level, unretrieved=unretrieved,
                              version=version, ties=ties)
    return asked_names(rows, columns)


def compare_lines(rows, fmt="text", test=None, max_p=0.05, decimals=4):
    """Yield what ``reeval compare`` prints of :func:`compare_rows`' ``rows``: the table of
    ``test``, or (default) of each test run in turn, blank-line separated, in ``fmt``
    (:func:`reeval.report.significance_table.render_each`), or with ``pairs`` a header and
    one tab-separated line per row, every test's (p-values to ``decimals`` significant
    digits, the other numbers to ``decimals`` decimals)."""
    if fmt != "pairs":
        from reeval.report.significance_table import render_each

        tests = [test] if test else rows.attrs["tests"]
        yield from render_each(rows, rows.attrs, tests, max_p, fmt, decimals).splitlines()
        return
    yield "\t".join(PAIRS_COLUMNS)
    for r in rows.itertuples(index=False):
        numbers = [f"{getattr(r, k):.{decimals}f}" for k in ("mean_a", "mean_b", "diff", "effect_size")]
        ps = [f"{getattr(r, k):.{decimals}g}" for k in ("p_value", "p_adjusted")]
        ci = [f"{getattr(r, k):.{decimals}f}" for k in ("ci_low", "ci_high")]
        counts = [str(int(r.topics_a_higher)), str(int(r.topics_a_lower))]
        yield "\t".join([r.measure, r.test, tsv_field(r.run_a), tsv_field(r.run_b), *numbers, *ps, r.ci_method or "none", *ci,
                         *counts])


def command(args) -> int:
    """Print :func:`compare_lines` of :func:`compare_rows` for the parsed options."""
    if args.table_test and args.table_test not in (args.test or ["t"]):
        raise InputError(f"--table-test {args.table_test} is not among the tests run ({', '.join(args.test or ['t'])})")
    correction = STATSMODELS_CORRECTIONS.get(args.correction, args.correction)
    rows = compare_rows(args.qrels, args.runs, args.measure, args.test, correction=correction,
                        baseline=args.baseline, alternative=args.alternative, seed=args.seed,
                        n_resamples=args.resamples, rel_level=args.l, precision=precision(args), warn=warn(args),
                        ties=args.ties)
    print_lines(compare_lines(rows, args.format, args.table_test, args.max_p, args.decimals))
    return 0


def check(args) -> None:
    """The measure names, checked before any file is read (ValueError: an option error)."""
    score_measures(args.measure, precision(args))


def add_parser(sub, common) -> None:
    """``reeval compare``: significance tests between two or more runs, as a table."""
    c = sub.add_parser("compare", parents=[common], help="significance tests between two or more runs",
                       description="Compare runs topic by topic: every pair of runs (or each run against "
                                   "--baseline) under each test. Prints a table: a row per run (marked a, b, "
                                   "...), the mean of each measure followed by the markers of the runs it beats "
                                   "at adjusted p < --max-p, and a caption naming the test, one table per "
                                   "--test in turn (--table-test: one of them; with --baseline: "
                                   "the baseline's row marked, per run and measure its delta, the topics improved "
                                   "and degraded, p and corrected p); --format pairs "
                                   "prints every pair instead (measure, test, run_a, run_b, means, diff, "
                                   "effect size, p_value, p_adjusted, ci_method, ci_low, ci_high, "
                                   "topics_a_higher, topics_a_lower). "
                                   f"Inputs: {INPUTS_HELP}.")
    c.add_argument("qrels")
    c.add_argument("runs", nargs="+", metavar="RUN", help="two or more run files")
    c.add_argument("--measure", "-m", action="append", metavar="MEASURE",
                   help="per-topic measure, repeatable (default map)")
    c.add_argument("--test", action="append", choices=ALL_PAIRS_TESTS,
                   help="test, repeatable (default t); tukey_hsd and randomised_tukey_hsd test all runs at once")
    c.add_argument("--correction", choices=PAIR_CORRECTIONS + tuple(STATSMODELS_CORRECTIONS), default="holm",
                   help="adjustment of the paired tests' p-values over the pairs of each measure (default holm; "
                        "fdr_bh, statsmodels' name, is bh)")
    c.add_argument("--baseline", metavar="RUN", help="compare each run with this one (a run name) instead of all pairs")
    c.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided",
                   help="two-sided (default); greater: run_a better than run_b (paired tests only); less")
    c.add_argument("--seed", type=integer("seed"), default=0,
                   help="seed of the permutation, bootstrap and randomised HSD tests (default 0)")
    c.add_argument("--resamples", type=integer("resamples"), default=10000, help="resamples (default 10000)")
    c.add_argument("--format", choices=COMPARE_FORMATS, default=REPORT_FORMAT,
                   help="text (default), markdown or latex table, or pairs (every row, tab-separated)")
    c.add_argument("--max-p", type=probability, default=0.05, help="threshold of the table's markers (default 0.05)")
    c.add_argument("--table-test", choices=ALL_PAIRS_TESTS,
                   help="the one test whose table is shown (default: a table for each --test)")
    add_ties(c)
    c.set_defaults(func=command, check=check, min_runs=2)
