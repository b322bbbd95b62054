"""Reading one input exactly once: a file, a pipe, a FIFO, ``/dev/stdin`` or ``-`` alike.

:func:`read_source` opens the path once. A regular file is mapped into memory (no
copy); anything else (a pipe, process substitution ``<(zcat run.gz)``, a named FIFO, a
character device such as ``/dev/stdin``) is read to its end in one sequential read.
Compression is recognised from the first bytes of what was read, never from the name
and never by reading again: gzip (several members concatenated included), bzip2 and
Unix ``compress`` (``.Z``). A UTF-8 byte-order mark at the start is removed (and
reported by the callers: trec_eval would read it as part of the first topic id).

Every failure is an :class:`~reeval.io.trecio.InputError` naming the path, in one line:
no such file, a directory, any error of the path itself (:func:`path_error`: a symbolic
link loop or too many links, a name too long, permission denied on the file or a folder
above it), a truncated or corrupt compressed stream, an archive or binary format reeval
does not read (zip, xz, zstd, 7-Zip, LZ4, Parquet, UTF-16 and UTF-32 text).

Asked (``digest=True``), :func:`read_source` also hashes the bytes it read, as stored
(before decompression): their number and SHA-256 (:class:`Digest`), from the very buffer
the parser then reads, so that a report can name what was read without a second read
(which a pipe or FIFO would not allow, and which could see other bytes than the parser).

A stream (a pipe, a FIFO, a character device, standard input) is checked as its bytes
arrive (:func:`_read_stream`), so that an endless one cannot fill the memory: once its first
line is complete, the caller's ``check`` parses the lines read so far (a run or qrels line
that is not one, ``yes garbage | reeval score qrels -``, stops at line 1), and a line of plain
text longer than :data:`MAX_LINE_BYTES` without a newline (``/dev/zero``) stops the read with
an error naming the line. A compressed stream is read whole (its lines are not seen until it
is decompressed).

A stream can be read only once: :func:`check_read_once` refuses standard input given
twice (``-`` twice, or ``-`` and ``/dev/stdin``) and one pipe or FIFO given twice, before
anything is read.
"""

from __future__ import annotations

import errno
import mmap
import os
import stat
import sys
import zlib
from dataclasses import dataclass

from reeval.errors import InputError

from .bytetext import show

BOM = b"\xef\xbb\xbf"
COMPRESSED = {b"\x1f\x8b": "gzip", b"BZh": "bzip2", b"\x1f\x9d": "compress"}
#: first bytes of formats reeval refuses, with what to tell the user
REFUSED = (
    (b"PK\x03\x04", "a zip archive: unzip it first"),
    (b"\xfd7zXZ\x00", "an xz stream: decompress it first (xz -d)"),
    (b"\x28\xb5\x2f\xfd", "a zstd stream: decompress it first (zstd -d)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive: unpack it first"),
    (b"\x04\x22\x4d\x18", "an LZ4 frame: decompress it first (lz4 -d)"),
    (b"PAR1", "a Parquet file: reeval reads TREC text files"),
    (b"\xff\xfe\x00\x00", "UTF-32 text: convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8)"),
    (b"\x00\x00\xfe\xff", "UTF-32 text: convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8)"),
    (b"\xff\xfe", "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)"),
    (b"\xfe\xff", "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)"),
)


@dataclass(frozen=True)
class Digest:
    """The bytes of one input as read (compressed as stored): how many, and their SHA-256 (hex)."""

    size: int
    sha256: str

    @classmethod
    def of(cls, raw) -> "Digest":
        """The digest of a buffer (bytes, memory map): ``len(raw)`` and ``hashlib.sha256(raw)``."""
        import hashlib  # here: only a digest asked for needs it (it loads OpenSSL)

        return cls(len(raw), hashlib.sha256(raw).hexdigest())


@dataclass
class Source:
    """What one input held: ``data`` (plain text bytes, BOM removed: bytes or a read-only
    memory map of the file), how it was stored (``plain``, ``gzip``, ``bzip2``, ``compress``),
    whether a byte-order mark was removed, and, when asked, the :class:`Digest` of the bytes
    read."""

    path: str
    data: object
    compression: str = "plain"
    bom: bool = False
    digest: Digest | None = None


def read_source(path, digest: bool = False, check=None) -> Source:
    """Read ``path`` once (see the module docstring) and return its plain text bytes; with
    ``digest``, also the :class:`Digest` of the bytes read (no second read). ``check``: a
    callable given the first complete lines of a plain-text stream as they arrive
    (:func:`_read_stream`), raising :class:`InputError` for lines that are not the file's
    kind."""
    name = str(path)
    return source_from_bytes(name, _read_once(name, check), digest)


def source_from_bytes(name: str, raw, digest: bool = False) -> Source:
    """The :class:`Source` of bytes already read (``name`` is used in messages); with
    ``digest``, their :class:`Digest`."""
    hashed = Digest.of(raw) if digest else None
    kind = compression_of(bytes(raw[:6]))
    data = raw if kind == "plain" else decompress(name, raw, kind)
    return text_source(name, data, kind, hashed)


def text_source(name: str, data, compression: str = "plain", digest: Digest | None = None) -> Source:
    """The :class:`Source` of text already decompressed (``compression``: how it was stored),
    checked as :func:`source_from_bytes` checks what it decompressed: a refused format or a
    tar archive is an :class:`InputError`, a byte-order mark is removed. ``digest``: of the
    bytes stored, when known (a generator that has just written and hashed them,
    :func:`reeval.synth.ingested.generate_and_ingest`), so that nothing is read again."""
    head = bytes(data[:6])
    for magic, what in REFUSED:
        if head.startswith(magic):
            raise InputError(f"{name}: {what}")
    if _is_tar(data):
        raise InputError(f"{name}: a tar archive: unpack it first (tar -xf)")
    bom = head.startswith(BOM)
    if bom:  # a copy, rare: callers then hold bytes or a memory map, never a view
        data = bytes(memoryview(data)[len(BOM):])
    return Source(name, data, compression, bom, digest)


def compression_of(head: bytes) -> str:
    """``gzip``, ``bzip2``, ``compress`` or ``plain``, from the first bytes of a file."""
    return next((kind for magic, kind in COMPRESSED.items() if head.startswith(magic)), "plain")


def decompressed(data, name: str = "data"):
    """``data`` decompressed when its first bytes say gzip, bzip2 or compress; else itself."""
    kind = compression_of(bytes(data[:3]))
    return data if kind == "plain" else decompress(name, data, kind)


#: what an error of a path means, by errno (the other errors give the system's words)
PATH_ERRORS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "is a directory; expected a file",
    errno.EACCES: "permission denied (on the file or a folder above it)",
    errno.EPERM: "permission denied (on the file or a folder above it)",
    errno.ELOOP: "too many levels of symbolic links (a link loop, or a chain of more than 40 links)",
    errno.ENAMETOOLONG: "name too long (the path or one of its names is longer than the system allows)",
    errno.ENOTDIR: "a part of the path is not a folder",
}


def path_problem(name: str, exc: OSError) -> str:
    """What an ``OSError`` met opening or examining ``name`` means, in words
    (:data:`PATH_ERRORS`; a symbolic link to a missing file is said so)."""
    if exc.errno == errno.ENOENT and os.path.islink(name):
        return f"a symbolic link to a missing file ({os.readlink(name)})"
    return PATH_ERRORS.get(exc.errno) or f"cannot open ({exc.strerror or exc})"


def path_error(name: str, exc: OSError) -> InputError:
    """The one-line :class:`InputError` of an ``OSError`` met opening or examining ``name``:
    ``name: <what it means>`` (:func:`path_problem`), never a traceback."""
    return InputError(f"{name}: {path_problem(name, exc)}")


def check_path(name: str) -> None:
    """A path that cannot name a file at all (a NUL byte in it) is an :class:`InputError`."""
    if "\x00" in name:
        raise InputError(f"{show(name)}: a path cannot hold a NUL byte")


def _identity(name: str) -> tuple[tuple, bool]:
    """((device, inode) of what ``name`` opens, whether it is a stream: a pipe, FIFO,
    socket or terminal rather than a regular file). ``-`` is standard input; a path that
    cannot be examined raises its :func:`path_error`."""
    check_path(name)
    try:
        st = os.fstat(sys.stdin.fileno()) if name == "-" else os.stat(name)
    except (OSError, AttributeError, ValueError) as exc:
        if name == "-" or not isinstance(exc, OSError):
            return ("stdin",), True
        raise path_error(name, exc) from None
    return (st.st_dev, st.st_ino), not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode))


def check_read_once(names) -> None:
    """Refuse, before anything is read, inputs that cannot all be read: standard input given
    twice (``-`` twice, or ``-`` and ``/dev/stdin`` on a pipe: the second reader would find
    it empty) and one pipe or FIFO given twice. A regular file may be given twice."""
    seen: dict = {}
    for name in map(str, names):
        key, stream = _identity(name)
        if key not in seen:
            seen[key] = name
            continue
        first = seen[key]
        if stream or name == first == "-":
            if "-" in (name, first) or key == _identity("-")[0]:
                also = "twice" if first == name else f"twice (as {first} and {name})"
                raise InputError(f"standard input given {also}: it can be read only once")
            also = "given twice" if first == name else f"the same pipe or FIFO as {first}"
            raise InputError(f"{name}: {also}: a stream can be read only once")


#: the longest line of plain text a stream may have: a run or qrels line is a few hundred
#: bytes at most; a stream without a newline in this many bytes (``/dev/zero``) is no such file
MAX_LINE_BYTES = 1 << 20
#: bytes asked of a stream at a time
STREAM_CHUNK = 1 << 20


def _read_once(name: str, check=None):
    """The bytes of a path, opened once: a memory map of a regular file, else a stream read
    as its bytes arrive (:func:`_read_stream`, ``check`` its first lines). ``-`` is standard
    input (as trec_eval 10 reads a results file ``-``)."""
    if name == "-":
        try:
            return _read_stream(sys.stdin.buffer, name, check)
        except InputError:
            raise
        except (OSError, AttributeError, ValueError) as exc:
            raise InputError(f"-: cannot read standard input ({exc})") from None
    check_path(name)
    try:
        fh = open(name, "rb")
    except OSError as exc:
        raise path_error(name, exc) from None
    with fh:
        try:
            st = os.fstat(fh.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise InputError(f"{name}: is a directory; expected a file")
            if stat.S_ISREG(st.st_mode) and st.st_size > 0:
                try:
                    return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
                except (OSError, ValueError):  # a file system without mmap
                    pass
                return fh.read()
            return _read_stream(fh, name, check)
        except OSError as exc:
            raise InputError(f"{name}: read error ({exc.strerror or exc})") from None


def _read_stream(stream, name: str, check=None) -> bytes:
    """Every byte of ``stream``, read chunk by chunk (what has arrived, up to
    :data:`STREAM_CHUNK`). For plain text (not a compressed stream, judged by its first
    bytes): once a line is complete, ``check`` (if any) is called once with every complete
    line read so far; a line longer than :data:`MAX_LINE_BYTES` is an InputError naming it,
    raised as soon as that many bytes without a newline have arrived."""
    read = getattr(stream, "read1", stream.read)
    parts, size, newlines, tail = [], 0, 0, 0
    plain = checked = None
    while chunk := read(STREAM_CHUNK):
        parts.append(chunk)
        size += len(chunk)
        if plain is None and size >= 6:  # a shorter stream is too short to check
            plain = compression_of(b"".join(parts)[:6]) == "plain"
        last = chunk.rfind(b"\n")
        tail = tail + len(chunk) if last < 0 else len(chunk) - last - 1
        newlines += chunk.count(b"\n")
        if not plain:
            continue
        if tail > MAX_LINE_BYTES:
            raise InputError(f"{name}: line {newlines + 1}: more than {MAX_LINE_BYTES:,} bytes without a newline "
                             f"(a run or qrels line is far shorter); stopped reading")
        if check is not None and not checked and newlines:
            head = b"".join(parts)
            check(head[:head.rfind(b"\n") + 1])
            checked = True
    return b"".join(parts)


def decompress(name: str, data, kind: str) -> bytes:
    """Decompress a whole gzip, bzip2 or Unix compress stream; errors name ``name``.

    gzip and bzip2 streams must be complete: a stream cut short (an interrupted download
    or copy) or one whose check fails is an error, never a silently shorter file.
    Several gzip members (or bzip2 streams) one after the other are read as one.
    """
    try:
        if kind == "gzip":
            return _gunzip(data)
        if kind == "bzip2":
            return _bunzip2(data)
        import unlzw3  # Unix compress has no end marker: a cut file cannot be detected

        return unlzw3.unlzw(bytes(data))
    except EOFError:
        raise InputError(f"{name}: truncated {kind} stream (it ends before its end-of-stream "
                         "marker: was the download or copy interrupted?)") from None
    except (zlib.error, zlib_module().error, OSError, ValueError) as exc:
        raise InputError(f"{name}: corrupt {kind} stream ({exc})") from None


_CHUNK = 1 << 22  # compressed bytes fed at a time: unused input is never copied whole


def zlib_module():
    """The zlib-compatible module gzip streams are read and written with: ISA-L's
    ``isal.isal_zlib`` when the ``isal`` package is installed (on the shared tracks' 290 gzipped
    runs it inflates 2.2x as fast as zlib, to the same bytes; its level-1 deflate is 3.8x zlib's
    on the generator's runs), else Python's ``zlib``. Both read every valid gzip member to the
    same bytes and refuse the same broken ones (a failed check, a stream cut short); only the
    error's wording differs. Imported on first use: commands that read no gzip never load it."""
    try:
        from isal import isal_zlib
    except ImportError:
        return zlib
    return isal_zlib


def _gunzip(data) -> bytes:
    """Every gzip member of ``data`` decompressed and joined (each member's header, CRC
    and size checked); zero padding after the last member is allowed, as gzip -d allows."""
    view, out, at, lib = memoryview(data), [], 0, zlib_module()
    while at < len(view):
        if view[at:at + 2] != b"\x1f\x8b":
            if bytes(view[at:]).strip(b"\x00"):
                raise ValueError(f"bytes after the last gzip member (offset {at}) are not gzip")
            break
        at = _feed(lib.decompressobj(wbits=31), view, at, out)
    return out[0] if len(out) == 1 else b"".join(out)


def _bunzip2(data) -> bytes:
    """Every bzip2 stream of ``data`` decompressed and joined."""
    import bz2  # here: only a .bz2 file needs it

    view, out, at = memoryview(data), [], 0
    while at < len(view):
        at = _feed(bz2.BZ2Decompressor(), view, at, out)
    return out[0] if len(out) == 1 else b"".join(out)


def _feed(d, view, at: int, out: list) -> int:
    """Feed ``view[at:]`` to decompressor ``d`` chunk by chunk until its stream ends;
    append the output to ``out`` and return where the next stream starts. EOFError
    when the data ends first."""
    while not d.eof:
        if at >= len(view):
            raise EOFError
        chunk = view[at:at + _CHUNK]
        out.append(d.decompress(chunk))
        at += len(chunk)
    return at - len(d.unused_data)


def _is_tar(data) -> bool:
    """A POSIX/GNU tar header: ``ustar`` at offset 257 of a 512-byte block."""
    return len(data) >= 512 and bytes(data[257:262]) == b"ustar"
