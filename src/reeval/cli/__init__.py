"""The reeval command line: one module per command (score, compare, prefer, measures),
registered by name in app.COMMANDS and imported only when its command runs.

The commands' functions stay importable from here as before (reeval.cli.score_lines,
reeval.cli.read_inputs ...): each name is looked up in the module that defines it on
first use, so importing reeval.cli imports argparse and nothing else.
"""

from __future__ import annotations

from importlib import import_module

from reeval.cli.app import build_parser, main, process_settings, run

#: functions of the commands -> the module defining them (imported on first use)
_LAZY = {
    "read_inputs": "reeval.cli.options",
    "format_value": "reeval.cli.score", "format_line": "reeval.cli.score",
    "score_measures": "reeval.cli.score", "score_lines": "reeval.cli.score",
    "compare_rows": "reeval.cli.compare", "compare_lines": "reeval.cli.compare",
    "COMPARE_FORMATS": "reeval.cli.compare", "PAIRS_COLUMNS": "reeval.cli.compare",
    "prefer_lines": "reeval.cli.prefer",
    "measure_table": "reeval.cli.measures", "measure_markdown": "reeval.cli.measures",
    "plain_doc": "reeval.cli.measures",
}

__all__ = ["build_parser", "main", "process_settings", "run", *_LAZY]


def __getattr__(name: str):
    """A command's function, from its module (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'reeval.cli' has no attribute {name!r}")
    return getattr(import_module(_LAZY[name]), name)
