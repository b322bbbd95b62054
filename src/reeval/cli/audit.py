"""``reeval audit QRELS RUN... --official FILE``: each published official figure of the runs
beside reeval's, equal, explained by a named cause, or unexplained
(:mod:`reeval.analyses.audit`, docs/audit.md).

Prints a first line counting the figures by status, one line per block (its setting and
counts), then one tab-separated line per figure that is not equal (run, block, measure,
official, ours, status, cause: an unexplained figure's nearest setting and difference), and a
closing line: the settings tried, the time, and per block which setting reproduces how many
of its figures; ``--format csv`` prints every figure as CSV instead.
"""

from __future__ import annotations

from reeval.cli.options import INPUTS_HELP, print_lines, warn
from reeval.report.escape import line_text, tsv_field

#: the columns of the tab-separated lines of figures that are not equal
ROW_COLUMNS = ["run", "block", "measure", "official", "ours", "status", "cause"]


def counts_text(counts: dict) -> str:
    """``961 equal, 1 explained, 0 unexplained`` (with ``, N not compared`` when some are)."""
    shown = [f"{counts.get(s, 0):,} {s}" for s in ("equal", "explained", "unexplained")]
    if counts.get("not compared"):
        shown.append(f"{counts['not compared']:,} not compared")
    return ", ".join(shown)


def audit_lines(table, fmt: str = "text"):
    """Yield the lines of ``reeval audit`` for an audit table (module doc)."""
    if fmt == "csv":
        yield from table.to_csv(index=False, lineterminator="\n").splitlines()
        return
    from reeval.analyses.audit.core import reproduced_text

    compared = table[table["status"] != "not compared"]
    yield (f"official figures: {len(compared):,} compared on {compared['run'].nunique():,} runs: "
           f"{counts_text(compared['status'].value_counts().to_dict())}")
    blocks = list(compared.groupby("block", sort=False))
    for block, cells in blocks:
        causes = cells.loc[cells["status"] == "explained", "cause"].value_counts()
        why = "".join(f"; {n:,} by {line_text(c)}" for c, n in causes.items())
        yield (f"block {line_text(block)} ({line_text(cells['setting'].iloc[0])}): {cells['run'].nunique():,} runs, "
               f"{counts_text(cells['status'].value_counts().to_dict())}{why}")
    absent = table.loc[table["cause"] == "the run is not in the track", "run"].unique()
    if len(absent):
        shown = ", ".join(map(line_text, absent[:3])) + (f" and {len(absent) - 3:,} more" if len(absent) > 3 else "")
        yield f"not compared: {len(absent):,} runs of the official file are not among the runs given ({shown})"
    unknown = table.loc[table["cause"] == "reeval knows no measure of this name", "measure"].unique()
    if len(unknown):
        yield f"not compared: no reeval measure is named {', '.join(map(line_text, unknown))}"
    differ = compared[compared["status"] != "equal"]
    if len(differ):
        yield "\t".join(ROW_COLUMNS)
        for row in differ.itertuples(index=False):
            yield "\t".join(tsv_field(getattr(row, c)) for c in ROW_COLUMNS[:-1]) + "\t" + tsv_field(row_cause(row))
    searched = (f"searched {int(table.attrs['settings']):,} settings in {float(table.attrs['seconds']):.1f} s"
                if "settings" in table.attrs else "searched")
    yield f"{searched}: " + " | ".join(
        f"block {line_text(block)}: {line_text(reproduced_text(cells['status'], cells['reproduced_by']))}"
        for block, cells in blocks)


def row_cause(row) -> str:
    """The last field of a figure's line: its causes and reeval's figure under them, or for an
    unexplained figure the setting printing the nearest figure and the official one's
    difference from it."""
    if row.status == "explained":
        return f"{row.cause}: {row.ours_under_cause}"
    if row.status == "unexplained" and row.nearest:
        return f"nearest: {row.nearest}: official - ours {row.difference}"
    return ""


def audit_files(qrels_path, run_paths, official_path, rel_level: int = 1, precision: str = "float64", warn=None,
                alternative_qrels=()):
    """The audit table (a DataFrame) of run files against the official figures file (each
    input read once; ``alternative_qrels``: qrels files the search tries too)."""
    from contextlib import ExitStack

    from reeval.analyses.audit.core import audit
    from reeval.analyses.audit.evaluate import TrackEvaluator, spooled
    from reeval.analyses.audit.official import read_official
    from reeval.analyses.audit.settings import Setting
    from reeval.cli.options import progress
    from reeval.io.sources import check_read_once
    from reeval.io.trecio import run_names

    alternative_qrels = list(alternative_qrels)
    check_read_once([qrels_path, *run_paths, *alternative_qrels])
    official = read_official(official_path)
    names = run_names(run_paths)
    with ExitStack() as stack:
        qrels, *files = spooled([qrels_path, *alternative_qrels, *run_paths], stack)
        alternatives, runs = files[:len(alternative_qrels)], files[len(alternative_qrels):]
        evaluate = TrackEvaluator(qrels, runs, names, warn=warn)
        max_grade, max_depth = evaluate.limits()
        with progress(warn, "settings evaluated") as count:
            table = audit(official, evaluate if count is None else count.wrap(evaluate), Setting(level=rel_level, precision=precision), names,
                          max_grade, max_depth, alternatives)
    frame = table.to_pandas()
    frame.attrs = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    return frame


def command(args) -> int:
    """Print :func:`audit_lines` for the parsed options."""
    table = audit_files(args.qrels, args.runs, args.official, rel_level=args.l,
                        precision="float32" if args.float32 else "float64", warn=warn(args),
                        alternative_qrels=args.alternative_qrels)
    print_lines(audit_lines(table, args.format))
    return 0


def add_parser(sub, common) -> None:
    """``reeval audit``: official figures against reeval's."""
    p = sub.add_parser("audit", parents=[common], help="published official figures beside reeval's, each "
                                                       "equal, explained or unexplained",
                       description="Audit published official figures: each figure of --official beside reeval's "
                                   "value at its block's setting (-l, or relevance >= 2 for DL's passages-eval; "
                                   "trec_eval 10 ordering, -c), rounded as printed. Where figures differ, the "
                                   "lattice of settings is searched, the fewest causes first (relevance level, grades below it "
                                   "gaining 0, trec_eval 9.x or 10 ordering, -c, -M 1000, docno-ascending ties, each "
                                   "--alternative-qrels): a figure is explained by the first setting that reproduces "
                                   "its whole block, else its run's whole block, naming every cause; else "
                                   "unexplained, with the nearest setting. The closing line says how many settings "
                                   "were tried, in what time, and per block which setting reproduces it "
                                   f"(docs/audit.md). Inputs: {INPUTS_HELP}.")
    p.add_argument("qrels", help="qrels file")
    p.add_argument("runs", nargs="+", help="run files")
    p.add_argument("--official", required=True, metavar="FILE",
                   help="the official figures: a table with run, block, measure, value columns, or one line per "
                        "run with a column per figure (block:measure, or a measure name) (docs/audit.md)")
    p.add_argument("--alternative-qrels", action="append", default=[], metavar="FILE",
                   help="another qrels file the official figures may have been computed with (repeatable): "
                        "one more value of the lattice's qrels, tried in the order given (docs/audit.md)")
    p.add_argument("--format", choices=("text", "csv"), default="text",
                   help="text: counts per block, then the figures that are not equal (default); csv: every figure")
    p.set_defaults(func=command)
