"""The ASL paper's published cells beside ours (Alex, Hall & Metzler, "Atomized Search
Length: Beyond User Models"): table 1 (technique reanalysis, TREC DL 2020), table 2
(reordering across tracks), appendix A.1's share and the headline claims of the abstract
and section 4.2, one row per cell for the unified paper comparison.

Rows (:data:`ROW_COLUMNS`): ``paper`` (``asl``), ``item`` (``table 1`` ...), ``row``,
``column``, ``published`` (as the paper prints it), ``ours`` (full precision; NaN where
we have none), ``ours_low``/``ours_high`` (a range of ours: table 2's mean - sd to mean +
sd), ``reproduced`` (ours as the paper prints the cell), ``method``, ``status``, ``note``.

A status is decided before the value is compared (../shared/DESIGN.md, "Paper
comparisons"): first whether the data suffice, then the value.

- Table 1 is computed at the paper's settings whatever the track's configuration
  (:data:`TABLE1_SETTINGS`: relevance >= 1, an unretrieved relevant document at irrel_q,
  equation 3). A cell draws on the best run of its group (both groups for RRIE) among the
  campaign's runs, so its data suffice when every campaign run that could be in those
  groups is in the track (:func:`table1_sufficiency`). Sufficient: ``exact`` when ours
  prints as the paper's cell (P@20 and MAP to 3 decimals, ASL and ASL@g1-10 to integers,
  RRIE to whole percent), else ``differs``. Not sufficient: ``data not here``, with ours
  beside where the track gives one ("on 12 of the campaign's 59 runs: 51 (p_bm25)").
- Table 2, appendix A.1 and the headline claims are over the paper's TREC tracks. The
  paper names none of them, only its criteria (section 4.1) and totals (76 tracks, 4,302
  runs), so the study holds its track set when it applies those criteria (``study.scope:
  asl-paper``, docs/trec-archive.md) and includes every track they keep
  (:func:`reeval.analyses.asl.paper_text.track_set_sufficiency`, the one rule section 4.1's
  counts also use). That set is inferred (the paper applied choices it does not state:
  its criteria alone keep more catalog tracks, docs/trec-archive.md), so held: ``exact at an inferred setting``
  when ours prints as the paper's cell
  (each end of a range at the decimals the paper prints it; a claim when our share of
  tracks meets the reading of the paper's words in :data:`CLAIM_READINGS`), else
  ``differs``. Not held: ``data not here``, with ours over the tracks here in ``reproduced``.

Table 1's columns are mapped to tracks by ``study.paper`` (``passages``, ``documents``:
a track id), its groups to the track's ``study.techniques`` groups: the baseline group
is the paper's BM25, the group named ``neural`` its neural column.
"""

from __future__ import annotations

import fnmatch
import math
from pathlib import Path

import numpy as np
import pandas as pd

from reeval.analyses.papers.published import published

from .paper_text import INFERRED, TRACK_SET_READING, text_rows, track_set_sufficiency
from .study import mean_std_range

#: the columns of :func:`paper_rows`
ROW_COLUMNS = ("paper", "item", "row", "column", "published", "ours", "ours_low", "ours_high", "reproduced",
               "method", "status", "note")
#: table 1's measures: the paper's label -> (our headroom column, decimals the paper prints)
TABLE1_MEASURES = {"P@20": ("P_20", 3), "ASL@g1-10": ("ASL@g1-10", 0), "MAP": ("map", 3), "ASL": ("ASL", 0)}
#: the settings of the paper's table 1, whatever the track's configuration: relevance >= 1
#: (its DL 2020 passage numbers; TREC's official level there is 2) and a relevant document
#: the run did not retrieve at irrel_q, the run's irrelevant documents (section 3, eq. 3)
TABLE1_SETTINGS = {"rel_level": 1, "unretrieved": "eq3"}
TABLE1_SETTINGS_TEXT = "relevance >= 1, an unretrieved relevant document at irrel_q (eq. 3)"
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
#: how the headline claims' words are read: the paper's words -> (share of tracks, in %, as
#: text; test of the share)
CLAIM_READINGS = {
    "roughly half": ("40% to 60% of the tracks", lambda pct: 40 <= pct <= 60),
    "more than half": ("more than 50% of the tracks", lambda pct: pct > 50),
    "the majority; nearly all in the worst buckets": ("more than 50% of the tracks", lambda pct: pct > 50),
    "nearly all": ("at least 90% of the tracks", lambda pct: pct >= 90),
}
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


def _row(item, row, column, published_value, ours, method, status, note, reproduced="",
         low=None, high=None) -> dict:
    ours = float(ours) if ours is not None else math.nan
    return dict(zip(ROW_COLUMNS, ("asl", item, row, column, str(published_value), ours,
                                  ours if low is None else float(low), ours if high is None else float(high),
                                  reproduced, method, status, note)))


def table1_sufficiency(present, campaign: dict, groups: dict, cell_groups) -> tuple[bool, str]:
    """Whether a table 1 cell's data are all here, from the runs alone (never the value).

    The cell is the best run of ``cell_groups`` (``study.techniques`` groups: fnmatch
    patterns in ``groups``) among the campaign's runs. ``campaign``: ``runs`` (how many
    the campaign had) and, when known, ``run_names``. The data suffice when every
    campaign run is in ``present`` (the track's runs), or, with the names known, when each
    absent run matches the patterns of a group other than the cell's: an absent run that
    no group names could be in the cell's group. Returns (sufficient, ``"12 of the
    campaign's 59 runs"``).
    """
    present = [str(r) for r in present]
    have = set(present)
    names = [str(n) for n in campaign.get("run_names") or []]
    total = int(campaign["runs"])
    here = len(have & set(names)) if names else min(len(present), total)
    said = f"{here} of the campaign's {total} runs"
    if not names:
        return len(present) >= total, said
    others = [p for g, pats in groups.items() if g not in cell_groups for p in pats]
    mine = [p for g in cell_groups for p in groups.get(g, [])]
    for run in names:
        if run in have:
            continue
        if any(fnmatch.fnmatchcase(run, p) for p in mine) or not any(fnmatch.fnmatchcase(run, p) for p in others):
            return False, said
    return True, said


def _on_track_set(enough: tuple[bool, str], equal: bool) -> tuple[str, str]:
    """(status, where ours is) of a cell over the paper's track set: ``enough`` from
    :func:`track_set_sufficiency`, ``equal`` whether ours prints as the paper's cell. The
    track set is reeval's reading of the paper's criteria (:data:`TRACK_SET_READING`), so a
    cell that prints as the paper's is ``exact at an inferred setting``, never ``exact``."""
    held, share = enough
    if not held:
        return "data not here", f"on {share}: ours beside; needs the paper's track set"
    return (INFERRED if equal else "differs"), f"on {share}; {TRACK_SET_READING}"


def range_prints_as(text: str, low: float, high: float) -> bool:
    """Whether ``low`` to ``high`` print as the paper's range ``text`` (``26-60%``,
    ``0.004-0.06x``), each end at the decimals the paper prints it."""
    ends = str(text).rstrip("%x").split("-")
    if len(ends) != 2 or not all(ends):
        return False
    digits = [len(e.split(".")[1]) if "." in e else 0 for e in ends]
    return [f"{v:.{d}f}" for v, d in zip((low, high), digits)] == [f"{float(e):.{d}f}" for e, d in zip(ends, digits)]


def _table1_half(half: str, track, tech: pd.DataFrame, runs, groups: dict, paper: dict,
                 names_known: bool = True) -> list:
    """Table 1's cells of one half (``documents`` or ``passages``): ``tech`` the technique
    table at :data:`TABLE1_SETTINGS`, ``runs`` the track's runs (``names_known`` False:
    placeholders, only their number counts), ``groups`` its ``study.techniques`` groups."""
    campaign = paper["table1_campaign"][half]
    campaign = campaign if names_known else {**campaign, "run_names": None}
    method = ("best run of each group by the measure (study.techniques; the baseline group is the paper's BM25), "
              f"RRIE eq. 11 (P@20, MAP) and eq. 12 (ASL@g1-10, ASL), at the paper's settings: {TABLE1_SETTINGS_TEXT}; "
              + (f"track {track}" if track is not None else "no track mapped"))
    t = tech[tech.track == track] if track is not None else tech.iloc[0:0]
    rows = []
    for p in paper["table1"]:
        label = p["measure"]
        col, digits = TABLE1_MEASURES[label]
        tm = t[t.measure == col]
        base = tm[tm.group == tm.baseline] if len(tm) else tm
        neural = tm[tm.group == NEURAL_GROUP] if len(tm) else tm
        baseline = str(tm.baseline.iloc[0]) if len(tm) else ""
        cells = (("BM25", base, "value", False, (baseline,)), ("neural", neural, "value", False, (NEURAL_GROUP,)),
                 ("RRIE", neural, "rrie", True, (baseline, NEURAL_GROUP)))
        for name, frame, field, pct, cell_groups in cells:
            column = f"{half} {name}"
            if track is None or not len(frame):
                why = (f"needs {campaign['track']} ({campaign['runs']} runs) as study.paper.{HALVES[half]} "
                       "with study.techniques groups (baseline = BM25, 'neural')")
                rows.append(_row("table 1", label, column, p[column], None, method, "data not here", why))
                continue
            value = float(frame[field].iloc[0])
            ours_text = printed(value, digits, pct)
            run = frame["run"].iloc[0] if field == "value" else None
            said = ours_text + (f" ({run})" if run else "")
            enough, share = table1_sufficiency(runs, campaign, groups, cell_groups)
            if not enough:
                status = "data not here"
                note = (f"on {share}: {said}; the paper's best run of the group may be one of the others "
                        f"(needs the whole {campaign['track']})")
            else:
                status = "exact" if ours_text == p[column] else "differs"
                note = f"ours {said} on {share}"
            rows.append(_row("table 1", label, column, p[column], value, method, status, note,
                             reproduced="" if ours_text == "n/a" else ours_text))
    return rows


def delta_value_text(r, digits: int = 3) -> tuple[str, str]:
    """(range, note) of a table-2 row's DeltaValue, a ratio new/old: the paper's mean - sd to
    mean + sd, ``a to b``; a range reaching below 0 (impossible for a ratio) only flagged,
    with the geometric mean divided and multiplied by the geometric sd beside it (a range
    of ratios, over the ratios > 0)."""
    low, high, mean = float(r["delta_value_low"]), float(r["delta_value_high"]), float(r["delta_value_mean"])
    if not np.isfinite(low):
        return f"{mean:.{digits}f}x (one value)", ""
    text = f"{low:.{digits}f}x to {high:.{digits}f}x"
    if low >= 0:
        return text, ""
    glow, ghigh = r.get("delta_value_glow", math.nan), r.get("delta_value_ghigh", math.nan)
    fits = (f"geometric mean divided and multiplied by the geometric sd: {float(glow):.{digits}f}x to "
            f"{float(ghigh):.{digits}f}x over the {int(r['delta_value_gn'])} ratios > 0"
            if glow is not None and np.isfinite(glow) else "no range of ratios (fewer than 2 ratios > 0)")
    return f"{text} (flagged: mean - sd below 0, impossible for a ratio)", fits


def _table2(table2: pd.DataFrame, paper: dict, enough: tuple[bool, str]) -> list:
    """Table 2's ranges (and the two of the text below it) beside ours, over the tracks
    here (``enough``: :func:`track_set_sufficiency`): ``reproduced`` ours as the paper
    prints it, (mean - sd) to (mean + sd) clipped to the values the statistic can take
    (DeltaSort in %, Kendall's tau at most 1; DeltaValue by :func:`delta_value_text`);
    ``ours`` the mean, ``ours_low``/``_high`` the range; the status as :func:`_on_track_set`."""
    rows = []
    method = ("largest DeltaSort per track (10% and paired t-test p at most 0.05), Kendall tau-b, DeltaValue new/old; "
              "(mean - sd) to (mean + sd) across tracks")
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
            extra = ""
            if not n:
                ours = ""
            elif stat == "delta_value":
                ours, extra = delta_value_text(r, digits)
            elif np.isfinite(r[f"{col}_low"]):
                ours = f"{low:.{digits}f}{unit} to {high:.{digits}f}{unit}"
            else:
                ours = f"{mean:.{digits}f}{unit} (one value)"
            status, where = _on_track_set(enough, bool(n) and range_prints_as(pub, low, high))
            note = "; ".join(x for x in (where, extra) if x)
            rows.append(_row("table 2", label, name, pub, mean, method, status, note, reproduced=ours,
                             low=float(r[f"{col}_low"]) if n else None, high=float(r[f"{col}_high"]) if n else None))
    return rows


def _map_share(share: pd.DataFrame, paper: dict, enough: tuple[bool, str]) -> list:
    """Appendix A.1's share beside ours (mean of the per-track means), over the paper's
    track set when the study holds it (``enough``: :func:`track_set_sufficiency`)."""
    pub = f"{paper['map_share']['mean_percent']}% +- {paper['map_share']['std_percent']}"
    if share.empty:
        return [_row("appendix A.1", "MAP's share of the relevant documents", "mean +- sd across tracks", pub,
                     None, "closest prefix of search lengths sorted by precision", "data not here", "no run")]
    per_track = share.groupby("track").share.mean()
    s = mean_std_range(per_track)
    std = f"{100 * s['std']:.0f}" if np.isfinite(s["std"]) else "n/a"
    ours = f"{100 * s['mean']:.0f}% +- {std}"
    status, where = _on_track_set(enough, ours == pub)
    return [_row("appendix A.1", "MAP's share of the relevant documents", "mean +- sd across tracks", pub,
                 100 * s["mean"], "closest prefix of search lengths sorted by precision (study.map_share_target)",
                 status, f"ours over {s['n']} tracks, {where}", reproduced=ours)]


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


def _claims(head: pd.DataFrame, enough: tuple[bool, str]) -> list:
    """The headline claims beside ours: a claim holds when our share of tracks meets the
    reading of the paper's words (:data:`CLAIM_READINGS`), on the paper's track set
    (``enough``: :func:`track_set_sufficiency`)."""
    out = []
    for c in headline_claims(head).itertuples(index=False):
        reading, test = CLAIM_READINGS[c.paper]
        status, where = _on_track_set(enough, bool(c.of) and test(c.share))
        note = where if c.of else "no track"
        out.append(_row("headline claims", c.claim, "share of tracks", c.paper, c.share,
                        f"best run per track by the measure ({c.where}); the paper's words read as {reading}",
                        status, note,
                        reproduced=f"{c.tracks} of {c.of} tracks ({c.share:.0f}%)" if c.of else ""))
    return out


def _frames(source) -> dict:
    """The study's tables by name: ``source`` is the study folder (``headroom.parquet``
    ...) or a dict of DataFrames with those names."""
    if isinstance(source, dict):
        return source
    d = Path(source)
    return {name: pd.read_parquet(d / f"{name}.parquet") for name in ("headroom", "techniques", "table2", "map_share")}


def paper_rows(source, paper_tracks: dict | None = None, techniques: dict | None = None) -> pd.DataFrame:
    """Every published cell of the ASL paper that reeval reproduces, with ours and a
    status (module docstring), columns :data:`ROW_COLUMNS`.

    ``source``: the study folder (``results/study``) or ``{"headroom", "techniques",
    "table2", "map_share"}`` DataFrames, and optionally ``table1`` (the technique table at
    :data:`TABLE1_SETTINGS`, else ``techniques`` stands for it) and ``table1_runs``
    (track -> its run names; else ``headroom``'s run count); ``paper_tracks``:
    ``study.paper``'s mapping of table 1's halves (``passages``, ``documents``) to track
    ids; ``techniques``: ``study.techniques`` (track -> {baseline, groups}).
    """
    t = _frames(source)
    paper = published("asl")
    tracks = paper_tracks or {}
    tech = t.get("table1", t["techniques"])
    head = t["headroom"]
    rows = []
    for half in HALVES:
        track = tracks.get(half)
        if track not in set(head.track):
            track = None
        runs = (t.get("table1_runs") or {}).get(track)
        known = runs is not None
        if not known:   # run names unknown: as many placeholders as the track's runs
            n = int(head.loc[head.track == track, "n_runs"].iloc[0]) if track is not None else 0
            runs = [f"run {k}" for k in range(n)]
        groups = ((techniques or {}).get(track) or {}).get("groups") or {}
        rows += _table1_half(half, track, tech, runs, groups, paper, known)
    scope = t.get("scope") or {}
    enough = track_set_sufficiency(scope.get("scope"), scope.get("planned"), head.track if len(head) else [])
    rows += _table2(t["table2"], paper, enough) + _map_share(t["map_share"], paper, enough) + _claims(head, enough)
    rows += text_rows(t, rows, tracks)
    return pd.DataFrame(rows, columns=list(ROW_COLUMNS))
