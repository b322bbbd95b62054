"""reeval.stats.studentized_range: the quadrature quantile against scipy's, and the band
within which tukey_hsd_significant asks scipy (so its verdicts are scipy's, certified)."""
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.integrate import IntegrationWarning

from reeval.stats import allpairs, studentized_range as sr


def scipy_q_crit(confidence, k, df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IntegrationWarning)
        return float(stats.studentized_range.ppf(confidence, k, df))


# k runs; df as the blocked design gives them ((k-1)(T-1)), around scipy's switch to the
# infinite-df form at 100,000, and far beyond it; the confidences of the rareness tables and others
GRID = [(0.95, 2, 1.0), (0.999, 2, 1.0), (0.99, 3, 8.0), (0.5, 10, 45.0), (0.95, 23, 1078.0),
        (0.99, 57, 2744.0), (0.9, 143, 7000.0), (0.95, 10, 99999.0), (0.99, 300, 100000.0),
        (0.95, 3000, 2999.0), (0.999, 5000, 2e6)]


@pytest.mark.parametrize("confidence,k,df", GRID)
def test_the_quadrature_quantile_is_scipys_within_the_measured_error(confidence, k, df):
    want = scipy_q_crit(confidence, k, df)
    assert abs(sr.quantile(confidence, k, df) - want) <= sr.MEASURED_ERROR * want
    assert sr.validated(confidence, k, df)


def test_the_band_is_a_hundred_times_the_measured_error():
    assert sr.BAND >= 100 * sr.MEASURED_ERROR


def test_the_quantile_solves_its_own_cdf():
    q = sr.quantile(0.95, 57, 2744.0)
    assert sr.cdf_pdf(q, 57, 2744.0)[0] == pytest.approx(0.95, abs=1e-14)
    assert sr.cdf_pdf(q * (1 + 1e-6), 57, 2744.0)[0] > 0.95 > sr.cdf_pdf(q * (1 - 1e-6), 57, 2744.0)[0]


@pytest.mark.parametrize("confidence,k,df", [(0.95, 57, 2744.0), (0.99, 23, 1078.0), (0.95, 2, 1.0)])
def test_q_at_just_below_and_just_above_scipys_q_crit_get_scipys_verdict(confidence, k, df):
    qc, q_hat = scipy_q_crit(confidence, k, df), sr.quantile(confidence, k, df)
    q = np.array([qc, np.nextafter(qc, 0), np.nextafter(qc, np.inf), qc * (1 - 1e-12), qc * (1 + 1e-12),
                  q_hat, q_hat * (1 - sr.BAND), q_hat * (1 + sr.BAND), q_hat * (1 - 2 * sr.BAND),
                  q_hat * (1 + 2 * sr.BAND), 0.0, np.inf, np.nan, qc / 2, qc * 2])
    allpairs._studentized_range_ppf.cache_clear()
    np.testing.assert_array_equal(allpairs._exceeds_q_crit(q, confidence, k, df), q > qc)


def _no_scipy(*args):
    raise AssertionError("scipy's quantile asked for a q outside the band")


def test_q_outside_the_band_never_ask_scipy(monkeypatch):
    q_hat = sr.quantile(0.95, 57, 2744.0)
    q = np.array([0.0, q_hat * (1 - 2 * sr.BAND), q_hat * (1 + 2 * sr.BAND), np.inf, np.nan])
    monkeypatch.setattr(allpairs, "_studentized_range_ppf", _no_scipy)
    np.testing.assert_array_equal(allpairs._exceeds_q_crit(q, 0.95, 57, 2744.0), [False, False, True, True, False])


@pytest.mark.parametrize("confidence,k,df", [(0.9999, 5, 40.0), (0.3, 5, 40.0), (0.95, 50, 10.0), (0.95, 6000, 1e6),
                                             (0.95, 5, 3e6)])
def test_outside_the_measured_domain_scipy_decides_every_pair(monkeypatch, confidence, k, df):
    asked = []
    monkeypatch.setattr(allpairs, "_studentized_range_ppf", lambda *a: asked.append(a) or 4.0)
    assert not sr.validated(confidence, k, df)
    np.testing.assert_array_equal(allpairs._exceeds_q_crit(np.array([1.0, 9.0]), confidence, k, df), [False, True])
    assert asked == [(confidence, k, df)]


@pytest.mark.parametrize("design", ["blocked", "oneway"])
def test_verdicts_near_q_crit_are_the_tables(design):
    """Two runs whose difference is placed at q_crit (to the last bit), and just either side
    of it, among others: tukey_hsd_significant gives the verdict of tukey_hsd's table (scipy's q_crit)."""
    rng = np.random.default_rng(7)
    X = rng.random((12, 20))
    for confidence in (0.95, 0.99):
        # shifting a row by a constant leaves the residuals, so MSE and se, unchanged (both designs)
        X[1:4] = X[0] + 0.1
        first = allpairs.tukey_hsd(X, confidence=confidence, p_values=False, design=design)
        qc = first.attrs["q_crit"]
        se = math.sqrt(first.attrs["mse"] / X.shape[1])
        X[1] = X[0] + qc * se                  # the pair (0, 1) at q_crit, to rounding
        X[2] = X[0] - qc * se * (1 - 1e-9)     # (0, 2) just under it
        X[3] = X[0] + qc * se * (1 + 1e-9)     # (0, 3) just over it
        table = allpairs.tukey_hsd(X, confidence=confidence, p_values=False, design=design)
        assert table.attrs["mse"] == pytest.approx(first.attrs["mse"], rel=1e-12)
        assert table.q.iloc[0] == pytest.approx(qc, rel=1e-12)
        want = (table["q"] > qc).to_numpy()
        assert not want[1] and want[2]
        np.testing.assert_array_equal(allpairs.tukey_hsd_significant(X, confidence=confidence, design=design), want)


def test_the_quadrature_over_large_df_is_the_infinite_df_form():
    """scipy switches to the infinite-df integral at df = 100,000; so does the quadrature."""
    assert sr.quantile(0.95, 10, 100000.0) == sr.quantile(0.95, 10, 2e6) == sr.quantile(0.95, 10, math.inf)
    assert sr.quantile(0.95, 10, 99999.0) > sr.quantile(0.95, 10, 100000.0)
