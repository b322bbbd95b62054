"""Deduplicating a run's lines and matching them against the qrels, through 64-bit hashes.

Document ids are hashed (:func:`string_hash64`, splitmix64 over 8-byte words) with their
topic (:func:`pair_hash`); every hash equality is confirmed on the bytes, so a collision
can cost time but never change a result. With the compiled kernels one pass per file does
both (:func:`dedupe_and_match`); without them numpy and pandas' hash index do
(:func:`exact_duplicates`, :meth:`QrelsLookup.match`), with the same results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import compiled
from .qrels import Qrels
from .strings import Strings


_M1 = np.uint64(0x9E3779B97F4A7C15)


_M2 = np.uint64(0xBF58476D1CE4E5B9)


_M3 = np.uint64(0x94D049BB133111EB)


def _mix64(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: a bijection of uint64 that spreads every input bit."""
    h = h ^ (h >> np.uint64(30))
    h = h * _M2
    h = h ^ (h >> np.uint64(27))
    h = h * _M3
    return h ^ (h >> np.uint64(31))


def string_buffers(values) -> tuple[np.ndarray, np.ndarray]:
    """(offsets int64, data uint8) of strings: a :class:`~reeval.io.strings.Strings` or an
    Arrow string array (string i is data[offsets[i]:offsets[i + 1]])."""
    if not isinstance(values, Strings):
        values = Strings.from_arrow(values)
    return values.offsets, values.data


def string_hash64(values, seed: int = 0) -> np.ndarray:
    """A 64-bit hash of every string of an Arrow string array, vectorized over 8-byte words.

    h = length * M1 + seed; for each 8-byte word w_k of the string (the last one
    zero-padded) h = (h ^ w_k) * M2; finally h = mix64(h). Equal strings always get
    equal hashes; different strings rarely do, so callers that need exactness confirm
    equal hashes on the strings themselves. Cost: one pass over the rows per 8 bytes of
    the longest string; each unaligned word is assembled from two aligned ones.
    (``_kernels.c`` computes the same hash, with seed 0, string by string.)
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offsets, data = string_buffers(values)
    base, stop = int(offsets[0]), int(offsets[-1])
    words = np.zeros((stop - base) // 8 + 2, dtype=np.uint64)  # the bytes, zero-padded, as aligned words
    if stop > base:
        words.view(np.uint8)[: stop - base] = data[base:stop]
    start = offsets[:-1] - base
    length = np.diff(offsets)
    h = length.astype(np.uint64) * _M1 + np.uint64(seed)
    shift = ((start & 7) << 3).astype(np.uint64)
    back = np.uint64(63) - shift  # hi << (64 - shift) as (hi << (63 - shift)) << 1: never a shift by 64
    at = start >> 3
    for k in range(0, int(length.max()), 8):
        rows = slice(None) if int(length.min()) > k else np.flatnonzero(length > k)
        i = at[rows] + (k >> 3)
        w = (words[i] >> shift[rows]) | ((words[i + 1] << back[rows]) << np.uint64(1))
        rem = length[rows] - k
        if int(rem.min()) < 8:
            short = rem < 8
            w[short] &= (np.uint64(1) << (rem[short].astype(np.uint64) << np.uint64(3))) - np.uint64(1)
        h[rows] = (h[rows] ^ w) * _M2
    return _mix64(h)


def pair_hash(topic: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """Hash of a (topic code, document hash) pair."""
    return _mix64(doc_hash ^ ((topic.astype(np.uint64) + np.uint64(1)) * _M1))


_ALL_BITS = (1 << 64) - 1


@dataclass
class QrelsLookup:
    """The judged (topic, docno) pairs of a track, hashed for lookups.

    With the compiled kernels ``slots`` is their open-addressing table of the qrels'
    docnos, topic t owning ``slots[base[t]:base[t+1]]`` (see :func:`topic_regions`),
    built with hash ``mask``; with the numpy path ``keys`` is a hash index (pandas) of
    the rows' pair hashes (position = qrels row) and ``seed`` makes them distinct.
    """

    qrels: Qrels
    base: np.ndarray | None = None
    slots: np.ndarray | None = None
    keys: object = None
    seed: int = 0
    mask: int = _ALL_BITS
    index: dict = field(default_factory=dict)  # topic id -> code

    @property
    def topics(self) -> list:
        return self.qrels.topics

    @classmethod
    def build(cls, qrels, mask: int = _ALL_BITS) -> "QrelsLookup":
        """Index deduplicated qrels (a :class:`Qrels`, or an Arrow table qid, docno, rel),
        for the compiled kernels if enabled.

        ``mask`` narrows the compiled path's hashes (tests use it to force collisions).
        The numpy path re-seeds on the rare collision of two qrels pair hashes.
        """
        if not isinstance(qrels, Qrels):
            qrels = Qrels.from_table(qrels)
        kernels = compiled.kernels()
        base = cls(qrels, mask=mask, index={t: i for i, t in enumerate(qrels.topics)})
        if kernels is not None:
            base.base = topic_regions(np.bincount(qrels.topic, minlength=len(qrels.topics)))
            base.slots = np.full(int(base.base[-1]), _ALL_BITS, dtype=np.uint64)
            if kernels.build_table(qrels.topic, qrels.docno.offsets, qrels.docno.data, base.base, base.slots, mask):
                raise ValueError("QrelsLookup.build needs qrels without repeated (qid, docno)")
            return base
        import pandas as pd

        for seed in range(64):
            keys = pd.Index(pair_hash(qrels.topic, string_hash64(qrels.docno, seed)))
            if keys.is_unique:  # also builds the hash table once, before threads share it
                base.keys, base.seed = keys, seed
                return base
        raise RuntimeError("no collision-free hash seed for the qrels")  # pragma: no cover

    def topic_codes(self, ids: list) -> np.ndarray:
        """Code of each topic id in :attr:`topics` (-1 for a topic without judgments)."""
        return np.array([self.index.get(t, -1) for t in ids], dtype=np.int64)

    def match(self, topic: np.ndarray, keys: np.ndarray, docno: Strings, docno_row=None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, qrels rows) of the (topic, docno) rows that are judged (numpy path).

        ``topic`` are codes into ``self.topics``; ``keys`` = pair_hash(topic, hash of docno,
        seed ``self.seed``); row i's docno is ``docno[docno_row[i]]`` (``docno[i]`` without
        ``docno_row``). Hash matches are confirmed on topic code and docno bytes.
        """
        at = self.keys.get_indexer(keys)
        rows = np.flatnonzero(at >= 0)
        qrow = at[rows]
        same = self.qrels.topic[qrow] == topic[rows]
        same &= docno.equal(rows if docno_row is None else docno_row[rows], self.qrels.docno, qrow)
        return rows[same], qrow[same]


def topic_regions(counts: np.ndarray) -> np.ndarray:
    """Start of each topic's slots in a compiled hash table, plus the end (len + 1 entries).

    Topic t with counts[t] strings gets the smallest power of two of slots that is at
    least 2 * counts[t] and 8, so probes stay short (load <= 1/2).
    """
    need = np.maximum(2 * np.asarray(counts, dtype=np.int64), 8)
    caps = np.left_shift(np.int64(1), np.ceil(np.log2(need)).astype(np.int64))
    return np.concatenate([[0], np.cumsum(caps)]).astype(np.int64)


def exact_duplicates(keys: np.ndarray, topic: np.ndarray, docno: Strings, rows: np.ndarray) -> np.ndarray:
    """Mask of rows repeating an earlier row's (topic, docno string ``docno[rows]``).

    ``keys`` are the rows' pair hashes: only rows whose hash occurs more than once are
    compared on the bytes, so the result is exact and costs one hash-table pass when
    there is no duplicate.
    """
    import pandas as pd

    dup = np.zeros(len(keys), dtype=bool)
    index = pd.Index(keys)
    if index.has_duplicates:
        cand = np.flatnonzero(index.duplicated(keep=False))
        exact = pd.DataFrame({"t": topic[cand], "d": docno.take(rows[cand]).codes()})
        dup[cand] = exact.duplicated(keep="first").to_numpy()
    return dup


def dedupe_and_match(lookup: QrelsLookup, topic: np.ndarray, docno, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(duplicate mask, qrels row or -1) of the lines ``rows`` of a run, taken in that order.

    Line k is (topic code ``topic[k]`` in ``lookup.topics``, docno ``docno[rows[k]]``);
    ``topic`` must not decrease (a topic's lines are consecutive). It is a duplicate when
    an earlier line has the same topic and docno bytes; a duplicate has no qrels row.
    ``docno``: :class:`~reeval.io.strings.Strings` (or an Arrow string array). Exact on the
    bytes whichever path runs (the compiled kernel for a lookup built with it, else numpy).
    """
    if not isinstance(docno, Strings):
        docno = Strings.from_arrow(docno)
    m = len(rows)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    topic = np.ascontiguousarray(topic, dtype=np.int64)
    if lookup.slots is not None:
        dup = np.empty(m, dtype=bool)
        qrow = np.empty(m, dtype=np.int64)
        q = lookup.qrels.docno
        compiled._kernels.dedupe_match(rows, topic, docno.offsets, docno.data, lookup.base, lookup.slots,
                                       q.offsets, q.data, lookup.mask, dup, qrow)
        return dup, qrow
    keys = pair_hash(topic, string_hash64(docno, lookup.seed)[rows])
    dup = exact_duplicates(keys, topic, docno, rows)
    kept = np.flatnonzero(~dup)
    qrow = np.full(m, -1, dtype=np.int64)
    found, at = lookup.match(topic[kept], keys[kept], docno, rows[kept])
    qrow[kept[found]] = at
    return dup, qrow
