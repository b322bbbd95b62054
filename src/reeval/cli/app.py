"""The reeval command line: the parser, built from the commands registered in COMMANDS,
and the process around a command (settings, errors, exit status).

A command is a module with add_parser(sub, common), which adds its subparser and sets
its defaults: func (args -> exit status), optionally check (args -> None, ValueError for
a bad option, run before any file is read) and min_runs. Only the module of the command
being run is imported; --help imports them all (they import argparse and nothing heavy).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from importlib import import_module

from reeval import __version__

#: command name -> the module defining it, in the order --help lists them
COMMANDS = {
    "score": "reeval.cli.score",
    "compare": "reeval.cli.compare",
    "prefer": "reeval.cli.prefer",
    "reusability": "reeval.cli.reusability",
    "audit": "reeval.cli.audit",
    "measures": "reeval.cli.measures",
}

DESCRIPTION = "The reeval command line: evaluate runs as trec_eval does, compare them, list the measures."


class Parser(argparse.ArgumentParser):
    """argparse's parser whose own errors (an unknown option, a missing argument, an
    ambiguous abbreviation) show the arguments they quote escaped
    (:func:`reeval.report.escape.line_text`), as every other line reeval prints: an
    argument holding ESC or a bidi control reaches the terminal as ``\\x1b``, ``\\u202e``.
    The subcommands' parsers are of this class too (argparse makes them of their parent's)."""

    def error(self, message):
        """Exit 2 with the usage line and ``PROG: error: message``, the message on one line."""
        from reeval.report.escape import line_text

        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {line_text(message)}\n")


def build_parser(commands=None) -> argparse.ArgumentParser:
    """The command line with ``commands`` (names of :data:`COMMANDS`; default all), each
    added by its module's ``add_parser`` and sharing the input options (a :class:`Parser`)."""
    from reeval.cli.options import input_options

    parser = Parser(prog="reeval", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"reeval {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}")
    common = input_options()
    for name in commands or COMMANDS:
        import_module(COMMANDS[name]).add_parser(sub, common)
    return parser


def command_named(argv) -> list[str] | None:
    """The one command ``argv`` runs (its first word not starting with -), or None (all:
    ``--help``, ``--version``, an unknown command, which argparse then reports)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return [first] if first in COMMANDS else None


def _option_error(parser, args, exc) -> None:
    """Exit 2 with the command's usage line and the message (argparse's way), on one line
    (:meth:`Parser.error`)."""
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


#: commands whose process ends without the interpreter's teardown (:func:`leave`): they
#: leave no temporary file, thread, child process nor atexit work behind
LEAVE_AT_ONCE = {"score"}


def run() -> int:
    """The ``reeval`` console script: :func:`process_settings`, then :func:`main` (which
    tests and other programs call in their own process, settings untouched); a command of
    :data:`LEAVE_AT_ONCE` then ends the process at once (:func:`leave`)."""
    process_settings()
    status = main()
    if set(command_named(sys.argv[1:]) or ()) & LEAVE_AT_ONCE:
        leave(status)
    return status


def leave(status: int) -> None:
    """End the process with ``status`` once its standard output and error are flushed,
    without the interpreter's teardown (``os._exit``): freeing every module and object
    one by one and the final cycle collection were about 6% of the instructions of
    ``reeval score`` on one run (numpy's modules are many). Returns (and the interpreter
    ends as usual, reporting what it reports) when a stream cannot be flushed: a closed
    pipe, a full disk."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(status)


def main(argv=None) -> int:
    """Run a command; bad input ends it with one line on stderr and status 1, never a traceback
    (:func:`reeval.cli.options.note`: every name in it shown escaped, a newline as ``\\n``)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_named(argv))
    args = parser.parse_args(argv)
    if len(getattr(args, "runs", ())) < getattr(args, "min_runs", 0):
        parser.error(f"{args.command} needs at least two runs")
    if getattr(args, "check", None) is not None:
        try:  # a measure name is an option: checked before any file is read, exit 2 with usage
            args.check(args)
        except ValueError as exc:
            _option_error(parser, args, exc)
    try:
        sys.stdout.reconfigure(errors="backslashreplace")  # ids print in any locale
    except (AttributeError, ValueError):  # pragma: no cover - a replaced stdout
        pass
    from reeval.cli.options import note

    try:
        return args.func(args)
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError as exc:  # reeval.io.ingest.naming_file names the file being read
        note(str(exc) or "out of memory")
        return 1
    except (ValueError, OSError) as exc:  # InputError and the option checks of the library
        note(str(exc).strip("\n"))
        return 1
