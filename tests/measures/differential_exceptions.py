"""The documented differences between ``reeval score`` and trec_eval 10.0: the only
exceptions the differential test (tests/measures/test_differential.py) allows.

Each entry is a difference docs/semantics.md describes (``section``: a heading of that
page; a test checks it exists). An entry does not skip a case: it says what reeval does
instead, as input trec_eval is given in place of the case's (``oracle_case``), whose
output reeval's must then equal byte for byte (None: no input of trec_eval's computes
reeval's numbers; the case is counted, not compared), and the words reeval's note on stderr
holds (``note``): every difference where reeval reads the input otherwise is said on
stderr (an empty note: trec_eval crashes where reeval computes). Entries apply in this order.

``GENERATOR_LIMITS`` are combinations the generator does not draw: inputs on which
trec_eval 10.0 itself aborts or reads memory it never wrote, each also in docs/semantics.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable


@dataclass(frozen=True)
class Difference:
    """One documented difference: when it ``applies`` to a case, reeval's output equals
    trec_eval's on ``oracle_case(case)`` and reeval's stderr holds ``note``."""

    name: str
    section: str
    applies: Callable
    oracle_case: Callable
    note: str


def _dedup_run(case):
    """The run with each docno's first line in trec_eval order (highest score, ties by
    docno descending: the one ranked first) per topic, the others left out."""
    best: dict = {}
    for i, (qid, docno, score) in enumerate(case.run):
        key = (qid, docno)
        if key not in best or score > case.run[best[key]][2]:
            best[key] = i
    return replace(case, run=[line for i, line in enumerate(case.run) if best[(line[0], line[1])] == i])


def _dedup_qrels(case):
    """The qrels with each (topic, docno)'s last judgment only."""
    last = {(qid, docno): i for i, (qid, docno, _) in enumerate(case.qrels)}
    return replace(case, qrels=[line for i, line in enumerate(case.qrels) if last[(line[0], line[1])] == i])


def _answered_qrels(case):
    """The qrels of the topics the run answers (and judges: its other topics are dropped)."""
    judged = {qid for qid, _, _ in case.qrels}
    answered = {qid for qid, _, _ in case.run if qid in judged}
    return replace(case, qrels=[line for line in case.qrels if line[0] in answered])


def _judge_one_more(case):
    """A grade-0 judgment of a document no run retrieves (``zz``) added to each topic
    whose grades are all negative: trec_eval can then evaluate the topic, and reeval's
    values do not change (a non-relevant document nobody retrieved has no part in any
    measure: R, the ideal gains and the judged documents retrieved stay as they were)."""
    low = sorted(qid for qid, top in _largest(case.qrels).items() if top < 0)
    if case.level <= 0 or any(re.search(r"[.,]0=", spec) for spec in case.specs):
        return None  # the added judgment would be relevant, or have a gain: no input of trec_eval's says it
    return replace(case, qrels=case.qrels + [(qid, "zz", 0) for qid in low])


#: the docno of trec_eval's -c placeholder ranking of a topic a run did not answer
PLACEHOLDER = "ceci_nest_pas_un_docno"


def _placeholder_topics(case) -> set:
    """Under -c, the qrels topics the run did not answer that judge :data:`PLACEHOLDER`:
    trec_eval scores them as retrieving that document, reeval as retrieving nothing."""
    if not case.complete:
        return set()
    answered = {qid for qid, _, _ in case.run}
    return {qid for qid, docno, _ in case.qrels if docno == PLACEHOLDER and qid not in answered}


def _rename_placeholder(case):
    """The placeholder's judgments in those topics under another docno: trec_eval's
    placeholder ranking then retrieves no judged document, as reeval reads the topic."""
    topics = _placeholder_topics(case)
    return replace(case, qrels=[(qid, docno + "_" if docno == PLACEHOLDER and qid in topics else docno, grade)
                                for qid, docno, grade in case.qrels])


def _largest(qrels) -> dict:
    top: dict = {}
    for qid, _, grade in qrels:
        top[qid] = max(grade, top.get(qid, grade))
    return top


def _has_duplicates(lines, topics=None) -> bool:
    keys = [(qid, docno) for qid, docno, _ in lines if topics is None or qid in topics]
    return len(set(keys)) < len(keys)


def _judged(case) -> set:
    return {qid for qid, _, _ in case.qrels}


def _misses_topics(case) -> bool:
    judged = {qid for qid, _, _ in case.qrels}
    return not case.complete and bool(judged - {qid for qid, _, _ in case.run})


DIFFERENCES = (
    Difference("a docno twice in a run's topic", "Semantics (where numbers could differ from other tools)",
               lambda case: _has_duplicates(case.run, _judged(case)), _dedup_run, "duplicate line"),
    Difference("a judgment twice in the qrels", "Semantics (where numbers could differ from other tools)",
               lambda case: _has_duplicates(case.qrels), _dedup_qrels, "repeated judgment"),
    Difference("qrels topics the run lacks, without -c", "Topics a run lacks, without -c",
               _misses_topics, _answered_qrels, "-c counts them"),
    Difference("a relevance level below 0", "Where trec_eval 10 itself fails and reeval computes",
               lambda case: case.level < 0, lambda case: replace(case, level=0), "read as -l 0"),
    Difference("a topic whose grades are all negative", "Where trec_eval 10 itself fails and reeval computes",
               lambda case: min(_largest(case.qrels).values()) < 0, _judge_one_more, "every grade is negative"),
    Difference("-c and a topic the run lacks that judges trec_eval's placeholder docno",
               "Where trec_eval 10 itself fails and reeval computes", lambda case: bool(_placeholder_topics(case)),
               _rename_placeholder, "placeholder ranking"),
)

#: (what the generator never draws, the section of docs/semantics.md saying why)
GENERATOR_LIMITS = (
    ("two of dcg, ideal_dcg and ndcg in one case, one with gains (trec_eval aborts or mixes their gains)",
     "Where trec_eval 10.0 itself is wrong, and what reeval does"),
    ("rbp with a measure other than all_trec's before it on graded qrels (trec_eval reads uninitialised memory)",
     "Where trec_eval 10.0 itself is wrong, and what reeval does"),
    ("one family given parameters twice (-m P.5 -m P.10: trec_eval uses the first, reeval both)",
     "trec_eval 10 by default, trec_eval 9.x on request"),
)
