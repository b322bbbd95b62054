"""The checks of the statistics functions' arguments: one :class:`reeval.InputError` line
naming the argument and the value, before any computation (never a raw numpy error).

- seeds: integers from 0 to 2^63 - 1 (``numpy.random.default_rng`` takes no negative
  seed; a float such as 1.5 is refused, not truncated);
- resamples: integers from 1 to 10^9 (a string such as ``"100"`` is refused);
- scores and p-values: numbers (a string is refused, not parsed); p-values in [0, 1] or NaN.

The bounds are those of the command line's ``--seed`` and ``--resamples``
(:data:`reeval.choices.INTEGER_BOUNDS`).
"""

from __future__ import annotations

import numpy as np

from reeval.choices import integer_problem
from reeval.errors import InputError


def check_seed(seed, name: str = "seed") -> int:
    """``seed`` as an int: an integer from 0 to 2^63 - 1, else InputError."""
    problem = integer_problem("seed", seed)
    if problem:
        raise InputError(f"{name} {problem}; got {seed!r}")
    return int(seed)


def check_resamples(n, name: str = "n_resamples") -> int:
    """``n`` as an int: an integer from 1 to 10^9, else InputError."""
    problem = integer_problem("resamples", n)
    if problem:
        raise InputError(f"{name} {problem}; got {n!r}")
    return int(n)


def numbers(values, what: str) -> np.ndarray:
    """``values`` as a float64 array; InputError naming ``what`` for text (``"0.5"``), bytes
    or anything else that is not a number."""
    array = np.asarray(values)
    if array.dtype.kind in "USV" or (array.dtype.kind == "O" and any(
            isinstance(v, (str, bytes)) for v in array.ravel())):
        example = next(v for v in array.ravel() if not isinstance(v, (int, float, np.number)))
        raise InputError(f"{what}: expected numbers, got {getattr(example, 'item', lambda: example)()!r}")
    try:
        return np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what}: expected numbers") from None


def probabilities(p, what: str = "p-values") -> np.ndarray:
    """``p`` as a float64 array of values in [0, 1] (NaN allowed: not a p-value), else InputError."""
    p = numbers(p, what)
    bad = ~np.isnan(p) & ((p < 0) | (p > 1))
    if bad.any():
        raise InputError(f"{what} must be in [0, 1] (or NaN); got {float(p[bad].ravel()[0])!r}")
    return p
