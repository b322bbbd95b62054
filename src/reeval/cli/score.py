"""reeval score QRELS RUN [RUN ...]: prints what trec_eval prints
(``measure<TAB>qid<TAB>value``, measure names padded to 22 bytes as trec_eval
does), plus the ASL measures trec_eval lacks. With several runs each line starts with
the run's name and a tab; the qrels are read once. Rareness measures
(``P_rareness@k``, ``AP_rareness@k`` and their ``_norm`` variants, ``--alpha``) count
how many of the RUN files given retrieve each relevant document in their top k.
"""

from __future__ import annotations

import math

from reeval.choices import SYSTEMS, UNRETRIEVED_POLICIES
from reeval.cli.options import INPUTS_HELP, add_ties, integer, precision, print_lines, read_inputs, warn
from reeval.report.escape import tsv_field

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
    """One trec_eval line: name padded to 22 bytes (printf's ``%-22s`` counts the bytes of
    the name as the command line gave them: ``set_F.0.5é`` pads to 22 bytes, one space
    fewer than padding to 22 characters would give), tab, qid, tab, the value's text."""
    width = len(measure.encode("utf-8", "surrogateescape"))
    return f"{prefix}{measure}{' ' * (22 - width)}\t{qid}\t{text}"


def score_measures(measure_specs, precision: str = "float64"):
    """(measures, notes) of ``reeval score -m ...``: what trec_eval would compute for the same
    ``-m`` options, in its print order (:func:`reeval.measures.trec_eval_selection`),
    ``official`` when none is given; ValueError for a name no family takes."""
    from reeval.measures import trec_eval_selection

    return trec_eval_selection(measure_specs or ["official"], 9 if precision == "float32" else 10)


def ir_measures_asked(measure_specs, precision: str = "float64") -> list:
    """The measures ``-m`` asked by an ir_measures name (``P@10``, ``AP``; not ``P.10``)."""
    from reeval.measures import parse_measure
    from reeval.measures.providers import ir_measures_spelled

    return [m for spec in measure_specs or () if ir_measures_spelled(spec)
            for m in parse_measure(spec, 9 if precision == "float32" else 10)]


def score_lines(qrels_path, run_paths, measure_specs=None, per_topic=False, complete=False,
                rel_level=1, max_depth=None, precision="float64", decimals=4,
                unretrieved="after_last", alpha=1.0, systems="all", warn=None, summary=True,
                judged_only=False, num_docs=0, ties="trec_eval"):
    """Yield the output lines of ``reeval score`` (see the module doc): trec_eval 10's lines
    for the same options, in its order (trec_eval 9.x's with ``precision="float32"``:
    no lines for the topics a run missed under ``-c -q``), then reeval's own measures.
    The values are :func:`reeval.compute.score_track`'s (``ties``: its tie order); notes on
    the files and on options trec_eval would read otherwise go to ``warn``."""
    from reeval.analyses.rareness.core import check_alpha
    from reeval.compute import needed_orders, score_notes, score_track, tie_notes, tie_notes_needed, trec_eval_version
    from reeval.io.trecio import run_names

    measures, notes = score_measures(measure_specs, precision)
    check_alpha(alpha)
    asked = ir_measures_asked(measure_specs, precision)
    tables = read_inputs(qrels_path, run_paths, precision=precision, warn=warn,
                         orders=needed_orders(measures, ties, precision),
                         reordered=warn is not None and tie_notes_needed(measures, ties, precision, asked, judged_only))
    for note in notes:
        if warn is not None:
            warn(note)
    names = run_names(run_paths)
    scores, summary_values = score_track(tables, names, measures, rel_level=rel_level, max_depth=max_depth,
                                         unretrieved=unretrieved, alpha=alpha, systems=systems,
                                         complete=complete, judged_only=judged_only, num_docs=num_docs,
                                         version=trec_eval_version(precision), ties=ties)
    version = trec_eval_version(precision)
    for note in score_notes(scores, names, complete, rel_level, version, tables.lookup.qrels) if warn else ():
        warn(note)
    for note in tie_notes(tables, names, measures, ties, max_depth, judged_only, precision, asked) if warn else ():
        warn(note)
    multi = len(run_paths) > 1
    every_topic = complete and precision != "float32"
    for si, name in enumerate(names):
        prefix = f"{tsv_field(name)}\t" if multi else ""  # a tab or newline in a name: \t, \n
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


def command(args) -> int:
    """Print :func:`score_lines` for the parsed options."""
    print_lines(score_lines(args.qrels, args.runs, args.measure, per_topic=args.q,
                            complete=args.c, rel_level=args.l, max_depth=args.M,
                            precision=precision(args), decimals=args.decimals,
                            unretrieved=args.unretrieved, alpha=args.alpha, systems=args.systems,
                            warn=warn(args), summary=not args.n, judged_only=args.J, num_docs=args.N,
                            ties=args.ties))
    return 0


def check(args) -> None:
    """The measure names, checked before any file is read (ValueError: an option error)."""
    score_measures(args.measure, precision(args))


def add_parser(sub, common) -> None:
    """``reeval score``: trec_eval's lines (plus ASL and rareness)."""
    p = sub.add_parser("score", parents=[common], help="evaluate runs like trec_eval (plus ASL)",
                       description="Evaluate runs against qrels and print trec_eval-style lines. "
                                   f"Inputs: {INPUTS_HELP}.")
    p.add_argument("qrels", help="qrels file")
    p.add_argument("runs", nargs="+", help="run files")
    p.add_argument("-q", action="store_true", help="also print per-topic values")
    p.add_argument("-c", action="store_true",
                   help="average over every qrels topic (a topic a run misses scores as if nothing was "
                        "retrieved); off by default, as in trec_eval, so that the lines are trec_eval's; "
                        "reeval.evaluate and the workflow average so by default (runs compared on the same topics)")
    p.add_argument("-M", type=integer("depth"), default=None, metavar="DEPTH",
                   help="use only the first DEPTH documents of each ranking")
    p.add_argument("-n", action="store_true", help="no summary (all) lines, as trec_eval -n")
    p.add_argument("-J", action="store_true",
                   help="rank only the judged documents (grade >= 0), as trec_eval -J")
    p.add_argument("-N", type=integer("num_docs"), default=0, metavar="DOCS",
                   help="documents in the collection (for utility's fourth coefficient and fallout's "
                        "non-relevant documents), as trec_eval -N")
    p.add_argument("-m", dest="measure", action="append", metavar="MEASURE",
                   help="measure to print, repeatable: trec_eval names such as map, P.5,10, "
                        "ndcg_cut.10, all_trec, ir_measures names such as P@20, nDCG@10, RR@10, "
                        "AP(rel=2), and ASL, ASL@g1-10, P_rareness@100 ...; printed in trec_eval's "
                        "order, reeval's own after, under trec_eval's name where trec_eval computes the "
                        "measure (AP and nDCG@10 print as map and ndcg_cut_10), else one canonical name "
                        "(MAP(rel=2) prints as AP(rel=2)); reeval measures lists them all; default: official")
    p.add_argument("--unretrieved", choices=UNRETRIEVED_POLICIES, default="after_last",
                   help="ASL of an unretrieved relevant document: irrel+1 (after_last, "
                        "default) or irrel (eq3)")
    p.add_argument("--alpha", default="1", metavar="ALPHA",
                   help="weight of rarity in the rareness measures: a number >= 0 or 1/R "
                        "(1/relevant documents of the topic); default 1")
    p.add_argument("--systems", choices=SYSTEMS, default="all",
                   help="rareness: S = every RUN given (all, default) or, per topic, the runs "
                        "that answered it (answered)")
    add_ties(p)
    p.set_defaults(func=command, check=check)
