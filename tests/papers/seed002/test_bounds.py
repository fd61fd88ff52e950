"""Seed 002's bounds against seed_002.md sections 6 and 10."""
import math

import numpy as np
import pytest

from dpbench.papers.seed002 import bounds as s2
from verify import bounds

INSTANCE_1 = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]
INSTANCE_2 = [0.3 + 0.004 * i for i in range(101)]


@pytest.mark.parametrize("means,T,expected", [(INSTANCE_1, 1e5, 10049), (INSTANCE_1, 1e6, 12052),
                                              (INSTANCE_2, 1e5, 239292), (INSTANCE_2, 1e6, 287069)])
def test_theorem_16_reference_values(means, T, expected):
    ctx = dict(means=means, environment="bernoulli", T=T)
    for eps, delta in ((1.0, 0.01), (1.0, 0.0), (0.5, math.exp(-10))):   # the ln T term dominates
        assert bounds.get("seed002.thm16").evaluate(ctx, eps=eps, delta=delta).value == \
            pytest.approx(expected, abs=1.0)


def test_seed002_start_phases_and_privacy_terms():
    assert s2.start_phase_gauss(1, 0.01) == pytest.approx(7.68, abs=0.01)
    assert s2.start_phase_gauss(1, math.exp(-10)) == pytest.approx(18.47, abs=0.01)
    assert s2.start_phase_gauss(1, 1e-10) == pytest.approx(44.52, abs=0.01)
    assert s2.start_phase_gauss(0.1, 0.01) == pytest.approx(767.9, abs=0.1)
    assert s2.start_phase_gauss(0.0, 0.01) == pytest.approx(795.8, abs=0.1)
    assert s2.start_phase_beta(1, 0.01) == pytest.approx(1064.7, abs=0.1)
    assert s2.start_phase_beta(1, math.exp(-10)) == pytest.approx(2130.4, abs=0.1)
    assert s2.start_phase_beta(1, 1e-10) == pytest.approx(4703.4, abs=0.1)
    assert s2.start_phase_beta(0.1, 0.01) == pytest.approx(38456, abs=1)
    gaps1 = 0.7 - np.array(INSTANCE_1)
    assert s2.start_phase_regret(gaps1, s2.start_phase_beta(1, 0.01)) == pytest.approx(1917, abs=1)
    # (4/eps) ln(1 + (e^eps - 1)/(2 delta)): the T -> infinity extra per arm (spec 10.6)
    big_t = 1e300
    for eps, delta, expected in ((1, 0.01, 17.86), (0.1, 0.01, 73.36), (1e-4, 0.001, 1951.7), (1e-5, 0.001, 1995.0)):
        assert 4 * s2.privacy_term(eps, delta, big_t, 2 * big_t, 2) == pytest.approx(expected, abs=0.05)
    # eps -> 0 limit 2 (T - 2)/(T delta), finite at eps = 0
    assert 4 * s2.privacy_term(0.0, 0.001, 1e6, 2e6, 2) == pytest.approx(2 * (1e6 - 2) / (1e6 * 0.001))
    assert 4 * s2.privacy_term(1e-12, 0.001, 1e6, 2e6, 2) == pytest.approx(2 * (1e6 - 2) / 1e3, rel=1e-6)


def test_seed002_lower_bound_is_tiny_and_conditional():
    ctx = dict(means=[0.5, 0.25], eps=1.0, delta=0.0, c0=1.0, alpha=0.5)
    assert bounds.get("seed002.thm4").evaluate(ctx, T=1e5).value == pytest.approx(0.13, abs=0.005)
    assert bounds.get("seed002.thm4").evaluate(ctx, T=1e9).value == pytest.approx(0.42, abs=0.005)
    other = bounds.get("seed002.thm4").evaluate(ctx, T=1e5, means=[0.9, 0.8])
    assert not other.applicable and "I1" in other.reason


def test_seed002_slopes():
    ctx = dict(means=INSTANCE_1, environment="bernoulli", eps=1.0)
    s1 = 54.36
    assert bounds.get("seed002.thm16").evaluate(ctx, delta=0.01).slope == pytest.approx(16 * s1, rel=1e-3)
    assert bounds.get("seed002.thm11").evaluate(ctx, delta=0.01, v=1.0).slope == pytest.approx(2 * s1, rel=1e-3)
    assert bounds.get("seed002.thm11").evaluate(ctx, delta=0.01).slope == pytest.approx(4 * s1, rel=1e-3)
    assert not bounds.get("seed002.thm11").evaluate(ctx, delta=0.0).applicable
