"""The CSV writer of reeval.io.tables writes, without pandas, the bytes pandas' ``to_csv``
wrote for the same Arrow table (the path it replaced, kept here as the oracle)."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from reeval.io import tables

#: the pandas path the writer replaced: integers and booleans as pandas' nullable types
PANDAS_TYPES = {tables.INT: pd.Int64Dtype(), tables.INT32: pd.Int32Dtype(), tables.INT8: pd.Int8Dtype(),
                tables.BOOL: pd.BooleanDtype()}

HOSTILE = ["plain", "comma,inside", 'quote"inside', '"quoted"', "line\nbreak", "carriage\rreturn", "crlf\r\n",
           "", None, " leading and trailing ", "tab\there", "bell\x07esc\x1b[31m", "bidi\u202eevil\u202c",
           "nul-free \u0085nel", "unicode é 漢字 🙂", "NA", "nan", "null", "1.0", "-", "'single'", "\\back\\slash",
           "semi;colon", "#comment", "=1+1"]
FLOATS = [0.1, np.nan, 1 / 3, 2.0, 5e-300, -0.0, np.inf, -np.inf, 1e16, 1e-5, 123456789.125, 0.30000000000000004,
          1e308, 4.9e-324, -2.5, 0.0, 1e15, 9999999999999998.0, 0.0001, 0.00001234, 1.0, 7e22, 100.0, np.nan, 0.5]


def pandas_csv(table: pa.Table, path) -> bytes:
    """The bytes of the pandas path for ``table``."""
    with open(path, "w", newline="", encoding="utf-8") as out:
        table.to_pandas(types_mapper=PANDAS_TYPES.get).to_csv(out, index=False)
    return path.read_bytes()


def hostile_table(n: int) -> pa.Table:
    rng = np.random.default_rng(7)
    pick = rng.integers(0, len(HOSTILE), n)
    floats = np.concatenate([FLOATS, rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)])[:n]
    ints = [None if i % 7 == 3 else int(v) for i, v in enumerate(rng.integers(-2**62, 2**62, n))]
    return pa.table({"run": pa.array([HOSTILE[i] for i in pick], pa.string()),
                     "map": pa.array(floats, pa.float64()),
                     "ours_under_cause": pa.array([None if i % 5 == 1 else x for i, x in enumerate(floats)],
                                                  pa.float64()),
                     "num_ret": pa.array(ints, pa.int64()),
                     "pos": pa.array([None if i % 4 == 2 else i for i in range(n)], pa.int32()),
                     "sgnLP": pa.array([(i % 3) - 1 for i in range(n)], pa.int8()),
                     "included": pa.array([None if i % 6 == 5 else i % 2 == 0 for i in range(n)], pa.bool_())})


@pytest.mark.parametrize("rows", [0, 1, 25, 400])
def test_hostile_values_are_written_as_pandas_wrote_them(tmp_path, rows):
    table = hostile_table(rows) if rows else hostile_table(5).slice(0, 0)
    tables.write_table(table, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_bytes() == pandas_csv(table, tmp_path / "oracle.csv")


@pytest.mark.parametrize("value", ["", None, "a,b", 'say "hi"', "two\nlines", "\r", "\u202e"])
def test_a_one_column_table_quotes_as_pandas_did(tmp_path, value):
    """A line of one empty field is written ``""`` (else it would read as a blank line)."""
    table = pa.table({"run": pa.array([value, "x"], pa.string())})
    tables.write_table(table, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_bytes() == pandas_csv(table, tmp_path / "oracle.csv")


def test_the_fields_of_each_type():
    assert tables.csv_texts(pa.array([0.1, None, float("nan"), float("inf"), -0.0, 1e-05, 1e16])) == \
        ["0.1", "", "", "inf", "-0.0", "1e-05", "1e+16"]
    assert tables.csv_texts(pa.array([35000, None], pa.int64())) == ["35000", ""]
    assert tables.csv_texts(pa.array([True, None, False])) == ["True", "", "False"]
    assert tables.csv_texts(pa.array(["", None, "a"])) == ["", "", "a"]


def test_a_list_column_is_written_as_pandas_wrote_it(tmp_path):
    table = pa.table({"run": ["a", "b", "c"],
                      "positions": pa.array([[1, 2, 3], None, []], pa.list_(pa.int32()))})
    tables.write_table(table, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_bytes() == pandas_csv(table, tmp_path / "oracle.csv")


def test_a_float64_is_written_as_numpy_wrote_it_and_a_float32_too():
    """Python's repr of a float64 (the writer's fast path) is numpy's ``str`` (the pandas
    path) on every value; a float32 keeps numpy's own shortest text (``0.1``, not the
    float64 expansion of its bits)."""
    rng = np.random.default_rng(11)
    values = np.concatenate([FLOATS, rng.standard_normal(200_000) * 10.0 ** rng.integers(-320, 308, 200_000),
                             rng.integers(-10**6, 10**6, 50_000) / 2 ** rng.integers(0, 12, 50_000),
                             np.frombuffer(rng.bytes(8 * 50_000), np.float64)])
    want = values.astype(str)
    want[np.isnan(values)] = ""
    assert tables.csv_texts(pa.array(values, pa.float64())) == want.tolist()
    small = np.array([0.1, 1 / 3, np.nan, 1e-5, 3.4e38], np.float32)
    assert tables.csv_texts(pa.array(small, pa.float32())) == ["0.1", "0.33333334", "", "1e-05", "3.4e+38"]


def test_a_dictionary_column_is_written_as_its_plain_strings(tmp_path):
    """Run names held dictionary-encoded (as Parquet gives them back), in several chunks and
    with nulls: the same fields, and the same bytes as pandas wrote for the plain strings."""
    plain = pa.array([HOSTILE[i % len(HOSTILE)] for i in range(300)], pa.string())
    coded = pa.chunked_array([plain.slice(0, 100).dictionary_encode(), plain.slice(100).dictionary_encode()])
    assert tables.csv_texts(coded) == tables.csv_texts(plain)
    tables._write_csv(pa.table({"run": coded, "k": pa.array(range(300), pa.int64())}), tmp_path / "t.csv")
    oracle = pandas_csv(pa.table({"run": plain, "k": pa.array(range(300), pa.int64())}), tmp_path / "oracle.csv")
    assert (tmp_path / "t.csv").read_bytes() == oracle
