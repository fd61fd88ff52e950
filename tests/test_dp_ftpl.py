"""Seed 002 policies: exact agreement with the plain-Python references, start phases,
phase schedules, the Bernoulli trick and bad input (spec seed_002.md §5)."""
import math

import numpy as np
import pytest

import dpbench
from dpbench.engine.components import respond
from dpbench.engine.simulate import prepare
from dpbench.mechanisms.bernoulli_trick import BernoulliTrick
from dpbench.mechanisms.ldp_curators import Direct
from dpbench.mechanisms.perturbations import beta_start_phase, gauss_start_phase
from dpbench.policies.gdp_elim import phase_schedule
from dpbench.randomness import rep_seeds
from dpbench.validation import InputError
from tests.reference import run_reference

MEANS = [0.55, 0.7, 0.4, 0.65]
T = 3000
SEED = 2002
REPS = 3


def _trace(policy, means=MEANS, horizon=T, **params):
    return dpbench.simulate(policy, "bernoulli", horizon, REPS, SEED, means=means, trace=True, **params).trace


def _reference(func, means=MEANS, horizon=T, **kwargs):
    return run_reference(f"seed002.{func}", rep_seeds(SEED, 0, REPS), means=means, horizon=horizon, **kwargs)


@pytest.mark.parametrize("policy,ref,params", [
    ("dp_ftpl_gauss", "dp_ftpl_gauss", {"eps": 1.0, "delta": 0.01}),
    ("dp_ftpl_gauss", "dp_ftpl_gauss", {"eps": 0.0, "delta": 0.05, "v": 1.0}),
    ("dp_ftpl_beta", "dp_ftpl_beta", {"eps": 2.0, "delta": 0.2}),
    ("dp_ftpl_new", "dp_ftpl_new", {"eps": 1.0, "delta": 0.01}),
    ("dp_ftpl_new", "dp_ftpl_new", {"eps": 0.5, "delta": 0.0}),
    ("dp_ftpl_new", "dp_ftpl_new", {"eps": 0.0, "delta": 0.05}),
    ("thompson", "thompson", {}),
    ("gaussian_thompson", "gaussian_thompson", {}),
])
def test_ftpl_policies_match_reference(policy, ref, params):
    assert np.array_equal(_trace(policy, **params), _reference(ref, **params))


@pytest.mark.parametrize("order", ["round_robin", "blocks"])
def test_gdp_elim_new_matches_reference_and_exploits(order):
    """Two arms, gap 0.4, T = 20000: phases of 1268 and 5071 pulls per arm, then arm 0
    must be exploited (both radii are <= Delta(2)/4 = 1/16 under the good event)."""
    means, horizon = [0.9, 0.5], 20_000
    params = {"eps": 1.0, "delta": 0.01, "order": order}
    ours = _trace("gdp_elim_new", means=means, horizon=horizon, **params)
    assert np.array_equal(ours, _reference("gdp_elim_new", means=means, horizon=horizon, **params))
    pulls, _ = phase_schedule(horizon, 1.0, 0.01, 2)
    after = 2 * int(pulls[0] + pulls[1])
    assert np.all(ours[:, after:] == 0)
    first = ours[:, :2 * int(pulls[0])]
    assert np.all((first == 0).sum(axis=1) == pulls[0])
    if order == "round_robin":
        assert np.array_equal(first[:, :4], np.tile([0, 1, 0, 1], (REPS, 1)))
    else:
        assert np.all(first[:, :pulls[0]] == 0)


# ------------------------------------------------------------------ start phases
@pytest.mark.parametrize("policy,params,n_star", [
    ("dp_ftpl_gauss", {"eps": 1.0, "delta": 0.01}, gauss_start_phase(1.0, 0.01)),
    ("dp_ftpl_gauss", {"eps": 0.1, "delta": 0.05}, gauss_start_phase(0.1, 0.05)),
    ("dp_ftpl_beta", {"eps": 2.0, "delta": 0.2}, beta_start_phase(2.0, 0.2)),
])
def test_start_phase_is_ceil_n_star_pulls_arm_by_arm(policy, params, n_star):
    start = math.ceil(n_star)
    trace = _trace(policy, **params)
    expected = np.repeat(np.arange(len(MEANS)), start)
    assert np.all(trace[:, :expected.size] == expected)
    result = dpbench.simulate(policy, "bernoulli", T, 1, SEED, means=MEANS, **params)
    assert result.info["start_pulls_per_arm"] == start
    # regret over the start phase is exactly sum_i Delta_i * ceil(N*) (spec check C17)
    gaps = max(MEANS) - np.array(MEANS)
    k_end = len(MEANS) * start
    checkpoints = [k_end]
    r = dpbench.simulate(policy, "bernoulli", T, 2, SEED, means=MEANS, checkpoints=checkpoints, **params)
    assert np.allclose(r.regret_at(k_end), gaps.sum() * start)


def test_start_phase_values_of_the_paper_instance():
    assert math.ceil(gauss_start_phase(1.0, 0.01)) == 8
    assert math.ceil(gauss_start_phase(1.0, math.exp(-10))) == 19
    assert math.ceil(beta_start_phase(1.0, 0.01)) == 1065


def test_new_pulls_each_arm_once_first():
    assert np.all(_trace("dp_ftpl_new", eps=1.0, delta=0.01)[:, :len(MEANS)] == np.arange(len(MEANS)))


def test_start_rules_and_override_are_reachable():
    plan = prepare("dp_ftpl_gauss", "bernoulli", 10_000, means=MEANS, eps=1.0, delta=0.01,
                   start_rule="prefactor_4")
    assert plan.built.policy.start == math.ceil(4 * math.log(math.e / (4 * math.pi * 1e-4)))
    plan = prepare("dp_ftpl_gauss", "bernoulli", 10_000, means=MEANS, eps=1.0, delta=0.01, start_pulls=1)
    assert plan.built.policy.start == 1
    plan = prepare("dp_ftpl_beta", "bernoulli", 10_000, means=MEANS, eps=1.0, delta=0.01, start_rule="log_40e")
    assert plan.built.policy.start == math.ceil(beta_start_phase(1.0, 0.01, "log_40e"))
    assert plan.built.policy.start < math.ceil(beta_start_phase(1.0, 0.01))


def test_phase_schedule_matches_spec():
    """Spec §10.5: N(k) at T = 1e5 and 1e6 (the statistical term dominates)."""
    pulls, gaps = phase_schedule(100_000, 1.0, 0.01, 1)
    assert pulls[:4].tolist() == [1474, 5895, 23579, 94314]
    assert gaps[:2].tolist() == [0.5, 0.25]
    assert phase_schedule(1_000_000, 1.0, 0.01, 1)[0][:4].tolist() == [1769, 7074, 28295, 113177]
    # the privacy term dominates for small eps: (4/(eps Delta)) ln(...)
    small = phase_schedule(100_000, 0.01, 0.0, 2)[0][0]
    assert small == math.ceil(8 / 0.01 * math.log(1e10 / 2))


# ------------------------------------------------------------- Bernoulli trick
def test_bernoulli_arms_use_raw_bits_and_others_the_trick():
    assert isinstance(prepare("dp_ftpl_new", "bernoulli", 100, means=MEANS, eps=1.0).built.mechanism, Direct)
    plan = prepare("dp_ftpl_new", "beta", 100, means=MEANS, eps=1.0)
    assert isinstance(plan.built.mechanism, BernoulliTrick)
    with pytest.raises(InputError):
        prepare("dp_ftpl_new", "gaussian", 100, means=MEANS, eps=1.0)      # rewards outside [0, 1]


def test_bernoulli_trick_outputs_bits_with_the_arm_mean():
    plan = prepare("thompson", "beta", 100, means=[0.3, 0.8])
    n = 200_000
    total, level = respond(plan.built.mechanism, plan.instance.env, 1, n)
    assert level == 0.0 and total == int(total)
    assert abs(total / n - 0.8) < 6 * math.sqrt(0.16 / n)


def test_policies_run_on_non_bernoulli_rewards():
    r = dpbench.simulate("dp_ftpl_new", "uniform", 5000, 2, 1, means=[0.3, 0.7], eps=1.0, delta=0.01)
    assert r.pulls[:, 1].mean() > r.pulls[:, 0].mean()


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("policy,params", [
    ("dp_ftpl_gauss", {"eps": -0.1, "delta": 0.01}),
    ("dp_ftpl_gauss", {"eps": 1.0, "delta": 0.0}),        # Gauss needs delta > 0
    ("dp_ftpl_beta", {"eps": 1.0, "delta": 0.0}),
    ("dp_ftpl_beta", {"eps": 1.0, "delta": 1.0}),
    ("dp_ftpl_new", {"eps": -1.0, "delta": 0.01}),
    ("dp_ftpl_new", {"eps": 1.0, "delta": 1.0}),
    ("dp_ftpl_new", {"eps": 1.0, "delta": -0.01}),
    ("dp_ftpl_new", {"eps": 0.0, "delta": 0.0}),
    ("dp_ftpl_new", {"eps": float("nan")}),
    ("gdp_elim_new", {"eps": 0.0, "delta": 0.0}),
    ("gdp_elim_new", {"eps": 1.0, "order": "sideways"}),
    ("dp_ftpl_gauss", {"eps": 1.0, "delta": 0.01, "v": 0.0}),
    ("dp_ftpl_gauss", {"eps": 1.0, "delta": 0.01, "start_rule": "guess"}),
    ("dp_ftpl_gauss", {"eps": 1.0, "delta": 0.01, "start_pulls": 0}),
])
def test_bad_input_is_refused_before_compiling(policy, params):
    with pytest.raises(InputError):
        prepare(policy, "bernoulli", 1000, means=MEANS, **params)


def test_start_phase_longer_than_horizon_is_a_warning():
    plan = prepare("dp_ftpl_beta", "bernoulli", 2000, means=MEANS, eps=1.0, delta=0.01)
    assert any("does not end within the horizon" in w for w in plan.warnings)
    plan = prepare("dp_ftpl_gauss", "bernoulli", 2000, means=MEANS, eps=1.0, delta=0.01)
    assert plan.warnings == []
    plan = prepare("gdp_elim_new", "bernoulli", 2000, means=MEANS, eps=1.0, delta=0.01)
    assert any("first phase" in w for w in plan.warnings)
    r = dpbench.simulate("dp_ftpl_beta", "bernoulli", 2000, 1, 0, means=MEANS, eps=1.0, delta=0.01)
    assert r.warnings and "start phase" in r.warnings[0]
