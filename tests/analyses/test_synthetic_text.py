"""The synthetic runs' text: the compiled line writer and the streamed gzip against the
Arrow CSV writer and ``gzip.compress`` whose bytes the generator's files have always had."""

import gzip
import types

import numpy as np
import pytest

from reeval.io import compiled
from reeval.synth.tracks import (DEFAULT_CAMPAIGN, TrackSpec, _float_texts, _gzip, _run_lines, _run_table, _RunRows,
                                 _scaled, _to_text, write_track)
from test_synthetic import GENERATED_BY_MAIN, TIED_SHALLOW_GZ, digest, text_digest, zlib_only

needs_kernels = pytest.mark.skipif(compiled._kernels is None, reason="compiled kernels not built "
                                   "(pip install -e . with a C compiler builds them)")


def rows(scores, decimals=4, qids=None, docnos=None, ranks=None, col2="Q0", tag="run00", sep="\t"):
    """A run's rows: one line per score, qids and docnos made up unless given."""
    n = len(scores)
    qids = np.array(qids if qids is not None else [b"101"] * n, dtype="S")
    docnos = np.array(docnos if docnos is not None else [b"D%07d" % i for i in range(n)], dtype="S")
    ranks = np.asarray(ranks if ranks is not None else np.arange(1, n + 1), dtype=np.int64)
    fmt = {"fname": "run00", "col2": col2, "rank_start": 1, "tag": tag, "sep": sep, "comment": "0"}
    return _RunRows(qids, docnos, ranks, np.asarray(scores, dtype=np.float64), decimals, fmt)


def arrow_text(r: _RunRows) -> bytes:
    """The bytes of the run's table through Arrow's CSV writer (the generator's writer until now)."""
    return _to_text(_run_table(r)[1].replace_schema_metadata(None), r.format["sep"])


SPECIAL_SCORES = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-7, 5e-324, 1e8, -1e8, 99999999.9999, 1.5e15, 1e21,
                  1.7976931348623157e308, 0.1 - 1.0, 0.3 - 1.0, 0.123456789, 2.5 - 1.0]
RANDOM = np.random.default_rng(5)
CASES = {
    "an empty run": rows([]),
    "one line": rows([5.2152]),
    "tied scores of one decimal": rows(np.round(RANDOM.standard_normal(500), 1), decimals=1),
    "scores of no decimal": rows(np.round(RANDOM.standard_normal(300) * 1e3), decimals=0),
    "six decimals from 1e-6 to 1e8": rows(np.round(10 ** RANDOM.uniform(-6, 8, 2000), 6), decimals=6),
    "negative scores and the smallest": rows([-0.0005, -1.0, -12345.6789, 0.0001, -0.0001, 9999.9999], decimals=4),
    "special and unrounded scores": rows(SPECIAL_SCORES, decimals=4),
    "only special scores": rows([np.nan, -0.0, 1e-9]),
    "long docnos and qids of several widths": rows([1.5, 2.25, 3.0], qids=[b"1", b"10001", b"99"],
                                                   docnos=[b"clueweb12-" + b"x" * 200, b"d", b"GX000-00-0000000"]),
    "huge and negative ranks": rows([1.0, 2.0, 3.0], ranks=[0, -5, 2**62]),
    # Arrow refuses quotes, separators and line ends in a value; the generator's tags have none
    "a space separator, column 2 and a tag of odd bytes": rows([1.25, 0.5], col2="q0", tag="t\u00e4g-#\\'",
                                                                sep=" "),
}


@pytest.mark.parametrize("use_kernels", [True, False], ids=["compiled", "arrow"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_run_lines_are_the_bytes_of_arrows_csv_writer(case, use_kernels, monkeypatch):
    if use_kernels and compiled._kernels is None:
        pytest.skip("compiled kernels not built")
    monkeypatch.setattr(compiled, "ENABLED", use_kernels)
    r = CASES[case]
    assert _run_lines(r) == arrow_text(r)


def test_kernels_built_before_the_line_writer_existed_leave_the_lines_to_arrow(monkeypatch):
    monkeypatch.setattr(compiled, "_kernels", types.SimpleNamespace())  # an older build: no run_lines
    monkeypatch.setattr(compiled, "ENABLED", True)
    r = CASES["special and unrounded scores"]
    assert _run_lines(r) == arrow_text(r)


def test_scores_rounded_to_their_decimals_are_integers_and_the_rest_special():
    k, special = _scaled(np.array([5.2152, -0.0005, 3.0, -0.0, np.nan, np.inf, 1e8, 0.1 - 1.0, 0.12345]), 4)
    assert special.tolist() == [False, False, False, True, True, True, True, False, True]
    assert k[:3].tolist() == [52152, -5, 30000]


def test_special_scores_are_written_as_arrow_writes_them():
    assert _float_texts(np.array([np.nan, -0.0, 1e-7, 1.5e15, 3.0])) == [b"nan", b"-0", b"1e-7", b"1.5e+15", b"3"]
    assert _float_texts(np.array([])) == []


@pytest.mark.parametrize("cuts", [[], [0], [1], [3, 3, 70_000], [65_536, 65_537], [199_999]])
def test_gzip_in_pieces_is_byte_for_byte_gzip_compress_at_level_1_and_mtime_0(cuts, monkeypatch):
    zlib_only(monkeypatch)
    data = b"".join(b"%d\tQ0\tD%07d\t%d\t%.4f\trun00\n" % (i % 50, i * 7919 % 10**7, i, i / 3) for i in range(5000))
    data = data[:200_000]
    bounds = [0] + cuts + [len(data)]
    pieces = [data[a:b] for a, b in zip(bounds, bounds[1:])]
    assert b"".join(_gzip(pieces)) == gzip.compress(data, compresslevel=1, mtime=0)
    assert b"".join(_gzip([b""])) == gzip.compress(b"", compresslevel=1, mtime=0)


@pytest.mark.parametrize("cuts", [[], [3, 3, 70_000], [65_536, 65_537]])
def test_gzip_in_pieces_with_the_fast_deflate_is_isal_level_1_of_the_same_text(cuts):
    isal_zlib = pytest.importorskip("isal.isal_zlib")
    data = b"".join(b"%d\tQ0\tD%07d\t%d\t%.4f\trun00\n" % (i % 50, i * 7919 % 10**7, i, i / 3) for i in range(5000))
    bounds = [0] + cuts + [len(data)]
    pieces = [data[a:b] for a, b in zip(bounds, bounds[1:])]
    z = isal_zlib.compressobj(1, isal_zlib.DEFLATED, 31)
    stored = b"".join(_gzip(pieces))
    assert stored == b"".join([z.compress(p) for p in pieces] + [z.flush()])
    assert gzip.decompress(stored) == data and stored != gzip.compress(data, compresslevel=1, mtime=0)


@pytest.mark.parametrize("name", sorted(GENERATED_BY_MAIN))
def test_the_fast_deflate_and_the_zlib_fallback_store_the_same_text(tmp_path, name, monkeypatch):
    pytest.importorskip("isal")
    write_track(tmp_path / "isal", DEFAULT_CAMPAIGN[name], seed=7)
    zlib_only(monkeypatch)
    write_track(tmp_path / "zlib", DEFAULT_CAMPAIGN[name], seed=7)
    assert digest(tmp_path / "zlib") == GENERATED_BY_MAIN[name]
    assert text_digest(tmp_path / "isal") == text_digest(tmp_path / "zlib")
    assert digest(tmp_path / "isal") != digest(tmp_path / "zlib")


@pytest.mark.parametrize("name", sorted(GENERATED_BY_MAIN))
def test_built_in_tracks_keep_their_bytes_also_without_the_compiled_writer(tmp_path, name, monkeypatch):
    zlib_only(monkeypatch)
    monkeypatch.setattr(compiled, "ENABLED", False)
    write_track(tmp_path / name, DEFAULT_CAMPAIGN[name], seed=7)
    assert digest(tmp_path / name) == GENERATED_BY_MAIN[name]


def test_a_gzipped_tied_track_keeps_its_bytes_also_without_the_compiled_writer(tmp_path, monkeypatch):
    zlib_only(monkeypatch)
    monkeypatch.setattr(compiled, "ENABLED", False)
    write_track(tmp_path / "x", TIED_SHALLOW_GZ, seed=3)
    assert digest(tmp_path / "x") == "ffbe8f673ca65a6a639a237183eb154cfea77746beaceef3292943fae431fbad"


def test_a_track_with_more_decimals_than_the_compiled_writer_takes_is_written_by_arrow(tmp_path, monkeypatch):
    spec = TrackSpec(n_runs=3, n_topics=2, depth=20, score_decimals=9, compress="none")
    write_track(tmp_path / "compiled", spec, seed=1)
    monkeypatch.setattr(compiled, "ENABLED", False)
    write_track(tmp_path / "arrow", spec, seed=1)
    assert digest(tmp_path / "compiled") == digest(tmp_path / "arrow")


@needs_kernels
def test_the_line_writer_refuses_columns_of_different_lengths():
    from reeval.io import _kernels
    one, two = np.zeros(1, np.int64), np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="same rows"):
        _kernels.run_lines(b"101", 3, b"D1", 2, one, two, 4, b"\0", np.zeros(1, np.int64), b"", b"Q0", b"r", b"\t")
    with pytest.raises(ValueError, match="one text per special row"):
        _kernels.run_lines(b"101", 3, b"D1", 2, one, one, 4, b"\1", np.zeros(1, np.int64), b"", b"Q0", b"r", b"\t")
