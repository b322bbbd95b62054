"""Gzipped inputs read through ISA-L's inflate (``isal``) where it is installed and through
Python's zlib where it is not (reeval.io.sources.zlib_module): the same text from the real
tracks' runs and the same one-line errors for broken streams, whichever reads them."""

import gzip
import sys

import pytest

from conftest import SHARED_DATA, real_track_params
from reeval.errors import InputError
from reeval.io import sources
from reeval.io.sources import read_source, source_from_bytes

PATHS = ["isal", "zlib"]


def use(path: str, monkeypatch) -> None:
    """Read with ``path``'s inflate: ``zlib`` as where isal is not installed (its import fails)."""
    if path == "isal":
        pytest.importorskip("isal")
    else:
        monkeypatch.setitem(sys.modules, "isal", None)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("track", real_track_params())
def test_every_gzipped_run_of_a_real_track_reads_as_gzip_decompresses_it(track, path, monkeypatch):
    runs = sorted((SHARED_DATA / track / "runs").glob("*.gz"))
    if not runs:
        pytest.skip(f"no gzipped runs of {track} in {SHARED_DATA}")
    use(path, monkeypatch)
    for run in runs:
        src = read_source(run)
        assert src.compression == "gzip" and bytes(src.data) == gzip.decompress(run.read_bytes()), run


TEXT = b"".join(b"%d Q0 D%06d %d %.3f tag\n" % (i % 7, i * 31 % 999_983, i, 1 / (i + 1)) for i in range(20_000))


@pytest.mark.parametrize("path", PATHS)
def test_members_one_after_the_other_and_zero_padding_read_as_one_text(path, monkeypatch):
    use(path, monkeypatch)
    cut = len(TEXT) // 3
    data = gzip.compress(TEXT[:cut], mtime=0) + gzip.compress(b"", mtime=5) + gzip.compress(TEXT[cut:], 9) + bytes(600)
    src = source_from_bytes("two.gz", data)
    assert bytes(src.data) == TEXT


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("what, broken", [
    ("truncated gzip stream", lambda gz: gz[: len(gz) // 2]),
    ("truncated gzip stream", lambda gz: gz[:-1]),
    ("corrupt gzip stream", lambda gz: gz[:-8] + bytes([gz[-8] ^ 0xFF]) + gz[-7:]),  # CRC
    ("corrupt gzip stream", lambda gz: gz[:-4] + b"\0\0\0\0"),  # size
    ("corrupt gzip stream", lambda gz: gz[:20] + bytes(b ^ 0x5A for b in gz[20:60]) + gz[60:]),  # deflate data
    ("corrupt gzip stream", lambda gz: gz + b"not gzip"),
])
def test_a_broken_stream_is_one_error_naming_the_file_whichever_inflates_it(path, what, broken, monkeypatch):
    use(path, monkeypatch)
    with pytest.raises(InputError, match=f"^bad.gz: {what} \\(") as err:
        source_from_bytes("bad.gz", broken(gzip.compress(TEXT, mtime=0)))
    assert "\n" not in str(err.value)


def test_gzip_is_inflated_by_isal_where_it_is_installed(monkeypatch):
    isal_zlib = pytest.importorskip("isal.isal_zlib")
    made = []

    class Counted:
        error = isal_zlib.error

        @staticmethod
        def decompressobj(**kw):
            made.append(kw)
            return isal_zlib.decompressobj(**kw)

    assert sources.zlib_module() is isal_zlib
    monkeypatch.setattr(sources, "zlib_module", lambda: Counted)
    assert bytes(source_from_bytes("a.gz", gzip.compress(TEXT) * 2).data) == TEXT * 2
    assert made == [{"wbits": 31}] * 2
