"""What a track's input files hold, by content: their sizes and SHA-256 hashes, and a
fingerprint file that changes exactly when one of them does.

Snakemake decides what to rebuild from modification times, and a file replaced by other
content with an older mtime (``cp -p``, ``rsync -a``, ``tar x``) would leave every table
stale. So, for a track given by local files, the workflow keeps beside its tables:

- ``inputs.json`` (:data:`CACHE`): per input file (absolute path) its size, SHA-256 and the
  ``stat`` it was hashed under (size, mtime, ctime, inode, device). A file whose ``stat`` is
  unchanged is not read again; any write to a file changes its ctime, which no copy tool
  can set back, so a changed file is always hashed again.
- ``inputs.sha256`` (:data:`FINGERPRINT`): one line per input, ``<sha256>  <bytes>  <path>``
  (sorted by path; the format of ``sha256sum`` plus the size), rewritten only when its text
  changes. The ingest rule takes it as an input, so new content (or a file added or removed)
  makes it newer than the tables and ingest runs again; a file only touched, or copied back
  with the same bytes, changes nothing.

:func:`refresh_fingerprint` runs when the workflow is parsed (common.smk): cost, a ``stat``
per file, and a read of the files that changed (SHA-256 at about 340 MB/s on one core of the
test machine; the first run of a track reads every file once). A dry run writes neither file:
it asks :func:`changed_fingerprint` instead, and gives ingest the new text from a temporary
file outside the results when it differs. The ingest report's columns ``bytes`` and
``sha256`` do not come from here: the ingest job hashes the very bytes it parses, for every
track (``reeval.io.ingest.ingest_track(digest=True)``), so no input is read twice there.
A file that is not a regular file (a FIFO) is listed with no hash: reading it would consume it.

The fingerprint is taken when the workflow starts, ingest reads the files later: a file
rewritten in between and put back afterwards with its old bytes and mtime (``cp -p``) leaves
a fingerprint that matches the files and tables made from other bytes. So
:func:`refresh_fingerprint` also compares each file's hash with the ``sha256`` the track's
``ingest_report.csv`` holds for it (:func:`report_mismatches`); where they differ it writes
the fingerprint again, newer than the tables, and the track is ingested again.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import stat
from pathlib import Path

from reeval.io.atomic import atomic_write

#: the per-track cache of hashes, and the fingerprint the ingest rule depends on
CACHE = "inputs.json"
FINGERPRINT = "inputs.sha256"


def stat_key(path) -> list:
    """What must be unchanged for a cached hash to hold: size, mtime, ctime (ns), inode, device."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def sha256_of(path) -> str | None:
    """The SHA-256 of a regular file's bytes (hex), read in blocks; None for anything else."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        return None
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def read_cache(folder) -> dict:
    """The cache of ``folder`` (absolute path -> {bytes, sha256, stat}); empty if absent or unreadable."""
    try:
        cache = json.loads((Path(folder) / CACHE).read_text())
    except (OSError, ValueError):
        return {}
    return cache if isinstance(cache, dict) else {}


def input_hashes(paths, cache: dict) -> dict:
    """Absolute path -> {bytes, sha256, stat} of each of ``paths``: the cached entry when its
    ``stat`` is unchanged, else the file hashed now."""
    out = {}
    for path in paths:
        key = os.path.abspath(path)
        now = stat_key(key)
        entry = cache.get(key)
        if not (isinstance(entry, dict) and entry.get("stat") == now):
            entry = {"bytes": now[0], "sha256": sha256_of(key), "stat": now}
        out[key] = entry
    return out


def fingerprint_text(hashes: dict) -> str:
    """``<sha256>  <bytes>  <path>`` per file, sorted by path (``-`` for a file with no hash)."""
    return "".join(f"{e['sha256'] or '-'}  {e['bytes']}  {p}\n" for p, e in sorted(hashes.items()))


def _write_if_changed(path: Path, text: str) -> bool:
    try:
        if path.read_text() == text:
            return False
    except OSError:
        pass
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))
    return True


#: the ingest report the tables were made with (reeval.workflow.outputs), beside the fingerprint
INGEST_REPORT = "ingest_report.csv"


def report_mismatches(folder, hashes: dict) -> list[str]:
    """The input files (absolute paths, of ``hashes``: :func:`input_hashes`) whose SHA-256
    differs from the one ``folder``'s ingest report holds for them: the tables were made from
    other bytes than the file holds now. Empty when there is no report (nothing ingested yet)
    or no hash to compare (a FIFO; a file the report does not list, which changes the
    fingerprint itself)."""
    try:
        with open(Path(folder) / INGEST_REPORT, newline="", encoding="utf-8") as f:
            read = {os.path.abspath(row["file"]): row.get("sha256") or None for row in csv.DictReader(f)}
    except (OSError, ValueError, KeyError, csv.Error):
        return []
    return sorted(p for p, e in hashes.items() if e["sha256"] and read.get(p) and read[p] != e["sha256"])


def changed_fingerprint(folder, paths) -> str | None:
    """The fingerprint text :func:`refresh_fingerprint` would write for ``paths``, or None when
    ``folder``'s fingerprint already says it and the ingest report was read from these bytes
    (:func:`report_mismatches`). Writes nothing (a dry run's question; a file
    whose ``stat`` changed is hashed again on every such call, as the cache is not updated)."""
    hashes = input_hashes(paths, read_cache(folder))
    text = fingerprint_text(hashes)
    try:
        same = (Path(folder) / FINGERPRINT).read_text() == text
        return None if same and not report_mismatches(folder, hashes) else text
    except OSError:
        return text


def refresh_fingerprint(folder, paths, stale: list | None = None) -> Path:
    """Bring ``folder``'s cache and fingerprint up to date for the input ``paths``; the
    fingerprint file is rewritten (and so made newer than the tables) only when the content,
    the size or the set of the inputs changed, or when the ingest report was read from other
    bytes than a file holds now (:func:`report_mismatches`: those files are appended to
    ``stale``, for the caller to say why the track is ingested again). Returns the
    fingerprint's path."""
    folder = Path(folder)
    cache = read_cache(folder)
    hashes = input_hashes(paths, cache)
    if hashes != {k: cache.get(k) for k in hashes} or set(cache) != set(hashes):
        _write_if_changed(folder / CACHE, json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    text, mismatches = fingerprint_text(hashes), report_mismatches(folder, hashes)
    if mismatches:
        atomic_write(folder / FINGERPRINT, lambda tmp: Path(tmp).write_text(text))
        if stale is not None:
            stale.extend(mismatches)
    else:
        _write_if_changed(folder / FINGERPRINT, text)
    return folder / FINGERPRINT
