"""The Python API: :func:`evaluate`, :func:`compare`, :func:`compare_runs`, :func:`prefer`
(the commands as DataFrames), :func:`leave_one_group_out` (reusability), :func:`recall_precision` and :func:`plot_recall_precision`
(the 11-point curves) and :func:`read_results` (the workflow's tables). ``reeval.evaluate``
and the other names of the top-level package come from here, imported on first use."""

from reeval.errors import InputError, ReevalWarning

from .comparison import Comparison, compare, compare_runs
from .curves import plot_recall_precision, recall_precision
from .results import Results, read_results
from .reusability import leave_one_group_out
from .scoring import evaluate, prefer

__all__ = ["evaluate", "compare", "compare_runs", "Comparison", "prefer", "leave_one_group_out", "recall_precision",
           "plot_recall_precision", "read_results", "Results", "InputError", "ReevalWarning"]
