"""The array helpers on sorted keys against their definitions."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from reeval.io.arrays import group_starts, position_in_group, positions_from_counts


@given(st.lists(st.integers(0, 5), max_size=12))
def test_positions_from_counts_number_each_group_from_one(counts):
    keys = np.repeat(np.arange(len(counts)), counts)
    expected = [k for c in counts for k in range(1, c + 1)]
    got = positions_from_counts(np.array(counts, dtype=np.int64))
    assert got.dtype == np.int32
    assert got.tolist() == expected
    assert position_in_group(group_starts(keys)).tolist() == expected
