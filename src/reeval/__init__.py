"""reeval: reanalysis of IR evaluation campaigns (TREC-style qrels and runs).

The Python API (:mod:`reeval.api`): ``reeval.evaluate``, ``reeval.compare``,
``reeval.compare_runs``, ``reeval.prefer``, ``reeval.leave_one_group_out``, ``reeval.recall_precision``,
``reeval.plot_recall_precision`` and ``reeval.read_results``, imported on first use
(PEP 562), so that ``import reeval`` and the ``reeval`` command stay light (no numpy or
pandas). Statistics on per-topic scores: :mod:`reeval.stats`.
"""

from reeval.errors import InputError, ReevalWarning

__version__ = "0.1.0"
__all__ = ["evaluate", "compare", "compare_runs", "prefer", "leave_one_group_out", "recall_precision", "plot_recall_precision",
           "read_results", "InputError", "ReevalWarning", "__version__"]
_API = ("evaluate", "compare", "compare_runs", "prefer", "leave_one_group_out", "recall_precision", "plot_recall_precision",
        "read_results")


def __getattr__(name: str):
    """``reeval.evaluate`` and the other API functions, from :mod:`reeval.api` on first use."""
    if name in _API:
        from reeval import api

        return getattr(api, name)
    raise AttributeError(f"module 'reeval' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API))
