"""The choices reeval's commands and functions offer, importable without numpy.

The command-line parser reads them before any heavy import; the modules that
implement them import them from here, so the two cannot disagree.
"""

#: score precision of the trec_eval ordering: float64 (trec_eval 10) or float32 (9.x, pytrec_eval)
PRECISIONS = ("float64", "float32")
#: ASL of a relevant document the run did not retrieve: irrel + 1 (equation 1) or irrel (equation 3)
UNRETRIEVED_POLICIES = ("after_last", "eq3")
#: rareness: S counts every run given, or per topic the runs that answered it
SYSTEMS = ("all", "answered")
#: paired significance tests and their alternatives (reeval.stats)
PAIRED_TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")
#: tests over every pair of runs (reeval.compare_runs): the paired tests and the all-run Tukey HSDs
ALL_PAIRS_TESTS = PAIRED_TESTS + ("tukey_hsd", "randomised_tukey_hsd")
#: p-value adjustments over the pairs of one measure and test ("none": unadjusted)
PAIR_CORRECTIONS = ("holm", "bonferroni", "bh", "none")
