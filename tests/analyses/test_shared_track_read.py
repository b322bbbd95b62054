"""The analyses job reads a track once (reeval.workflow.measures_step.read_included_track) and
gives rareness and lexiprecision the same tables and grid: every table they write equals the
one each writes when it reads the track itself, and the folder's tables are read once."""
import pyarrow.parquet as pq
import pytest

from reeval.analyses.lexiprecision.report import track_lexiprecision
from reeval.analyses.rareness.report import track_rareness, with_parsed_alphas
from reeval.io.ingest import write_track
from reeval.synth.ingested import generate_and_ingest
from reeval.synth.tracks import DEFAULT_CAMPAIGN
from reeval.workflow import measures_step
from reeval.workflow.config_check import section_with_defaults


@pytest.fixture(scope="module")
def graded_track(tmp_path_factory):
    """A synthetic track with graded judgments, ingested into a folder."""
    root = tmp_path_factory.mktemp("shared")
    track = "syn-graded"
    tables = generate_and_ingest(track, root / "src", str(root / "src" / "runs"), DEFAULT_CAMPAIGN[track], seed=5)
    write_track(tables, root / track)
    return track, root / track


def both_studies(track, track_dir, out, included=None):
    rareness = with_parsed_alphas(section_with_defaults("rareness", {"trials": 10}))
    lexi = section_with_defaults("lexiprecision", {"label_removal": {"samples": 2}})
    track_rareness(track, track_dir, out / "rareness", rareness, rel_level=1, figures=False, included=included)
    # level 2: the grid of relevance level 1 and 2 position vectors, and figures 8-9's removals
    track_lexiprecision(track, track_dir, out / "lexiprecision", rel_level=2, config=lexi, figures=False,
                        included=included)


def test_one_read_gives_the_tables_of_separate_reads(graded_track, tmp_path, monkeypatch):
    track, d = graded_track
    both_studies(track, d, tmp_path / "separate")
    reads = []
    real = measures_step.read_track_tables
    monkeypatch.setattr(measures_step, "read_track_tables", lambda folder: reads.append(folder) or real(folder))
    both_studies(track, d, tmp_path / "shared", included=measures_step.read_included_track(d))
    assert reads == [d]
    written = sorted(p.relative_to(tmp_path / "separate") for p in (tmp_path / "separate").rglob("*.parquet"))
    assert len(written) > 20 and written == sorted(
        p.relative_to(tmp_path / "shared") for p in (tmp_path / "shared").rglob("*.parquet"))
    for name in written:
        separate, shared = pq.read_table(tmp_path / "separate" / name), pq.read_table(tmp_path / "shared" / name)
        assert separate.num_rows == shared.num_rows and separate.equals(shared), name


def test_the_shared_grid_keeps_docnos_and_the_included_runs(graded_track):
    _, d = graded_track
    included = measures_step.read_included_track(d)
    assert included.grid.docno is not None and included.grid.qrels_docno is not None
    assert included.grid.runs == included.runs == sorted(included.runs) and len(included.runs) > 2


def test_judged_read_with_its_dictionaries_gives_the_grid_of_plain_strings(graded_track):
    import numpy as np
    import pyarrow as pa

    from reeval.measures import build_grid

    _, d = graded_track
    judged, depth, qrels = measures_step.read_track_tables(d)
    assert pa.types.is_dictionary(judged.schema.field("run").type)
    plain = pq.read_table(d / "judged.parquet")
    assert plain.schema.field("run").type == pa.string() and judged.cast(plain.schema).equals(plain)
    runs = sorted(set(plain.column("run").to_pylist()))[1:]  # one run left out: rows to drop
    shared, strings = (build_grid(j, depth, qrels, runs=runs, keep_docno=True) for j in (judged, plain))
    for name in ("g", "pos", "rel", "n_ret", "qrels_topic", "qrels_rel", "docno", "qrels_docno"):
        assert np.array_equal(getattr(shared, name), getattr(strings, name)), name
