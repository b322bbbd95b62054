"""Runs alike among many runs of one depth (issue 41 item 1): found by a digest of each
run's kept lines and compared line by line only inside a digest, not pair by pair."""

import numpy as np

from conftest import write_lines
from reeval import compute
from reeval.io.ingest import ingest_track

TOPICS, DEPTH = 5, 20


def ranking(rng) -> list[str]:
    """One run's lines: DEPTH documents on each of TOPICS topics, drawn from 40 judged and
    40 unjudged documents a topic."""
    lines = []
    for t in range(TOPICS):
        for rank, d in enumerate(rng.choice(80, DEPTH, replace=False)):
            lines.append(f"{t} Q0 {'j' if d < 40 else 'u'}{d} {rank} {100 - rank} tag")
    return lines


def two_hundred_runs(folder):
    """(qrels, 200 run files of equal depth): run 000 again as `copy`, and `one_off`, run
    001 with its first document replaced by a judged document it does not rank (so the two
    differ in the qrels row of one line)."""
    rng = np.random.default_rng(41)
    qrels = write_lines(folder / "qrels", [f"{t} 0 j{d} {d % 2}" for t in range(TOPICS) for d in range(40)])
    runs = [write_lines(folder / f"run{i:03d}", ranking(rng)) for i in range(198)]
    runs.append(write_lines(folder / "copy", runs[0].read_text().splitlines()))
    lines = runs[1].read_text().splitlines()
    ranked = {line.split()[2] for line in lines[:DEPTH]}
    spare = next(f"j{d}" for d in range(40) if f"j{d}" not in ranked)
    lines[0] = " ".join(["0", "Q0", spare] + lines[0].split()[3:])
    runs.append(write_lines(folder / "one_off", lines))
    return qrels, runs


def test_two_names_for_one_file_are_alike_and_a_one_line_difference_is_not_among_200_runs(tmp_path, monkeypatch):
    qrels, runs = two_hundred_runs(tmp_path)
    tables = ingest_track("t", qrels, runs, tune=False)
    assert len({part.n_ret.tobytes() for part in tables.parts}) == 1  # one depth: one group before
    compared = []
    real = np.array_equal
    monkeypatch.setattr(np, "array_equal", lambda a, b, **kw: compared.append(1) or real(a, b, **kw))
    assert compute.alike_runs(tables) == [["copy", "run000"]]
    assert len(compared) <= 3  # the copy's three arrays; pair by pair was 19,900 pairs of runs
