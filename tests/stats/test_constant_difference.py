"""A constant per-topic difference written with rounding errors (0.9 - 0.8 and 0.7 - 0.6 differ
in the 17th digit) has sd 0 and effect size inf, not the 7004865577812836 its 1e-17 sd gave."""

import math

import numpy as np

from reeval.stats.comparisons import all_pairs_tests
from reeval.stats.conventions import effect_size_dz
from reeval.stats.paired import paired_t

X = np.array([[0.9, 0.7, 0.5, 0.33, 0.61], [0.8, 0.6, 0.4, 0.23, 0.51]])


def test_a_constant_difference_with_rounding_has_an_infinite_effect_size():
    d = X[0] - X[1]
    assert np.ptp(d) > 0  # the rounding is there
    assert effect_size_dz(d) == math.inf and effect_size_dz(-d) == -math.inf
    assert paired_t(X[0], X[1])["effect_size"] == math.inf
    table = all_pairs_tests(X, runs=["a", "b"])
    assert table.effect_size.tolist() == [math.inf]


def test_differences_that_vary_keep_their_effect_size():
    d = np.array([0.1, 0.2, 0.3])
    assert effect_size_dz(d) == d.mean() / d.std(ddof=1)
    assert effect_size_dz(np.zeros(4)) == 0.0 and math.isnan(effect_size_dz([0.1]))
    tiny = np.array([1e-12, 2e-12, 3e-12])  # small but not rounding: its own spread
    assert effect_size_dz(tiny) == tiny.mean() / tiny.std(ddof=1)
