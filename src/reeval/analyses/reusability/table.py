"""The leave-one-group-out table of a track and its verdict per measure.

:func:`reusability_table` scores every run on the full qrels and without its group
(:mod:`.core`), one row per (run, measure); :func:`verdicts` sums each measure up in one
row: the largest and the mean drop, Kendall's tau between the full ranking and the
left-out ranking (every run scored without its group), and the runs whose inserted rank
(its left-out score among the others' full scores) moves by more than ``places``; whether
the qrels are judged beyond the pool depth (:mod:`.depth`), when the test does not apply.
A drop is the loss the run suffers: score - score_logo for a measure where higher is
better, score_logo - score for one where lower is (ASL). With ``preferences``, the table's
``attrs["preferences"]`` holds lexicographic precision's agreement per group
(:mod:`.preference_agreement`) and each verdict the track's (``lp_agreement``, %, and
``lp_sampled``, the pair-topics compared of ``lp_at_risk``).
"""

from __future__ import annotations

import numpy as np

from reeval.choices import REUSABILITY_PLACES

from .core import logo_ranks, logo_rareness, logo_topic_values, pool_contributions, ranks, run_means, topics_left
from .depth import judged_beyond_depth

#: the columns of :func:`reusability_table`, in order
TABLE_COLUMNS = ("group", "run", "measure", "score", "score_logo", "delta", "rank", "rank_logo",
                 "removed", "removed_relevant")
#: the columns of :func:`verdicts`, in order
VERDICT_COLUMNS = ("measure", "runs", "groups", "pool_depth", "judged_beyond_depth", "max_drop", "max_drop_run",
                   "mean_drop", "kendall_tau_left_out", "places", "rank_changes_inserted", "lp_agreement",
                   "lp_at_risk", "lp_sampled")
#: decimals ``kendall_tau_left_out`` is rounded to: tau-b's square root and division leave a
#: few units in the last place (0.9999999999999999 for two identical rankings with a tie);
#: 12 decimals remove that noise and keep every value tau can take over up to 10**5 runs
#: (its steps are 1 / (n (n - 1) / 2) >= 2e-10)
TAU_DECIMALS = 12


def reusability_table(grid, groups, measures, depth: int = 100, rel_level: int = 1,
                      unretrieved: str = "after_last", version: int = 10, alpha=1.0, systems: str = "all",
                      pooled=None, preferences: bool = False, seed: int = 0):
    """One row per (run, measure) of the runs of ``grid`` (built with ``keep_docno=True``):
    :data:`TABLE_COLUMNS`. ``groups``: run -> group (None: each run alone); ``measures``:
    parsed measures, registered ones and rareness ones (``needs_runs``); ``pooled``: the runs
    that contributed to the pool (None: all). ``attrs`` holds ``depth`` and
    ``higher_is_better`` (per measure), and with ``preferences`` the agreement of
    lexicographic precision (``preferences``: a dict, the track's ``overall``, ``pair_topics``,
    ``at_risk``, ``sampled``, ``seed`` and ``by_group``, the columns of
    :func:`.preference_agreement.preference_agreement` as lists)."""
    import pandas as pd

    from reeval.analyses.rareness.core import add_rareness
    from reeval.measures import aggregate_values, evaluate_grid, family_of

    rare = [m for m in measures if family_of(m).needs_runs]
    plain = [m for m in measures if m not in rare]
    pool = pool_contributions(grid, groups, depth, pooled)
    scores = evaluate_grid(grid, plain, rel_level=rel_level, unretrieved=unretrieved, version=version)
    add_rareness(scores, grid, rare, alpha, rel_level=rel_level, systems=systems)
    full = aggregate_values(scores, measures, complete=True)
    values, relevant_left = logo_topic_values(grid, pool, scores.values, plain, rel_level, unretrieved, version)
    for m in rare:
        values[m.name] = logo_rareness(grid, pool, m, alpha, rel_level, systems)
    logo = run_means(grid, values, measures, topics_left(grid, pool), relevant_left)
    T = grid.shape[1]
    removed = pool.removed(T).sum(axis=1)[pool.run_group]
    removed_rel = pool.removed(T, (grid.qrels_rel >= rel_level) & (grid.qrels_rel >= 0)).sum(axis=1)[pool.run_group]
    group_names = np.array(pool.groups, dtype=object)[pool.run_group]
    frames = []
    for m in measures:
        a, b = np.asarray(full[m.name], dtype=np.float64), logo[m.name]
        frames.append(pd.DataFrame({
            "group": group_names, "run": np.array(grid.runs, dtype=object), "measure": m.name,
            "score": a, "score_logo": b, "delta": b - a,
            "rank": ranks(a, m.higher_is_better), "rank_logo": logo_ranks(a, b, m.higher_is_better),
            "removed": removed, "removed_relevant": removed_rel}))
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(TABLE_COLUMNS))
    table.attrs.update(depth=int(depth), higher_is_better={m.name: bool(m.higher_is_better) for m in measures},
                       beyond_depth=judged_beyond_depth(grid, depth))
    if preferences:
        from .preference_agreement import preference_agreement

        agreement = preference_agreement(grid, pool, rel_level, seed=seed)
        table.attrs["preferences"] = SharedAttr({**agreement.attrs, "by_group": agreement.to_dict("list")})
    return table


class SharedAttr(dict):
    """A dict kept in a DataFrame's ``attrs`` that pandas shares instead of copying: pandas
    deep-copies ``attrs`` into the result of every operation, and ``by_group`` holds lists as
    long as the groups (at 3,000 runs alone, 24 s of deep copies in one reusability job).
    Read it; do not change it in place."""

    def __deepcopy__(self, memo):
        return self


def drops(table, higher_is_better: dict) -> np.ndarray:
    """Each row's drop: score - score_logo (higher is better) or score_logo - score."""
    sign = np.where(table["measure"].map(higher_is_better).astype(bool).to_numpy(), -1.0, 1.0)
    return sign * table["delta"].to_numpy(dtype=np.float64) + 0.0  # no -0.0


def verdicts(table, places: int = REUSABILITY_PLACES):
    """One row per measure (:data:`VERDICT_COLUMNS`): runs, groups, the pool depth, whether
    the qrels are judged beyond it (:func:`.depth.judged_beyond_depth`: then the test does
    not test the collection; NA when ``attrs`` do not say), the largest drop and its run,
    the mean drop over the runs, and the two rankings, named apart:

    - ``kendall_tau_left_out``: Kendall's tau-b between the full ranking and the *left-out
      ranking*, every run ranked by its score without its group (all runs so at once),
      rounded to :data:`TAU_DECIMALS` decimals (a statistic, not a measure: the float noise
      of its computation is no information; NaN stays NaN);
    - ``rank_changes_inserted``: the runs whose *inserted rank* (its score without its
      group placed among the other runs' full scores, as a new system is compared with the
      official runs: ``rank_logo``) differs from its full rank by more than ``places``.

    Then the track's agreement of lexicographic precision when ``attrs`` hold it (else NaN)."""
    import pandas as pd

    from reeval.stats.correlation import kendall_tau

    hib = table.attrs.get("higher_is_better", {})
    pref = table.attrs.get("preferences")
    lp = ({"lp_agreement": pref["overall"], "lp_at_risk": pref["at_risk"], "lp_sampled": pref["sampled"]}
          if pref is not None
          else {"lp_agreement": np.nan, "lp_at_risk": np.nan, "lp_sampled": np.nan})
    beyond = table.attrs.get("beyond_depth")
    rows = []
    for measure, part in table.groupby("measure", sort=False):
        d = drops(part, hib)
        top = int(np.nanargmax(d)) if np.isfinite(d).any() else None
        moved = np.abs(part["rank_logo"].to_numpy() - part["rank"].to_numpy()) > places
        rows.append({"measure": measure, "runs": len(part), "groups": part["group"].nunique(),
                     "pool_depth": table.attrs.get("depth"),
                     "judged_beyond_depth": beyond.judged_beyond if beyond is not None else pd.NA,
                     "max_drop": float(d[top]) if top is not None else np.nan,
                     "max_drop_run": part["run"].iloc[top] if top is not None else None,
                     "mean_drop": float(np.nanmean(d)) if np.isfinite(d).any() else np.nan,
                     "kendall_tau_left_out": round(kendall_tau(part["score"].to_numpy(), part["score_logo"].to_numpy()),
                                                   TAU_DECIMALS),
                     "places": int(places), "rank_changes_inserted": int(moved.sum()), **lp})
    return pd.DataFrame(rows, columns=list(VERDICT_COLUMNS))
