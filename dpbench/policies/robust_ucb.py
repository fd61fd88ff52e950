"""Robust UCB for heavy-tailed rewards: DP Robust UCB (Tao et al., seed 003, Algorithm 1)
and the non-private Robust UCB of Bubeck, Cesa-Bianchi & Lugosi (2013).

Assumption (2): E|X_a|^(1+v) <= u for every arm, v in (0, 1] and u known.
Rounds are tau = t + 1 = 1..T (t = pulls completed); each arm is pulled once
first; ties go to the lowest index.

**DP Robust UCB** (``dp_robust_ucb``, central eps-DP).  The n-th reward of arm
a is truncated (zeroed beyond) at B_n = (eps u n / ln^1.5 T)^(1/(1+v)) and
inserted as item n into the arm's adaptive tree counter (Algorithm 2,
``mechanisms/tree_counter.py``; noise Lap(2 B_n / eps') for the p-sum it
closes, eps' per ``tree_eps_split``).  With S_hat_a the arm's latest release,

    a_tau = argmax_a  S_hat_a / n_a + c u^(1/(1+v)) (ln(2 tau^4) ln^(1.5+1/v) T / (n_a eps))^(v/(1+v)),

evaluated as S_hat_a/n_a + [c u^(1/(1+v)) (ln(2 tau^4) ln^(1.5+1/v) T / eps)^(v/(1+v))] n_a^(-v/(1+v))
(the reference uses the same grouping); the argmax goes through ``index_search`` (the cached
leader, checked at a bound of the bracket over the next steps: its logarithm and power are
computed only when that leader is not clear).

Paper constant c = 18 (Lemma 3).  With it the width at n = T/K stays 13..250
for T <= 1e7 against gaps <= 0.8 (spec Sec. 5.5): allocation is near-uniform.
``constants="scaled"`` takes the knob ``c`` instead (default 18/12 = 1.5: one
rule, paper constant / 12, for the three algorithms; no exponent of Theorem 2
changes).  The agent is trusted (``Direct`` responses); privacy is
the tree noise, so each reward enters one tree once (Theorem 1).

**Robust UCB** (``robust_ucb``, non-private, spec Sec. 2.5): truncated
empirical mean with sample j of an arm kept at round tau iff
|x_j| <= (u j / ln(tau^2))^(1/(1+v)) (delta = tau^-2), index
mean + c u^(1/(1+v)) (ln(tau^2) / n)^(v/(1+v)), c = 4 (Bubeck et al. Lemma 1;
from the spec, which asks to verify it: exposed as ``c``).  The threshold
shrinks as tau grows, so a sample once kept is dropped for good when
2 ln tau > u j / |x_j|^(1+v): the agent keeps the sum of kept samples and a
min-heap of the drop times of those that will drop before T (O(log) per pull,
exact).  Such samples are rare (expected <= 2 ln T (1 + ln T) per arm); the
heap's capacity is 4x that plus 64, and overflowing it raises an error
instead of silently approximating.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..engine.caching import cached_njit
from ..engine.catalog import AlgorithmSpec, Built, Param, choice, real, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..environments.heavy_tailed import moment_bound
from ..mechanisms.lattice import lattice_claim_warnings
from ..mechanisms.ldp_curators import Direct
from ..mechanisms.tree_counter import TREE_EPS_SPLITS, tree_add, tree_level_eps, tree_levels, tree_new
from ..mechanisms.truncation import truncate
from ..validation import InputError
from .index_search import (
    AHEAD_UNTIL,
    LEADER_TOLERANCE,
    MAX_ABS_MEAN,
    ahead_step,
    clear_leader,
    forget_leader,
    leader_below,
    new_ahead,
    new_leader_cache,
    raise_bound,
)

#: Paper constants of the three robust algorithms and the scaled defaults (see ``constants``).
PAPER_C = {"dp_robust_ucb": 18.0, "dp_robust_se": 12.0, "ldp_robust_se": 14.0}


# ================================================================ DP Robust UCB
class DPRobustUCB(NamedTuple):
    width_coef: float       # c u^(1/(1+v)): the width's constant factor
    log_t_factor: float     # ln^(1.5 + 1/v) T / eps
    exponent: float         # v / (1 + v)
    trunc_coef: float       # eps u / ln^1.5 T, so that B_n = (trunc_coef n)^(1/(1+v))
    inv_one_plus_v: float   # 1 / (1 + v)
    eps_level: float        # eps' of one tree p-sum


class DPRobustUCBState(NamedTuple):
    pulls: np.ndarray        # n_a
    mean: np.ndarray         # S_hat_a / n_a
    inv_n_pow: np.ndarray    # n_a^(-v/(1+v)) (<= 1): the radius of index_search.clear_leader
    psum: np.ndarray         # the tree counters of every arm (mechanisms.tree_counter.tree_new)
    noisy: np.ndarray
    bounds: np.ndarray       # [max over the run of |S_hat_a / n_a|]
    leader: np.ndarray       # clear_leader's cache
    ahead: np.ndarray        # [last step served, bound of the width] (index_search.leader_below)


AHEAD_WIDTH = 1


@implements(init_state, DPRobustUCB)
def _dprucb_init(policy, k, horizon):
    psum, noisy = tree_new(k, horizon)
    return DPRobustUCBState(np.zeros(k), np.zeros(k), np.zeros(k), psum, noisy, np.zeros(1), new_leader_cache(),
                            new_ahead(2))


@cached_njit(inline="always")
def _dprucb_width(policy, t):
    """c u^(1/(1+v)) (ln(2 tau^4) ln^(1.5+1/v) T / eps)^(v/(1+v)) at tau = t + 1 (grows with t)."""
    log_term = (math.log(2.0) + 4.0 * math.log(t + 1.0)) * policy.log_t_factor   # ln(2 tau^4) ln^(1.5+1/v) T / eps
    return policy.width_coef * log_term ** policy.exponent                       # times n_a^(-v/(1+v))


@cached_njit(inline="always")
def _dprucb_tolerance(state, width):
    """clear_leader's tolerance for mean + width * n^(-v/(1+v)) (the radius is at most 1)."""
    return LEADER_TOLERANCE * (state.bounds[MAX_ABS_MEAN] + width)


@implements(select, DPRobustUCB)
def _dprucb_select(policy, state, t):
    k = state.pulls.shape[0]
    if t < k:
        return t, 1
    # the argmax of mean_a + width * n_a^(-v/(1+v)) through index_search: the cached leader at a
    # bound of the width over the next steps, then at the width, then every arm's index
    if t > state.ahead[AHEAD_UNTIL]:
        until = ahead_step(t)
        state.ahead[AHEAD_UNTIL] = until
        state.ahead[AHEAD_WIDTH] = _dprucb_width(policy, until)
    bound = state.ahead[AHEAD_WIDTH]
    arm = leader_below(state.mean, state.inv_n_pow, bound, _dprucb_tolerance(state, bound), state.leader)
    if arm >= 0:
        return arm, 1
    width = _dprucb_width(policy, t)
    arm = clear_leader(state.mean, state.inv_n_pow, width, _dprucb_tolerance(state, width), state.leader)
    if arm >= 0:
        return arm, 1
    best = -math.inf                  # near-tie: every arm's index, ties to the lowest arm
    arm = 0
    for a in range(k):
        index = state.mean[a] + width * state.inv_n_pow[a]
        if index > best:
            best = index
            arm = a
    return arm, 1


@implements(update, DPRobustUCB)
def _dprucb_update(policy, state, arm, m, value, level, t):
    forget_leader(state.leader, arm)
    state.pulls[arm] += 1.0
    bound = (policy.trunc_coef * state.pulls[arm]) ** policy.inv_one_plus_v
    s_hat = tree_add(state.psum, state.noisy, arm, int(state.pulls[arm]), truncate(value, bound), 2.0 * bound,
                     policy.eps_level)
    state.mean[arm] = s_hat / state.pulls[arm]
    state.inv_n_pow[arm] = state.pulls[arm] ** -policy.exponent
    raise_bound(state.bounds, MAX_ABS_MEAN, state.mean[arm])


# ================================================================ Robust UCB (non-private)
class RobustUCB(NamedTuple):
    u: float
    one_plus_v: float
    exponent: float         # v / (1 + v)
    width_coef: float       # c u^(1/(1+v))


class RobustUCBState(NamedTuple):
    pulls: np.ndarray        # n_a
    inv_n_pow: np.ndarray    # n_a^(-v/(1+v))
    kept: np.ndarray         # sum of the samples kept at the current round
    drop: np.ndarray         # (k, cap) heap keys u j / |x_j|^(1+v) (dropped when 2 ln tau > key)
    vals: np.ndarray         # (k, cap) the heaps' samples
    size: np.ndarray         # (k,) int64 heap sizes
    limit: np.ndarray        # [2 ln T]: keys above this never drop before T


@implements(init_state, RobustUCB)
def _rucb_init(policy, k, horizon):
    log_h = math.log(max(horizon, 2))
    cap = 64 + int(8.0 * log_h * (1.0 + log_h))          # 4 x the expected count, see docstring
    n = np.zeros(k)
    inv_n_pow = np.zeros(k)                              # n_a^(-v/(1+v))
    kept = np.zeros(k)                                   # sum of the samples kept at the current round
    drop = np.zeros((k, cap))                            # heap keys u j / |x_j|^(1+v) (dropped when 2 ln tau > key)
    vals = np.zeros((k, cap))
    size = np.zeros(k, dtype=np.int64)
    limit = np.array([2.0 * math.log(max(horizon, 2))])  # keys above this never drop before T
    return RobustUCBState(n, inv_n_pow, kept, drop, vals, size, limit)


@cached_njit
def _heap_push(keys, vals, size, row, key, val):
    i = size[row]
    if i >= keys.shape[1]:
        raise ValueError("robust_ucb: drop-time heap overflow (far more extreme samples than the moment "
                         "bound allows; is u too small for this environment?)")
    size[row] = i + 1
    while i > 0:
        parent = (i - 1) // 2
        if keys[row, parent] <= key:
            break
        keys[row, i] = keys[row, parent]
        vals[row, i] = vals[row, parent]
        i = parent
    keys[row, i] = key
    vals[row, i] = val


@cached_njit
def _heap_pop(keys, vals, size, row):
    """Remove the minimum; return its value."""
    top = vals[row, 0]
    n = size[row] - 1
    size[row] = n
    key = keys[row, n]
    val = vals[row, n]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and keys[row, child + 1] < keys[row, child]:
            child += 1
        if keys[row, child] >= key:
            break
        keys[row, i] = keys[row, child]
        vals[row, i] = vals[row, child]
        i = child
    keys[row, i] = key
    vals[row, i] = val
    return top


@implements(select, RobustUCB)
def _rucb_select(policy, state, t):
    k = state.pulls.shape[0]
    if t < k:
        return t, 1
    log_delta = 2.0 * math.log(t + 1.0)                  # ln(tau^2)
    width = policy.width_coef * log_delta ** policy.exponent
    best = -math.inf
    arm = 0
    for a in range(k):
        while state.size[a] > 0 and state.drop[a, 0] < log_delta:   # |x_j| > (u j / ln tau^2)^(1/(1+v)) from now on
            state.kept[a] -= _heap_pop(state.drop, state.vals, state.size, a)
        index = state.kept[a] / state.pulls[a] + width * state.inv_n_pow[a]
        if index > best:
            best = index
            arm = a
    return arm, 1


@implements(update, RobustUCB)
def _rucb_update(policy, state, arm, m, value, level, t):
    state.pulls[arm] += 1.0
    state.inv_n_pow[arm] = state.pulls[arm] ** -policy.exponent
    if value == 0.0:
        return
    key = policy.u * state.pulls[arm] / abs(value) ** policy.one_plus_v
    if key < 2.0 * math.log(t + 2.0):                    # already beyond the next round's threshold
        return
    state.kept[arm] += value
    if key < state.limit[0]:
        _heap_push(state.drop, state.vals, state.size, arm, key, value)


# ================================================================ catalog
V_PARAM = Param("v", "moment order: E|X|^(1+v) <= u, v in (0, 1]", real(0.0, 1.0, low_open=True))
U_PARAM = Param("u", "moment bound (default: the environment's exact max_a E|X_a|^(1+v), the paper's choice)",
                real(0.0, low_open=True), None)
EPS_PARAM = Param("eps", "privacy level (pure eps-DP)", real(0.0, low_open=True))


def constants_param(default_scaled: float, paper: float):
    return (Param("constants", f"'paper' (c = {paper:g}, the paper's literal constant) or 'scaled' "
                  f"(c = the given c, default {default_scaled:g}); every predicted exponent is unchanged",
                  choice("paper", "scaled"), "paper"),
            Param("c", "the constant of the mode 'scaled' (see constants)", real(0.0, low_open=True), None))


def resolve_constant(name: str, constants: str, c, scaled_default: float) -> float:
    paper = PAPER_C[name]
    if constants == "paper":
        if c is not None and c != paper:
            raise InputError(f"c={c:g} given with constants='paper' (which fixes c = {paper:g}); "
                             "use constants='scaled' to change it")
        return paper
    return scaled_default if c is None else c


#: Scaled-mode defaults: one rule for the three algorithms, the paper's constant / 12
#: (1.5, 1, 1.1667).  With it DP Robust SE keeps the best arm in all 30 x 24 runs of S1/S3,
#: v in {0.5, 0.9}, eps in {0.5, 1} at T = 1e6 while finishing its eliminations for v = 0.9.
SCALED_C = {name: c / 12.0 for name, c in PAPER_C.items()}


def _build_dprucb(instance, horizon, v, u, eps, constants, c, tree_eps_split):
    if horizon < 3:
        raise InputError(f"horizon must be >= 3 for dp_robust_ucb (ln T >= 1; got {horizon})")
    u, moments = moment_bound(instance, v, u)
    c = resolve_constant("dp_robust_ucb", constants, c, SCALED_C["dp_robust_ucb"])
    log_t = math.log(horizon)
    eps_level = tree_level_eps(eps, horizon, tree_eps_split)
    policy = DPRobustUCB(width_coef=c * u ** (1.0 / (1.0 + v)), log_t_factor=log_t ** (1.5 + 1.0 / v) / eps,
                         exponent=v / (1.0 + v), trunc_coef=eps * u / log_t ** 1.5,
                         inv_one_plus_v=1.0 / (1.0 + v), eps_level=eps_level)
    k = instance.k
    n = horizon / k
    width = policy.width_coef * ((math.log(2.0) + 4 * math.log(horizon)) * policy.log_t_factor / n) ** policy.exponent
    info = {"mode": constants, "c": c, "u": u, "moments": moments.tolist(), "tree_eps_split": tree_eps_split,
            "tree_levels": tree_levels(horizon), "eps_level": eps_level,
            "width_at_T_over_K": width}
    warnings = lattice_claim_warnings("dp_robust_ucb (each tree p-sum)", eps_level)
    if width > float(instance.gaps.max()):
        warnings.append(f"dp_robust_ucb ({constants} constants, c={c:g}): the UCB width at n = T/K is {width:.3g} "
                        f"> the largest gap {instance.gaps.max():.3g}, so the allocation stays near-uniform")
    return Built(policy, Direct(False), warnings=warnings, info=info)


def _build_rucb(instance, horizon, v, u, c):
    u, moments = moment_bound(instance, v, u)
    policy = RobustUCB(u=u, one_plus_v=1.0 + v, exponent=v / (1.0 + v), width_coef=c * u ** (1.0 / (1.0 + v)))
    return Built(policy, Direct(False), info={"u": u, "moments": moments.tolist(), "c": c})


register_algorithm(AlgorithmSpec(
    name="dp_robust_ucb", label="DPRUCB", family="robust_heavy_tailed",
    summary="DP Robust UCB: truncation at B_n + adaptive tree counter per arm, central eps-DP",
    source="seed 003 Algorithm 1 (+ Algorithm 2), Theorems 1-2",
    params=(V_PARAM, U_PARAM, EPS_PARAM) + constants_param(SCALED_C["dp_robust_ucb"], PAPER_C["dp_robust_ucb"])
    + (Param("tree_eps_split", "eps' of one tree p-sum: 'levels' eps/(floor(log2 T)+1) (privacy-safe), "
             "'log2' eps/log2 T, 'ln' eps/ln T (the paper's literal, overspends ~1.5x)",
             choice(*TREE_EPS_SPLITS), "levels"),),
    build=_build_dprucb, rewards="any", privacy="central"))

register_algorithm(AlgorithmSpec(
    name="robust_ucb", label="Robust UCB", family="robust_heavy_tailed",
    summary="non-private Robust UCB with the truncated empirical mean (delta = t^-2)",
    source="Bubeck, Cesa-Bianchi & Lugosi 2013, quoted in seed 003 Sec. 4; spec Sec. 2.5",
    params=(V_PARAM, U_PARAM, Param("c", "width constant (Bubeck et al. Lemma 1: 4)", real(0.0, low_open=True), 4.0)),
    build=_build_rucb, rewards="any", privacy="none"))
