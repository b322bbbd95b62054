"""Rareness table 2 (stability) follows the paper's method, checked against an independent
implementation of the published algorithm (Türkmen, Lease & Kutlu, section 4.4, and the
authors' fuzziness of 0.05): half the topics, 1000 trials, a pair's stability is the share
of all trials won by its more frequent winner, two means within the fuzziness tie."""

import itertools
import random

import numpy as np
import pytest

from conftest import REAL_TRACKS, ingested
from reeval.analyses.rareness import analysis as ra
from reeval.analyses.rareness import core as rr
from reeval.measures import build_grid

TRIALS = 1000
FUZZINESS = 0.05
MEASURES = [(f, a) for f in ("P_rareness", "AP_rareness") for a in (0.0, 0.5, 1.0)]


def published_algorithm(scores: dict, topics: list, size: int, trials: int, fuzziness: float,
                        seed: int) -> float:
    """The paper's stability, written from its text: ``scores`` run -> topic -> value.
    Each trial samples ``size`` topics; for every pair of runs the better mean wins when it
    leads by more than ``fuzziness``, else the trial is a tie. Stability = sum over pairs of
    the majority's wins / all comparisons (ties included)."""
    rng = random.Random(seed)
    runs = sorted(scores)
    counts = {pair: [0, 0, 0] for pair in itertools.combinations(runs, 2)}
    for _ in range(trials):
        sample = rng.sample(topics, size)
        mean = {r: sum(scores[r][t] for t in sample) / size for r in runs}
        for a, b in counts:
            if mean[a] - mean[b] > fuzziness:
                counts[(a, b)][0] += 1
            elif mean[b] - mean[a] > fuzziness:
                counts[(a, b)][1] += 1
            else:
                counts[(a, b)][2] += 1
    majority = sum(max(c[0], c[1]) for c in counts.values())
    return majority / sum(sum(c) for c in counts.values())


@pytest.fixture(scope="module")
def dl2020_per_topic():
    """reeval's per-topic P_rareness@100 and AP_rareness@100 (alpha 0, 0.5, 1) of the shared
    DL-2020 passage track at its relevance level."""
    tables = ingested("trec2020-dl-passage")
    grid = build_grid(tables.judged, tables.depth, tables.qrels, keep_docno=True)
    hits = rr.top_k_hits(grid, 100, REAL_TRACKS["trec2020-dl-passage"])
    return hits, {(f"{f}@100", a): rr.scores(hits, f, a) for f, a in MEASURES}


def test_dl2020_passage_stability_agrees_with_the_published_algorithm_within_monte_carlo_error(dl2020_per_topic):
    """Ours over 12 seeds and the published algorithm over 4 seeds of its own: two samples of
    the same Monte Carlo distribution, whose means agree within 3 standard errors."""
    hits, per_topic = dl2020_per_topic
    S, T = hits.shape
    assert S == 12 and T == 54
    seeds = 12
    ours = ra.stability(per_topic, trials=TRIALS, seed=3, fuzziness=FUZZINESS, seeds=seeds)
    assert (ours.sampled_topics == T // 2).all() and (ours.fuzziness == FUZZINESS).all()
    for (measure, alpha), X in per_topic.items():
        scores = {r: dict(enumerate(X[r])) for r in range(S)}
        oracle = np.array([published_algorithm(scores, list(range(T)), T // 2, TRIALS, FUZZINESS, seed=s)
                           for s in range(4)])
        row = ours[(ours.measure == measure) & (ours.alpha == rr.alpha_label(alpha))].iloc[0]
        draws = np.array([ra.stability({(measure, alpha): X}, trials=TRIALS, seed=3 + n,
                                       fuzziness=FUZZINESS).stability.iloc[0] for n in range(seeds)])
        assert draws[0] == row.stability and draws.min() == row.stability_low and draws.max() == row.stability_high
        pooled = np.sqrt(((len(oracle) - 1) * oracle.var(ddof=1) + (seeds - 1) * draws.var(ddof=1))
                         / (len(oracle) + seeds - 2))
        se = pooled * np.sqrt(1 / len(oracle) + 1 / seeds)
        assert abs(oracle.mean() - draws.mean()) <= 3 * se + 1e-9, (measure, alpha, oracle, draws.mean(), se)
        assert pooled < 0.01  # 1000 trials: the Monte Carlo error is small next to the paper's differences


def test_the_fuzziness_lowers_stability_to_the_papers_scale(dl2020_per_topic):
    """With the fuzziness, close pairs tie in most trials and stability falls far below the
    0.97-0.98 of exact comparison (the paper's DLT20 values run 0.07-0.47)."""
    _, per_topic = dl2020_per_topic
    exact = ra.stability(per_topic, trials=200, seed=1, fuzziness=0.0)
    fuzzy = ra.stability(per_topic, trials=200, seed=1, fuzziness=FUZZINESS)
    assert (fuzzy.stability < exact.stability).all() and (fuzzy.tied_share > exact.tied_share).all()


def test_relative_fuzziness_ties_within_a_share_of_the_larger_mean():
    X = np.array([[1.00, 1.00], [0.96, 0.96], [0.50, 0.50]])  # 3 runs, 2 topics, constant means
    rel = ra.stability({("m", 0.0): X}, trials=5, seed=0, fuzziness=0.05, scale="relative")
    # pairs (1, .96) tie (4% of 1), (1, .5) and (.96, .5) are decided in every trial
    assert rel.stability.iloc[0] == pytest.approx(2 / 3) and rel.tied_share.iloc[0] == pytest.approx(1 / 3)
    ab = ra.stability({("m", 0.0): X}, trials=5, seed=0, fuzziness=0.05, scale="absolute")
    assert ab.stability.iloc[0] == pytest.approx(2 / 3)  # 0.04 <= 0.05: the same tie
    ab = ra.stability({("m", 0.0): X}, trials=5, seed=0, fuzziness=0.03, scale="absolute")
    assert ab.stability.iloc[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="fuzziness scale"):
        ra.stability({("m", 0.0): X}, trials=5, seed=0, scale="percent")


def test_a_difference_equal_to_the_fuzziness_is_a_tie_as_in_the_authors_code():
    X = np.array([[0.25, 0.25], [0.0, 0.0]])
    out = ra.stability({("m", 0.0): X}, trials=3, seed=0, fuzziness=0.25)
    assert out.stability.iloc[0] == 0.0 and out.tied_share.iloc[0] == 1.0
