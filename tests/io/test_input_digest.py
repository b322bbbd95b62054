"""The ingest report's ``bytes`` and ``sha256`` (issue 41 item 4): hashed from the very bytes
the parser reads, so every input is opened once, a stream included."""

import bz2
import gzip
import hashlib
import io
import sys

import pytest

import reeval.io.sources as sources
from conftest import write_lines
from reeval.io.ingest import ingest_track
from reeval.io.sources import read_source

QRELS = ["1 0 A 1", "1 0 B 0", "2 0 A 1"]
RUN = ["1 Q0 A 1 2.5 r", "1 Q0 B 2 1.5 r", "2 Q0 A 1 1.0 r"]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def opened(monkeypatch):
    """The paths :mod:`reeval.io.sources` opens, in order (its only way into a file)."""
    paths, real = [], open

    def counting(path, *args, **kwargs):
        paths.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(sources, "open", counting, raising=False)
    return paths


@pytest.mark.parametrize("pack", [lambda b: b, gzip.compress, bz2.compress], ids=["plain", "gzip", "bzip2"])
def test_the_report_hashes_each_file_as_stored_and_opens_it_once(tmp_path, opened, pack):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(pack("".join(f"{line}\n" for line in QRELS).encode()))
    run = tmp_path / "run"
    run.write_bytes(pack("".join(f"{line}\n" for line in RUN).encode()))
    tables = ingest_track("t", qrels, [run], threads=1, digest=True)
    report = tables.report.set_index("file")
    for path in (qrels, run):
        assert report.loc[str(path), "sha256"] == sha(path.read_bytes())
        assert report.loc[str(path), "bytes"] == path.stat().st_size
    assert sorted(opened) == sorted([str(qrels), str(run)])


def test_a_run_on_standard_input_is_hashed_too(tmp_path, monkeypatch):
    qrels = write_lines(tmp_path / "qrels", QRELS)
    packed = gzip.compress("".join(f"{line}\n" for line in RUN).encode())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(packed)))
    row = ingest_track("t", qrels, ["-"], threads=1, digest=True).parts[0].row
    assert (row["bytes"], row["sha256"]) == (len(packed), sha(packed))
    assert row["kept"] == 3


def test_a_skipped_file_has_no_hash_and_without_digest_there_are_no_such_columns(tmp_path):
    qrels = write_lines(tmp_path / "qrels", QRELS)
    run = write_lines(tmp_path / "run", RUN)
    skipped = [(tmp_path / ".DS_Store", "hidden")]
    hashed = ingest_track("t", qrels, [run], threads=1, digest=True, skipped=skipped)
    row = next(row for row in hashed.report_rows if row["kind"] == "skipped")
    assert row["bytes"] is None and row["sha256"] is None
    plain = ingest_track("t", qrels, [run], threads=1, skipped=skipped).report
    assert "sha256" not in plain.columns and "bytes" not in plain.columns
    assert plain.equals(hashed.report.drop(columns=["bytes", "sha256"]))


def test_a_memory_mapped_file_and_its_bytes_give_the_same_digest(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"1 Q0 A 1 1 r\n"))
    mapped = read_source(path, digest=True)
    given = sources.source_from_bytes(str(path), path.read_bytes(), digest=True)
    assert mapped.digest == given.digest == sources.Digest(path.stat().st_size, sha(path.read_bytes()))
    assert read_source(path).digest is None


def test_text_already_in_memory_is_checked_as_text_read_from_a_file():
    """text_source (a generator's text, not read again) removes a byte-order mark and refuses
    what source_from_bytes refuses, and keeps the digest of the bytes stored it is given."""
    from reeval.errors import InputError
    from reeval.io.sources import Digest, source_from_bytes, text_source

    stored = Digest(3, "ab")
    src = text_source("run.gz", b"\xef\xbb\xbf101 Q0 d 1 2.5 r\n", "gzip", stored)
    read = source_from_bytes("run", b"\xef\xbb\xbf101 Q0 d 1 2.5 r\n")
    assert (src.data, src.bom, src.compression, src.digest) == (read.data, True, "gzip", stored)
    with pytest.raises(InputError, match="run.gz: a zip archive"):
        text_source("run.gz", b"PK\x03\x04rest", "gzip")


def test_a_run_given_as_its_source_is_not_read_from_its_path(tmp_path):
    from reeval.io.sources import Digest, text_source
    from reeval.io.trecio import read_run

    missing = str(tmp_path / "never-written")
    lines = read_run(missing, source=text_source(missing, b"101 Q0 d1 1 2.5 r\n", "plain", Digest(18, "cd")))
    assert lines.counts.kept == 1 and lines.digest == Digest(18, "cd")
