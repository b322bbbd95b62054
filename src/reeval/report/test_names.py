"""The names the comparison tables print for a significance test and a multiple-testing
correction (shared by :mod:`reeval.report.significance_table` and
:mod:`reeval.report.baseline_table`)."""

#: a test's key (``reeval.compare_runs(tests=...)``) -> its name in a caption
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
              "permutation": "paired permutation test", "bootstrap": "paired bootstrap test",
              "tukey_hsd": "Tukey's HSD (topic-blocked ANOVA)", "randomised_tukey_hsd": "randomised Tukey HSD"}
#: a correction's key -> its name in a caption
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}
