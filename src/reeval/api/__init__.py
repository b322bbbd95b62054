"""The Python API: :func:`evaluate`, :func:`compare`, :func:`prefer` (the commands as
DataFrames) and :func:`read_results` (the workflow's tables). ``reeval.evaluate`` and the
other names of the top-level package come from here, imported on first use."""

from reeval.errors import InputError, ReevalWarning

from .results import Results, read_results
from .scoring import compare, evaluate, prefer

__all__ = ["evaluate", "compare", "prefer", "read_results", "Results", "InputError", "ReevalWarning"]
