"""More of the rareness paper's cells, as comparison rows (:mod:`reeval.analyses.papers.cells`),
each status decided from the data the cell needs, then from its value:

- table 1's pair totals (1,830 / 8,256 / 406 / 2,016: runs (runs - 1) / 2 of each
  collection): the data are the paper's run set, on a track standing for the collection with
  the collection's task (``rareness.paper``). Sufficiency first (:func:`pair_total_status`):
  fewer runs than the paper's (its runs are not all here) or another task gives ``data not
  here``, ours beside; then the runs decide the value: ``exact``, or ``differs`` (a track
  holding more runs than the paper's, the runs here and the paper's in the note). No such
  track: ``data not here``;
- section 2's bounds [0, 2) of P@K_rareness and AP_rareness for alpha in [0, 1]: a property
  of the measures, so any track's per-topic values at alphas in [0, 1] are data
  (``by_topic``, :func:`value_ranges`): ``exact`` when every value lies in [0, 2), else ``differs``;
- figure 1's claims on topic 1127540 of DL 2020's document task, by the paper's measure
  P@100_rareness (family ``P_rareness``, not the normalised one): S_rare and S_common rank
  the same at alpha = 0 for every D; S_common's rank is "largely unaffected by alpha",
  read as: its largest change over alpha (at one D) is smaller than S_rare's. The data: a
  track mapped to DLT20 with its task and all its runs, holding the topic's synthetic
  ranks; then ``exact`` (the claim holds) or ``differs``;
- section 4.2's claim on DLT20: Kendall's tau of P@100 against P@100_rareness is below 0.9
  at every alpha > 0, that of AP against AP_rareness is not (read: at least 0.9 at every
  alpha > 0). The data: a track mapped to DLT20 with its task, runs and topics (``tau``).
"""

from __future__ import annotations

import pandas as pd

from reeval.analyses.papers.cells import DIFFERS, EXACT, NOT_HERE, cell
from reeval.analyses.papers.published import published

from .paper import _data_note, paper_tracks

STUDY = "rareness"
#: the paper's measure of figure 1 and its tau threshold of section 4.2
FIGURE1_FAMILY, TAU_THRESHOLD = "P_rareness", 0.9
HOLDS = "holds"


def _family(measure) -> str:
    return str(measure).split("@", 1)[0]


def _numeric(df: pd.DataFrame) -> pd.DataFrame:
    a = pd.to_numeric(df["alpha"], errors="coerce")
    return df.assign(alpha_value=a)[a.notna()]


def _add(collection: str) -> str:
    return f"its qrels and runs under `tracks:` and `rareness: {{paper: {{<track>: {collection}}}}}`"


def pair_total_status(track: str, task: str, runs: int, ref: dict) -> tuple[str, str]:
    """(status, note) of table 1's pair total of one collection (``ref``: its published entry:
    task, runs, pairs) on ``track`` of ``task`` holding ``runs`` runs, the data decided first:
    another task or fewer runs than the paper's (the paper's run set is not all here) ->
    ``data not here`` (ours beside); then runs (runs - 1) / 2 equal to the paper's total ->
    ``exact``, else ``differs`` (more runs here than the paper's)."""
    ours, said = runs * (runs - 1) // 2, f"{runs} runs here, {ref['runs']} in the paper"
    if task != ref["task"]:
        return NOT_HERE, f"different task: {track} is {task}, the paper's {ref['task']}; ours {ours}"
    if runs < int(ref["runs"]):
        return NOT_HERE, f"{said}: the paper's runs are not all here; ours {ours} beside"
    return (EXACT, "") if ours == int(ref["pairs"]) else (DIFFERS, said)


def pair_total_rows(stacked: dict, mapping: dict | None) -> list[dict]:
    """Table 1's pair totals (module doc), one row per collection and mapped track."""
    tracks, rows = paper_tracks(mapping), []
    disc = stacked.get("discriminative", pd.DataFrame(columns=["track", "runs"]))
    method = "runs (runs - 1) / 2 over the track's runs (those of table 1)"
    for collection, ref in published(STUDY).items():
        mapped = [(t, task) for t, (c, task) in tracks.items() if c == collection]
        need = f"{ref['collection']} ({ref['runs']} runs)"
        if not mapped:
            rows.append(cell(STUDY, "table 1", "total pairs", collection, ref["pairs"], NOT_HERE, f"needs {need}",
                             needs=need, to_add=_add(collection)))
        for track, task in mapped:
            d = disc[disc.track == track]
            if not len(d):
                rows.append(cell(STUDY, "table 1", "total pairs", collection, ref["pairs"], NOT_HERE,
                                 f"no discriminative table for {track}", track=track, method=method))
                continue
            runs = int(d.runs.max())
            ours = runs * (runs - 1) // 2
            status, note = pair_total_status(track, task, runs, ref)
            rows.append(cell(STUDY, "table 1", "total pairs", collection, ref["pairs"], status, note, ours=ours,
                             digits=0, track=track, method=method))
    return rows


def value_ranges(paths) -> pd.DataFrame:
    """Per track, measure and alpha the smallest and largest per-topic value and their number
    (columns track, measure, alpha, low, high, n), from the tracks' ``by_topic.parquet``
    files (``paths``), each reduced by Arrow as it is read (never all values at once)."""
    import pyarrow.parquet as pq

    frames = []
    for path in paths:
        t = pq.read_table(path, columns=["track", "measure", "alpha", "value"])
        g = t.group_by(["track", "measure", "alpha"]).aggregate([("value", "min"), ("value", "max"),
                                                                 ("value", "count")])
        frames.append(g.to_pandas().rename(columns={"value_min": "low", "value_max": "high", "value_count": "n"}))
    columns = ["track", "measure", "alpha", "low", "high", "n"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


def bounds_rows(ranges: pd.DataFrame) -> list[dict]:
    """Section 2's bounds [0, 2) of P_rareness and AP_rareness at alphas in [0, 1], over every
    per-topic value of every track (``ranges``: :func:`value_ranges`; module doc)."""
    values = _numeric(ranges) if len(ranges) else ranges.assign(alpha_value=[])
    values = values[values.alpha_value.between(0, 1)]
    rows = []
    for family, label in (("P_rareness", "P@K_rareness"), ("AP_rareness", "AP_rareness")):
        v = values[values.measure.map(_family) == family]
        if not len(v):
            rows.append(cell(STUDY, "section 2", f"bounds of {label}, α in [0, 1]", "range", "[0, 2)", NOT_HERE,
                             f"needs any track's {family} per topic at an alpha in [0, 1]",
                             needs="a track with rareness measures", to_add="any track under `tracks:`"))
            continue
        low, high, n, k = float(v.low.min()), float(v.high.max()), int(v.n.sum()), v.track.nunique()
        status = EXACT if low >= 0 and high < 2 else DIFFERS
        note = (f"ours from {low:.4f} to {high:.4f} over {n:,} values of {k} track{'s' if k != 1 else ''}"
                + ("" if status == EXACT else ": outside [0, 2)"))
        rows.append(cell(STUDY, "section 2", f"bounds of {label}, α in [0, 1]", "range", "[0, 2)", status, note,
                         ours=high, low=low, high=high, digits=4,
                         method="smallest and largest per-topic value (by_topic), every track, alphas in [0, 1]"))
    return rows


def _dlt20(mapping: dict | None, stacked: dict, runs_of, topics: bool = True) -> list[tuple[str, bool, str]]:
    """(track, enough, note) for each track mapped to DLT20: the task, runs (``runs_of(track)``)
    and, with ``topics``, the topics (``stability``) against the paper's."""
    ref = published(STUDY)["DLT20"]
    stab = stacked.get("stability", pd.DataFrame(columns=["track", "topics"]))
    out = []
    for track, (collection, task) in paper_tracks(mapping).items():
        if collection != "DLT20":
            continue
        s = stab[stab.track == track]
        other, note = _data_note(track, task, ref, runs_of(track), s.topics.max() if topics and len(s) else None)
        out.append((track, not other, note))
    return out


def _claim_cell(item, row, enough, holds, note, track, method, need) -> dict:
    status = (EXACT if holds else DIFFERS) if enough else NOT_HERE
    verdict = "holds" if holds else "does not hold"
    out = cell(STUDY, item, row, "claim", HOLDS, status, "; ".join(x for x in (f"the claim {verdict} here", note) if x),
               ours=float(holds), digits=0, track=track, method=method, needs="" if enough else need)
    out["reproduced"] = verdict
    return out


def figure1_claim_rows(stacked: dict, mapping: dict | None) -> list[dict]:
    """Figure 1's two claims (module doc), per track mapped to DLT20."""
    fig = published("rareness_text")["figure1"]
    syn = stacked.get("synthetic", pd.DataFrame(columns=["track", "qid", "measure", "system", "alpha", "docs",
                                                         "rank", "n_systems"]))
    syn = syn[(syn.qid.astype(str) == str(fig["topic"])) & (syn.measure.map(_family) == FIGURE1_FAMILY)]
    syn = _numeric(syn) if len(syn) else syn.assign(alpha_value=[])
    ref = published(STUDY)["DLT20"]
    need = f"{ref['collection']} ({ref['runs']} runs), topic {fig['topic']}"
    rows_of = {"equal": f"figure 1: S_rare and S_common rank the same at α = 0 (topic {fig['topic']})",
               "common": f"figure 1: S_common's rank largely unaffected by α (topic {fig['topic']})"}

    def runs_of(track):
        s = syn[syn.track == track]
        return int(s.n_systems.max()) - 1 if len(s) else None

    mapped = _dlt20(mapping, stacked, runs_of, topics=False)   # one topic: its rarity needs every run
    rows = []
    for track, enough, note in mapped:
        s = syn[syn.track == track]
        if not len(s):
            for key in rows_of:
                rows.append(cell(STUDY, "figure 1", rows_of[key], "claim", HOLDS, NOT_HERE,
                                 f"no synthetic ranks of topic {fig['topic']} on {track}", track=track, needs=need))
            continue
        zero = s[s.alpha_value == 0].pivot_table(index="docs", columns="system", values="rank", aggfunc="first")
        both = zero.dropna() if {"rare", "common"} <= set(zero.columns) else zero.iloc[0:0]
        equal = bool(len(both)) and bool((both["rare"] == both["common"]).all())
        rows.append(_claim_cell("figure 1", rows_of["equal"], enough, equal,
                                f"{int((both['rare'] == both['common']).sum()) if len(both) else 0} of {len(both)} D "
                                f"equal; {note}".rstrip("; "), track,
                                f"ranks of S_rare and S_common by {FIGURE1_FAMILY} at α = 0, for every D both have",
                                need))
        spread = s.groupby(["system", "docs"])["rank"].agg(lambda r: r.max() - r.min()).groupby(level=0).max()
        common, rare = int(spread.get("common", 0)), int(spread.get("rare", 0))
        rows.append(_claim_cell("figure 1", rows_of["common"], enough, common < rare,
                                f"largest change of rank over α at one D: S_common {common}, S_rare {rare}; {note}"
                                .rstrip("; "), track,
                                f"by {FIGURE1_FAMILY}: S_common's largest change of rank over α (at one D) is smaller "
                                "than S_rare's (the paper's 'largely unaffected', read)", need))
    if not mapped:
        rows += [cell(STUDY, "figure 1", r, "claim", HOLDS, NOT_HERE, f"needs {need}", needs=need,
                      to_add=_add("DLT20")) for r in rows_of.values()]
    return rows


def tau_claim_rows(stacked: dict, mapping: dict | None) -> list[dict]:
    """Section 4.2's claim on DLT20 (module doc), per track mapped to DLT20."""
    tau = stacked.get("tau", pd.DataFrame(columns=["track", "measure", "alpha", "tau"]))
    tau = _numeric(tau) if len(tau) else tau.assign(alpha_value=[])
    disc = stacked.get("discriminative", pd.DataFrame(columns=["track", "runs"]))
    ref = published(STUDY)["DLT20"]
    need = f"{ref['collection']} ({ref['runs']} runs, {ref['topics']} topics)"
    row = f"section 4.2: on DLT20, τ(P@100, P@100_rareness) < {TAU_THRESHOLD:g} for every α > 0, not for AP"

    def runs_of(track):
        d = disc[disc.track == track]
        return int(d.runs.max()) if len(d) else None

    rows = []
    for track, enough, note in _dlt20(mapping, stacked, runs_of):
        t = tau[(tau.track == track) & (tau.alpha_value > 0)]
        p, ap = (t[t.measure.map(_family) == f].tau for f in ("P_rareness", "AP_rareness"))
        if not len(p) or not len(ap):
            rows.append(cell(STUDY, "section 4.2", row, "claim", HOLDS, NOT_HERE, f"no tau at α > 0 on {track}",
                             track=track, needs=need))
            continue
        holds = bool((p < TAU_THRESHOLD).all() and (ap >= TAU_THRESHOLD).all())
        said = (f"P_rareness τ {p.min():.3f} to {p.max():.3f}, AP_rareness τ {ap.min():.3f} to {ap.max():.3f} "
                "at α > 0")
        rows.append(_claim_cell("section 4.2", row, enough, holds, f"{said}; {note}".rstrip("; "), track,
                                f"Kendall's tau (tau table) of each family against α = 0, every numeric α > 0; AP's "
                                f"'not observed' read as τ >= {TAU_THRESHOLD:g} at every α > 0", need))
    if not rows:
        rows.append(cell(STUDY, "section 4.2", row, "claim", HOLDS, NOT_HERE, f"needs {need}", needs=need,
                         to_add=_add("DLT20")))
    return rows


def text_rows(stacked: dict, mapping: dict | None, ranges: pd.DataFrame) -> list[dict]:
    """Every row of this module (module doc); ``ranges``: :func:`value_ranges`."""
    return (pair_total_rows(stacked, mapping) + bounds_rows(ranges) + figure1_claim_rows(stacked, mapping)
            + tau_claim_rows(stacked, mapping))
