"""Laws of the seed 000/001 curators (Lemmas 2, 5, 8, 9; seed 001 M6), at alpha = 1e-6."""
import math

import numpy as np
import pytest
from scipy import stats

import dpbench
import verify
from dpbench.engine.mechanism import engine_responses
from dpbench.mechanisms import ldp_curators as lc

ALPHA = 1e-6
N = 200_000


def _binom_ok(k, n, p):
    return stats.binomtest(int(k), n, p).pvalue > ALPHA


@pytest.mark.parametrize("eps", [0.2, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("r", [0.0, 0.3, 1.0])
def test_ctb_probability_is_lemma5(r, eps):
    bits = lc.CTBMechanism(eps=eps)(r, N, 3)
    p = (r * math.exp(eps) + 1 - r) / (1 + math.exp(eps))     # Curator 3, literal form
    assert set(np.unique(bits)) <= {0.0, 1.0}
    assert _binom_ok(bits.sum(), N, p)
    assert lc.ctb_probability(r, eps) == pytest.approx(p, rel=1e-12)


def test_ctb_mean_and_gap_lemma5():
    """mu_eps = 1/2 + (2 mu - 1)(e^eps - 1)/(2(e^eps + 1)); gap contracts by exactly c_eps."""
    eps = 1.0
    c = (math.e - 1) / (math.e + 1)
    for mu in (0.2, 0.5, 0.9):
        assert lc.ctb_probability(mu, eps) == pytest.approx(0.5 + (2 * mu - 1) * c / 2, rel=1e-12)
    assert lc.ctb_probability(0.9, eps) - lc.ctb_probability(0.6, eps) == pytest.approx(c * 0.3, rel=1e-12)
    assert lc.contraction(eps) == pytest.approx(c, rel=1e-12)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_ctl_is_unbiased_laplace(eps):
    x = 0.7
    out = lc.CTLMechanism(eps=eps)(x, N, 5)
    assert stats.kstest(out - x, stats.laplace(scale=1 / eps).cdf).pvalue > ALPHA
    z = (out.mean() - x) / math.sqrt(2 / eps ** 2 / N)
    assert abs(z) < stats.norm.isf(ALPHA / 2)


def test_sigmoid_variants_map_through_s():
    eps, r = 1.0, 2.5
    s = 1 / (1 + math.exp(-r))
    out = lc.CTLSMechanism(eps=eps)(r, N, 7)
    assert stats.kstest(out - s, stats.laplace(scale=1 / eps).cdf).pvalue > ALPHA
    bits = lc.CTBSMechanism(eps=eps)(r, N, 8)
    assert _binom_ok(bits.sum(), N, 0.5 + (s - 0.5) * math.tanh(eps / 2))
    assert lc.sigmoid(-800.0) == 0.0 and lc.sigmoid(800.0) == 1.0      # no overflow


def test_debias_is_unbiased_for_any_reward_law():
    """E[g(CTB(R; eps); eps)] = E[R] exactly, since p_eps is affine (seed 001 M6)."""
    for eps in (0.2, 1.0, 3.0):
        for mu in (0.1, 0.55, 0.9):
            p = lc.ctb_probability(mu, eps)
            mean_g = p * lc.debias(1.0, eps) + (1 - p) * lc.debias(0.0, eps)
            assert mean_g == pytest.approx(mu, abs=1e-12)
            var_g = p * (1 - p) * (lc.debias(1.0, eps) - lc.debias(0.0, eps)) ** 2
            assert var_g == pytest.approx((lc.bernoulli_factor(eps) - (2 * mu - 1) ** 2) / 4, rel=1e-9)


def test_factors_match_spec_appendix_a1():
    assert lc.bernoulli_factor(2.0) == pytest.approx(1.724, abs=1e-3)
    assert lc.bernoulli_factor(0.2) == pytest.approx(100.7, abs=0.05)
    assert lc.laplace_factor(0.5) == 81
    for eps in (1e-3, 700.0, 1000.0):                  # numerical robustness (spec §7 item 12)
        assert math.isfinite(lc.bernoulli_factor(eps)) and math.isfinite(lc.debias(1.0, eps))


def test_sampler_is_reproducible_and_validated():
    mech = dpbench.sampler("ctl", eps=1.0)
    assert np.array_equal(mech(0.5, 100, 1), mech(0.5, 100, 1))
    assert not np.array_equal(mech(0.5, 100, 1), mech(0.5, 100, 2))
    assert (mech.claimed_eps, mech.claimed_delta) == (1.0, 0.0)
    with pytest.raises(dpbench.InputError, match="eps"):
        dpbench.sampler("ctl", eps=-1)
    with pytest.raises(dpbench.InputError, match=r"x must lie in \[0, 1\]"):
        mech(1.5, 10, 0)
    with pytest.raises(dpbench.InputError, match=r"x must lie in \[0, 1\]"):    # also on the audit's fast path
        verify.audit(mech, 1.5, 0.0, eps=1.0, n=10_000)


def test_distribution_invariance_of_ctb_agents():
    """The CTB output law depends on the reward law only through its mean (spec §7 item 11):
    P[CTB(R) = 1] = p_eps(E R) for ANY reward law on [0, 1], since p_eps is affine, so LDP-UCB-B
    behaves alike on the Bernoulli and mixed instances.  Checked on the engine's own responses
    for each law of the mixed instance (Beta(4, 1), the two-point law on {0.4, 1}, U[0, 1]) and a
    Bernoulli arm, with the power to see a difference of 0.01 in P[CTB = 1] (z >= 2 x 4.89)."""
    inst = dpbench.ENVIRONMENTS.get_spec("mixed").build(means=[0.8, 0.7, 0.5, 0.9])
    mech = lc.CTBMechanism(eps=1.0).component
    n = 300_000
    for arm, mu in enumerate(inst.means):
        bits = engine_responses(mech, inst.env, arm, 1, n, 30 + arm)
        p = 0.5 + (mu - 0.5) * math.tanh(0.5)
        assert _binom_ok(bits.sum(), n, p), f"arm {arm} (mean {mu}): {bits.mean():.5f} vs {p:.5f}"
        assert 0.01 / math.sqrt(p * (1 - p) / n) >= 2 * stats.norm.isf(ALPHA / 2)


def test_hetero_level_table_is_what_each_user_would_compute():
    """HeLDP curators read a discrete level's lattice plan and tanh(eps/2) from a table built
    once: every row equals the per-user computation (the continuous path), bit for bit, and a
    level the lattice cannot keep (or 0) is silent."""
    from dpbench.mechanisms import privacy_levels as pl
    levels = pl.discrete([0.0, 1e-5, 0.2, 1.0, 2.0, 100.0])
    ctl = lc.HeteroCurator.ctl(levels, False)
    ctb = lc.HeteroCurator.ctb(levels, False)
    for j, eps in enumerate(levels.values):
        g, s = lc.ctl_plan(eps) if eps > 0 else (1.0, math.inf)
        if eps > 0 and not lc.laplace_keeps(1.0 / g, eps):
            s = math.inf
        assert tuple(ctl.level_table[j, 1:]) == ((g, s) if eps > 0 else (1.0, math.inf))
        assert ctb.level_table[j, 0] == lc.contraction(eps)
        assert tuple(ctl.level_table[j]) == lc.level_row(False, True, eps)
    assert not ctl.level_table[0, 2] < math.inf and not ctl.level_table[1, 2] < math.inf
    assert lc.HeteroCurator.ctl(pl.truncated_gaussian(), False).level_table.shape == (1, 3)
