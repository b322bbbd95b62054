"""``reeval.evaluate`` and ``reeval.prefer``: the commands as DataFrames (``reeval.compare``
and ``compare_runs``: :mod:`reeval.api.comparison`).

Each reads its inputs with :func:`reeval.api.inputs.load_track` and computes with the
function its command uses (:mod:`reeval.compute`), so values equal the command's bit for
bit. Nothing is printed: what reading dropped or read differently from trec_eval is in
the result's ``attrs["notes"]`` (the lines ``reeval score`` writes on stderr: one per input
that differs, one summing up what was read as trec_eval reads it) and, where something
differs or was lost, announced by one :class:`reeval.ReevalWarning` per call; ``attrs["ingest_report"]``
holds the line counts of every input (the columns of ``ingest_report.csv``).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Union

import numpy as np
import pandas as pd

from reeval.choices import PRECISIONS, SYSTEMS, TIES, UNRETRIEVED_POLICIES, integer_problem
from reeval.errors import InputError, ReevalWarning

from .inputs import load_track

#: what ``qrels`` may be: a path, a DataFrame, a dict {query_id: {doc_id: relevance}}, records
QrelsInput = Union[str, os.PathLike, pd.DataFrame, Mapping, Iterable]
#: what ``runs`` may be: a path or paths, a DataFrame, a dict (one run or named runs), records
RunsInput = Union[str, os.PathLike, Sequence, pd.DataFrame, Mapping, Iterable]


def _specs(measures) -> list[str]:
    """Measure names as text: one name or an iterable of them (objects, such as
    ir_measures' ``nDCG@10``, by their ``str``), without the spaces around them that
    trec_eval would not keep (:func:`reeval.measures.params.trimmed`)."""
    from reeval.measures.params import trimmed

    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    specs = [trimmed(str(m)) for m in measures]
    if not specs:
        raise InputError("measures: no measure given")
    return specs


def measure_columns(measures, per_topic_only: bool = False, precision: str = "float64") -> dict:
    """Column name -> :class:`reeval.measures.Measure`: a name that means one measure
    keeps the caller's spelling (``P@10``, ``AP``, ``RR@10``), unless trec_eval reads its
    parameters leniently (``ndcg_cut.1O`` is ``ndcg_cut_1``: :attr:`Measure.read_as`); a set
    or a list of cutoffs (``official``, ``P.5,10``) gives reeval's names (``P_5``,
    ``P_10``), without the text measures a set holds (``runid``, ``relstring``: name them
    to get them). First occurrence wins."""
    from reeval.compute import trec_eval_version
    from reeval.measures import accepted_names, family_of, parse_measure

    columns: dict = {}
    for spec in _specs(measures):
        try:
            found = parse_measure(spec, trec_eval_version(precision))
            if len(found) > 1:
                found = [m for m in found if not m.is_text]
        except ValueError as exc:  # the nearest names, not the whole list (reeval measures prints it)
            raise InputError(f"measures: {exc}") from None
        if per_topic_only and any(family_of(m).needs_runs for m in found):
            raise InputError(f"measures: {spec!r} is computed over a set of runs; "
                             f"accepted: {accepted_names(per_topic_only)}")
        named = len(found) == 1 and not found[0].read_as
        for column, m in ([(spec, found[0])] if named else [(m.name, m) for m in found]):
            columns.setdefault(column, m)
    return columns


def ir_spelled(columns: dict) -> list:
    """The measures of :func:`measure_columns`' ``columns`` asked by an ir_measures name
    (:func:`reeval.measures.providers.ir_measures_spelled`)."""
    from reeval.measures.providers import ir_measures_spelled

    return [m for spec, m in columns.items() if ir_measures_spelled(spec)]


def _choice(name: str, value, choices) -> None:
    if value not in choices:
        raise InputError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}")


def _integer(name: str, value) -> int:
    """An integer option within its bounds (:data:`reeval.choices.INTEGER_BOUNDS`, as the
    command line checks them)."""
    problem = integer_problem(name, value)
    if problem:
        raise InputError(f"{name} {problem}; got {value!r}")
    return int(value)


def _flag(name: str, value) -> bool:
    """A boolean option: True or False (numpy's too); anything else, such as the string
    ``"False"`` (which Python would take as true), is an InputError."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def _noted(frame: pd.DataFrame, tables, notes: list, each: list = ()) -> pd.DataFrame:
    """Attach the notes and the ingest report; one warning when a note says where the
    reading or the numbers differ from trec_eval's or lines were lost (none for the line
    summing up what was read as trec_eval reads it, :data:`reeval.io.notes.AS_TREC_EVAL`),
    and one warning for each note of ``each`` (noted too: one per run whose ir_measures
    names rank tied documents otherwise than ir_measures, :func:`reeval.compute.tie_notes`)."""
    from reeval.io.notes import AS_TREC_EVAL
    from reeval.report.escape import line_text

    for note in each:
        warnings.warn(f"reeval: {note}", ReevalWarning, stacklevel=3)
    frame.attrs["notes"] = list(notes) + list(each)
    frame.attrs["ingest_report"] = [dict(row) for row in tables.report_rows]
    differ = [note for note in notes if not note.startswith(AS_TREC_EVAL)]
    if differ:
        more = f" (and {len(differ) - 1} more)" if len(differ) > 1 else ""
        warnings.warn(line_text(f"reeval: {differ[0]}{more}; every note is in the result's .attrs['notes']"),
                      ReevalWarning, stacklevel=3)
    return frame


def _values(m, x) -> np.ndarray:
    """Counts (num_q, num_ret ...) as int64, text (runid, relstring) as objects, the other
    measures float64."""
    if m.is_text:
        return np.asarray(x, dtype=object)
    return np.asarray(x).astype(np.int64) if m.aggregate in ("sum", "count") else np.asarray(x, dtype=np.float64)


def evaluate(qrels: QrelsInput, runs: RunsInput, measures: str | Iterable[str] = ("official",), *,
             relevance_level: int = 1, per_topic: bool = False, complete: bool = True,
             precision: str = "float64", depth: int | None = None, unretrieved: str = "after_last",
             alpha: float | str = 1.0, systems: str = "all", ties: str = "trec_eval") -> pd.DataFrame:
    """Evaluate runs against qrels as ``reeval score -c`` does, as a DataFrame.

    Args:
        qrels: a path (plain, gzip or bzip2), a DataFrame (``query_id, doc_id, relevance``
            or ``qid, docno, rel``), a dict ``{query_id: {doc_id: relevance}}`` or an
            iterable of records with those attributes (ir_datasets' ``qrels_iter()``).
        runs: a path or list of paths; a DataFrame (``query_id, doc_id, score``, optionally
            ``run``); a dict ``{query_id: {doc_id: score}}``; an iterable of records; or a
            dict ``{run_name: any of those}``.
        measures: names ``reeval score -m`` accepts (``reeval measures`` lists them):
            trec_eval style (``map``, ``P.5,10``, ``ndcg_cut_10``, ``rbp.p=0.95``), ir_measures
            style (``AP``, ``P@10``, ``nDCG@10``, ``RR@10``, ``AP(rel=2)``, ``Judged@10``,
            ``RBP(p=0.8,rel=1)``), ``ASL``, ``ASL@g1-10``, rareness (``P_rareness@100``),
            sets (``official``, ``all_trec``: their numeric measures; ``runid`` and
            ``relstring`` when named).
        relevance_level: grades >= this are relevant.
        per_topic: one row per (run, query_id) instead of one per run.
        complete: average over every qrels topic (trec_eval ``-c``; a topic a run misses
            scores as if nothing was retrieved); False: over the topics each run answered.
            True by default, as in the workflow, so that runs are compared on the same
            topics; ``reeval score`` defaults to trec_eval's False so that its lines are
            trec_eval's (its ``-c`` help says so).
        precision: ``float64`` (trec_eval 10's semantics) or ``float32`` (trec_eval 9.x and
            pytrec_eval: scores equal in float32 tie, iprec_at_recall and 11pt_avg round
            their levels as 9.x did; docs/semantics.md).
        depth: use only the first ``depth`` documents of each ranking (trec_eval ``-M``).
        unretrieved: ASL of an unretrieved relevant document, ``after_last`` or ``eq3``.
        alpha: rareness weight, a number >= 0 or ``"1/R"``.
        systems: rareness counts over ``all`` runs given, or per topic those that ``answered``.
        ties: ``trec_eval`` (tied scores ordered by docno descending, for every measure) or
            ``ir_measures``: each measure ranked as the provider ir_measures 0.4 computes it
            with ranks (RR@k and Judged@k: docno ascending; RBP(rel=n): the order the lines
            came in; ERR@k and the pytrec_eval measures: trec_eval's; docs/semantics.md). With
            ``precision="float32"`` as well, the values are ir_measures'.

    Returns:
        One row per run (index ``run``, in the order given) and one column per measure,
        named as the caller named it (a set or a list of cutoffs gives reeval's names:
        ``P_5``, ``P_10``; parameters trec_eval reads leniently give the name of what was
        computed, ``ndcg_cut.1O`` gives ``ndcg_cut_1``, with a note). Counts are int64,
        the rest float64. ASL measures average over topics with a relevant document (NaN
        without one). With ``per_topic`` the index is (``run``, ``query_id``): every qrels
        topic when ``complete``, else the topics the run answered; ``num_q`` and ``gm_map``, which have no per-topic
        value, are left out.

    Raises:
        InputError: bad input (the message names the source, the row and what was expected).
    """
    from reeval.analyses.rareness.core import check_alpha
    from reeval.compute import needed_orders, score_notes, score_track, tie_notes, tie_notes_needed, trec_eval_version
    from reeval.measures.registry import read_notes

    per_topic, complete = _flag("per_topic", per_topic), _flag("complete", complete)
    _choice("precision", precision, PRECISIONS)
    _choice("unretrieved", unretrieved, UNRETRIEVED_POLICIES)
    _choice("systems", systems, SYSTEMS)
    _choice("ties", ties, TIES)
    level = _integer("relevance_level", relevance_level)
    depth = None if depth is None else _integer("depth", depth)
    columns = measure_columns(measures, precision=precision)
    try:
        alpha = check_alpha(alpha)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    unique = list(dict.fromkeys(columns.values()))
    spelled = ir_spelled(columns)
    tables, names, notes = load_track(qrels, runs, precision, needed_orders(unique, ties, precision),
                                      tie_notes_needed(unique, ties, precision, spelled))
    notes = read_notes(unique) + notes
    scores, summary = score_track(tables, names, unique, rel_level=level, max_depth=depth,
                                  unretrieved=unretrieved, alpha=alpha, systems=systems, complete=complete,
                                  version=trec_eval_version(precision), ties=ties)
    notes = notes + score_notes(scores, names, complete, level, trec_eval_version(precision), tables.lookup.qrels)
    ties_said = tie_notes(tables, names, unique, ties, depth, precision=precision, ir_spelled=spelled, api=True)
    if not per_topic:
        frame = pd.DataFrame({c: _values(m, summary[m.name]) for c, m in columns.items() if m.name in summary},
                             index=pd.Index(names, name="run", dtype=object))
        return _noted(frame, tables, notes, ties_said)
    keep = np.ones(scores.answered.shape, dtype=bool) if complete else scores.answered
    run_of, topic_of = np.nonzero(keep)
    index = pd.MultiIndex.from_arrays([np.array(names, dtype=object)[run_of],
                                       np.array(scores.topics, dtype=object)[topic_of]], names=["run", "query_id"])
    frame = pd.DataFrame({c: _values(m, scores.values[m.name][keep]) for c, m in columns.items()
                          if m.aggregate not in ("count", "gmean") and m.family != "runid"}, index=index)
    return _noted(frame, tables, notes, ties_said)


def prefer(qrels: QrelsInput, runs: RunsInput, relevance_level: int = 1, *, per_topic: bool = True,
           precision: str = "float64") -> pd.DataFrame:
    """Lexicographic precision between every pair of runs, as ``reeval prefer``.

    ``runs``: two or more runs in any form :func:`evaluate` takes; pairs i < j in the
    order given. Returns run_i, run_j, query_id, sgnLP (int64: +1 when run_i is
    preferred, -1 when run_j is, 0 for a tie), rrLP (float64), one row per pair and topic
    with a relevant document; with ``per_topic=False`` one row per pair with the means over
    those topics (the ``all`` lines of ``reeval prefer``).
    """
    from reeval.compute import prefer_track

    per_topic = _flag("per_topic", per_topic)
    _choice("precision", precision, PRECISIONS)
    level = _integer("relevance_level", relevance_level)
    tables, names, notes = load_track(qrels, runs, precision)
    if len(names) < 2:
        raise InputError("prefer needs at least two runs")
    topics, means = prefer_track(tables, names, rel_level=level)
    if per_topic:
        frame = topics.rename(columns={"qid": "query_id"}).astype({"sgnLP": np.int64, "rrLP": np.float64})
    else:
        frame = means
    return _noted(frame.reset_index(drop=True), tables, notes)
