"""The measures: a registry of families (:mod:`.registry`), trec_eval's measures
(:mod:`.classic`, :mod:`.interpolated`, :mod:`.graded`, :mod:`.setbased`,
:mod:`.judgments`), atomized search length (:mod:`.asl`), the rareness names
(:mod:`.rareness`) and ir_measures' names for them (:mod:`.vocabulary`), computed on the
judged-position grid (:mod:`.grid`) with shared intermediates (:mod:`.context`) and
averaged as trec_eval does (:mod:`.evaluate`).

Everything is computed from the judged-position table (one row per judged document a
run retrieved: run, qid, pos, rel), the depth table (run, qid, n_ret) and the qrels,
with vectorized group sums over a dense runs x topics grid. No loop over documents,
topics or runs. ``reeval measures`` lists every family.

The family modules are imported when first needed (:data:`.registry.FAMILY_MODULES`,
in registration order): parsing ``map`` imports :mod:`.classic` alone; the names below
that live in a family module (``per_document``, ``RECALL_LEVELS`` ...) import it on
first use.
"""

from importlib import import_module

from .registry import (FAMILY_MODULES, REGISTRY, SETS, STANDARD_CUTOFFS, TREC_EVAL_ORDER, Family, Measure,
                       accepted_names, family_of, known_measures, load_families, parse_measure, parse_measures,
                       print_order, register, trec_eval_selection)
from .grid import Grid, build_grid, grid_from_track, grouped_cumsum
from .evaluate import TopicScores, aggregate, aggregate_values, evaluate_grid, row_sums

#: names of family modules re-exported here -> their module (imported on first use)
_IN_FAMILY_MODULES = {
    "IPREC_RULES": "interpolated", "RECALL_LEVELS": "interpolated", "recall_cutoff_ranks": "interpolated",
    "DEFAULT_ASL": "asl", "per_document": "asl", "per_document_table": "asl", "track_depth": "asl", "unretrieved_asl": "asl",
}

__all__ = ["FAMILY_MODULES", "REGISTRY", "SETS", "STANDARD_CUTOFFS", "TREC_EVAL_ORDER", "Family", "Measure",
           "accepted_names", "family_of", "known_measures", "load_families", "parse_measure", "parse_measures",
           "print_order", "register", "trec_eval_selection", "Grid", "build_grid", "grid_from_track", "grouped_cumsum",
           "TopicScores", "aggregate", "aggregate_values", "evaluate_grid", "row_sums",
           # the family modules (FAMILY_MODULES) and the names of _IN_FAMILY_MODULES, spelled
           # out for the docs' reader (griffe reads only strings); tests/measures/test_registry.py
           # checks the two lists agree
           "classic", "interpolated", "graded", "setbased", "judgments", "asl", "rareness", "textbook",
           "vocabulary", "IPREC_RULES", "RECALL_LEVELS", "recall_cutoff_ranks", "DEFAULT_ASL", "per_document", "per_document_table",
           "track_depth", "unretrieved_asl"]


def __getattr__(name: str):
    """A family module (``reeval.measures.graded``) or a name defined in one, imported on
    first use (PEP 562)."""
    if name in FAMILY_MODULES:
        return import_module(f"{__name__}.{name}")
    if name in _IN_FAMILY_MODULES:
        return getattr(import_module(f"{__name__}.{_IN_FAMILY_MODULES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
