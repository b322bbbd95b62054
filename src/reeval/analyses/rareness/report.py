"""Workflow step for the rareness measures: per-track tables and figures, cross-track ones.

Per track (``<results>/tracks/<track>/rareness/``, names in TRACK_TABLES/TRACK_FIGURES):

- ``by_topic.parquet``: run, qid, measure, alpha, value (every run x qrels topic).
- ``by_run.parquet``/``.csv``: run, measure, alpha, value (mean over the qrels topics), rank.
- ``documents.parquet``/``.csv``: every relevant document: c_k, S, rarity R and R'.
- ``tau``, ``discriminative``, ``stability``, ``n_systems``, ``synthetic``, ``table4``
  (Parquet + CSV): the analyses of :mod:`reeval.analyses.rareness.analysis` (``table4``:
  one topic's relevant documents, rarest first, with the runs that retrieved them).
- figures (PNG + PDF): ``tau`` (figure 2), ``n_systems`` (table 3), ``synthetic`` (figure 1).

Across tracks (``<results>/rareness/``): the analysis tables stacked with a ``track``
column, ``paper_comparison.csv`` (every cell of the paper's tables 1-4 beside ours, with a
status: :mod:`.paper`), the figures ``tau_by_track`` (figure 2 in the paper's form up to a
page of tracks) and ``n_systems_by_track`` and ``summary.md`` (the figures, tables 2-4 in
the paper's form and the table naming each track's values). The figures are drawn by
:mod:`.figures`; the per-track ones only when asked (``figures``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reeval.archive.inclusion import NO_TRACK_FIGURE_NOTE, NO_TRACK_INCLUDED
from reeval.io.tables import read_stacked, write_table, write_table_pair, write_text
from reeval.report.figures import drawn_or_told
from reeval.report.markdown import fmt, render, table
from reeval.analyses.papers.cells import frame
from reeval.analyses.papers.published import published
from reeval.workflow.config_check import ConfigError
from reeval.workflow.measures_step import IncludedTrack, read_included_track

from . import core as rr
from . import analysis as ra
from . import figures as rf
from . import paper as rpaper
from . import paper_text as rtext

ANALYSES = ("tau", "discriminative", "stability", "n_systems", "synthetic", "table4")
TRACK_TABLES = (["by_topic.parquet", "by_run.parquet", "by_run.csv", "documents.parquet", "documents.csv"]
                + [f"{a}.{ext}" for a in ANALYSES for ext in ("parquet", "csv")])
TRACK_FIGURES = [f"{name}.{ext}" for name in ("tau", "n_systems", "synthetic") for ext in ("png", "pdf")]
#: the stacked analyses, the paper comparison, and summary.md (the figures and the table
#: naming each track's values, :func:`tracks_table`)
SUMMARY_TABLES = [f"{a}.{ext}" for a in ANALYSES for ext in ("parquet", "csv")] + ["paper_comparison.csv", "summary.md"]
#: the paper comparison's rows (:mod:`.paper`), read by the one comparison of the three papers
PAPER_COMPARISON = "paper_comparison.csv"
SUMMARY_FIGURES = [f"{name}.{ext}" for name in ("tau_by_track", "n_systems_by_track") for ext in ("png", "pdf")]
#: The columns of every per-track table (the cross-track ones stack the ANALYSES), also
#: when a table has no row; the writer refuses a table whose columns differ.
TABLE_COLUMNS = {
    "by_topic": ("track", "run", "qid", "measure", "alpha", "value"),
    "by_run": ("track", "run", "measure", "alpha", "value", "rank"),
    "documents": ("track", "qid", "docno", "k", "c_k", "n_systems", "rarity", "rarity_norm"),
    "tau": ("track", "measure", "alpha", "tau", "tau_ap"),
    "discriminative": ("track", "measure", "alpha", "method", "runs", "pairs", "significant_95", "significant_99"),
    "stability": ("track", *ra.STABILITY_COLUMNS),
    "n_systems": ("track", "measure", "alpha", "n_systems", "trials", "valid_trials", "mean_tau", "sd_tau"),
    "synthetic": ("track", "qid", "num_rel", "measure", "system", "alpha", "docs", "score", "rank",
                  "best_real", "n_systems"),
    "table4": ("track", "qid", "docno", "grade", "k", "c_k", "n_systems", "rarity", "retrieved_by"),
}

def with_parsed_alphas(section: dict) -> dict:
    """A copy of the ``rareness`` config section (its defaults filled in, by
    :func:`reeval.workflow.config_check.with_defaults`) whose alphas, ``alpha`` and
    ``synthetic.alpha``, are floats or ``"1/R"`` (:func:`reeval.analyses.rareness.core.check_alpha`),
    as the functions of this module read them."""
    out = {**section, "synthetic": dict(section["synthetic"])}
    out["alpha"] = [rr.check_alpha(a) for a in out["alpha"]]
    out["synthetic"]["alpha"] = [rr.check_alpha(a) for a in out["synthetic"]["alpha"]]
    return out


def _name(family: str, k: int) -> str:
    return f"{family}@{k}"


def track_rareness(track: str, track_dir, out_dir, opts: dict, rel_level: int = 1, figures: bool = True,
                   included: IncludedTrack | None = None) -> dict:
    """Compute and write every per-track table, and the figures when ``figures`` (module
    doc). Returns the tables. ``included``: the track as already read
    (:func:`reeval.workflow.measures_step.read_included_track` of ``track_dir``), shared
    with the other studies of a job; read here when not given."""
    included = included or read_included_track(track_dir)
    runs, grid = included.runs, included.grid
    k, systems = int(opts["k"]), opts["systems"]
    hits = rr.top_k_hits(grid, k, rel_level)
    families, alphas = list(opts["measures"]), list(opts["alpha"])
    keyed = [(f, a) for f in families for a in alphas]
    per_topic = {(_name(f, k), a): rr.scores(hits, f, a, systems=systems) for f, a in keyed}
    base = {_name(f, k): ra.run_means(rr.scores(hits, f, 0.0, systems=systems)) for f in families}
    means = {key: ra.run_means(v) for key, v in per_topic.items()}
    S, T = hits.shape
    run_col = np.array(runs, dtype=object)
    by_topic = pd.concat([pd.DataFrame({
        "run": np.repeat(run_col, T), "qid": np.tile(np.array(hits.topics, dtype=object), S),
        "measure": m, "alpha": rr.alpha_label(a), "value": v.ravel()}) for (m, a), v in per_topic.items()],
        ignore_index=True) if per_topic else pd.DataFrame(columns=TABLE_COLUMNS["by_topic"][1:])
    by_run = pd.concat([pd.DataFrame({
        "run": run_col, "measure": m, "alpha": rr.alpha_label(a), "value": v,
        "rank": pd.Series(np.round(v, 12)).rank(method="min", ascending=False).astype(int).to_numpy()})
        for (m, a), v in means.items()], ignore_index=True) if means else pd.DataFrame(
        columns=TABLE_COLUMNS["by_run"][1:])
    tables = {
        "by_topic": by_topic, "by_run": by_run, "documents": rr.document_table(hits, systems),
        "tau": ra.rank_correlation(means, base),
        "discriminative": ra.discriminative_power(per_topic),
        "stability": ra.stability(per_topic, trials=int(opts["trials"]), seed=int(opts["seed"]),
                                  fuzziness=float(opts["fuzziness"]), scale=opts["fuzziness_scale"],
                                  seeds=int(opts["stability_seeds"])),
        "n_systems": ra.number_of_systems(hits, keyed, sizes=opts["n_systems"],
                                          trials=int(opts["trials"]), seed=int(opts["seed"])),
        "synthetic": _synthetic(hits, opts, track),
        "table4": ra.topic_documents(hits, grid.qrels_rel[grid.qrels_rel >= rel_level],
                                     _table4_topic(hits, opts, track), systems),
    }
    for name, df in tables.items():
        if df.empty and not len(df.columns):  # an analysis with nothing to report (e.g. n_systems of 1 run)
            tables[name] = pd.DataFrame(columns=TABLE_COLUMNS[name][1:])
    tables["n_systems"]["measure"] = tables["n_systems"]["measure"].map(lambda f: _name(f, k))
    out = Path(out_dir)
    for name, df in tables.items():
        df.insert(0, "track", track)
        if name == "by_topic":  # every run x topic: Parquet only
            write_table(df, out / "by_topic.parquet", columns=TABLE_COLUMNS[name])
        else:
            write_table_pair(df, out, name, columns=TABLE_COLUMNS[name])
    if figures:
        track_rareness_figures(track, out)
    return tables


def track_rareness_figures(track: str, out_dir) -> None:
    """The figures ``tau``, ``n_systems`` and ``synthetic`` of one track, drawn from the
    tables :func:`track_rareness` wrote in ``out_dir`` (the rule ``track_figures``, apart
    from the per-track analyses, so that whether a study draws them is no input of those). A
    figure that cannot be drawn says so in its files (:func:`reeval.report.figures.drawn_or_told`)."""
    out = Path(out_dir)
    t = {name: pd.read_parquet(out / f"{name}.parquet") for name in ("tau", "n_systems", "synthetic")}
    with drawn_or_told(out / "tau"):
        rf.plot_tau(t["tau"], out / "tau", title=track)
    with drawn_or_told(out / "n_systems"):
        rf.plot_n_systems(t["n_systems"], out / "n_systems", title=f"{track}: N sampled runs")
    with drawn_or_told(out / "synthetic"):
        rf.plot_synthetic(t["synthetic"], out / "synthetic", title=track)


def _synthetic(hits: rr.Hits, opts: dict, track: str) -> pd.DataFrame:
    syn = opts["synthetic"]
    topics = {str(t): str(q) for t, q in (syn.get("topics") or {}).items()}
    if track in topics:
        if topics[track] not in hits.topics:
            raise ConfigError(f"rareness.synthetic.topics: topic {topics[track]!r} is not a qrels "
                             f"topic of track {track!r}")
        t = hits.topics.index(topics[track])
    else:
        t = ra.default_topic(hits)
    frames = []
    for family in [f for f in opts["measures"] if f.startswith("P_")]:
        df = ra.synthetic_ranks(hits, t, alphas=syn["alpha"], max_docs=int(syn["max_docs"]), family=family)
        df.insert(0, "measure", _name(family, hits.k))
        frames.append(df)
    cols = ["measure", "system", "alpha", "docs", "score", "rank", "best_real", "n_systems"]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)
    out.insert(0, "qid", hits.topics[t] if t >= 0 else None)
    out.insert(1, "num_rel", int(hits.num_rel[t]) if t >= 0 else 0)
    return out


def _table4_topic(hits: rr.Hits, opts: dict, track: str) -> int:
    """Index of the topic of table 4: the one configured for the track
    (``rareness.table4.topics``), else the paper's (TREC-8 topic 431) when the track stands
    for TREC-8 and has it, else the topic with the most relevant documents."""
    configured = {str(t): str(q) for t, q in ((opts.get("table4") or {}).get("topics") or {}).items()}
    if track in configured:
        if configured[track] not in hits.topics:
            raise ConfigError(f"rareness.table4.topics: topic {configured[track]!r} is not a qrels "
                              f"topic of track {track!r}")
        return hits.topics.index(configured[track])
    spec = (opts.get("paper") or {}).get(track)
    collection = spec if isinstance(spec, str) else (spec or {}).get("collection")
    # the published numbers' file is read only for a track that stands for a paper's collection
    paper_topic = (published("rareness").get(collection, {}).get("table4", {}).get("topic")
                   if collection is not None else None)
    if paper_topic is not None and str(paper_topic) in hits.topics:
        return hits.topics.index(str(paper_topic))
    return ra.default_topic(hits)


# ------------------------------------------------------------------ across tracks

def summarize_rareness(tracks: dict, out_dir, opts: dict, levels: dict | None = None) -> None:
    """Stack the per-track analysis tables (``{track: rareness_dir}``), compare with the
    paper (``paper_comparison.csv``, rows of :mod:`reeval.analyses.papers.cells`; ``levels``:
    track -> relevance level, for its method column), and draw the cross-track figures."""
    out = Path(out_dir)
    stacked = {}
    for name in ANALYSES:
        stacked[name] = read_stacked([Path(d) / f"{name}.parquet" for d in tracks.values()], TABLE_COLUMNS[name])
        write_table_pair(stacked[name], out, name)
    rows = rpaper.comparison_rows(stacked, opts.get("paper"), opts, levels)
    more = rtext.text_rows(stacked, opts.get("paper"), rtext.value_ranges(
        [Path(d) / "by_topic.parquet" for d in tracks.values()]))
    write_table(frame([*rows.to_dict("records"), *more]), out / "paper_comparison.csv")
    names = sorted(tracks)
    for what, stem in (("tau", "tau_by_track"), ("n_systems", "n_systems_by_track")):
        with drawn_or_told(out / stem):
            rf.by_track_figure(what, stacked[what], names, out / stem, NO_TRACK_FIGURE_NOTE)
    write_text(summary_markdown(stacked, len(names), opts), out / "summary.md")


def tracks_table(stacked: dict) -> pd.DataFrame:
    """One row per track with the values the cross-track figures draw, so that the tracks
    behind a distribution can be named: its runs, each measure's Kendall tau with its base
    at the largest numeric alpha (``tau_by_track``) and each measure's mean tau over samples
    of the fewest runs N at that alpha (``n_systems_by_track``). Numbers as text (markdown)."""
    tau, ns, disc = stacked["tau"], stacked["n_systems"], stacked["discriminative"]
    tracks = sorted(set(tau.track) | set(disc.track))
    out = pd.DataFrame({"track": tracks, "runs": [fmt(disc[disc.track == t].runs.max()) if (disc.track == t).any()
                                                  else "n/a" for t in tracks]})
    num = rf.numeric_alpha(tau)
    if len(num):
        top = num[num.alpha_value == num.alpha_value.max()]
        for m, g in top.groupby("measure", sort=False):
            v = g.set_index("track").tau
            out[f"τ {m}, α = {g.alpha.iloc[0]}"] = [fmt(v.get(t, float("nan"))) for t in tracks]
    rows = pd.concat([rf.n_systems_rows(g) for _, g in ns.groupby("track")]) if len(ns) else ns
    for m, g in rows.groupby("measure", sort=False):
        first = g[g.n_systems == g.groupby("track").n_systems.transform("min")].set_index("track")
        out[f"mean τ {m}, fewest N"] = [fmt(first.mean_tau.get(t, float("nan"))) + (
            f" (N = {first.n_systems[t]})" if t in first.index else "") for t in tracks]
    return out


def summary_markdown(stacked: dict, n_tracks: int, opts: dict | None = None) -> str:
    """``rareness/summary.md``: the cross-track figures, :func:`tracks_table` and tables 1-4
    in the paper's form (template ``rareness_summary.md``)."""
    opts = opts or {}
    k = int(opts.get("k", 100))
    rarest = int((opts.get("table4") or {}).get("rarest", 10))
    return render("rareness_summary.md", n_tracks=n_tracks, few_tracks=rf.PAGE_TRACKS,
                  no_track_note="" if n_tracks else NO_TRACK_INCLUDED,
                  one_track_note=rf.ONE_TRACK_NOTE + "." if n_tracks == 1 else "",
                  tracks_table=table(tracks_table(stacked)),
                  table1=rpaper.table1_markdown(stacked["discriminative"], opts.get("paper"), k) or "No track.",
                  table2=rpaper.table2_markdown(stacked["stability"], opts.get("paper"), k) or "No track.",
                  table3=rpaper.table3_markdown(stacked["n_systems"], opts.get("paper")),
                  table4=rpaper.table4_markdown(stacked["table4"], rarest) or "No track.")
