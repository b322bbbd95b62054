"""What the commands share: the input options, argparse types checked before any file is
read, where output and notes go, and reading a command's qrels and runs.

Everything a command writes goes through :func:`print_lines` (stdout) or :func:`note`
(stderr: notes and errors), which show the invisible characters of any name in it (ESC,
BEL, bidi controls ...: :mod:`reeval.report.escape`) as visible escapes, so that a run's
file name reaches no terminal raw."""

from __future__ import annotations

import argparse
import sys
from itertools import islice

from reeval.choices import TIES, integer_problem

INPUTS_HELP = ("files, pipes, FIFOs, /dev/stdin or - (standard input); plain, gzip, bzip2 or compress (.Z), "
               "recognised from their bytes")


def integer(name: str):
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


def probability(text: str) -> float:
    """An argparse type: a number in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], not {value}")
    return value


def input_options() -> argparse.ArgumentParser:
    """Options every command reading files shares: relevance level, float32 ordering,
    decimals, --quiet (a parent parser)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-l", type=integer("relevance_level"), default=1, metavar="LEVEL",
                        help="relevance level: rel >= LEVEL is relevant (default 1)")
    common.add_argument("--trec-eval-9", "--float32", dest="float32", action="store_true",
                        help="trec_eval 9.x and pytrec_eval semantics instead of trec_eval 10's: scores "
                             "read as float32 (more ties), iprec_at_recall and 11pt_avg levels rounded "
                             "as 9.x did, all_trec without unj, rbp, rbp_resid, -c -q without the topics "
                             "a run missed (docs/semantics.md)")
    common.add_argument("--decimals", type=integer("decimals"), default=4,
                        help="decimals printed, 0 to 30 (default 4)")
    common.add_argument("--quiet", action="store_true",
                        help="no notes on stderr about lines dropped or read differently from trec_eval")
    common.add_argument("--verbose", action="store_true",
                        help="also note per file what was read as trec_eval reads it (lines on topics without "
                             "judgments, text after the sixth field, several tags), not in one line")
    return common


def add_ties(parser) -> None:
    """``--ties``: trec_eval's order of tied documents (default) or ir_measures' (per measure,
    its provider's: :mod:`reeval.measures.providers`)."""
    parser.add_argument("--ties", choices=TIES, default="trec_eval",
                        help="order of documents with equal scores: trec_eval (docno descending, default) or "
                             "ir_measures (each measure as the ir_measures provider computing it orders them: RR@k "
                             "and Judged@k by docno ascending, RBP(rel=n) as the lines came, the others as "
                             "trec_eval; with --trec-eval-9 too, ir_measures' values; docs/semantics.md)")


def precision(args) -> str:
    """float32 (trec_eval 9.x semantics) with --trec-eval-9 or its older name --float32."""
    return "float32" if args.float32 else "float64"


def print_lines(lines, chunk: int = 4096) -> None:
    """Write a command's output ``lines`` to stdout, each followed by a newline, through
    :func:`reeval.report.escape.console_text` (tabs and newlines kept; a line without an
    invisible character is written as it is), ``chunk`` lines per write."""
    from reeval.report.escape import console_text

    lines = iter(lines)
    while block := list(islice(lines, chunk)):
        sys.stdout.write(console_text("\n".join(block)) + "\n")


def note(line: str) -> None:
    """Write ``reeval: line`` to stderr as one line (:func:`reeval.report.escape.line_text`):
    a note or an error, whatever names it quotes."""
    from reeval.report.escape import line_text

    print(line_text(f"reeval: {line}"), file=sys.stderr)


def warn(args):
    """Where a command's notes on its input files go: stderr (:func:`note`), unless --quiet
    (``verbose``: what was read as trec_eval reads it, per file rather than in one line)."""
    if args.quiet:
        return None

    def noted(line):
        note(line)
    noted.verbose = getattr(args, "verbose", False)
    noted.progress = True  # and progress on a terminal (reeval.cli.progress)
    return noted


def on_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal (False for a file, a pipe, a closed or replaced stream)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def progress(warn, what: str, total: int | None = None):
    """A context counting ``what`` on stderr (:func:`reeval.cli.progress.counting`, yielding
    a callable counting one unit) when the command shows progress: its notes are shown
    (``warn`` from :func:`warn`, None under --quiet) and stderr is a terminal; else one
    yielding None, without importing :mod:`reeval.cli.progress`."""
    if not getattr(warn, "progress", False) or not on_terminal(sys.stderr):
        from contextlib import nullcontext

        return nullcontext()
    from reeval.cli.progress import counting

    return counting(what, total)


def read_inputs(qrels_path, run_paths, precision="float64", warn=None, verbose=False, orders=(),
                reordered=False):
    """Ingest the qrels and runs of a command (no runs table: the measures read the parts;
    ``orders``: the other orderings its measures need, :func:`reeval.compute.needed_orders`;
    ``reordered``: as :func:`reeval.io.ingest.ingest_track`'s).

    ``warn`` (a callable, e.g. printing to stderr) receives one line per file that had
    lines dropped or read differently from trec_eval, then one line summing up what was
    read as trec_eval reads it (per file with ``verbose``: :func:`reeval.compute.check_tables`).
    A run that keeps no line (empty, or every line dropped) is an :class:`InputError`.
    The run files read are counted on a terminal (:func:`progress`).
    """
    from reeval.compute import check_tables
    from reeval.io.ingest import ingest_track

    with progress(warn, "reading run files", len(run_paths)) as count:
        tables = ingest_track("cli", qrels_path, run_paths, precision=precision, keep_runs=False, orders=orders,
                              reordered=reordered, on_read=count)
    notes = check_tables(tables, verbose or getattr(warn, "verbose", False))
    if warn is not None:
        for line in notes:
            warn(line)
    return tables
