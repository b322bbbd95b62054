"""What trec_eval 10 keeps of a run or qrels file: a model of its readers, for tests.

Written from the behaviour of trec_eval's ``get_trec_results`` and ``get_qrels`` (the
whole file in memory, lines ending only at ``\\n``, fields separated by C ``isspace``
bytes, ``atof`` scores, ``atol`` grades) and of ``form_res_rels`` (a docno twice in an
evaluated topic, in a run or in the qrels, stops it with "duplicate docs"). The fuzz
tests compare reeval's kept lines with it: wherever they differ, reeval must say why.

Each reader returns the kept tuples, or a string saying why trec_eval stops (an
error), or None where trec_eval's behaviour is undefined (a NUL byte, which ends its C
strings; a qrels file ending inside a comment line, after which it reads past its
buffer; a data line holding ``#``, whose newline its line count skips, so that its
array of lines overflows: trec_eval 10.0-rc3 crashed on such files). Cases with None
are not compared.
"""

from __future__ import annotations

import math
import re

SPACE = b" \t\n\v\f\r"
_ATOF = re.compile(rb"[ \t\n\v\f\r]*([+-]?(?:inf(?:inity)?|nan(?:\([0-9a-z_]*\))?"
                   rb"|0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?"
                   rb"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?))", re.IGNORECASE)
_ATOL = re.compile(rb"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def atof(text: bytes) -> float:
    """C ``atof``: the longest prefix that is a number, else 0.0."""
    m = _ATOF.match(text)
    if not m:
        return 0.0
    s = m.group(1).lower()
    if s.lstrip(b"+-").startswith(b"nan"):
        return math.nan
    if s.lstrip(b"+-").startswith(b"0x"):
        sign = -1.0 if s.startswith(b"-") else 1.0
        return sign * float.fromhex(s.lstrip(b"+-").decode())
    return float(s.decode())


def atol(text: bytes) -> int:
    """C ``atol`` (glibc): the leading integer, clamped to the range of long; else 0."""
    m = _ATOL.match(text)
    if not m:
        return 0
    return max(-2**63, min(2**63 - 1, int(m.group(1))))


class _Cursor:
    """A pointer into the buffer, as the C code walks it (a trailing newline added)."""

    def __init__(self, data: bytes):
        self.buf = data + (b"" if data.endswith(b"\n") else b"\n")
        self.at = 0

    def peek(self) -> int:
        return self.buf[self.at]

    def skip_space(self):  # while (*ptr != '\n' && isspace(*ptr)) ptr++
        while self.buf[self.at] != 10 and self.buf[self.at] in SPACE:
            self.at += 1

    def token(self) -> bytes:  # while (!isspace(*ptr)) ptr++
        start = self.at
        while self.buf[self.at] not in SPACE:
            self.at += 1
        return self.buf[start:self.at]

    def to_line_end(self):
        self.at = self.buf.index(b"\n", self.at)


def results(data: bytes):
    """(qid, docno, sim, run_id) of every line trec_eval keeps, or why it stops, or None."""
    if not data:
        return "Cannot read results file"
    if b"\x00" in data:
        return None
    c, lines = _Cursor(data), []
    while c.at < len(c.buf):
        c.skip_space()
        if c.peek() == 10:
            c.at += 1
            continue
        if c.peek() == ord("#"):
            c.to_line_end()
            continue
        fields, start = [], c.at
        for k in range(6):
            if k:
                c.skip_space()
            if k == 5 and c.peek() == 10:
                return f"Malformed line {len(lines) + 1}"
            fields.append(c.token())
            if k < 5:
                if c.peek() == 10:
                    return f"Malformed line {len(lines) + 1}"
                c.at += 1
        if c.peek() != 10:
            c.to_line_end()  # fields after the sixth are ignored
        c.at += 1
        if b"#" in c.buf[start:c.at]:
            return None  # its line count skips the newline of a line holding '#': it overflows
        qid, _, docno, _, sim, run_id = fields
        lines.append((qid, docno, atof(sim), run_id))
    return lines


def qrels(data: bytes):
    """(qid, docno, rel) of every line trec_eval keeps, or why it stops, or None."""
    if not data:
        return "Cannot read qrels file"
    if b"\x00" in data:
        return None
    c, lines = _Cursor(data), []
    while c.at < len(c.buf):
        if c.peek() == ord("#"):
            c.to_line_end()
            c.at += 1
            if c.at >= len(c.buf):
                return None  # it would parse the terminating NUL as a line
        fields, start = [], c.at
        for k in range(4):
            c.skip_space()
            if k == 3 and c.peek() == 10:
                return f"Malformed line {len(lines) + 1}"
            fields.append(c.token())
            if k < 3:
                if c.peek() == 10:
                    return f"Malformed line {len(lines) + 1}"
                c.at += 1
        if c.peek() != 10:
            c.at += 1
            c.skip_space()
            if c.peek() != 10:
                return f"Malformed line {len(lines) + 1}"
        c.at += 1
        if b"#" in c.buf[start:c.at]:
            return None
        qid, _, docno, rel = fields
        lines.append((qid, docno, atol(rel)))
    return lines


def evaluation(run_data: bytes, qrels_data: bytes):
    """What trec_eval evaluates: ({qid: [(docno, sim)]} of the judged topics, {qid: {docno:
    rel}}, runid), or why it stops, or None (undefined)."""
    res, rel = results(run_data), qrels(qrels_data)
    for outcome in (rel, res):
        if outcome is None or isinstance(outcome, str):
            return outcome
    judged: dict = {}
    for qid, docno, r in rel:
        judged.setdefault(qid, []).append((docno, r))
    ranked: dict = {}
    for qid, docno, sim, _ in res:
        if qid in judged:
            ranked.setdefault(qid, []).append((docno, sim))
    for qid, docs in ranked.items():  # form_res_rels checks the topics it evaluates
        if len({d for d, _ in docs}) != len(docs) or len({d for d, _ in judged[qid]}) != len(judged[qid]):
            return "duplicate docs"
    return ranked, judged, res[-1][3] if res else None
