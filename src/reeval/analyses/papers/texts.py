"""Numbers and claims in the lexiprecision paper's text, as comparison rows.

From ``published.yaml`` (key ``lexiprecision_text``):

- relevant items retrieved per submission, mean +- sd, for DL 2021, web, robust and ml-1m
  (section 4, figure 5's discussion): ``data not here`` unless a track stands for one of
  them (none of ../shared/data does);
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

from .cells import DIFFERS, EXACT, NOT_HERE, cell, frame
from .published import published

STUDY = "lexiprecision"
ITEM = "text"


def i_star_covering(ecdf: pd.DataFrame, track: str, share: float) -> float:
    """The smallest i* whose ECDF (``fig6_i_star_ecdf``: track, i_star, ecdf) reaches
    ``share`` on ``track``; NaN without such a row."""
    e = ecdf[(ecdf.track == track) & (ecdf.ecdf >= share - 1e-12)] if len(ecdf) else ecdf
    return float(e.i_star.min()) if len(e) else math.nan


def text_rows(mapped: dict, ecdf: pd.DataFrame, sufficient: dict) -> pd.DataFrame:
    """The text's rows (module doc). ``mapped``: track -> benchmark label; ``sufficient``:
    track -> (whether its data are the benchmark's, the share said)."""
    ref = published("lexiprecision_text")
    rows = []
    for r in ref["relevant_retrieved"]:
        rows.append(cell(STUDY, ITEM, "relevant items retrieved per submission (mean +- sd)", r["benchmark"],
                         r["printed"], NOT_HERE, f"needs {r['needs']}", needs=r["needs"],
                         to_add="its qrels and runs under `tracks:` and `lexiprecision: {paper: {<track>: <label>}}`"))
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
