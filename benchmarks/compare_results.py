"""Compare two workflow results folders table by table (every Parquet and CSV file).

    PYTHONPATH=src .venv/bin/python benchmarks/compare_results.py BEFORE AFTER [--show 20]

A speed change must leave every table as it was: run the same config into two results
folders, one with the old code and one with the new, then compare them. Each table of
either folder (``*.parquet``, ``*.csv``, outside ``logs/``, ``benchmarks/`` and hidden
folders, which hold timings and Snakemake's own files) is

- ``identical``: the same bytes, or, once each folder's own path is replaced by
  ``<results>`` (tables that name a file below the results folder, such as the ingest
  report's synthetic runs), the same bytes;
- ``same values``: a Parquet table whose bytes differ but whose columns, types and values
  are equal (NaN equal to NaN in the same cell): written differently, read the same;
- ``same but <columns>``: with ``--except-columns``, a table whose bytes differ only in those
  columns: the rest of its columns, types and values are equal (the generated gzip files'
  ``bytes`` and ``sha256`` in the ingest reports when the generator's deflate changed:
  ``--except-columns bytes sha256``);
- ``differs``, ``only in BEFORE`` or ``only in AFTER``.

Prints one line per table that is not identical (the first ``--show``), then the count of
each status; exits 1 if any table differs or is missing on one side.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

TABLE_SUFFIXES = (".parquet", ".csv")
#: folders of a results folder that hold timings and logs, not tables
SKIPPED_FOLDERS = ("logs", "benchmarks")
PLACEHOLDER = "<results>"


def tables_of(root: Path) -> set:
    """Paths (relative to ``root``) of every table below it, outside :data:`SKIPPED_FOLDERS`
    and hidden folders."""
    out = set()
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if path.suffix in TABLE_SUFFIXES and path.is_file() and not (
                rel.parts[0] in SKIPPED_FOLDERS or any(p.startswith(".") for p in rel.parts)):
            out.add(rel)
    return out


def _unrooted(table: pa.Table, root: str) -> pa.Table:
    """``table`` with ``root`` replaced by :data:`PLACEHOLDER` in its string columns."""
    columns = []
    for col in table.columns:
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            col = pc.replace_substring(col, root, PLACEHOLDER)
        columns.append(col)
    return pa.table(columns, names=table.column_names)


def _same_values(a: pa.Table, b: pa.Table) -> bool:
    """Equal names, types and values; NaN equal to NaN in the same cell."""
    if a.schema != b.schema or a.num_rows != b.num_rows:
        return False
    return a.to_pandas().equals(b.to_pandas())


def _read(path: Path, root: Path) -> pa.Table:
    """The table at ``path`` (Parquet or CSV), ``root`` replaced by :data:`PLACEHOLDER`."""
    return _unrooted(pacsv.read_csv(path) if path.suffix == ".csv" else pq.read_table(path), str(root))


def compare_table(before: Path, after: Path, rel: Path, except_columns=()) -> str:
    """The status of one table present in both folders (module docstring)."""
    a, b = (before / rel).read_bytes(), (after / rel).read_bytes()
    if a == b:
        return "identical"
    if rel.suffix == ".csv" and (a.replace(str(before).encode(), PLACEHOLDER.encode())
                                 == b.replace(str(after).encode(), PLACEHOLDER.encode())):
        return "identical"
    if rel.suffix == ".csv" and not except_columns:
        return "differs"
    ta, tb = _read(before / rel, before), _read(after / rel, after)
    if rel.suffix == ".parquet" and _same_values(ta, tb):
        return "same values"
    dropped = [c for c in except_columns if c in ta.column_names and c in tb.column_names]
    if dropped and _same_values(ta.drop_columns(dropped), tb.drop_columns(dropped)):
        return "same but " + ", ".join(dropped)
    return "differs"


def compare_folders(before, after, except_columns=()) -> dict:
    """Relative path -> status for every table of either folder (module docstring)."""
    before, after = Path(before).resolve(), Path(after).resolve()
    ta, tb = tables_of(before), tables_of(after)
    out = {rel: "only in BEFORE" for rel in ta - tb}
    out.update({rel: "only in AFTER" for rel in tb - ta})
    out.update({rel: compare_table(before, after, rel, except_columns) for rel in sorted(ta & tb)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--show", type=int, default=20, help="tables not identical to list (default 20)")
    ap.add_argument("--except-columns", nargs="+", default=[], metavar="COLUMN",
                    help="a table that differs only in these columns is 'same but COLUMN, ...', not 'differs'")
    args = ap.parse_args(argv)
    statuses = compare_folders(args.before, args.after, args.except_columns)
    odd = sorted((rel, s) for rel, s in statuses.items() if s != "identical")
    for rel, status in odd[:args.show]:
        print(f"{status}: {rel}")
    counts = {s: list(statuses.values()).count(s) for s in sorted(set(statuses.values()))}
    print(f"{len(statuses)} tables: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    return int(any(s not in ("identical", "same values") and not s.startswith("same but ") for s in statuses.values()))


if __name__ == "__main__":
    sys.exit(main())
