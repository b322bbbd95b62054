"""Checking a fetched file: the md5 of its bytes or of its decompressed content, and whether
its compressed stream is complete.

The catalog's md5 is the one recorded at submission, so a file the archive serves compressed
matches when either its bytes or its decompressed content have that md5. A gzip or bzip2
stream ends with an end-of-stream marker and a CRC, so decompressing it to the end finds an
incomplete or corrupt file; a Unix compress (``.Z``) file has neither, so only a decoding
error can tell.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import zlib
from dataclasses import dataclass
from pathlib import Path

from reeval.io.sources import compression_of


def file_md5(path) -> str:
    """Hex md5 of a file's bytes."""
    h = hashlib.md5()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _decompressor(head: bytes):
    """The stream opener for a file starting with ``head`` (gzip, bzip2), ``"Z"`` for Unix
    compress, None for anything else."""
    return {"gzip": gzip.open, "bzip2": bz2.open, "compress": "Z"}.get(compression_of(head))


def content_md5(path) -> str | None:
    """Hex md5 of a gzip/bzip2/compress file's decompressed content; None for other files.

    Raises what the decompressor raises on an incomplete or corrupt stream (EOFError,
    OSError, zlib.error, ValueError).
    """
    with open(path, "rb") as fh:
        opener = _decompressor(fh.read(3))
    if opener is None:
        return None
    if opener == "Z":
        import unlzw3
        return hashlib.md5(unlzw3.unlzw(Path(path).read_bytes())).hexdigest()
    h = hashlib.md5()
    with opener(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class FileCheck:
    """What :func:`check_file` found: ``md5`` of the bytes, ``match`` (None without an
    expected sum, ``file``, ``content`` or ``mismatch``), ``mismatch`` (a message showing
    the sums, "" unless ``match`` is ``mismatch``) and ``broken`` (why the file is an
    incomplete or corrupt compressed stream, "" when it is not)."""
    md5: str
    match: str | None
    mismatch: str = ""
    broken: str = ""


def check_file(path, expected: str | None) -> FileCheck:
    """The md5 of a file against ``expected`` and the completeness of its compressed stream.

    A file whose bytes have the expected md5 is taken as it is. Otherwise a gzip, bzip2 or
    compress file is decompressed to its end once: that finds an incomplete or corrupt
    stream (``broken``) and the md5 of the content (``match = content`` when it is the
    expected one). The check never relies on the md5 to find a broken file.
    """
    digest = file_md5(path)
    if expected is not None and digest == expected:
        return FileCheck(digest, "file")
    try:
        content, broken = content_md5(path), ""
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        content, broken = None, f"incomplete or corrupt compressed file: {type(exc).__name__}: {exc}"
    if expected is None:
        return FileCheck(digest, None, broken=broken)
    if content == expected:
        return FileCheck(digest, "content")
    got = f"{digest} (file)" + (f", {content} (decompressed)" if content else "")
    return FileCheck(digest, "mismatch", f"md5 mismatch: expected {expected}, got {got}", broken)
