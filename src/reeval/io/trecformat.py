"""What a TREC file's lines are: the fields of a run and a qrels line, the error naming a malformed
line (:class:`TrecFormatError`) and the outcome of every physical line (:class:`LineCounts`).

Shared by the two readers: the compiled and numpy one (:mod:`reeval.io.trecio`) and the general
line-by-line one (:mod:`reeval.io.textreader`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from reeval.errors import InputError

from .bytetext import show

RUN_FIELDS = ("qid", "iter", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")


class TrecFormatError(InputError):
    """A line of a TREC file that does not have the expected form."""

    def __init__(self, path, line_number: int, expected: str, line_text: str):
        self.path = str(path)
        self.line_number = int(line_number)
        self.expected = expected
        self.line_text = line_text
        super().__init__(f"{self.path}:{self.line_number}: expected {expected}; got {show(line_text)}")

    def __reduce__(self):  # picklable: it can cross process boundaries (e.g. Snakemake's)
        return type(self), (self.path, self.line_number, self.expected, self.line_text)


@dataclass
class LineCounts:
    """Outcome of every physical line of one file; ``lines_read`` = the sum of the outcomes.

    Track-level drops (unjudged topic, duplicate document) are added by ingest. The
    fields after the outcomes describe the file and change no count: ``bom`` (1 when
    a byte-order mark was removed), ``lone_cr`` (line ends that are a CR alone),
    ``non_utf8_lines`` and ``backslash_lines`` (lines written in escaped text form),
    ``comment_as_data`` (qrels comment lines trec_eval would not skip: indented, or
    right after another comment line), ``hash_lines`` (other lines holding a ``#``, inside a
    field: data to trec_eval 10.0 as to reeval), ``extra_fields`` (run lines with text after the
    sixth field, read without it as trec_eval reads them) and ``tag`` (a run's tag on its last well-formed
    line, the ``runid`` trec_eval prints).
    """

    lines_read: int = 0
    kept: int = 0
    blank: int = 0
    comment: int = 0
    malformed: int = 0
    nan_score: int = 0
    unjudged_topic: int = 0
    duplicate: int = 0
    bom: int = 0
    lone_cr: int = 0
    non_utf8_lines: int = 0
    backslash_lines: int = 0
    comment_as_data: int = 0
    hash_lines: int = 0
    extra_fields: int = 0
    tag: str | None = field(default=None)

    OUTCOMES = ("kept", "blank", "comment", "malformed", "nan_score",
                "unjudged_topic", "duplicate")

    def as_dict(self) -> dict:
        return asdict(self)

    def balanced(self) -> bool:
        """True when the outcomes add up to the lines read."""
        return sum(getattr(self, k) for k in self.OUTCOMES) == self.lines_read


def lone_cr_count(data) -> int:
    """Number of CR bytes not followed by LF (line ends trec_eval does not see)."""
    a = np.frombuffer(data, dtype=np.uint8)
    cr = a == 13
    if not cr.any():
        return 0
    lone = int((cr[:-1] & (a[1:] != 10)).sum())
    return lone + int(cr[-1])
