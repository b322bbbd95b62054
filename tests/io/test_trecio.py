"""Parsing every oddity of real TREC files (../shared/data/README.md) on small files."""

import bz2
import gzip

import numpy as np
import pytest

from reeval.io.trecio import InputError, TrecFormatError, parse_qrels, parse_run, run_name_from_path


def test_whitespace_column2_rank_comments_blank_and_crlf(tmp_path):
    text = ("# a comment\n"
            "1\tQ0\tD1\t0\t2.5\ttagA\r\n"
            "1  0  D2 1 1.5  tagA\n"
            "\n"
            "   \t \n"
            "  # indented comment\n"
            "2 q0 D3 7 -3e-1 tagA   \n"
            "2 Q0 D4 8 1")  # no final newline, 5 fields
    p = tmp_path / "run.txt"
    p.write_text(text)
    with pytest.raises(TrecFormatError) as err:
        parse_run(p)
    assert f"{p}:8:" in str(err.value) and "6 or more whitespace-separated fields" in str(err.value)
    table, counts = parse_run(p, on_malformed="drop")
    assert table["docno"].to_pylist() == ["D1", "D2", "D3"]
    assert table["score"].to_pylist() == [2.5, 1.5, -0.3]
    assert table["line"].to_pylist() == [2, 3, 7]
    assert (counts.lines_read, counts.kept, counts.blank, counts.comment, counts.malformed) == (8, 3, 2, 2, 1)
    assert counts.balanced()


def test_text_after_the_sixth_field_is_ignored_counted_and_noted(tmp_path, capsys):
    """trec_eval reads a run line's first six fields and ignores the rest (its quicktest's
    results.trunc has "more junk at end of lines"): so does reeval, counting and noting it."""
    import gzip

    from conftest import track_files
    from reeval.cli import main

    qrels, runs = track_files("trec2019-dl-passage")
    lines = gzip.open(runs[0], "rt").read().splitlines()
    junk = tmp_path / "junk.txt"
    junk.write_text("".join(f"{line} junk {i}\n" if i % 3 == 0 else f"{line}\n" for i, line in enumerate(lines)))
    table, counts = parse_run(junk)
    clean, _ = parse_run(runs[0])
    assert table.select(["qid", "docno", "score", "tag"]) == clean.select(["qid", "docno", "score", "tag"])
    assert counts.extra_fields == (len(lines) + 2) // 3 and counts.balanced()
    assert main(["score", "-m", "all_trec", qrels, str(junk)]) == 0
    with_junk = capsys.readouterr()
    assert main(["score", "-m", "all_trec", "--quiet", qrels, runs[0]]) == 0
    assert with_junk.out == capsys.readouterr().out
    assert f"1 file with text after the sixth field ({(len(lines) + 2) // 3} lines, read without it)" in with_junk.err
    assert main(["score", "-m", "map", "--verbose", qrels, str(junk)]) == 0  # per file with --verbose
    assert f"{(len(lines) + 2) // 3} lines with text after the sixth field, read without it" in capsys.readouterr().err


def test_bad_score_names_file_and_line(tmp_path):
    p = tmp_path / "r"
    p.write_text("1 Q0 D1 1 0.5 t\n1 Q0 D2 2 abc t\n")
    with pytest.raises(TrecFormatError, match=r":2: expected a number in the score column"):
        parse_run(p)


def test_nan_scores_are_dropped_and_infinities_kept(tmp_path):
    p = tmp_path / "r"
    p.write_text("1 Q0 D1 1 nan t\n1 Q0 D2 2 inf t\n1 Q0 D3 3 -Infinity t\n1 Q0 D4 4 1 t\n"
                 "1 Q0 D5 5 1e400 t\n1 Q0 D6 6 -1e400 t\n1 Q0 D7 7 -NaN t\n")
    table, counts = parse_run(p)
    assert table["docno"].to_pylist() == ["D2", "D3", "D4", "D5", "D6"]
    assert table["score"].to_pylist() == [np.inf, -np.inf, 1.0, np.inf, -np.inf]
    assert counts.nan_score == 2 and counts.balanced()


@pytest.mark.parametrize("opener,suffix", [(gzip.open, ".gz"), (bz2.open, ".bz2")])
def test_compressed(tmp_path, opener, suffix):
    p = tmp_path / f"input.myrun{suffix}"
    with opener(p, "wt") as fh:
        fh.write("1 Q0 D1 1 1.0 t\n")
    table, counts = parse_run(p)
    assert table.num_rows == 1 and counts.balanced()
    assert run_name_from_path(p) == "myrun"


def test_unix_compress_is_read_and_a_corrupt_one_named(tmp_path):
    ncompress = pytest.importorskip("ncompress")
    p = tmp_path / "x.Z"
    p.write_bytes(ncompress.compress(b"1 Q0 D1 1 1.0 t\n"))
    assert parse_run(p)[0]["docno"].to_pylist() == ["D1"]
    p.write_bytes(b"\x1f\x9d\x90abc")
    with pytest.raises(InputError, match=f"^{p}: corrupt compress stream"):
        parse_run(p)


def test_non_utf8_bytes_are_kept_escaped_and_counted(tmp_path):
    p = tmp_path / "r"
    p.write_bytes(b"1 Q0 D\xe91 1 1.0 t\n1 Q0 D2 2 0.5 t\n")
    table, counts = parse_run(p)
    assert table["docno"].to_pylist() == ["D\\xe91", "D2"]
    assert counts.non_utf8_lines == 1 and counts.kept == 2


def test_qrels_round_column_q0_negative_and_bad_rel(tmp_path):
    p = tmp_path / "q"
    p.write_text("1 0.5  D1 2\n1\tQ0\tD2\t-1\n2 1 D3 0\n")
    table, counts = parse_qrels(p)
    assert table["rel"].to_pylist() == [2, -1, 0]
    assert counts.balanced()
    p.write_text("1 0 D1 2\n1 0 D2 1.5\n")
    with pytest.raises(TrecFormatError, match=r":2: expected an integer relevance"):
        parse_qrels(p)


@pytest.mark.parametrize("name,expected", [
    ("input.MU03rob01.gz", "MU03rob01"),
    ("dl-19-official-input.TUA1-1.gz", "TUA1-1"),
    ("CUNI_EN_Run.2.dat.gz", "CUNI_EN_Run.2.dat"),
    ("10x10.prf.unipd.it.gz", "10x10.prf.unipd.it"),
    ("org_convdr.run.gz", "org_convdr.run"),
    ("plainrun", "plainrun"),
])
def test_run_names(name, expected):
    assert run_name_from_path(name) == expected


def test_empty_file(tmp_path):
    p = tmp_path / "r"
    p.write_text("")
    table, counts = parse_run(p)
    assert table.num_rows == 0 and counts.lines_read == 0 and counts.balanced()


def test_file_name_is_pathlib_s_name_without_pathlib():
    """trecio.file_name (a run's name from its path, without importing pathlib) gives what
    ``pathlib.Path(path).name`` gives, for str and path objects."""
    from pathlib import Path

    from reeval.io.trecio import file_name
    for path in ["a/b", "a/b/", "a/b/.", "/", ".", "", "a", "a//b", "./x.gz", "/x/y/../z", "a/..", "-",
                 "input.X.gz", "a\\b", "dir/run name.txt", "é/ü.gz"]:
        assert file_name(path) == file_name(Path(path)) == Path(path).name, path
