"""Writing outputs: every table and text file the project writes goes through here.

- :func:`write_table` is the one table writer (Parquet and CSV); :func:`write_table_pair`
  writes the usual ``<name>.parquet`` + ``<name>.csv`` pair with it. The writer types every column
  by :data:`COLUMN_TYPES`, the one registry of column name -> Arrow type, so a column
  has the same type in every table, also in an empty one. A column the registry does
  not know is an error (:class:`UnknownColumnError`): add it to the registry with its
  type rather than let pandas guess one.
- :func:`write_text` writes markdown and JSON (figures: :mod:`reeval.report.figures`).
- All of them write through :func:`atomic_write` (:mod:`reeval.io.atomic`, re-exported
  here): a temporary file beside the output, renamed when complete.

Decisions the registry encodes:

- Strings are plain ``string`` everywhere, run/qid/docno included, never dictionary
  types. Parquet already stores string columns dictionary-encoded (``RLE_DICTIONARY``
  pages), so a dictionary type would not make the files smaller; it only changes what
  readers build in memory: pandas then reads ``Categorical`` and polars ``Categorical``,
  and polars refuses to join or concatenate those with plain strings (a user's own
  table, a CSV), as pyarrow refuses to concatenate tables whose types differ. Readers
  that want dictionary arrays ask for them (``pq.read_table(path,
  read_dictionary=["run", "qid"])``). ``string``, not ``large_string``: the ingest tables,
  the largest, are built as ``string`` (a column over 2 GiB is simply several chunks).
- Counts are ``int64``, nullable where a count can be missing (e.g. ``n_topics`` of the
  qrels row of the ingest report): Arrow integers hold nulls, and CSVs show integers
  (``35000``, an empty field for a missing count), not ``35000.0``. Measure columns are
  typed by the measures registry itself (:mod:`reeval.measures`): counts (``num_ret``,
  ``num_rel``, ``num_rel_ret``, ``num_q``) ``int64``, every other measure ``float64``.
- Positions and depths are ``int32`` (``pos``, ``n_ret``, ``i_star``), as ingest builds
  them; preferences are ``int8`` (``sgnLP``).

Byte reproducibility: Parquet files carry no pandas metadata and no timestamp, so the
same table written twice gives the same bytes.

Temporary files: ``write`` goes to ``.<name>.tmp`` beside ``<name>``. A job killed while
writing (``kill -9``, out of memory, a SLURM time limit) leaves that file behind; the
next write of the same output (the job's rerun) removes it first, and also the
``.<name>.XXXXXXXX.tmp`` files that earlier versions (``tempfile.mkstemp``) left. A
Snakemake job owns its output paths, so no other job writes these names.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .atomic import atomic_write
from .trecio import LineCounts

if TYPE_CHECKING:
    import pandas as pd

STRING, FLOAT, INT, INT32, INT8, BOOL = pa.string(), pa.float64(), pa.int64(), pa.int32(), pa.int8(), pa.bool_()

_NAMES = {
    STRING: """track run qid docno tag run_i run_j measure alpha comparison old new group baseline
        test system bucket best_run median_run max_delta_sort_run kind file source reason url path
        md5 expected_md5 md5_match sha256 outcome error use paper_collection analysis note first_tag
        procedure benchmark table column fuzziness_scale retrieved_by
        study item row published reproduced method status max_drop_run groups_from""",
    FLOAT: """score value asl precision rrLP coefficient r2 probability ecdf rel_per_request
        docs_per_request rel_retrieved_per_ranking rel_retrieved_sd_per_ranking sgnLP_suffix_agree dRR2_agree
        sgnLP_suffix_ties
        dRR2_ties system_rrLP_agree system_sgnLP_agree LP_ties RR_ties LP_ties_mean LP_ties_std
        RR_ties_mean RR_ties_std fraction_removed percent_significant mean_dRR1 mean_rrLP mean_sgnLP
        p_RR p_rrLP p_sgnLP p_RR_adjusted p_rrLP_adjusted p_sgnLP_adjusted rarity rarity_norm
        tau tau_ap stability tied_share mean_tau sd_tau best_real old_value new_value delta_sort
        value_ratio max_delta_sort kendall_tau kendall_tau_left_out delta_value target_sl share baseline_value rrie
        paper ours paper_share_of_pairs ours_share_of_pairs percent_low percent_high ours_low ours_high
        fuzziness stability_low stability_high stability_100 ours_value score_logo delta max_drop mean_drop
        agreement lp_agreement""",
    INT: """rel rel_above m found level pair_topics ties tied rankings count i j n p1 sample wins
        losses topics n_pair_topics system_n_run_pairs n_run_pairs n_significant requests runs
        relevance_level k c_k n_systems docs rank pairs significant_95 significant_99 trials
        valid_trials sampled_topics n0 n1 n_docs n_closest n_runs n_topics n_tracks n_tags
        asl_num_q asl_unretrieved_docs asl_unanswered_topics qrels_topics judgments relevant
        lines_kept year runs_listed runs_fetched runs_parsed runs_ingested runs_paper runs_ours
        bytes attempts unjudged_topics tied_topics runs_included runs_excluded n_significant_low n_significant_high
        resamples seeds grade rank_logo removed removed_relevant pool_depth places rank_changes_inserted groups
        at_risk sampled disagree_sampled lp_at_risk lp_sampled""",
    INT32: "pos n_ret i_star",
    INT8: "sgnLP sgnLP_suffix",
    BOOL: "answered asl_unanswered_topic retrieved included hsd_RR hsd_rrLP hsd_sgnLP match judged_beyond_depth",
}

#: The registry: column name -> Arrow type, for every column of every table the project
#: writes. Columns named by a pattern (measures, dRR_i, ...) are in :data:`COLUMN_PATTERNS`.
COLUMN_TYPES: dict[str, pa.DataType] = {name: typ for typ, names in _NAMES.items() for name in names.split()}
COLUMN_TYPES["positions"] = pa.list_(INT32)
for _f in dataclasses.fields(LineCounts):  # the ingest report's line counts, and tracks.csv's drops
    if isinstance(_f.default, int):  # not the run's tag
        COLUMN_TYPES[_f.name] = INT
        COLUMN_TYPES[f"dropped_{_f.name}"] = INT
COLUMN_TYPES.update({"removal": STRING, "samples": INT})  # lexiprecision figure 8 (analyses.lexiprecision.incomplete)
COLUMN_TYPES.update({k: STRING for k in ("item", "row", "published", "method", "status")})  # analyses.asl.paper rows
COLUMN_TYPES.update({k: STRING for k in ("block", "official", "cause", "setting", "causes")})  # the audit of
COLUMN_TYPES.update({"ours_under_cause": FLOAT, "mismatched": BOOL})  # official figures (workflow.audit_step)
COLUMN_TYPES.update({"reproduced_by": STRING, "nearest": STRING, "difference": FLOAT, "settings_tried": INT})
COLUMN_TYPES.update({k: INT for k in ("figures", "equal", "explained", "unexplained", "not_compared")})
for _stat in ("delta_sort", "kendall_tau", "delta_value"):  # table 2: reeval.analyses.asl.study.mean_std_range
    COLUMN_TYPES.update({f"{_stat}_{k}": FLOAT for k in ("mean", "std", "low", "high", "median")})
    COLUMN_TYPES[f"{_stat}_n"] = INT
# table 2's DeltaValue as ratios: reeval.analyses.asl.study.geometric_range
COLUMN_TYPES.update({f"delta_value_{k}": FLOAT for k in ("gmean", "glow", "ghigh")} | {"delta_value_gn": INT})
# the papers' comparisons: the setting ours used and the other choice (a level the paper does not state,
# another correction) with ours under it (analyses.lexiprecision.report, .paper; analyses.papers.cells)
COLUMN_TYPES.update({k: STRING for k in ("setting", "other_setting", "other_value", "needs", "to_add")})
COLUMN_TYPES.update({k: FLOAT for k in ("other_ours", "other_relevance_level", "other_sgnLP_suffix_agree",
                                        "other_dRR2_agree", "other_LP_ties", "other_RR_ties", "other_requests",
                                        "other_runs", "other_rel_per_request", "other_docs_per_request")})

#: Columns named after a measure (``M`` below: a name of the measures registry):
#: (pattern, type); a pattern with a group applies only when the group is a measure name.
COLUMN_PATTERNS = (
    (re.compile(r"(?:ranking|system)_(?:dRR1|rrLP|sgnLP)(?:_mean|_std)?"), FLOAT),  # lexiprecision figure 8: agreement (%)
    (re.compile(r"dRR_\d+"), FLOAT),          # lexiprecision: reciprocal-rank difference at level i
    (re.compile(r"best_(.+)_run"), STRING),   # tracks.csv: the run with the best M
    (re.compile(r"best_(.+)"), FLOAT),        # tracks.csv: the best M
    (re.compile(r"(.+)_run"), STRING),        # study headroom: the run with the best M
    (re.compile(r"(.+)_depth"), FLOAT),       # study headroom: that run's documents per topic
)


class UnknownColumnError(KeyError):
    """A column that :data:`COLUMN_TYPES` does not type."""


def measure_type(name: str) -> pa.DataType | None:
    """Arrow type of a measure column (``map``, ``P_20``, ``num_ret`` ...), None if ``name``
    is not exactly one measure's name: counts (``sum``/``count`` aggregates) are int64,
    text (relstring) strings, every other measure float64."""
    from reeval.measures import known_measures  # measures imports ingest, which imports this module

    try:
        found = known_measures(name)
    except ValueError:  # a family's name with parameters it refuses
        return None
    if found is None or len(found) != 1 or found[0].name != name:
        return None
    if found[0].is_text:
        return STRING
    return INT if found[0].aggregate in ("sum", "count") else FLOAT


def column_type(name: str) -> pa.DataType:
    """The registry's type of a column: exact names, then measures, then the patterns.

    Raises UnknownColumnError for a column no rule types.
    """
    if name in COLUMN_TYPES:
        return COLUMN_TYPES[name]
    typ = measure_type(name)
    if typ is not None:
        return typ
    for pattern, typ in COLUMN_PATTERNS:
        m = pattern.fullmatch(name)
        if m and (not m.groups() or measure_type(m.group(1)) is not None):
            return typ
    raise UnknownColumnError(f"column {name!r} has no type in reeval.io.tables.COLUMN_TYPES: "
                             "add it there (one type per column name across all tables)")


def table_schema(columns) -> pa.Schema:
    """Arrow schema of a table with these columns, in this order, typed by the registry.

    Raises UnknownColumnError naming every column the registry does not type, and
    ValueError for a repeated column.
    """
    columns = list(columns)
    if len(set(columns)) != len(columns):
        raise ValueError(f"repeated columns in {columns}")
    unknown = []
    fields = []
    for name in columns:
        try:
            fields.append(pa.field(name, column_type(name)))
        except UnknownColumnError:
            unknown.append(name)
    if unknown:
        raise UnknownColumnError(f"columns {unknown} have no type in reeval.io.tables.COLUMN_TYPES: "
                                 "add them there (one type per column name across all tables)")
    return pa.schema(fields)


def _is_text(typ: pa.DataType) -> bool:
    if pa.types.is_dictionary(typ):
        typ = typ.value_type
    return pa.types.is_string(typ) or pa.types.is_large_string(typ)


def conform_column(values, typ: pa.DataType, name: str = "") -> pa.ChunkedArray | pa.Array:
    """``values`` (an Arrow array, or anything pandas holds) as Arrow type ``typ``.

    Missing values (None, NaN, NA) become nulls; numbers are cast safely (an integer
    column accepts integral floats, not 1.5); strings are never made from numbers or
    numbers from strings (TypeError), unless every value is missing.
    """
    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        import pandas as pd

        series = pd.Series(values) if not isinstance(values, pd.Series) else values
        if series.isna().all():
            return pa.nulls(len(series), typ)
        values = pa.array(series, from_pandas=True)
    if values.type == typ:
        return values
    if values.null_count != len(values) and _is_text(values.type) != _is_text(typ):
        raise TypeError(f"column {name!r}: {values.type} values cannot be written as {typ}")
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    return values.cast(typ, safe=True)


def conform(data, columns=None) -> pa.Table:
    """A DataFrame or Arrow table as an Arrow table typed by the registry (no metadata).

    ``columns``: the table's declared columns; the data must have exactly these
    (ValueError naming the missing and the extra ones otherwise), and they are written
    in this order, so a table keeps its columns, in one order, also when it has no row.
    The index of a DataFrame is not written.
    """
    names = list(data.column_names if isinstance(data, pa.Table) else data.columns)
    if columns is not None:
        columns = list(columns)
        missing, extra = [c for c in columns if c not in names], [c for c in names if c not in columns]
        if missing or extra:
            raise ValueError(f"table columns differ from the declared {columns}: missing {missing}, "
                             f"not declared {extra}")
        data, names = data.select(columns) if isinstance(data, pa.Table) else data[columns], columns
    schema = table_schema(names)
    if isinstance(data, pa.Table):
        arrays = [conform_column(data.column(i), f.type, f.name) for i, f in enumerate(schema)]
    else:
        arrays = [conform_column(data.iloc[:, i], f.type, f.name) for i, f in enumerate(schema)]
    return pa.Table.from_arrays(arrays, schema=schema)


def _write_parquet(table: pa.Table, path: str) -> None:
    pq.write_table(table, path, compression="zstd")


#: A CSV is written this many rows at a time (a table of millions of run pairs is not held twice).
CSV_BATCH_ROWS = 1 << 18


def csv_texts(column) -> list:
    """The fields of an Arrow column in a CSV, as pandas' ``to_csv`` wrote them (its
    ``get_values_for_csv``): a float as numpy's ``astype(str)`` (the shortest repr:
    ``0.1``, ``1e-05``, ``inf``), NaN and null as an empty field; an integer as its digits
    (``35000``, not ``35000.0``); a boolean ``True``/``False``; a string as it is. A list
    (``positions``) as pandas printed its numpy array (``[1 2 3]``).

    A float64 is formatted by Python's ``float.__repr__``: the same shortest round-trip
    text as numpy's ``str`` of a float64, at half its cost (tests/io/test_csv_writer.py
    compares the two on random and edge values); other float widths keep numpy's. A
    dictionary-encoded column is decoded first (Arrow's cast: its ``to_pylist`` is 30 times
    slower)."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    typ = column.type
    if pa.types.is_float64(typ):
        values = column.to_numpy(zero_copy_only=False)  # a null becomes NaN
        texts = list(map(float.__repr__, values.tolist()))
        if np.isnan(values).any():
            texts = ["" if text == "nan" else text for text in texts]
        return texts
    if pa.types.is_floating(typ):
        values = column.to_numpy(zero_copy_only=False)
        texts = values.astype(str)
        texts[np.isnan(values)] = ""
        return texts.tolist()
    if pa.types.is_list(typ):
        return ["" if v is None else str(np.array(v)) for v in column.to_pylist()]
    if column.null_count == 0:
        values = column.to_pylist()
        return values if _is_text(typ) else list(map(str, values))
    return ["" if v is None else str(v) for v in column.to_pylist()]


def _write_csv(table: pa.Table, path: str) -> None:
    """Write ``table`` as CSV: a header, one line per row ending in ``\\n``, fields by
    :func:`csv_texts`, quoted by the csv module as pandas quotes them (``QUOTE_MINIMAL``:
    a field holding a comma, a quote or a line break is quoted, its quotes doubled; an
    empty string alone on its line is ``""``). No pandas: the bytes pandas' ``to_csv``
    wrote (tests/io/test_tables.py compares them)."""
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(table.column_names)
        for start in range(0, table.num_rows, CSV_BATCH_ROWS):
            batch = table.slice(start, CSV_BATCH_ROWS)
            writer.writerows(zip(*(csv_texts(c) for c in batch.columns)))


_TABLE_FORMATS = {".parquet": _write_parquet, ".csv": _write_csv}


def write_table(data, *paths, columns=None) -> pa.Table:
    """Write a table (DataFrame or Arrow table) to each path, typed by the registry.

    The format follows the suffix: ``.parquet`` (zstd) or ``.csv``; each file is written
    atomically. ``columns`` as for :func:`conform`. Returns the Arrow table written, so
    a caller can hand on exactly what the files hold.
    """
    writers = []
    for path in paths:
        suffix = Path(path).suffix
        if suffix not in _TABLE_FORMATS:
            raise ValueError(f"{path}: a table is written as {sorted(_TABLE_FORMATS)}, not {suffix!r}")
        writers.append((path, _TABLE_FORMATS[suffix]))
    table = conform(data, columns)
    for path, write in writers:
        atomic_write(path, lambda tmp, write=write: write(table, tmp))
    return table


def write_table_parts(parts, schema: pa.Schema, path, dictionary=None, statistics=None) -> None:
    """Write the Arrow tables or DataFrames ``parts`` (an iterable, each of ``schema``, typed by the
    registry) one under the other as one Parquet file (zstd), atomically, holding one part
    in memory at a time; the file reads back as :func:`write_table` of their concatenation
    (its row groups end where a part ends).

    ``dictionary``: the columns written with a dictionary page (None: every column, pyarrow's
    default). A column whose values rarely repeat (a run's docnos) costs a dictionary built
    and given up after 1 MB in every row group: leaving it out writes the same values
    (the same Arrow types when read) in less time and fewer bytes. With ``dictionary``
    given, a part may hold such a string column dictionary-encoded (Arrow's
    ``DictionaryArray``, as ingest builds run, qid and tag): its dictionary page is then
    written from the Arrow dictionary as it is, instead of hashing every value again, and
    the file stores no Arrow schema of its own (pyarrow's ``ARROW:schema``), so that it
    reads back with the Parquet types, which are the registry's plain ones.

    ``statistics``: the columns whose min and max are written per row group (None: every
    column); they serve readers that filter, never a value read."""
    use = True if dictionary is None else list(dictionary)
    written = schema if dictionary is None else _encoded(schema, dictionary)
    stats = True if statistics is None else list(statistics)

    def write(tmp):
        with pq.ParquetWriter(tmp, written, compression="zstd", use_dictionary=use, write_statistics=stats,
                              store_schema=dictionary is None) as writer:
            for part in parts:
                writer.write_table(conform(part, schema.names) if dictionary is None
                                   else _conform_encoded(part, written))

    atomic_write(path, write)


def _encoded(schema: pa.Schema, columns) -> pa.Schema:
    """``schema`` with its string ``columns`` as ``dictionary<int32, string>``."""
    return pa.schema([pa.field(f.name, pa.dictionary(pa.int32(), f.type), f.nullable)
                      if f.name in columns and pa.types.is_string(f.type) else f for f in schema])


def _conform_encoded(part: pa.Table, written: pa.Schema) -> pa.Table:
    """:func:`conform` of ``part`` to ``written``, whose dictionary columns are kept (or
    made) dictionary-encoded rather than decoded; a DataFrame is conformed first."""
    if not isinstance(part, pa.Table) or set(part.column_names) != set(written.names):
        part = conform(part, written.names)  # the ValueError that names the columns, if they differ
    arrays = []
    for f in written:
        values = part.column(f.name)
        if pa.types.is_dictionary(f.type):
            if not pa.types.is_dictionary(values.type):
                values = pc.dictionary_encode(conform_column(values, f.type.value_type, f.name))
            values = values.cast(f.type)
        else:
            values = conform_column(values, f.type, f.name)
        arrays.append(values)
    return pa.Table.from_arrays(arrays, schema=written)


def write_table_pair(data, out_dir, name: str, columns=None) -> pa.Table:
    """:func:`write_table` to ``<out_dir>/<name>.parquet`` and ``<out_dir>/<name>.csv``
    (the pair most report tables are written as). Returns the Arrow table written."""
    out = Path(out_dir)
    return write_table(data, out / f"{name}.parquet", out / f"{name}.csv", columns=columns)


def read_stacked(paths, columns) -> pd.DataFrame:
    """The Parquet tables at ``paths`` one under the other (a cross-track table from
    per-track ones); with no path, an empty table with ``columns``."""
    import pandas as pd

    frames = [pd.read_parquet(p) for p in paths]
    if not frames:
        return pd.DataFrame(columns=list(columns))
    return pd.concat(frames, ignore_index=True)


def write_text(text: str, path) -> None:
    """Write ``text`` (markdown, JSON) as UTF-8 with newlines as given, atomically."""
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(text.encode("utf-8")))
