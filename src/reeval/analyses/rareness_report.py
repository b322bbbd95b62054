"""Workflow step for the rareness measures: per-track tables and figures, cross-track ones.

Per track (``<results>/tracks/<track>/rareness/``, names in TRACK_TABLES/TRACK_FIGURES):

- ``by_topic.parquet``: run, qid, measure, alpha, value (every run x qrels topic).
- ``by_run.parquet``/``.csv``: run, measure, alpha, value (mean over the qrels topics), rank.
- ``documents.parquet``/``.csv``: every relevant document: c_k, S, rarity R and R'.
- ``tau``, ``discriminative``, ``stability``, ``n_systems``, ``synthetic`` (Parquet + CSV):
  the analyses of :mod:`reeval.analyses.rareness_analysis`.
- figures (PNG + PDF): ``tau`` (figure 2), ``n_systems`` (table 3), ``synthetic`` (figure 1).

Across tracks (``<results>/rareness/``): the analysis tables stacked with a ``track``
column, ``paper_comparison.csv`` (the paper's published numbers beside ours where a track
stands for one of its collections) and the figures ``tau_by_track`` and
``n_systems_by_track``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from reeval.archive.inclusion import NO_TRACK_FIGURE_NOTE
from reeval.io.tables import read_stacked, write_table, write_table_pair
from reeval.measures import build_grid
from reeval.report.figures import pyplot, save_figure_pair
from reeval.report.published import published
from reeval.workflow.config_check import ConfigError
from reeval.workflow.measures_step import read_track_tables
from reeval.workflow.run_inclusion import included_runs, read_ingest_report

from . import rareness as rr
from . import rareness_analysis as ra

DEFAULTS = {
    "k": 100,
    "alpha": [0, 0.25, 0.5, 0.75, 1],
    "measures": ["P_rareness", "AP_rareness", "P_rareness_norm", "AP_rareness_norm"],
    "systems": "all",
    "trials": 1000,
    "seed": 20230402,
    "n_systems": [2, 4, 8, 16, 32, 64],
    "synthetic": {"alpha": [0, 0.5, 1], "max_docs": 100, "topics": {}},
    "paper": {},
}

ANALYSES = ("tau", "discriminative", "stability", "n_systems", "synthetic")
TRACK_TABLES = (["by_topic.parquet", "by_run.parquet", "by_run.csv", "documents.parquet", "documents.csv"]
                + [f"{a}.{ext}" for a in ANALYSES for ext in ("parquet", "csv")])
TRACK_FIGURES = [f"{name}.{ext}" for name in ("tau", "n_systems", "synthetic") for ext in ("png", "pdf")]
SUMMARY_TABLES = [f"{a}.{ext}" for a in ANALYSES for ext in ("parquet", "csv")] + ["paper_comparison.csv"]
SUMMARY_FIGURES = [f"{name}.{ext}" for name in ("tau_by_track", "n_systems_by_track") for ext in ("png", "pdf")]
#: The columns of every per-track table (the cross-track ones stack the ANALYSES), also
#: when a table has no row; the writer refuses a table whose columns differ.
TABLE_COLUMNS = {
    "by_topic": ("track", "run", "qid", "measure", "alpha", "value"),
    "by_run": ("track", "run", "measure", "alpha", "value", "rank"),
    "documents": ("track", "qid", "docno", "k", "c_k", "n_systems", "rarity", "rarity_norm"),
    "tau": ("track", "measure", "alpha", "tau", "tau_ap"),
    "discriminative": ("track", "measure", "alpha", "runs", "pairs", "significant_95", "significant_99"),
    "stability": ("track", "measure", "alpha", "topics", "sampled_topics", "trials", "stability", "tied_share"),
    "n_systems": ("track", "measure", "alpha", "n_systems", "trials", "valid_trials", "mean_tau", "sd_tau"),
    "synthetic": ("track", "qid", "num_rel", "measure", "system", "alpha", "docs", "score", "rank",
                  "best_real", "n_systems"),
}

def options(config: dict | None) -> dict:
    """The ``rareness`` config section over DEFAULTS (``synthetic`` merged key by key)."""
    cfg = dict(config or {})
    out = {**DEFAULTS, **{k: v for k, v in cfg.items() if k != "synthetic"}}
    out["synthetic"] = {**DEFAULTS["synthetic"], **(cfg.get("synthetic") or {})}
    out["alpha"] = [rr.check_alpha(a) for a in out["alpha"]]
    out["synthetic"]["alpha"] = [rr.check_alpha(a) for a in out["synthetic"]["alpha"]]
    return out


def _name(family: str, k: int) -> str:
    return f"{family}@{k}"


def track_rareness(track: str, track_dir, out_dir, opts: dict, rel_level: int = 1) -> dict:
    """Compute and write every per-track table and figure (module doc). Returns the tables."""
    judged, depth, qrels = read_track_tables(track_dir)
    runs = included_runs(read_ingest_report(track_dir))
    grid = build_grid(judged, depth, qrels, runs=runs, keep_docno=True)
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
        "stability": ra.stability(per_topic, trials=int(opts["trials"]), seed=int(opts["seed"])),
        "n_systems": ra.number_of_systems(hits, keyed, sizes=opts["n_systems"],
                                          trials=int(opts["trials"]), seed=int(opts["seed"])),
        "synthetic": _synthetic(hits, opts, track),
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
    plot_tau(tables["tau"], out / "tau", title=f"{track}: Kendall tau with the base measure")
    plot_n_systems(tables["n_systems"], out / "n_systems", title=f"{track}: rareness over N sampled runs")
    plot_synthetic(tables["synthetic"], out / "synthetic", title=f"{track}")
    return tables


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


# ------------------------------------------------------------------ figures

def _numeric(df: pd.DataFrame) -> pd.DataFrame:
    """Rows whose alpha is a number (``1/R`` is kept in the tables, not on alpha axes)."""
    a = pd.to_numeric(df["alpha"], errors="coerce")
    return df.assign(alpha_value=a)[a.notna()]


def _tau_axes(ax, df: pd.DataFrame) -> None:
    for measure, g in _numeric(df).groupby("measure", sort=False):
        g = g.sort_values("alpha_value")
        ax.plot(g.alpha_value, g.tau, marker="o", linestyle="--" if "_norm" in measure else "-", label=measure)
    ax.axhline(0.9, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("alpha")


def plot_tau(tau: pd.DataFrame, path_stem, title: str = "") -> None:
    """Kendall tau between each rareness measure and its base, against alpha (figure 2)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    _tau_axes(ax, tau)
    ax.set_ylabel("Kendall's tau")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure_pair(fig, path_stem)


def _n_systems_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Rows at the largest numeric alpha (the paper's table 3 uses alpha = 1)."""
    num = _numeric(df)
    return num[num.alpha_value == num.alpha_value.max()] if len(num) else num


def plot_n_systems(n_systems: pd.DataFrame, path_stem, title: str = "") -> None:
    """Mean Kendall tau between full and sample rankings against the sample size N."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    rows = _n_systems_rows(n_systems)
    for measure, g in rows.groupby("measure", sort=False):
        ax.plot(g.n_systems, g.mean_tau, marker="o", linestyle="--" if "_norm" in measure else "-",
                label=f"{measure} (alpha={g.alpha.iloc[0]})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N runs sampled")
    ax.set_ylabel("mean Kendall's tau")
    ax.set_title(title, fontsize=9)
    if len(rows):
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure_pair(fig, path_stem)


def plot_synthetic(syn: pd.DataFrame, path_stem, title: str = "") -> None:
    """Rank of S_rare (a) and S_common (b) among the real runs against D (figure 1)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, system in zip(axes, ("rare", "common")):
        sub = syn[syn.system == system]
        for (measure, alpha), g in sub.groupby(["measure", "alpha"], sort=False):
            ax.plot(g.docs, g["rank"], linestyle="--" if "_norm" in measure else "-",
                    label=f"{measure} alpha={alpha}")
        moving = sub.loc[sub["rank"] > 1, "docs"]
        if len(moving) and len(sub):  # show where the ranks move, not a long flat tail at rank 1
            ax.set_xlim(0, min(sub.docs.max(), max(10, int(1.5 * moving.max()) + 2)))
        ax.set_xlabel("relevant documents retrieved (D)")
        ax.set_title(f"S_{system}", fontsize=9)
        if len(sub):
            ax.legend(fontsize=7)
    axes[0].set_ylabel("rank among the runs (1 = best)")
    qid = syn["qid"].iloc[0] if len(syn) else "-"
    fig.suptitle(f"{title}: topic {qid}", fontsize=9)
    fig.tight_layout()
    save_figure_pair(fig, path_stem)


# ------------------------------------------------------------------ across tracks

def paper_comparison(discriminative: pd.DataFrame, stability: pd.DataFrame, paper: dict,
                     k: int = 100) -> pd.DataFrame:
    """The paper's tables 1 and 2 beside ours for each ``{track: collection}`` of ``paper``
    (the collections of ``rareness`` in :mod:`reeval.report.published`).

    Pair counts are also given as shares of all pairs, since the run sets differ in size.
    The paper's cutoff is k = 100; the note says which k ours used.
    """
    rows = []
    known = published("rareness")
    for track, collection in (paper or {}).items():
        ref = known.get(collection)
        if ref is None:
            raise ValueError(f"no published numbers for collection {collection!r}; known: {sorted(known)}")
        d = discriminative[discriminative.track == track]
        s = stability[stability.track == track]
        for r in ref["rows"]:
            family, alpha = r["measure"], r["alpha"]
            sig95, sig99, stab = r["significant_95"], r["significant_99"], r["stability"]
            key = (d.measure == _name(family, k)) & (d.alpha == rr.alpha_label(alpha))
            skey = (s.measure == _name(family, k)) & (s.alpha == rr.alpha_label(alpha))
            ours = d[key].iloc[0] if key.any() else None
            ours_s = s[skey].iloc[0] if skey.any() else None
            for analysis, value, col in (("significant_95", sig95, "significant_95"),
                                         ("significant_99", sig99, "significant_99"),
                                         ("stability", stab, "stability")):
                if analysis == "stability":
                    mine = float(ours_s[col]) if ours_s is not None else math.nan
                    paper_share = ours_share = math.nan
                else:
                    mine = float(ours[col]) if ours is not None else math.nan
                    paper_share = value / ref["pairs"]
                    ours_share = mine / ours["pairs"] if ours is not None and ours["pairs"] else math.nan
                rows.append({
                    "track": track, "paper_collection": collection, "analysis": analysis,
                    "measure": _name(family, k), "alpha": rr.alpha_label(alpha),
                    "paper": value, "ours": mine, "paper_share_of_pairs": paper_share,
                    "ours_share_of_pairs": ours_share,
                    "runs_paper": ref["runs"], "runs_ours": int(ours["runs"]) if ours is not None else math.nan,
                    "note": f"paper: {ref['collection']}, k = 100; ours: the runs of {track} "
                            f"in this study, k = {k}",
                })
    cols = ["track", "paper_collection", "analysis", "measure", "alpha", "paper", "ours",
            "paper_share_of_pairs", "ours_share_of_pairs", "runs_paper", "runs_ours", "note"]
    return pd.DataFrame(rows, columns=cols)


def summarize_rareness(tracks: dict, out_dir, opts: dict) -> None:
    """Stack the per-track analysis tables (``{track: rareness_dir}``), compare with the
    paper, and draw the cross-track figures."""
    out = Path(out_dir)
    stacked = {}
    for name in ANALYSES:
        stacked[name] = read_stacked([Path(d) / f"{name}.parquet" for d in tracks.values()], TABLE_COLUMNS[name])
        write_table_pair(stacked[name], out, name)
    write_table(paper_comparison(stacked["discriminative"], stacked["stability"], opts.get("paper"),
                                 int(opts["k"])), out / "paper_comparison.csv")
    plt = pyplot()
    names = list(tracks)
    for what, stem in (("tau", "tau_by_track"), ("n_systems", "n_systems_by_track")):
        n = max(1, len(names))
        cols = min(4, n)
        rows = math.ceil(n / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), sharey=True, squeeze=False)
        for ax, track in zip(axes.ravel(), names):
            df = stacked[what][stacked[what].track == track]
            if what == "tau":
                _tau_axes(ax, df)
            else:
                for measure, g in _n_systems_rows(df).groupby("measure", sort=False):
                    ax.plot(g.n_systems, g.mean_tau, marker="o",
                            linestyle="--" if "_norm" in measure else "-", label=measure)
                ax.set_xscale("log", base=2)
                ax.set_xlabel("N runs sampled")
            ax.set_title(track, fontsize=8)
        for ax in axes.ravel()[max(1, len(names)):]:
            ax.set_visible(False)
        axes[0, 0].set_ylabel("Kendall's tau" if what == "tau" else "mean Kendall's tau")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7)
        if not names:
            axes[0, 0].text(0.5, 0.5, NO_TRACK_FIGURE_NOTE, ha="center", va="center",
                            transform=axes[0, 0].transAxes)
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        save_figure_pair(fig, out / stem)
