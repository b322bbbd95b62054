"""The qrels as ingest keeps them: deduplicated judgments sorted by topic then docno (:class:`Qrels`).

A docno judged twice for a topic keeps the last judgment (as dict-based tools such as
pytrec_eval do); the others are reported as repeats (:func:`prepare_qrels`). Grades may be
relabelled first (:func:`remap_grades`). :mod:`reeval.io.matching` indexes a :class:`Qrels` and
:mod:`reeval.io.ingest` builds one from the qrels file's lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .strings import Strings
from .trecio import LineCounts, QrelsLines, _encoded

QRELS_COLUMNS = ["qid", "docno", "rel"]


@dataclass
class Qrels:
    """Deduplicated judgments sorted by topic then docno, in byte order.

    ``topics`` are the judged topic ids in byte order; row i judges document
    ``docno[i]`` of topic ``topics[topic[i]]`` with grade ``rel[i]``.
    """

    topics: list
    topic: np.ndarray
    docno: Strings
    rel: np.ndarray

    def __len__(self) -> int:
        return len(self.rel)

    def to_table(self):
        """qid, docno, rel as an Arrow table (``qrels.parquet``)."""
        import pyarrow as pa

        from .tables import table_schema

        return pa.table({"qid": _text_column(self.topic, self.topics), "docno": self.docno.to_arrow(),
                         "rel": pa.array(self.rel, pa.int64())}, schema=table_schema(QRELS_COLUMNS))

    @classmethod
    def from_table(cls, table) -> "Qrels":
        """From an Arrow table (qid, docno, rel) without repeated (qid, docno)."""
        qids, qid = _encoded(table["qid"].combine_chunks())
        lines = QrelsLines(qids, qid, Strings.from_arrow(table["docno"]), table["rel"].to_numpy().astype(np.int64),
                           np.arange(1, table.num_rows + 1), LineCounts())
        qrels, repeats = prepare_qrels(lines)
        if repeats.any():
            raise ValueError("Qrels.from_table needs qrels without repeated (qid, docno)")
        return qrels


def _text_column(codes: np.ndarray, values: list, encoded: bool = False):
    """An Arrow string column of ``values[codes]`` (dictionary-encoded if asked)."""
    import pyarrow as pa

    dictionary = pa.array(values, type=pa.string())
    column = pa.DictionaryArray.from_arrays(pa.array(np.asarray(codes, dtype=np.int32)), dictionary)
    return column if encoded else column.cast(pa.string())


def sorted_ids(values: list) -> tuple[list, np.ndarray]:
    """(the distinct ids ``values`` in byte order, the rank of each of them in it)."""
    codes = Strings.from_list(values).codes()
    ordered = [None] * len(values)
    for v, c in zip(values, codes.tolist()):
        ordered[c] = v
    return ordered, codes


def prepare_qrels(lines: QrelsLines, grade_map: dict | None = None) -> tuple[Qrels, np.ndarray]:
    """Judgments by topic and docno in byte order, the last of a repeated (qid, docno)
    kept; -> (qrels, mask of the lines dropped as repeats, in file order).

    ``grade_map`` relabels grades first (:func:`remap_grades`). A stable sort brings a
    pair's lines together in file order; all but the last of each run are dropped.
    """
    topics, rank = sorted_ids(lines.qids)
    topic = rank[lines.qid] if len(lines.qid) else np.zeros(0, dtype=np.int64)
    if lines.docno.has_backslash():  # escaped texts sort by the bytes they stand for
        doc_code = lines.docno.codes()
        order = np.lexsort((doc_code, topic))
        new = np.ones(len(order), dtype=bool)
        new[1:] = (topic[order[1:]] != topic[order[:-1]]) | (doc_code[order[1:]] != doc_code[order[:-1]])
    else:  # one sort by topic and docno bytes
        order, new = lines.docno.grouped_order(topic)
    repeat = np.zeros(len(order), dtype=bool)  # row i equals row i + 1: not the last
    repeat[:-1] = ~new[1:]
    dup = np.zeros(len(order), dtype=bool)
    dup[order[repeat]] = True
    keep = order[~repeat]
    rel = remap_grades(lines.rel, grade_map)[keep]
    return Qrels(topics, topic[keep], lines.docno.take(keep), rel), dup


def remap_grades(rel: np.ndarray, grade_map: dict | None) -> np.ndarray:
    """Relevance grades replaced by ``grade_map`` (e.g. {1: 0}); other grades unchanged.

    Reproduces evaluations run on relabelled qrels, such as the DL-2020 passage
    ``trec_eval`` block, whose nDCG treats grade 1 as 0.
    """
    if not grade_map:
        return rel
    new = rel.copy()
    for src, dst in grade_map.items():
        new[rel == int(src)] = int(dst)
    return new
