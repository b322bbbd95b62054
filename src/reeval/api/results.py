"""``reeval.read_results``: the tables of a workflow result folder, for a notebook.

A folder written by the workflow (``results/``, or one track's ``results/tracks/<track>/``,
or any folder below them) holds Parquet and CSV tables (docs/outputs.md). They are listed
at once and read on first use; a table written both ways is read from its Parquet file.
CSV columns get the types of the column registry (:mod:`reeval.io.tables`): counts are
nullable integers, ids stay text (a run named ``NA`` is not a missing value).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from reeval.errors import InputError

#: folders of a result folder that hold no tables (logs, timings)
NOT_TABLES = ("logs", "benchmarks")
TABLE_SUFFIXES = (".parquet", ".csv")


class Results(Mapping):
    """Tables by name, each read on first access: the name is the file's path below the
    folder without its suffix (``measures_by_run``, ``tracks/<track>/measures_by_run``,
    ``summary/runs``)."""

    def __init__(self, root: Path, files: dict):
        self.root = root
        self._files = files
        self._read: dict = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._read:
            if name not in self._files:
                raise KeyError(f"{name!r}: no such table under {self.root} (tables: {', '.join(self._files)})")
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
        return f"<reeval results {str(self.root)!r}: {len(self._files)} tables: {shown}>"


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


def read_results(path) -> Results:
    """The tables of a workflow result folder, read when first used (see :class:`Results`).

    ``path``: ``results/`` (the whole study), ``results/tracks/<track>/`` (one track) or any
    folder below them. Logs and benchmark timings are left out.

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
    return Results(root, files)
