"""The choices reeval's commands and functions offer, importable without numpy.

The command-line parser reads them before any heavy import; the modules that
implement them import them from here, so the two cannot disagree.
"""

#: score precision of the trec_eval ordering: float64 (trec_eval 10) or float32 (9.x, pytrec_eval)
PRECISIONS = ("float64", "float32")
#: how tied scores are ordered: trec_eval's order (docno descending) for every measure, or
#: for each measure the order of the provider ir_measures computes it with (reeval.measures.providers)
TIES = ("trec_eval", "ir_measures")
#: ASL of a relevant document the run did not retrieve: irrel + 1 (equation 1) or irrel (equation 3)
UNRETRIEVED_POLICIES = ("after_last", "eq3")
#: rareness: S counts every run given, or per topic the runs that answered it
SYSTEMS = ("all", "answered")
#: the rareness measure families (registered in reeval.measures.rareness, computed in reeval.analyses.rareness)
RARENESS_FAMILIES = ("P_rareness", "AP_rareness", "P_rareness_norm", "AP_rareness_norm")
#: paired significance tests and their alternatives (reeval.stats)
PAIRED_TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")
#: tests over every pair of runs (reeval.compare_runs): the paired tests and the all-run Tukey HSDs
ALL_PAIRS_TESTS = PAIRED_TESTS + ("tukey_hsd", "randomised_tukey_hsd")
#: p-value adjustments over the pairs of one measure and test ("none": unadjusted)
PAIR_CORRECTIONS = ("holm", "bonferroni", "bh", "none")
#: statsmodels' name of a correction (``multipletests(method="fdr_bh")``) -> reeval's;
#: PyTerrier's ``Experiment(correction=None)`` is "none" (reeval.compare_runs only)
STATSMODELS_CORRECTIONS = {"fdr_bh": "bh"}
#: the formats of the comparison table (reeval.compare_runs(...).report(), reeval compare
#: --format) and the one default of both: text, aligned for a terminal or print()
REPORT_FORMATS = ("text", "markdown", "latex")
REPORT_FORMAT = "text"

#: the integer options, command line and API alike: name -> (minimum, maximum). Depths,
#: grades and relevance levels are int64 (a level beyond it would compare with no grade);
#: 30 decimals show any double to 17 significant digits down to 1e-13; a seed is numpy's
#: (non-negative); resamples are bounded by the time they take (10^9: hours on one core);
#: num_docs is trec_eval's -N, the documents in the collection
INTEGER_BOUNDS = {"depth": (1, 2**63 - 1), "relevance_level": (-(2**63), 2**63 - 1), "decimals": (0, 30),
                  "seed": (0, 2**63 - 1), "resamples": (1, 10**9), "num_docs": (0, 2**63 - 1),
                  "places": (0, 2**63 - 1)}


def integer_problem(name: str, value) -> str | None:
    """What is wrong with ``value`` as the integer option ``name`` (:data:`INTEGER_BOUNDS`), or
    None: ``must be an integer``, ``must be at least 1``, ``must be at most 9223372036854775807``."""
    import numbers

    low, high = INTEGER_BOUNDS[name]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return "must be an integer"
    if value < low:
        return f"must be at least {low}"
    if value > high:
        return f"must be at most {high}"
    return None


#: reusability: the verdict counts the runs whose inserted rank moves by more than this many
#: places; the one default of ``reeval reusability --places``, ``reeval.leave_one_group_out``
#: and the workflow's ``reusability.places`` (schema.yaml; a test compares them): 0, every
#: rank change counts (docs/studies.md, "Reusability")
REUSABILITY_PLACES = 0
