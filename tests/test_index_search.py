"""The fast argmax of the index policies picks exactly the arms of the index evaluated in full.

UCB1, LDP-UCB-L/B and HeLDP-UCB-L/B find their argmax through ``policies.index_search``
(a re-associated index, a cached leader, the exact index only on a near-tie) and DP-FTPL-New
rules arms out before their logarithm; all claim the arm sequence of the plain definition.
The oracles below are those definitions, as the policies computed them every step before
(issue 17), registered as test-only engine components, so the comparison runs compiled on
long horizons.  The plain-Python references (``test_ldp_ucb_reference.py``,
``test_dp_ftpl.py``) check the same at T = 3000; these check T = 2e5 and many seeds.
"""
import math
from typing import NamedTuple

import numpy as np
import pytest

import dpbench
from dpbench import randomness as rng
from dpbench.engine.catalog import ALGORITHMS, AlgorithmSpec, Built
from dpbench.engine.components import implements, init_state, select, update
from dpbench.mechanisms.bernoulli_trick import bernoulli_observations
from dpbench.mechanisms.ldp_curators import CTB, CTL, Direct, HeteroCurator, bernoulli_factor, debias
from dpbench.mechanisms.perturbations import lemma15_lattice_draw, lemma15_tail_radius
from dpbench.mechanisms.privacy_levels import make_levels


class _UCB1(NamedTuple):
    c: float


@implements(init_state, _UCB1)
def _ucb1_init(policy, k, horizon):
    return np.zeros(k), np.zeros(k)


@implements(select, _UCB1)
def _ucb1_select(policy, state, t):
    s, n = state
    if t < n.shape[0]:
        return t, 1
    width = policy.c * math.log(t)
    best, arm = -math.inf, 0
    for a in range(n.shape[0]):
        u = s[a] / n[a] + math.sqrt(width / n[a])
        if u > best:
            best, arm = u, a
    return arm, 1


@implements(update, _UCB1)
def _ucb1_update(policy, state, arm, m, value, level, t):
    state[0][arm] += value
    state[1][arm] += m


class _LaplaceUCB(NamedTuple):
    eps: float


implements(init_state, _LaplaceUCB)(_ucb1_init)


@implements(select, _LaplaceUCB)
def _l_select(policy, state, t):
    s, n = state
    k = n.shape[0]
    if t < k:
        return t, 1
    for a in range(k):
        if n[a] <= 4.0 * math.log(t + 1.0):
            return a, 1
    hoeffding = 2.0 * math.log(t)
    laplace = 32.0 * math.log(t) / (policy.eps * policy.eps)
    best, arm = -math.inf, 0
    for a in range(k):
        u = s[a] / n[a] + math.sqrt(hoeffding / n[a]) + math.sqrt(laplace / n[a])
        if u > best:
            best, arm = u, a
    return arm, 1


implements(update, _LaplaceUCB)(_ucb1_update)


class _HeteroL(NamedTuple):
    eps_min: float


@implements(init_state, _HeteroL)
def _hl_init(policy, k, horizon):
    return np.zeros(k), np.zeros(k), np.zeros(k)


@implements(select, _HeteroL)
def _hl_select(policy, state, t):
    n, s, a_sum = state
    k = n.shape[0]
    big_l = 4.0 * math.log(t + 1.0)
    threshold = big_l / (policy.eps_min * policy.eps_min)
    forced = 0
    for a in range(k):
        if a_sum[a] <= threshold:
            forced += 1
    if forced > 0:                                 # uniform on the forced set
        j = int(rng.uniform() * forced)
        for a in range(k):
            if a_sum[a] <= threshold:
                if j == 0:
                    return a, 1
                j -= 1
    best, arm = -math.inf, 0
    for a in range(k):
        u = s[a] / n[a] + math.sqrt(big_l / (2.0 * n[a])) + math.sqrt(8.0 * a_sum[a] * big_l) / n[a]
        if u > best:
            best, arm = u, a
    return arm, 1


@implements(update, _HeteroL)
def _hl_update(policy, state, arm, m, value, level, t):
    if level >= policy.eps_min:
        state[0][arm] += 1.0
        state[1][arm] += value
        state[2][arm] += 1.0 / (level * level)


class _HeteroB(NamedTuple):
    eps_min: float


implements(init_state, _HeteroB)(_hl_init)


@implements(select, _HeteroB)
def _hb_select(policy, state, t):
    n, s, b_sum = state
    half_l = 2.0 * math.log(t + 1.0)
    best, arm = -math.inf, 0
    for a in range(n.shape[0]):
        if n[a] == 0.0:
            return a, 1
        u = s[a] / n[a] + math.sqrt(b_sum[a] * half_l) / n[a]
        if u > best:
            best, arm = u, a
    return arm, 1


@implements(update, _HeteroB)
def _hb_update(policy, state, arm, m, value, level, t):
    if level >= policy.eps_min:
        state[0][arm] += 1.0
        state[1][arm] += debias(value, level)
        state[2][arm] += bernoulli_factor(level)


class _FTPLNew(NamedTuple):
    eps: float
    delta: float
    log_horizon: float
    tail: float


implements(init_state, _FTPLNew)(_hl_init)


@implements(select, _FTPLNew)
def _f_select(policy, state, t):
    ones, pulls, centre = state
    if t < pulls.shape[0]:
        return t, 1
    best, arm = -math.inf, 0
    for a in range(pulls.shape[0]):                # every theta, in arm order
        theta = lemma15_lattice_draw(centre[a], pulls[a], policy.eps, policy.delta)
        if theta > best:
            best, arm = theta, a
    return arm, 1


@implements(update, _FTPLNew)
def _f_update(policy, state, arm, m, value, level, t):
    ones, pulls, centre = state
    ones[arm] += value
    pulls[arm] += m
    n = pulls[arm]
    centre[arm] = (ones[arm] / n + math.sqrt(policy.log_horizon / n)
                   + lemma15_tail_radius(n, policy.tail, policy.eps, policy.delta))


ORACLES = {   # catalog policy -> (params, environment, oracle builder)
    "ucb1": ({}, "bernoulli", lambda instance, horizon: Built(_UCB1(2.0), Direct(False))),
    "ldp_ucb_b": ({"eps": 1.0}, "bernoulli", lambda instance, horizon: Built(_UCB1(2.0), CTB.at(1.0, False))),
    "ldp_ucb_l": ({"eps": 2.0}, "bernoulli", lambda instance, horizon: Built(_LaplaceUCB(2.0), CTL.at(2.0, False))),
    "ldp_ucb_ls": ({"eps": 0.5}, "gaussian", lambda instance, horizon: Built(_LaplaceUCB(0.5), CTL.at(0.5, True))),
    "heldp_ucb_l": ({"eps_dist": "discrete", "eps_min": 0.2}, "bernoulli",
                    lambda instance, horizon: Built(_HeteroL(0.2), HeteroCurator.ctl(make_levels("discrete"), False))),
    "heldp_ucb_b": ({"eps_dist": "truncated_gaussian", "eps_min": 0.5}, "bernoulli",
                    lambda instance, horizon: Built(_HeteroB(0.5), HeteroCurator.ctb(make_levels("truncated_gaussian"),
                                                                           False))),
    "dp_ftpl_new": ({"eps": 1.0, "delta": 0.01}, "bernoulli",
                    lambda instance, horizon: Built(
                        _FTPLNew(1.0, 0.01, math.log(horizon), 1.0 / horizon),
                        bernoulli_observations(instance))),
}
MEANS = {"bernoulli": [0.9] + [0.8] * 5 + [0.7] * 5 + [0.6] * 5 + [0.5] * 4,
         "gaussian": [0.9, 0.8, 0.7, 0.6, 0.5]}


@pytest.fixture(scope="module")
def oracle():
    names = []
    for policy, (_, _, build) in ORACLES.items():
        name = f"_oracle_{policy}"
        ALGORITHMS.add(AlgorithmSpec(name, name, "test", "test only", "tests", (), build, rewards="any"))
        names.append(name)
    yield lambda policy: f"_oracle_{policy}"
    for name in names:
        del ALGORITHMS[name]


def _same_arms(oracle, policy, horizon, reps, seed):
    params, env, _ = ORACLES[policy]
    means = MEANS[env] if policy != "dp_ftpl_new" else [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]
    ours = dpbench.simulate(policy, env, horizon, reps, seed, means=means, trace=True, **params)
    exact = dpbench.simulate(oracle(policy), env, horizon, reps, seed, means=means, trace=True)
    assert np.array_equal(ours.trace, exact.trace), f"{policy}: arm sequences differ from the full index"


@pytest.mark.parametrize("policy", ["ucb1", "heldp_ucb_l"])
def test_fast_argmax_matches_the_full_index_on_a_long_run(oracle, policy):
    _same_arms(oracle, policy, 100_000, 4, 1)


@pytest.mark.slow
@pytest.mark.parametrize("policy", list(ORACLES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_fast_policy_matches_the_full_index(oracle, policy, seed):
    _same_arms(oracle, policy, 200_000, 4, seed)


def test_leader_cache_returns_the_scan_answer_under_any_update_order():
    """clear_leader's cache (skip the scan while the last leader provably still leads) gives
    exactly the answer of a fresh scan, also when an arm other than the leader changes
    (LDP-UCB-L's forced pulls, HeLDP's forced exploration): add_response must drop the cache."""
    from dpbench.policies.index_search import add_response, clear_leader, new_mean_state
    gen = np.random.default_rng(5)
    k = 6
    state = new_mean_state(k)
    for a in range(k):
        add_response(state, a, 1.0, float(gen.uniform()))
    scale = 1.0
    for step in range(4000):
        scale += gen.exponential(1e-3)
        tol = 1e-12 * (state.bounds[0] + scale)
        arm = clear_leader(state.means, state.inv_sqrt_counts, scale, tol, state.leader)
        value = state.means + scale * state.inv_sqrt_counts
        order = np.argsort(-value, kind="stable")
        expected = order[0] if value[order[0]] - value[order[1]] > tol else -1
        assert arm == expected, f"step {step}: cached leader {arm}, a fresh scan gives {expected}"
        pulled = arm if arm >= 0 and gen.uniform() < 0.8 else int(gen.integers(k))
        add_response(state, pulled, 1.0, float(gen.uniform() < 0.5 + 0.05 * pulled))


def test_dp_ftpl_new_laplace_pruning_matches_the_full_argmax():
    """delta = 0 (the Laplace law, drawn by geometric blocks): DP-FTPL-New's pruned argmax is the
    full argmax of every arm's lattice draw."""
    name = "_oracle_dp_ftpl_new_laplace"
    ALGORITHMS.add(AlgorithmSpec(name, name, "test", "test only", "tests", (),
                                 lambda instance, horizon: Built(_FTPLNew(1.0, 0.0, math.log(horizon), 1.0 / horizon),
                                                                 bernoulli_observations(instance)), rewards="any"))
    try:
        means = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]
        ours = dpbench.simulate("dp_ftpl_new", "bernoulli", 50_000, 4, 2, means=means, trace=True, eps=1.0, delta=0.0)
        exact = dpbench.simulate(name, "bernoulli", 50_000, 4, 2, means=means, trace=True)
        assert np.array_equal(ours.trace, exact.trace)
    finally:
        del ALGORITHMS[name]
