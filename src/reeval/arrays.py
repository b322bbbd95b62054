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
