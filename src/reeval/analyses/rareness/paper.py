"""Our rareness tables beside the paper's (Türkmen, Lease & Kutlu, ECIR 2023, tables 1-4).

The paper's numbers are data (``reeval/analyses/papers/published.yaml``, key
``rareness``: one entry per collection, TREC-5, TREC-8, WT14, DLT20); which of our
tracks stands for which collection is configuration (``rareness.paper``: ``{track:
collection}`` or ``{track: {collection: DLT20, task: passage ranking}}``, the task when it
is not the collection's, so that every row comparing the two says so).

- :func:`comparison_rows`: one row per published cell (:mod:`reeval.analyses.papers.cells`):
  table 1 (pairs significant at 95% and 99%), table 2 (stability), table 3 (TREC-8: mean
  tau over samples of N runs) and table 4 (TREC-8 topic 431: the rarity of five documents).
  A collection no track stands for gives ``data not here`` rows naming what is needed.
- :func:`table1_markdown`, :func:`table2_markdown`, :func:`table3_markdown`,
  :func:`table4_markdown`: the tables in the paper's form, ours per track, the paper's values
  beside them where a track is mapped; table 1 with both methods and, beside the paper's
  claim that discriminative power rises with α, which way each moves (:func:`alpha_trend`).

Table 1's method is the authors' procedure (their released ``discriminative_power(...,
test='hsd')``: one two-group Tukey HSD per pair of runs, topics unpaired), a reading of the
paper's "Tukey HSD" inferred from their code, so a cell it prints is ``exact at an inferred
setting``; the topic-blocked HSD over all runs is the other reading, beside each cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reeval.analyses.papers.cells import (ANOTHER_METHOD, DIFFERS, EXACT, INFERRED, NOT_COMPUTED, NOT_HERE, cell,
                                          decimals, frame, monte_carlo_status)
from reeval.analyses.papers.published import published
from reeval.report.escape import markdown_text as escape
from reeval.report.markdown import fmt, table

from . import core as rr
from .claims import claim_rows
from .figures import n_systems_rows, numeric_alpha

STUDY = "rareness"
#: the paper's rows of tables 1 and 2: (family, alpha, as printed)
PAPER_ROWS = (("P_rareness", 0.0, "P@100"), ("P_rareness", 0.5, "P@100 rareness"), ("P_rareness", 1.0, "P@100 rareness"),
              ("AP_rareness", 0.0, "AP"), ("AP_rareness", 0.5, "AP rareness"), ("AP_rareness", 1.0, "AP rareness"))


def paper_tracks(mapping: dict | None) -> dict:
    """``{track: (collection, task)}`` from the ``rareness.paper`` option (task: the one
    given, else the collection's); ValueError naming a collection the paper does not have."""
    known = published(STUDY)
    out = {}
    for track, spec in (mapping or {}).items():
        collection, task = (spec, None) if isinstance(spec, str) else (spec.get("collection"), spec.get("task"))
        if collection not in known:
            raise ValueError(f"rareness.paper: {track}: no collection {collection!r} in the paper; "
                             f"known: {sorted(known)}")
        out[track] = (collection, task or known[collection]["task"])
    return out


def _name(family: str, k: int) -> str:
    return f"{family}@{k}"


def _one(df: pd.DataFrame, **where):
    """The first row of ``df`` matching ``where`` (column == value), None when there is none
    (taken by position: the frame is not copied, as a boolean selection would copy it)."""
    mask = np.ones(len(df), dtype=bool)
    for col, value in where.items():
        values = df[col].to_numpy()
        # an object column compared in numpy (elementwise ==, as pandas does), the rest by pandas
        mask &= (values == value) if values.dtype == object else (df[col] == value).to_numpy()
    return df.iloc[int(mask.argmax())] if mask.any() else None


def _data_note(track: str, task: str, ref: dict, runs, topics) -> tuple[bool, str]:
    """(whether ours is on other data than the paper's: another task, other runs or
    topics; the note saying how) for a mapped track."""
    parts = []
    if task != ref["task"]:
        parts.append(f"different task: {track} is {task}, the paper's collection {ref['task']}")
    if runs is not None and not (isinstance(runs, float) and math.isnan(runs)) and int(runs) != ref["runs"]:
        parts.append(f"{int(runs)} runs here, {ref['runs']} in the paper")
    if topics is not None and not (isinstance(topics, float) and math.isnan(topics)) and int(topics) != ref["topics"]:
        parts.append(f"{int(topics)} topics here, {ref['topics']} in the paper")
    return bool(parts), "; ".join(parts)


def _status(value_status: str, other_data: bool, note: str) -> tuple[str, str]:
    """The data decide first (../shared/DESIGN.md, "Paper comparisons"): a cell on other
    data than the paper's (another task, other runs or topics) is ``data not here``
    whatever its value, ours beside it (a coincidence is no reproduction)."""
    if other_data and value_status != NOT_HERE:
        return NOT_HERE, _join(note, "ours beside, on these data")
    if value_status == DIFFERS and not note:
        return DIFFERS, "cause unknown"
    return value_status, note


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def comparison_rows(stacked: dict, mapping: dict | None, options: dict, levels: dict | None = None) -> pd.DataFrame:
    """Every published cell of tables 1-4 beside ours (module doc). ``stacked``: the
    cross-track tables ``discriminative``, ``stability``, ``n_systems`` and ``table4``;
    ``options``: the ``rareness`` config section (k, trials, seed, fuzziness ...);
    ``levels``: track -> relevance level (for the method column)."""
    known, tracks = published(STUDY), paper_tracks(mapping)
    levels = levels or {}
    rows, held, one_topic = [], {}, {}
    for collection, ref in known.items():
        mapped = [t for t, (c, _) in tracks.items() if c == collection]
        if not mapped:
            rows += _not_here(collection, ref)
            continue
        for track in mapped:
            rows += _mapped_rows(stacked, track, tracks[track][1], collection, ref, options, levels.get(track))
            held[track] = (collection, *_holds(stacked, track, tracks[track][1], ref))
            one_topic[track] = (collection, *_holds(stacked, track, tracks[track][1], ref, topics=False))
    return frame(rows + claim_rows(stacked, held, one_topic))


def _holds(stacked: dict, track: str, task: str, ref: dict, topics: bool = True) -> tuple[bool, str]:
    """(whether ``track`` holds the collection ``ref`` describes: its task, runs and, with
    ``topics``, topics; what differs) from the track's discriminative and stability rows.
    Without ``topics`` for figure 1, read on one topic: its rarity needs every run, not the
    other topics (as :func:`.paper_text.figure1_claim_rows`)."""
    disc, stab = (stacked[name][stacked[name].track == track] for name in ("discriminative", "stability"))
    other, note = _data_note(track, task, ref, disc.runs.max() if len(disc) else None,
                             stab.topics.max() if topics and len(stab) else None)
    return not other, note


def _not_here(collection: str, ref: dict) -> list:
    dataset = f"{ref['collection']} ({ref['runs']} runs, {ref['topics']} topics)"
    need = f"needs {dataset}"
    where = dict(needs=dataset,
                 to_add=f"its qrels and runs under `tracks:` and `rareness: {{paper: {{<track>: {collection}}}}}`")
    out = []
    for r, (_, _, label) in zip(ref["rows"], PAPER_ROWS):
        for item, column, key in (("table 1", f"{collection} 95%", "significant_95"),
                                  ("table 1", f"{collection} 99%", "significant_99"),
                                  ("table 2", collection, "stability")):
            out.append(cell(STUDY, item, f"{label}, α = {r['alpha']:g}", column, r[key], NOT_HERE, need, **where))
    if "table3" in ref:
        t3 = ref["table3"]
        for family in ("P_rareness", "AP_rareness"):
            for n, v in zip(t3["n_systems"], t3[family]):
                out.append(cell(STUDY, "table 3", f"{family}@100 (α = {t3['alpha']:g})", f"N = {n}", f"{v:.3f}",
                                NOT_HERE, need, **where))
    if "table4" in ref:
        for d in ref["table4"]["documents"]:
            out.append(cell(STUDY, "table 4", f"topic {ref['table4']['topic']}, {d['docno']}", "rareness",
                            f"{d['rarity']:.2f}", NOT_HERE, need, **where))
    return out


@dataclass
class _Track:
    """What every row of one mapped track shares."""
    track: str
    collection: str
    ref: dict
    k: int
    level_text: str
    other_data: bool
    data_note: str
    seed: int

    def status(self, value_status: str) -> tuple[str, str]:
        return _status(value_status, self.other_data, self.data_note)

    def name(self, family: str) -> str:
        return _name(family, self.k)


def _mapped_rows(stacked: dict, track: str, task: str, collection: str, ref: dict, opts: dict, level) -> list:
    """Every published cell of ``collection`` beside ``track``'s values."""
    disc = stacked["discriminative"][stacked["discriminative"].track == track]
    stab = stacked["stability"][stacked["stability"].track == track]
    same, data = _holds(stacked, track, task, ref)
    other_data = not same
    if level not in (None, 1):  # the authors' code counts grade >= 1 as relevant
        data = _join(data, f"relevance >= {level} here, >= 1 in the authors' code")
    t = _Track(track, collection, ref, int(opts["k"]),
               f"relevance >= {level}" if level is not None else "the track's relevance level",
               other_data, data, int(opts["seed"]))
    out = []
    for r, (_, _, label) in zip(ref["rows"], PAPER_ROWS):
        row = f"{label}, α = {r['alpha']:g}"
        where = {"measure": t.name(r["measure"]), "alpha": rr.alpha_label(r["alpha"])}
        out += _table1_cells(t, _one(disc, **where, method="authors"), _one(disc, **where, method="blocked"), r, row)
        out.append(_table2_cell(t, _one(stab, measure=t.name(r["measure"]), alpha=rr.alpha_label(r["alpha"])), r, row))
    if "table3" in ref:
        out += _table3_rows(t, stacked["n_systems"][stacked["n_systems"].track == track])
    if "table4" in ref:
        out += _table4_rows(t, stacked["table4"][stacked["table4"].track == track])
    return out


#: table 1's method: the paper says "Tukey HSD"; which one is inferred from the authors' code
TABLE1_INFERRED = ("inferred: the paper says Tukey's HSD; its authors' released code runs one two-group Tukey HSD "
                   "per pair of runs, topics unpaired")


def _table1_cells(t: _Track, d, blocked, r: dict, row: str) -> list:
    """Table 1's two cells (95%, 99%) of one paper row; ``d``: our discriminative row by the
    authors' procedure (the paper's "Tukey HSD" read as their per-pair HSD: an inferred
    setting, :data:`TABLE1_INFERRED`), ``blocked``: by the topic-blocked HSD over all runs
    (the other reading, beside: ``reproduced by another method`` when it alone prints the
    paper's value)."""
    out = []
    for level_pct, key in ((95, "significant_95"), (99, "significant_99")):
        column = f"{t.collection} {level_pct}%"
        if d is None:
            out.append(cell(STUDY, "table 1", row, column, r[key], NOT_HERE,
                            f"{t.name(r['measure'])} at α = {r['alpha']:g} not computed (rareness.measures, alpha, k)",
                            track=t.track))
            continue
        ours = float(d[key])
        other = (f"topic-blocked Tukey HSD over all {int(d['runs'])} runs",
                 str(int(blocked[key])) if blocked is not None else NOT_COMPUTED)
        value_status = (INFERRED if ours == r[key] else ANOTHER_METHOD if other[1] == str(int(r[key]))
                        else DIFFERS)
        status, note = t.status(value_status)
        share = f"share of pairs: paper {r[key] / t.ref['pairs']:.3f}, ours {ours / d['pairs']:.3f}" if d["pairs"] else ""
        out.append(cell(STUDY, "table 1", row, column, r[key], status, _join(note, share), ours=ours, digits=0,
                        track=t.track, other_setting=other[0], other_value=other[1],
                        method=f"Tukey HSD per pair of runs ({TABLE1_INFERRED}), {level_pct}%, {int(d['pairs'])} "
                               f"run pairs; k = {t.k}, {t.level_text}"))
    return out


def _table2_cell(t: _Track, s, r: dict, row: str) -> dict:
    """Table 2's cell of one paper row; ``s``: our stability row (its range over seeds)."""
    published_text = f"{r['stability']:.3f}"
    if s is None:
        return cell(STUDY, "table 2", row, t.collection, published_text, NOT_HERE,
                    f"{t.name(r['measure'])} at α = {r['alpha']:g} not computed", track=t.track)
    digits = decimals(published_text)
    status, note = t.status(monte_carlo_status(r["stability"], float(s.stability), float(s.stability_low),
                                               float(s.stability_high), digits))
    return cell(STUDY, "table 2", row, t.collection, published_text, status,
                _join(note, f"ours {s.stability_low:.3f} to {s.stability_high:.3f} over {int(s.seeds)} seeds"),
                ours=float(s.stability), low=float(s.stability_low), high=float(s.stability_high), digits=digits,
                track=t.track,
                method=f"Buckley & Voorhees: {int(s.trials)} trials of {int(s.sampled_topics)} of {int(s.topics)} "
                       f"topics, fuzziness {s.fuzziness:g} ({s.fuzziness_scale}); seeds {t.seed}-"
                       f"{t.seed + int(s.seeds) - 1}; k = {t.k}, {t.level_text}")


def _table3_rows(t: _Track, ns: pd.DataFrame) -> list:
    """Table 3 (TREC-8): mean tau per N at alpha = 1; the Monte Carlo interval is ours ± 2
    standard errors over the trials (sd_tau / sqrt(valid trials))."""
    t3, out = t.ref["table3"], []
    for family in ("P_rareness", "AP_rareness"):
        for n, v in zip(t3["n_systems"], t3[family]):
            r = _one(ns, measure=t.name(family), alpha=rr.alpha_label(t3["alpha"]), n_systems=n)
            row, column = f"{family}@100 (α = {t3['alpha']:g})", f"N = {n}"
            if r is None:
                out.append(cell(STUDY, "table 3", row, column, f"{v:.3f}", NOT_HERE,
                                _join(t.data_note, f"N = {n} not sampled (more than the track's runs, or not in "
                                                   "rareness.n_systems)"), track=t.track))
                continue
            se = float(r.sd_tau) / math.sqrt(r.valid_trials) if r.valid_trials > 1 else 0.0
            low, high = float(r.mean_tau) - 2 * se, float(r.mean_tau) + 2 * se
            status, note = t.status(monte_carlo_status(v, float(r.mean_tau), low, high, 3))
            out.append(cell(STUDY, "table 3", row, column, f"{v:.3f}", status,
                            _join(note, f"ours {low:.3f} to {high:.3f} (mean ± 2 standard errors over the trials)"),
                            ours=float(r.mean_tau), low=low, high=high, digits=3, track=t.track,
                            method=f"algorithm 1: {int(r.trials)} samples of N runs, rareness over the sample, "
                                   f"Kendall tau-b with the full ranking; seed {t.seed}; k = {t.k}, {t.level_text}"))
    return out


def _table4_rows(t: _Track, t4: pd.DataFrame) -> list:
    """Table 4 (TREC-8 topic 431): the rarity of the paper's five documents, 2 decimals."""
    topic, out = t.ref["table4"]["topic"], []
    t4 = t4[t4.qid.astype(str) == str(topic)]
    for d in t.ref["table4"]["documents"]:
        r = _one(t4, docno=d["docno"])
        row = f"topic {topic}, {d['docno']}"
        if r is None or math.isnan(float(r.rarity)):
            why = (f"topic {topic} is not the configured table 4 topic of {t.track} (rareness.table4.topics)"
                   if t4.empty else f"{d['docno']} is not a relevant document found by a run of {t.track}")
            out.append(cell(STUDY, "table 4", row, "rareness", f"{d['rarity']:.2f}", NOT_HERE,
                            _join(t.data_note, why), track=t.track))
            continue
        status, note = t.status(EXACT if f"{float(r.rarity):.2f}" == f"{d['rarity']:.2f}" else DIFFERS)
        out.append(cell(STUDY, "table 4", row, "rareness", f"{d['rarity']:.2f}", status, note,
                        ours=float(r.rarity), digits=2, track=t.track,
                        method=f"R(d) = 1 - S_d/S, S = {int(r.n_systems)} runs; k = {t.k}, {t.level_text}"))
    return out


# ------------------------------------------------------------------ the tables in the paper's form

#: the paper's claim about table 1 (section 4.3), which :func:`alpha_trend` checks on our tracks
ALPHA_CLAIM = "Increasing α tends to increase discriminative power across test collections."


def _direction(first: int, last: int) -> str:
    return "rises" if last > first else "falls" if last < first else "stays"


def alpha_trend(disc: pd.DataFrame) -> pd.DataFrame:
    """Which way discriminative power moves from α = 0 to the largest numeric α, per track,
    measure, method and level: track, measure, method, level, alphas (``0 -> 1``), first,
    last, direction (``rises``, ``falls`` or ``stays``). Tracks without α = 0 or a larger
    numeric α give no row."""
    cols = ["track", "measure", "method", "level", "alphas", "first", "last", "direction"]
    num = numeric_alpha(disc)
    rows = []
    for (track, measure, method), g in num.groupby(["track", "measure", "method"], sort=True):
        zero, top = g[g.alpha_value == 0], g[g.alpha_value == g.alpha_value.max()]
        if zero.empty or g.alpha_value.max() <= 0:
            continue
        for level in ("95", "99"):
            first, last = int(zero[f"significant_{level}"].iloc[0]), int(top[f"significant_{level}"].iloc[0])
            rows.append({"track": track, "measure": measure, "method": method, "level": f"{level}%",
                         "alphas": f"0 -> {top.alpha.iloc[0]}", "first": first, "last": last,
                         "direction": _direction(first, last)})
    return pd.DataFrame(rows, columns=cols)


def table1_markdown(disc: pd.DataFrame, mapping: dict | None, k: int) -> str:
    """Table 1 as the paper prints it, per track: pairs significant at 95% and 99% by the
    authors' procedure and by the topic-blocked HSD, the paper's column beside a mapped
    track; then the paper's claim (:data:`ALPHA_CLAIM`) and which way each method moves on
    each track (:func:`alpha_trend`). "" without a row."""
    if disc.empty:
        return ""
    known, mapped = published(STUDY), paper_tracks(mapping)
    parts = []
    for track in sorted(disc.track.unique()):
        d = disc[disc.track == track]
        out = pd.DataFrame({"metric": [label for _, _, label in PAPER_ROWS],
                            "α": [f"{a:g}" for _, a, _ in PAPER_ROWS]})
        for method, head in (("authors", "authors' procedure"), ("blocked", "topic-blocked HSD")):
            for level in ("95", "99"):
                vals = [_one(d, measure=_name(f, k), alpha=rr.alpha_label(a), method=method) for f, a, _ in PAPER_ROWS]
                out[f"{head} {level}%"] = ["n/a" if v is None else fmt(int(v[f"significant_{level}"])) for v in vals]
        if track in mapped:
            collection, task = mapped[track]
            ref = known[collection]
            note = "" if task == ref["task"] else f" ({ref['task']}, not {task})"
            for level in ("95", "99"):
                out[f"paper: {collection}{note} {level}%"] = [fmt(r[f"significant_{level}"]) for r in ref["rows"]]
        pairs = int(d.pairs.max())
        parts.append(f"**{escape(track)}**: {int(d.runs.max())} runs, {pairs:,} pairs.\n\n" + table(out))
    trend = alpha_trend(disc)
    if len(trend):
        wide = trend.assign(moves=[f"{a} -> {b} ({m})" for a, b, m in zip(trend["first"], trend["last"],
                                                                           trend.direction)])
        wide = wide.pivot_table(index=["track", "measure", "level", "alphas"], columns="method", values="moves",
                                aggfunc="first").reset_index()
        wide.columns.name = None
        wide = wide.rename(columns={"authors": "authors' procedure", "blocked": "topic-blocked HSD"})
        tally = "; ".join(
            f"{head}: rises in {(g.direction == 'rises').sum()}, stays in {(g.direction == 'stays').sum()}, "
            f"falls in {(g.direction == 'falls').sum()} of {len(g)}"
            for method, head in (("authors", "the authors' procedure"), ("blocked", "the topic-blocked HSD"))
            for g in [trend[trend.method == method]] if len(g))
        parts.append(f"The paper (section 4.3): \"{ALPHA_CLAIM}\" On our tracks ({tally} track x measure x level "
                     "rows), pairs significant at α = 0 and at the largest α, and which way each method moves:\n\n"
                     + table(wide))
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"


def table2_markdown(stability: pd.DataFrame, mapping: dict | None, k: int) -> str:
    """Table 2 as the paper prints it (rows: P@100, P rareness at 0.5 and 1, AP ...; one
    column per track, ours with the range over seeds), the paper's column beside each
    mapped track. "" without a row."""
    if stability.empty:
        return ""
    tracks, known = sorted(stability.track.unique()), published(STUDY)
    mapped = paper_tracks(mapping)
    out = pd.DataFrame({"metric": [label for _, _, label in PAPER_ROWS],
                        "α": [f"{a:g}" for _, a, _ in PAPER_ROWS]})
    for track in tracks:
        s = stability[stability.track == track]
        vals = []
        for family, alpha, _ in PAPER_ROWS:
            r = _one(s, measure=_name(family, k), alpha=rr.alpha_label(alpha))
            vals.append("n/a" if r is None else f"{r.stability:.3f}" + (
                f" ({r.stability_low:.3f}-{r.stability_high:.3f})" if r.seeds > 1 else ""))
        out[track] = vals
        if track in mapped:
            collection, task = mapped[track]
            ref = known[collection]
            head = f"paper: {collection}" + ("" if task == ref["task"] else f" ({ref['task']}, not {task})")
            out[head] = [f"{r['stability']:.3f}" for r in ref["rows"]]
    first = stability.iloc[0]
    return (f"Stability over {int(first.trials)} trials of half the topics; two runs tie when their means differ "
            f"by at most {first.fuzziness:g} ({first.fuzziness_scale}); in brackets the range over "
            f"{int(first.seeds)} seeds.\n\n" + table(out))


def table3_markdown(n_systems: pd.DataFrame, mapping: dict | None) -> str:
    """Table 3 as the paper prints it: per track and measure at the largest alpha, mean tau
    per N; the paper's TREC-8 rows beside a track mapped to TREC-8, else below, marked."""
    t3 = published(STUDY)["TREC-8"]["table3"]
    mapped = [t for t, (c, _) in paper_tracks(mapping).items() if c == "TREC-8"]
    rows = []
    largest = pd.concat([n_systems_rows(g) for _, g in n_systems.groupby("track")]) if len(n_systems) else n_systems
    for (track, measure, alpha), g in largest.groupby(["track", "measure", "alpha"], sort=True):
        rows.append({"track": track, "measure": f"{measure} (α = {alpha})",
                     **{f"N = {n}": fmt(float(v), 3) for n, v in zip(g.n_systems, g.mean_tau)}})
    for family in ("P_rareness", "AP_rareness"):
        label = "paper: TREC-8" + ("" if mapped else " (no track here)")
        rows.append({"track": label, "measure": f"{family}@100 (α = {t3['alpha']:g})",
                     **{f"N = {n}": f"{v:.3f}" for n, v in zip(t3["n_systems"], t3[family])}})
    out = pd.DataFrame(rows).fillna("")
    return table(out)


def table4_markdown(t4: pd.DataFrame, rarest: int = 10) -> str:
    """Table 4 per track: its topic's ``rarest`` rarest relevant documents found by a run
    (docno, grade, rarity, the runs that retrieved them), and how many no run found."""
    parts = []
    for track, g in t4.groupby("track", sort=True):
        found = g[g.c_k > 0]
        parts.append(f"**{escape(track)}**, topic {escape(g.qid.iloc[0])}: {len(g)} relevant documents, {len(found)} found by a run"
                     f" in its top {int(g.k.iloc[0])}, {len(g) - len(found)} by none.\n")
        if len(found):
            shown = found.head(rarest)
            parts.append(table(pd.DataFrame({"docno": shown.docno, "grade": shown.grade,
                                             "rarity R(d)": [f"{v:.2f}" for v in shown.rarity],
                                             "runs": shown.c_k, "retrieved by": shown.retrieved_by})))
    return "\n".join(parts)
