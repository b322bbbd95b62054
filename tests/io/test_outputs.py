"""Writing outputs (reeval.io.tables): atomic writes and their stale temporaries, the column
registry and the one table writer, the one figure saver, byte-reproducible files."""

import dataclasses
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import write_lines
from reeval.io.ingest import TRACK_FILES, ingest_track, write_track

# reeval.io.tables is imported inside the tests, so that the tests of behaviour the previous
# writers also had (stale temporaries, figure dates) run, and fail, on them as well


@pytest.fixture
def small_track(tmp_path):
    q = write_lines(tmp_path / "qrels", ["1 0 A 1", "1 0 B 0", "2 0 C 1"])
    r = write_lines(tmp_path / "r1", ["1 Q0 A 1 2 x", "1 Q0 B 2 1 x", "2 Q0 C 1 1 x"])
    return ingest_track("t", q, [r])


def temporaries(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# ------------------------------------------------------------------ stale temporaries (kill -9)

def test_rerun_of_a_killed_write_removes_its_stale_temporaries(small_track, tmp_path):
    """A job killed while writing leaves hidden empty temporaries; writing the same
    outputs again (the rerun) removes them, whichever name scheme left them."""
    out = tmp_path / "out"
    out.mkdir()
    for name in TRACK_FILES:  # as kill -9 leaves them: mkstemp's random names and the fixed one
        (out / f".{name}.k3x_9abz.tmp").touch()
        (out / f".{name}.tmp").touch()
    (out / ".other.parquet.tmp").touch()  # another output's temporary: not this job's
    write_track(small_track, out)
    assert temporaries(out) == [".other.parquet.tmp"]
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(TRACK_FILES)


def test_stale_temporaries_are_those_of_the_output_only(tmp_path):
    from reeval.io.atomic import stale_temporaries

    for name in (".x.csv.tmp", ".x.csv.abcdefgh.tmp", ".x.csv.abc.tmp", ".x.csv.old.tmp", ".y.csv.tmp",
                 "x.csv.tmp", ".x.csv.abcdefgh.tmp.bak"):
        (tmp_path / name).touch()
    assert [p.name for p in stale_temporaries(tmp_path / "x.csv")] == [".x.csv.abcdefgh.tmp", ".x.csv.tmp"]
    assert stale_temporaries(tmp_path / "missing" / "x.csv") == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    from reeval.io.tables import atomic_write, write_text

    target = tmp_path / "summary.md"
    write_text("old\n", target)

    def fail(tmp):
        with open(tmp, "w") as fh:
            fh.write("partial")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        atomic_write(target, fail)
    assert target.read_text() == "old\n" and temporaries(tmp_path) == []


def test_written_files_have_ordinary_permissions(tmp_path):
    from reeval.io.tables import write_table

    write_table(pd.DataFrame({"track": ["t"]}), tmp_path / "x.csv")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "x.csv").stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["x.csv"]  # no temporary file left


# ------------------------------------------------------------------ the column registry

def test_a_column_the_registry_does_not_know_is_an_error(tmp_path):
    from reeval.io.tables import UnknownColumnError, write_table

    with pytest.raises(UnknownColumnError, match="nonsense"):
        write_table(pd.DataFrame({"run": ["a"], "nonsense": [1]}), tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


def test_measure_columns_are_typed_by_the_measures_registry():
    from reeval.io.tables import UnknownColumnError, column_type

    assert column_type("map") == pa.float64() and column_type("P_20") == pa.float64()
    assert column_type("ASL@g1-10") == pa.float64() and column_type("iprec_at_recall_0.10") == pa.float64()
    for count in ("num_ret", "num_rel", "num_rel_ret", "num_q"):
        assert column_type(count) == pa.int64()
    assert column_type("dRR_17") == pa.float64()
    assert column_type("best_ASL@g1-10_run") == pa.string() and column_type("best_map") == pa.float64()
    assert column_type("P_20_depth") == pa.float64() and column_type("map_run") == pa.string()
    for name in ("P", "rr", "best_nonsense", "nonsense_run", "dRR_x"):  # not exactly one measure's name
        with pytest.raises(UnknownColumnError):
            column_type(name)


def test_every_declared_table_is_typed_by_the_registry():
    """The column lists the writers declare (and the fetch report's fields) are all typed,
    with plain strings for keys and integers for counts."""
    from reeval.analyses.lexiprecision import report as lexiprecision_report
    from reeval.analyses.rareness import report as rareness_report
    from reeval.analyses.asl import study as study
    from reeval.analyses.asl import views as views
    from reeval.analyses.asl import techniques as techniques
    from reeval.archive.fetch import FileResult
    from reeval.archive.inclusion import INCLUSION_COLUMNS
    from reeval.io.tables import COLUMN_TYPES, table_schema
    from reeval.workflow.measures_step import TRACK_SUMMARY_COLUMNS, run_table_columns

    declared = [INCLUSION_COLUMNS, TRACK_SUMMARY_COLUMNS, [f.name for f in dataclasses.fields(FileResult)] + ["use"],
                run_table_columns(["all_trec", "ASL", "ASL@g1-10"]), study.HEADROOM_COLUMNS,
                study.REORDERING_COLUMNS, study.REORDERING_BY_RUN_COLUMNS, views.MAP_SHARE_COLUMNS,
                techniques.TECHNIQUE_COLUMNS, *lexiprecision_report.TABLE_COLUMNS.values(),
                *rareness_report.TABLE_COLUMNS.values()]
    for columns in declared:
        table_schema(columns)
    for key in ("track", "run", "qid", "docno", "run_i", "run_j", "tag"):
        assert COLUMN_TYPES[key] == pa.string()
    assert table_schema(["num_ret", "n_topics", "runs_ingested", "pos"]).types == [pa.int64()] * 3 + [pa.int32()]


def test_empty_tables_keep_their_types(tmp_path):
    from reeval.io.tables import write_table

    columns = ["track", "run", "qid", "num_ret", "map", "answered", "positions"]
    write_table(pd.DataFrame(columns=columns), tmp_path / "e.parquet", tmp_path / "e.csv")
    schema = pq.read_schema(tmp_path / "e.parquet")
    assert schema.names == columns
    assert schema.types == [pa.string()] * 3 + [pa.int64(), pa.float64(), pa.bool_(), pa.list_(pa.int32())]
    assert (tmp_path / "e.csv").read_text() == ",".join(columns) + "\n"


def test_counts_are_integers_in_csv_and_parquet_also_when_one_is_missing(tmp_path):
    from reeval.io.tables import write_table

    df = pd.DataFrame({"run": ["a", "b"], "num_ret": [35000.0, 2.0], "n_topics": [np.nan, 50.0],
                       "map": [0.25, np.nan]})
    table = write_table(df, tmp_path / "c.parquet", tmp_path / "c.csv")
    assert (tmp_path / "c.csv").read_text() == "run,num_ret,n_topics,map\na,35000,,0.25\nb,2,50,\n"
    assert pq.read_table(tmp_path / "c.parquet").equals(table)
    assert table["n_topics"].to_pylist() == [None, 50] and table.schema.field("num_ret").type == pa.int64()


def test_the_writer_refuses_to_lose_information(tmp_path):
    from reeval.io.tables import write_table

    with pytest.raises(pa.ArrowInvalid):  # a count that is not an integer
        write_table(pd.DataFrame({"num_ret": [1.5]}), tmp_path / "x.parquet")
    with pytest.raises(TypeError):  # a number in a string column
        write_table(pd.DataFrame({"run": [1.0]}), tmp_path / "x.parquet")
    with pytest.raises(ValueError, match="missing \\['qid'\\]"):
        write_table(pd.DataFrame({"run": ["a"]}), tmp_path / "x.parquet", columns=["run", "qid"])
    assert not (tmp_path / "x.parquet").exists()


def test_declared_columns_fix_the_order_and_dictionary_columns_are_decoded(tmp_path):
    from reeval.io.tables import write_table

    data = pa.table({"qid": pa.array(["1", "2"]).dictionary_encode(), "run": pa.array(["a", "a"], pa.large_string())})
    table = write_table(data, tmp_path / "x.parquet", columns=["run", "qid"])
    assert table.schema == pa.schema([("run", pa.string()), ("qid", pa.string())])
    assert table.to_pydict() == {"run": ["a", "a"], "qid": ["1", "2"]}


# ------------------------------------------------------------------ byte-reproducible files

def test_the_same_table_written_twice_is_byte_identical(tmp_path):
    from reeval.io.tables import write_table

    df = pd.DataFrame({"run": ["b", "a"], "qid": ["1", "2"], "map": [0.5, 1 / 3], "num_ret": [10, 3]})
    for name in ("first", "second"):
        write_table(df, tmp_path / f"{name}.parquet", tmp_path / f"{name}.csv")
    for ext in ("parquet", "csv"):
        assert (tmp_path / f"first.{ext}").read_bytes() == (tmp_path / f"second.{ext}").read_bytes()
    assert pq.read_metadata(tmp_path / "first.parquet").metadata.keys() == {b"ARROW:schema"}  # no pandas metadata


def test_the_same_figure_saved_at_different_dates_is_byte_identical(tmp_path, monkeypatch):
    """matplotlib dates a PDF from SOURCE_DATE_EPOCH (else the clock): the study's bar
    histogram (PNG and PDF) gives the same bytes at two dates."""
    from reeval.analyses.asl.figures import bar_histogram

    for day, name in ((0, "first"), (86400 * 365, "second")):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", str(day))
        bar_histogram(["1", "2-9", ">=10"], [3, 0, 5], "title", "x", "y", tmp_path / name)
    for ext in ("png", "pdf"):
        assert (tmp_path / f"first.{ext}").read_bytes() == (tmp_path / f"second.{ext}").read_bytes(), ext


def test_save_figure_writes_each_format_reproducibly_and_closes_the_figure(tmp_path, monkeypatch):
    from reeval.report.figures import pyplot, save_figure

    plt = pyplot()
    for day, name in ((0, "first"), (10 ** 9, "second")):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", str(day))
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3], [3, 1, 2], label="a run")
        ax.legend()
        save_figure(fig, *(tmp_path / f"{name}.{ext}" for ext in ("png", "pdf", "svg")))
        assert not plt.fignum_exists(fig.number)
    for ext in ("png", "pdf", "svg"):
        assert (tmp_path / f"first.{ext}").read_bytes() == (tmp_path / f"second.{ext}").read_bytes(), ext
    assert (tmp_path / "first.pdf").read_bytes()[:5] == b"%PDF-" and b"<svg" in (tmp_path / "first.svg").read_bytes()
    with pytest.raises(ValueError, match="jpg"):
        save_figure(plt.figure(), tmp_path / "x.jpg")


def test_a_csv_written_in_batches_has_the_bytes_of_one_pass(tmp_path, monkeypatch):
    from reeval.io import tables

    df = pd.DataFrame({"run_i": ['a,"b', "c", None, "e", "f"], "p_RR": [0.1, np.nan, 1 / 3, 2.0, 5e-300],
                       "wins": pd.array([1, None, 3, 4, 5], dtype="Int64"), "hsd_RR": [True, False, True, False, True]})
    tables.write_table(df, tmp_path / "one.csv")
    monkeypatch.setattr(tables, "CSV_BATCH_ROWS", 2)
    tables.write_table(df, tmp_path / "batched.csv")
    tables.write_table(df.iloc[:0], tmp_path / "empty.csv")
    assert (tmp_path / "batched.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert (tmp_path / "empty.csv").read_text() == "run_i,p_RR,wins,hsd_RR\n"


def test_a_column_that_names_no_measure_is_typed_without_a_did_you_mean(monkeypatch):
    """Writing a table asks the measures registry about every column not typed by name: a
    column such as ``run`` or ``best_nonsense`` is told apart without the error path's
    nearest-name search, and gets the same type (or the same error) as before."""
    from reeval.io.tables import UnknownColumnError, column_type
    from reeval.measures import registry

    def no_suggestion(spec):
        raise AssertionError(f"a suggestion computed for {spec!r}")

    monkeypatch.setattr(registry, "suggestion", no_suggestion)
    assert column_type("run") == pa.string() and column_type("qid") == pa.string()
    assert column_type("map_run") == pa.string() and column_type("P_20_depth") == pa.float64()
    for name in ("best_nonsense", "nonsense_run", "P_x"):
        with pytest.raises(UnknownColumnError):
            column_type(name)
