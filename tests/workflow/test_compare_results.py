"""benchmarks/compare_results.py: two results folders compared table by table (the check that a
speed change left every table as it was, issue 41 item 4)."""

from __future__ import annotations


import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import load_file_module


@pytest.fixture(scope="module")
def cr():
    return load_file_module("benchmarks/compare_results.py", register=True)


def results(folder, score=0.5, compression="zstd", log="took 3.1 s"):
    """A small results folder: a Parquet table, a CSV naming a file below the folder, a log."""
    (folder / "tracks" / "t").mkdir(parents=True)
    (folder / "logs").mkdir()
    table = pa.table({"run": ["a", "b"], "value": [score, float("nan")],
                      "file": [f"{folder}/synthetic/t/runs/a.gz", "x"]})
    pq.write_table(table, folder / "tracks" / "t" / "by_run.parquet", compression=compression)
    (folder / "tracks" / "t" / "report.csv").write_text(f"file,lines\n{folder}/synthetic/t/qrels.txt,3\n")
    (folder / "logs" / "ingest.csv").write_text(log)
    return folder


def test_folders_of_equal_tables_compare_equal_also_when_they_name_their_own_paths(cr, tmp_path):
    before, after = results(tmp_path / "before"), results(tmp_path / "after", compression="gzip", log="took 9 s")
    statuses = cr.compare_folders(before, after)
    assert set(statuses.values()) <= {"identical", "same values"}
    assert len(statuses) == 2  # the log folder is no table
    assert cr.main([str(before), str(after)]) == 0


def test_a_changed_value_and_a_table_only_on_one_side_are_reported(cr, tmp_path, capsys):
    before, after = results(tmp_path / "before"), results(tmp_path / "after", score=0.25)
    (after / "tracks" / "t" / "new.csv").write_text("a\n1\n")
    assert cr.main([str(before), str(after)]) == 1
    out = capsys.readouterr().out
    assert "differs: tracks/t/by_run.parquet" in out
    assert "only in AFTER: tracks/t/new.csv" in out
    assert "3 tables: 1 differs, 1 identical, 1 only in AFTER" in out


def test_tables_that_differ_only_in_the_columns_excepted_are_said_so_and_others_still_differ(cr, tmp_path, capsys):
    before, after = results(tmp_path / "before"), results(tmp_path / "after")
    for folder, sha, kept in ((before, "aa", 5), (after, "bb", 5)):
        (folder / "tracks" / "t" / "ingest_report.csv").write_text(
            f"file,bytes,sha256,kept\n{folder}/synthetic/t/runs/a.gz,{len(sha) * 100 + ord(sha[0])},{sha},{kept}\n")
    assert cr.main([str(before), str(after)]) == 1
    assert "differs: tracks/t/ingest_report.csv" in capsys.readouterr().out
    assert cr.main([str(before), str(after), "--except-columns", "bytes", "sha256"]) == 0
    assert "same but bytes, sha256: tracks/t/ingest_report.csv" in capsys.readouterr().out
    (after / "tracks" / "t" / "ingest_report.csv").write_text(
        f"file,bytes,sha256,kept\n{after}/synthetic/t/runs/a.gz,298,bb,4\n")
    assert cr.main([str(before), str(after), "--except-columns", "bytes", "sha256"]) == 1
    assert "differs: tracks/t/ingest_report.csv" in capsys.readouterr().out
