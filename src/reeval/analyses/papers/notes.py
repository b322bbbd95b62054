"""The lecture notes' interpolated precision table beside ours, cell by cell.

The notes (../shared/papers/ir-evaluation-lecture-notes.txt, "Interpolation") state the
rule P(R) = max{P' : R' >= R}: at recall level L, the highest precision at any rank whose
recall is at least L. Their example (``published.yaml``, key ``lecture_notes``): two
queries of ten documents, relevant at ranks 1, 3, 6, 9, 10 and 2, 5, 7. Ours, from
``iprec_at_recall`` on that example:

- the stated rule: trec_eval 9.x's level rounding (``precision="float32"``,
  ``--trec-eval-9``), which reaches L at the (int)(L x R + 0.9)-th relevant document: the
  first whose recall is at least L (to a tenth of a document);
- another method: trec_eval 10's (reeval's default), the lround(L x R)-th relevant
  document, recall rounded to the nearest document: on the 3-relevant query L = 0.4 is
  reached at recall 1/3, precision 0.5, where the notes' rule gives 3/7 = 0.43 (so the
  average at 0.4 is 0.583, not 0.55).

Statuses as every comparison's (:mod:`.cells`): ``exact`` when the stated rule prints the
notes' value (two decimals), ``reproduced by another method`` when only trec_eval 10's
does, else ``differs``, with the reason where the notes' own arithmetic explains it (their
average row averages the rounded per-ranking values and rounds half up).
"""

from __future__ import annotations

import tempfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd

from .cells import ANOTHER_METHOD, DIFFERS, EXACT, cell, decimals, frame, printed
from .published import published

STUDY = "lecture notes"
ITEM = "interpolated precision table"
#: the two rules: (name in the rows, reeval's precision option that computes it)
STATED = ("recall at least L (the notes' rule; trec_eval 9.x level rounding)", "float32")
OTHER = ("trec_eval 10: the lround(L x R)-th relevant document", "float64")


def _example_files(ref: dict, folder: Path) -> tuple[Path, Path]:
    """The notes' example as a qrels file and a run file in ``folder``: per query
    ``retrieved`` documents by descending score, relevant at ``relevant_ranks``."""
    qrels, run = [], []
    for qid, ranks in ref["relevant_ranks"].items():
        for r in range(1, int(ref["retrieved"]) + 1):
            qrels.append(f"{qid} 0 q{qid}_d{r} {int(r in ranks)}")
            run.append(f"{qid} Q0 q{qid}_d{r} {r} {100 - r} notes")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "notes").write_text("\n".join(run) + "\n")
    return folder / "qrels", folder / "notes"


def interpolated(ref: dict, precision: str) -> dict:
    """{row of the notes' table: [iprec_at_recall at each level]}: "Ranking 1" and
    "Ranking 2" are the two queries, "Average" their mean, read and scored as trec_eval
    10 (``precision="float64"``) or 9.x (``"float32"``) would."""
    from reeval.io.ingest import ingest_track
    from reeval.measures import evaluate_grid, grid_from_track, parse_measures

    version = 9 if precision == "float32" else 10
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = _example_files(ref, Path(tmp))
        tables = ingest_track("lecture-notes", qrels, [run], precision=precision, threads=1)
    measures = parse_measures(["iprec_at_recall"], version)   # one per level, 0.0 ... 1.0
    scores = evaluate_grid(grid_from_track(tables), measures, version=version)
    per_topic = np.stack([np.asarray(scores.values[m.name])[0] for m in measures], axis=1)   # topics x levels
    topics = [str(t) for t in scores.topics]
    out = {f"Ranking {k}": per_topic[topics.index(qid)].tolist()
           for k, qid in enumerate(ref["relevant_ranks"], start=1)}
    out["Average"] = per_topic.mean(axis=0).tolist()
    return out


def _half_up(value: Decimal, digits: int) -> str:
    """``value`` to ``digits`` decimals, a 5 rounded up (as by hand: 0.465 -> 0.47)."""
    return str(value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def notes_rows() -> pd.DataFrame:
    """One row per cell of the notes' table (module doc), columns of :mod:`.cells`."""
    ref = published("lecture_notes")
    stated, other = interpolated(ref, STATED[1]), interpolated(ref, OTHER[1])
    rows = []
    for name, printed_row in ref["table"].items():
        for k, (level, text) in enumerate(zip(ref["levels"], printed_row)):
            digits = max(decimals(text), 2)
            ours, alt = stated[name][k], other[name][k]
            note = ""
            if printed(ours, digits) == printed(float(text), digits):
                status = EXACT
            elif printed(alt, digits) == printed(float(text), digits):
                status = ANOTHER_METHOD
                note = f"the stated rule gives {printed(ours, digits)}"
            else:
                status = DIFFERS
                parts = [str(ref["table"][r][k]) for r in ref["table"] if r != name]
                rounded = _half_up(sum(map(Decimal, parts)) / len(parts), digits) if name == "Average" else ""
                note = (f"the notes average their rounded values, ({' + '.join(parts)}) / {len(parts)}, "
                        f"and round half up: {rounded}" if rounded and Decimal(rounded) == Decimal(text)
                        else "cause unknown")
            rows.append(cell(STUDY, ITEM, name, f"recall {level:.1f}", text, status, note, ours=ours,
                             digits=digits, method=STATED[0], other_setting=OTHER[0],
                             other_value=printed(alt, digits)))
    return frame(rows)
