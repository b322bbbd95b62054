"""Small array helpers on sorted keys (numpy only)."""

from __future__ import annotations

import numpy as np


def group_starts(keys: np.ndarray) -> np.ndarray:
    """Boolean mask, True where a sorted key array starts a new group."""
    starts = np.ones(len(keys), dtype=bool)
    if len(keys) > 1:
        starts[1:] = keys[1:] != keys[:-1]
    return starts


def position_in_group(starts: np.ndarray) -> np.ndarray:
    """1-based position of each row inside its group, given the group-start mask."""
    idx = np.arange(len(starts))
    first = np.maximum.accumulate(np.where(starts, idx, 0))
    return idx - first + 1


def positions_from_counts(counts: np.ndarray) -> np.ndarray:
    """1-based position (int32) of each row inside its group, for rows sorted by group
    whose group g holds counts[g] rows (empty groups allowed): 1..counts[g] for every g.

    One cumulative sum: every row adds 1, the first row of a group after a non-empty one
    adds 1 - (size of the previous non-empty group) instead.
    """
    sizes = np.asarray(counts, dtype=np.int64)
    sizes = sizes[sizes > 0]
    step = np.ones(int(sizes.sum()), dtype=np.int32)
    if len(sizes) > 1:
        step[np.cumsum(sizes[:-1])] = 1 - sizes[:-1]
    return np.cumsum(step, dtype=np.int32)
