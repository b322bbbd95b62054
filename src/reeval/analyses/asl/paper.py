"""The ASL paper's published cells beside ours (Alex, Hall & Metzler, "Atomized Search
Length: Beyond User Models"): table 1 (technique reanalysis, TREC DL 2020), table 2
(reordering across tracks), appendix A.1's share and the headline claims of the abstract
and section 4.2, one row per cell for the unified paper comparison.

Rows (:data:`ROW_COLUMNS`): ``paper`` (``asl``), ``item`` (``table 1`` ...), ``row``,
``column``, ``published`` (as the paper prints it), ``ours`` (full precision; NaN where
we have none), ``method``, ``status`` and ``note``. Status:

- ``exact``: ours printed as the paper prints the cell (P@20 and MAP to 3 decimals, ASL
  and ASL@g1-10 to integers, RRIE to whole percent) equals the paper's.
- ``differs``: not equal although the configured track holds every run of the campaign.
- ``data not here``: the cell needs data the configuration does not hold: table 1's
  document half (TREC DL 2020 document ranking), a table 1 cell whose track holds only
  part of the campaign's runs (the paper's best run of the group may be one of the
  others) and every cross-track number (the paper's 76 TREC tracks); the note says what
  would be needed and what ours is.

Table 1's columns are mapped to tracks by ``study.paper`` (``passages``, ``documents``:
a track id), its groups to the track's ``study.techniques`` groups: the baseline group
is the paper's BM25, the group named ``neural`` its neural column.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from reeval.analyses.papers.published import published

from .study import mean_std_range

#: the columns of :func:`paper_rows`
ROW_COLUMNS = ("paper", "item", "row", "column", "published", "ours", "method", "status", "note")
#: table 1's measures: the paper's label -> (our headroom column, decimals the paper prints)
TABLE1_MEASURES = {"P@20": ("P_20", 3), "ASL@g1-10": ("ASL@g1-10", 0), "MAP": ("map", 3), "ASL": ("ASL", 0)}
#: the paper's table 1 halves and our ``study.paper`` keys
HALVES = {"documents": "documents", "passages": "passages"}
#: the group of ``study.techniques`` standing for the paper's neural column
NEURAL_GROUP = "neural"
#: table 2's rows as the paper labels them
TABLE2_LABELS = {
    "atomize_p": "Atomize P", "docs_within_query": "Agg. docs within query",
    "rates_across_queries": "Agg. rates across queries", "cumulative": "Cumulative",
    "p20_to_aslg1-10": "P@20 -> ASL@g1-10 (text)", "mrr_to_aslg1": "MRR -> ASL@g1 (text)",
}
#: table 2's statistics: key -> (the paper's column, decimals, unit, the values it can take)
TABLE2_STATS = {"delta_sort": ("DeltaSort", 0, "%", (0.0, 100.0)), "kendall": ("Kendall", 1, "", (-1.0, 1.0)),
                "delta_value": ("DeltaValue", 3, "x", (-np.inf, np.inf))}
#: the headline claims: (what, our headroom column, threshold test, the paper's words, where)
CLAIMS = (
    ("tracks with best P@20 in [0.5, 1]", "P_20", lambda v: v >= 0.5, "roughly half", "section 4.2, figure 1"),
    ("tracks with best ASL@g1-10 > 20", "ASL@g1-10", lambda v: v > 20, "more than half", "abstract; section 4.2, figure 2"),
    ("tracks with best ASL > 100", "ASL", lambda v: v > 100, "the majority; nearly all in the worst buckets",
     "section 4.2, figure 4"),
    ("tracks with best ASL > 10", "ASL", lambda v: v > 10, "nearly all", "section 4.2"),
)


def printed(value: float, decimals: int, percent: bool = False) -> str:
    """``value`` as the paper prints it: ``decimals`` after the point (``"14"``,
    ``"0.456"``), a share as a whole percent (``"25%"``); ``n/a`` for NaN."""
    if value is None or not np.isfinite(value):
        return "n/a"
    return f"{100 * value:.0f}%" if percent else f"{value:.{decimals}f}"


def _row(item, row, column, published_value, ours, method, status, note) -> dict:
    return dict(zip(ROW_COLUMNS, ("asl", item, row, column, str(published_value),
                                  float(ours) if ours is not None else math.nan, method, status, note)))


def _table1_half(half: str, track, head: pd.DataFrame, tech: pd.DataFrame, paper: dict) -> list:
    """Table 1's cells of one half (``documents`` or ``passages``)."""
    campaign = paper["table1_campaign"][half]
    method = ("best run of each group by the measure (study.techniques; the baseline group is the paper's BM25), "
              "RRIE eq. 11 (P@20, MAP) and eq. 12 (ASL@g1-10, ASL), at the track's relevance level; "
              + (f"track {track}" if track is not None else "no track mapped"))
    t = tech[tech.track == track] if track is not None else tech.iloc[0:0]
    n_runs = int(head.loc[head.track == track, "n_runs"].iloc[0]) if track in set(head.track) else 0
    rows = []
    for p in paper["table1"]:
        label = p["measure"]
        col, digits = TABLE1_MEASURES[label]
        tm = t[t.measure == col]
        base = tm[tm.group == tm.baseline] if len(tm) else tm
        neural = tm[tm.group == NEURAL_GROUP] if len(tm) else tm
        cells = (("BM25", base, "value", False), ("neural", neural, "value", False), ("RRIE", neural, "rrie", True))
        for name, frame, field, pct in cells:
            column = f"{half} {name}"
            value = float(frame[field].iloc[0]) if len(frame) else math.nan
            ours_text = printed(value, digits, pct)
            run = frame["run"].iloc[0] if len(frame) and field == "value" else None
            if track is None or not len(frame):
                why = (f"needs {campaign['track']} ({campaign['runs']} runs) as study.paper.{HALVES[half]} "
                       "with study.techniques groups (baseline = BM25, 'neural')")
                rows.append(_row("table 1", label, column, p[column], None, method, "data not here", why))
                continue
            said = f"ours {ours_text}" + (f" ({run})" if run else "")
            if ours_text == p[column]:
                status, note = "exact", said
            elif n_runs < campaign["runs"]:
                status = "data not here"
                note = (f"{said}; {track} holds {n_runs} of the campaign's {campaign['runs']} runs: the paper's "
                        f"best run of the group may be one of the others (needs the whole {campaign['track']})")
            else:
                status, note = "differs", said
            rows.append(_row("table 1", label, column, p[column], value, method, status, note))
    return rows


def _table2(table2: pd.DataFrame, paper: dict) -> list:
    """Table 2's ranges (and the two of the text below it) beside ours, over the tracks
    here: ours the mean across tracks, the note its (mean - std) to (mean + std) clipped to
    the values the statistic can take, as ``summary.md`` prints it (DeltaSort is in %)."""
    rows = []
    method = ("largest DeltaSort per track (10% and paired t-test p <= 0.05), Kendall tau-b, DeltaValue new/old; "
              "(mean - std) to (mean + std) across tracks")
    by = table2.set_index("comparison") if len(table2) else None
    for key, label in TABLE2_LABELS.items():
        for stat, (name, digits, unit, (lo, hi)) in TABLE2_STATS.items():
            pub = paper["table2"][key][stat]
            if not pub:
                continue
            col = {"kendall": "kendall_tau"}.get(stat, stat)
            r = by.loc[key] if by is not None and key in by.index else None
            n = int(r[f"{col}_n"]) if r is not None else 0
            mean = float(r[f"{col}_mean"]) if n else math.nan
            low, high = (max(float(r[f"{col}_low"]), lo), min(float(r[f"{col}_high"]), hi)) if n else (0, 0)
            ours = (f"ours {low:.{digits}f}-{high:.{digits}f}{unit} over {int(r['n_tracks'])} tracks"
                    if n and np.isfinite(r[f"{col}_low"]) else
                    f"ours {mean:.{digits}f}{unit} (one value)" if n else "no track")
            rows.append(_row("table 2", label, name, pub, mean, method, "data not here",
                             f"{ours}; the paper's range is over its {paper['tracks']} TREC tracks"))
    return rows


def _map_share(share: pd.DataFrame, paper: dict) -> list:
    """Appendix A.1's share beside ours (mean of the per-track means)."""
    pub = f"{paper['map_share']['mean_percent']}% +- {paper['map_share']['std_percent']}"
    if share.empty:
        return [_row("appendix A.1", "MAP's share of the relevant documents", "mean +- std across tracks", pub,
                     None, "closest prefix of search lengths sorted by precision", "data not here", "no run")]
    per_track = share.groupby("track").share.mean()
    s = mean_std_range(per_track)
    std = f"{100 * s['std']:.0f}" if np.isfinite(s["std"]) else "n/a"
    return [_row("appendix A.1", "MAP's share of the relevant documents", "mean +- std across tracks", pub,
                 100 * s["mean"], "closest prefix of search lengths sorted by precision (study.map_share_target)",
                 "data not here", f"ours {100 * s['mean']:.0f}% +- {std} over {s['n']} tracks; the paper's is over "
                 f"its {paper['tracks']} TREC tracks")]


def headline_claims(head: pd.DataFrame) -> pd.DataFrame:
    """The paper's headline claims computed on our tracks: per claim the tracks whose best
    run passes the threshold, of how many, their share (%) and the paper's words."""
    rows = []
    for what, col, test, words, where in CLAIMS:
        v = head[col].to_numpy(dtype=float) if len(head) else np.array([])
        v = v[np.isfinite(v)]
        k = int(test(v).sum()) if v.size else 0
        rows.append({"claim": what, "paper": words, "where": where, "tracks": k, "of": int(v.size),
                     "share": 100.0 * k / v.size if v.size else math.nan})
    return pd.DataFrame(rows, columns=["claim", "paper", "where", "tracks", "of", "share"])


def _claims(head: pd.DataFrame, paper: dict) -> list:
    out = []
    for c in headline_claims(head).itertuples(index=False):
        note = (f"ours {c.tracks} of {c.of} tracks ({c.share:.0f}%); the paper's is over its {paper['tracks']} "
                "TREC tracks" if c.of else "no track")
        out.append(_row("headline claims", c.claim, "share of tracks", c.paper, c.share,
                        f"best run per track by the measure ({c.where})", "data not here", note))
    return out


def _frames(source) -> dict:
    """The study's tables by name: ``source`` is the study folder (``headroom.parquet``
    ...) or a dict of DataFrames with those names."""
    if isinstance(source, dict):
        return source
    d = Path(source)
    return {name: pd.read_parquet(d / f"{name}.parquet") for name in ("headroom", "techniques", "table2", "map_share")}


def paper_rows(source, paper_tracks: dict | None = None) -> pd.DataFrame:
    """Every published cell of the ASL paper that reeval reproduces, with ours and a
    status (module docstring), columns :data:`ROW_COLUMNS`.

    ``source``: the study folder (``results/study``) or ``{"headroom", "techniques",
    "table2", "map_share"}`` DataFrames; ``paper_tracks``: ``study.paper``'s mapping of
    table 1's halves (``passages``, ``documents``) to track ids.
    """
    t = _frames(source)
    paper = published("asl")
    tracks = paper_tracks or {}
    rows = []
    for half in HALVES:
        track = tracks.get(half)
        rows += _table1_half(half, track if track in set(t["headroom"].track) else None,
                             t["headroom"], t["techniques"], paper)
    rows += _table2(t["table2"], paper) + _map_share(t["map_share"], paper) + _claims(t["headroom"], paper)
    return pd.DataFrame(rows, columns=list(ROW_COLUMNS))
