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
from dpbench.mechanisms.tree_counter import tree_add, tree_new
from dpbench.mechanisms.truncation import truncate


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


class _DPRobustUCB(NamedTuple):
    width_coef: float
    log_t_factor: float
    exponent: float
    trunc_coef: float
    inv_one_plus_v: float
    eps_level: float


@implements(init_state, _DPRobustUCB)
def _dprucb_init(policy, k, horizon):
    psum, noisy = tree_new(k, horizon)
    return np.zeros(k), np.zeros(k), np.zeros(k), psum, noisy


@implements(select, _DPRobustUCB)
def _dprucb_select(policy, state, t):
    pulls, mean, inv_n_pow, _, _ = state
    if t < pulls.shape[0]:
        return t, 1
    log_term = (math.log(2.0) + 4.0 * math.log(t + 1.0)) * policy.log_t_factor
    width = policy.width_coef * log_term ** policy.exponent
    best, arm = -math.inf, 0
    for a in range(pulls.shape[0]):
        index = mean[a] + width * inv_n_pow[a]
        if index > best:
            best, arm = index, a
    return arm, 1


@implements(update, _DPRobustUCB)
def _dprucb_update(policy, state, arm, m, value, level, t):
    pulls, mean, inv_n_pow, psum, noisy = state
    pulls[arm] += 1.0
    bound = (policy.trunc_coef * pulls[arm]) ** policy.inv_one_plus_v
    s_hat = tree_add(psum, noisy, arm, int(pulls[arm]), truncate(value, bound), 2.0 * bound, policy.eps_level)
    mean[arm] = s_hat / pulls[arm]
    inv_n_pow[arm] = pulls[arm] ** -policy.exponent


def _dprucb_oracle(instance, horizon):
    built = ALGORITHMS.get_spec("dp_robust_ucb").build(instance, horizon, **DPRUCB_PARAMS)
    return Built(_DPRobustUCB(*built.policy), built.mechanism)


PARETO = {"setting": "S1", "tail_v": 0.9}
DPRUCB_PARAMS = {"v": 0.9, "u": None, "eps": 1.0, "constants": "scaled", "c": None, "tree_eps_split": "levels"}

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
    "dp_robust_ucb": ({"v": 0.9, "eps": 1.0, "constants": "scaled"}, "pareto", _dprucb_oracle),
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
    if env == "pareto":
        env_params = PARETO
    else:
        env_params = {"means": MEANS[env] if policy != "dp_ftpl_new"
                      else [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]}
    ours = dpbench.simulate(policy, env, horizon, reps, seed, env_params=env_params, trace=True, **params)
    exact = dpbench.simulate(oracle(policy), env, horizon, reps, seed, env_params=env_params, trace=True)
    assert np.array_equal(ours.trace, exact.trace), f"{policy}: arm sequences differ from the full index"


@pytest.mark.parametrize("policy", ["ucb1", "heldp_ucb_l", "dp_robust_ucb"])
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


def test_leader_below_a_scale_bound_is_the_leader_at_the_scale():
    """leader_below (the cached leader checked at an upper bound of the scale, no exact scale
    computed) returns an arm only if clear_leader at the true scale returns the same arm, also
    when the leader's radius grows after its scan (HeLDP-UCB-L: a small eps_t adds 1/eps_t^2)."""
    from dpbench.policies.index_search import clear_leader, forget_leader, leader_below, new_leader_cache
    gen = np.random.default_rng(7)
    k = 5
    means, radius, cache = gen.uniform(size=k), gen.uniform(0.5, 1.0, size=k), new_leader_cache()
    scale, hits = 1.0, 0
    for step in range(20000):
        scale += gen.exponential(1e-3)
        bound = scale * (1.0 + gen.choice([0.0, 1e-9, 1e-4, 1e-2]))

        def tol(s):
            return 1e-12 * (np.abs(means).max() + s * radius.max())
        fast = leader_below(means, radius, bound, tol(bound), cache.copy())
        arm = clear_leader(means, radius, scale, tol(scale), cache)
        assert fast < 0 or fast == arm, f"step {step}: leader_below gave {fast}, the scale gives {arm}"
        hits += fast >= 0
        pulled = arm if arm >= 0 and gen.uniform() < 0.9 else int(gen.integers(k))
        forget_leader(cache, pulled)
        means[pulled] += gen.normal(0.0, 0.01)
        radius[pulled] *= 1.05 if gen.uniform() < 0.05 else 0.995   # mostly shrinks, sometimes grows
    assert hits > 1000            # the bound serves most steps
    # the leader's radius grew after its scan, so its lead grows with the scale: at the bound it
    # leads, at the scale arm 1 does; leader_below must not answer
    means, radius, cache = np.array([0.5, 0.45]), np.array([0.1, 0.2]), new_leader_cache()
    assert clear_leader(means, radius, 0.1, 1e-12, cache) == 0
    forget_leader(cache, 0)
    means[0], radius[0] = 0.0, 1.0
    assert leader_below(means, radius, 1.0, 1e-12, cache.copy()) == -1
    assert clear_leader(means, radius, 0.2, 1e-12, cache) == 1
