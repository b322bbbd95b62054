"""Student's t and the standard normal through ``scipy.special``, the functions
``scipy.stats`` evaluates for them, without importing ``scipy.stats`` (which costs a
workflow job 0.6-1.5 s, more than most of its analyses).

Each function returns, bit for bit, what the ``scipy.stats`` call named in its docstring
returns for the arguments these modules pass (tests/stats/test_distributions.py):

- t.sf(x, df) = stdtr(df, -x), t.cdf(x, df) = stdtr(df, x), for any x and df (a df <= 0
  or NaN gives NaN in both);
- t.ppf(p, df) = stdtrit(df, p) for 0 < p < 1 (scipy.stats maps p = 0 and 1 to -inf and
  inf itself; callers pass levels strictly inside);
- norm.sf(z) = ndtr(-z), norm.cdf(z) = ndtr(z);
- binom.sf(k, n, p) and binom.cdf(k, n, p) for integer k and n >= 0 (what the sign test
  passes): scipy.stats' own bounds (sf = 1 below k = 0, cdf = 1 from k = n on) around the
  ufuncs its ``binom._sf`` / ``binom._cdf`` call (``scipy.special._ufuncs._binom_sf`` /
  ``_binom_cdf``, Boost's binomial), clipped to [0, 1] as it clips them.
"""

from __future__ import annotations

import numpy as np
from scipy import special as _sp
from scipy.special import _ufuncs


def t_sf(x, df):
    """P(T_df > x): ``scipy.stats.t.sf(x, df)``."""
    return _sp.stdtr(df, -x)


def t_cdf(x, df):
    """P(T_df <= x): ``scipy.stats.t.cdf(x, df)``."""
    return _sp.stdtr(df, x)


def t_ppf(p, df):
    """The p-quantile of T_df, 0 < p < 1: ``scipy.stats.t.ppf(p, df)``."""
    return _sp.stdtrit(df, p)


def norm_sf(z):
    """P(Z > z): ``scipy.stats.norm.sf(z)``."""
    return _sp.ndtr(-z)


def norm_cdf(z):
    """P(Z <= z): ``scipy.stats.norm.cdf(z)``."""
    return _sp.ndtr(z)


def binom_sf(k, n, p):
    """P(K > k), K ~ Binomial(n, p), integer k and n >= 0: ``scipy.stats.binom.sf(k, n, p)``."""
    k, n = np.asarray(k), np.asarray(n)
    inside = np.clip(_ufuncs._binom_sf(np.floor(k), n, p), 0.0, 1.0)
    return np.where(k < 0, 1.0, np.where(k >= n, 0.0, inside))


def binom_cdf(k, n, p):
    """P(K <= k), K ~ Binomial(n, p), integer k and n >= 0: ``scipy.stats.binom.cdf(k, n, p)``."""
    k, n = np.asarray(k), np.asarray(n)
    inside = np.clip(_ufuncs._binom_cdf(np.floor(k), n, p), 0.0, 1.0)
    return np.where(k >= n, 1.0, np.where(k < 0, 0.0, inside))
