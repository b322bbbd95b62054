"""The number of relevant documents each recall level of iprec_at_recall stands for."""

import numpy as np
import pytest

from reeval.measures import IPREC_RULES, recall_cutoff_ranks


def test_recall_cutoff_ranks_per_rule():
    # R = 3 relevant documents; k_L for L = 0.0, 0.1, ..., 1.0:
    #   trec_eval9  (long)(L*3 + 0.9): L = .7 gives 2.9999999999999996, so k = 2
    #   trec_eval10 lround(L*3): L = .5 gives 1.5, rounded up to 2
    #   recall      ceil(L*3) in integers
    expected = {
        "trec_eval9": [0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3],
        "trec_eval10": [0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3],
        "recall": [0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3],
    }
    assert set(expected) == set(IPREC_RULES)
    for rule, k in expected.items():
        np.testing.assert_array_equal(recall_cutoff_ranks(np.array([3]), rule)[0], k, err_msg=rule)
    # a topic without relevant documents needs none at every level
    assert (recall_cutoff_ranks(np.array([0]))[0] == 0).all()


def test_recall_cutoff_ranks_rejects_unknown_rule():
    with pytest.raises(ValueError, match="rule must be one of"):
        recall_cutoff_ranks(np.array([3]), "trec_eval8")
