"""Each track's figures drawn by a job of their own (rule track_figures, issue 39 item 1):
from the tables the track's analyses wrote, with the same data, and per-track jobs that read
only their own track's options."""

import numpy as np
import pyarrow.parquet as pq

from reeval.analyses.lexiprecision import core as lx
from reeval.analyses.lexiprecision.figures import locality_points
from reeval.analyses.lexiprecision.report import read_positions
from reeval.analyses.rareness.report import with_parsed_alphas
from reeval.workflow.config_check import section_with_defaults
from reeval.workflow.tracks import own_section


def random_vectors(rng, S, T, levels=20, depth=40):
    """PositionVectors of S runs x T topics: per cell a sorted sample of distinct ranks."""
    m = rng.integers(1, 15, T)
    found = np.array([[rng.integers(0, m[t] + 1) for t in range(T)] for _ in range(S)])
    P = np.full((S, T, max(levels, int(found.max()))), lx.UNRETRIEVED, dtype=np.int32)
    for s in range(S):
        for t in range(T):
            P[s, t, :found[s, t]] = np.sort(rng.choice(np.arange(1, depth + 1), found[s, t], replace=False))
    return lx.PositionVectors([f"r{s}" for s in range(S)], [f"q{t}" for t in range(T)], m, found, P, 1)


def test_position_vectors_read_back_give_figure_7_the_points_of_the_study(tmp_path):
    for seed, (S, T) in enumerate([(6, 5), (2, 1), (1, 3), (9, 2)]):
        pv = random_vectors(np.random.default_rng(seed), S, T)
        pq.write_table(pv.to_table(), tmp_path / "positions.parquet")
        back = read_positions(tmp_path / "positions.parquet", 1)
        assert back.runs == pv.runs and back.topics == pv.topics and back.rel_level == 1
        assert np.array_equal(back.m, pv.m) and np.array_equal(back.found, pv.found)
        width = back.positions.shape[2]
        assert np.array_equal(back.positions, pv.positions[:, :, :width])
        assert (pv.positions[:, :, width:] == lx.UNRETRIEVED).all()
        assert np.array_equal(locality_points(back), locality_points(pv))


def test_a_per_track_job_reads_its_own_tracks_entries_and_no_other():
    rareness = with_parsed_alphas(section_with_defaults("rareness", {
        "paper": {"a": "TREC-8", "b": "TREC-5"}, "synthetic": {"topics": {"a": 401, "b": 7}},
        "table4": {"topics": {"b": 9}, "rarest": 5}}))
    mine = own_section(rareness, "rareness", "a")
    assert mine["paper"] == {"a": "TREC-8"} and mine["synthetic"]["topics"] == {"a": 401}
    assert mine["table4"] == {"topics": {}} and mine["k"] == rareness["k"]
    assert rareness["paper"] == {"a": "TREC-8", "b": "TREC-5"}  # the study's own options unchanged
    # a new track, or another track's entry, leaves a track's options as they were
    more = with_parsed_alphas(section_with_defaults("rareness", {
        "paper": {"a": "TREC-8", "b": "TREC-5", "c": "WT14"}, "synthetic": {"topics": {"a": 401, "c": 3}},
        "table4": {"topics": {"c": 1}, "rarest": 20}}))
    assert own_section(more, "rareness", "a") == mine
    lexi = section_with_defaults("lexiprecision", {"paper": {"a": "deep-pass (2019)", "b": "web (2009)"}})
    mine = own_section(lexi, "lexiprecision", "b")
    assert mine["paper"] == {"b": "web (2009)"} and "figure2" not in mine and mine["levels"] == lexi["levels"]
