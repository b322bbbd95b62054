"""The measures: a registry of families (:mod:`.registry`), the classic trec_eval ones
(:mod:`.classic`), atomized search length (:mod:`.asl`) and the rareness names
(:mod:`.rareness`), computed on the judged-position grid (:mod:`.grid`) with shared
intermediates (:mod:`.context`) and averaged as trec_eval does (:mod:`.evaluate`).

Everything is computed from the judged-position table (one row per judged document a
run retrieved: run, qid, pos, rel), the depth table (run, qid, n_ret) and the qrels,
with vectorized group sums over a dense runs x topics grid. No loop over documents,
topics or runs. ``reeval measures`` lists every family.
"""
# isort: skip_file
# (the import order is the registration order: classic, ASL, rareness; `reeval measures`,
# docs/measures.md and the accepted-names messages list the families in it)

from .registry import (REGISTRY, SETS, STANDARD_CUTOFFS, Family, Measure, accepted_names, family_of,
                       parse_measure, parse_measures, register)
from .grid import Grid, build_grid, grid_from_track, grouped_cumsum
from .classic import IPREC_RULES, OFFICIAL, RECALL_LEVELS, ideal_dcg, recall_cutoff_ranks
from .asl import DEFAULT_ASL, per_document, track_depth, unretrieved_asl
from . import rareness  # registers the rareness names
from .evaluate import TopicScores, aggregate, aggregate_values, evaluate_grid, row_sums

__all__ = ["REGISTRY", "SETS", "STANDARD_CUTOFFS", "Family", "Measure", "accepted_names", "family_of",
           "parse_measure", "parse_measures", "register", "Grid", "build_grid", "grid_from_track",
           "grouped_cumsum", "IPREC_RULES", "OFFICIAL", "RECALL_LEVELS", "ideal_dcg", "recall_cutoff_ranks",
           "DEFAULT_ASL", "per_document", "track_depth", "unretrieved_asl", "rareness", "TopicScores",
           "aggregate", "aggregate_values", "evaluate_grid", "row_sums"]
