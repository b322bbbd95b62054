"""The rareness paper's claims and the numbers of its text, as comparison rows
(``published.yaml``, key ``rareness_text``; :mod:`reeval.analyses.papers.cells`).

Each claim is tested on every track of the study, from the cross-track tables
(:func:`reeval.analyses.rareness.report.summarize_rareness`), over its numeric alphas and the
measure families P_rareness and AP_rareness:

- ``more_discriminative``: at every alpha > 0, more pairs significant than at alpha = 0 (the
  unmodified measure), by the authors' procedure, at 95 % and at 99 %;
- ``alpha_discriminative``: more pairs significant at the largest alpha than at 0 (authors'
  procedure, both levels; :func:`reeval.analyses.rareness.paper.alpha_trend`);
- ``more_stable``: at every alpha > 0 a higher stability than at alpha = 0;
- ``tau_falls``: Kendall's tau against alpha = 0 never rises from one alpha to the next.

``ours`` is the share of those comparisons that hold; the note lists them. The data decide
first (``held``: the tracks holding one of the paper's four collections, TREC-5, TREC-8, WT14
and the DL 2020 document task, with its task, runs and topics; :func:`.paper.comparison_rows`):
on such a track a claim is ``exact`` when every comparison holds, else ``differs``; on any
other track ``data not here``, with whether it holds there beside. Figure 1's counts (the
relevant documents a system finding only unretrieved ones needs to rank first, by alpha) are
read from the ``synthetic`` table of the paper's topic: ``exact`` or ``differs`` on a track
holding DLT20, else ``data not here`` with ours beside.
"""

from __future__ import annotations

import pandas as pd

from reeval.analyses.papers.cells import DIFFERS, EXACT, NOT_HERE, cell
from reeval.analyses.papers.published import published

STUDY = "rareness"
ITEM = "text"
#: the paper's four collections, as a dataset to add
PAPER_DATA = "the paper's collections: TREC-5, TREC-8, WT14 ad hoc and the DL 2020 document task, all runs"
TO_ADD = "their qrels and runs under `tracks:` and `rareness: {paper: {<track>: <collection>}}`"
FAMILIES = ("P_rareness", "AP_rareness")


def _numeric(df: pd.DataFrame) -> pd.DataFrame:
    a = pd.to_numeric(df["alpha"], errors="coerce")
    return df.assign(alpha_value=a)[a.notna()]


def _family(measure: str) -> str:
    return str(measure).split("@", 1)[0]


def _comparisons(table: pd.DataFrame, track: str, value: str, rule) -> list[tuple[str, bool]]:
    """(what, holds) per family of ``track`` in ``table``: ``rule(series by alpha)`` gives
    (what, holds) pairs for one family's ``value`` column indexed by numeric alpha."""
    out = []
    if not len(table) or not {"track", "measure", "alpha", value} <= set(table.columns):
        return out
    rows = _numeric(table[table["track"] == track])
    for measure, g in rows.groupby("measure", sort=True):
        if _family(measure) not in FAMILIES:
            continue
        series = g.drop_duplicates("alpha_value").set_index("alpha_value")[value].sort_index()
        out += [(f"{measure} {what}", holds) for what, holds in rule(series)]
    return out


def _above_zero(series: pd.Series):
    if 0 not in series.index:
        return []
    return [(f"α={a:g}: {series[a]:.4g} vs {series[0]:.4g}", bool(series[a] > series[0])) for a in series.index if a > 0]


def _rises(series: pd.Series):
    if 0 not in series.index or series.index.max() <= 0:
        return []
    top = series.index.max()
    return [(f"α=0 -> {top:g}: {series[0]:.4g} -> {series[top]:.4g}", bool(series[top] > series[0]))]


def _never_rises(series: pd.Series):
    values = series.to_numpy()
    return [(f"α {series.index[i]:g} -> {series.index[i + 1]:g}: {values[i]:.3f} -> {values[i + 1]:.3f}",
             bool(values[i + 1] <= values[i] + 1e-12)) for i in range(len(values) - 1)]


def claim_tests(stacked: dict, track: str) -> dict:
    """``{claim id: [(what, holds), ...]}`` on one track (module doc)."""
    disc = stacked.get("discriminative", pd.DataFrame())
    if len(disc) and "method" in disc.columns:
        disc = disc[disc["method"] == "authors"]
    stab, tau = stacked.get("stability", pd.DataFrame()), stacked.get("tau", pd.DataFrame())
    levels = ("significant_95", "significant_99")
    return {
        "more_discriminative": [(f"{w} ({lv[-2:]}%)", h) for lv in levels
                                for w, h in _comparisons(disc, track, lv, _above_zero)],
        "alpha_discriminative": [(f"{w} ({lv[-2:]}%)", h) for lv in levels
                                 for w, h in _comparisons(disc, track, lv, _rises)],
        "more_stable": _comparisons(stab, track, "stability", _above_zero),
        "tau_falls": _comparisons(tau, track, "tau", _never_rises),
    }


def by_track(stacked: dict, tracks) -> dict:
    """``{track: the tables of ``stacked`` cut to its rows}`` for each of ``tracks``: each table
    with a ``track`` column split once (not filtered once per track: that pass is quadratic in
    the tracks), the others as they are."""
    parts = {name: dict(tuple(df.groupby("track", sort=False)))
             for name, df in stacked.items() if isinstance(df, pd.DataFrame) and "track" in df.columns}
    return {track: {name: (parts[name].get(track, df.iloc[:0]) if name in parts else df)
                    for name, df in stacked.items()} for track in tracks}


def _on(held: dict, track: str, collection: str | None = None) -> tuple[bool, str]:
    """(whether ``track`` holds one of the paper's collections, ``collection`` when given, and
    the words for where ours is) from ``held``: track -> (collection, whether its data are the
    collection's, what differs)."""
    got, same, differs = held.get(track, (None, False, ""))
    if got is not None and same and collection in (None, got):
        return True, f"on {track} ({got})"
    return False, f"on {track} (not the paper's data{': ' + differs if differs else ''})"


def claim_rows(stacked: dict, held: dict | None = None, one_topic: dict | None = None) -> list[dict]:
    """One row per claim and track (module doc); one ``data not here`` row per claim without ours
    when the study has no rareness track. ``held``: track -> (collection, whether the track
    holds the collection's data, what differs) for the tracks mapped to a collection;
    ``one_topic``: the same without the topics, for figure 1 (one topic; else ``held``)."""
    held = held or {}
    ref = published("rareness_text")
    disc = stacked.get("discriminative", pd.DataFrame())
    tracks = sorted(set(disc["track"])) if len(disc) else []
    tests_of = {track: claim_tests(on_track, track) for track, on_track in by_track(stacked, tracks).items()}
    rows = []
    for claim in ref["claims"]:
        if not tracks:
            rows.append(cell(STUDY, ITEM, claim["printed"], "claim", "holds", NOT_HERE, f"needs {PAPER_DATA}",
                             needs=PAPER_DATA, to_add=TO_ADD))
        for track in tracks:
            tests = tests_of[track][claim["id"]]
            if not tests:
                continue
            n_held = sum(h for _, h in tests)
            failed = [w for w, h in tests if not h]
            verdict = "holds" if n_held == len(tests) else f"does not hold in {len(tests) - n_held} of {len(tests)}"
            paper_data, where = _on(held, track)
            status = (EXACT if n_held == len(tests) else DIFFERS) if paper_data else NOT_HERE
            note = f"{where}: {verdict}" + (f" ({'; '.join(failed[:4])}"
                                            f"{'; ...' if len(failed) > 4 else ''})" if failed else "")
            rows.append(cell(STUDY, ITEM, claim["printed"], "claim", "holds", status, note, ours=n_held / len(tests),
                             digits=3, track=track, needs=PAPER_DATA, to_add=TO_ADD,
                             method=f"share of {len(tests)} comparisons that hold, by measure and alpha "
                                    f"({'authors procedure, ' if 'discriminative' in claim['id'] else ''}"
                                    "numeric alphas of rareness.alphas)"))
    return rows + figure1_rows(stacked, ref["figure1"], held if one_topic is None else one_topic)


def figure1_rows(stacked: dict, fig: dict, held: dict | None = None) -> list[dict]:
    """Figure 1's counts: per alpha, the fewest relevant documents S_rare needs to rank first on
    the paper's topic by the paper's measure (family P_rareness, not the normalised one;
    ``synthetic`` table of that topic): ``exact`` or ``differs`` on a track holding the
    paper's collection (``held`` as for :func:`claim_rows`), else ``data not here``, ours
    beside where a track has the topic."""
    synthetic = stacked.get("synthetic", pd.DataFrame())
    on_topic = synthetic[(synthetic["qid"].astype(str) == fig["topic"])   # the paper's measure, P@100_rareness
                         & (synthetic["measure"].map(_family) == "P_rareness")] if len(synthetic) else synthetic
    rows = []
    for alpha, docs in sorted(fig["docs_to_rank_first"].items(), reverse=True):
        column = f"α = {alpha:g}"
        row = f"figure 1: relevant documents S_rare needs to rank first (topic {fig['topic']})"
        first = on_topic[(on_topic["system"] == "rare") & (pd.to_numeric(on_topic["alpha"]) == alpha)
                         & (on_topic["rank"] == 1)] if len(on_topic) else on_topic
        if not len(first):
            rows.append(cell(STUDY, ITEM, row, column, docs, NOT_HERE, f"needs {PAPER_DATA}", needs=PAPER_DATA,
                             to_add=TO_ADD))
            continue
        for track, g in first.groupby("track"):
            n = int(g["n_systems"].iloc[0]) - 1
            paper_data, where = _on(held or {}, track, fig["collection"])
            ours = int(g["docs"].min())
            status = (EXACT if ours == int(docs) else DIFFERS) if paper_data else NOT_HERE
            rows.append(cell(STUDY, ITEM, row, column, docs, status,
                             f"{where}, {n} runs (the paper: DL 2020's document task, all its runs): "
                             f"{ours}", ours=ours, digits=0, track=track,
                             needs=PAPER_DATA, to_add=TO_ADD,
                             method="the fewest D with S_rare ranked first among the runs and itself "
                                    "(analysis.synthetic_ranks, P_rareness@k)"))
    return rows
