"""``summary/summary.md``, the first file to read after a run: which tracks are included,
then per track its size, its best runs and the ASL study's two findings in one line each,
and where to look next (prose in ``report/templates/summary.md``).

Per track, from ``measures_by_run`` and the ``tracks.csv`` row:

- best runs by MAP, P@20 and nDCG@10 (highest mean; ties: the first run in the table's
  order, which is sorted by name), each with its value to trec_eval's 4 decimals; a
  measure the configuration did not compute is left out of the line;
- headroom: the best P@20 beside the best ASL@g1-10, and ASL@g1-10 - 1, the mean number of
  non-relevant documents ranked above each of a topic's first 10 relevant ones (with the
  default ``asl: unretrieved``, which places a relevant document the run did not retrieve
  right after its last one: ASL = irrel_q + 1);
- reordering: Kendall's tau-b between the runs ordered by MAP and by ASL (the endpoints of
  the study's table 2, whose MAP ordering is that of ``measures_by_run``: topics without a
  relevant document add 0 to every run), and the ASL rank of the best run by MAP
  (1 + the runs with a strictly lower ASL); ``n/a`` with fewer than 2 runs or a constant
  measure.
"""

from __future__ import annotations


import pandas as pd

from reeval.archive.inclusion import NO_TRACK_INCLUDED
from reeval.report.escape import markdown_code as code, markdown_text
from reeval.report.markdown import fmt, render, table
from reeval.stats.correlation import kendall_tau

#: the best-run line's measures: (column of measures_by_run, printed name)
BEST_BY = (("map", "MAP"), ("P_20", "P@20"), ("ndcg_cut_10", "nDCG@10"))


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` ... ``11th``, ``12th``, ``13th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def best(by_run: pd.DataFrame, column: str, highest: bool = True) -> tuple[str, float] | None:
    """(run, value) of the best run by ``column`` (first in table order on ties), or None
    when the column is absent or has no value."""
    if column not in by_run or by_run[column].notna().sum() == 0:
        return None
    idx = by_run[column].idxmax() if highest else by_run[column].idxmin()
    return str(by_run.loc[idx, "run"]), float(by_run.loc[idx, column])


def best_runs_line(by_run: pd.DataFrame) -> str:
    """``Best runs: MAP 0.4123 (a), P@20 0.3500 (b), nDCG@10 0.5012 (a).``"""
    cells = [f"{name} {fmt(found[1])} ({code(found[0])})" for column, name in BEST_BY
             if (found := best(by_run, column)) is not None]
    return "Best runs: " + (", ".join(cells) if cells else "none of MAP, P@20, nDCG@10 was computed") + "."


def headroom_line(by_run: pd.DataFrame) -> str:
    """The best P@20 beside the best ASL@g1-10 and what that ASL means in documents."""
    p20, asl = best(by_run, "P_20"), best(by_run, "ASL@g1-10", highest=False)
    if asl is None:
        return "Headroom: ASL@g1-10 was not computed (see `study/summary.md`)."
    text = "Headroom: " + (f"the best P@20 is {fmt(p20[1])} ({code(p20[0])}), and " if p20 is not None else "")
    return (text + f"the best ASL@g1-10 is {fmt(asl[1], 1)} ({code(asl[0])}): that run ranks on average "
            f"{fmt(asl[1] - 1, 1)} non-relevant documents above each of a topic's first 10 relevant ones "
            "(figures 1-4 of `study/summary.md`). " + unretrieved_note(by_run, asl[0]))


def unretrieved_note(by_run: pd.DataFrame, run: str) -> str:
    """How ASL counts a relevant document a run did not retrieve (just after the run's last
    document), and, when ``run`` returns fewer than
    :data:`reeval.analyses.asl.views.SHALLOW_SHARE` of the deepest run's documents a topic
    (``num_ret / num_q``), that its low ASL is a lower bound of a shallow run."""
    from reeval.analyses.asl.views import SHALLOW_SHARE, docs_per_topic

    text = ("ASL counts a relevant document a run did not retrieve as ranked just after the run's last "
            "document, so a run that returns few documents has a low ASL")
    depth = docs_per_topic(by_run)
    mine, deepest = depth.get(run, float("nan")), depth.max()
    if mine < SHALLOW_SHARE * deepest:  # False when either is NaN
        text += (f": {code(run)} returns {fmt(mine, 0)} documents a topic (the deepest run {fmt(deepest, 0)}), "
                 "its ASL a lower bound")
    return text + "."


def reordering_line(by_run: pd.DataFrame) -> str:
    """Kendall's tau between the MAP and ASL orderings, and where MAP's best run lands by ASL."""
    if "map" not in by_run or "ASL" not in by_run:
        return "Reordering: MAP or ASL was not computed (table 2 of `study/summary.md`)."
    runs = by_run.dropna(subset=["map", "ASL"])
    if len(runs) < 2:
        return f"Reordering: n/a with {len(runs)} run that has both MAP and ASL (Kendall's tau compares two or more)."
    tau = kendall_tau(runs["map"].to_numpy(), -runs["ASL"].to_numpy())
    text = f"Reordering: ranking the {len(runs)} runs by ASL instead of MAP gives Kendall's tau {fmt(tau, 2)}"
    top = best(runs, "map")
    if top is not None:
        rank = 1 + int((runs["ASL"] < runs.loc[runs["run"] == top[0], "ASL"].iloc[0]).sum())
        text += f"; the best run by MAP ({code(top[0])}) is {ordinal(rank)} by ASL"
    return text + " (which swaps are significant: table 2 of `study/summary.md`)."


def track_section(row: dict, by_run: pd.DataFrame) -> str:
    """A track's heading (runs, topics, judgments) and its three finding lines."""
    head = (f"### {markdown_text(row['track'])}: {row['runs']} runs, {row['qrels_topics']} topics "
            f"({row['judgments']} judgments, {row['relevant']} relevant at level >= {row['relevance_level']})")
    lines = [best_runs_line(by_run), headroom_line(by_run), reordering_line(by_run)]
    return "\n\n".join([head, "\n".join(f"- {line}" for line in lines)])


def inclusion_paragraph(included: list, inclusion: pd.DataFrame | None) -> str:
    """Which tracks ``runs.csv`` and ``tracks.csv`` hold, and the inclusion table's left-out rows."""
    text = (f"`runs.parquet`/`runs.csv` (every run's means) and `tracks.csv` (one row per track) hold "
            f"{len(included)} included track{'' if len(included) == 1 else 's'}"
            + (f": {', '.join(map(markdown_text, included))}." if included else "."))
    if inclusion is not None and len(inclusion):
        left_out = inclusion[~inclusion["included"].astype(bool)]
        listed = f"`inclusion.csv` lists every track of the configuration ({len(inclusion)})"
        text += "\n\n" + (f"{listed}; {len(left_out)} left out:\n\n" + table(left_out[["track", "reason"]])
                          if len(left_out) else f"{listed}: all are included.")
    return text


def summary_markdown(rows: list[dict], by_run: dict, inclusion: pd.DataFrame | None) -> str:
    """``summary.md`` from the ``tracks.csv`` rows and each included track's
    ``measures_by_run`` (``by_run[track]``); ``inclusion``: the inclusion table or None."""
    included = [row["track"] for row in rows]
    sections = [track_section(row, by_run[row["track"]]) for row in rows]
    return render("summary.md", inclusion=inclusion_paragraph(included, inclusion),
                  no_track_note="" if included else NO_TRACK_INCLUDED,
                  tracks=("## Per track\n\n" + "\n\n".join(sections)) if sections else "")
