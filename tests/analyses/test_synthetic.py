"""The seeded synthetic campaign: reproducible bytes and the oddities of real files."""

import dataclasses
import gzip
import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from reeval.io.ingest import ingest_track
from reeval.synth import pooltop, tracks
from reeval.synth.tracks import (BENCHMARK_TRACK, DEFAULT_CAMPAIGN, TrackSpec, _strings, generate_track,
                                 write_track)


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(folder).as_posix().encode() + p.read_bytes())
    return h.hexdigest()


def zlib_only(monkeypatch) -> None:
    """Deflate and inflate with Python's zlib, as where the ``isal`` package is not installed
    (``from isal import ...`` raises ImportError): the stored bytes the digests below were taken of."""
    monkeypatch.setitem(sys.modules, "isal", None)


def text_digest(folder: Path) -> str:
    """:func:`digest` of the files' text: each gzip file decompressed, whichever deflate wrote it."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            h.update(p.relative_to(folder).as_posix().encode() + (gzip.decompress(data) if p.suffix == ".gz" else data))
    return h.hexdigest()


def test_same_seed_same_bytes_also_in_another_process(tmp_path):
    write_track(tmp_path / "a", DEFAULT_CAMPAIGN["syn-mixed"], seed=7)
    write_track(tmp_path / "b", DEFAULT_CAMPAIGN["syn-mixed"], seed=7)
    write_track(tmp_path / "c", DEFAULT_CAMPAIGN["syn-mixed"], seed=8)
    subprocess.run([sys.executable, "-m", "reeval.synth.tracks", str(tmp_path / "d"),
                    "--track", "syn-mixed", "--seed", "7"], check=True)
    assert digest(tmp_path / "a") == digest(tmp_path / "b") == digest(tmp_path / "d" / "syn-mixed")
    assert digest(tmp_path / "a") != digest(tmp_path / "c")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("campaign")
    tables = {}
    for name, spec in DEFAULT_CAMPAIGN.items():
        write_track(out / name, spec, seed=3)
        runs = sorted(str(p) for p in (out / name / "runs").iterdir())
        tables[name] = (out / name, ingest_track(name, out / name / "qrels.txt", runs))
    return tables


def test_default_campaign_has_every_oddity(campaign):
    reports = {name: t.report for name, (_, t) in campaign.items()}
    total = lambda col: sum(r[col].sum() for r in reports.values())
    assert total("duplicate") >= 2 and total("unjudged_topic") > 0
    assert total("comment") == 1 and total("blank") == 1
    qrels = {name: t.qrels.to_pandas() for name, (_, t) in campaign.items()}
    assert (qrels["syn-graded"].rel == -1).sum() == 2 and qrels["syn-graded"].rel.max() == 3
    shallow = campaign["syn-shallow"][1]
    rel_per_topic = qrels["syn-shallow"].assign(r=qrels["syn-shallow"].rel > 0).groupby("qid").r.sum()
    assert (rel_per_topic == 0).sum() == 1                      # a topic without relevant documents
    depth = shallow.depth.to_pandas()
    assert depth.n_ret.min() <= 20 and depth.n_ret.max() == 50  # shallow runs
    topics_per_run = depth.groupby("run").qid.nunique()
    assert topics_per_run.min() < topics_per_run.max()          # runs missing judged topics
    graded_runs = campaign["syn-graded"][1].runs.to_pandas()
    ties = graded_runs.groupby(["run", "qid"]).score.apply(lambda s: s.duplicated().mean())
    assert ties.max() > 0.5                                     # a mostly tied run
    mixed_dir, mixed = campaign["syn-mixed"]
    names = sorted(p.name for p in (mixed_dir / "runs").iterdir())
    assert any(n.startswith("input.") for n in names)
    rep = mixed.report.set_index("run")
    assert "run02" in rep.index and rep.loc["run01", "tag"] == "renamed-tag"
    texts = [gzip.decompress(p.read_bytes()).decode() for p in (mixed_dir / "runs").iterdir()]
    firsts = [t.splitlines()[0] if not t.startswith("#") else t.splitlines()[1] for t in texts]
    assert any("\t" in f for f in firsts) and any("\t" not in f for f in firsts)
    assert {f.split()[1] for f in firsts} == {"Q0", "0", "q0"}
    assert any(f.split()[3] == "0" for f in firsts)             # ranks starting at 0
    assert {l.split()[1] for l in (mixed_dir / "qrels.txt").read_text().splitlines()} == {"0.5", "1"}


def test_runs_spread_from_good_to_bad(campaign):
    from reeval.measures import aggregate, build_grid, evaluate_grid, parse_measures
    t = campaign["syn-graded"][1]
    ms = parse_measures(["map"])
    agg = aggregate(evaluate_grid(build_grid(t.judged, t.depth, t.qrels), ms), ms)
    assert agg["map"].max() > 0.3 and agg["map"].min() < 0.15


def test_benchmark_shape_scaled_down():
    spec = dataclasses.replace(BENCHMARK_TRACK, n_runs=3, n_topics=20)
    qrels, runs = generate_track(spec, seed=1)
    assert len(runs) == 3
    assert all(t.num_rows == 20 * 1000 for t in runs.values())
    rel = qrels["rel"].to_numpy()
    assert 70 < (rel > 0).sum() / 20 < 130
    scores = next(iter(runs.values()))["score"].to_numpy()
    assert (abs(scores * 1e4 - (scores * 1e4).round()) < 1e-6).all()  # 4 decimals: ties occur
    assert len(set(scores)) < len(scores)


# the bytes main's generator wrote (7bcea11) before it stopped sorting whole pools (issue 41 item 4)
GENERATED_BY_MAIN = {
    "syn-graded": "5241c01d1fcf27470020c1baec2e7fef1d97f405166b1755f942055a61e3af9d",
    "syn-shallow": "24dbea113a3b111144a18b296c4abdd2af8399f48187d0f8bc6d389d9a73791f",
    "syn-mixed": "df982e187ecf41130f361132dd9fb2d501f0f447a6a0dd1f2a6116f924e63741",
}
TIED_SHALLOW_GZ = TrackSpec(n_runs=12, n_topics=6, depth=300, tie_fraction=0.5, shallow_fraction=0.3,
                            missing_topic_fraction=0.2, duplicate_docs=2, compress="gz")


@pytest.mark.parametrize("name", sorted(GENERATED_BY_MAIN))
def test_built_in_tracks_keep_the_bytes_of_the_generator_that_sorted_whole_pools(tmp_path, name, monkeypatch):
    zlib_only(monkeypatch)
    write_track(tmp_path / name, DEFAULT_CAMPAIGN[name], seed=7)
    assert digest(tmp_path / name) == GENERATED_BY_MAIN[name]


def test_a_gzipped_track_of_tied_shallow_runs_keeps_the_bytes_of_the_generator_that_sorted_whole_pools(tmp_path,
                                                                                                   monkeypatch):
    zlib_only(monkeypatch)
    write_track(tmp_path / "x", TIED_SHALLOW_GZ, seed=3)
    assert digest(tmp_path / "x") == "ffbe8f673ca65a6a639a237183eb154cfea77746beaceef3292943fae431fbad"


@pytest.mark.parametrize("decimals", [None, 1, 0])
@pytest.mark.parametrize("depth", [0, 1, 7, 50, 64, 80])
def test_the_top_of_a_pool_is_its_stable_sort_also_when_ties_cross_the_cut(decimals, depth):
    latent = np.random.default_rng(depth).standard_normal((9, 64))
    if decimals is not None:  # rounded: many equal values, also at the depth-th highest
        latent = np.round(latent, decimals)
    expected = np.argsort(-latent, axis=1, kind="stable")[:, :depth]
    np.testing.assert_array_equal(pooltop.top_depth(latent, depth), expected)


@pytest.mark.parametrize("block", [1, 64, 128, 64 * 9, 64 * 20])
def test_the_top_of_a_pool_taken_in_blocks_of_rows_is_the_stable_sort_of_each_row(monkeypatch, block):
    latent = np.random.default_rng(5).standard_normal((9, 64))
    latent[4, :10] = latent[4].max() + 1  # row 4: ten equal highest values, a tie across a cut at 7
    latent[4, 20] = -0.0
    latent[7, 30] = 0.0
    monkeypatch.setattr(pooltop, "TOP_BLOCK", block)  # 1 and 64: a row a block; 128: rows 4 and 5 together
    for depth in (7, 10, 63):
        expected = np.argsort(-latent, axis=1, kind="stable")[:, :depth]
        np.testing.assert_array_equal(pooltop.top_depth(latent, depth), expected)
    assert pooltop.top_depth(latent[:0], 7).shape == (0, 7)


def test_equal_values_inside_the_top_of_a_pool_keep_index_order():
    latent = np.random.default_rng(6).standard_normal((3, 20))
    latent[0, [9, 2, 5]] = 5.0  # the three highest equal, the cut at 7 below them
    latent[1] = -1 - np.abs(latent[1])
    latent[1, 8], latent[1, 3] = -0.0, 0.0  # equal as numbers: index order, whatever the sign
    expected = np.argsort(-latent, axis=1, kind="stable")[:, :7]
    assert expected[0, :3].tolist() == [2, 5, 9] and expected[1, :2].tolist() == [3, 8]
    np.testing.assert_array_equal(pooltop.top_depth(latent, 7), expected)


@pytest.mark.parametrize("topics, pool", [(3, 7), (2, 10), (12, 1001), (0, 5), (4, 1)])
def test_the_pool_docnos_are_those_of_each_topic_and_position(topics, pool):
    p = tracks._Pool(np.zeros(topics, "S3"), None, topics, None, pool, len(str(pool)), None, None, None, None)
    pairs = tracks._docnos(np.repeat(np.arange(topics), pool), np.tile(np.arange(pool), topics), p.width)
    docnos = tracks._pool_docnos(p)
    assert docnos.dtype == pairs.dtype and docnos.shape == (topics, pool)
    np.testing.assert_array_equal(docnos, pairs.reshape(topics, pool))
    if topics > 2 and pool > 9:
        assert docnos[2, 9] == b"D0002" + b"9".rjust(p.width, b"0")


@pytest.mark.parametrize("shape", [(3, 5), (0, 4), (4, 0)])
def test_a_row_take_is_take_along_axis(shape):
    values = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    index = np.random.default_rng(1).integers(0, max(shape[1], 1), (shape[0], 2 if shape[1] else 0))
    np.testing.assert_array_equal(pooltop.row_take(values, index), np.take_along_axis(values, index, axis=1))


def test_docnos_as_arrow_strings_keep_short_values_and_full_ones():
    full = np.array([b"D001", b"D002"], dtype="S4")
    short = np.array([b"101", b"99", b""], dtype="S3")  # numpy pads with NUL, which is no character
    assert _strings(full).to_pylist() == ["D001", "D002"]
    assert _strings(short).to_pylist() == ["101", "99", ""]
    assert _strings(full).type == _strings(short).type == pa.string()
