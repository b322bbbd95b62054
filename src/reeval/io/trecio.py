"""Reading TREC run and qrels files into Arrow tables, with every line accounted for.

A run line is ``qid iter docno rank score tag`` and a qrels line ``qid iter docno rel``,
fields separated by any ASCII whitespace (tabs, one or more spaces). The ``iter``
column (``Q0``, ``0``, ``q0``, a judging round such as ``0.5``) and the run's rank
column are ignored, as trec_eval ignores them. Inputs are read once each
(:mod:`reeval.io.sources`: files, pipes, FIFOs, stdin; plain, gzip, bzip2 or compress).

Every physical line of a file ends in exactly one of the outcomes counted by
:class:`LineCounts`: kept, blank, comment (first non-blank character ``#``), malformed
(wrong number of fields, a score that is not a number, a relevance that is not an
integer of int64's range, a NUL byte) or NaN score. Malformed lines raise
:class:`TrecFormatError` naming the file, the 1-based line number and what was expected,
unless the caller asks to drop them (``on_malformed="drop"``), in which case they are
counted. Scores ``inf``, ``-inf`` and numbers beyond the float64 range (``1e400``) are
kept as infinities, as trec_eval's ``atof`` reads them; NaN scores have no place in an
ordering and are dropped (trec_eval would sort them arbitrarily).

Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (trec_eval ends lines only at ``\\n``:
the lone CRs are counted so that callers can say so). A UTF-8 byte-order mark at the
start is removed and counted (trec_eval would read it into the first topic id). Bytes
that are not valid UTF-8 and backslashes are written in the one-to-one text form of
:mod:`reeval.io.bytetext` (``\\xNN``, ``\\\\``), identically in runs and qrels, and the lines
holding them are counted.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from reeval.errors import InputError

from . import compiled
from .sources import BOM, Digest, Source, check_path, path_error, read_source, source_from_bytes
from .strings import Strings
from .trecformat import QRELS_FIELDS, RUN_FIELDS, LineCounts, TrecFormatError, lone_cr_count  # re-exported

__all__ = ["InputError", "TrecFormatError", "LineCounts", "RunLines", "QrelsLines", "read_run",
           "read_qrels", "parse_run", "parse_qrels", "run_name_from_path", "run_names"]

COMPRESSION_SUFFIXES = (".gz", ".bz2", ".Z")
_NAME_PREFIX = re.compile(r"^(?:.*[-_.])?input\.")


def run_name_from_path(path) -> str:
    """Run name from a file name: compression suffix and NIST ``input.`` prefix removed.

    ``input.MU03rob01.gz`` -> ``MU03rob01``; ``dl-19-official-input.TUA1-1.gz`` ->
    ``TUA1-1``; ``CUNI_EN_Run.2.dat.gz`` -> ``CUNI_EN_Run.2.dat``.
    """
    name = file_name(path)
    for suffix in COMPRESSION_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    stripped = _NAME_PREFIX.sub("", name)
    return stripped or name


def file_name(path) -> str:
    """The last name of ``path``, as ``pathlib.Path(path).name`` gives it on POSIX (empty
    and ``.`` parts skipped: ``a/b/`` and ``a/b/.`` -> ``b``, ``/`` -> ``""``), without
    importing pathlib (``reeval score`` on a file or two)."""
    return next((part for part in reversed(os.fspath(path).split("/")) if part not in ("", ".")), "")


def run_names(paths) -> list[str]:
    """A distinct run name for each path, in the order given.

    A file's name is :func:`run_name_from_path`. A file whose name another one shares
    gets the shortest path suffix that tells it apart: first its run name under as
    few of its folders as needed (``exp1/run.txt`` beside ``exp2/run.txt``), then, for
    files of one folder whose run names are equal (``run.txt`` and ``run.txt.gz``), its
    whole file name under as few folders as needed. The same file given twice is an
    error.
    """
    paths = [str(p) for p in paths]
    seen: dict = {}
    for p in paths:
        key = _file_key(p)
        if key in seen:
            if p == "-":
                raise InputError("standard input given twice: it can be read only once")
            raise InputError(f"{p}: given twice (also as {seen[key]}); give each run file once")
        seen[key] = p
    base = [run_name_from_path(p) for p in paths]
    names = list(base)
    sharing: dict = {}  # run name -> the paths' indices that have it (linear in paths)
    for i, n in enumerate(base):
        sharing.setdefault(n, []).append(i)
    for group in (g for g in sharing.values() if len(g) > 1):
        forms = [_name_forms(paths[i]) for i in group]
        used = [Counter(level) for level in zip(*forms)]  # how many of the group have each form
        for i, own in zip(group, forms):
            names[i] = next((f for level, f in enumerate(own) if used[level][f] == 1), paths[i])
    if len(set(names)) != len(names):  # pragma: no cover - distinct files always differ
        raise InputError(f"run files {paths} cannot be given distinct names; rename them")
    return names


def _file_key(path: str):
    """What tells two run paths apart: the file they open ((device, inode), so that a link
    and its target are one file), or the path itself when it names no file (yet): standard
    input, a missing file, which the reader then reports. Never raises but for a path that
    cannot be examined (a link loop, a name too long, permission denied: its one-line
    :func:`~reeval.io.sources.path_error`)."""
    if path == "-":
        return path
    check_path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return os.path.abspath(path)
    except OSError as exc:
        raise path_error(path, exc) from None
    return st.st_dev, st.st_ino


def _name_forms(path: str) -> list[str]:
    """Candidate names of a run file, shortest first: its run name under 0, 1, ...
    folders, then its file name under 0, 1, ... folders (every path has as many
    candidates: missing folders repeat the longest form)."""
    from pathlib import Path  # here: only files whose run names are alike need it

    parts = Path(path).absolute().parts
    depth = 64
    def under(k, last):
        return "/".join([*parts[max(0, len(parts) - 1 - k):-1], last])
    return ([under(k, run_name_from_path(path)) for k in range(depth)] +
            [under(k, parts[-1]) for k in range(depth)])


@dataclass
class RunLines:
    """The kept lines of a run file, in file order, as numpy arrays (no pyarrow).

    Line i has topic ``qids[qid[i]]``, document ``docno[i]``, score ``score[i]``, tag
    ``tags[tag[i]]`` and was line ``line[i]`` of the file (1-based; ``line`` is None when
    the kept lines are the file's lines 1 to n). ``qids`` and ``tags`` are the distinct
    values in first-seen order.
    """

    qids: list
    qid: np.ndarray
    docno: Strings
    score: np.ndarray
    tags: list
    tag: np.ndarray
    line: np.ndarray | None
    counts: LineCounts
    digest: Digest | None = None  # of the bytes read, when asked (:func:`read_run`)

    def to_table(self):
        """The lines as an Arrow table: qid, docno, score, tag, line (file order)."""
        import pyarrow as pa

        return pa.table({"qid": _decoded(self.qid, self.qids), "docno": self.docno.to_arrow(),
                         "score": pa.array(self.score), "tag": _decoded(self.tag, self.tags),
                         "line": pa.array(_line_numbers(self.line, len(self.score)))})


@dataclass
class QrelsLines:
    """The kept lines of a qrels file, in file order, as numpy arrays: topic
    ``qids[qid[i]]``, document ``docno[i]``, grade ``rel[i]`` (int64), file line ``line[i]``
    (None: lines 1 to n)."""

    qids: list
    qid: np.ndarray
    docno: Strings
    rel: np.ndarray
    line: np.ndarray | None
    counts: LineCounts
    digest: Digest | None = None  # of the bytes read, when asked (:func:`read_qrels`)

    def to_table(self):
        """The lines as an Arrow table: qid, docno, rel, line (file order)."""
        import pyarrow as pa

        return pa.table({"qid": _decoded(self.qid, self.qids), "docno": self.docno.to_arrow(),
                         "rel": pa.array(self.rel, pa.int64()),
                         "line": pa.array(_line_numbers(self.line, len(self.rel)))})


def _line_numbers(line: np.ndarray | None, n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.int64) if line is None else line


def _decoded(codes: np.ndarray, values: list):
    import pyarrow as pa

    return pa.array(np.asarray(values, dtype=object)[codes] if len(codes) else [], type=pa.string())


def _encoded(array) -> tuple[list, np.ndarray]:
    """(distinct values in first-seen order, int32 code of each) of an Arrow string array."""
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(array)
    return enc.dictionary.to_pylist(), enc.indices.to_numpy(zero_copy_only=False).astype(np.int32)


def _column(offsets: np.ndarray, chars: np.ndarray, n: int) -> Strings:
    """The first n strings of a compiled kernel's (int32 offsets, bytes) column (the
    kernels take no file holding a backslash)."""
    return Strings(offsets[: n + 1], chars, backslash=False)


def _compiled_run(data) -> RunLines | None:
    """Read a clean run file with the compiled reader (``_kernels.parse_run``), or None.

    Clean: every line six fields of printable ASCII separated by spaces or tabs, with a
    plain decimal finite score, no backslash (whose text form differs from its bytes) and
    no ``#`` (counted by the general path) anywhere; anything else is left to the general
    reader.
    """
    kernels = compiled.kernels()
    if kernels is None or not len(data) or len(data) >= 2**31 - 1:
        return None
    lines = (len(data) + 1) // 12 + 1  # a clean line has at least 11 characters and its newline
    offsets = [np.empty(lines + 1, dtype=np.int32) for _ in range(3)]
    chars = [np.empty(len(data) + 16, dtype=np.uint8) for _ in range(3)]
    codes = [np.empty(lines, dtype=np.int32) for _ in range(2)]
    score = np.empty(lines, dtype=np.float64)
    n, n_qids, n_tags = kernels.parse_run(data, offsets[0], chars[0], codes[0], offsets[1], chars[1],
                                          offsets[2], chars[2], codes[1], score)
    if n < 0:
        return None
    counts = LineCounts(lines_read=n)
    return RunLines(_column(offsets[0], chars[0], n_qids).tolist(), codes[0][:n], _column(offsets[1], chars[1], n),
                    score[:n], _column(offsets[2], chars[2], n_tags).tolist(), codes[1][:n], None, counts)


def _general_run(path, data, on_malformed: str) -> RunLines:
    """Read any run file with the general reader (:mod:`reeval.io.textreader`, pyarrow)."""
    from .textreader import run_columns

    counts = LineCounts()
    qid, docno, tag, score, line = run_columns(path, data, on_malformed, counts)
    qids, qcode = _encoded(qid)
    tags, tcode = _encoded(tag)
    return RunLines(qids, qcode, Strings.from_arrow(docno), score, tags, tcode, line, counts)


def _drop_nan(lines: RunLines) -> RunLines:
    """Drop NaN scores (counted; infinities stay); set the kept count and the runid tag."""
    c = lines.counts
    if len(lines.tag):
        c.tag = lines.tags[int(lines.tag[-1])]  # trec_eval's runid: the last line's tag
    nan = np.isnan(lines.score)
    c.nan_score = int(nan.sum())
    if c.nan_score:
        keep = np.flatnonzero(~nan)
        lines = RunLines(lines.qids, lines.qid[keep], lines.docno.take(keep), lines.score[keep], lines.tags,
                         lines.tag[keep], _line_numbers(lines.line, len(nan))[keep], c)
    c.kept = len(lines.score)
    return lines


def _source(path, data, digest: bool, check=None) -> Source:
    """The :class:`~reeval.io.sources.Source` of ``path`` read once (``check``: of a stream's
    first lines, :func:`~reeval.io.sources.read_source`), or of ``data``, its bytes."""
    return read_source(path, digest, check) if data is None else source_from_bytes(str(path), data, digest)


def _first_lines_check(path, parse, on_malformed: str):
    """The ``check`` of a stream's first lines: under ``on_malformed="error"``, ``parse``
    (the general reader) on them, which raises for the first line that is not the file's
    kind (a byte-order mark removed first); none when malformed lines are dropped."""
    if on_malformed != "error":
        return None
    return lambda head: parse(path, head.removeprefix(BOM), "error")


def read_run(path, on_malformed: str = "error", data=None, digest: bool = False,
             source: Source | None = None) -> RunLines:
    """Read one run file (or ``data``, its bytes, when given) once: its kept lines; with
    ``digest``, also the size and SHA-256 of the bytes read (``lines.digest``). ``source``: the
    file already read (:class:`~reeval.io.sources.Source`, its text and digest), read no more.

    The compiled reader takes clean files; any other goes line by line. NaN scores are
    dropped and counted as ``nan_score``; infinite ones are kept.
    """
    src = source if source is not None else _source(path, data, digest,
                                                    _first_lines_check(path, _general_run, on_malformed))
    lines = _compiled_run(src.data) or _general_run(path, src.data, on_malformed)
    lines.counts.bom = int(src.bom)
    lines = _drop_nan(lines)
    lines.digest = src.digest
    return lines


def read_qrels(path, on_malformed: str = "error", data=None, digest: bool = False,
               source: Source | None = None) -> QrelsLines:
    """Read one qrels file (or ``data``, its bytes, when given) once: its kept lines; with
    ``digest``, also the size and SHA-256 of the bytes read (``lines.digest``); ``source``: the
    file already read (:class:`~reeval.io.sources.Source`), read no more."""
    src = source if source is not None else _source(path, data, digest,
                                                    _first_lines_check(path, _general_qrels, on_malformed))
    lines = _compiled_qrels(src.data) or _general_qrels(path, src.data, on_malformed)
    lines.counts.bom = int(src.bom)
    lines.counts.kept = len(lines.rel)
    lines.digest = src.digest
    return lines


def _compiled_qrels(data) -> QrelsLines | None:
    """Read a clean qrels file with the compiled reader (``_kernels.parse_qrels``), or None.

    Clean: every line four fields of printable ASCII but ``#`` and backslash, separated by
    spaces or tabs, an integer grade of at most 18 digits."""
    kernels = compiled.kernels()
    if kernels is None or not len(data) or len(data) >= 2**31 - 1:
        return None
    lines = (len(data) + 1) // 8 + 1  # a clean line has at least 7 characters and its newline
    offsets = [np.empty(lines + 1, dtype=np.int32) for _ in range(2)]
    chars = [np.empty(len(data) + 16, dtype=np.uint8) for _ in range(2)]
    qcode = np.empty(lines, dtype=np.int32)
    rel = np.empty(lines, dtype=np.int64)
    n, n_qids = kernels.parse_qrels(data, offsets[0], chars[0], qcode, offsets[1], chars[1], rel)
    if n < 0:
        return None
    return QrelsLines(_column(offsets[0], chars[0], n_qids).tolist(), qcode[:n], _column(offsets[1], chars[1], n),
                      rel[:n], None, LineCounts(lines_read=n))


def _general_qrels(path, data, on_malformed: str) -> QrelsLines:
    """Read any qrels file with the general reader (:mod:`reeval.io.textreader`, pyarrow)."""
    from .textreader import qrels_columns

    counts = LineCounts()
    qid, docno, rel, line = qrels_columns(path, data, on_malformed, counts)
    qids, qcode = _encoded(qid)
    return QrelsLines(qids, qcode, Strings.from_arrow(docno), rel, line, counts)


def parse_run(path, on_malformed: str = "error", data=None):
    """:func:`read_run` as ``(table, counts)``: an Arrow table with columns qid, docno,
    score (float64), tag, line (1-based line number), in file order."""
    lines = read_run(path, on_malformed, data)
    return lines.to_table(), lines.counts


def parse_qrels(path, on_malformed: str = "error", data=None):
    """:func:`read_qrels` as ``(table, counts)``: an Arrow table with columns qid, docno,
    rel (int64, may be negative), line, in file order."""
    lines = read_qrels(path, on_malformed, data)
    return lines.to_table(), lines.counts
