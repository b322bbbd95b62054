"""Byte strings as two numpy arrays: the ids of a run or qrels file without pyarrow.

A :class:`Strings` holds n strings as ``offsets`` (int64, n + 1 entries) and ``data``
(uint8): string i is ``data[offsets[i]:offsets[i + 1]]``, the layout of an Arrow string
array and of the compiled kernels' columns, so converting between them copies nothing
but the offsets. The texts are reeval's text form of ids (:mod:`reeval.io.bytetext`):
valid UTF-8, identical to the file's bytes unless a backslash or an invalid byte was
escaped.

Byte order (trec_eval's ``strcmp``) is computed on 8-byte big-endian words of the
strings (zero padded: a shorter string sorts before its extensions, and a NUL never
occurs in an id), so sorting n strings of at most 8w bytes is w integer sorts, with no
Python loop; texts holding a backslash are compared by the bytes they stand for.
"""

from __future__ import annotations

import numpy as np

BACKSLASH = 0x5C


class Strings:
    """n byte strings in two numpy arrays (see the module docstring)."""

    __slots__ = ("offsets", "data", "_backslash", "_width")

    def __init__(self, offsets: np.ndarray, data: np.ndarray, backslash: bool | None = None):
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.data = np.asarray(data, dtype=np.uint8)
        self._backslash = backslash  # known (a reader that refuses backslashes), else found on demand
        self._width = None  # found on demand (:meth:`width`)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __repr__(self) -> str:
        shown = self.tolist()[:5]
        return f"Strings({len(self)}: {shown}{' ...' if len(self) > 5 else ''})"

    @classmethod
    def from_list(cls, values) -> "Strings":
        """From Python strings (encoded as UTF-8)."""
        encoded = [v.encode("utf-8") for v in values]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        return cls(offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8))

    @classmethod
    def from_arrow(cls, array) -> "Strings":
        """From an Arrow string or large_string array (chunked or not; a dictionary array
        is decoded). Shares the array's data buffer."""
        import pyarrow as pa

        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
        if pa.types.is_dictionary(array.type):
            array = array.cast(pa.string())
        n = len(array)
        _, off_buf, data_buf = array.buffers()
        if off_buf is None or n == 0:
            return cls(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8))
        width = np.int64 if pa.types.is_large_string(array.type) else np.int32
        offsets = np.frombuffer(off_buf, dtype=width)[array.offset: array.offset + n + 1]
        data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
        return cls(offsets.astype(np.int64), data)

    def to_arrow(self):
        """An Arrow ``string`` array of the strings (the offsets copied, the data shared)."""
        import pyarrow as pa

        start, stop = int(self.offsets[0]), int(self.offsets[-1])
        data = self.data[start:stop]
        offsets = self.offsets - start
        if stop - start >= 2**31:
            return pa.Array.from_buffers(pa.large_string(), len(self),
                                         [None, pa.py_buffer(offsets), pa.py_buffer(data)]).cast(pa.string())
        return pa.Array.from_buffers(pa.string(), len(self),
                                     [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)])

    def tolist(self) -> list[str]:
        """The strings as Python ``str`` (UTF-8)."""
        start = int(self.offsets[0])
        raw = self.data[start:int(self.offsets[-1])].tobytes()  # only the bytes of these strings
        off = (self.offsets - start).tolist()
        return [raw[a:b].decode("utf-8") for a, b in zip(off[:-1], off[1:])]

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def width(self) -> int:
        """The length every string has, when they all have one length w > 0 (they then lie
        one after the other in ``data``, at ``offsets[0] + i * w``: most docno schemes,
        and every synthetic track's); 0 otherwise (no string, or lengths that differ)."""
        if self._width is None:
            length = np.diff(self.offsets)
            self._width = int(length[0]) if len(length) and length[0] > 0 and (length == length[0]).all() else 0
        return self._width

    def take(self, rows) -> "Strings":
        """The strings at ``rows`` (integer indices), in that order.

        Strings of one length w (:meth:`width`) are gathered as numpy items of w bytes (one
        copy per string); others byte by byte, through an index of every byte taken."""
        rows = np.asarray(rows, dtype=np.int64)
        width = self.width()
        if width:
            items = np.ascontiguousarray(self.data[self.offsets[0]:self.offsets[-1]]).view(f"V{width}")
            taken = Strings(np.arange(0, (len(rows) + 1) * width, width, dtype=np.int64),
                            items.take(rows).view(np.uint8), backslash=False if self._backslash is False else None)
            taken._width = width if len(rows) else 0
            return taken
        start = self.offsets[rows]
        length = self.offsets[rows + 1] - start
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(length, out=offsets[1:])
        total = int(offsets[-1])
        if total == 0:
            return Strings(offsets, np.zeros(0, dtype=np.uint8), backslash=False)
        source = np.repeat(start - offsets[:-1], length) + np.arange(total, dtype=np.int64)
        return Strings(offsets, self.data[source], backslash=False if self._backslash is False else None)

    def has_backslash(self) -> bool:
        """True when some text holds a backslash (an escaped text form, see bytetext)."""
        if self._backslash is None:
            start, stop = int(self.offsets[0]), int(self.offsets[-1])
            self._backslash = bool((self.data[start:stop] == BACKSLASH).any())
        return self._backslash

    def words(self) -> np.ndarray:
        """(n, w) uint64 big-endian words of the strings, zero padded to 8w bytes: rows
        compare as the strings' bytes do (lexicographic order of the rows)."""
        n = len(self)
        length = self.lengths()
        w = max(1, (int(length.max(initial=0)) + 7) // 8)
        padded = np.zeros((n, 8 * w), dtype=np.uint8)
        total = int(length.sum())
        if n and int(length.min()) == int(length.max()):  # one length (most docno schemes): a reshape
            width = int(length[0])
            padded[:, :width] = self.data[self.offsets[0]:self.offsets[-1]].reshape(n, width)
        elif total:
            row = np.repeat(np.arange(n, dtype=np.int64), length)
            col = np.arange(total, dtype=np.int64) - np.repeat(self.offsets[:-1] - self.offsets[0], length)
            padded[row, col] = self.data[self.offsets[0]:self.offsets[-1]]
        return padded.view(">u8").astype(np.uint64)

    def order(self, descending: bool = False, groups: np.ndarray | None = None) -> np.ndarray:
        """Indices sorting the strings by bytes (stable), within ``groups`` if given
        (group codes ascending first). Texts holding a backslash are ordered by the bytes
        they stand for."""
        if self.has_backslash():
            code = self._unescaped_codes()
            keys = [-code if descending else code]
        else:
            words = self.words()
            keys = [~words[:, j] if descending else words[:, j] for j in range(words.shape[1] - 1, -1, -1)]
        if groups is not None:
            keys.append(groups)
        return np.lexsort(keys)

    def codes(self) -> np.ndarray:
        """Code of each string: 0, 1, ... number the distinct strings in byte order."""
        if len(self) == 0:
            return np.zeros(0, dtype=np.int64)
        if self.has_backslash():
            return self._unescaped_codes()
        order, new = self.grouped_order()
        code = np.empty(len(self), dtype=np.int64)
        code[order] = np.cumsum(new) - 1
        return code

    def grouped_order(self, groups: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(indices sorting the strings by ``groups`` then bytes, stably; mask of the sorted
        rows that differ from the row before them in group or bytes, the first row
        included): one sort of the 8-byte words and the groups. Texts with a backslash
        must be ordered by :meth:`codes` instead (they stand for other bytes)."""
        words = self.words()
        keys = [words[:, j] for j in range(words.shape[1] - 1, -1, -1)]
        order = np.lexsort(keys if groups is None else keys + [groups])
        new = np.ones(len(order), dtype=bool)
        if len(order) > 1:
            w = words[order]
            new[1:] = (w[1:] != w[:-1]).any(axis=1)
            if groups is not None:
                g = groups[order]
                new[1:] |= g[1:] != g[:-1]
        return order, new

    def _unescaped_codes(self) -> np.ndarray:
        """:meth:`codes` by the bytes escaped texts stand for (Python; rare)."""
        from .bytetext import unescape

        raw = [unescape(s) for s in self.tolist()]
        rank = {b: i for i, b in enumerate(sorted(set(raw)))}
        return np.array([rank[b] for b in raw], dtype=np.int64)

    def equal(self, rows: np.ndarray, other: "Strings", other_rows: np.ndarray) -> np.ndarray:
        """Elementwise: string rows[i] of self equals string other_rows[i] of other."""
        a, b = self.take(rows), other.take(other_rows)
        same = a.lengths() == b.lengths()
        if not same.any():
            return same
        wa, wb = a.words(), b.words()
        w = min(wa.shape[1], wb.shape[1])
        same &= (wa[:, :w] == wb[:, :w]).all(axis=1)
        return same
