"""Writing outputs: every file the project writes goes through :func:`atomic_write`, a
temporary file beside the output, renamed when complete.

- :func:`save_figure` is the one figure saver (PNG, PDF, SVG), :func:`write_text` writes
  markdown and JSON.

Byte reproducibility: PDF and SVG figures are saved without a creation date and SVG ids
are salted by a constant, so the same figure written twice gives the same bytes.

Temporary files: ``write`` goes to ``.<name>.tmp`` beside ``<name>``. A job killed while
writing (``kill -9``, out of memory, a SLURM time limit) leaves that file behind; the
next write of the same output (the job's rerun) removes it first, and also the
``.<name>.XXXXXXXX.tmp`` files that earlier versions (``tempfile.mkstemp``) left. A
Snakemake job owns its output paths, so no other job writes these names.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def write_text(text: str, path) -> None:
    """Write ``text`` (markdown, JSON) as UTF-8 with newlines as given, atomically."""
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(text.encode("utf-8")))


# ------------------------------------------------------------------ figures

#: savefig metadata per format: no creation date, so a figure saved twice is byte-identical
#: (PNG carries none; matplotlib's version stays, like the rendering it describes)
FIGURE_METADATA = {"png": {}, "pdf": {"CreationDate": None}, "svg": {"Date": None}}


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, *paths, dpi: int = 150) -> None:
    """Save ``fig`` to each path, the format following the suffix (png, pdf, svg), then close it.

    Every figure is saved the same way: ``dpi`` for the raster, the bounding box
    tightened to the drawing, no timestamp (:data:`FIGURE_METADATA`), SVG ids salted by a
    constant; each file atomically.
    """
    import matplotlib

    formats = []
    for path in paths:
        fmt = Path(path).suffix.lstrip(".").lower()
        if fmt not in FIGURE_METADATA:
            raise ValueError(f"{path}: a figure is saved as {sorted(FIGURE_METADATA)}, not {fmt!r}")
        formats.append((path, fmt))
    try:
        with matplotlib.rc_context({"svg.hashsalt": "reeval"}):
            for path, fmt in formats:
                atomic_write(path, lambda tmp, fmt=fmt: fig.savefig(
                    tmp, format=fmt, dpi=dpi, bbox_inches="tight", metadata=FIGURE_METADATA[fmt]))
    finally:
        pyplot().close(fig)


# ------------------------------------------------------------------ atomic writes

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


def atomic_write(path, write) -> None:
    """Call ``write(tmp)`` then rename ``tmp`` to ``path``: no partial file under the final name.

    ``tmp`` is :func:`temporary_path` (a string); temporaries an interrupted earlier
    write of ``path`` left are removed first (:func:`stale_temporaries`). The file gets
    the permissions of an ordinary new file (0666 less the umask). If ``write`` fails,
    the temporary file is removed and the error raised.
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
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
