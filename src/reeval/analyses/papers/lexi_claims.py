"""Claims of the lexiprecision paper's text over its own tables, per benchmark, as comparison
rows (:mod:`.cells`), from the table cells of :func:`.comparison.lexiprecision_rows`:

- section 5.1 on table 2: lexiprecision "consistently agrees more with the target (masked)
  dRR_1 than dRR_1 of the suffix": sgnLP > dRR_2;
- section 5.2 on table 4: "both rrLP and sgnLP outperform reciprocal rank": rrLP > RR and
  sgnLP > RR, in table 4a and in table 4b.

The paper's value of a benchmark's claim is what its own printed cells say (the claim does
not hold in every row it prints: core (2017), sgnLP 14.67 against RR 15.03 in table 4a).
Status: a cell the claim compares is ``data not here`` -> ``data not here`` (ours beside
when every cell has a value of ours); else ``exact`` when our cells give the same verdict
as the paper's, ``differs`` when not. Each claim is also checked on the paper's own cells,
every benchmark at once (:func:`own_table_rows`).
"""

from __future__ import annotations

import math

import pandas as pd

from .cells import DIFFERS, EXACT, NOT_HERE, cell, frame

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
            if (g.loc[columns, "status"] == NOT_HERE).any():
                status = NOT_HERE
                note = (f"ours on part of the data: {ours}" if have else f"needs {g.needs.iloc[0] or benchmark}")
            else:
                status = EXACT if (ours == "holds") == (paper == "holds") else DIFFERS
                note = "" if ours == paper else f"ours: {ours}"
            row = cell(STUDY, "text", words, benchmark, paper, status, note, track=track,
                       method=f"the cells of {item} beside it, ours and the paper's: " +
                              ", ".join(f"{b} > {w}" for b, w in pairs),
                       needs="" if have else str(g.needs.iloc[0] or ""), to_add="" if have else str(g.to_add.iloc[0] or ""))
            row["reproduced"] = ours
            out.append(row)
    return frame(out + own_table_rows())


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
