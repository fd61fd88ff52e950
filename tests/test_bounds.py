"""The bounds registry against the specs' precomputed tables (seed_000_001.md Appendix A,
seed_002.md sections 6 and 10, seed_003.md section 3.8) and its applicability rules."""
import math

import numpy as np
import pytest

import dpbench
from dpbench.environments import TWENTY_ARM_MEANS
from dpbench.mechanisms.privacy_levels import level_statistics, make_levels
from verify import bounds
from verify.bounds import seed000_001 as s01
from verify.bounds import seed002 as s2
from verify.bounds import seed003 as s3

TWENTY = dict(means=list(TWENTY_ARM_MEANS), environment="bernoulli")
INSTANCE_1 = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]
INSTANCE_2 = [0.3 + 0.004 * i for i in range(101)]

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
    assert s01.F_L(eps) == pytest.approx(fl, rel=1e-3)
    assert s01.beta(eps) == pytest.approx(beta, rel=2e-3)
    assert s01.c_eps(eps) == pytest.approx(ce, rel=2e-3)
    assert s01.G(eps) == pytest.approx(g, rel=3e-3)
    assert s01.F_L(eps) / s01.beta(eps) == pytest.approx(ratio, rel=2e-3)
    assert s01.ratio_upper_to_lower(eps, "B") == pytest.approx(ub_b, rel=6e-3)   # table: 2-4 digits
    assert s01.ratio_upper_to_lower(eps, "L") == pytest.approx(ub_l, rel=6e-3)
    assert s01.ratio_upper_to_lower(eps, "B") == pytest.approx(128 * math.cosh(eps / 2) ** 4, rel=1e-12)


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
    assert lower.slope == pytest.approx(s01.G(eps) * 101.6667, rel=1e-4)


def test_instance_sums():
    from verify.bounds.registry import _complete, sum_gaps, sum_inverse_gaps
    ctx = _complete(dict(TWENTY))
    assert sum_inverse_gaps(ctx) == pytest.approx(101.667, rel=1e-5)
    assert sum_gaps(ctx) == pytest.approx(4.6)


# ----------------------------------------------------------- seed 001 HeLDP
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


def test_sigmoid_corollaries_use_the_lemma7_constant():
    ctx = dict(means=list(TWENTY_ARM_MEANS), environment="gaussian", sigma=1.0, eps=0.5, T=1e6)
    base = bounds.get("seed000.thm4").evaluate(ctx, environment="bernoulli").value
    cor10 = bounds.get("seed000.cor10").evaluate(ctx)
    assert cor10.value == pytest.approx(base / (0.2066 / math.e) ** 2)
    assert 1 / s01.C_S_GAUSSIAN ** 2 == pytest.approx(173.1, rel=1e-3)      # Appendix A.4
    assert 1 / s01.C_S_SUBGAUSSIAN ** 2 == pytest.approx(1262, rel=3e-3)
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


# ------------------------------------------------------------------ seed 002
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


# ------------------------------------------------------------------ seed 003
SPEC_38 = {  # quantity: {v: (paper, algorithm-implied)} from seed_003.md section 3.8
    "DPRSE N_a vs Delta": {0.5: (-3, -3), 0.9: (-2.111, -2.111), 1.0: (-2, -2)},
    "DPRSE N_a vs u": {0.5: (0.667, 2), 0.9: (0.526, 1.111), 1.0: (0.5, 1)},
    "DPRSE worst-case R_T vs T": {0.5: (0.667, 0.667), 0.9: (0.526, 0.526), 1.0: (0.5, 0.5)},
    "DPRSE worst-case R_T vs u": {0.5: (0.222, 0.667), 0.9: (0.249, 0.526), 1.0: (0.25, 0.5)},
    "DPRUCB bound vs ln T": {0.5: (4.5, 4.5), 0.9: (3.611, 3.611), 1.0: (3.5, 3.5)},
    "LDPRSE N_a vs Delta": {0.5: (-3, -6), 0.9: (-2.111, -4.222), 1.0: (-2, -4)},
    "LDPRSE regret share vs Delta": {0.5: (-2, -5), 0.9: (-1.111, -3.222), 1.0: (-1, -3)},
    "LDPRSE worst-case R_T vs T": {0.5: (0.667, 0.833), 0.9: (0.526, 0.763), 1.0: (0.5, 0.75)},
    "LDPRSE worst-case R_T vs K": {0.5: (0.333, 0.167), 0.9: (0.474, 0.237), 1.0: (0.5, 0.25)},
    "LDPRSE worst-case R_T vs eps": {0.5: (-0.667, -0.333), 0.9: (-0.947, -0.474), 1.0: (-1, -0.5)},
}


@pytest.mark.parametrize("v", [0.5, 0.9, 1.0])
def test_seed003_exponent_table(v):
    table = s3.exponent_table(v)
    for quantity, by_v in SPEC_38.items():
        assert table[quantity] == pytest.approx(by_v[v], abs=1e-3), quantity


def test_seed003_bounds_need_eps_at_most_one():
    ctx = dict(means=[0.9, 0.7, 0.5, 0.3, 0.1], environment="pareto", v=0.9, u=8.1421, T=1e6)
    ok = bounds.get("seed003.thm2").evaluate(ctx, eps=1.0)
    assert ok.applicable and ok.value > 0
    for key in ("seed003.thm2", "seed003.lemma4", "seed003.thm7", "seed003.thm7_alg"):
        ev = bounds.get(key).evaluate(ctx, eps=5.0)
        assert not ev.applicable and "eps <= 1" in ev.reason, key
    exps = {e.variable: e.value for e in bounds.get("seed003.thm7_alg").evaluate(ctx, eps=0.5).exponents}
    assert exps["T"] == pytest.approx(0.763, abs=1e-3) and exps["gap"] == pytest.approx(-3.222, abs=1e-3)
    scaled = bounds.get("seed003.thm2").evaluate(ctx, eps=1.0, constants="scaled")
    assert not scaled.applicable and "literal" in scaled.reason


def test_seed003_central_lower_bound_preconditions_are_out_of_reach():
    ctx = dict(means=[1 / 6, 1 / 6 - 0.05], eps=1.0, v=1.0, T=1e7)
    ev = bounds.get("seed003.thm10").evaluate(ctx)
    assert not ev.applicable and "T^0.13" in ev.reason
    assert bounds.get("seed003.thm10").evaluate(ctx, T=1e15).applicable


# ------------------------------------------------------------------ seed 004
def test_seed004_order_bounds():
    central = bounds.get("seed004.thm1").evaluate({})
    assert {e.variable: e.value for e in central.exponents} == {"T": 0.5, "eps": -1.0, "d": 1.0}
    local = bounds.get("seed004.thm2").evaluate({})
    assert {e.variable: e.value for e in local.exponents}["d"] == 1.5
    shuffled = bounds.get("seed004.thm3").evaluate(dict(delta=1e-6))
    assert not shuffled.applicable and "cannot verify" in shuffled.reason


# ------------------------------------------------------------------ registry
REQUIRED_KEYS = [
    "seed000.thm1", "seed000.thm4", "seed000.thm6", "seed000.cor10", "seed000.cor11",
    "seed001.thm4", "seed001.thm7", "seed001.cor8", "seed001.thm10", "seed001.cor11",
    "seed001.cor13_l", "seed001.cor13_b",
    "seed002.thm4", "seed002.thm11", "seed002.thm13", "seed002.thm16", "seed002.thm18",
    "seed003.thm2", "seed003.thm4", "seed003.thm5", "seed003.thm7", "seed003.thm8", "seed003.thm9",
    "seed003.thm10", "seed004.thm1", "seed004.thm2", "seed004.thm3", "seed004.lower",
]


def test_registry_holds_every_theorem_with_citation_and_kind():
    for key in REQUIRED_KEYS:
        b = bounds.get(key)
        assert b.side in ("upper", "lower") and b.form in ("explicit", "asymptotic", "order")
        assert b.theorem and b.source and b.statement and b.algorithms
    with pytest.raises(dpbench.InputError, match="unknown bound"):
        bounds.get("seed000.thm99")


def test_bounds_for_matches_policy_names_and_labels():
    keys = {b.key for b in bounds.bounds_for("ldp_ucb_b")}
    assert {"seed000.thm1", "seed000.thm6", "seed000.thm6_free"} <= keys
    assert "seed000.thm4" not in keys
    assert {b.key for b in bounds.bounds_for("ucb1")} == {"auer2002.ucb1"}
    if "dp_robust_ucb" in dpbench.ALGORITHMS:       # seed 003 policies matched by name or label
        assert "seed003.thm2" in {b.key for b in bounds.bounds_for("dp_robust_ucb")}
    assert all(b.seed == "002" for b in bounds.bounds_for(seed="002"))
    assert all(b.side == "lower" for b in bounds.bounds_for(side="lower"))


def test_context_from_a_simulation_result():
    res = dpbench.simulate("heldp_ucb_b", "bernoulli", 200, 2, 1, means=[0.9, 0.8, 0.5],
                           eps_dist="discrete", eps_min=1.0)
    ctx = bounds.context(res)
    assert ctx["T"] == 200 and ctx["K"] == 3 and ctx["environment"] == "bernoulli"
    assert ctx["gaps"] == pytest.approx([0.0, 0.1, 0.4])
    assert ctx["p0"] == pytest.approx(0.6) and ctx["eps_min"] == 1.0 and ctx["eps_max"] == 100.0
    ev = bounds.get("seed001.thm10").evaluate(ctx)
    assert ev.applicable and ev.value > 0 and ev.trivial == pytest.approx(80.0)
    assert ev.vacuous                                        # at T = 200 the bound says nothing


def test_bad_context_is_refused():
    with pytest.raises(dpbench.InputError, match="gaps"):
        bounds.get("seed000.thm6").evaluate(gaps=[0.1], eps=1.0, T=10)
    with pytest.raises(dpbench.InputError, match="gaps"):
        bounds.get("seed000.thm6").evaluate(gaps=[0.1, float("nan")], eps=1.0, T=10)


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
