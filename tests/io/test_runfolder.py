"""A track's runs folder walked (issue 27): every file below it is read, skipped and named, or
refused in one line; the ingest accounting identity extended to the folder walk."""

import errno
import gzip
import os
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from conftest import track_files
from reeval.errors import InputError
from reeval.io import runfolder
from reeval.io.ingest import ingest_track
from reeval.io.runfolder import walk_runs
from reeval.io.trecio import LineCounts
from reeval.workflow.run_inclusion import excluded_messages, track_run_inclusion
from reeval.workflow.tracks import list_runs


def real_track(tmp_path, n=4):
    """A real track (TREC-COVID round 2) with its first ``n`` runs copied into ``tmp_path/runs``."""
    qrels, runs = track_files("trec-covid-round2")
    folder = tmp_path / "runs"
    folder.mkdir()
    for run in runs[:n]:
        (folder / Path(run).name).write_bytes(Path(run).read_bytes())
    return qrels, folder, runs[:n]


def test_a_run_in_a_subfolder_is_read_and_named_by_its_file(tmp_path):
    qrels, folder, runs = real_track(tmp_path)
    (folder / "sub" / "deeper").mkdir(parents=True)
    os.replace(folder / Path(runs[3]).name, folder / "sub" / "deeper" / Path(runs[3]).name)
    listing = list_runs(str(folder))
    assert sorted(map(os.path.basename, listing.files)) == sorted(map(os.path.basename, runs))
    assert listing.skipped == [] and listing.problems == []
    tables = ingest_track("t", qrels, listing.files)
    assert sorted(row["run"] for row in tables.report_rows if row["kind"] == "run") == \
        ["Bioinfo-run3", "CincyMedIR-11", "Emory_IRLab_Run1", "HKPU-Gos1-pPRF"]


def test_hidden_files_and_litter_are_skipped_and_named_in_the_report_and_log(tmp_path):
    qrels, folder, runs = real_track(tmp_path, 3)
    (folder / ".hidden-run.gz").write_bytes(Path(runs[0]).read_bytes())
    for name in (".DS_Store", "Thumbs.db", "desktop.ini", "run~", "#run#", ".run.swp"):
        (folder / name).write_bytes(b"x")
    (folder / ".git" / "objects").mkdir(parents=True)
    (folder / ".git" / "objects" / "ab").write_bytes(b"x")
    (folder / "__MACOSX").mkdir()
    listing = list_runs(str(folder))
    assert len(listing.files) == 3 and listing.problems == []
    skipped = {os.path.basename(p): why for p, why in listing.skipped}
    assert sorted(skipped) == sorted(["#run#", ".DS_Store", ".git", ".hidden-run.gz", ".run.swp", "Thumbs.db",
                                      "__MACOSX", "desktop.ini", "run~"])
    assert skipped[".git"] == "hidden folder (its name starts with '.')"
    assert skipped["run~"] == skipped["#run#"] == "an editor backup, not a run"
    tables = ingest_track("t", qrels, listing.files, skipped=listing.skipped)
    report = tables.report
    assert (report.kind == "skipped").sum() == 9 and (report.kind == "run").sum() == 3
    outcomes = list(LineCounts.OUTCOMES)
    assert (report[outcomes].sum(axis=1) == report.lines_read).all()
    table = track_run_inclusion(report)
    assert len(table) == 12 and table.loc[table.kind == "skipped", "included"].eq(False).all()
    messages = excluded_messages(table)
    assert f"t: {folder}/.DS_Store not read: hidden file (its name starts with '.')" in messages
    assert len(messages) == 9


@pytest.mark.parametrize("make, why", [
    (lambda f: (os.symlink("l2", f / "l1"), os.symlink("l1", f / "l2")), "too many levels of symbolic links"),
    (lambda f: os.symlink("missing", f / "dangling"), "a symbolic link to a missing file (missing)"),
    (lambda f: os.mkfifo(f / "fifo"), "neither a file nor a folder (a FIFO, socket or device)"),
    (lambda f: ((f / "sub").mkdir(), os.symlink("..", f / "sub" / "up")), "the same folder as"),
    (lambda f: os.symlink(sorted(f.iterdir())[0].name, f / "link"), "the same file as"),
    (lambda f: ((f / "sub").mkdir(), (f / "sub" / sorted(f.iterdir())[0].name).write_bytes(b"1 Q0 d 1 1 t\n")),
     "also given by"),
], ids=["link_loop", "dangling_link", "fifo", "link_up_the_tree", "two_links_to_one_file", "one_name_two_folders"])
def test_what_cannot_be_read_refuses_the_track_in_one_line_naming_it(tmp_path, make, why):
    qrels, folder, runs = real_track(tmp_path, 2)
    make(folder)
    listing = list_runs(str(folder))
    with pytest.raises(InputError) as caught:
        listing.check()
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(folder)) and why in message


def test_two_files_of_one_run_name_in_different_folders_name_both(tmp_path):
    qrels, folder, runs = real_track(tmp_path, 2)
    (folder / "b").mkdir()
    (folder / "b" / "covidex.t5").write_bytes(b"1 Q0 d 1 1 t\n")
    (folder / "a").mkdir()
    (folder / "a" / "covidex.t5.gz").write_bytes(gzip.compress(b"1 Q0 d 1 1 t\n"))
    with pytest.raises(InputError, match=rf"^{folder}/b/covidex.t5: run name 'covidex.t5' also given by "
                                         rf"{folder}/a/covidex.t5.gz: rename one"):
        list_runs(str(folder)).check()


def _denied(path):
    return PermissionError(errno.EACCES, "Permission denied", path)


def test_permission_denied_on_a_file_or_a_subfolder_is_a_problem_naming_it(tmp_path):
    """Simulated (the tests run as root, for whom nothing is unreadable): os.access says no
    for one file, os.scandir refuses one folder."""
    qrels, folder, runs = real_track(tmp_path, 2)
    (folder / "locked").mkdir()
    real_access, real_scandir = os.access, os.scandir
    secret = str(folder / Path(runs[1]).name)
    with mock.patch.object(runfolder.os, "access", lambda p, mode: p != secret and real_access(p, mode)), \
            mock.patch.object(runfolder.os, "scandir",
                              lambda p: (_ for _ in ()).throw(_denied(p)) if p.endswith("locked") else real_scandir(p)):
        listing = walk_runs(folder)
    denied = "permission denied (on the file or a folder above it)"
    assert sorted(listing.problems) == sorted([(str(folder / "locked"), denied), (secret, denied)])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file: the simulated test above covers it")
def test_permission_denied_for_real(tmp_path):
    qrels, folder, runs = real_track(tmp_path, 2)
    (folder / "locked").mkdir()
    (folder / "locked").chmod(0)
    try:
        with pytest.raises(InputError, match="locked: permission denied"):
            list_runs(str(folder)).check()
    finally:
        (folder / "locked").chmod(0o700)


# ---- property: every file under runs/ is read, skipped and named, or refused --------------

def _real_lines():
    """Lines of a real run and the qrels of its topics (TREC-COVID round 2, topics 1-3)."""
    qrels_path, runs = track_files("trec-covid-round2")
    with gzip.open(runs[0], "rb") as fh:
        run = [line for line in fh.read().splitlines(keepends=True) if line.split()[0] in (b"1", b"2", b"3")]
    with gzip.open(qrels_path, "rb") as fh:
        qrels = [line for line in fh.read().splitlines(keepends=True) if line.split()[0] in (b"1", b"2", b"3")]
    return b"".join(qrels), run


FOLDERS = ["", "sub", "sub/deep", "other", ".hid", "locked"]
SAFE = ["run", "run", "run", "run.gz", "hidden", "litter", "backup", "empty_dir"]
PROBLEMS = ["link_file", "link_dir", "loop", "dangling", "fifo", "unreadable", "hardlink", "run"]


@st.composite
def track_folders(draw):
    """Operations building a runs folder, (folder, kind, name, number of real lines): files
    that are read or skipped, then, in half the folders, one or two entries that are
    problems (links to files or folders, loops, FIFOs, unreadable entries, a locked folder)."""
    name = st.text("abcdefghijklmnop0123", min_size=3, max_size=6)
    safe = st.tuples(st.sampled_from(FOLDERS[:5]), st.sampled_from(SAFE), name, st.integers(1, 8))
    problem = st.tuples(st.sampled_from(FOLDERS), st.sampled_from(PROBLEMS), name, st.integers(1, 8))
    return draw(st.lists(safe, max_size=10)) + draw(st.one_of(st.just([]), st.lists(problem, min_size=1, max_size=2)))


def build(root: Path, ops, lines) -> dict:
    """Make the folder ``root/runs`` from ``ops``; -> {run file path: lines written}."""
    runs = root / "runs"
    runs.mkdir()
    written: dict = {}
    for folder, kind, name, n in ops:
        where = runs / folder
        where.mkdir(parents=True, exist_ok=True)
        path = where / {"hidden": "." + name, "litter": "Thumbs.db", "backup": name + "~",
                        "run.gz": name + ".gz", "unreadable": "unreadable-" + name}.get(kind, name)
        if os.path.lexists(path):
            continue
        data = b"".join(lines[:n])
        if kind in ("run", "hidden", "litter", "backup", "unreadable"):
            path.write_bytes(data)
        elif kind == "run.gz":
            path.write_bytes(gzip.compress(data))
        elif kind == "empty_dir":
            path.mkdir()
            continue
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "dangling":
            os.symlink(path.name + "-missing", path)
        elif kind == "loop":
            os.symlink(path.name, path)
        elif kind in ("link_file", "hardlink") and written:
            target = sorted(written)[n % len(written)]
            os.symlink(target, path) if kind == "link_file" else os.link(target, path)
        elif kind == "link_dir":
            os.symlink(runs / FOLDERS[n % 3], path)
        if kind in ("run", "run.gz", "unreadable"):
            written[str(path)] = n
        if kind == "unreadable":
            path.chmod(0)
    return written


def every_entry(runs: Path) -> list[str]:
    """Every entry below ``runs`` that is not a folder, found independently of reeval
    (os.walk without following links: a link to a folder is an entry too)."""
    found = []
    for folder, dirs, files in os.walk(runs):
        found += [os.path.join(folder, f) for f in files]
        found += [os.path.join(folder, d) for d in dirs if os.path.islink(os.path.join(folder, d))]
    return found


def under(path: str, named: list) -> bool:
    return any(path == p or path.startswith(p + os.sep) for p, _ in named)


try:
    QRELS, LINES = _real_lines()
except BaseException:  # the data is absent: the test skips through track_files
    QRELS, LINES = b"", []


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=track_folders())
def test_every_file_below_the_runs_folder_is_read_skipped_and_named_or_refused(ops):
    if not LINES:
        track_files("trec-covid-round2")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        written = build(root, ops, LINES)
        runs = root / "runs"
        real_access, real_scandir = os.access, os.scandir
        locked = str(runs / "locked")

        def scandir(p):
            if os.fspath(p) == locked:
                raise _denied(p)
            return real_scandir(p)

        with mock.patch.object(runfolder.os, "access",
                               lambda p, m: "unreadable-" not in os.path.basename(p) and real_access(p, m)), \
                mock.patch.object(runfolder.os, "scandir", scandir):
            listing = walk_runs(str(runs))
            if listing.files or listing.problems:
                assert list_runs(str(runs)).files == listing.files
            else:  # the workflow stops: no run file
                with pytest.raises(FileNotFoundError, match="no run files found for"):
                    list_runs(str(runs))
        # the identity of the walk: every entry is read (a link to a folder: walked), skipped
        # (or below a skipped folder) or a problem (or below one): nothing passed over in silence
        walked = set(listing.seen.values())
        for entry in every_entry(runs):
            accounted = [entry in walked, under(entry, listing.skipped), under(entry, listing.problems)]
            assert any(accounted), (entry, listing)
        assert len(set(listing.files)) == len(listing.files)
        assert all(f.startswith(str(runs) + os.sep) and os.path.isfile(f) for f in listing.files)
        event("refused" if listing.problems else "read" if listing.files else "no run file")
        event(f"{len(listing.skipped)} skipped")
        if not listing.files and not listing.problems:
            return
        if listing.problems:
            with pytest.raises(InputError) as caught:
                listing.check()
            message = str(caught.value)
            assert "\n" not in message and message.startswith(listing.problems[0][0] + ": ")
            assert message.startswith(str(runs))
            return
        for path in written:  # a run file written is read unless a skipped folder holds it
            assert path in listing.files or under(path, listing.skipped) or \
                any(os.path.samefile(path, f) for f in listing.files), path
        qrels = root / "qrels"
        qrels.write_bytes(QRELS)
        tables = ingest_track("t", str(qrels), listing.files, skipped=listing.skipped, threads=1)
        report = tables.report
        assert sorted(report.loc[report.kind == "run", "file"]) == sorted(listing.files)
        assert sorted(report.loc[report.kind == "skipped", "file"]) == sorted(p for p, _ in listing.skipped)
        outcomes = list(LineCounts.OUTCOMES)
        assert (report[outcomes].sum(axis=1) == report.lines_read).all()
        for row in report[report.kind == "run"].itertuples():
            # the lines written to this file: by its path, a symlink's target, or a hard link's
            # twin (a hard link has no target; it is the same file as one written elsewhere)
            twins = [n for p, n in written.items() if os.path.exists(p) and os.path.samefile(p, row.file)]
            assert row.lines_read == written.get(os.path.realpath(row.file), twins[0] if twins else None), row
        inclusion = track_run_inclusion(report)
        assert len(inclusion) == len(listing.files) + len(listing.skipped)
        assert len(excluded_messages(inclusion)) == (~inclusion.included).sum()


def test_the_walk_visits_entries_in_name_order(tmp_path):
    for name in ("b", "a", "c"):
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "a.d").mkdir()
    (tmp_path / "a.d" / "z").write_bytes(b"x")
    assert [os.path.relpath(p, tmp_path) for p in walk_runs(tmp_path).files] == ["a", "a.d/z", "b", "c"]
