"""A track's runs folder, walked: the run files below it, what is skipped, what cannot be read.

The workflow reads every file below a track's runs folder, subfolders included
(:func:`walk_runs`); a run is named by its file name (:func:`reeval.io.trecio.run_name_from_path`),
whichever folder holds it. Nothing below the folder is passed over without a word: every
entry ends in exactly one of

- **read**: a regular file (or a symbolic link to one), in ``files``;
- **skipped**, with the reason, in ``skipped`` (the ingest report and log name it, and so
  does ``run_inclusion.csv``): a hidden entry (a name starting with ``.``: ``.DS_Store``,
  ``.run1.swp``, ``.git/``), operating-system litter (``Thumbs.db``, ``desktop.ini``,
  ``__MACOSX/``) or an editor backup (a name ending in ``~``, or ``#name#``); a skipped
  folder is named once, nothing below it is read;
- **a problem**, with the reason, in ``problems``: an entry that cannot be read (a symbolic
  link loop, a link to a missing file, permission denied, a name too long), one that is
  neither a file nor a folder (a FIFO, a socket, a device), a file or folder reached
  twice (two links to one file, a link back up the tree) and two files that give one run
  name (``a/run1.gz`` and ``b/run1``). :meth:`RunListing.check` raises the first as one
  :class:`InputError` line naming the path: the track is refused, not read in part.

Entries are visited in name order, so the listing does not depend on the file system.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

from reeval.errors import InputError

from .sources import PATH_ERRORS, path_problem

#: names of operating-system files and folders that are never runs
LITTER = {"Thumbs.db": "a Windows thumbnail cache", "desktop.ini": "a Windows folder setting",
          "ehthumbs.db": "a Windows thumbnail cache", "__MACOSX": "macOS archive metadata"}


def skip_reason(name: str, is_dir: bool = False) -> str | None:
    """Why an entry of a runs folder is not read as a run (None: it is one): hidden, litter,
    an editor backup."""
    kind = "folder" if is_dir else "file"
    if name.startswith("."):
        return f"hidden {kind} (its name starts with '.')"
    if name in LITTER:
        return f"{LITTER[name]}, not a run"
    if name.endswith("~") or (len(name) > 1 and name.startswith("#") and name.endswith("#")):
        return "an editor backup, not a run"
    return None


@dataclass
class RunListing:
    """What a walk found: ``files`` to read (in walk order), ``skipped`` and ``problems`` as
    (path, reason) pairs (module doc)."""

    files: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    seen: dict = field(default_factory=dict, repr=False)  # (device, inode) -> the path that reached it

    def check(self) -> None:
        """Raise the first problem as one :class:`InputError` line naming its path (and how
        many more there are)."""
        if self.problems:
            path, why = self.problems[0]
            more = len(self.problems) - 1
            extra = f" (and {more} more problem{'s' if more > 1 else ''} below the runs folder)" if more else ""
            raise InputError(f"{path}: {why}{extra}")


def add_path(path: str, listing: RunListing) -> None:
    """Add one path (a file read, a folder walked, or a problem) to ``listing``; a path already
    added is left alone, another path to a file or folder already reached is a problem."""
    try:
        st = os.stat(path)
    except OSError as exc:
        listing.problems.append((path, path_problem(path, exc)))
        return
    key = (st.st_dev, st.st_ino)
    if key in listing.seen:
        first = listing.seen[key]
        if first != path:
            kind = "folder" if stat.S_ISDIR(st.st_mode) else "file"
            listing.problems.append((path, f"the same {kind} as {first} (a second link to it, or a link "
                                           "loop): each run is read once"))
        return
    listing.seen[key] = path
    if stat.S_ISDIR(st.st_mode):
        _walk(path, listing)
    elif not stat.S_ISREG(st.st_mode):
        listing.problems.append((path, "neither a file nor a folder (a FIFO, socket or device): a runs folder "
                                       "holds run files"))
    elif not os.access(path, os.R_OK):
        listing.problems.append((path, PATH_ERRORS[errno.EACCES]))
    else:
        listing.files.append(path)


def _walk(folder: str, listing: RunListing) -> None:
    """Every entry of ``folder`` in name order: skipped by name, else added (:func:`add_path`)."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        listing.problems.append((folder, path_problem(folder, exc)))
        return
    for entry in entries:
        path = os.path.join(folder, entry.name)
        why = skip_reason(entry.name, _is_dir(entry))
        if why:
            listing.skipped.append((path, why))
        else:
            add_path(path, listing)


def _is_dir(entry: os.DirEntry) -> bool:
    """Whether an entry is a folder (a link to one included); False when that cannot be told."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def check_run_names(listing: RunListing) -> None:
    """Two files of a listing giving one run name are a problem naming both (a run is named by
    its file name, whichever folder holds it)."""
    from .trecio import run_name_from_path

    first: dict = {}
    for path in listing.files:
        name = run_name_from_path(path)
        if name in first:
            listing.problems.append((path, f"run name {name!r} also given by {first[name]}: rename one "
                                           "(a run is named by its file name, whichever folder holds it)"))
        first.setdefault(name, path)


def walk_runs(folder) -> RunListing:
    """The listing of a runs folder and everything below it (module doc)."""
    listing = RunListing()
    add_path(os.fspath(folder), listing)
    check_run_names(listing)
    return listing
