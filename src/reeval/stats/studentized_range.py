"""The studentized range's upper quantile by quadrature (numpy and ``scipy.special``),
without importing ``scipy.stats`` (0.6-1.5 s of CPU), for Tukey's HSD verdict q > q_crit.

Q_{k,df} = W / s: W the range of k standard normals, s = chi_df / sqrt(df) independent of
it. With R(x) = P(W <= x) = k * integral phi(z) [Phi(z + x) - Phi(z)]^(k-1) dz and g the
density of u = ln s, g(u) proportional to exp(df u - df e^(2u) / 2) (peak at u = 0):

    P(Q <= q) = integral g(u) R(q e^u) du        (df < 100,000)
    P(Q <= q) = R(q)                             (df >= 100,000)

the second as ``scipy.stats.studentized_range``, which switches to the infinite-df form at
df = 100,000: its quantiles are the reference here, not the exact distribution's.
Both integrals are composite Gauss-Legendre (``Z_PANELS``, ``U_PANELS``): z over the
interval that holds the minimum of k normals but for 1e-17 at each end (outside it the
integrand, at most the minimum's density, adds less); u over the interval where g is above
e^-40 of its peak, in panels at most 1.5 of u's standard deviations 1 / sqrt(2 df) wide
(24 panels at df = 1), g's weights normalised to sum 1 (no gamma function, no cancellation
at large df). The quantile: Newton's method on ln q from the infinite-df quantile, each step
at most a factor e^2, bisected inside the bracket when it leaves it; about 10 evaluations,
5-15 ms in all (scipy: 0.1-0.7 s).

Error: measured against ``scipy.stats.studentized_range.ppf`` by
benchmarks/studentized_range_error.py (2026-11-28), its main grid of 440 points (k = 2 ..
5,000; df from k - 1, the blocked design's smallest, to 2e6; confidence 0.5 .. 0.999),
59 points of its near-switch grid (k = 2 and 4, df 10,000 .. 99,998) and 18 more there
(k = 10, 143, 2,000; df 50,000, 95,000, 99,998; 0.975, 0.999): the worst relative
difference is 5.4e-9 (k = 2, df = 99,998, confidence 0.999), all the worst ones at df
near 100,000 and confidence 0.999, where scipy integrates over s a peak of width 0.002;
elsewhere below 1e-10.
``MEASURED_ERROR`` is that bound rounded up, ``BAND`` = 100 times it; ``validated`` names
the domain of the measurement (tests/stats/test_studentized_range.py repeats 11 points).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special as _sp

#: scipy's switch to the infinite-df form (``studentized_range._cdf``: df < 100000 integrates over s).
ASYMPTOTIC_DF = 100_000

#: The worst relative error |quantile - scipy's| / scipy's measured over the validated domain
#: (5.4e-9, module docstring), rounded up.
MEASURED_ERROR = 1e-8

#: A q within this relative distance of the quadrature quantile is decided by scipy's own
#: quantile: 100 times :data:`MEASURED_ERROR`.
BAND = 1e-6

#: The domain over which :data:`MEASURED_ERROR` was measured (with df >= k - 1); outside it
#: scipy decides every pair.
VALIDATED_K = (2, 5000)
VALIDATED_DF = (1, 2e6)
VALIDATED_CONFIDENCE = (0.5, 0.999)


def _panels(lo: float, hi: float, panels: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of composite Gauss-Legendre on [lo, hi]: ``panels`` equal panels of ``nodes`` points."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    edges = np.linspace(lo, hi, panels + 1)
    half = np.diff(edges)[:, None] / 2
    return ((edges[:-1, None] + half * (x + 1)).ravel(), (half * w).ravel())


#: panels and nodes per panel of the z and u = ln s quadratures
Z_PANELS, U_PANELS = (8, 16), (16, 10)
#: the widest u panel, in standard deviations 1 / sqrt(2 df) of u near its peak
U_WIDTH = 1.5

#: what the truncation of each integral may leave out (a probability)
TAIL = 1e-17


@functools.lru_cache(maxsize=32)
def _z_nodes(k: int) -> tuple[np.ndarray, np.ndarray]:
    """(z, phi(z) x weight) over [a, b], the range where the minimum of k standard normals lies
    but for TAIL at each end: k Phi(a) = TAIL, (1 - Phi(b))^k = TAIL; outside it the
    integrand of R, at most k phi(z) (1 - Phi(z))^(k-1), the minimum's density, adds < TAIL."""
    a = float(_sp.ndtri(TAIL / k))
    b = float(_sp.ndtri(-math.expm1(math.log(TAIL) / k)))
    z, w = _panels(a, b, *Z_PANELS)
    return z, np.exp(-z * z / 2) / math.sqrt(2 * math.pi) * w


def _range_cdf_pdf(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(R(x), R'(x)) of the range of k standard normals at each x >= 0 (array):
    R = k int phi(z) D^(k-1) dz, R' = k (k-1) int phi(z) phi(z + x) D^(k-2) dz,
    D = Phi(z + x) - Phi(z), taken from the upper tails where z + x/2 > 0 (no cancellation)."""
    zn, phi_w = _z_nodes(k)
    z = zn[None, :]
    xx = np.asarray(x, dtype=np.float64)[:, None]
    upper = z + xx / 2 > 0
    d = np.where(upper, _sp.ndtr(-z) - _sp.ndtr(-z - xx), _sp.ndtr(z + xx) - _sp.ndtr(z))
    d = np.maximum(d, 0.0)
    dk2 = d ** (k - 2)
    cdf = k * (dk2 * d) @ phi_w
    phi_zx = np.exp(-np.minimum((z + xx) ** 2, 1e4) / 2) / math.sqrt(2 * math.pi)
    pdf = k * (k - 1) * (dk2 * phi_zx) @ phi_w
    return cdf, pdf


def _log_s_tail(df: float, side: float, drop: float = 40.0) -> float:
    """u on the ``side`` (-1 or 1) of 0 where df (u - (e^(2u) - 1) / 2), the log density of
    u = ln s relative to its peak at 0, falls to -``drop`` (bisection)."""
    def below(u):
        return df * (u - math.expm1(2 * u) / 2) < -drop
    lo, hi = 0.0, side
    while not below(hi):
        lo, hi = hi, hi * 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if below(mid) else (mid, hi)
    return hi


@functools.lru_cache(maxsize=32)
def _log_s_nodes(df: float) -> tuple[np.ndarray, np.ndarray]:
    """(e^u, weights) of the u = ln s quadrature for df, the weights g(u) du normalised to sum 1."""
    lo, hi = _log_s_tail(df, -1.0), _log_s_tail(df, 1.0)
    panels = max(U_PANELS[0], math.ceil((hi - lo) * math.sqrt(2 * df) / U_WIDTH))
    u, w = _panels(lo, hi, panels, U_PANELS[1])
    logg = df * (u - np.expm1(2 * u) / 2)
    w = w * np.exp(logg - logg.max())
    return np.exp(u), w / w.sum()


def cdf_pdf(q: float, k: int, df: float) -> tuple[float, float]:
    """(P(Q_{k,df} <= q), its density at q) by the quadrature of the module docstring, q > 0."""
    if df >= ASYMPTOTIC_DF:
        c, p = _range_cdf_pdf(np.array([q]), k)
        return float(c[0]), float(p[0])
    s, w = _log_s_nodes(float(df))
    c, p = _range_cdf_pdf(q * s, k)
    return float(c @ w), float((p * s) @ w)


@functools.lru_cache(maxsize=64)
def quantile(confidence: float, k: int, df: float) -> float:
    """q with P(Q_{k,df} <= q) = confidence, 0 < confidence < 1, cached: Newton's method on
    v = ln q with :func:`cdf_pdf` (dP/dv = q x density), from the infinite-df quantile (or q =
    1 for it), a step at most 2 (a factor e^2); the values of v seen below and above the
    root bracket it, and a step that leaves the bracket bisects it instead. Stops when a step
    is below 1e-13 (a relative change of q of 1e-13) or P equals ``confidence``."""
    v = math.log(_start(confidence, k)) if df < ASYMPTOTIC_DF else 0.0
    lo, hi = -math.inf, math.inf      # bracket of v = ln q
    for _ in range(100):
        q = math.exp(v)
        c, p = cdf_pdf(q, k, df)
        if c == confidence:
            return q
        lo, hi = (v, hi) if c < confidence else (lo, v)
        step = (c - confidence) / (p * q) if p > 0 else math.copysign(math.inf, c - confidence)
        new = v - max(-2.0, min(2.0, step))       # at most a factor e^2 at once
        if abs(new - v) <= 1e-13:
            return math.exp(new)
        if not lo < new < hi:
            new = (lo + hi) / 2
        v = new
    return math.exp(v)


def _start(confidence: float, k: int) -> float:
    """The infinite-df quantile: where Newton's method starts for a finite df (a cheap
    quadrature: one s node)."""
    return quantile(confidence, k, math.inf)


def validated(confidence: float, k: int, df: float) -> bool:
    """Whether (confidence, k, df) lies in the domain where :data:`MEASURED_ERROR` was measured."""
    return (VALIDATED_CONFIDENCE[0] <= confidence <= VALIDATED_CONFIDENCE[1]
            and VALIDATED_K[0] <= k <= VALIDATED_K[1] and max(VALIDATED_DF[0], k - 1) <= df <= VALIDATED_DF[1])
