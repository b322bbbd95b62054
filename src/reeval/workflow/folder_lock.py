"""One workflow at a time on a results folder.

Snakemake locks the outputs of one working directory (``.snakemake/locks``); two workflows
started from two working directories on one results folder would write the same files and
delete each other's temporaries. The Snakefile's ``onstart`` (after the jobs are planned,
before the first runs; not in a dry run) takes an exclusive ``flock`` on
``<results>/.reeval.lock`` and keeps it until the process ends: a second workflow stops with
one line, ``another run holds <folder> ...``, and exits non-zero. The kernel releases a flock
when its last descriptor is closed, so the lock goes with the process however it ends
(success, error, ``kill -9``): no stale lock to remove by hand. The file stays, empty.

The descriptor is not inherited by the jobs (Python opens files non-inheritable), so a job
left running after its workflow was killed does not keep the folder locked.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from reeval.errors import InputError

#: the lock file, in the results folder
LOCK_NAME = ".reeval.lock"

#: the descriptors held by this process: folder -> fd (kept open until the process ends)
_HELD: dict[str, int] = {}


class FolderBusy(InputError):
    """Another process holds the results folder's lock."""


def hold_folder(folder) -> Path:
    """Take the exclusive lock on ``folder`` (made if absent) for the rest of this process.

    Returns the lock file's path. Taking it again in the same process is a no-op. Raises
    :class:`FolderBusy` (``another run holds <folder> ...``) if another process holds it,
    without waiting."""
    folder = Path(folder)
    key = str(folder.resolve())
    path = folder / LOCK_NAME
    if key in _HELD:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise FolderBusy(f"another run holds {folder} (the lock {path}): wait for it to end or give "
                         f"another results folder") from None
    _HELD[key] = fd
    return path


def release_folder(folder) -> None:
    """Release the lock :func:`hold_folder` took on ``folder`` (the process's end does it too)."""
    fd = _HELD.pop(str(Path(folder).resolve()), None)
    if fd is not None:
        os.close(fd)
