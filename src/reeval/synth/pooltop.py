"""The ``depth`` highest values of each row of a matrix, highest first, equal values in
index order: how a synthetic run ranks each topic's pool by its latents
(:mod:`reeval.synth.tracks`). The same indices as a stable sort of every row, found by a
partition and a sort of what it keeps."""

from __future__ import annotations

import numpy as np

#: rows of a latent matrix that :func:`top_depth` takes at once: its temporaries (the
#: partition's indices, a mask) stay about 8 MB, below glibc's mmap threshold once
#: :func:`reeval.io.ingest.tune_memory` has run, so they reuse heap memory instead of
#: faulting fresh pages for every run (150 x 31,230 latents a run on the full study's largest track)
TOP_BLOCK = 1 << 20


def top_depth(latent: np.ndarray, depth: int) -> np.ndarray:
    """Per row, the indices of the ``depth`` highest values, highest first, equal values in
    index order: ``np.argsort(-latent, axis=1, kind="stable")[:, :depth]``, without sorting
    the whole row. The ``depth`` highest are found by partition and only they are sorted;
    rows where values equal to the ``depth``-th highest do not all fit (a tie across the cut,
    which partition would break arbitrarily) are sorted whole instead. Rows are taken in
    blocks of about :data:`TOP_BLOCK` values (each row's result depends on that row only)."""
    width = latent.shape[1]
    if depth >= width or depth <= 0:
        return np.argsort(-latent, axis=1, kind="stable")[:, :depth]
    rows = max(1, TOP_BLOCK // width)
    blocks = [_top_depth_block(latent[i:i + rows], depth) for i in range(0, len(latent), rows)]
    return np.concatenate(blocks) if blocks else np.zeros((0, depth), dtype=np.intp)


def row_take(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``np.take_along_axis(values, index, axis=1)`` of 2-D arrays, by one flat take (numpy's
    builds two index arrays and gathers through both: 1.7 times the time on 150 x 10,000)."""
    rows = np.arange(len(index), dtype=index.dtype) * values.shape[1]
    return np.take(values, index + rows[:, None])


def _top_depth_block(latent: np.ndarray, depth: int) -> np.ndarray:
    """:func:`top_depth` of a block of rows, 0 < ``depth`` < its width: the partition's
    last ``depth`` of each row (values >= the cut), sorted by value descending. Numpy's
    default sort (not stable, 4 times faster) gives the stable sort's order when no two of
    them are equal; otherwise they are sorted by index first, then stably by value. The
    block's stable sort when a row has more values equal to the cut than fit."""
    part = np.argpartition(latent, latent.shape[1] - depth, axis=1)[:, -depth:]
    values = row_take(latent, part)
    if (np.count_nonzero(latent >= values.min(axis=1)[:, None], axis=1) != depth).any():
        return np.argsort(-latent, axis=1, kind="stable")[:, :depth]
    order = np.argsort(-values, axis=1)
    ranked = row_take(values, order)
    if not (ranked[:, 1:] == ranked[:, :-1]).any():  # no equal values (0.0 and -0.0 are equal)
        return row_take(part, order)
    part.sort(axis=1)  # index order, so that the stable sort below keeps equal values in it
    order = np.argsort(-np.take_along_axis(latent, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)
