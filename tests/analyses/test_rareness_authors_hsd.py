"""Rareness table 1 by its authors' procedure: ecir2023's ``utils.discriminative_power(scores,
alpha, test='hsd')`` runs statsmodels' ``pairwise_tukeyhsd`` on each pair of runs alone (two
groups: the two runs' per-topic scores, topics unpaired) and counts the pairs it rejects.
Here that procedure, rebuilt from its description on statsmodels (a test extra only), is the
oracle of reeval's vectorised :func:`reeval.stats.allpairs.two_group_hsd_significant`.

statsmodels computes its critical value with ``scipy.stats.studentized_range.ppf`` on every
call (about 0.3 s) and p-values that the rejection does not use: the tests memoise the first
and skip the second (:func:`fast_statsmodels`); the decision (means, pooled variance,
q > q_crit) stays statsmodels' own."""

import functools
import glob

import numpy as np
import pytest

from reeval.analyses.rareness import analysis as ra
from reeval.analyses.rareness import core as rr
from reeval.measures import build_grid
from reeval.stats.allpairs import two_group_hsd_significant

from conftest import REAL_TRACKS, ingested

multicomp = pytest.importorskip("statsmodels.sandbox.stats.multicomp",
                                reason="statsmodels (a test extra) runs the authors' procedure")
from statsmodels.stats.multicomp import pairwise_tukeyhsd  # noqa: E402


class _CachedRange:
    """scipy's studentized range with ppf memoised and sf skipped (statsmodels' p-values,
    which its ``reject`` does not read)."""

    def __init__(self, dist):
        self.ppf = functools.lru_cache(maxsize=None)(dist.ppf)

    @staticmethod
    def sf(q, k, df):
        return np.full(np.shape(q), np.nan)


@pytest.fixture
def fast_statsmodels(monkeypatch):
    monkeypatch.setattr(multicomp, "studentized_range", _CachedRange(multicomp.studentized_range))


def authors_rejects(X: np.ndarray, alpha: float) -> np.ndarray:
    """The authors' procedure: for each pair i < j, ``pairwise_tukeyhsd`` on the two runs'
    scores as two groups; its reject flag (triu order)."""
    S, T = X.shape
    labels = np.repeat(["i", "j"], T)
    return np.array([bool(pairwise_tukeyhsd(np.concatenate([X[i], X[j]]), labels, alpha=alpha).reject[0])
                     for i, j in zip(*np.triu_indices(S, 1))], dtype=bool)


def test_two_group_hsd_rejects_the_pairs_statsmodels_rejects_pair_by_pair(fast_statsmodels):
    rng = np.random.default_rng(3)
    X = rng.random((9, 15)) * np.linspace(0.2, 1.0, 9)[:, None] + np.linspace(0, 0.5, 9)[:, None]
    X[1] = X[0]                        # identical runs: never different
    X[2] = X[0][::-1]                  # the same scores in another topic order: unpaired, not different
    X[3], X[4], X[5] = 0.0, 0.5, 0.5   # constant runs: MSE 0, different exactly when the means differ
    for alpha in (0.05, 0.01):
        got = two_group_hsd_significant(X, confidence=1 - alpha)
        np.testing.assert_array_equal(got, authors_rejects(X, alpha))
    pairs = {(i, j): k for k, (i, j) in enumerate(zip(*np.triu_indices(9, 1)))}
    got = two_group_hsd_significant(X)
    assert not got[pairs[0, 1]] and not got[pairs[0, 2]] and not got[pairs[4, 5]]
    assert got[pairs[3, 4]]


def test_two_group_hsd_is_the_pooled_two_sample_t_test():
    """k = 2: q = sqrt(2) |t| and q_crit = sqrt(2) t_crit, so the verdict is scipy's
    ``ttest_ind`` (equal variances) at 1 - confidence."""
    from scipy import stats

    rng = np.random.default_rng(8)
    X = rng.random((14, 30)) + np.linspace(0, 0.4, 14)[:, None]
    p = np.array([stats.ttest_ind(X[i], X[j]).pvalue for i, j in zip(*np.triu_indices(14, 1))])
    np.testing.assert_array_equal(two_group_hsd_significant(X, confidence=0.95), p < 0.05)
    assert 0 < (p < 0.05).sum() < p.size


@pytest.mark.parametrize("confidence,df", [(0.95, 58), (0.99, 58), (0.95, 88), (0.99, 2)])
def test_the_two_group_critical_value_is_the_studentized_ranges(confidence, df):
    from scipy import stats

    from reeval.stats.allpairs import _two_group_q_crit

    assert _two_group_q_crit(confidence, df) == pytest.approx(stats.studentized_range.ppf(confidence, 2, df), rel=1e-7)


def test_two_group_hsd_with_one_topic_finds_nothing():
    assert not two_group_hsd_significant(np.array([[0.1], [0.9], [0.5]])).any()


def test_discriminative_power_writes_both_methods_for_each_measure():
    rng = np.random.default_rng(2)
    X = rng.random((12, 20)) + np.linspace(0, 0.6, 12)[:, None]
    out = ra.discriminative_power({("m", 0.5): X})
    assert list(out.method) == ["authors", "blocked"] and (out.pairs == 66).all()
    authors = out.set_index("method").loc["authors"]
    assert authors.significant_95 == two_group_hsd_significant(X, 0.95).sum()
    assert authors.significant_99 == two_group_hsd_significant(X, 0.99).sum()
    with pytest.raises(ValueError, match="unknown method 'oneway'"):
        ra.discriminative_power({("m", 0.5): X}, methods=("oneway",))


#: trec-covid-round1 has 143 runs: 10,153 pairs x 12 statsmodels calls take minutes here
SLOW = {"trec-covid-round1"}


@pytest.mark.parametrize("track", sorted(set(REAL_TRACKS) - SLOW))
def test_authors_procedure_counts_equal_statsmodels_on_the_shared_tracks(track, fast_statsmodels):
    """On reeval's per-topic P_rareness@100 and AP_rareness@100 (alpha 0, 0.5, 1) of every
    shared track, at the track's relevance level: the pairs rejected at 0.05 and 0.01 equal
    statsmodels', pair for pair."""
    tables = ingested(track)
    grid = build_grid(tables.judged, tables.depth, tables.qrels, keep_docno=True)
    hits = rr.top_k_hits(grid, 100, REAL_TRACKS[track])
    per_topic = {(f"{f}@100", a): rr.scores(hits, f, a) for f in ("P_rareness", "AP_rareness")
                 for a in (0.0, 0.5, 1.0)}
    power = ra.discriminative_power(per_topic, methods=("authors",)).set_index(["measure", "alpha"])
    for (measure, alpha), X in per_topic.items():
        row = power.loc[(measure, rr.alpha_label(alpha))]
        for level, column in ((0.05, "significant_95"), (0.01, "significant_99")):
            want = authors_rejects(X, level)
            np.testing.assert_array_equal(two_group_hsd_significant(X, 1 - level), want)
            assert row[column] == want.sum()
