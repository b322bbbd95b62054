"""Workflow steps of the ASL study: per-track tables and figures 5-6, cross-track
tables, figures 1-4 and ``summary.md``. The Snakemake scripts only call these.

Per track (``<results>/tracks/<track>/study/``): ``reordering.parquet`` (one row per
comparison of table 2), ``reordering_by_run.parquet`` (per run: n0, n1, DeltaSort, value
ratio), ``map_share.parquet`` (appendix A.1 per run), ``document_asl.csv`` and
``asl_difference.csv`` (the bucket counts of figures 5 and 6), ``fig5_document_asl`` and
``fig6_asl_difference`` (PNG and PDF).

Across tracks (``<results>/study/``): ``headroom``, ``reordering`` (per track),
``reordering_by_run``, ``table2`` (across tracks), ``map_share``, ``techniques``
(Parquet and CSV each), ``fig1_p20`` ... ``fig4_asl`` (PNG and PDF) and ``summary.md``.
"""

from __future__ import annotations

import glob
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from reeval.archive.inclusion import NO_TRACK_FIGURE_NOTE, NO_TRACK_INCLUDED
from reeval.io.tables import read_stacked, write_table, write_text
from reeval.workflow.config_check import ConfigError

from . import asl_study as S
from . import asl_views as views
from . import asl_techniques as techniques
from .asl_figures import bar_histogram

TRACK_OPTION_KEYS = ("reorder", "map_share_target", "document_buckets", "difference_buckets")
TRACK_STUDY_TABLES = ("reordering.parquet", "reordering_by_run.parquet", "map_share.parquet",
                      "document_asl.csv", "asl_difference.csv")
TRACK_STUDY_FIGURES = ("fig5_document_asl", "fig6_asl_difference")
STUDY_TABLES = ("headroom", "reordering", "reordering_by_run", "table2", "map_share", "techniques")
STUDY_FIGURES = ("fig1_p20", "fig2_aslg1-10", "fig3_map", "fig4_asl")

#: the paper's table 2 (76 TREC tracks): comparison -> (DeltaSort %, Kendall, DeltaValue)
PAPER_TABLE2 = {
    "atomize_p": ("26-60%", "0.7-0.9", "0.3-0.6x"),
    "docs_within_query": ("37-77%", "0.4-0.8", "0.03-0.4x"),
    "rates_across_queries": ("29-78%", "0.4-0.9", "0.1-0.9x"),
    "cumulative": ("26-60%", "0.6-0.9", "0.004-0.06x"),
    "p20_to_aslg1-10": ("40-76%", "0.4-0.8", ""),
    "mrr_to_aslg1": ("49-85%", "0.3-0.7", ""),
}
COMPARISON_LABELS = {
    "atomize_p": "Atomize P", "docs_within_query": "Agg. docs within query",
    "rates_across_queries": "Agg. rates across queries", "cumulative": "Cumulative (MAP -> ASL)",
    "p20_to_aslg1-10": "P@20 -> ASL@g1-10", "mrr_to_aslg1": "MRR -> ASL@g1",
}
#: the paper's table 1 (TREC DL 2020, best BM25 vs best neural run)
PAPER_TABLE1 = pd.DataFrame({
    "measure": ["P@20", "ASL@g1-10", "MAP", "ASL"],
    "documents BM25": ["0.456", "14", "0.401", "39"], "documents neural": ["0.594", "5", "0.543", "27"],
    "documents RRIE": ["25%", "69%", "24%", "32%"],
    "passages BM25": ["0.517", "51", "0.400", "264"], "passages neural": ["0.706", "6", "0.572", "215"],
    "passages RRIE": ["39%", "90%", "29%", "19%"],
})
MEASURE_LABELS = {"P_20": "P@20", "ASL@g1-10": "ASL@g1-10", "map": "MAP", "ASL": "ASL"}


def _canonical(value):
    """Dicts with sorted keys, recursively: the same options whatever the YAML key order
    (Snakemake compares a rule's params to decide whether to rerun it)."""
    if isinstance(value, dict):
        return {k: _canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


TRACK_SELECTION_KEYS = ("tracks", "min_runs")  # which tracks enter the study (reeval.archive.inclusion)


def techniques_from_labels(tracks: dict, baseline: str = "bm25") -> dict:
    """Technique groups from the per-run ``technique`` labels of ``urls`` track entries.

    The study manifest labels some runs (``bm25``, ``neural``, ``traditional``). A track
    gets ``{"baseline": baseline, "groups": {label: [run names]}}`` when it has runs
    labelled ``baseline`` and runs of at least one other label; run names are escaped
    so that they match as fnmatch patterns only themselves.
    """
    out = {}
    for track, entry in tracks.items():
        runs = ((entry or {}).get("urls") or {}).get("runs") or []
        groups: dict = {}
        for item in runs:
            if item.get("technique"):
                groups.setdefault(item["technique"], []).append(glob.escape(str(item["run"])))
        if baseline in groups and len(groups) >= 2:
            out[track] = {"baseline": baseline, "groups": groups}
    return out


def study_options(config_study: dict, labelled_techniques: dict | None = None) -> dict:
    """The options of the ASL study's analyses: the ``study`` config section (its defaults
    filled in, :func:`reeval.workflow.config_check.with_defaults`) without the track
    selection keys (``tracks``, ``min_runs``), keys sorted.

    ``labelled_techniques`` (see :func:`techniques_from_labels`) gives technique groups
    to tracks the config's ``techniques`` does not name.

    Raises ConfigError when bucket edges are not strictly increasing or a technique
    baseline is not one of its track's groups.
    """
    out = {k: v for k, v in config_study.items() if k not in TRACK_SELECTION_KEYS}
    out["techniques"] = {**(labelled_techniques or {}), **out["techniques"]}
    for k in ("asl_buckets", "document_buckets", "difference_buckets"):
        e = out[k]
        if len(e) < 2 or any(b <= a for a, b in zip(e[:-1], e[1:])) or e[0] < 1:
            raise ConfigError(f"study: {k} must be at least 2 strictly increasing edges >= 1, got {e}")
    for track, spec in out["techniques"].items():
        if spec["baseline"] not in spec["groups"]:
            raise ConfigError(f"study: techniques: {track}: baseline {spec['baseline']!r} is not one of "
                             f"the groups {sorted(spec['groups'])}")
    return _canonical(out)


def track_study_options(options: dict) -> dict:
    """The options a per-track study job reads (so editing technique labels or headroom
    buckets reruns only the cross-track job)."""
    return {k: options[k] for k in TRACK_OPTION_KEYS}


# ------------------------------------------------------------------ per track

def track_study(track: str, track_dir, out_dir, options: dict) -> dict:
    """Reordering, A.1 and figures 5-6 of one track from its measures tables."""
    d, out = Path(track_dir), Path(out_dir)
    by_topic = pd.read_parquet(d / "measures_by_topic.parquet")
    by_run = pd.read_parquet(d / "measures_by_run.parquet")
    docs = pd.read_parquet(d / "asl_by_document.parquet")
    ro = options["reorder"]
    tm = S.track_matrices(by_topic, track)
    runs_tab, track_tab = S.reordering(tm, docs, space=ro["ttest_space"],
                                       unretrieved=ro["unretrieved_precision"],
                                       margin=ro["margin"], alpha=ro["alpha"])
    share = views.map_share(docs, target=options["map_share_target"])
    share.insert(0, "track", track)
    write_table(track_tab, out / "reordering.parquet", columns=S.REORDERING_COLUMNS)
    write_table(runs_tab, out / "reordering_by_run.parquet", columns=S.REORDERING_BY_RUN_COLUMNS)
    write_table(share, out / "map_share.parquet", columns=views.MAP_SHARE_COLUMNS)

    best, median = views.best_and_median_run(by_run)
    edges, diff_edges = options["document_buckets"], options["difference_buckets"]
    if best is None:
        hist = pd.DataFrame({"bucket": views.bucket_labels(edges) + ["not retrieved"], "count": 0})
        diff = pd.DataFrame({"bucket": views.signed_bucket_labels(diff_edges), "count": 0})
    else:
        hist = views.document_histogram(docs, best, edges)
        diff = views.difference_histogram(docs, best, median, diff_edges)
    hist.insert(0, "run", best)
    diff.insert(0, "best_run", best)
    diff.insert(1, "median_run", median)
    write_table(hist, out / "document_asl.csv")
    write_table(diff, out / "asl_difference.csv")
    best_asl = by_run.set_index("run")["ASL"].get(best, math.nan) if best else math.nan
    colors = ["#4C72B0"] * (len(hist) - 1) + ["#C44E52"]
    bar_histogram(hist.bucket, hist["count"],
                  f"{track}: relevant documents by per-document ASL\nbest run by ASL: {best} (ASL {best_asl:.0f})",
                  "per-document ASL (irrelevant documents above + 1)", "relevant documents",
                  out / f"{TRACK_STUDY_FIGURES[0]}.png", colors=colors)
    k = len(diff_edges)
    dcolors = ["#55A868"] * k + ["#8C8C8C"] + ["#C44E52"] * k
    bar_histogram(diff.bucket, diff["count"],
                  f"{track}: per-document ASL change\nbest run ({best}) minus median run ({median}), by ASL",
                  "ASL difference (negative: the best run ranks the document higher)",
                  "relevant documents", out / f"{TRACK_STUDY_FIGURES[1]}.png", colors=dcolors)
    return {"track": track, "runs": len(tm.runs), "best": best, "median": median}


# ------------------------------------------------------------------ across tracks

def study(tracks: dict, out_dir, options: dict) -> dict:
    """Cross-track tables, figures 1-4 and summary.md from per-track folders
    ``{track: track_dir}`` (each holding the measures tables and ``study/``). With no
    track the tables keep their columns and summary.md says why they are empty."""
    out = Path(out_dir)
    dirs = {t: Path(p) for t, p in tracks.items()}
    by_runs = {t: pd.read_parquet(d / "measures_by_run.parquet") for t, d in dirs.items()}
    head = pd.DataFrame([S.headroom(by_runs[t], t) for t in dirs], columns=S.HEADROOM_COLUMNS)
    reord = read_stacked([d / "study" / "reordering.parquet" for d in dirs.values()], S.REORDERING_COLUMNS)
    reord_runs = read_stacked([d / "study" / "reordering_by_run.parquet" for d in dirs.values()],
                              S.REORDERING_BY_RUN_COLUMNS)
    table2 = S.reordering_across_tracks(reord, reord_runs)
    share = read_stacked([d / "study" / "map_share.parquet" for d in dirs.values()], views.MAP_SHARE_COLUMNS)
    tech_frames = [techniques.technique_table(by_runs[t], spec, t)
                   for t, spec in options["techniques"].items() if t in by_runs]
    tech = pd.concat(tech_frames, ignore_index=True) if tech_frames else pd.DataFrame(columns=techniques.TECHNIQUE_COLUMNS)
    for name, df in zip(STUDY_TABLES, (head, reord, reord_runs, table2, share, tech)):
        write_table(df, out / f"{name}.parquet", out / f"{name}.csv")
    hist = headroom_figures(head, out, options["asl_buckets"])
    write_summary(out / "summary.md", dirs, head, hist, reord, table2, share, tech, options)
    return {"tracks": len(dirs), "runs": int(head.n_runs.sum()) if len(head) else 0}


def headroom_histograms(head: pd.DataFrame, asl_edges) -> dict:
    """measure -> (labels, counts) over tracks: P@20 and MAP in 0.1 bins on [0, 1],
    ASL@g1-10 and ASL in the ``asl_edges`` buckets ([e_k, e_k+1), last open)."""
    unit = [f"{k / 10:.1f}-{(k + 1) / 10:.1f}" for k in range(10)]
    out = {}
    for m in ("P_20", "map"):
        out[m] = (unit, views.unit_histogram(head[m].to_numpy(dtype=float)) if len(head) else np.zeros(10, int))
    for m in ("ASL@g1-10", "ASL"):
        v = head[m].to_numpy(dtype=float) if len(head) else np.array([])
        out[m] = (views.bucket_labels(asl_edges, integer=False), views.bucket_counts(v[np.isfinite(v)], asl_edges))
    return out


def headroom_figures(head: pd.DataFrame, out: Path, asl_edges) -> dict:
    """Figures 1-4: histograms over tracks of the best run's P@20, ASL@g1-10, MAP, ASL."""
    hist = headroom_histograms(head, asl_edges)
    n = len(head)
    specs = (("P_20", STUDY_FIGURES[0], "best P@20 (0.1 bins)", "top-ranked documents"),
             ("ASL@g1-10", STUDY_FIGURES[1], "best ASL@g1-10 (rank buckets)", "top-ranked documents"),
             ("map", STUDY_FIGURES[2], "best MAP (0.1 bins)", "all relevant documents"),
             ("ASL", STUDY_FIGURES[3], "best ASL (rank buckets)", "all relevant documents"))
    for m, stem, xlabel, what in specs:
        labels, counts = hist[m]
        bar_histogram(labels, counts, f"System quality on {what} across {n} tracks: {MEASURE_LABELS[m]}",
                      xlabel, "tracks", out / f"{stem}.png", note=None if n else NO_TRACK_FIGURE_NOTE)
    return hist


# ------------------------------------------------------------------ summary.md

def _fmt(v, digits=3) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    if isinstance(v, (int, np.integer)):
        return str(v)
    return f"{v:.{digits}f}"


def _best(row, digits) -> str:
    """``value (run)`` of a technique-table row; ``n/a`` for a group without runs."""
    return "n/a" if row["run"] is None or pd.isna(row["run"]) else f"{_fmt(row['value'], digits)} ({row['run']})"


def _range(row, col, scale=1.0, digits=2, suffix="") -> str:
    lo, hi, n = row[f"{col}_low"], row[f"{col}_high"], row[f"{col}_n"]
    if n == 0:
        return "n/a"
    if not math.isfinite(lo):
        return f"{row[f'{col}_mean'] * scale:.{digits}f}{suffix} (1 value, no std)"
    return f"{lo * scale:.{digits}f}{suffix} to {hi * scale:.{digits}f}{suffix}"


def _md_table(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
    return "\n".join(lines)


def write_summary(path: Path, dirs: dict, head, hist, reord, table2, share, tech, options) -> None:
    """The study's markdown report: every table, every figure, the paper's values beside
    ours and the method notes."""
    rel = lambda p: os.path.relpath(p, path.parent)  # noqa: E731
    ro = options["reorder"]
    L = ["# Atomized search length study", "",
         "Reproduces the analyses of Alex, Hall & Metzler, *Atomized Search Length: Beyond User "
         "Models* (sections 4.2-4.5, appendix A.1) on the tracks of this configuration: "
         f"{len(dirs)} tracks, {int(head.n_runs.sum()) if len(head) else 0} runs. The paper used 76 TREC "
         "tracks (4302 runs); our track set differs, so its numbers are a reference, not a target.", ""]
    if not dirs:
        L += [NO_TRACK_INCLUDED, ""]

    L += ["## Headroom (section 4.2, figures 1-4)", "",
          "Best run per track by each measure (highest P@20 and MAP, lowest ASL@g1-10 and ASL; "
          "means over topics as in `measures_by_run`).", ""]
    h = head.copy()
    tab = pd.DataFrame({"track": h.track, "runs": h.n_runs,
                        "best P@20": [f"{_fmt(v)} ({r})" for v, r in zip(h.P_20, h.P_20_run)],
                        "best ASL@g1-10": [f"{_fmt(v, 1)} ({r})" for v, r in zip(h["ASL@g1-10"], h["ASL@g1-10_run"])],
                        "best MAP": [f"{_fmt(v)} ({r})" for v, r in zip(h["map"], h.map_run)],
                        "best ASL": [f"{_fmt(v, 1)} ({r})" for v, r in zip(h.ASL, h.ASL_run)]})
    if "ASL_depth" in h:
        tab["docs/topic of the best-ASL run"] = h.ASL_depth.map(lambda v: _fmt(v, 0))
    L += [_md_table(tab), "",
          "ASL is a lower bound: a relevant document a run did not retrieve is placed right "
          "after its last document, so a run that returns few documents per topic can have the "
          "best ASL (last column: its mean documents per topic).", ""]
    for m, stem in zip(("P_20", "ASL@g1-10", "map", "ASL"), STUDY_FIGURES):
        labels, counts = hist[m]
        L += [f"![{MEASURE_LABELS[m]} of the best run per track]({stem}.png)", "",
              f"{MEASURE_LABELS[m]} buckets (tracks): " + ", ".join(f"{a}: {c}" for a, c in zip(labels, counts)), ""]
    L += ["Paper (76 tracks): about half the tracks have best P@20 in 0.5-1, but ASL@g1-10 is "
          "over 20 for more than half of them; nearly all tracks have best ASL beyond rank 100 "
          "while MAP is mostly well above 0.1.", ""]

    L += ["## Technique reanalysis (section 4.3, table 1)", ""]
    if tech.empty:
        L += ["No track of this configuration has technique labels (`study: techniques:`), so "
              "table 1 is empty.", ""]
    else:
        for track, t in tech.groupby("track", sort=False):
            base = t.baseline.iloc[0]
            others = [g for g in pd.unique(t.group) if g != base]
            L += [f"### {track}", "",
                  "Best run of each group measure by measure; RRIE = relative reduction in error from "
                  f"`{base}` (eq. 11 for P@20 and MAP, eq. 12 for ASL@g1-10 and ASL). Runs per group: "
                  + ", ".join(f"{g} {n}" for g, n in t.groupby("group", sort=False).n_runs.first().items()) + ".", ""]
            rows = []
            for m in ("P_20", "ASL@g1-10", "map", "ASL"):
                tm = t[t.measure == m].set_index("group")
                digits = 3 if m in ("P_20", "map") else 1
                row = {"measure": MEASURE_LABELS[m],
                       base: _best(tm.loc[base], digits)}
                for g in others:
                    row[g] = _best(tm.loc[g], digits)
                    row[f"RRIE {g}"] = _fmt(100 * tm.loc[g, "rrie"], 0) + "%" if math.isfinite(tm.loc[g, "rrie"]) else "n/a"
                rows.append(row)
            L += [_md_table(pd.DataFrame(rows)), ""]
    L += ["Paper, table 1 (TREC DL 2020, best BM25 and best neural run of the whole campaign):", "",
          _md_table(PAPER_TABLE1), "",
          "The paper's numbers use all 59 DL-2020 passage runs; `../shared/data` holds 12 of "
          "them, so the best BM25 and neural runs here may differ from the paper's. The paper's "
          "passage numbers also look computed at relevance >= 1 (TREC's official trec_eval "
          "level for DL-2020 passages is 2): to compare, add a second track entry on the same "
          "files with `relevance_level: 1` and the same technique labels.", ""]

    L += ["## Reordering of systems (section 4.4, table 2)", "",
          "Each row changes the metric one step from MAP towards ASL (relative to the previous "
          "step; *Cumulative* and the top-document rows compare the endpoints). Ranges are "
          "(mean - std) to (mean + std) across tracks, as the paper reports them.", ""]
    rows = []
    for r in table2.itertuples(index=False):
        r = r._asdict()
        paper = PAPER_TABLE2[r["comparison"]]
        rows.append({"step": COMPARISON_LABELS[r["comparison"]],
                     "DeltaSort (ours)": _range(r, "delta_sort", 1, 0, "%"), "DeltaSort (paper)": paper[0],
                     "Kendall (ours)": _range(r, "kendall_tau"), "Kendall (paper)": paper[1],
                     "DeltaValue (ours)": _range(r, "delta_value", 1, 3, "x") if r["delta_value_n"] else "",
                     "DeltaValue median (ours)": _fmt(r["delta_value_median"], 3) + "x" if r["delta_value_n"] else "",
                     "DeltaValue (paper)": paper[2], "tracks": r["n_tracks"]})
    L += [_md_table(pd.DataFrame(rows)), "", "Per track (largest DeltaSort and its run, Kendall's tau, "
          "mean DeltaValue):", ""]
    if not reord.empty:
        per = reord.assign(
            step=reord.comparison.map(COMPARISON_LABELS),
            max_delta_sort=[f"{v:.0f}% ({r})" for v, r in zip(reord.max_delta_sort, reord.max_delta_sort_run)],
            kendall_tau=reord.kendall_tau.map(lambda v: _fmt(v, 2)),
            delta_value=reord.delta_value.map(lambda v: _fmt(v, 3)))
        L += [_md_table(per[["track", "step", "max_delta_sort", "kendall_tau", "delta_value", "n_runs", "n_topics"]]), ""]

    L += ["## How much MAP really averages (appendix A.1)", ""]
    if not share.empty:
        per_track = share.groupby("track", sort=False).share.agg(["mean", "std", "count"])
        across = S.mean_std_range(per_track["mean"])
        pooled = S.mean_std_range(share.share)
        L += [f"Share of a run's relevant documents whose plain mean search length is closest to "
              f"the search length of its mean precision: {100 * across['mean']:.0f}% +- "
              f"{_fmt(100 * across['std'], 0)} across tracks (mean of the per-track means, "
              f"{across['n']} tracks); {100 * pooled['mean']:.0f}% +- {_fmt(100 * pooled['std'], 0)} over all "
              f"{pooled['n']} runs. Paper: 57% +- 16 over its tracks.", ""]
        L += [_md_table(pd.DataFrame({"track": per_track.index,
                                      "mean share": (100 * per_track["mean"]).map(lambda v: f"{v:.0f}%"),
                                      "std": (100 * per_track["std"]).map(lambda v: _fmt(v, 0)),
                                      "runs": per_track["count"]})), ""]

    L += ["## Per-document views (section 4.5, figures 5-6)", "",
          "Figure 5: per-document ASL of the best run (by ASL) of each track; the rightmost bar "
          "counts the relevant documents the run did not retrieve. Figure 6: per-document ASL of "
          "the best run minus the median run (by ASL) over every relevant document of the track "
          "(negative: the best run ranks the document higher). The paper shows figure 5 for the "
          "best DL-2020 passage run and figure 6 for the 2012 Web track; here every track has "
          "both (2012 Web is in the study only if the configuration includes it).", ""]
    for track, d in dirs.items():
        L += [f"### {track}", "",
              f"![figure 5, {track}]({rel(d / 'study' / 'fig5_document_asl.png')})", "",
              f"![figure 6, {track}]({rel(d / 'study' / 'fig6_asl_difference.png')})", ""]

    L += ["## Method notes", "",
          "- Inputs: the measures rule's tables (`measures_by_topic`, `measures_by_run`, "
          "`asl_by_document`), so every number uses the track's relevance level, tie order and "
          "the ASL value of unretrieved relevant documents (config `asl: unretrieved`).",
          "- Ladder (table 2): MAP (P_qd = (rel_qd + 1)/rank_qd, 0 if not retrieved; arithmetic "
          "means) -> *atomize P* (p_qd = 1/ASL_qd) -> *aggregate docs within query* (harmonic mean "
          "over a topic's documents = 1/ASL_q) -> *aggregate rates across queries* (harmonic mean "
          "over topics = 1/ASL, equal to 1/ASL of `measures_by_run` bit for bit). Every step uses "
          "the topics with at least one relevant document (where ASL is defined).",
          f"- Unretrieved relevant documents in the atomize step (`study: reorder: "
          f"unretrieved_precision`, here `{ro['unretrieved_precision']}`): `asl` gives them 1/ASL_qd "
          "with the measures' estimate (irrel_q + 1), so the step is exactly \"the reciprocal of "
          "equation 2\" for every document; `zero` keeps MAP's 0, so the step removes only the "
          "coupling through rel_qd and the next step also introduces the estimate.",
          f"- t-test space (`study: reorder: ttest_space`, here `{ro['ttest_space']}`): the first "
          "three ladder steps, P@20 and MRR are tested on their per-topic values (their aggregate "
          "is an arithmetic mean of them). For the last step and ASL@g1-n, `aggregate` tests the "
          "per-topic search lengths ASL_q (whose arithmetic mean ranks the runs; the 10% margin "
          "is then ASL_i <= 0.9 ASL_j), `rate` tests the per-topic rates 1/ASL_q (the margin is "
          "then 1/ASL_i >= 1.1/ASL_j). Both give the same ordering and Kendall's tau.",
          f"- Significantly better: aggregate at least {100 * ro['margin']:g}% better (and strictly "
          f"better) and a two-tailed paired Student t-test p <= {ro['alpha']:g} "
          "(`reeval.stats.allpairs.all_pairs_ttest`, every pair at once, no multiple-comparison "
          "correction, as the paper). DeltaSort_s = 100 |n0 - n1| / |S|; the largest per track.",
          "- Kendall's tau: tau-b between the two orderings of all runs of a track (scipy). "
          "DeltaValue: new/old of the ladder values (AP compared with 1/ASL), pooled over every run "
          "of every track; a run whose old value is 0 is left out. Runs with a near-zero MAP "
          "(broken or very shallow runs) give ratios far above 1 that dominate the mean, so the "
          "median is reported too. Std: sample std (ddof 1).",
          "- Headroom and table 1 use the per-run means of `measures_by_run` (classic measures over "
          "every qrels topic, as trec_eval -c; ASL over topics with a relevant document).",
          "- Median run of figure 6: runs sorted by (ASL, name), the one at index (S - 1) // 2; "
          "differences of 0 have their own middle bar.",
          f"- Appendix A.1 target (`study: map_share_target`, here `{options['map_share_target']}`): "
          "`pooled` = 1/(mean precision of the run's relevant documents), the identity of eq. 14-15; "
          "`map` = 1/MAP. Unretrieved documents have precision 0 (search length infinite), so they "
          "are never inside the closest prefix. Per track mean over runs, then mean +- std across "
          "tracks.",
          "- Technique labels come from `study: techniques:` (fnmatch patterns per group, one "
          "baseline group). ASL values are lower bounds (a run cut at depth n pays at most n for "
          "a relevant document it missed).", ""]
    write_text("\n".join(L) + "\n", path)
