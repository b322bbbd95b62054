"""reeval prefer QRELS RUN RUN [RUN ...]: lexicographic precision (sgnLP, rrLP) between
every pair of runs, per topic and on average."""

from __future__ import annotations

from reeval.cli.options import INPUTS_HELP, precision, print_lines, read_inputs, warn
from reeval.errors import InputError
from reeval.report.escape import tsv_field

#: the columns of ``reeval prefer``'s lines (``--header`` prints them first)
PREFER_COLUMNS = ("run_i", "run_j", "qid", "sgnLP", "rrLP")
#: what ``reeval prefer --help`` says of them
COLUMNS_HELP = ("Output: tab-separated lines without a header, as trec_eval's (--header prints one: "
                f"{' '.join(PREFER_COLUMNS)}), ready for sort, awk or join: run_i, run_j (the pair, i < j in "
                "argument order), qid, sgnLP (at the first recall level i* where the two runs differ, +1: run_i "
                "ranks its i*-th relevant document higher, -1: run_j does; 0: a tie), rrLP (the difference of "
                "the reciprocal ranks there, run_i's minus run_j's); one line per topic with a relevant document, "
                "then per pair qid 'all' with the means over those topics.")


def prefer_lines(qrels_path, run_paths, rel_level=1, precision="float64", decimals=4, warn=None, header=False):
    """Yield ``run_i<TAB>run_j<TAB>qid<TAB>sgnLP<TAB>rrLP`` lines of ``reeval prefer``
    (after a line of :data:`PREFER_COLUMNS` with ``header``).

    Pairs i < j in argument order; per pair one line per topic with a relevant document
    (sorted qrels topics; a topic a run misses counts as nothing retrieved), then one
    line per pair with qid ``all`` holding the means over those topics
    (:func:`reeval.compute.prefer_track`).
    """
    import csv

    from reeval.compute import prefer_track
    from reeval.io.trecio import run_names

    if len(run_paths) < 2:
        raise InputError("prefer needs at least two runs")
    tables = read_inputs(qrels_path, run_paths, precision=precision, warn=warn)
    per_topic, means = prefer_track(tables, run_names(run_paths), rel_level=rel_level)
    per_topic = per_topic.assign(run_i=per_topic.run_i.map(tsv_field), run_j=per_topic.run_j.map(tsv_field))
    means = means.assign(run_i=means.run_i.map(tsv_field), run_j=means.run_j.map(tsv_field))
    if header:
        yield "\t".join(PREFER_COLUMNS)
    frames = [per_topic]
    if len(per_topic):
        frames.append(means.assign(qid="all")[["run_i", "run_j", "qid", "sgnLP", "rrLP"]])
    for frame in frames:  # per-topic lines (sgnLP an integer), then the means
        yield from frame.to_csv(sep="\t", header=False, index=False, float_format=f"%.{decimals}f",
                                lineterminator="\n", quoting=csv.QUOTE_NONE).splitlines()


def command(args) -> int:
    """Print :func:`prefer_lines` for the parsed options."""
    print_lines(prefer_lines(args.qrels, args.runs, rel_level=args.l, precision=precision(args),
                             decimals=args.decimals, warn=warn(args), header=args.header))
    return 0


def add_parser(sub, common) -> None:
    """``reeval prefer``: lexicographic precision between runs."""
    f = sub.add_parser("prefer", parents=[common], help="lexicographic precision (sgnLP, rrLP) between runs",
                       description="Lexicographic precision for each pair of runs (i < j in "
                                   "argument order) and each topic with a relevant document: "
                                   "run_i, run_j, qid, sgnLP, rrLP; then the means (qid all). "
                                   f"Inputs: {INPUTS_HELP}.", epilog=COLUMNS_HELP)
    f.add_argument("qrels", help="qrels file")
    f.add_argument("runs", nargs="+", help="two or more run files")
    f.add_argument("--header", action="store_true",
                   help=f"print a first line naming the columns ({' '.join(PREFER_COLUMNS)}), for readers of "
                        "tab-separated tables such as pandas.read_csv(sep='\\t')")
    f.set_defaults(func=command, min_runs=2)
