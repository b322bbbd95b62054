"""A synthetic track generated and ingested in one process (rule synthetic_track): the same
files and the same tables as writing the track, then ingesting it as rule ingest does."""

import dataclasses

import pytest

from reeval.io.ingest import ingest_track
from reeval.io.ingest_memory import ingest_sources
from reeval.io.sources import text_source
from reeval.synth.ingested import generate_and_ingest
from reeval.synth.tracks import DEFAULT_CAMPAIGN, TrackSpec, write_track, written_files
from reeval.workflow.tracks import list_runs
from test_synthetic import GENERATED_BY_MAIN, TIED_SHALLOW_GZ, digest, zlib_only

#: ties across the cut, shallow runs, missing topics, repeated documents (the repeat's score,
#: minus 1, is not rounded: Arrow's shortest round-trip text), unjudged topics, negative
#: grades, a topic without relevant documents, plain text
ODD_PLAIN = TrackSpec(n_runs=9, n_topics=5, depth=40, relevant_per_topic=6, max_rel=3, score_decimals=1,
                      tie_fraction=0.6, shallow_fraction=0.4, shallow_depths=(1, 3, 40), missing_topic_fraction=0.4,
                      n_unjudged_topics=2, duplicate_docs=3, negative_judgments=2, zero_relevant_topics=1,
                      compress="none")
TRACKS = {**DEFAULT_CAMPAIGN, "tied-shallow-gz": TIED_SHALLOW_GZ, "odd-plain": ODD_PLAIN}
TABLES = ("runs", "qrels", "judged", "depth")


def generated_then_ingested(folder, spec, threads):
    """write_track, then ingest_track of the files as rule ingest reads them (the old two jobs)."""
    write_track(folder, spec, seed=7)
    runs = list_runs(str(folder / "runs"))
    return ingest_track("t", str(folder / "qrels.txt"), runs.files, threads=threads, skipped=runs.skipped,
                        digest=True)


def report_of(tables, folder):
    """The ingest report with the track's folder replaced (each side wrote its own)."""
    report = tables.report
    report["file"] = report.file.str.replace(str(folder), "<track>", regex=False)
    return report


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(TRACKS))
def test_the_fused_job_writes_the_same_files_and_tables_as_generate_then_ingest(tmp_path, name, threads, monkeypatch):
    zlib_only(monkeypatch)  # the digests of main's bytes (the fast deflate's: test_synthetic_text.py)
    spec = TRACKS[name]
    before = generated_then_ingested(tmp_path / "two-jobs" / name, spec, threads)
    fused_folder = tmp_path / "one-job" / name
    after = generate_and_ingest("t", fused_folder, str(fused_folder / "runs"), spec, seed=7, threads=threads)
    assert digest(fused_folder) == digest(tmp_path / "two-jobs" / name)
    if name in GENERATED_BY_MAIN:
        assert digest(fused_folder) == GENERATED_BY_MAIN[name]
    for table in TABLES:
        assert getattr(after, table).equals(getattr(before, table), check_metadata=True), table
    assert report_of(after, fused_folder).equals(report_of(before, tmp_path / "two-jobs" / name))
    assert after.report.sha256.notna().all() and (after.report.bytes > 0).all()


def test_the_odd_track_has_every_oddity_the_comparison_needs(tmp_path):
    tables = generate_and_ingest("t", tmp_path, str(tmp_path / "runs"), ODD_PLAIN, seed=7, threads=1)
    runs = tables.report[tables.report.kind == "run"]
    assert runs.duplicate.sum() >= 3 and runs.unjudged_topic.sum() > 0
    kept = tables.runs.to_pandas()
    assert kept.duplicated(["run", "qid", "score"]).sum() > 100  # tied scores, ordered by docno
    assert (runs.kept < 5 * 40 + 2 * 40).any()  # shallow or missing topics
    assert (tables.qrels.column("rel").to_numpy() < 0).sum() == 2


def test_the_report_names_the_runs_folder_as_the_caller_names_it(tmp_path, monkeypatch):
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    tables = generate_and_ingest("t", "out/", "out//runs", DEFAULT_CAMPAIGN["syn-shallow"], seed=7)
    files = tables.report.file.tolist()
    assert files[0] == "out/qrels.txt" and all(f.startswith("out//runs/run") for f in files[1:]), files


def test_the_digest_is_of_the_gzip_as_stored(tmp_path):
    written = list(written_files(tmp_path, TIED_SHALLOW_GZ, seed=3, digest=True))
    run = written[1]
    assert run.compression == "gzip" and run.path.suffix == ".gz"
    assert run.digest.size == run.path.stat().st_size and run.digest.size < len(run.text)
    assert written[0].compression == "plain" and written[0].digest.size == len(written[0].text)


def test_runs_that_are_not_the_run_files_named_are_refused(tmp_path):
    written = list(written_files(tmp_path, DEFAULT_CAMPAIGN["syn-graded"], seed=7, digest=True))
    sources = [(str(w.path), text_source(str(w.path), w.text, w.compression, w.digest)) for w in written]
    with pytest.raises(ValueError, match="are not the run files named"):
        ingest_sources("t", sources[0], sources[1:-1], [p for p, _ in sources[1:]])


def test_a_spec_is_not_changed_by_being_generated_and_ingested(tmp_path):
    spec = dataclasses.replace(TIED_SHALLOW_GZ)
    generate_and_ingest("t", tmp_path, str(tmp_path / "runs"), spec, seed=3)
    assert spec == TIED_SHALLOW_GZ
