"""Writing outputs (reeval.outputs): atomic writes and their stale temporaries, the one
figure saver, byte-reproducible files."""

from pathlib import Path

import pytest

from conftest import write_lines
from reeval.ingest import TRACK_FILES, ingest_track, write_track

# reeval.outputs is imported inside the tests, so that the tests of behaviour the previous
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
    from reeval.outputs import stale_temporaries

    for name in (".x.csv.tmp", ".x.csv.abcdefgh.tmp", ".x.csv.abc.tmp", ".x.csv.old.tmp", ".y.csv.tmp",
                 "x.csv.tmp", ".x.csv.abcdefgh.tmp.bak"):
        (tmp_path / name).touch()
    assert [p.name for p in stale_temporaries(tmp_path / "x.csv")] == [".x.csv.abcdefgh.tmp", ".x.csv.tmp"]
    assert stale_temporaries(tmp_path / "missing" / "x.csv") == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    from reeval.outputs import atomic_write

    target = tmp_path / "summary.md"
    atomic_write(target, lambda tmp: Path(tmp).write_text("old\n"))

    def fail(tmp):
        with open(tmp, "w") as fh:
            fh.write("partial")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        atomic_write(target, fail)
    assert target.read_text() == "old\n" and temporaries(tmp_path) == []


# ------------------------------------------------------------------ byte-reproducible files

def test_the_same_figure_saved_at_different_dates_is_byte_identical(tmp_path, monkeypatch):
    """matplotlib dates a PDF from SOURCE_DATE_EPOCH (else the clock): the study's bar
    histogram (PNG and PDF) gives the same bytes at two dates."""
    from reeval.study_figures import bar_histogram

    for day, name in ((0, "first"), (86400 * 365, "second")):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", str(day))
        bar_histogram(["1", "2-9", ">=10"], [3, 0, 5], "title", "x", "y", tmp_path / f"{name}.png")
    for ext in ("png", "pdf"):
        assert (tmp_path / f"first.{ext}").read_bytes() == (tmp_path / f"second.{ext}").read_bytes(), ext


def test_save_figure_writes_each_format_reproducibly_and_closes_the_figure(tmp_path, monkeypatch):
    from reeval.outputs import pyplot, save_figure

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
