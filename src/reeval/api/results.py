"""``reeval.read_results``: the tables of a workflow result folder, for a notebook.

A folder written by the workflow (``results/``, or one track's ``results/tracks/<track>/``,
or any folder below them) holds Parquet and CSV tables (docs/outputs.md). They are listed
at once and read on first use; a table written both ways is read from its Parquet file.
CSV columns get the types of the column registry (:mod:`reeval.io.tables`): counts are
nullable integers, ids stay text (a run named ``NA`` is not a missing value).

Stale tables: the workflow never deletes what it did not write, so a result folder reused
after a track was renamed or dropped from the configuration still holds that track's
folder ``tracks/<old>/``. Its tables are listed, but marked: :attr:`Results.stale` names
every table of a track that ``summary/inclusion.csv`` (every track of the configuration
the workflow last ran, written on each run) does not list, ``repr`` counts them and reading
one issues a :class:`~reeval.errors.ReevalWarning`. The workflow's inclusion rule names
such folders in its log (:func:`stale_tracks`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from reeval.errors import InputError, ReevalWarning

#: folders of a result folder that hold no tables (logs, timings)
NOT_TABLES = ("logs", "benchmarks")
TABLE_SUFFIXES = (".parquet", ".csv")


#: the table listing every track of the configuration the workflow last ran
INCLUSION = Path("summary") / "inclusion.csv"


class Results(Mapping):
    """Tables by name, each read on first access: the name is the file's path below the
    folder without its suffix (``measures_by_run``, ``tracks/<track>/measures_by_run``,
    ``summary/runs``). ``stale``: table name -> why it is stale (module doc)."""

    def __init__(self, root: Path, files: dict, stale: dict | None = None):
        self.root = root
        self._files = files
        self._read: dict = {}
        self.stale = dict(stale or {})

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._read:
            if name not in self._files:
                raise KeyError(f"{name!r}: no such table under {self.root} (tables: {', '.join(self._files)})")
            if name in self.stale:
                from reeval.report.escape import line_text

                warnings.warn(line_text(f"reeval: {name} is stale: {self.stale[name]}"), ReevalWarning, stacklevel=2)
            path = self._files[name]
            self._read[name] = pd.read_parquet(path) if path.suffix == ".parquet" else read_typed_csv(path)
        return self._read[name]

    def __iter__(self):
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def path(self, name: str) -> Path:
        """The file a table is read from."""
        return self._files[name]

    def __repr__(self) -> str:
        shown = ", ".join(list(self._files)[:8]) + (", ..." if len(self._files) > 8 else "")
        stale = f"; {len(self.stale)} stale (see .stale)" if self.stale else ""
        return f"<reeval results {str(self.root)!r}: {len(self._files)} tables{stale}: {shown}>"


def read_typed_csv(path) -> pd.DataFrame:
    """A CSV table with the registry's column types (columns it does not know: inferred)."""
    import pyarrow as pa

    from reeval.io.tables import UnknownColumnError, column_type

    nullable = {pa.int64(): "Int64", pa.int32(): "Int32", pa.int8(): "Int8", pa.bool_(): "boolean"}
    dtypes, missing = {}, {}
    for column in pd.read_csv(path, nrows=0).columns:
        try:
            typ = column_type(column)
        except UnknownColumnError:
            missing[column] = [""]
            continue
        if pa.types.is_string(typ) or pa.types.is_large_string(typ):
            dtypes[column] = object
            continue
        if typ in nullable:
            dtypes[column] = nullable[typ]
        missing[column] = [""]
    return pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values=missing)


def stale_tracks(results, tracks) -> list[Path]:
    """The folders ``<results>/tracks/<t>/`` of tracks ``t`` not among ``tracks`` (left there
    by an earlier configuration), sorted."""
    folder = Path(results) / "tracks"
    known = set(map(str, tracks))
    return sorted(p for p in folder.iterdir() if p.is_dir() and p.name not in known) if folder.is_dir() else []


def _stale_tables(root: Path, files: dict) -> dict:
    """Table name -> why it is stale, for the tables of ``files`` (names relative to ``root``)
    in a track folder that the last run's ``summary/inclusion.csv`` does not list."""
    for results in (root, *root.parents):
        if results != root and not root.is_relative_to(results / "tracks"):
            continue
        listing = results / INCLUSION
        if not listing.is_file():
            continue
        tracks = pd.read_csv(listing, usecols=["track"], dtype=str, keep_default_na=False).track
        stale = {}
        for folder in stale_tracks(results, tracks):
            reason = (f"track {folder.name!r} is not in {listing} (the tracks of the workflow's last run): "
                      "its tables are left from an earlier configuration")
            stale.update({name: reason for name, path in files.items() if path.is_relative_to(folder)})
        return stale
    return {}


def read_results(path) -> Results:
    """The tables of a workflow result folder, read when first used (see :class:`Results`).

    ``path``: ``results/`` (the whole study), ``results/tracks/<track>/`` (one track) or any
    folder below them. Logs and benchmark timings are left out. Tables of tracks that are
    no longer in the workflow's configuration are listed in ``.stale`` (module doc).

    Raises:
        InputError: ``path`` is not a folder, or holds no table.
    """
    root = Path(path)
    if not root.is_dir():
        raise InputError(f"{path}: not a folder (expected a workflow result folder such as results/ "
                         "or results/tracks/<track>/)")
    files: dict = {}
    for file in sorted(root.rglob("*")):
        relative = file.relative_to(root)
        if file.suffix not in TABLE_SUFFIXES or relative.parts[0] in NOT_TABLES or not file.is_file():
            continue
        name = relative.with_suffix("").as_posix()
        if name not in files or file.suffix == ".parquet":
            files[name] = file
    if not files:
        raise InputError(f"{path}: no table (.parquet or .csv) found; expected a workflow result folder "
                         "such as results/ or results/tracks/<track>/")
    return Results(root, files, _stale_tables(root, files))
