"""Regret on the 20-arm instance stays below Theorem 4 / Theorem 6 of seed 000 at T = 1e5."""
import math

import pytest

import dpbench
from dpbench.environments import TWENTY_ARM_MEANS
from dpbench.mechanisms.ldp_curators import bernoulli_factor, laplace_factor

T = 100_000
GAPS = [0.9 - m for m in TWENTY_ARM_MEANS if m < 0.9]


def ucb1_bound(T):            # Auer et al. 2002, Thm 1 (the eps = infinity case of Thm 6)
    return sum(8 * math.log(T) / d + (1 + math.pi ** 2 / 3) * d for d in GAPS)


def thm4_bound(T, eps):       # LDP-UCB-L
    return sum(8 * laplace_factor(eps) * math.log(T) / d + (1 + 2 * math.pi ** 2 / 3) * d for d in GAPS)


def thm6_bound(T, eps):       # LDP-UCB-B
    return sum(8 * bernoulli_factor(eps) * math.log(T) / d + (1 + math.pi ** 2 / 3) * d for d in GAPS)


def test_bound_values_match_spec_table_a2():
    assert ucb1_bound(T) == pytest.approx(9384, rel=1e-3)
    assert thm6_bound(T, 2.0) == pytest.approx(1.616e4, rel=1e-3)
    assert thm4_bound(T, 2.0) == pytest.approx(8.431e4, rel=1e-3)


@pytest.mark.parametrize("policy,bound", [("ucb1", lambda: ucb1_bound(T)),
                                          ("ldp_ucb_b", lambda: thm6_bound(T, 2.0)),
                                          ("ldp_ucb_l", lambda: thm4_bound(T, 2.0))])
def test_mean_regret_below_theorem(policy, bound):
    params = {} if policy == "ucb1" else {"eps": 2.0}
    res = dpbench.simulate(policy, "bernoulli", T, 20, 123, **params)
    # one-sided upper confidence limit at level 1 - 1e-6 (z = 4.75) must lie under the bound
    assert res.mean[-1] + 4.75 * res.stderr[-1] < bound()
