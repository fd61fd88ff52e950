"""Seed 001's heterogeneous-privacy bounds: Theorems 7 and 10 minimised over kappa, their
homogeneous corollaries, R18 and the paper's level pool (seed_000_001.md section 2.4, A.3)."""
import math

import numpy as np
import pytest

from dpbench.environments import TWENTY_ARM_MEANS
from dpbench.mechanisms.privacy_levels import level_statistics, make_levels
from dpbench.papers.seed001 import bounds as s01
from verify import bounds

TWENTY = dict(means=list(TWENTY_ARM_MEANS), environment="bernoulli")


@pytest.mark.parametrize("eps", [0.2, 2.0, 20.0])
def test_theorems_7_and_10_reduce_to_corollaries_8_and_11(eps):
    """Homogeneous levels: Q = 0, so the infimum is kappa -> infinity, which is exactly Cor 8 / Cor 11."""
    stats = level_statistics(make_levels("fixed", eps=eps), eps)
    ctx = dict(TWENTY, T=1e6, eps=eps, eps_min=eps, **stats)
    for thm, cor in (("seed001.thm7", "seed001.cor8"), ("seed001.thm10", "seed001.cor11")):
        a, b = bounds.get(thm).evaluate(ctx), bounds.get(cor).evaluate(ctx)
        assert a.value == pytest.approx(b.value, rel=1e-9)
        assert a.slope == pytest.approx(b.slope, rel=1e-9)


@pytest.mark.parametrize("dist,eps_min", [("discrete", 0.2), ("discrete", 1.0), ("discrete", 2.0),
                                          ("discrete", 100.0), ("truncated_gaussian", 0.5),
                                          ("truncated_gaussian", 1.0), ("truncated_gaussian", 2.0)])
def test_heterogeneous_bounds_are_minimised_over_kappa(dist, eps_min):
    stats = level_statistics(make_levels(dist), eps_min)
    ctx = bounds.context(None, **TWENTY, T=1e7, eps_min=eps_min, eps_dist=dist, **stats)
    for key, terms, theorem in (("seed001.thm7", s01.thm7_terms, 7), ("seed001.thm10", s01.thm10_terms, 10)):
        ev = bounds.get(key).evaluate(ctx)
        assert ev.applicable and math.isfinite(ev.value) and ev.value > 0
        kappa = s01.minimising_kappa(ctx, theorem)
        log_t = math.log(1e7)
        for k in (kappa / 3, kappa * 3, 0.1, 1.0, 10.0):     # no other kappa does better
            assert terms(ctx, k, log_t) >= ev.value * (1 - 1e-9)
        # the HoLDP-type corollaries need eps and a homogeneous level: not applicable here
        cor = bounds.get("seed001.cor8" if theorem == 7 else "seed001.cor11").evaluate(ctx)
        assert not cor.applicable


def test_corollary_8_keeps_the_forced_exploration_term_for_large_eps():
    """R18: the dropped 10 Delta log T term dominates only for eps > 33.9 (Delta = 1)."""
    assert s01.forced_term_threshold(1.0) == pytest.approx(33.9, abs=0.05)
    ctx = dict(means=[1.0, 0.0], environment="bernoulli", T=1e6)
    big = bounds.get("seed001.cor8").evaluate(ctx, eps=100.0)
    assert big.slope == pytest.approx(10.0)                 # max{8 (1.04)^2, 10} = 10
    assert bounds.get("seed001.cor8").evaluate(ctx, eps=2.0).slope == pytest.approx(72.0)


def test_level_statistics_of_the_paper_pool():
    """Seed 001 A.3 on F_D = U{0, 0.2, 1, 2, 100} at eps_min = 1: the users with eps_t >= 1
    (three of five, the threshold itself included) and their exact conditional factors."""
    kept = np.array([1.0, 2.0, 100.0])
    stats = level_statistics(make_levels("discrete"), 1.0)
    coth2 = 1.0 / np.tanh(kept / 2.0) ** 2
    assert stats["p0"] == pytest.approx(0.6, rel=1e-12)
    assert stats["alpha0"] == pytest.approx(np.mean(kept ** -2.0), rel=1e-12)
    assert stats["beta0"] == pytest.approx(np.mean(coth2), rel=1e-12)
    assert stats["Q_B"] == pytest.approx(coth2[0] - coth2[-1], rel=1e-12)
    assert stats["V_L"] == pytest.approx(np.mean((1.0 + 4.0 / kept) ** 2) / 0.6, rel=1e-12)
