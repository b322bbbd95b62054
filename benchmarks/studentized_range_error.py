"""Relative error of reeval.stats.studentized_range.quantile against scipy.stats.studentized_range.ppf.

    PYTHONPATH=src .venv/bin/python benchmarks/studentized_range_error.py [--grid main near-switch]

Prints one line per (k, df, confidence): the quadrature quantile, scipy's, their relative
difference, and last the worst of them; the worst must stay under
``studentized_range.MEASURED_ERROR`` (the band of ``tukey_hsd_significant`` is
``BAND`` >= 100 times it). Grids: ``main``, k = 2 .. 5,000 runs with df from the blocked
design's smallest (k - 1, two topics) to 2e6, confidences 0.5 .. 0.999 (440 points, about
5 minutes: scipy integrates each quantile); ``near-switch``, df 10,000 .. 99,998, below
scipy's switch to its infinite-df form at 100,000, where scipy's own integration over s
(a peak of width 1 / sqrt(2 df)) is least accurate.
"""

from __future__ import annotations

import argparse
import warnings

GRIDS = ("main", "near-switch")


def points(grid: str):
    """(k, df, confidence) of a grid (module docstring); df >= k - 1, as the workflow's designs give."""
    if grid == "main":
        ks, confidences = (2, 3, 5, 10, 23, 57, 100, 300, 1000, 3000, 5000), (0.5, 0.9, 0.95, 0.99, 0.999)
        dfs = lambda k: sorted({max(1.0, k - 1.0), float(k), 5.0 * (k - 1), 49.0 * (k - 1), 249.0 * (k - 1),
                                99999.0, 100000.0, 2e6})
    else:
        ks, confidences = (2, 4, 10, 50, 143, 700, 2000), (0.6, 0.8, 0.975, 0.995, 0.999)
        dfs = lambda k: [float(d) for d in (10000, 20000, 35000, 50000, 65000, 80000, 90000, 95000, 99000, 99998)]
    for k in ks:
        for df in dfs(k):
            if k - 1 <= df <= 2e6:
                for confidence in confidences:
                    yield k, df, confidence


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", nargs="+", choices=GRIDS, default=list(GRIDS))
    args = ap.parse_args(argv)
    from scipy import stats
    from scipy.integrate import IntegrationWarning

    from reeval.stats import studentized_range as sr

    warnings.simplefilter("ignore", IntegrationWarning)
    worst = (0.0, None)
    for grid in args.grid:
        for k, df, confidence in points(grid):
            mine = sr.quantile(confidence, k, df)
            ref = float(stats.studentized_range.ppf(confidence, k, df))
            err = abs(mine - ref) / ref
            worst = max(worst, (err, (k, df, confidence)), key=lambda w: w[0])
            print(f"{grid}\t{k}\t{df:g}\t{confidence}\t{mine!r}\t{ref!r}\t{err:.3e}", flush=True)
    print(f"worst relative error {worst[0]:.3e} at (k, df, confidence) = {worst[1]}; "
          f"MEASURED_ERROR {sr.MEASURED_ERROR:g}, BAND {sr.BAND:g}")
    if not worst[0] <= sr.MEASURED_ERROR:
        raise SystemExit("the quadrature is further from scipy than MEASURED_ERROR: widen it, and BAND")


if __name__ == "__main__":
    main()
