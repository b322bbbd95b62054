"""Numbers of the ASL paper's text beside ours (``published.yaml``, key ``asl_text``), as rows
of :func:`reeval.analyses.asl.paper.paper_rows` (:data:`reeval.analyses.asl.paper.ROW_COLUMNS`).

Each cell's status is decided from the data it needs, then from its value:

- appendix A.1's worked example, value by value: the paper's inputs are the data (always
  here). The paper's words define the swap: each search length SL_i, weighted by its
  precision w_i = 1/SL_i in the P-space average (eq. 14-15), is replaced by the value x_i that
  keeps the average when its weight is 1 and the others keep theirs:
  (sum_{j != i} SL_j w_j + x_i) / (sum_{j != i} w_j + 1) = H, H = n / sum 1/SL_j (the
  harmonic mean), so x_i = 1 + H (1 - 1/SL_i) (:func:`equal_average_swap`). ``exact`` when ours
  prints as the paper's value (its decimals), else ``differs``;
- section 4.1's 76 tracks, 4,302 run identifiers and 5,043 queries (:func:`count_rows`,
  :func:`count_status`): at the stated setting, the tracks the paper's stated criteria keep
  (``study.scope: asl-paper``: tracks and run files from the manifest, i.e. the catalog;
  queries from the study once every track of that scope is included), and at reeval's
  inferred setting, those criteria restricted to ad hoc tasks (``asl-paper-adhoc``,
  :data:`ADHOC_READING`). ``exact`` when the stated setting gives the paper's number;
  ``exact at an inferred setting`` when only the ad hoc reading does (for run files and
  queries only when it also gives the paper's 76 tracks: over other tracks a total says
  nothing), naming it and the stated setting's value; ``differs`` otherwise; ``data not
  here`` while the stated setting's number is unknown (no manifest; queries before the
  fetch), ours over the tracks here beside;
- section 4.3's "from 51 to rank 6" (table 1's passage ASL@g1-10, BM25 -> neural): the status
  of table 1's two cells together (:func:`fifty_one_to_six`): ``data not here`` when either
  is, ``exact`` when both are, else ``differs``;
- section 4.4's "at least one system in each track jumped above or below roughly half of
  its competitors on average" (:func:`jumped_half_rows`): the mean over tracks of each
  track's largest delta-sort for the Cumulative comparison (MAP -> ASL, table 2's row),
  read as :data:`ROUGHLY_HALF`. Over the paper's track set (:func:`track_set_sufficiency`,
  an inferred setting, :data:`TRACK_SET_READING`): ``exact at an inferred setting`` when the
  mean is in the reading's bounds, else ``differs``; not held or no track: ``data not
  here``, ours beside;
- section 4.5 on figure 5's system, the best 2020 passage run by ASL at table 1's settings:
  its ASL@g1-10 ("only 5") and its relevant passages with more than 900 irrelevant ones
  above them ("over 750"). The best may be any run of the campaign, so the data suffice when
  every run of the campaign is here (:func:`best_passage_rows`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reeval.analyses.papers.cells import DIFFERS, EXACT, INFERRED, NOT_HERE, decimals, printed
from reeval.analyses.papers.published import published

from .views import best_and_median_run

#: how reeval reads the paper's track set (it names none): an inferred setting
TRACK_SET_READING = ("the track set inferred: the paper names no track; study.scope asl-paper applies its stated "
                     "criteria to the catalog's tracks (a superset of the paper's 76: docs/trec-archive.md)")
#: the two settings of section 4.1's counts: study.scope -> what it is
STATED, ADHOC = "asl-paper", "asl-paper-adhoc"
ADHOC_READING = ("inferred setting: the stated criteria restricted to the catalog's ad hoc tasks (study.scope "
                 "asl-paper-adhoc); the paper names no task, its 76 tracks suggest it kept ad hoc ones")
#: how section 4.4's "roughly half" is read: the mean largest delta-sort, in %, within these bounds
ROUGHLY_HALF = (40.0, 60.0)
A1_METHOD = ("x_i = 1 + H (1 - 1/SL_i), H = n / sum 1/SL: the value that, given weight 1 instead of "
             "1/SL_i, keeps the P-space average (appendix A.1's words; eq. 14-15)")


def equal_average_swap(search_lengths) -> np.ndarray:
    """Appendix A.1's swap (module doc): ``x_i = 1 + H (1 - 1/SL_i)`` with ``H`` the harmonic
    mean of the search lengths; their arithmetic mean is ``H``. ValueError for an empty list
    or a search length below 1."""
    sl = np.asarray(search_lengths, dtype=float)
    if sl.size == 0 or not np.all(sl >= 1):
        raise ValueError(f"search lengths must be >= 1 and at least one, got {list(search_lengths)}")
    h = sl.size / np.sum(1.0 / sl)
    return 1.0 + h * (1.0 - 1.0 / sl)


def value_status(ours: float, published_text: str) -> str:
    """``exact`` when ``ours`` prints as ``published_text`` (its decimals), ``differs``
    otherwise, ``data not here`` for NaN."""
    if ours is None or math.isnan(ours):
        return NOT_HERE
    return EXACT if printed(ours, decimals(published_text)) == str(published_text).strip() else DIFFERS


def _row(item, row, column, published_text, ours, method, status, note) -> dict:
    """A row of :func:`reeval.analyses.asl.paper.paper_rows` (its ``ROW_COLUMNS``), ours
    printed with the published text's decimals."""
    text = printed(ours, decimals(published_text)) if ours is not None and not math.isnan(ours) else ""
    ours = math.nan if ours is None else float(ours)
    return {"paper": "asl", "item": item, "row": row, "column": column, "published": str(published_text),
            "ours": ours, "ours_low": ours, "ours_high": ours, "reproduced": text, "method": method,
            "status": status, "note": note}


def worked_example_rows(ref: dict | None = None) -> list[dict]:
    """Appendix A.1's worked example: one row per input search length (module doc)."""
    ref = ref or published("asl_text")["worked_example"]
    ours = equal_average_swap(ref["search_lengths"])
    rows = []
    for i, (sl, text, x) in enumerate(zip(ref["search_lengths"], ref["printed"], ours), start=1):
        status = value_status(float(x), text)
        note = "" if status == EXACT else \
            f"ours {x:.4f} prints {printed(float(x), decimals(text))}, the paper {text}: cause unknown"
        rows.append(_row("appendix A.1 worked example", f"SL {i} = {sl:g}", "equal-average SL", text, float(x),
                         A1_METHOD, status, note))
    return rows


def track_set_sufficiency(scope: str | None, planned, included) -> tuple[bool, str]:
    """Whether the study holds the paper's track set as its stated criteria give it: the
    study applies ``study.scope: asl-paper`` and every track of it (``planned``) is among the
    ``included`` ones. The one rule for every ASL cell over the paper's tracks (table 2,
    appendix A.1, the headline claims, section 4.1's counts): the paper names no track, and
    its totals (76 tracks, 4,302 runs) are cells to compare, not the data's definition (a
    rule requiring them could only say ``exact``). Returns (sufficient, ``"70 of the 71
    tracks ..."``)."""
    planned, included = {str(t) for t in (() if planned is None else planned)}, {str(t) for t in included}
    if scope != "asl-paper":
        return False, f"study.scope {scope or 'all'}: not the paper's track criteria"
    here = len(planned & included)
    said = f"{here} of the {len(planned)} tracks the paper's stated criteria keep (study.scope asl-paper)"
    return bool(planned) and planned <= included, said


def count_status(published: int, stated: int | None, inferred: int | None, inferred_holds: bool = True) -> str:
    """Section 4.1's rule for one count: ``exact`` when the stated setting's count
    (``stated``) is the paper's; ``exact at an inferred setting`` when the inferred
    setting's (``inferred``) is and ``inferred_holds`` (for run files and queries: the
    inferred setting also gives the paper's track count); ``data not here`` when the stated
    count is unknown (None); ``differs`` otherwise."""
    if stated is not None and stated == published:
        return EXACT
    if inferred_holds and inferred is not None and inferred == published:
        return INFERRED
    return NOT_HERE if stated is None else DIFFERS


def _complete(planned, included) -> bool:
    """Every track of the study's scope (``planned``, not empty) is included."""
    planned = {str(t) for t in planned or ()}
    return bool(planned) and planned <= {str(t) for t in included}


def count_rows(head: pd.DataFrame, topics: dict, scope: str | None, planned, sets: dict | None = None,
               ref: dict | None = None) -> list[dict]:
    """Section 4.1's counts (module doc, :func:`count_status`): tracks, run identifiers and
    queries beside the paper's. ``sets``: ``{"asl-paper": {"tracks", "runs"}, "asl-paper-adhoc":
    {...}}`` from the manifest (:func:`reeval.archive.scope.paper_track_sets`; None without
    a manifest); ``head``: the study's included tracks (``track``, ``n_runs``); ``topics``:
    track -> topics its measures average over, summed as the queries of the study's scope
    when every track of it (``planned``) is included."""
    ref = ref or published("asl_text")["counts"]
    sets = sets or {}
    tracks = [str(t) for t in head.track] if len(head) else []
    here = {"tracks": len(tracks), "runs": int(head.n_runs.sum()) if len(head) else 0,
            "queries": int(sum(int(topics.get(t, 0)) for t in tracks))}
    values = {name: {k: (sets.get(name) or {}).get(k) for k in ("tracks", "runs")} for name in (STATED, ADHOC)}
    for name in (STATED, ADHOC):
        values[name]["queries"] = here["queries"] if scope == name and _complete(planned, tracks) else None
    method = {"tracks": "tracks of the setting (the manifest, generated from the TREC catalog)",
              "runs": "run files of the setting's tracks (the manifest)",
              "queries": "topics each included track's measures average over, summed over the setting's tracks"}
    rows = []
    for key, label in (("tracks", "tracks"), ("runs", "run identifiers"), ("queries", "queries")):
        published_value = int(ref[key])
        stated, inferred = values[STATED][key], values[ADHOC][key]
        holds = key == "tracks" or values[ADHOC]["tracks"] == int(ref["tracks"])
        status = count_status(published_value, stated, inferred, holds)
        shown = {name: "not known" if v is None else f"{v:,}" for name, v in ((STATED, stated), (ADHOC, inferred))}
        settings = f"stated criteria (asl-paper) {shown[STATED]}; ad hoc reading (asl-paper-adhoc) {shown[ADHOC]}"
        if status == INFERRED:
            ours, note = inferred, f"{ADHOC_READING}; at the stated setting (asl-paper) ours {shown[STATED]}"
        elif status == NOT_HERE:
            ours, note = here[key], (f"ours {here[key]:,} on the {len(tracks)} tracks here; the stated setting's "
                                     f"count needs " + ("the manifest" if key != "queries" else
                                                        "every track of study.scope asl-paper included")
                                     + f"; {settings}")
        else:
            ours, note = stated, settings + ("" if status == EXACT else
                                             "; docs/trec-archive.md: per year, what the settings keep and why")
        rows.append(_row("section 4.1", "the reanalysed TREC tracks", label, str(ref[key]), float(ours),
                         method[key], status, note))
    return rows


def fifty_one_to_six(table1_rows: list[dict], ref: dict | None = None) -> list[dict]:
    """Section 4.3's "from 51 to rank 6" from table 1's passage ASL@g1-10 cells (rows of
    :func:`reeval.analyses.asl.paper.paper_rows`): both here and exact: ``exact``; either not
    here: ``data not here``; both exact, one at an inferred setting: ``exact at an inferred
    setting``; else ``differs``."""
    ref = ref or published("asl_text")["fifty_one_to_six"]
    cells = {r["column"]: r for r in table1_rows if r["item"] == "table 1" and r["row"] == "ASL@g1-10"}
    pair = [cells.get("passages BM25"), cells.get("passages neural")]
    published_text = f"{ref['bm25']} to {ref['neural']}"
    method = "table 1's passage ASL@g1-10 cells, BM25 -> neural (the best run of each group)"
    if any(c is None for c in pair):
        return [_row("section 4.3", "passages ASL@g1-10, BM25 -> neural", "average rank", published_text, None,
                     method, NOT_HERE, "table 1's passage cells are not computed")]
    statuses = [c["status"] for c in pair]
    status = (NOT_HERE if NOT_HERE in statuses else EXACT if statuses == [EXACT, EXACT]
              else INFERRED if set(statuses) <= {EXACT, INFERRED} else DIFFERS)
    ours = " to ".join(c["reproduced"] or "n/a" for c in pair)
    row = _row("section 4.3", "passages ASL@g1-10, BM25 -> neural", "average rank", published_text, None, method,
               status, f"ours {ours}; as table 1's cells: " + "; ".join(c["note"] for c in pair if c["note"]))
    row["reproduced"] = ours if all(c["reproduced"] for c in pair) else ""
    return [row]


def jumped_half_status(mean_delta_sort: float, enough: bool) -> str:
    """Section 4.4's rule (module doc): ``data not here`` without the paper's track set
    (``enough`` False) or a mean (NaN); ``exact at an inferred setting`` when the mean
    largest delta-sort (%) is within :data:`ROUGHLY_HALF`; ``differs`` otherwise."""
    if not enough or mean_delta_sort is None or math.isnan(mean_delta_sort):
        return NOT_HERE
    return INFERRED if ROUGHLY_HALF[0] <= mean_delta_sort <= ROUGHLY_HALF[1] else DIFFERS


def jumped_half_rows(table2: pd.DataFrame, enough: tuple[bool, str], ref: str | None = None) -> list[dict]:
    """Section 4.4's claim from table 2's Cumulative row (``table2``:
    :func:`reeval.analyses.asl.study.reordering_across_tracks`; ``enough``:
    :func:`track_set_sufficiency`): the mean over tracks of each track's largest delta-sort
    (``delta_sort_mean``) beside the paper's words (:func:`jumped_half_status`)."""
    ref = ref or published("asl_text")["jumped_half"]
    cum = table2[table2.comparison == "cumulative"] if len(table2) and "comparison" in table2 else table2.iloc[:0]
    mean = float(cum.delta_sort_mean.iloc[0]) if len(cum) else math.nan
    tracks = int(cum.n_tracks.iloc[0]) if len(cum) else 0
    held, said = enough
    status = jumped_half_status(mean, held)
    method = ("table 2's Cumulative row (MAP -> ASL): each track's largest delta-sort, averaged over the tracks; "
              f"\"roughly half\" read as {ROUGHLY_HALF[0]:g}% to {ROUGHLY_HALF[1]:g}% of its competitors")
    if math.isnan(mean):
        note = "no track with a delta-sort"
    elif status == NOT_HERE:
        note = f"ours {mean:.0f}% over {tracks} tracks, on {said}: needs the paper's track set"
    else:
        note = f"ours {mean:.0f}% over {tracks} tracks, on {said}; {TRACK_SET_READING}"
    row = _row("section 4.4", "at least one system per track jumped above or below", "mean largest delta-sort",
               str(ref), mean, method, status, note)
    row["reproduced"] = "" if math.isnan(mean) else f"{mean:.0f}%"
    return [row]


def campaign_sufficiency(runs, campaign: dict) -> tuple[bool, str]:
    """Whether every run of the campaign (``campaign``: runs, run_names) is among ``runs``, and
    ``"12 of the campaign's 59 runs"``; without the names, the number of runs decides."""
    runs = set(map(str, runs))
    names = [str(n) for n in campaign.get("run_names") or []]
    here = len(runs & set(names)) if names else min(len(runs), int(campaign["runs"]))
    enough = (set(names) <= runs) if names else len(runs) >= int(campaign["runs"])
    return enough, f"{here} of the campaign's {campaign['runs']} runs"


def irrelevant_above(docs: pd.DataFrame) -> np.ndarray:
    """Per relevant document of a per-document table at eq. 3 (:func:`reeval.measures.asl.per_document`,
    ``unretrieved="eq3"``): the irrelevant documents ranked above it, ASL_qd - 1 when retrieved,
    irrel_q (its ASL under eq. 3: every irrelevant document the run returned) when not."""
    asl = docs["asl"].to_numpy(dtype=float)
    return np.where(docs["retrieved"].to_numpy(dtype=bool), asl - 1, asl)


def best_passage_rows(by_run: pd.DataFrame | None, docs: pd.DataFrame | None, campaign: dict,
                      ref: dict | None = None) -> list[dict]:
    """Section 4.5 on figure 5's system, the best passage run by ASL (ties: the first by name,
    as figure 5) at table 1's settings (``by_run``: run, ASL, ``ASL@g1-10``; None without a
    mapped track): its ASL@g1-10 ("only 5") and its relevant passages with more than 900
    irrelevant ones above them (``docs``: that run's per-document table at eq. 3, else None;
    "over 750": ``exact`` when ours is above 750). The data suffice when every run of the
    campaign is here (the best could be any)."""
    ref = ref or published("asl_text")
    item, row = "section 4.5", "best 2020 passage system by ASL (figure 5)"
    cells = (("ASL@g1-10", str(ref["best_passage_aslg1_10"])),
             ("relevant passages with > 900 irrelevant above", str(ref["over_900"]["printed"])))
    method = ("the run with the lowest ASL among the passage track's runs at table 1's settings (relevance >= 1, "
              "eq. 3): its ASL@g1-10, and its relevant passages (every topic) with more than 900 irrelevant above")
    if by_run is None or not len(by_run):
        return [_row(item, row, c, text, None, method, NOT_HERE, f"needs {campaign['track']} ({campaign['runs']} "
                     "runs) as study.paper.passages") for c, text in cells]
    name = best_and_median_run(by_run)[0]
    if name is None:
        return [_row(item, row, c, text, None, method, NOT_HERE, "no run with an ASL") for c, text in cells]
    best = by_run[by_run.run == name].iloc[0]
    enough, said = campaign_sufficiency(by_run.run, campaign)
    values = [float(best["ASL@g1-10"]), math.nan]
    if docs is not None and len(docs):
        values[1] = float((irrelevant_above(docs[docs.run == name]) > 900).sum())
    out = []
    for (column, text), ours in zip(cells, values):
        shown = printed(ours, 0) if not math.isnan(ours) else "n/a"
        if math.isnan(ours):
            status, note = NOT_HERE, f"not computed for {best.run}"
        elif not enough:
            status, note = NOT_HERE, f"on {said}: {shown} ({best.run}); the best run may be one of the others"
        elif column == cells[1][0]:
            status = EXACT if ours > float(ref["over_900"]["more_than"]) else DIFFERS
            note = f"ours {shown} ({best.run}) on {said}"
        else:
            status, note = value_status(ours, text), f"ours {shown} ({best.run}) on {said}"
        out.append(_row(item, row, column, text, ours, method, status, note))
    return out


def text_rows(tables: dict, table1_rows: list[dict], paper_tracks: dict | None) -> list[dict]:
    """Every row of this module from the study's tables (:func:`reeval.analyses.asl.paper.paper_rows`'
    ``source``): ``headroom``, ``table2``; optionally ``topics`` (track -> topics), ``scope``
    (``{"scope": study.scope, "planned": the study's tracks, "sets": the manifest's paper
    track sets}``), ``table1_by_run`` (track -> runs at table 1's settings) and
    ``table1_documents`` (track -> its best run's per-document table);
    ``table1_rows``: table 1's rows; ``paper_tracks``: ``study.paper``."""
    scope = tables.get("scope") or {}
    passages = (paper_tracks or {}).get("passages")
    by_run = (tables.get("table1_by_run") or {}).get(passages)
    docs = (tables.get("table1_documents") or {}).get(passages)
    return (worked_example_rows()
            + count_rows(tables["headroom"], tables.get("topics") or {}, scope.get("scope"), scope.get("planned"),
                         scope.get("sets"))
            + fifty_one_to_six(table1_rows)
            + jumped_half_rows(tables["table2"], track_set_sufficiency(scope.get("scope"), scope.get("planned"),
                                                                       list(tables["headroom"].track)))
            + best_passage_rows(by_run, docs, published("asl")["table1_campaign"]["passages"]))
