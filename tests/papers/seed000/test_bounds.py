"""Seed 000's bounds against the spec's precomputed tables (seed_000_001.md Appendix A.1, A.2;
A.2 also holds the v001 corollaries 8 and 11) and their applicability rules."""
import math

import pytest

from dpbench.environments import TWENTY_ARM_MEANS
from dpbench.papers.seed000 import bounds as s00
from dpbench.papers.seed000 import factors
from verify import bounds

TWENTY = dict(means=list(TWENTY_ARM_MEANS), environment="bernoulli")

# ------------------------------------------------------------ Appendix A.1
A1 = [  # eps, F_L, beta, c_eps, G, F_L/beta, UB_B/LB, UB_L/LB
    (0.1, 1681, 400.7, 0.04996, 24.92, 4.196, 128.6, 539.7),
    (0.2, 441, 100.7, 0.09967, 6.167, 4.381, 130.6, 572),
    (0.5, 81, 16.67, 0.2449, 0.9207, 4.859, 144.9, 703.8),
    (1, 25, 4.683, 0.4621, 0.1810, 5.339, 207.0, 1105),
    (2, 9, 1.724, 0.7616, 0.01901, 5.220, 725.7, 3788),
    (5, 3.24, 1.027, 0.9866, 4.54e-05, 3.154, 1.81e5, 5.71e5),
    (10, 1.96, 1.000, 0.9999, 2.06e-09, 1.960, 3.9e9, 7.6e9),
]


@pytest.mark.parametrize("row", A1, ids=[f"eps={r[0]}" for r in A1])
def test_privacy_factors_match_appendix_a1(row):
    eps, fl, beta, ce, g, ratio, ub_b, ub_l = row
    assert factors.F_L(eps) == pytest.approx(fl, rel=1e-3)
    assert factors.beta(eps) == pytest.approx(beta, rel=2e-3)
    assert factors.c_eps(eps) == pytest.approx(ce, rel=2e-3)
    assert factors.G(eps) == pytest.approx(g, rel=3e-3)
    assert factors.F_L(eps) / factors.beta(eps) == pytest.approx(ratio, rel=2e-3)
    assert s00.ratio_upper_to_lower(eps, "B") == pytest.approx(ub_b, rel=6e-3)   # table: 2-4 digits
    assert s00.ratio_upper_to_lower(eps, "L") == pytest.approx(ub_l, rel=6e-3)
    assert s00.ratio_upper_to_lower(eps, "B") == pytest.approx(128 * math.cosh(eps / 2) ** 4, rel=1e-12)


# ------------------------------------------------------------ Appendix A.2
A2 = [  # eps, T, Thm 4, Cor 8, Thm 6, Cor 11, UCB1, LB
    (0.2, 1e5, 4.129e6, 4.130e6, 9.427e5, 9.427e5, 9384, 7219),
    (0.2, 1e6, 4.955e6, 4.955e6, 1.131e6, 1.131e6, 11260, 8662),
    (0.2, 1e7, 5.781e6, 5.781e6, 1.320e6, 1.320e6, 13130, 10110),
    (0.5, 1e5, 7.585e5, 7.585e5, 1.561e5, 1.561e5, 9384, 1078),
    (0.5, 1e6, 9.102e5, 9.102e5, 1.873e5, 1.873e5, 11260, 1293),
    (0.5, 1e7, 1.062e6, 1.062e6, 2.186e5, 2.186e5, 13130, 1509),
    (1, 1e5, 2.341e5, 2.341e5, 4.387e4, 4.387e4, 9384, 211.9),
    (1, 1e6, 2.810e5, 2.810e5, 5.264e4, 5.264e4, 11260, 254.3),
    (1, 1e7, 3.278e5, 3.278e5, 6.141e4, 6.141e4, 13130, 296.6),
    (2, 1e5, 8.431e4, 8.432e4, 1.616e4, 1.617e4, 9384, 22.25),
    (2, 1e6, 1.012e5, 1.012e5, 1.939e4, 1.940e4, 11260, 26.69),
    (2, 1e7, 1.180e5, 1.180e5, 2.262e4, 2.263e4, 13130, 31.14),
]


@pytest.mark.parametrize("row", A2, ids=[f"eps={r[0]},T={r[1]:g}" for r in A2])
def test_bound_values_match_appendix_a2(row):
    eps, T, thm4, cor8, thm6, cor11, ucb1, lb = row
    ctx = dict(TWENTY, eps=eps, T=T)
    value = {k: bounds.get(k).evaluate(ctx).value
             for k in ("seed000.thm4", "seed001.cor8", "seed000.thm6", "seed001.cor11", "auer2002.ucb1")}
    assert value["seed000.thm4"] == pytest.approx(thm4, rel=1e-3)
    assert value["seed001.cor8"] == pytest.approx(cor8, rel=1e-3)
    assert value["seed000.thm6"] == pytest.approx(thm6, rel=1e-3)
    assert value["seed001.cor11"] == pytest.approx(cor11, rel=1e-3)
    assert value["auer2002.ucb1"] == pytest.approx(ucb1, rel=1e-3)
    lower = bounds.get("seed000.thm1").evaluate(ctx)
    assert lower.slope * math.log(T) == pytest.approx(lb, rel=1e-3)
    assert bounds.get("auer2002.ucb1").evaluate(ctx).slope == pytest.approx(813.3, rel=1e-4)
    assert lower.slope == pytest.approx(factors.G(eps) * 101.6667, rel=1e-4)


def test_sigmoid_corollaries_use_the_lemma7_constant():
    ctx = dict(means=list(TWENTY_ARM_MEANS), environment="gaussian", sigma=1.0, eps=0.5, T=1e6)
    base = bounds.get("seed000.thm4").evaluate(ctx, environment="bernoulli").value
    cor10 = bounds.get("seed000.cor10").evaluate(ctx)
    assert cor10.value == pytest.approx(base / (0.2066 / math.e) ** 2)
    assert 1 / s00.C_S_GAUSSIAN ** 2 == pytest.approx(173.1, rel=1e-3)      # Appendix A.4
    assert 1 / s00.C_S_SUBGAUSSIAN ** 2 == pytest.approx(1262, rel=3e-3)
    # Bernoulli arms are not "mu_a + i.i.d. noise": the corollary does not apply
    assert not bounds.get("seed000.cor10").evaluate(ctx, environment="bernoulli").applicable
    assert not bounds.get("seed000.cor10").evaluate(ctx, sigma=2.0).applicable


def test_lower_bound_needs_bernoulli_arms_and_homogeneous_levels():
    lb = bounds.get("seed000.thm1")
    assert lb.evaluate(dict(TWENTY, eps=1.0)).applicable
    mixed = lb.evaluate(dict(TWENTY, eps=1.0, environment="mixed"))
    assert not mixed.applicable and "Bernoulli" in mixed.reason
    hetero = lb.evaluate(dict(TWENTY, eps=1.0, eps_dist="discrete"))
    assert not hetero.applicable and "homogeneous" in hetero.reason
    missing = lb.evaluate(dict(TWENTY))
    assert not missing.applicable and "needs eps" in missing.reason
