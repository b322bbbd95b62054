"""Unpacking what the TREC archive serves into a track folder that ingest reads.

Formats are recognised by their first bytes, not by the file name: gzip (``1f 8b``,
several members concatenated included), bzip2 (``BZh``), Unix ``compress`` (``1f 9d``,
the ``.Z`` files of the early tracks, decoded with ``unlzw3``), tar (alone or inside any
of these, e.g. ``parts1-5.tar.gz``) and plain text.

A track folder (:func:`prepare_track`)::

    <folder>/qrels.txt      every qrels file and archive member, concatenated in order
                            (archive members by name: part1 ... part5), plain text,
                            optionally only the lines of the task's topics
    <folder>/runs/<tag>     one file per run, named by its run tag: gzip/bzip2/plain
                            sources are linked (ingest reads them as they are), .Z and
                            tar sources are written decompressed
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import re
import tarfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reeval.io.sources import compression_of, decompressed
from reeval.io.tables import atomic_write
from reeval.io.textreader import decode_lines
from reeval.io.trecio import run_name_from_path


def decompress(data: bytes, name: str = "data") -> bytes:
    """Bytes decompressed once by magic number (gzip, bzip2, Unix compress); else unchanged.
    A truncated or corrupt stream is an InputError naming ``name``."""
    return decompressed(data, name)


def is_tar(data: bytes) -> bool:
    """True when the bytes are a tar archive (ustar, GNU or old v7 headers)."""
    if len(data) < 512:
        return False
    try:
        return tarfile.is_tarfile(io.BytesIO(data))
    except (tarfile.TarError, OSError, ValueError):
        return False


def members(path) -> list[tuple[str, bytes]]:
    """(name, plain bytes) of a served file: its archive members by name, or itself.

    Hidden and AppleDouble (``._*``, ``__MACOSX``) members and directories are skipped;
    each member is itself decompressed when compressed (``part1.gz`` inside a tar).
    """
    raw = decompress(Path(path).read_bytes(), str(path))
    if not is_tar(raw):
        return [(Path(path).name, raw)]
    out = []
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        for info in sorted(tar.getmembers(), key=lambda m: m.name):
            name = info.name
            if not info.isfile() or "__MACOSX" in name or Path(name).name.startswith("."):
                continue
            out.append((f"{Path(path).name}:{name}", decompress(tar.extractfile(info).read(), f"{path}:{name}")))
    if not out:
        raise ValueError(f"{path}: the archive holds no file")
    return out


def parse_topics(spec: str) -> set[int]:
    """``"151-200"`` or ``"1-5,9"`` -> the set of topic numbers it names."""
    topics: set[int] = set()
    for part in str(spec).split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)\s*-\s*(\d+)", part)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if lo > hi:
                raise ValueError(f"topic range {part!r} is empty")
            topics.update(range(lo, hi + 1))
        elif part.isdigit():
            topics.add(int(part))
        else:
            raise ValueError(f"topics {spec!r}: expected numbers and ranges such as 151-200,205")
    return topics


def keep_topics(data: bytes, topics: set[int]) -> tuple[bytes, int]:
    """Only the lines whose first field is a topic number outside ``topics`` removed.

    Lines whose first field is not a number (blank, comments, other ids) stay, for the
    parser to classify; kept lines are the input bytes unchanged. Returns (bytes, lines
    removed).
    """
    lines, _ = decode_lines(data)
    if not len(lines):
        return data, 0
    first = pc.extract_regex(lines, r"^\s*(?P<t>\S*)").field("t")
    first = pc.replace_substring_regex(first, r"^0+([0-9])", r"\1")  # 0151 is topic 151
    numeric = pc.match_substring_regex(first, r"^[0-9]+$")
    wanted = pc.is_in(first, value_set=pa.array([str(t) for t in sorted(topics)], pa.string()))
    drop = pc.and_(pc.fill_null(numeric, False), pc.invert(pc.fill_null(wanted, False)))
    n_drop = pc.sum(drop).as_py() or 0
    if not n_drop:
        return data, 0
    raw = np.array(data.splitlines(keepends=True), dtype=object)  # the same line breaks
    if len(raw) != len(lines):
        raise ValueError("line split mismatch while selecting topics")
    kept = raw[~drop.to_numpy(zero_copy_only=False)]
    out = b"".join(kept)
    return (out if not out or out.endswith((b"\n", b"\r")) else out + b"\n"), n_drop


def combine_qrels(sources: list, out, topics: str | None = None) -> dict:
    """Write the qrels of a track as one plain file (see the module docstring).

    Returns ``{"members": [...], "lines_other_topics": n}``.
    """
    parts, names = [], []
    for src in sources:
        for name, data in members(src):
            names.append(name)
            parts.append(data if not data or data.endswith(b"\n") else data + b"\n")
    data = b"".join(parts)
    removed = 0
    if topics:
        data, removed = keep_topics(data, parse_topics(topics))
    atomic_write(out, lambda tmp: Path(tmp).write_bytes(data))
    return {"members": names, "lines_other_topics": removed}


def _needs_unpacking(src: Path) -> bool:
    """True for Unix compress and tar content (ingest reads gzip, bzip2 and plain itself)."""
    with open(src, "rb") as fh:
        head = fh.read(1024)
    kind = compression_of(head)
    if kind == "compress":
        return True
    if kind != "plain":
        with (gzip.open if kind == "gzip" else bz2.open)(src) as fh:
            head = fh.read(1024)
    return is_tar(head)


def place_run(src, folder, tag: str) -> Path:
    """Put a served run file into the track folder as ``<folder>/<tag>`` (see the module docstring)."""
    if "/" in tag or tag in ("", ".", "..") or tag.startswith("."):
        raise ValueError(f"run tag {tag!r} cannot name a file")
    if run_name_from_path(tag) != tag:  # ingest names a run by its file name
        raise ValueError(f"a file named {tag!r} would be read as run {run_name_from_path(tag)!r}")
    src, dest = Path(src), Path(folder) / tag
    dest.parent.mkdir(parents=True, exist_ok=True)
    if _needs_unpacking(src):
        found = members(src)
        if len(found) != 1:
            raise ValueError(f"{src}: an archive of {len(found)} files, expected one run")
        atomic_write(dest, lambda tmp: Path(tmp).write_bytes(found[0][1]))
        return dest
    if dest.exists() or dest.is_symlink():
        dest.unlink()
    try:
        os.link(src, dest)
    except OSError:
        os.symlink(src.resolve(), dest)
    return dest
