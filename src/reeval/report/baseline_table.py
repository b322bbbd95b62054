"""The comparison against a baseline, as PyTerrier's Experiment prints it: the baseline's
row first and marked, then per other run and measure its mean, the difference from the
baseline, the topics it improves and degrades (in the measure's direction), the p-value
and the corrected p-value. As text, Markdown or LaTeX (booktabs).

Pure functions, text in and text out, from the rows of ``reeval.compare_runs(...,
baseline=...)`` (run_a = the run, run_b = the baseline).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .escape import latex_text as latex_escape, markdown_text as _markdown_text
from .markdown import fmt_p
from .test_names import CORRECTION_NAMES

#: the columns shown per measure for a run compared with the baseline
PER_MEASURE = ("mean", "delta", "improved", "degraded", "p", "p corrected")


def baseline_cells(rows: pd.DataFrame, settings: dict, decimals: int,
                   max_p: float = 0.05) -> tuple[list[str], list[list[str]]]:
    """(header, body) of the table: a row per run, the baseline first (named with
    " (baseline)"), then the others in order; per measure :data:`PER_MEASURE`. improved
    counts the topics where the run is better than the baseline in the measure's
    direction (higher, or lower for ASL), degraded where it is worse; the baseline's own
    row has its means and blanks. p-values in fixed notation with a floor
    (:func:`.markdown.fmt_p`: ``0.046``, ``< 0.001``); a corrected p-value below ``max_p``
    is followed by " *"."""
    runs, measures, baseline = list(settings["runs"]), list(settings["measures"]), settings["baseline"]
    header = ["run"] + [f"{m} {c}" if c != "mean" else m for m in measures for c in PER_MEASURE]
    by_pair = {(r.run_a, r.measure): r for r in rows.itertuples(index=False)}
    base_row = [f"{baseline} (baseline)"]
    for m in measures:
        found = next((r for (a, mm), r in by_pair.items() if mm == m), None)
        mean = np.nan if found is None else found.mean_b
        base_row += [f"{mean:.{decimals}f}", "", "", "", "", ""]
    body = [base_row]
    for run in runs:
        if run == baseline:
            continue
        cells = [str(run)]
        for m in measures:
            r = by_pair.get((run, m))
            if r is None:
                cells += [""] * len(PER_MEASURE)
                continue
            up, down = ((r.topics_a_higher, r.topics_a_lower) if settings["higher_is_better"][m]
                        else (r.topics_a_lower, r.topics_a_higher))
            star = " *" if r.p_adjusted < max_p else ""
            cells += [f"{r.mean_a:.{decimals}f}", f"{r.diff:+.{decimals}f}", str(int(up)), str(int(down)),
                      fmt_p(r.p_value), f"{fmt_p(r.p_adjusted)}{star}"]
        body.append(cells)
    return header, body


def baseline_caption(settings: dict, test_name: str, n_runs: int, max_p: float = 0.05) -> str:
    """The test, its sides and its correction over the runs compared with the baseline."""
    sides = "two-sided" if settings.get("alternative", "two-sided") == "two-sided" else "one-sided"
    correction = settings.get("correction", "none")
    if "tukey" in test_name.lower():
        corrected = "simultaneous (Tukey)"
    elif correction == "none":
        corrected = "not corrected"
    else:
        corrected = f"{CORRECTION_NAMES[correction]}-corrected over the {n_runs} runs compared with the baseline"
    return (f"Each run against the baseline {settings['baseline']}: delta = its mean minus the baseline's; "
            f"improved / degraded: topics where it is better / worse; p: {sides} {test_name}; "
            f"p corrected: {corrected}; *: below {max_p:g}.")


def render_baseline(rows: pd.DataFrame, settings: dict, test_name: str, fmt: str, decimals: int,
                    max_p: float = 0.05) -> str:
    """The table in ``fmt`` ("text", "markdown" or "latex") with its caption."""
    header, body = baseline_cells(rows, settings, decimals, max_p)
    text = baseline_caption(settings, test_name, len(body) - 1, max_p)
    if fmt == "markdown":
        lines = ["| " + " | ".join(map(_markdown_text, header)) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(map(_markdown_text, row)) + " |" for row in body]
        return "\n".join(lines) + "\n\n" + text + "\n"
    if fmt == "latex":
        lines = [r"\begin{table}", r"\centering", f"\\caption{{{latex_escape(text)}}}",
                 f"\\begin{{tabular}}{{l{'r' * (len(header) - 1)}}}", r"\toprule",
                 " & ".join(map(latex_escape, header)) + r" \\", r"\midrule"]
        lines += [" & ".join(map(latex_escape, row)) + r" \\" for row in body]
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"
    table = [header, *body]
    widths = [max(len(row[k]) for row in table) for k in range(len(header))]
    aligned = "\n".join("  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(row, widths)))
                        .rstrip() for row in table)
    return aligned + "\n" + text + "\n"


