"""Workflow steps of the ASL study: per-track tables and figures 5-6, cross-track
tables, figures 1-4 and ``summary.md``. The Snakemake scripts only call these.

Per track (``<results>/tracks/<track>/study/``): ``reordering.parquet`` (one row per
comparison of table 2), ``reordering_by_run.parquet`` (per run: n0, n1, DeltaSort, value
ratio), ``map_share.parquet`` (appendix A.1 per run), ``document_asl.csv`` and
``asl_difference.csv`` (the bucket counts of figures 5 and 6), ``fig5_document_asl`` and
``fig6_asl_difference`` (PNG and PDF).

Across tracks (``<results>/study/``): ``headroom``, ``reordering`` (per track),
``reordering_by_run``, ``table2`` (across tracks), ``map_share``, ``techniques``
(Parquet and CSV each), ``paper_comparison`` (the paper's cells beside ours,
:func:`reeval.analyses.asl.paper.paper_rows`), ``fig1_p20`` ... ``fig4_asl`` (PNG and PDF)
and ``summary.md``.
"""

from __future__ import annotations

import glob
import math
from pathlib import Path

import numpy as np
import pandas as pd

from reeval.archive.inclusion import NO_TRACK_FIGURE_NOTE
from reeval.io.tables import read_stacked, write_table, write_table_pair
from reeval.workflow.config_check import ConfigError

from . import paper
from . import study as S
from . import views as views
from . import techniques as techniques
from .figures import bar_histogram
from .summary import HEADROOM_FIGURES, MEASURE_LABELS, write_summary

TRACK_OPTION_KEYS = ("reorder", "map_share_target", "document_buckets", "difference_buckets")
#: the options figures 5 and 6 of a track read (:func:`track_study_figures`)
FIGURE_OPTION_KEYS = ("document_buckets", "difference_buckets")
TRACK_STUDY_TABLES = ("reordering.parquet", "reordering_by_run.parquet", "map_share.parquet",
                      "document_asl.csv", "asl_difference.csv")
TRACK_STUDY_FIGURES = ("fig5_document_asl", "fig6_asl_difference")
STUDY_TABLES = ("headroom", "reordering", "reordering_by_run", "table2", "map_share", "techniques",
                "paper_comparison")
STUDY_FIGURES = tuple(HEADROOM_FIGURES.values())  # figures 1-4
ONE_TRACK_NOTE = "1 track: its own bucket,\nno distribution across tracks"



def _canonical(value):
    """Dicts with sorted keys, recursively: the same options whatever the YAML key order
    (Snakemake compares a rule's params to decide whether to rerun it)."""
    if isinstance(value, dict):
        return {k: _canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


TRACK_SELECTION_KEYS = ("tracks", "min_runs")  # which tracks enter the study (reeval.archive.inclusion)
#: study keys no ASL analysis reads
NOT_ANALYSIS_KEYS = TRACK_SELECTION_KEYS


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
    out = {k: v for k, v in config_study.items() if k not in NOT_ANALYSIS_KEYS}
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

def track_study(track: str, track_dir, out_dir, options: dict, figures: bool = True) -> dict:
    """Reordering, A.1 and the tables of figures 5-6 of one track from its measures
    tables; the figures themselves when ``figures``."""
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

    hist, diff, best, median = track_histograms(docs, by_run, options)
    write_table(hist, out / "document_asl.csv")
    write_table(diff, out / "asl_difference.csv")
    if figures:
        track_study_figures(track, d, out, options)
    return {"track": track, "runs": len(tm.runs), "best": best, "median": median}


def track_histograms(docs: pd.DataFrame, by_run: pd.DataFrame, options: dict) -> tuple:
    """``(hist, diff, best, median)``: the tables of figures 5 and 6 of one track, the best
    run's per-document ASL in ``options["document_buckets"]`` and the best minus the median
    run's in ``options["difference_buckets"]`` (zero counts when no run has an ASL)."""
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
    return hist, diff, best, median


def track_study_figures(track: str, track_dir, out_dir, options: dict) -> None:
    """Figures 5 and 6 of one track, drawn from its measures tables in ``track_dir``
    (``measures_by_run.parquet``, ``asl_by_document.parquet``) into ``out_dir``: the rule
    ``track_figures``, apart from the per-track study, so that whether a study draws them
    is no input of the study's per-track job. ``options``: the bucket edges
    (:data:`FIGURE_OPTION_KEYS`)."""
    d = Path(track_dir)
    by_run = pd.read_parquet(d / "measures_by_run.parquet")
    docs = pd.read_parquet(d / "asl_by_document.parquet")
    hist, diff, best, median = track_histograms(docs, by_run, options)
    per_document_figures(track, hist, diff, best, median, by_run, Path(out_dir), len(options["difference_buckets"]))


def per_document_figures(track: str, hist, diff, best, median, by_run, out: Path, k: int) -> None:
    """Figures 5 and 6 of one track, each titled by the track and what it shows, with a
    subtitle at the smallest size naming the runs and the best run's documents per topic
    beside the deepest run's (:func:`reeval.analyses.asl.views.best_run_caption`). Figure 6
    in the paper's buckets (no bar of its own for 0; the ties are counted in the
    smallest-losses bar, said on the figure)."""
    if not best:
        for name, table in zip(TRACK_STUDY_FIGURES, (hist, diff)):
            bar_histogram(table.bucket, table["count"], f"{track}: no run with an ASL", "", "relevant documents",
                          out / name)
        return
    best_asl = by_run.set_index("run")["ASL"].get(best, math.nan)
    depth = views.best_run_caption(best, views.docs_per_topic(by_run))
    colors = ["#0072B2"] * (len(hist) - 1) + ["#D55E00"]
    bar_histogram(hist.bucket, hist["count"], f"{track}: the best run's documents",
                  "per-document ASL (irrelevant above + 1)", "relevant documents",
                  out / TRACK_STUDY_FIGURES[0], colors=colors,
                  subtitle="\n".join(filter(None, [f"best by ASL: {best} (ASL\u00a0{best_asl:.0f})", depth])))
    ties = diff.attrs.get("ties", 0)
    note = (f"{ties} {'tie' if ties == 1 else 'ties'} (difference 0)\ncounted in \u201c{diff.bucket.iloc[k]}\u201d"
            if ties else None)
    bar_histogram(diff.bucket, diff["count"], f"{track}: best minus median run",
                  "ASL difference (< 0: the best run ranks it higher)", "relevant documents",
                  out / TRACK_STUDY_FIGURES[1], colors=["#009E73"] * k + ["#D55E00"] * k, note=note,
                  subtitle="\n".join(filter(None, [f"best by ASL: {best}", f"median: {median}", depth])))


# ------------------------------------------------------------------ across tracks

#: the measures of table 1 at the paper's settings (:func:`table1_by_run`)
TABLE1_MEASURE_SPECS = ("P_20", "map", "ASL", "ASL@g1-10", "num_ret")


def table1_by_run(track: str, track_dir, precision: str = "float64") -> pd.DataFrame:
    """Per run of a track (its included runs), table 1's measures at the paper's settings
    (:data:`reeval.analyses.asl.paper.TABLE1_SETTINGS`: relevance >= 1, eq. 3), whatever
    the track's configured level and ASL policy; ``precision`` the track's (float32:
    trec_eval 9.x's ordering)."""
    from reeval.measures import build_grid, evaluate_grid
    from reeval.workflow.measures_step import read_track_tables, run_table, workflow_measures
    from reeval.workflow.run_inclusion import included_runs, read_ingest_report

    judged, depth, qrels = read_track_tables(track_dir)
    measures = workflow_measures(list(TABLE1_MEASURE_SPECS), precision)
    grid = build_grid(judged, depth, qrels, runs=included_runs(read_ingest_report(track_dir)))
    scores = evaluate_grid(grid, measures, version=9 if precision == "float32" else 10, **paper.TABLE1_SETTINGS)
    return run_table(track, scores, measures)


def best_run_documents(track_dir, by_run: pd.DataFrame) -> pd.DataFrame:
    """The per-document table (:func:`reeval.measures.asl.per_document`) of the best run by ASL
    in ``by_run`` (ties: the first by name, as figure 5) at table 1's settings (relevance >= 1,
    eq. 3); empty without a run with an ASL."""
    from reeval.measures import build_grid
    from reeval.measures.asl import per_document
    from reeval.workflow.measures_step import read_track_tables

    best = views.best_and_median_run(by_run)[0]
    if best is None:
        return pd.DataFrame(columns=["run", "qid", "docno", "rel", "pos", "retrieved", "rel_above", "asl"])
    judged, depth, qrels = read_track_tables(track_dir)
    grid = build_grid(judged, depth, qrels, runs=[str(best)], keep_docno=True)
    return per_document(grid, paper.TABLE1_SETTINGS["rel_level"], paper.TABLE1_SETTINGS["unretrieved"])


def _table1_sources(dirs: dict, options: dict, precision: dict) -> dict:
    """Table 1 at the paper's settings for the tracks ``study.paper`` maps (and that have
    technique groups): ``table1`` (the technique table), ``table1_runs`` (their runs),
    ``table1_by_run`` (their runs' measures) and ``table1_documents`` (the passage track's
    best run by ASL, per document: :func:`best_run_documents`)."""
    mapped = [t for t in dict.fromkeys((options.get("paper") or {}).values())
              if t in dirs and t in options["techniques"]]
    by_run = {t: table1_by_run(t, dirs[t], precision.get(t, "float64")) for t in mapped}
    frames = [techniques.technique_table(by_run[t], options["techniques"][t], t) for t in mapped]
    table1 = (pd.concat(frames, ignore_index=True) if frames
              else pd.DataFrame(columns=techniques.TECHNIQUE_COLUMNS))
    passages = (options.get("paper") or {}).get("passages")
    documents = {passages: best_run_documents(dirs[passages], by_run[passages])} if passages in by_run else {}
    return {"table1": table1, "table1_runs": {t: by_run[t].run.tolist() for t in mapped}, "table1_by_run": by_run,
            "table1_documents": documents}


def study(tracks: dict, out_dir, options: dict, track_figures: bool = True, precision: dict | None = None,
          planned=None, track_sets=None) -> dict:
    """Cross-track tables, figures 1-4 and summary.md from per-track folders
    ``{track: track_dir}`` (each holding the ingested and measures tables and ``study/``).
    With no track the tables keep their columns and summary.md says why they are empty.
    ``track_figures``: whether the tracks have figures 5-6 for summary.md to show;
    ``precision``: track -> its precision, for table 1 at the paper's settings; ``planned``:
    every track of the study, included or not (the paper's track counts need them all);
    ``track_sets``: the manifest's counts of the paper's track sets
    (:func:`reeval.workflow.tracks.paper_track_sets`, section 4.1's cells)."""
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
        write_table_pair(df, out, name)
    cells = paper.paper_rows({"headroom": head, "techniques": tech, "table2": table2, "map_share": share,
                              **_table1_sources(dirs, options, precision or {}),
                              "topics": {t: int(b.num_q.max()) for t, b in by_runs.items() if "num_q" in b and len(b)},
                              "scope": {"scope": options.get("scope"), "planned": list(planned or dirs),
                                        "sets": track_sets or {}}},
                             options.get("paper"), options["techniques"])
    # every row is this paper's: the file leaves out the constant `paper` column (typed as
    # a number, the lexiprecision comparison's published value, in the column registry)
    write_table_pair(cells.drop(columns="paper"), out, "paper_comparison")
    hist = headroom_figures(head, out, options["asl_buckets"])
    write_summary(out / "summary.md", dirs, head, hist, reord, table2, share, tech, options, track_figures, cells)
    return {"tracks": len(dirs), "runs": int(head.n_runs.sum()) if len(head) else 0}


def headroom_histograms(head: pd.DataFrame, asl_edges) -> dict:
    """measure -> (labels, counts) over tracks: P@20 and MAP in 0.1 bins on [0, 1] (labelled
    ``[0.0, 0.1)`` ... ``[0.9, 1.0]``), ASL@g1-10 and ASL in the ``asl_edges`` buckets
    ([e_k, e_k+1), last open; :func:`views.bucket_labels`, half-open)."""
    unit = [f"[{k / 10:.1f}, {(k + 1) / 10:.1f}{')' if k < 9 else ']'}" for k in range(10)]  # as unit_histogram
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
        note = NO_TRACK_FIGURE_NOTE if not n else ONE_TRACK_NOTE if n == 1 else None
        bar_histogram(labels, counts, f"{MEASURE_LABELS[m]} of the best run per track\n({what}, {n} track{'s' if n != 1 else ''})",
                      xlabel, "tracks", out / stem, note=note)
    return hist
