"""Student's t and the standard normal through ``scipy.special``, the functions
``scipy.stats`` evaluates for them, without importing ``scipy.stats`` (which costs a
workflow job 0.6-1.5 s, more than most of its analyses).

Each function returns, bit for bit, what the ``scipy.stats`` call named in its docstring
returns for the arguments these modules pass (tests/stats/test_distributions.py):

- t.sf(x, df) = stdtr(df, -x), t.cdf(x, df) = stdtr(df, x), for any x and df (a df <= 0
  or NaN gives NaN in both);
- t.ppf(p, df) = stdtrit(df, p) for 0 < p < 1 (scipy.stats maps p = 0 and 1 to -inf and
  inf itself; callers pass levels strictly inside);
- norm.sf(z) = ndtr(-z), norm.cdf(z) = ndtr(z).
"""

from __future__ import annotations

from scipy import special as _sp


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
