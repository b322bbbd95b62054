"""Significance of lexicographic precision's pairs (the paper's tables 4a and 4b): per run pair
the paired tests of RR, rrLP and sgnLP adjusted over the pairs, Tukey's HSD (randomised or
parametric) and the discriminative power they add up to.

Reads the pairs of :mod:`reeval.analyses.lexiprecision.core` (:class:`PairComparison`, or its
sums per pair folded block by block in :mod:`reeval.analyses.lexiprecision.pairblocks`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .core import PairComparison, mean_preference_scores, pair_sums

#: The measures whose pairs are tested: RR and the two preferences.
MEASURES = ("RR", "rrLP", "sgnLP")
#: The measures compared only between two rankings (preferences).
PREFERENCES = ("rrLP", "sgnLP")


#: Tukey HSD procedures of table 4a: the randomised HSD (Carterette 2012, the default) or
#: the parametric one, topic-blocked or one-way (reeval.stats.allpairs.HSD_DESIGNS).
HSD_PROCEDURES = ("randomised", "blocked", "oneway")


def hsd_p_values(pc: PairComparison, rr: np.ndarray, resamples: int, seed: int,
                 measures=MEASURES) -> dict:
    """Randomised Tukey HSD p-values per run pair (pairs in ``pc`` order) of RR (on the
    runs x topics matrix) and of rrLP and sgnLP (on the pairwise preferences: rankings
    permuted among runs within each topic, reeval.stats.randomised). ``pc`` needs only
    ``rr`` and ``sgn`` (pairs x topics) for the preference measures among ``measures``.
    The measures draw the same permutations (one seed, the same runs and topics): drawn once
    and shared when they fit (:func:`reeval.stats.randomised.drawn_permutations`)."""
    from reeval.stats.randomised import (drawn_permutations, randomised_tukey_hsd,
                                         randomised_tukey_hsd_preferences)

    S, T = rr.shape if isinstance(rr, np.ndarray) and rr.ndim == 2 else (0, 0)
    perms = drawn_permutations(seed, resamples, T, S) if len(measures) > 1 and S >= 2 and T else None
    compute = {"RR": lambda: randomised_tukey_hsd(rr, resamples=resamples, seed=seed, permutations=perms),
               "rrLP": lambda: randomised_tukey_hsd_preferences(pc.rr, resamples=resamples, seed=seed,
                                                                permutations=perms),
               "sgnLP": lambda: randomised_tukey_hsd_preferences(pc.sgn.astype(np.float64),
                                                                 resamples=resamples, seed=seed,
                                                                 permutations=perms)}
    return {name: compute[name]().p_value.to_numpy() for name in measures}


def preference_scores(pc: PairComparison) -> dict:
    """{"rrLP": ..., "sgnLP": ...}: :func:`mean_preference_scores` of both preferences."""
    return {"rrLP": mean_preference_scores(pc, pc.rr),
            "sgnLP": mean_preference_scores(pc, pc.sgn.astype(np.float64))}


def parametric_hsd(scores: dict, alpha: float, design: str) -> dict:
    """Parametric Tukey HSD verdicts (q > q_crit at confidence 1 - alpha, the same as
    p < alpha) of each runs x topics matrix of ``scores`` (RR, and the mean-preference
    scores of rrLP and sgnLP: :func:`preference_scores`)."""
    from reeval.stats.allpairs import tukey_hsd_significant

    return {name: tukey_hsd_significant(X, confidence=1.0 - alpha, design=design) for name, X in scores.items()}


def hsd_verdicts(pc: PairComparison, rr: np.ndarray, alpha: float = 0.05, design: str = "randomised",
                 resamples: int = 2000, seed: int = 0) -> dict:
    """{measure: bool per pair}: significant at ``alpha`` under Tukey's HSD ``design``
    (one of :data:`HSD_PROCEDURES`; ``resamples`` and ``seed`` matter to "randomised")."""
    if design not in HSD_PROCEDURES:
        raise ValueError(f"hsd_design must be one of {HSD_PROCEDURES}, got {design!r}")
    if design != "randomised":
        return parametric_hsd({"RR": rr, **preference_scores(pc)}, alpha, design)
    return {name: p < alpha for name, p in hsd_p_values(pc, rr, resamples, seed).items()}


def pair_tests(pc: PairComparison, rr: np.ndarray, alpha: float = 0.05,
               correction: str = "holm", hsd_design: str = "randomised", hsd_resamples: int = 2000,
               hsd_seed: int = 0) -> pd.DataFrame:
    """Significance of every run pair (i < j) under RR, rrLP and sgnLP.

    Columns: run_i, run_j, topics, mean_dRR1 (= mean RR_i - mean RR_j), mean_rrLP,
    mean_sgnLP, wins/losses/ties (sgnLP +1/-1/0 topics); two-sided paired tests ``p_RR``
    (paired t-test on RR, reeval.stats.allpairs.all_pairs_ttest), ``p_rrLP`` (one-sample
    t-test of the per-topic rrLP against 0), ``p_sgnLP`` (binomial sign test on wins vs
    losses, ties dropped), each adjusted over the family of all run pairs of the
    measure (``*_adjusted``, ``correction``: "bonferroni", "holm" or "bh", see
    reeval.stats.multiple.p_adjust); and ``hsd_<measure>``: significant at ``alpha``
    under Tukey's HSD (:func:`hsd_verdicts`). ``hsd_design="randomised"`` (default): the
    randomised HSD with ``hsd_resamples`` permutations from ``hsd_seed``, on RR and on the
    pairwise preferences rrLP and sgnLP (reeval.stats.randomised); "blocked" or "oneway":
    the parametric HSD (reeval.stats.allpairs.tukey_hsd) of RR and of the mean-preference
    scores (:func:`mean_preference_scores`).
    """
    return pair_tests_from(pc.runs, pc.ii, pc.jj, len(pc.topics), pair_sums(pc), rr, correction,
                           lambda: hsd_verdicts(pc, rr, alpha, hsd_design, hsd_resamples, hsd_seed))


def pair_tests_from(runs, ii, jj, n_topics: int, sums: dict, rr: np.ndarray, correction: str,
                    verdicts) -> pd.DataFrame:
    """:func:`pair_tests` from the :func:`pair_sums` of every pair (``ii``, ``jj``) and a
    function ``verdicts()`` giving the HSD verdicts (called only when there are pairs and
    topics)."""
    from reeval.stats.allpairs import all_pairs_ttest
    from reeval.stats.multiple import p_adjust
    from reeval.stats.paired import sign_test_counts

    T = n_topics
    names = np.array(runs, dtype=object)
    out = pd.DataFrame({"run_i": names[ii], "run_j": names[jj], "topics": T,
                        "mean_dRR1": sums["dRR1"] / T if T else np.nan,
                        "mean_rrLP": sums["rrLP"] / T if T else np.nan,
                        "mean_sgnLP": sums["sgnLP"] / T if T else np.nan,
                        "wins": sums["wins"], "losses": sums["losses"], "ties": sums["ties"]})
    if ii.size == 0 or T == 0:
        for name in MEASURES:
            out[f"p_{name}"] = out[f"p_{name}_adjusted"] = np.nan
            out[f"hsd_{name}"] = False
        return out
    out["p_RR"] = all_pairs_ttest(rr)["p_value"].to_numpy()
    out["p_rrLP"] = sums["p_rrLP"]
    out["p_sgnLP"] = sign_test_counts(out["wins"], out["losses"])
    for name in MEASURES:
        out[f"p_{name}_adjusted"] = p_adjust(out[f"p_{name}"].to_numpy(), correction)
    for name, verdict in verdicts().items():
        out[f"hsd_{name}"] = verdict
    return out


def hsd_seed_range(pc: PairComparison, rr: np.ndarray, alpha: float, resamples: int, seeds,
                   measures=MEASURES) -> dict:
    """{measure: (fewest, most)} run pairs significant under the randomised HSD over the
    ``seeds`` (the spread of table 4a's Monte Carlo counts), for each of ``measures``."""
    counts = {name: [] for name in measures}
    if pc.n_pairs and len(pc.topics):
        for seed in seeds:
            for name, p in hsd_p_values(pc, rr, resamples, seed, measures).items():
                counts[name].append(int((p < alpha).sum()))
    return {name: (min(c), max(c)) if c else (0, 0) for name, c in counts.items()}


def discriminative_power(tests: pd.DataFrame, alpha: float = 0.05, correction: str = "holm",
                         hsd_design: str = "randomised", hsd_resamples: int = 2000,
                         seed_range: dict | None = None, n_seeds: int = 1, also=()) -> pd.DataFrame:
    """Table 4 from :func:`pair_tests` (run with the same ``correction``, ``hsd_design``
    and ``hsd_resamples``, recorded in the ``procedure`` and ``resamples`` columns): share
    (%) of run pairs significantly different, (a) ``tukey_hsd`` and (b) ``paired``
    (adjusted p < alpha).

    ``n_significant_low``/``_high`` and ``percent_low``/``_high``: for the randomised HSD
    the range of the count over the tests' seed and the other seeds whose range
    ``seed_range`` holds (:func:`hsd_seed_range`), ``n_seeds`` in all (column ``seeds``;
    ``resamples`` is B); for the other procedures the count itself (``resamples`` 0,
    ``seeds`` 1). ``also``: further corrections of the paired tests, each a row per measure
    after the ones of ``correction`` (their p-values adjusted from the tests' raw ones), so a
    comparison can show another method beside the configured one."""
    from reeval.stats.multiple import p_adjust

    P = len(tests)
    rows = []
    randomised = hsd_design == "randomised"
    procedures = [("tukey_hsd", hsd_design), ("paired", correction)]
    procedures += [("paired", c) for c in also if c != correction]
    for test, procedure in procedures:
        for name in MEASURES:
            if P == 0:
                k = 0
            elif test == "tukey_hsd":
                k = int(tests[f"hsd_{name}"].sum())
            elif procedure == correction:
                k = int((tests[f"p_{name}_adjusted"] < alpha).sum())
            else:
                k = int((p_adjust(tests[f"p_{name}"].to_numpy(), procedure) < alpha).sum())
            monte_carlo = test == "tukey_hsd" and randomised
            other = (seed_range or {}).get(name, (k, k)) if monte_carlo else (k, k)
            low, high = min(k, *other), max(k, *other)
            rows.append({"test": test, "procedure": procedure, "measure": name, "n_run_pairs": P,
                         "n_significant": k, "percent_significant": _percent(k, P),
                         "n_significant_low": low, "n_significant_high": high,
                         "percent_low": _percent(low, P), "percent_high": _percent(high, P),
                         "resamples": hsd_resamples if monte_carlo else 0,
                         "seeds": n_seeds if monte_carlo and seed_range else 1})
    return pd.DataFrame(rows)


def _percent(k: int, n: int) -> float:
    return 100.0 * k / n if n else math.nan
