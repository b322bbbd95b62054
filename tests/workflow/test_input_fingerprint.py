"""Staleness by content (issue 31, item 4): a track's input replaced by other content with an
older mtime (cp -p, rsync -a, tar x) makes ingest run again; a file only touched does not;
the ingest report holds each input's size and SHA-256."""

import hashlib
import os
import shutil
import subprocess

import pandas as pd
import yaml

from conftest import ROOT, write_lines
from reeval.workflow import fingerprint as fp
from snakemake_command import SNAKEMAKE

OLD = 946684800  # 2000-01-01: older than any output


def copy_back_dated(src, dst):
    """``cp -p`` of ``src`` over ``dst`` with both dated 2000: new bytes, an older mtime."""
    os.utime(src, (OLD, OLD))
    shutil.copy2(src, dst)
    assert os.stat(dst).st_mtime == OLD


def test_the_fingerprint_changes_with_content_only_and_unchanged_files_are_not_read(tmp_path, monkeypatch):
    a, b = write_lines(tmp_path / "a", ["1 0 D0 1"]), write_lines(tmp_path / "b", ["x"])
    folder = tmp_path / "track"
    path = fp.refresh_fingerprint(folder, [a, b])
    first = path.read_text()
    assert first == (f"{hashlib.sha256(a.read_bytes()).hexdigest()}  9  {a}\n"
                     f"{hashlib.sha256(b.read_bytes()).hexdigest()}  2  {b}\n")
    os.utime(path, (OLD, OLD))
    reads = []
    monkeypatch.setattr(fp, "sha256_of", lambda p, real=fp.sha256_of: reads.append(p) or real(p))
    fp.refresh_fingerprint(folder, [a, b])
    assert reads == [] and os.stat(path).st_mtime == OLD  # stat unchanged: nothing read, nothing written
    os.utime(a)  # touched: read again (its stat changed), same bytes, the fingerprint stays
    fp.refresh_fingerprint(folder, [a, b])
    assert reads == [str(a)] and os.stat(path).st_mtime == OLD and path.read_text() == first
    copy_back_dated(write_lines(tmp_path / "new", ["1 0 D0 0"]), a)  # same size, other bytes, older mtime
    fp.refresh_fingerprint(folder, [a, b])
    assert os.stat(path).st_mtime > OLD and path.read_text() != first
    assert hashlib.sha256(a.read_bytes()).hexdigest() in path.read_text()
    fp.refresh_fingerprint(folder, [a])  # a file left out of the track: the fingerprint changes
    assert str(b) not in path.read_text()


def test_a_fifo_is_listed_without_being_read(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    text = fp.refresh_fingerprint(tmp_path / "track", [tmp_path / "pipe"]).read_text()
    assert text == f"-  0  {tmp_path / 'pipe'}\n"


def snakemake(*args):
    proc = subprocess.run([*SNAKEMAKE, *args], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + proc.stderr


def two_run_track(tmp_path):
    """(qrels, run r1, config, results) of track t: 2 topics, runs r1 (map 1) and r2 (0.75)."""
    (tmp_path / "runs").mkdir()
    qrels = write_lines(tmp_path / "qrels.txt", ["1 0 D0 1", "1 0 D1 0", "2 0 D0 1"])
    run = write_lines(tmp_path / "runs" / "r1", ["1 Q0 D0 1 2 r1", "1 Q0 D1 2 1 r1", "2 Q0 D0 1 1 r1"])
    write_lines(tmp_path / "runs" / "r2", ["1 Q0 D1 1 2 r2", "1 Q0 D0 2 1 r2", "2 Q0 D0 1 1 r2"])
    results = tmp_path / "results"
    cfg = tmp_path / "study.yaml"
    cfg.write_text(yaml.safe_dump({"results": str(results), "measures": ["map"],
                                   "tracks": {"t": {"qrels": str(qrels), "runs": str(tmp_path / "runs")}}}))
    return qrels, run, cfg, results


def test_new_content_with_an_older_mtime_reruns_ingest_and_a_touch_does_not(tmp_path):
    qrels, run, cfg, results = two_run_track(tmp_path)
    target = results / "tracks" / "t" / "measures_by_run.csv"
    snakemake("--cores", "1", str(target), "--configfile", str(cfg))
    before = pd.read_csv(target).set_index("run")["map"].to_dict()
    assert before == {"r1": 1.0, "r2": 0.75}
    report = pd.read_csv(results / "tracks" / "t" / "ingest_report.csv").set_index("file")
    assert report.loc[str(run), "bytes"] == run.stat().st_size
    assert report.loc[str(qrels), "sha256"] == hashlib.sha256(qrels.read_bytes()).hexdigest()
    os.utime(run)  # touched, same bytes
    assert "Nothing to be done" in snakemake("--cores", "1", str(target), "--configfile", str(cfg))
    copy_back_dated(write_lines(tmp_path / "other", ["1 0 D0 0", "1 0 D1 1", "2 0 D0 1"]), qrels)
    out = snakemake("--cores", "1", str(target), "--configfile", str(cfg))
    assert "ingest t" in out
    assert pd.read_csv(target).set_index("run")["map"].to_dict() == {"r1": 0.75, "r2": 1.0}
    report = pd.read_csv(results / "tracks" / "t" / "ingest_report.csv").set_index("file")
    assert report.loc[str(qrels), "sha256"] == hashlib.sha256(qrels.read_bytes()).hexdigest()


def test_a_report_read_from_other_bytes_than_the_file_holds_rewrites_the_fingerprint(tmp_path):
    a = write_lines(tmp_path / "a", ["1 0 D0 1"])
    folder = tmp_path / "track"
    path = fp.refresh_fingerprint(folder, [a])
    os.utime(path, (OLD, OLD))
    (folder / fp.INGEST_REPORT).write_text(f"track,file,kind,sha256\nt,{a},qrels,{'0' * 64}\n")
    stale = []
    fp.refresh_fingerprint(folder, [a], stale)
    assert stale == [str(a)] and os.stat(path).st_mtime > OLD  # newer than the tables: ingest again
    assert fp.changed_fingerprint(folder, [a]) is not None  # a dry run plans the ingest too
    (folder / fp.INGEST_REPORT).write_text(f"track,file,kind,sha256\nt,{a},qrels,{hashlib.sha256(a.read_bytes()).hexdigest()}\n")
    os.utime(path, (OLD, OLD))
    fp.refresh_fingerprint(folder, [a], stale := [])
    assert stale == [] and os.stat(path).st_mtime == OLD and fp.changed_fingerprint(folder, [a]) is None


def test_a_file_rewritten_while_ingest_read_it_then_put_back_with_cp_p_is_ingested_again(tmp_path):
    """The race: the workflow fingerprints X, ingest reads Y, then X is put back with its old
    mtime. The state it leaves is made here in three steps: a run on X (its fingerprint kept),
    a run on Y, X put back with ``cp -p`` and X's fingerprint files with theirs."""
    qrels, run, cfg, results = two_run_track(tmp_path)
    target, folder = results / "tracks" / "t" / "measures_by_run.csv", results / "tracks" / "t"
    snakemake("--cores", "1", str(target), "--configfile", str(cfg))
    assert pd.read_csv(target).set_index("run")["map"].to_dict() == {"r1": 1.0, "r2": 0.75}
    kept = tmp_path / "kept"
    kept.mkdir()
    for name in (fp.FINGERPRINT, fp.CACHE):
        shutil.copy2(folder / name, kept / name)
    shutil.copy2(run, kept / "r1")
    write_lines(run, ["1 Q0 D1 1 2 r1", "1 Q0 D0 2 1 r1", "2 Q0 D0 1 1 r1"])  # Y: r1 now ranks D1 first
    snakemake("--cores", "1", str(target), "--configfile", str(cfg))
    assert pd.read_csv(target).set_index("run")["map"].to_dict() == {"r1": 0.75, "r2": 0.75}
    shutil.copy2(kept / "r1", run)  # X back, with its old mtime
    for name in (fp.FINGERPRINT, fp.CACHE):
        shutil.copy2(kept / name, folder / name)
    out = snakemake("--cores", "1", str(target), "--configfile", str(cfg))
    assert "ingest t" in out and f"t: {run} holds other bytes than its ingest read" in out, out[-3000:]
    assert pd.read_csv(target).set_index("run")["map"].to_dict() == {"r1": 1.0, "r2": 0.75}
