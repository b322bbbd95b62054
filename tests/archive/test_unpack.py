"""Unpacking the archive's formats: .gz, .bz2, Unix compress .Z, .tar, .tar.gz qrels parts."""

import bz2
import gzip
import io
import shutil
import tarfile

import pytest

from reeval.io.ingest import ingest_track
from reeval.workflow.tracks import resolve_runs
from reeval.archive.unpack import combine_qrels, decompress, keep_topics, members, parse_topics, place_run

ncompress = pytest.importorskip("ncompress", reason="ncompress (test extra) writes the .Z fixtures")

RUN = b"".join(b"%d Q0 D%d %d %.3f tagA\n" % (q, d, d, 10 - d / 7) for q in (151, 152) for d in range(300))


def unix_compress(data: bytes) -> bytes:
    """Unix compress (.Z) bytes: the ncompress C implementation, or the system binary."""
    return ncompress.compress(data)


def test_unix_compress_magic_and_round_trip():
    z = unix_compress(RUN)
    assert z[:2] == b"\x1f\x9d" and len(z) < len(RUN)
    assert decompress(z) == RUN


def test_system_compress_binary_when_present(tmp_path):
    exe = shutil.which("compress")
    if exe is None:
        pytest.skip("no `compress` binary on this machine (ncompress fixtures cover .Z)")
    import subprocess
    p = tmp_path / "r"
    p.write_bytes(RUN)
    subprocess.run([exe, "-f", str(p)], check=True)
    assert decompress((tmp_path / "r.Z").read_bytes()) == RUN


@pytest.mark.parametrize("pack", [gzip.compress, bz2.compress, unix_compress, lambda b: b])
def test_decompress_by_magic(pack):
    assert decompress(pack(RUN)) == RUN


def test_multi_member_gzip():
    assert decompress(gzip.compress(b"a\n") + gzip.compress(b"b\n")) == b"a\nb\n"


def tar_bytes(files: dict, compress=None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    raw = buf.getvalue()
    return compress(raw) if compress else raw


PARTS = {f"qrels.251-300.part{i}": b"".join(b"%d 0 FR%d-%d %d\n" % (250 + i * 10 + t, i, d, d % 2)
                                             for t in range(1, 3) for d in range(3))
         for i in range(1, 6)}


@pytest.mark.parametrize("compress", [None, gzip.compress, bz2.compress, unix_compress])
def test_parts_archive_is_combined_in_part_order(tmp_path, compress):
    # stored out of order, one member itself gzipped, plus macOS litter
    files = {name: PARTS[name] for name in sorted(PARTS, reverse=True)}
    files["qrels.251-300.part3"] = gzip.compress(PARTS["qrels.251-300.part3"])
    files["._qrels.251-300.part1"] = b"\x00\x05junk"
    src = tmp_path / "qrels.251-300.parts1-5.tar.gz"
    src.write_bytes(tar_bytes(files, compress))
    info = combine_qrels([src], tmp_path / "qrels.txt")
    assert (tmp_path / "qrels.txt").read_bytes() == b"".join(PARTS[k] for k in sorted(PARTS))
    assert [m.split(":")[1] for m in info["members"]] == sorted(PARTS)
    assert info["lines_other_topics"] == 0


def test_several_qrels_files_concatenate_and_final_newline_is_added(tmp_path):
    a, b = tmp_path / "a.gz", tmp_path / "b"
    a.write_bytes(gzip.compress(b"1 0 X 1"))  # no final newline
    b.write_bytes(b"2 0 Y 0\n")
    combine_qrels([a, b], tmp_path / "q")
    assert (tmp_path / "q").read_bytes() == b"1 0 X 1\n2 0 Y 0\n"


def test_topics_of_the_task_are_kept(tmp_path):
    data = b"151 0 A 1\n0152 0 B 0\n201 0 C 1\n\n# note\n200 0 D 1\n250 0 E 1\nxx 0 F 1\n"
    kept, removed = keep_topics(data, parse_topics("151-200"))
    assert kept == b"151 0 A 1\n0152 0 B 0\n\n# note\n200 0 D 1\nxx 0 F 1\n" and removed == 2
    src = tmp_path / "all.tar.gz"
    src.write_bytes(tar_bytes({"qrels.151-200": b"151 0 A 1\n", "qrels.201-250": b"201 0 C 1\n"}, gzip.compress))
    info = combine_qrels([src], tmp_path / "q", topics="151-200")
    assert (tmp_path / "q").read_bytes() == b"151 0 A 1\n" and info["lines_other_topics"] == 1
    # bytes that are not UTF-8 and CRLF line ends pass unchanged
    raw = b"151 0 DOC\xe9 1\r\n300 0 X 1\r\n152 0 Y 0"
    assert keep_topics(raw, {151, 152}) == (b"151 0 DOC\xe9 1\r\n152 0 Y 0\n", 1)
    assert parse_topics("1-3, 9") == {1, 2, 3, 9}
    with pytest.raises(ValueError):
        parse_topics("1-x")


def test_runs_are_linked_or_decompressed_and_ingest_reads_them(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "input.gzrun.gz").write_bytes(gzip.compress(RUN.replace(b"tagA", b"gzrun")))
    (src / "input.zrun.Z").write_bytes(unix_compress(RUN.replace(b"tagA", b"zrun")))
    (src / "input.bzrun.bz2").write_bytes(bz2.compress(RUN.replace(b"tagA", b"bzrun")))
    (src / "tarrun.tar.gz").write_bytes(tar_bytes({"input.tarrun": RUN.replace(b"tagA", b"tarrun")}, gzip.compress))
    runs = tmp_path / "track" / "runs"
    place_run(src / "input.gzrun.gz", runs, "gzrun")
    place_run(src / "input.zrun.Z", runs, "zrun")
    place_run(src / "input.bzrun.bz2", runs, "bzrun")
    place_run(src / "tarrun.tar.gz", runs, "tarrun")
    assert (runs / "gzrun").stat().st_ino == (src / "input.gzrun.gz").stat().st_ino  # linked, not copied
    assert (runs / "zrun").read_bytes() == RUN.replace(b"tagA", b"zrun")
    assert (runs / "tarrun").read_bytes() == RUN.replace(b"tagA", b"tarrun")
    qrels = tmp_path / "q"
    qrels.write_bytes(b"151 0 D1 1\n152 0 D3 1\n")
    tables = ingest_track("t", str(qrels), resolve_runs(str(runs)))
    report = tables.report[tables.report.kind == "run"]
    assert sorted(report.run) == ["bzrun", "gzrun", "tarrun", "zrun"]
    assert set(report.kept) == {600} and set(report.tag) == set(report.run)
    # the same ranking whatever the packing
    by_run = tables.runs.to_pandas().groupby("run")
    docs = {r: list(g.docno) for r, g in by_run}
    assert docs["zrun"] == docs["gzrun"] == docs["bzrun"] == docs["tarrun"]


def test_bad_run_sources_are_refused(tmp_path):
    two = tmp_path / "two.tar"
    two.write_bytes(tar_bytes({"a": RUN, "b": RUN}))
    with pytest.raises(ValueError, match="2 files"):
        place_run(two, tmp_path / "runs", "x")
    with pytest.raises(ValueError, match="cannot name"):
        place_run(two, tmp_path / "runs", "../x")
    with pytest.raises(ValueError, match="read as run 'x'"):
        place_run(two, tmp_path / "runs", "input.x")
    empty = tmp_path / "empty.tar"
    empty.write_bytes(tar_bytes({}))
    with pytest.raises(ValueError, match="holds no file"):
        members(empty)
