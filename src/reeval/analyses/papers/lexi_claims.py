"""Claims of the lexiprecision paper's text over its own tables, per benchmark, as comparison
rows (:mod:`.cells`), from the table cells of :func:`.comparison.lexiprecision_rows`:

- section 5.1 on table 2: lexiprecision "consistently agrees more with the target (masked)
  dRR_1 than dRR_1 of the suffix": sgnLP > dRR_2;
- section 5.2 on table 4: "both rrLP and sgnLP outperform reciprocal rank": rrLP > RR and
  sgnLP > RR, in table 4a and in table 4b.

The paper's value of a benchmark's claim is what its own printed cells say (the claim does
not hold in every row it prints: core (2017), sgnLP 14.67 against RR 15.03 in table 4a).
Status (the ladder of :mod:`.cells`): a cell the claim compares is ``data not here`` ->
``data not here`` (ours beside when every cell has a value of ours); else, when our cells
give the same verdict as the paper's, ``exact at an inferred setting`` if any cell they
compare was read at a setting the paper does not state (its method says ``inferred``: the
relevance level, table 4a's HSD form; the verdict at the cells' other level beside when
every cell has it), ``exact`` otherwise; ``differs`` when not. Figures 8 and 9's claims
(:func:`figure_claim_rows`) likewise at the benchmark's inferred level. Each claim is also
checked on the paper's own cells, every benchmark at once (:func:`own_table_rows`).
"""

from __future__ import annotations

import math

import pandas as pd

from reeval.analyses.lexiprecision.paper import other_level

from .cells import DIFFERS, EXACT, INFERRED, NOT_COMPUTED, NOT_HERE, cell, frame

STUDY = "lexiprecision"
#: claim -> (item, (better, worse) column pairs, the paper's words)
CLAIMS = {
    "table 2": ((("sgnLP", "dRR_2"),),
                "section 5.1: lexiprecision agrees more with the masked dRR_1 than dRR_1 of the suffix (table 2)"),
    "table 4a": ((("rrLP", "RR"), ("sgnLP", "RR")), "section 5.2: both rrLP and sgnLP outperform RR (table 4a)"),
    "table 4b": ((("rrLP", "RR"), ("sgnLP", "RR")), "section 5.2: both rrLP and sgnLP outperform RR (table 4b)"),
}


def verdict(values: dict, pairs) -> str:
    """``holds`` when every (better, worse) pair of ``values`` (column -> number) has
    better > worse, else ``does not hold (sgnLP 14.67 <= RR 15.03)`` naming the pairs that fail."""
    failed = [f"{b} {values[b]:.2f} <= {w} {values[w]:.2f}" for b, w in pairs if not values[b] > values[w]]
    return "holds" if not failed else f"does not hold ({'; '.join(failed)})"


def claim_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per claim (:data:`CLAIMS`) and benchmark (module doc); ``rows``: the
    lexiprecision comparison rows (item ``table 2`` ..., row the benchmark, column, published,
    ours_value, status, track)."""
    out = []
    lexi = rows[rows.study == STUDY] if len(rows) else rows
    for item, (pairs, words) in CLAIMS.items():
        columns = sorted({c for p in pairs for c in p})
        for benchmark, g in lexi[lexi["item"] == item].groupby("row", sort=False):
            g = g.drop_duplicates("column").set_index("column")
            if not set(columns) <= set(g.index):
                continue
            paper = verdict({c: float(g.loc[c, "published"]) for c in columns}, pairs)
            ours_values = {c: float(g.loc[c, "ours_value"]) for c in columns}
            have = all(not math.isnan(v) for v in ours_values.values())
            ours = verdict(ours_values, pairs) if have else ""
            track = str(g.track.iloc[0] or "")
            inferred = [m for m in dict.fromkeys(g.loc[columns, "method"].fillna("").astype(str)) if "inferred" in m]
            other = ("", "")
            if (g.loc[columns, "status"] == NOT_HERE).any():
                status = NOT_HERE
                note = (f"ours on part of the data: {ours}" if have else f"needs {g.needs.iloc[0] or benchmark}")
            else:
                same = (ours == "holds") == (paper == "holds")
                status = (INFERRED if inferred else EXACT) if same else DIFFERS
                note = "" if ours == paper else f"ours: {ours}"
                if inferred:
                    other = other_verdict(g.loc[columns], pairs)
            row = cell(STUDY, "text", words, benchmark, paper, status, note, track=track,
                       method=f"the cells of {item} beside it, ours and the paper's: " +
                              ", ".join(f"{b} > {w}" for b, w in pairs)
                              + "".join(f"; the cells' {m}" for m in inferred),
                       needs="" if have else str(g.needs.iloc[0] or ""),
                       to_add="" if have else str(g.to_add.iloc[0] or ""),
                       other_setting=other[0], other_value=other[1])
            row["reproduced"] = ours
            out.append(row)
    return frame(out + own_table_rows())


def other_verdict(cells: pd.DataFrame, pairs) -> tuple[str, str]:
    """(the other relevance level, the claim's verdict there) from the compared cells'
    ``other_setting``/``other_value`` (index: column): the level when every cell names the
    same ``relevance >= ...`` one, the verdict when every cell has a value there, else
    :data:`NOT_COMPUTED`; ("", "") when the cells name no common other level."""
    settings = set(cells.other_setting.fillna("").astype(str))
    if len(settings) != 1 or not next(iter(settings)).startswith("relevance >= "):
        return "", ""
    values = pd.to_numeric(cells.other_value, errors="coerce")
    if values.isna().any():
        return next(iter(settings)), NOT_COMPUTED
    return next(iter(settings)), verdict(values.to_dict(), pairs)


def own_table_rows(ref: dict | None = None) -> list[dict]:
    """Each claim on the paper's own printed cells, every benchmark of the table at once: the
    data are the paper's, always here; ``exact`` when the claim holds in every row, else
    ``differs`` (the rows where it does not named in the note)."""
    from .published import published

    ref = ref or published(STUDY)
    out = []
    for item, (pairs, words) in CLAIMS.items():
        key = "table" + item.removeprefix("table ")
        names = list(ref["columns"][key])
        verdicts = {b: verdict(dict(zip(names, v[key])), pairs) for b, v in ref["benchmarks"].items()}
        failed = {b: v for b, v in verdicts.items() if v != "holds"}
        row = cell(STUDY, "text", words, "the paper's own table, every benchmark", "holds",
                   DIFFERS if failed else EXACT,
                   "; ".join(f"{b}: {v}" for b, v in failed.items()),
                   method=f"the paper's printed {item}: " + ", ".join(f"{b} > {w}" for b, w in pairs))
        row["reproduced"] = f"holds in {len(verdicts) - len(failed)} of {len(verdicts)} benchmarks"
        out.append(row)
    return out


#: the paper's retrieval benchmarks (figure 9's claim is about them; the recommender ones differ)
RECOMMENDER = ("ml-1M (2018)", "libraryThing (2018)", "beerAdvocate (2018)")
FIGURE8 = "figure 8: rrLP agrees with full-data dRR_1 as much as or more than incomplete dRR_1 (section 5.1)"
FIGURE9 = "figure 9: as labels are removed, dRR_1's ties shrink and lexiprecision's grow (section 5.2)"


def figure8_holds(fig8: pd.DataFrame) -> tuple[bool, str] | None:
    """Figure 8's claim on one track's ``fig8_agreement`` (removal, fraction_removed,
    ranking_/system_ dRR1 and rrLP means): at every removal and fraction > 0, rrLP's ranking
    and system agreement at least dRR_1's. (holds, the comparisons that fail or the count);
    None without a fraction > 0."""
    f = fig8[fig8.fraction_removed > 0]
    if not len(f):
        return None
    failed = [f"{r.removal} {r.fraction_removed:g} {kind}: rrLP {getattr(r, f'{kind}_rrLP_mean'):.2f} < dRR_1 "
              f"{getattr(r, f'{kind}_dRR1_mean'):.2f}" for r in f.itertuples() for kind in ("ranking", "system")
              if getattr(r, f"{kind}_rrLP_mean") < getattr(r, f"{kind}_dRR1_mean") - 1e-9]
    return not failed, "; ".join(failed[:4]) if failed else f"{2 * len(f)} comparisons hold"


def figure9_holds(fig9: pd.DataFrame) -> tuple[bool, str] | None:
    """Figure 9's claim on one track's ``fig9_label_removal`` (fraction_removed, RR_ties_mean,
    LP_ties_mean): from no label removed to the most removed, dRR_1's ties do not grow and LP's
    do not shrink (RL1's ties grow with m, lexiprecision's shrink). None without two fractions."""
    f = fig9.sort_values("fraction_removed")
    if len(f) < 2:
        return None
    full, most = f.iloc[0], f.iloc[-1]
    rr_ok, lp_ok = most.RR_ties_mean <= full.RR_ties_mean, most.LP_ties_mean >= full.LP_ties_mean
    said = (f"from {full.fraction_removed:g} to {most.fraction_removed:g} removed: dRR_1 ties {full.RR_ties_mean:.4g} "
            f"-> {most.RR_ties_mean:.4g}, LP ties {full.LP_ties_mean:.4g} -> {most.LP_ties_mean:.4g}")
    return bool(rr_ok and lp_ok), said


def figure_claim_rows(mapped: dict, sufficient: dict, fig8: pd.DataFrame, fig9: pd.DataFrame,
                      inferred: dict | None = None) -> pd.DataFrame:
    """Figures 8 and 9's claims per track standing for a benchmark (``mapped``: track ->
    benchmark; ``sufficient``: track -> (its data are the benchmark's, the share said); the
    stacked ``fig8_agreement`` and ``fig9_label_removal``; ``inferred``: track -> (the
    relevance level read, inferred, as the method says it; the other level)): when the claim holds on the
    benchmark's data, ``exact at an inferred setting`` on a track with an inferred level
    (the other level not computed), else ``exact``; ``differs`` when not; ``data not here``
    on other data (ours beside). Figure 9's claim is on the retrieval benchmarks only."""
    inferred = inferred or {}
    out = []
    for track, benchmark in mapped.items():
        enough, share = sufficient.get(track, (False, "runs and requests unknown"))
        for row, table, test in ((FIGURE8, fig8, figure8_holds), (FIGURE9, fig9, figure9_holds)):
            if row == FIGURE9 and benchmark in RECOMMENDER:
                continue
            t = table[table.track == track] if len(table) else table
            result = test(t) if len(t) else None
            if result is None:
                continue
            holds, said = result
            verdict = "holds" if holds else "does not hold"
            level, other_level = inferred.get(track, ("", ""))
            status = ((INFERRED if level else EXACT) if holds else DIFFERS) if enough else NOT_HERE
            note = said if enough else f"on {share}: {verdict} ({said}); needs the whole {benchmark}"
            other = (other_level, NOT_COMPUTED) if status == INFERRED else ("", "")
            r = cell(STUDY, "text", row, benchmark, "holds", status, note, ours=float(holds), digits=0, track=track,
                     method="mean over the seeded samples of each fraction removed (fig8_agreement, "
                            f"fig9_label_removal), at {level or 'the study relevance level'}",
                     other_setting=other[0], other_value=other[1])
            r["reproduced"] = verdict
            out.append(r)
    return frame(out)


#: the level of figures 8 and 9's data when their tables do not record it (results written
#: before they did), and the other choice
FIGURE_LEVEL = ("the track's relevance level (inferred: the paper does not state which grades count; figures 8-9 "
                "computed at the track's level, which may differ from table 4's)", "another relevance level")


def figure_levels(figures: pd.DataFrame, tracks, why: str) -> dict:
    """track -> (the relevance level figures 8 and 9's data were computed at, inferred for
    the reason ``why``; the other level) for each of ``tracks``, from the tables'
    ``relevance_level`` (``figures``: both tables stacked); :data:`FIGURE_LEVEL` for a track
    whose tables do not record one level."""
    out = {}
    for track in tracks:
        got = (set(figures.loc[figures.track == track, "relevance_level"].dropna().astype(int))
               if "relevance_level" in figures and len(figures) else set())
        level = got.pop() if len(got) == 1 else None
        out[track] = (FIGURE_LEVEL if level is None else
                      (f"relevance >= {level} (inferred: {why})", f"relevance >= {other_level(level, level)}"))
    return out
