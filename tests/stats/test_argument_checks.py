"""Values outside a statistics parameter's domain are one InputError line (issue 31
items 9 and 12), never a raw numpy error, a MemoryError or a silently wrong number."""

import numpy as np
import pytest

import reeval.stats as st
from reeval.errors import InputError

X = np.random.default_rng(0).random(30)
Y = X * 0.9


@pytest.mark.parametrize("p", [[-0.1, 0.01], [1.5], ["0.1", 0.01]])
def test_p_adjust_refuses_what_is_not_a_p_value(p):
    """`p_adjust([-0.1, 0.01])` returned [-0.2, 0.01]."""
    for method in ("holm", "bonferroni", "bh"):
        with pytest.raises(InputError, match="p-values"):
            st.p_adjust(p, method)


def test_p_adjust_still_keeps_nan_and_takes_0_and_1():
    out = st.holm([0.0, np.nan, 1.0, 0.01])
    assert np.isnan(out[1]) and list(out[[0, 2, 3]]) == [0.0, 1.0, 0.02]


@pytest.mark.parametrize("call, match", [
    (lambda: st.bootstrap_test(X, Y, n_resamples=10**12), "n_resamples must be at most"),
    (lambda: st.bootstrap_test(X, Y, n_resamples=10**9), "bootstrap interval keeps"),
    (lambda: st.permutation_test(X, Y, seed=-1), "seed must be at least 0"),
    (lambda: st.permutation_test(X, Y, seed=1.5), "seed must be an integer"),
    (lambda: st.permutation_test(X, Y, n_resamples="100"), "n_resamples must be an integer"),
    (lambda: st.paired_test(X, Y, test="bootstrap", seed=-5), "seed must be at least 0"),
    (lambda: st.bootstrap_test(["a"] * 3, ["b"] * 3), "expected numbers, got 'a'"),
    (lambda: st.paired_t(["0.1", "0.2"], [0.1, 0.3]), "expected numbers, got '0.1'"),
    (lambda: st.wilcoxon_test(["x"] * 5, [1] * 5), "expected numbers"),
    (lambda: st.randomised_tukey_hsd(np.vstack([X, Y]), seed=-1), "seed must be at least 0"),
    (lambda: st.randomised_tukey_hsd(np.vstack([X, Y]), resamples=1.5), "resamples must be an integer"),
    (lambda: st.all_pairs_tests(np.vstack([X, Y]), tests=["permutation"], seed="1"), "seed must be an integer"),
    (lambda: st.tukey_hsd([["a", "b"], ["c", "d"]]), "expected numbers"),
    (lambda: st.kendall_tau(["a", "b"], [1, 2]), "expected numbers"),
    (lambda: st.ttest_rows([["a"]]), "expected numbers"),
    (lambda: st.paired_t(X, Y, alternative="both"), "alternative must be one of"),
    (lambda: st.paired_t(X, Y, confidence="0.9"), "confidence must be a number"),
    (lambda: st.discriminative_power(np.vstack([X, Y]), alpha="0.05"), "alpha must be a number"),
])
def test_arguments_outside_their_domain_are_an_input_error(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_numpy_integers_are_seeds_and_resamples():
    a = st.permutation_rows(np.vstack([X - Y] * 2), seed=np.int64(3), n_resamples=np.int32(50))
    b = st.permutation_rows(np.vstack([X - Y] * 2), seed=3, n_resamples=50)
    assert np.array_equal(a["p_value"], b["p_value"])
