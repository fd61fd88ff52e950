"""The audit's certifiers on counts whose law is known (``verify.audit.statistics``).

The conditional test on Poisson counts (delta = 0) must spend its alpha and no more.  Coverage is
checked on counts drawn at the boundary of the claim (p1 = e^eps p2, the worst case), at level
1e-6, and a negative control shows the check failing a bound with an off-by-one in its beta
quantile.
"""
import math

import numpy as np
import pytest
from scipy import special, stats

from verify.audit import statistics as st
from verify.audit.stages.certify import draw_size
from verify.audit.stages.validate import validate

COND = st.POISSON_CONDITIONAL
ALPHA, DRAWS, LEVEL = 0.1, 20_000, 1e-6


def _allowed(trials: int, alpha: float) -> int:
    """The most exceedances of "rate <= alpha" a binomial test at LEVEL lets pass."""
    return int(stats.binom.isf(LEVEL, trials, alpha))


def test_the_certifier_follows_delta():
    assert st.certifier_for(0.0) is COND and COND.poisson
    assert st.certifier_for(1e-6) is st.CLOPPER_PEARSON and not st.CLOPPER_PEARSON.poisson
    with pytest.raises(ValueError, match="delta = 0 only"):
        COND.bound(10, 100, 5, 100, 0.1, 1e-6)


def test_the_p_value_is_the_exact_binomial_tail_and_dual_to_the_bound():
    """p-value = P[Binomial(k1 + k2, theta_0) >= k1], theta_0 = e^eps / (1 + e^eps) at equal means;
    it is <= alpha exactly when the bound exceeds eps."""
    for k1, k2, eps in [(100, 50, 0.3), (5, 0, 1.0), (1000, 900, 0.05), (37, 12, 0.9), (1, 0, 0.1)]:
        theta0 = math.exp(eps) / (1 + math.exp(eps))
        assert COND.p_value(k1, 1e4, k2, 1e4, eps) == pytest.approx(stats.binom.sf(k1 - 1, k1 + k2, theta0), rel=1e-9)
        for alpha in (1e-6, 0.01, 0.1, 0.5):
            assert (COND.p_value(k1, 1e4, k2, 1e4, eps) <= alpha) == (COND.bound(k1, 1e4, k2, 1e4, alpha) > eps)
    assert COND.bound(0, 10, 3, 10, 0.1) == -math.inf and COND.p_value(0, 10, 3, 10, 0.1) == 1.0
    # unequal means: the ratio of the means enters as ln(n2 / n1)
    assert COND.bound(100, 2e4, 50, 1e4, 0.1) == pytest.approx(COND.bound(100, 1e4, 50, 1e4, 0.1) - math.log(2))


def test_it_is_narrower_than_the_union_bound_on_small_events():
    """At the suite's n = 3e7 and alpha = 0.1, on an event of mass 0.02 at ratio e^0.1: the
    union of two Clopper-Pearson bounds gives away 0.0043, the conditional test 0.0024."""
    n, p = 3e7, 0.02
    q = p * math.exp(-0.1)
    union, cond = st.eps_bound(p * n, n, q * n, n, ALPHA), COND.bound(p * n, n, q * n, n, ALPHA)
    assert 0.1 - union == pytest.approx(0.0043, abs=2e-4) and 0.1 - cond == pytest.approx(0.0024, abs=2e-4)


@pytest.mark.parametrize("p2,eps,n", [(0.5 * math.exp(-0.1), 0.1, 1e5), (0.01, 0.1, 1e5), (2e-4, 1.0, 1e5),
                                      (0.3, 2.0, 2e3)])
def test_coverage_on_poisson_counts_at_the_boundary(p2, eps, n):
    """Counts at p1 = e^eps p2 exactly (the least favourable law of the claim): the bound exceeds
    eps in at most alpha of DRAWS draws (binomial test at 1e-6), and in more than alpha / 3 where
    the counts are large (an exact test spends its alpha: the check is not vacuous)."""
    rng = np.random.default_rng(11)
    p1 = math.exp(eps) * p2
    k1, k2 = rng.poisson(n * p1, DRAWS), rng.poisson(n * p2, DRAWS)
    over = int(np.sum(COND.bound(k1, n, k2, n, ALPHA) > eps))
    assert over <= _allowed(DRAWS, ALPHA), over
    if n * p2 > 100:
        assert over > DRAWS * ALPHA / 3, over


def test_the_coverage_check_fails_a_bound_off_by_one():
    """Negative control: theta_L = Beta^-1(alpha; k1 + 1, k2) (the successes counted once too
    often) certifies more than the truth in 12.8% of draws at small counts; the check above
    fails it."""
    rng = np.random.default_rng(11)
    n, p2, eps = 1e5, 2e-4, 1.0
    k1, k2 = rng.poisson(n * math.exp(eps) * p2, DRAWS), rng.poisson(n * p2, DRAWS)
    theta = special.betaincinv(k1 + 1.0, np.maximum(k2, 1e-300), ALPHA)
    over = int(np.sum(np.log(theta) - np.log1p(-theta) > eps))
    assert over > _allowed(DRAWS, ALPHA), over


def test_on_a_fixed_number_of_outputs_it_is_conservative_not_exact():
    """Why certification draws Poisson(n) outputs: on exactly n outputs the counts are binomial,
    less variable than Poisson ones, so the test keeps its level there too but does not spend it
    (a plentiful event, p1 = 0.5: 3.9% of draws over the truth against alpha = 10%).  Exactness --
    the proof of validity -- needs the Poisson counts."""
    rng = np.random.default_rng(11)
    n, p1 = 100_000, 0.5
    p2 = p1 * math.exp(-0.1)
    k1, k2 = rng.binomial(n, p1, DRAWS), rng.binomial(n, p2, DRAWS)
    over = int(np.sum(COND.bound(k1, n, k2, n, ALPHA) > 0.1))
    assert over < 0.6 * ALPHA * DRAWS


def test_the_ranking_proxy_is_close_to_the_exact_bound():
    k1 = np.array([50, 500, 5000, 50000, 40])
    k2 = np.array([10, 300, 4000, 1000, 0])
    n = 10 ** 6
    exact, proxy = COND.bound(k1, n, k2, n, ALPHA), COND.approx(k1, n, k2, n, ALPHA)
    assert np.all(np.abs(proxy - exact) < 0.02 + 0.1 * np.abs(exact)), (proxy, exact)
    assert np.all(proxy <= exact + 1e-3)                 # slightly conservative


def test_certification_draws_a_poisson_number_of_outputs_at_delta_zero():
    """A plan at delta = 0 draws Poisson(n) outputs per stream, the same for the same seed and key;
    at delta > 0 exactly n."""
    def plan(delta):
        return validate(lambda x, n, seed: np.zeros(n), 0.0, 1.0, eps=1.0, delta=delta, n=10_000, seed=4)
    sizes = np.array([draw_size(plan(0.0), 10_000, (0, side, 1, r)) for side in (0, 1) for r in range(200)])
    assert sizes.mean() == pytest.approx(10_000, abs=5 * math.sqrt(10_000 / sizes.size))
    assert sizes.var() == pytest.approx(10_000, rel=0.35)          # Poisson: variance = mean
    assert draw_size(plan(0.0), 10_000, (0, 1, 1, 3)) == draw_size(plan(0.0), 10_000, (0, 1, 1, 3))
    assert draw_size(plan(1e-5), 10_000, (0, 1, 1, 3)) == 10_000
