"""The technique reanalysis of the ASL study (paper section 5): per group of runs, the relative
improvement of each technique over its baseline, for P@20, ASL@g1-10, MAP and ASL.
"""

from __future__ import annotations

import fnmatch
import math

import pandas as pd

from reeval.workflow.config_check import ConfigError

from .study import HEADROOM_MEASURES, headroom

#: :func:`technique_table` (``techniques.parquet``)
TECHNIQUE_COLUMNS = ("track", "group", "baseline", "measure", "value", "run", "baseline_value",
                     "rrie", "n_runs")


def label_runs(runs, groups: dict) -> dict:
    """run -> group for the runs matching a group's fnmatch patterns (``p_bm25*``).

    A run matching no group is unlabelled (absent); one matching two groups raises
    ConfigError (a ValueError) naming it.
    """
    out = {}
    for group, patterns in groups.items():
        for run in runs:
            if any(fnmatch.fnmatchcase(str(run), pat) for pat in patterns):
                if run in out and out[run] != group:
                    raise ConfigError(f"study.techniques: run {run!r} matches groups {out[run]!r} and {group!r}")
                out[run] = group
    return out


def rrie(baseline: float, other: float, higher_is_better: bool) -> float:
    """Relative reduction in error from ``baseline`` to ``other`` (paper eq. 11-12).

    Rates (P@20, MAP; optimum 1): ((1 - b) - (1 - o)) / (1 - b). Search lengths (ASL,
    ASL@g1-10; optimum 1): ((b - 1) - (o - 1)) / (b - 1). NaN when the baseline is
    already optimal (zero error).
    """
    err_b, err_o = (1.0 - baseline, 1.0 - other) if higher_is_better else (baseline - 1.0, other - 1.0)
    return (err_b - err_o) / err_b if err_b != 0 else math.nan


def technique_table(by_run: pd.DataFrame, spec: dict, track: str = "") -> pd.DataFrame:
    """Table 1 of the paper for one track: best run of each labelled group and the RRIE
    from the baseline group to every other group, for P@20, ASL@g1-10, MAP and ASL.

    ``spec``: ``{"baseline": group, "groups": {group: [run patterns]}}``. One row per
    (group, measure): value and run of the group's best (measure by measure, as
    :func:`headroom` picks), baseline value, rrie (NaN for the baseline row), n_runs
    (columns :data:`TECHNIQUE_COLUMNS`). A group with no matching run has NaN values.
    """
    groups = spec["groups"]
    baseline = spec["baseline"]
    if baseline not in groups:
        raise ValueError(f"track {track}: baseline {baseline!r} is not one of the groups {list(groups)}")
    labels = label_runs(by_run["run"].tolist(), groups)
    lab = by_run["run"].map(labels)
    best = {g: headroom(by_run[lab == g], track) for g in groups}
    rows = []
    for g in groups:
        for m, higher in HEADROOM_MEASURES:
            v, b = best[g][m], best[baseline][m]
            rows.append({"track": track, "group": g, "baseline": baseline, "measure": m,
                         "value": v, "run": best[g][f"{m}_run"], "baseline_value": b,
                         "rrie": math.nan if g == baseline else rrie(b, v, higher),
                         "n_runs": int((lab == g).sum())})
    return pd.DataFrame(rows, columns=TECHNIQUE_COLUMNS)
