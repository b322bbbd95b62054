"""Snakemake's logger plugin ``reeval`` (``--logger reeval``): the workflow's console,
:mod:`reeval.workflow.console`. Snakemake finds its logger plugins by this module name."""

from reeval.workflow.console import LogHandler

__all__ = ["LogHandler"]
