"""Numbers and claims in the lexiprecision paper's text, as comparison rows.

From ``published.yaml`` (key ``lexiprecision_text``):

- relevant items retrieved per submission, mean +- sd, for DL 2021, web, robust and ml-1m
  (section 4, figure 5's discussion): each needs every benchmark of its group
  (:data:`RETRIEVED_GROUPS`) held by a track with the benchmark's runs and requests; held,
  ours is the mean and standard deviation over every ranking (run x request) of the group
  (table 1's profile, pooled), ``exact at an inferred setting`` when it prints the paper's
  (the paper does not say which standard deviation: ours the population's, the sample's
  beside) else ``differs``; otherwise ``data not here``, ours beside over the group's
  benchmarks held in part;
- the claim on figure 6 that fewer than ten recall levels capture 90% of the pairs, for
  each benchmark: per track mapped to a benchmark (``lexiprecision.paper``) that has
  figure 6's table, the smallest
  i* whose ECDF reaches 0.9 (``fig6_i_star_ecdf``, at the study's relevance level). On the
  benchmark's data (its runs and requests) the claim holds (``exact``) or not
  (``differs``); on part of them, ``data not here`` with ours beside.
"""

from __future__ import annotations

import math

import pandas as pd

from .cells import DIFFERS, EXACT, INFERRED, NOT_HERE, cell, frame
from .published import published

STUDY = "lexiprecision"
ITEM = "text"
#: the benchmarks behind each group the text gives relevant items retrieved for
RETRIEVED_GROUPS = {"DL 2021": ("deep-docs (2021)", "deep-pass (2021)"),
                    "web": tuple(f"web ({year})" for year in range(2009, 2015)),
                    "robust": ("robust (2004)",), "ml-1m": ("ml-1M (2018)",)}


def pooled_retrieved(profile: pd.DataFrame, tracks) -> tuple[float, float, float]:
    """(mean, population sd, sample sd) of the relevant documents retrieved per ranking over
    every ranking of ``tracks``, from each track's profile row (runs x requests rankings,
    ``rel_retrieved_per_ranking`` and ``rel_retrieved_sd_per_ranking``): the pooled mean
    sum(n m) / N, the population variance sum(n (s^2 + m^2)) / N - mean^2, the sample's
    that times N / (N - 1). NaNs without a ranking."""
    p = profile[profile.track.isin(list(tracks))] if len(profile) else profile
    if p.empty or "rel_retrieved_sd_per_ranking" not in p:
        return math.nan, math.nan, math.nan
    n = (p.runs * p.requests).to_numpy(dtype=float)
    m, s = p.rel_retrieved_per_ranking.to_numpy(dtype=float), p.rel_retrieved_sd_per_ranking.to_numpy(dtype=float)
    total = n.sum()
    if total <= 0:
        return math.nan, math.nan, math.nan
    mean = float((n * m).sum() / total)
    var = max(float((n * (s ** 2 + m ** 2)).sum() / total) - mean ** 2, 0.0)
    return mean, math.sqrt(var), math.sqrt(var * total / (total - 1)) if total > 1 else math.nan


def _retrieved_rows(mapped: dict, sufficient: dict, profile: pd.DataFrame) -> list:
    """The relevant-items-retrieved rows (module doc)."""
    rows = []
    for r in published("lexiprecision_text")["relevant_retrieved"]:
        group = RETRIEVED_GROUPS[r["benchmark"]]
        tracks = [t for t, b in mapped.items() if b in group]
        whole = {mapped[t] for t in tracks if sufficient.get(t, (False, ""))[0]}
        where = dict(needs=r["needs"],
                     to_add="its qrels and runs under `tracks:` and `lexiprecision: {paper: {<track>: <label>}}`")
        mean, sd, sample_sd = pooled_retrieved(profile, tracks)
        if math.isnan(mean):
            rows.append(cell(STUDY, ITEM, "relevant items retrieved per submission (mean +- sd)", r["benchmark"],
                             r["printed"], NOT_HERE, f"needs {r['needs']}", **where))
            continue
        ours = f"{mean:.2f} +- {sd:.2f}"
        if whole == set(group):
            status = INFERRED if ours == r["printed"] else DIFFERS
            note = f"ours {ours} over {', '.join(group)}"
        else:
            status, note = NOT_HERE, f"ours {ours} over {', '.join(sorted({mapped[t] for t in tracks}))} (in part); " \
                                     f"needs {r['needs']}"
        out = cell(STUDY, ITEM, "relevant items retrieved per submission (mean +- sd)", r["benchmark"], r["printed"],
                   status, note, ours=mean, digits=2, track=", ".join(tracks),
                   method="mean and standard deviation (population; inferred: the paper does not say which) of "
                          "the relevant documents retrieved per ranking (run x request), pooled over the "
                          "group's benchmarks, at the benchmark's relevance level",
                   other_setting="sample standard deviation", other_value=f"{mean:.2f} +- {sample_sd:.2f}",
                   **where)
        out["reproduced"] = ours
        rows.append(out)
    return rows


def i_star_covering(ecdf: pd.DataFrame, track: str, share: float) -> float:
    """The smallest i* whose ECDF (``fig6_i_star_ecdf``: track, i_star, ecdf) reaches
    ``share`` on ``track``; NaN without such a row."""
    e = ecdf[(ecdf.track == track) & (ecdf.ecdf >= share - 1e-12)] if len(ecdf) else ecdf
    return float(e.i_star.min()) if len(e) else math.nan


def text_rows(mapped: dict, ecdf: pd.DataFrame, sufficient: dict, profile: pd.DataFrame | None = None) -> pd.DataFrame:
    """The text's rows (module doc). ``mapped``: track -> benchmark label; ``sufficient``:
    track -> (whether its data are the benchmark's, the share said); ``profile``: the
    lexiprecision profile table (table 1, per track)."""
    ref = published("lexiprecision_text")
    rows = _retrieved_rows(mapped, sufficient, profile if profile is not None else pd.DataFrame())
    claim = ref["i_star_claim"]
    for track, benchmark in mapped.items():
        ours = i_star_covering(ecdf, track, claim["share"])
        if math.isnan(ours):   # figure 6 not computed for this track (no pair, or no table)
            continue
        enough, share = sufficient.get(track, (False, "runs and requests unknown"))
        said = f"{int(ours)} recall levels capture {claim['share']:.0%} of the non-tied pairs"
        holds = ours < claim["levels"]
        if not enough:
            status, note = NOT_HERE, f"on {share}: {said}; needs the whole {benchmark}"
        else:
            status = EXACT if holds else DIFFERS
            note = f"{said}: the claim {'holds' if holds else 'does not hold'} on {benchmark}"
        rows.append(cell(STUDY, ITEM, "figure 6: recall levels capturing 90% of the pairs", benchmark,
                         claim["printed"], status, note, ours=ours, digits=0, track=track,
                         method=f"smallest i* whose ECDF reaches {claim['share']:g} (fig6_i_star_ecdf), at the "
                                "study's relevance level (lexiprecision.relevance_level, else the track's; the "
                                "paper does not state it)"))
    return frame(rows)
