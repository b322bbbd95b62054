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
"""
# isort: skip_file
# (the import order is the registration order: trec_eval's families, ASL, rareness, then
# ir_measures' names; `reeval measures`, docs/measures.md and the accepted-names messages
# list the families in it)

from .registry import (REGISTRY, SETS, STANDARD_CUTOFFS, TREC_EVAL_ORDER, Family, Measure, accepted_names,
                       family_of, parse_measure, parse_measures, print_order, register, trec_eval_selection)
from .grid import Grid, build_grid, grid_from_track, grouped_cumsum
from . import classic  # registers its families
from . import interpolated
from .interpolated import IPREC_RULES, RECALL_LEVELS, recall_cutoff_ranks
from . import graded, setbased, judgments  # register their families
from .asl import DEFAULT_ASL, per_document, track_depth, unretrieved_asl
from . import rareness  # registers the rareness names
from . import vocabulary  # ir_measures' names
from .evaluate import TopicScores, aggregate, aggregate_values, evaluate_grid, row_sums

__all__ = ["REGISTRY", "SETS", "STANDARD_CUTOFFS", "TREC_EVAL_ORDER", "Family", "Measure", "accepted_names",
           "family_of", "parse_measure", "parse_measures", "print_order", "register", "trec_eval_selection",
           "Grid", "build_grid", "grid_from_track", "grouped_cumsum", "IPREC_RULES", "RECALL_LEVELS", "classic", "interpolated",
           "recall_cutoff_ranks", "graded", "setbased", "judgments", "DEFAULT_ASL", "per_document",
           "track_depth", "unretrieved_asl", "rareness", "vocabulary", "TopicScores", "aggregate",
           "aggregate_values", "evaluate_grid", "row_sums"]
