"""``summary.md`` of the ASL study: the template ``reeval/report/templates/asl_summary.md``
(the prose, the method notes) filled with one block per section: every table, every
figure, the paper's values beside ours (:mod:`reeval.analyses.papers.published`)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from reeval.archive.inclusion import NO_TRACK_INCLUDED
from reeval.io.tables import write_text
from reeval.report.escape import markdown_code, markdown_text
from reeval.report.markdown import counts_line, fmt, image, render, table
from reeval.analyses.papers.published import published

from . import study as S
from .paper import delta_value_text, headline_claims, paper_rows

#: the summary's sections, in order (a test checks the headings of summary.md against it)
SECTIONS = ("Headroom (section 4.2, figures 1-4)", "Technique reanalysis (section 4.3, table 1)",
            "Reordering of systems (section 4.4, table 2)", "How much MAP really averages (appendix A.1)",
            "Per-document views (section 4.5, figures 5-6)", "Method notes")
MEASURE_LABELS = {"P_20": "P@20", "ASL@g1-10": "ASL@g1-10", "map": "MAP", "ASL": "ASL"}
COMPARISON_LABELS = {
    "atomize_p": "Atomize P", "docs_within_query": "Agg. docs within query",
    "rates_across_queries": "Agg. rates across queries", "cumulative": "Cumulative (MAP -> ASL)",
    "p20_to_aslg1-10": "P@20 -> ASL@g1-10", "mrr_to_aslg1": "MRR -> ASL@g1",
}
#: figures 1-4 in the order of the headroom measures (the names of report.STUDY_FIGURES)
HEADROOM_FIGURES = dict(zip(MEASURE_LABELS, ("fig1_p20", "fig2_aslg1-10", "fig3_map", "fig4_asl")))


#: what a range of table 2 is clipped to: the values Kendall's tau and DeltaSort (% of runs) can take
KENDALL_BOUNDS, DELTA_SORT_BOUNDS = (-1.0, 1.0), (0.0, 100.0)


#: decimals the paper prints (table 1): P@20 and MAP to 3, ASL and ASL@g1-10 to integers
PAPER_DECIMALS = {"P_20": 3, "map": 3, "ASL@g1-10": 0, "ASL": 0}


def _best(row) -> str:
    """``value (run)`` of a technique-table row, rounded as the paper prints the measure
    (:data:`PAPER_DECIMALS`); ``n/a`` for a group without runs."""
    if row["run"] is None or pd.isna(row["run"]):
        return "n/a"
    return f"{fmt(row['value'], PAPER_DECIMALS.get(row['measure'], 4))} ({row['run']})"


def _range(row, col, scale=1.0, digits=2, suffix="", bounds=None) -> str:
    """``low to high`` of a table-2 row's ``<col>_low``/``_high`` (mean -+ std, scaled),
    clipped to ``bounds`` (the values the quantity can take: Kendall's tau cannot pass 1);
    one value (no std): its mean and ``(1 value, no std)``; no value: ``n/a``."""
    lo, hi, n = row[f"{col}_low"], row[f"{col}_high"], row[f"{col}_n"]
    if n == 0:
        return "n/a"
    if not math.isfinite(lo):
        return f"{row[f'{col}_mean'] * scale:.{digits}f}{suffix} (1 value, no std)"
    if bounds is not None:
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    return f"{lo * scale:.{digits}f}{suffix} to {hi * scale:.{digits}f}{suffix}"


def headroom_table(head: pd.DataFrame) -> str:
    """Best value and run per track of P@20, ASL@g1-10, MAP and ASL, rounded as the paper
    prints them (:data:`PAPER_DECIMALS`; ``headroom.csv`` keeps full precision), and the
    mean documents per topic of the best-ASL run when known."""
    h = head
    d = PAPER_DECIMALS
    tab = pd.DataFrame({"track": h.track, "runs": h.n_runs,
                        "best P@20": [f"{fmt(v, d['P_20'])} ({r})" for v, r in zip(h.P_20, h.P_20_run)],
                        "best ASL@g1-10": [f"{fmt(v, d['ASL@g1-10'])} ({r})"
                                           for v, r in zip(h["ASL@g1-10"], h["ASL@g1-10_run"])],
                        "best MAP": [f"{fmt(v, d['map'])} ({r})" for v, r in zip(h["map"], h.map_run)],
                        "best ASL": [f"{fmt(v, d['ASL'])} ({r})" for v, r in zip(h.ASL, h.ASL_run)]})
    if "ASL_depth" in h:
        tab["docs/topic of the best-ASL run"] = h.ASL_depth.map(lambda v: fmt(v, 0))
    return table(tab)


def headroom_figures(hist: dict) -> str:
    """Figures 1-4, each followed by its bucket counts (``hist``: measure -> (labels, counts))."""
    blocks = []
    for m, stem in HEADROOM_FIGURES.items():
        labels, counts = hist[m]
        blocks += [image(f"{MEASURE_LABELS[m]} of the best run per track", f"{stem}.png"),
                   counts_line(f"{MEASURE_LABELS[m]} buckets (tracks)", labels, counts)]
    return "\n\n".join(blocks)


def technique_table(t: pd.DataFrame) -> str:
    """One track's table 1: per measure the best run of each group and the RRIE of each
    non-baseline group from the baseline."""
    base = t.baseline.iloc[0]
    others = [g for g in pd.unique(t.group) if g != base]
    rows = []
    for m in MEASURE_LABELS:
        tm = t[t.measure == m].set_index("group")
        row = {"measure": MEASURE_LABELS[m], base: _best(tm.loc[base])}
        for g in others:
            row[g] = _best(tm.loc[g])
            row[f"RRIE {g}"] = fmt(100 * tm.loc[g, "rrie"], 0) + "%" if math.isfinite(tm.loc[g, "rrie"]) else "n/a"
        rows.append(row)
    return table(pd.DataFrame(rows))


def techniques(tech: pd.DataFrame) -> str:
    """Table 1 per labelled track (heading, groups and their run counts, table), or why
    there is none."""
    if tech.empty:
        return ("No track of this configuration has technique labels (`study: techniques:`), so "
                "table 1 is empty.")
    blocks = []
    for track, t in tech.groupby("track", sort=False):
        runs = ", ".join(f"{markdown_text(g)} {n}" for g, n in t.groupby("group", sort=False).n_runs.first().items())
        blocks += [f"### {markdown_text(track)}",
                   "Best run of each group measure by measure; RRIE = relative reduction in error from "
                   f"{markdown_code(t.baseline.iloc[0])} (eq. 11 for P@20 and MAP, eq. 12 for ASL@g1-10 and ASL). "
                   f"Runs per group: {runs}.",
                   technique_table(t)]
    return "\n\n".join(blocks)


def table2_rows(table2: pd.DataFrame, paper: dict) -> str:
    """Table 2: per ladder step our DeltaSort, Kendall and DeltaValue ranges beside the
    paper's (``paper``: comparison -> delta_sort, kendall, delta_value)."""
    rows = []
    for r in table2.itertuples(index=False):
        r = r._asdict()
        p = paper[r["comparison"]]
        has_value = bool(r["delta_value_n"])
        rows.append({"step": COMPARISON_LABELS[r["comparison"]],
                     "DeltaSort (ours)": _range(r, "delta_sort", 1, 0, "%", DELTA_SORT_BOUNDS),
                     "DeltaSort (paper)": p["delta_sort"],
                     "Kendall (ours)": _range(r, "kendall_tau", bounds=KENDALL_BOUNDS), "Kendall (paper)": p["kendall"],
                     "DeltaValue (ours)": "; ".join(filter(None, delta_value_text(r))) if has_value else "",
                     "DeltaValue median (ours)": fmt(r["delta_value_median"], 3) + "x" if has_value else "",
                     "DeltaValue (paper)": p["delta_value"], "tracks": r["n_tracks"]})
    return table(pd.DataFrame(rows))


def reordering_by_track(reord: pd.DataFrame) -> str:
    """Per track and step: the largest DeltaSort and its run, Kendall's tau, mean
    DeltaValue; ``""`` with no track."""
    if reord.empty:
        return ""
    per = reord.assign(
        step=reord.comparison.map(COMPARISON_LABELS),
        max_delta_sort=[f"{v:.0f}% ({r})" for v, r in zip(reord.max_delta_sort, reord.max_delta_sort_run)],
        kendall_tau=reord.kendall_tau.map(lambda v: fmt(v, 2)),
        delta_value=reord.delta_value.map(lambda v: fmt(v, 3)))
    return table(per[["track", "step", "max_delta_sort", "kendall_tau", "delta_value", "n_runs", "n_topics"]])


def map_share(share: pd.DataFrame, paper: dict) -> str:
    """Appendix A.1: the share across tracks and over all runs beside the paper's
    (``paper``: mean_percent, std_percent), then per track; ``""`` with no run."""
    if share.empty:
        return ""
    per_track = share.groupby("track", sort=False).share.agg(["mean", "std", "count"])
    across, pooled = S.mean_std_range(per_track["mean"]), S.mean_std_range(share.share)
    text = (f"Share of a run's relevant documents whose plain mean search length is closest to "
            f"the search length of its mean precision: {100 * across['mean']:.0f}% +- "
            f"{fmt(100 * across['std'], 0)} across tracks (mean of the per-track means, "
            f"{across['n']} tracks); {100 * pooled['mean']:.0f}% +- {fmt(100 * pooled['std'], 0)} over all "
            f"{pooled['n']} runs. Paper: {paper['mean_percent']}% +- {paper['std_percent']} over its tracks.")
    tab = table(pd.DataFrame({"track": per_track.index,
                              "mean share": (100 * per_track["mean"]).map(lambda v: f"{v:.0f}%"),
                              "std": (100 * per_track["std"]).map(lambda v: fmt(v, 0)),
                              "runs": per_track["count"]}))
    return f"{text}\n\n{tab}"


#: what summary.md says where figures 5-6 are not drawn
NO_TRACK_FIGURES = ("Figures 5 and 6 are drawn for each track only when `figures: per_track` asks for "
                    "them (its default, `auto`, draws them for a study of at most 12 tracks); their "
                    "bucket counts are in each track's `study/document_asl.csv` and `study/asl_difference.csv`.")


def track_figures(dirs: dict, summary_dir: Path, drawn: bool = True) -> str:
    """Figures 5 and 6 of every track (paths relative to ``summary_dir``); ``""`` with no
    track; :data:`NO_TRACK_FIGURES` when they are not ``drawn``."""
    if dirs and not drawn:
        return NO_TRACK_FIGURES
    blocks = []
    for track, d in dirs.items():
        blocks += [f"### {markdown_text(track)}",
                   image(f"figure 5, {track}", os.path.relpath(d / "study" / "fig5_document_asl.png", summary_dir)),
                   image(f"figure 6, {track}", os.path.relpath(d / "study" / "fig6_asl_difference.png", summary_dir))]
    return "\n\n".join(blocks)


def claims_table(head: pd.DataFrame) -> str:
    """The paper's headline claims beside their share on our tracks."""
    c = headline_claims(head)
    if not len(head):
        return ""
    return table(pd.DataFrame({"claim": c.claim, "paper (its tracks)": c.paper, "where": c["where"],
                               "ours": [f"{k} of {n} tracks ({fmt(p, 0)}%)" for k, n, p in zip(c.tracks, c.of, c.share)]}))


def comparison_counts(cells: pd.DataFrame) -> str:
    """``exact 3, data not here 40`` : how many of the paper's cells have each status."""
    counts = cells.status.value_counts()
    return ", ".join(f"{k} {int(v)}" for k, v in counts.items()) if len(cells) else "no cell"


def table1_comparison(cells: pd.DataFrame) -> str:
    """Table 1's cells, the paper's beside ours with their status and note; a half whose
    cells all share one note (no track for it) in one sentence instead."""
    t = cells[cells["item"] == "table 1"]
    blocks, shown = [], []
    for half in ("passages", "documents"):
        h = t[t.column.str.startswith(half)]
        if h.note.nunique() == 1 and (h.status == "data not here").all():
            blocks.append(f"The {half} half ({len(h)} cells): data not here; it {h.note.iloc[0]}.")
        else:
            shown.append(h)
    if shown:
        rows = pd.concat(shown)
        blocks.insert(0, table(rows[["row", "column", "published", "reproduced", "status", "note"]].rename(
            columns={"row": "measure", "column": "cell", "published": "paper", "reproduced": "ours"})))
    return "\n\n".join(blocks)


def summary_markdown(summary_dir: Path, dirs: dict, head, hist, reord, table2, share, tech, options,
                     drawn: bool = True, cells: pd.DataFrame | None = None) -> str:
    """The study's markdown report (module doc), for a ``summary.md`` in ``summary_dir``;
    ``cells``: the paper comparison (:func:`reeval.analyses.asl.paper.paper_rows`)."""
    paper, ro = published("asl"), options["reorder"]
    if cells is None:
        cells = paper_rows({"headroom": head, "techniques": tech, "table2": table2, "map_share": share},
                           options.get("paper"))
    return render(
        "asl_summary.md",
        n_tracks=len(dirs), n_runs=int(head.n_runs.sum()) if len(head) else 0,
        paper_tracks=paper["tracks"], paper_runs=paper["runs"],
        no_track_note="" if dirs else NO_TRACK_INCLUDED,
        headroom_table=headroom_table(head), headroom_figures=headroom_figures(hist),
        techniques=techniques(tech), paper_table1=table(pd.DataFrame(paper["table1"])),
        table1_comparison=table1_comparison(cells), comparison_counts=comparison_counts(cells),
        claims_table=claims_table(head),
        table2=table2_rows(table2, paper["table2"]), reordering_by_track=reordering_by_track(reord),
        map_share=map_share(share, paper["map_share"]), track_figures=track_figures(dirs, summary_dir, drawn),
        unretrieved_precision=ro["unretrieved_precision"], ttest_space=ro["ttest_space"],
        margin_percent=f"{100 * ro['margin']:g}", alpha=f"{ro['alpha']:g}",
        map_share_target=options["map_share_target"])


def write_summary(path: Path, dirs: dict, head, hist, reord, table2, share, tech, options,
                  drawn: bool = True, cells: pd.DataFrame | None = None) -> None:
    """Write :func:`summary_markdown` to ``path`` (``drawn``: whether the tracks have figures 5-6)."""
    write_text(summary_markdown(Path(path).parent, dirs, head, hist, reord, table2, share, tech, options, drawn,
                                cells), path)
