"""Atomic writes: a file appears under its name only when complete (no partial output).

Every output the project writes goes through :func:`atomic_write` (tables, figures and
text in :mod:`reeval.io.tables`, generated tracks, unpacked files). This module imports
only the standard library, so a job that writes files without pandas (the synthetic
generator) does not import it; :mod:`reeval.io.tables` re-exports these names.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path


def _process_umask() -> int:
    """The process umask (read once, at import, while no other thread can race on it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_process_umask()


def temporary_path(path) -> Path:
    """Where :func:`atomic_write` writes ``path`` before renaming it: ``.<name>.tmp`` beside it."""
    path = Path(path)
    return path.with_name(f".{path.name}.tmp")


def stale_temporaries(path) -> list[Path]:
    """Temporary files that interrupted writes of ``path`` left beside it, sorted.

    ``.<name>.tmp`` (:func:`temporary_path`) and ``.<name>.XXXXXXXX.tmp``, the names
    ``tempfile.mkstemp`` gave them before (8 characters of ``[a-z0-9_]``).
    """
    path = Path(path)
    pattern = re.compile(rf"\.{re.escape(path.name)}(\.[a-z0-9_]{{8}})?\.tmp")
    try:
        entries = list(os.scandir(path.parent))
    except FileNotFoundError:
        return []
    return sorted(path.parent / e.name for e in entries if pattern.fullmatch(e.name) and not e.is_dir())


#: errors of a write that name no file: a full disk (Errno 28), a full quota (122) and a
#: file-size limit (27, ``ulimit -f``; Python ignores the SIGXFSZ that would kill it)
NAMELESS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def atomic_write(path, write) -> None:
    """Call ``write(tmp)`` then rename ``tmp`` to ``path``: no partial file under the final name.

    ``tmp`` is :func:`temporary_path` (a string); temporaries an interrupted earlier
    write of ``path`` left are removed first (:func:`stale_temporaries`). The file gets
    the permissions of an ordinary new file (0666 less the umask). If ``write`` fails,
    the temporary file is removed and the error raised; a full disk, quota or file-size
    limit (:data:`NAMELESS`), which names no file, is raised naming ``path``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in stale_temporaries(path):
        stale.unlink(missing_ok=True)
    tmp = temporary_path(path)
    try:
        write(str(tmp))
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.errno in NAMELESS and not exc.filename:
            raise OSError(exc.errno, f"{os.strerror(exc.errno)}: writing {path}") from None  # name the file
        raise
