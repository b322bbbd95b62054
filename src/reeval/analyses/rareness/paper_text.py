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
  alpha > 0). The data: a track mapped to DLT20 with its task, runs and topics (``tau``);
- section 4.4's "we set R = 1000 but observed that the results largely converged after 100
  trials", per track mapped to a collection: read as every stability (families P_rareness
  and AP_rareness, every alpha) over the first 100 trials within 0.01 of that over all
  trials (``stability_100`` beside ``stability``). The data: the collection's task, runs
  and topics and the paper's 1000 trials (fewer: ``data not here``, the verdict beside
  when there are more than 100); then ``exact`` (converged) or ``differs``;
- section 4.5 (algorithm 1, table 3's mean tau of N sampled runs per N are table 3's cells,
  :mod:`.paper`): "correlation scores are generally very high, suggesting that rankings of
  systems are stable even though we use different sets of systems", read as every mean tau
  at table 3's alpha and N (2 to 64), both families, at least 0.9 (the paper's own threshold
  of acceptable correlation, section 4.2). The data: a track mapped to TREC-8 with its task,
  runs and topics (``n_systems``); then ``exact`` or ``differs``. The section's other
  sentences are its motivation ("retrieval-rarity depends on the participating systems": the
  definition of R(d)) and its method (algorithm 1, 1000 trials: the method column of table
  3's cells), no claim of their own to check.
"""

from __future__ import annotations

import pandas as pd

from reeval.analyses.papers.cells import DIFFERS, EXACT, NOT_HERE, cell
from reeval.analyses.papers.published import published

from .analysis import CONVERGENCE_TRIALS
from .paper import _data_note, paper_tracks

STUDY = "rareness"
#: the paper's measure of figure 1 and its tau threshold of section 4.2
FIGURE1_FAMILY, TAU_THRESHOLD = "P_rareness", 0.9
#: section 4.4: the paper's trials (R = 1000), and our reading of its "largely converged after
#: 100 trials": every stability over the first 100 within this of that over all trials
PAPER_TRIALS, CONVERGED_WITHIN = 1000, 0.01
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


def _held(mapping: dict | None, stacked: dict, runs_of, topics: bool = True) -> list[tuple[str, str, bool, str]]:
    """(track, collection, enough, note) for each track mapped to a collection of the paper:
    its task, runs (``runs_of(track)``) and, with ``topics``, topics (``stability``) against
    the collection's."""
    known = published(STUDY)
    stab = stacked.get("stability", pd.DataFrame(columns=["track", "topics"]))
    out = []
    for track, (collection, task) in paper_tracks(mapping).items():
        s = stab[stab.track == track]
        other, note = _data_note(track, task, known[collection], runs_of(track),
                                 s.topics.max() if topics and len(s) else None)
        out.append((track, collection, not other, note))
    return out


def _dlt20(mapping: dict | None, stacked: dict, runs_of, topics: bool = True) -> list[tuple[str, bool, str]]:
    """(track, enough, note) for each track mapped to DLT20 (:func:`_held`)."""
    return [(t, enough, note) for t, c, enough, note in _held(mapping, stacked, runs_of, topics) if c == "DLT20"]


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
    ref = published(STUDY)["DLT20"]
    need = f"{ref['collection']} ({ref['runs']} runs, {ref['topics']} topics)"
    row = f"section 4.2: on DLT20, τ(P@100, P@100_rareness) < {TAU_THRESHOLD:g} for every α > 0, not for AP"
    rows = []
    for track, enough, note in _dlt20(mapping, stacked, _runs_of(stacked)):
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


def _runs_of(stacked: dict):
    """track -> its runs (``discriminative``), None without a row."""
    disc = stacked.get("discriminative", pd.DataFrame(columns=["track", "runs"]))

    def runs_of(track):
        d = disc[disc.track == track]
        return int(d.runs.max()) if len(d) else None
    return runs_of


def convergence(stab: pd.DataFrame) -> tuple[bool, str] | None:
    """Section 4.4's "largely converged after 100 trials" on one track's ``stability`` rows:
    (whether every row's stability over its first :data:`CONVERGENCE_TRIALS` trials lies
    within :data:`CONVERGED_WITHIN` of that over all its trials, the largest gap and where);
    None when the rows have no more trials than that (nothing after 100 to converge to)."""
    if not len(stab) or int(stab.trials.max()) <= CONVERGENCE_TRIALS:
        return None
    gap = (stab.stability_100 - stab.stability).abs()
    worst = stab.loc[gap.idxmax()]
    return bool((gap <= CONVERGED_WITHIN + 1e-12).all()), (
        f"largest gap {gap.max():.4f} ({worst.measure}, α = {worst.alpha}: {worst.stability_100:.3f} after "
        f"{CONVERGENCE_TRIALS} trials, {worst.stability:.3f} after {int(worst.trials)})")


def convergence_rows(stacked: dict, mapping: dict | None) -> list[dict]:
    """Section 4.4's claim (:func:`convergence`), per track mapped to a collection of the
    paper: the data are the collection's task, runs and topics and the paper's
    :data:`PAPER_TRIALS` trials (fewer here: ``data not here``, the verdict beside when the
    run has more than 100); then ``exact`` when ours has converged by 100 trials, else
    ``differs``. No mapped track: one ``data not here`` row."""
    stab = stacked.get("stability", pd.DataFrame(columns=["track", "measure", "trials", "stability"]))
    stab = stab[stab.measure.map(_family).isin(("P_rareness", "AP_rareness"))] if len(stab) else stab
    row = f"section 4.4: stability largely converged after {CONVERGENCE_TRIALS} trials (of {PAPER_TRIALS})"
    need = f"a collection of the paper with its runs and topics, rareness.trials >= {PAPER_TRIALS}"
    method = (f"per measure (P_rareness, AP_rareness) and α: |stability over the first {CONVERGENCE_TRIALS} trials "
              f"- over all trials| (a prefix of the same samples, the first seed); converged when the largest is at "
              f"most {CONVERGED_WITHIN:g} (our reading of 'largely converged': a unit of the second decimal, the "
              "paper prints three)")
    def decide(track):
        s = stab[stab.track == track] if len(stab) else stab
        trials = int(s.trials.max()) if len(s) else 0
        few = f"{trials} trials here, {PAPER_TRIALS} in the paper" if trials < PAPER_TRIALS else ""
        result = convergence(s) if "stability_100" in s else None
        return result, few or ("" if result else f"no stability table of {track} after 100 trials")

    held = [(t, enough, note) for t, _, enough, note in _held(mapping, stacked, _runs_of(stacked))]
    return _track_claims("section 4.4", row, method, need, _add("<collection>"), held, decide)


def _track_claims(item: str, row: str, method: str, need: str, to_add: str, held, decide) -> list[dict]:
    """One claim cell per track of ``held`` ((track, its data are the collection's, what
    differs)): ``decide(track)`` gives (None or (holds, what was seen), what the run lacks,
    "" when nothing): no result or a lack -> ``data not here`` (the verdict beside when there
    is one), else ``exact`` or ``differs``. No track: one ``data not here`` row."""
    rows = []
    for track, enough, note in held:
        result, lacking = decide(track)
        if result is None:
            rows.append(cell(STUDY, item, row, "claim", HOLDS, NOT_HERE, "; ".join(x for x in (lacking, note) if x),
                             track=track, needs=need, method=method))
        else:
            rows.append(_claim_cell(item, row, enough and not lacking, result[0],
                                    "; ".join(x for x in (result[1], lacking, note) if x), track, method, need))
    if not rows:
        rows.append(cell(STUDY, item, row, "claim", HOLDS, NOT_HERE, f"needs {need}", needs=need, to_add=to_add,
                         method=method))
    return rows


def n_systems_claim_rows(stacked: dict, mapping: dict | None) -> list[dict]:
    """Section 4.5's claim on TREC-8 (module doc), per track mapped to TREC-8, from the
    ``n_systems`` table at table 3's alpha and sample sizes N."""
    t3 = published(STUDY)["TREC-8"]["table3"]
    ns = stacked.get("n_systems", pd.DataFrame(columns=["track", "measure", "alpha", "n_systems", "mean_tau"]))
    ns = _numeric(ns) if len(ns) else ns.assign(alpha_value=[])
    ns = ns[(ns.alpha_value == t3["alpha"]) & ns.n_systems.isin(t3["n_systems"])
            & ns.measure.map(_family).isin(("P_rareness", "AP_rareness"))]
    ref = published(STUDY)["TREC-8"]
    need = f"{ref['collection']} ({ref['runs']} runs, {ref['topics']} topics)"
    row = (f"section 4.5: the mean τ of N sampled runs against all runs is very high (>= {TAU_THRESHOLD:g}) "
           f"at every N of table 3")
    method = (f"algorithm 1 (n_systems table): mean Kendall τ over the trials, P_rareness and AP_rareness at α = "
              f"{t3['alpha']:g}, N = {', '.join(str(n) for n in t3['n_systems'])}; 'generally very high' read as "
              f"at least {TAU_THRESHOLD:g} (the paper's threshold of acceptable correlation, section 4.2) at every "
              "N; the paper's own table 3 holds it (0.970 at least). The section's other sentences, its motivation "
              "(rarity depends on the participating runs: the definition of R(d)) and algorithm 1 (the method of "
              "table 3's cells), state no result to check")
    def decide(track):
        t = ns[ns.track == track]
        if not len(t):
            return None, f"no mean τ at N of table 3 on {track}"
        low = t.loc[t.mean_tau.idxmin()]
        return (bool((t.mean_tau >= TAU_THRESHOLD).all()),
                f"lowest mean τ {low.mean_tau:.3f} ({low.measure}, N = {int(low.n_systems)}) over {len(t)} cells, "
                f"{int(t.trials.max())} trials each"), ""

    held = [(t, enough, note) for t, c, enough, note in _held(mapping, stacked, _runs_of(stacked)) if c == "TREC-8"]
    return _track_claims("section 4.5", row, method, need, _add("TREC-8"), held, decide)


def text_rows(stacked: dict, mapping: dict | None, ranges: pd.DataFrame) -> list[dict]:
    """Every row of this module (module doc); ``ranges``: :func:`value_ranges`."""
    return (pair_total_rows(stacked, mapping) + bounds_rows(ranges) + figure1_claim_rows(stacked, mapping)
            + tau_claim_rows(stacked, mapping) + convergence_rows(stacked, mapping)
            + n_systems_claim_rows(stacked, mapping))
