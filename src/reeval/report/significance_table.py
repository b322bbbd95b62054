"""The many-run comparison table (as ranx prints it): a row per run, the measures as
columns, each mean followed by the markers of the runs it beats significantly; the best
mean per measure in bold; a caption naming the test and the threshold. As text (the
command line), Markdown or LaTeX (booktabs), each name escaped for its format
(:mod:`reeval.report.escape`).

Pure functions, text in and text out, from the rows of ``reeval.compare_runs``.
"""

from __future__ import annotations

import string

import numpy as np
import pandas as pd

from reeval.choices import REPORT_FORMAT, REPORT_FORMATS

from .baseline_table import render_baseline
from .escape import latex_text, line_text, markdown_text
from .markdown import table as markdown_table
from .test_names import CORRECTION_NAMES, TEST_NAMES  # re-exported

FORMATS = REPORT_FORMATS


def run_markers(runs) -> list[str]:
    """One marker per run: the letters a, b, ... for up to 26 runs, else 1, 2, ..."""
    return list(string.ascii_lowercase[:len(runs)]) if len(runs) <= 26 else [str(k + 1) for k in range(len(runs))]


def beaten(rows: pd.DataFrame, runs, measures, higher_is_better: dict, max_p: float) -> dict:
    """{(run, measure): [runs it beats]}: pairs with p_adjusted < max_p, won by the run whose
    mean is better in the measure's direction (equal means: nobody)."""
    out = {(r, m): [] for r in runs for m in measures}
    sig = rows[rows.p_adjusted < max_p]
    for m, g in sig.groupby("measure", sort=False):
        better_a = np.where(higher_is_better[m], g.mean_a > g.mean_b, g.mean_a < g.mean_b)
        worse_a = np.where(higher_is_better[m], g.mean_a < g.mean_b, g.mean_a > g.mean_b)
        for a, b, win, lose in zip(g.run_a, g.run_b, better_a, worse_a):
            if win:
                out[(a, m)].append(b)
            elif lose:
                out[(b, m)].append(a)
    return out


def _means(rows: pd.DataFrame, runs, measures) -> dict:
    """{(run, measure): mean} from the rows' mean_a / mean_b."""
    found = {}
    for col_run, col_mean in (("run_a", "mean_a"), ("run_b", "mean_b")):
        for r, m, v in zip(rows[col_run], rows.measure, rows[col_mean]):
            found[(r, m)] = float(v)
    return {(r, m): found.get((r, m), np.nan) for r in runs for m in measures}


def _cells(rows, runs, measures, higher_is_better, max_p, decimals, fmt) -> list[list[str]]:
    """The body: per run its marker, its name and per measure ``fmt(value, markers, best)``."""
    labels = dict(zip(runs, run_markers(runs)))
    means = _means(rows, runs, measures)
    wins = beaten(rows, runs, measures, higher_is_better, max_p)
    best = {}
    for m in measures:
        values = [means[(r, m)] for r in runs if np.isfinite(means[(r, m)])]
        best[m] = (max(values) if higher_is_better[m] else min(values)) if values else None
    sep = "" if len(runs) <= 26 else ","
    body = []
    for r in runs:
        cells = [labels[r], str(r)]
        for m in measures:
            marks = sep.join(labels[s] for s in runs if s in wins[(r, m)])
            cells.append(fmt(f"{means[(r, m)]:.{decimals}f}", marks, means[(r, m)] == best[m]))
        body.append(cells)
    return body


def caption(settings: dict, test: str, max_p: float, n_pairs: int) -> str:
    """What the markers mean: the test, its alternative, resamples and correction, the threshold."""
    name = TEST_NAMES[test]
    if test in ("permutation", "bootstrap", "randomised_tukey_hsd"):
        name += f" ({settings['resamples']} resamples, seed {settings['seed']})"
    sides = "two-sided" if settings.get("alternative", "two-sided") == "two-sided" else "one-sided"
    correction = settings.get("correction", "none")
    if test in ("tukey_hsd", "randomised_tukey_hsd"):
        family = f", simultaneous over all {n_pairs} pairs of each measure"
    elif correction == "none":
        family = ", uncorrected"
    else:
        family = f", {CORRECTION_NAMES[correction]}-adjusted over the {n_pairs} pairs of each measure"
    return f"Markers: the runs each run beats at p < {max_p:g} ({sides} {name}{family})."


def render(rows: pd.DataFrame, settings: dict, test: str, max_p: float = 0.05, fmt: str = REPORT_FORMAT,
           decimals: int = 4) -> str:
    """The table of ``rows`` (one test) as ``fmt`` ("text", "markdown" or "latex").
    ``settings``: runs, measures, higher_is_better ({measure: bool}), alternative,
    correction, seed, resamples, baseline (the Comparison's attrs). With a baseline, the
    table is :func:`.baseline_table.render_baseline`'s: the baseline marked, deltas,
    topics improved and degraded, p and corrected p per measure."""
    runs, measures = list(settings["runs"]), list(settings["measures"])
    rows = rows[rows.test == test]
    if settings.get("baseline") is not None:
        return render_baseline(rows, settings, TEST_NAMES[test], fmt, decimals, max_p)
    n_pairs = int(len(rows) / max(1, len(measures)))
    text = caption(settings, test, max_p, n_pairs)
    hib = settings["higher_is_better"]
    if fmt == "latex":
        body = _cells(rows, runs, measures, hib, max_p, decimals, _latex_cell)
        return _latex(body, measures, text + " Bold: the best mean of each measure.")
    if fmt == "markdown":
        body = _cells(rows, runs, measures, hib, max_p, decimals, _markdown_cell)
        frame = pd.DataFrame(body, columns=["", "run", *measures])
        return markdown_table(frame, markup=measures) + "\n\n" + text + " Bold: the best mean of each measure.\n"
    body = _cells(rows, runs, measures, hib, max_p, decimals, lambda v, marks, best: (v, marks, best))
    width = {k: max(len(r[k][0]) for r in body) for k in range(2, 2 + len(measures))} if body else {}
    body = [[r[0], line_text(r[1])] + [_text_cell(r[k][0].rjust(width[k]), *r[k][1:]) for k in width]
            for r in body]
    return _aligned([["", "run", *measures], *body]) + "\n" + text + " *: the best mean of each measure.\n"


def render_each(rows: pd.DataFrame, settings: dict, tests, max_p: float = 0.05, fmt: str = REPORT_FORMAT,
                decimals: int = 4) -> str:
    """The table of each of ``tests`` in turn (:func:`render`, each with the caption that
    names its test), separated by a blank line: two booktabs ``table`` environments in
    LaTeX, two tables each followed by its caption in Markdown and text."""
    return "\n".join(render(rows, settings, test, max_p, fmt, decimals) for test in tests)


def _text_cell(value: str, marks: str, best: bool) -> str:
    return f"{value}{'*' if best else ' '}{marks}".rstrip()


def _markdown_cell(value: str, marks: str, best: bool) -> str:
    """A mean (a formatted number), bold when best, and its markers (letters, digits, commas)."""
    return (f"**{markdown_text(value)}**" if best else markdown_text(value)) + (f"<sup>{marks}</sup>" if marks else "")


def _latex_cell(value: str, marks: str, best: bool) -> str:
    return (f"\\textbf{{{value}}}" if best else value) + (f"$^{{{marks}}}$" if marks else "")


def _latex(body, measures, text) -> str:
    head = " & ".join(["", "Run", *map(latex_text, measures)]) + r" \\"
    lines = [r"\begin{table}", r"\centering", f"\\caption{{{latex_text(text)}}}",
             f"\\begin{{tabular}}{{ll{'r' * len(measures)}}}", r"\toprule", head, r"\midrule"]
    lines += [" & ".join([r[0], latex_text(r[1]), *r[2:]]) + r" \\" for r in body]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _aligned(table: list[list[str]]) -> str:
    """Rows of cells as left-aligned text columns (the numbers share one width)."""
    widths = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in table)
