"""Counts -> certified statements: Clopper-Pearson, p-values and resolution floors."""
import math

import numpy as np
import pytest
from scipy import stats

from verify.audit import statistics as st


def test_clopper_pearson_matches_the_beta_quantiles():
    k = np.array([0, 1, 7, 500, 999, 1000])
    n = 1000
    a = 0.025
    expect_lo = np.where(k == 0, 0.0, stats.beta.ppf(a, np.maximum(k, 1), n - k + 1))
    expect_hi = np.where(k == n, 1.0, stats.beta.ppf(1 - a, k + 1, np.maximum(n - k, 1)))
    assert np.allclose(st.cp_lower(k, n, a), expect_lo, rtol=1e-12, atol=0)
    assert np.allclose(st.cp_upper(k, n, a), expect_hi, rtol=1e-12, atol=0)
    assert st.cp_upper(0, n, a) == pytest.approx(1 - a ** (1 / n), rel=1e-10)


def test_eps_bound_is_the_log_ratio_of_the_two_bounds():
    k1, k2, n, alpha = 6000, 3000, 10000, 0.1
    lo = st.cp_lower(k1, n, alpha / 2)
    hi = st.cp_upper(k2, n, alpha / 2)
    assert st.eps_bound(k1, n, k2, n, alpha) == pytest.approx(math.log(lo / hi))
    assert st.eps_bound(k1, n, k2, n, alpha, 0.1) == pytest.approx(math.log((lo - 0.1) / hi))
    assert st.eps_bound(10, n, 3000, n, alpha, 0.5) == -math.inf          # vacuous
    assert st.eps_bound(k1, n, k2, n, 0.2) > st.eps_bound(k1, n, k2, n, 0.01)


@pytest.mark.parametrize("k1,k2,eps,delta", [(6000, 3000, 0.5, 0.0), (6000, 3000, 0.7, 0.0),
                                              (600, 0, 3.0, 0.0), (5000, 4000, 0.1, 0.01),
                                              (5000, 4000, 0.3, 0.01)])
def test_p_value_rejects_exactly_when_the_bound_exceeds_eps(k1, k2, eps, delta):
    n = 10000
    p = st.p_value(k1, n, k2, n, eps, delta)
    for alpha in (1e-6, 1e-3, 0.05, 0.2):
        assert (p <= alpha) == (st.eps_bound(k1, n, k2, n, alpha, delta) > eps), alpha


def test_p_value_is_valid_at_the_boundary_of_the_null():
    """Under p1 = e^eps p2 (the worst case of H0) rejections stay below alpha (fixed seed)."""
    rng = np.random.default_rng(5)
    eps, n, alpha = 0.5, 2000, 0.1
    p2 = 0.2
    p1 = math.exp(eps) * p2
    k1 = rng.binomial(n, p1, 1000)
    k2 = rng.binomial(n, p2, 1000)
    rejected = np.mean([st.p_value(a, n, b, n, eps) <= alpha for a, b in zip(k1, k2)])
    assert rejected <= alpha


def test_resolution_floors():
    n, alpha = 10 ** 6, 0.05
    ceiling = st.eps_ceiling(n, alpha)                     # the conditional test: theta_L = alpha^(1/n)
    assert ceiling == pytest.approx(math.log(n / math.log(1 / alpha)), abs=0.05)
    floor = st.certification_floor(n, alpha, 1.0)
    approx = math.log(1 / alpha) / math.log(1 + math.exp(-1.0)) / n
    assert 0.8 * approx < floor < 1.25 * approx
    k = round(floor * n)
    cond = st.POISSON_CONDITIONAL
    assert cond.bound(k, n, 0, n, alpha) > 1.0 >= cond.bound(k - 1, n, 0, n, alpha)
    # with delta > 0, Clopper-Pearson (alpha/2 per side): p1_L - delta > e p2_U
    k = round((st.certification_floor(n, alpha, 1.0, 1e-5) - 1e-5) * n)
    assert st.cp_lower(k + 10, n, alpha / 2) - 1e-5 > math.e * st.cp_upper(0, n, alpha / 2)
    need = st.min_samples_to_certify(3.0, alpha)
    assert st.eps_ceiling(need, alpha) > 3.0 >= st.eps_ceiling(need - 1, alpha)


def test_ranking_proxy_is_close_to_the_exact_bound():
    k1 = np.array([50, 500, 5000, 50000])
    k2 = np.array([10, 300, 4000, 1000])
    n = 10 ** 6
    exact = st.eps_bound(k1, n, k2, n, 0.1)
    proxy = st.approx_eps_bound(k1, n, k2, n, st.one_sided_z(0.1))
    assert np.all(np.abs(proxy - exact) < 0.1 + 0.2 * np.abs(exact))


def test_stage_floor_is_the_median_detection_mass():
    """stage_floor: the mass at which all stages pass with probability 1/2 (Poisson counts);
    min_count: the smallest count passing a monotone test."""
    from scipy.stats import poisson
    stages = [(3, 10_000), (24, 50_000), (26, 200_000)]
    p = st.stage_floor(stages)
    chance = math.prod(poisson.sf(k - 1, p * m) for k, m in stages)
    assert chance == pytest.approx(0.5, abs=1e-6)
    assert st.stage_floor([(1, 100)]) == pytest.approx(math.log(2) / 100, rel=1e-6)
    assert st.min_count(lambda k: k * k >= 50, 100) == 8
    assert st.min_count(lambda k: False, 100) is None
    assert st.certification_floor(10 ** 6, 0.05, 1.0, 1e-4) > st.certification_floor(10 ** 6, 0.05, 1.0) + 9e-5


def test_one_sided_z_is_the_per_side_normal_quantile():
    """The ranking proxy's z splits alpha over the two sides like the certified bound."""
    for alpha in (1e-6, 0.01, 0.1):
        assert st.one_sided_z(alpha) == pytest.approx(stats.norm.isf(alpha / 2), rel=1e-12)


def test_delta_bound_is_p1_lower_minus_e_eps_p2_upper():
    k1, k2, n, alpha, eps = 6000, 3000, 10000, 0.1, 0.5
    expect = st.cp_lower(k1, n, alpha / 2) - math.exp(eps) * st.cp_upper(k2, n, alpha / 2)
    assert st.delta_bound(k1, n, k2, n, alpha, eps) == pytest.approx(expect, rel=1e-12)
