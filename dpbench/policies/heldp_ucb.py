"""HeLDP-UCB-L/B/LS/BS: UCB under heterogeneous local privacy (seed 001, Agents 2 and 4).

Each round tau = t + 1 (1-based, reconstruction R16) the curator returns
(eps_tau, x_tau); the agent keeps only responses with eps_tau >= eps_min
(discarded pulls still count in the regret).  Per arm it keeps
N_a (accepted count), s_a (sum of accepted responses; g-debiased bits for B) and
A_a = sum eps^-2 (L) or B_a = sum beta(eps) (B).  With L = log tau^4 = 4 log tau:

* HeLDP-UCB-L (Agent 2, Thm 7): if F = {a : A_a <= L / eps_min^2} is non-empty,
  pull an arm of F (``forced_choice='random'``: uniform on F, as the authors'
  code, one uniform per forced round; ``'lowest'``: the first), else argmax
  s_a/N_a + sqrt(L / (2 N_a)) + sqrt(8 A_a L) / N_a.
* HeLDP-UCB-B (Agent 4, Thm 10): argmax s_a/N_a + sqrt(B_a L / 2) / N_a, unpulled
  arms (N_a = 0, index +inf) first in index order (reconstruction R12).
* -LS / -BS: the same behind the sigmoid curators (Cor. 13; definitions from v000, as
  the v001 supplement is absent).

Privacy levels: ``eps_dist`` = fixed (HoLDP; eps_min defaults to eps),
discrete (default U{0, 0.2, 1, 2, 100}) or truncated_gaussian (default
clip(N(1, 1), 0, 100)).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import AlgorithmSpec, Built, Param, choice, real, register_algorithm, vector
from ..engine.components import implements, init_state, select, update
from ..mechanisms.ldp_curators import HeteroCurator, bernoulli_factor_contracted, contraction, debias_contracted
from ..mechanisms.privacy_levels import level_statistics, make_levels
from ..validation import InputError
from .index_search import (
    AHEAD_UNTIL,
    LEADER_TOLERANCE,
    MAX_ABS_MEAN,
    MIN_COUNT,
    ahead_step,
    clear_leader,
    forget_leader,
    keep_state,
    leader_below,
    new_ahead,
    new_leader_cache,
    raise_bound,
)


class HeteroState(NamedTuple):
    """Per-arm statistics of HeLDP-UCB-L/B (accepted responses only)."""
    counts: np.ndarray     # N_a
    sums: np.ndarray       # s_a (g-debiased bits for B)
    weights: np.ndarray    # A_a = sum eps^-2 (L) or B_a = sum beta(eps) (B)
    means: np.ndarray      # s_a / N_a, exactly as the index computes it
    radius: np.ndarray     # index = mean + sqrt(L) * radius (index_search): see each policy
    bounds: np.ndarray     # [max |mean|, max radius] over the run, lower bounds of min N_a, min weight
    leader: np.ndarray     # clear_leader's cache
    level_memo: np.ndarray  # (LEVEL_SLOTS, 2): [level, tanh(level/2)] of the levels met (HeLDP-UCB-B)
    ahead: np.ndarray      # [last step served, bound of sqrt(L) (-L) or sqrt(L/2) (-B), bound of L]


MAX_RADIUS, MIN_WEIGHT = 2, 3
AHEAD_SCALE, AHEAD_BIG_L = 1, 2
#: 2^LEVEL_BITS slots of the per-level memo of tanh(level/2) (a direct-mapped table keyed by a
#: hash of the level)
LEVEL_BITS = 4
LEVEL_SLOTS = 1 << LEVEL_BITS


def _new_state(policy, k, horizon):
    memo = np.full((LEVEL_SLOTS, 2), np.nan)            # NaN: no level matches an empty slot
    return HeteroState(np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(4),
                       new_leader_cache(), memo, new_ahead(3))


@cached_njit(inline="always")
def _contraction(memo, level):
    """``contraction(level)`` = tanh(level/2), bit for bit, remembered per level: under a discrete
    level distribution (seed 001's U{0, 0.2, 1, 2, 100}) the agent calls libm's tanh once per
    level instead of twice per pull (numba cannot hoist or merge the opaque call); a continuous
    one costs a compare per pull more.  The slot is a multiplicative hash of the level."""
    x = level * 4096.0
    key = np.uint64(x) if x < 1e15 else np.uint64(0)     # (NaN fails the test)
    slot = (key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - LEVEL_BITS)
    if memo[slot, 0] == level:
        return memo[slot, 1]
    c = contraction(level)
    memo[slot, 0] = level
    memo[slot, 1] = c
    return c


@cached_njit(inline="always")
def _accept(state, arm, response, weight):
    """Add an accepted response with its weight (the caller then sets the radius)."""
    forget_leader(state.leader, arm)
    state.counts[arm] += 1.0
    state.sums[arm] += response
    state.weights[arm] += weight
    state.means[arm] = state.sums[arm] / state.counts[arm]
    raise_bound(state.bounds, MAX_ABS_MEAN, state.means[arm])


@cached_njit(inline="always")
def _set_radius(state, arm, radius):
    state.radius[arm] = radius
    raise_bound(state.bounds, MAX_RADIUS, radius)


@cached_njit(inline="always")
def _tolerance(state, scale):
    """clear_leader's tolerance for mean + scale * radius, from the run's bounds."""
    return LEADER_TOLERANCE * (state.bounds[MAX_ABS_MEAN] + scale * state.bounds[MAX_RADIUS])


@cached_njit(inline="always")
def _clear_leader(state, scale):
    """index_search.clear_leader of mean + scale * radius, its tolerance from the run's bounds."""
    return clear_leader(state.means, state.radius, scale, _tolerance(state, scale), state.leader)


@cached_njit(inline="always")
def _look_ahead(state, t, half):
    """Bounds of L = 4 log(t + 1) and of the scale sqrt(L) (``half``: sqrt(L / 2)) up to the
    step ``ahead_step(t)``, kept in ``state.ahead``."""
    if t > state.ahead[AHEAD_UNTIL]:
        until = ahead_step(t)
        log_until = math.log(until + 1.0)
        state.ahead[AHEAD_UNTIL] = until
        state.ahead[AHEAD_BIG_L] = 4.0 * log_until
        state.ahead[AHEAD_SCALE] = math.sqrt(2.0 * log_until) if half else math.sqrt(4.0 * log_until)


@cached_njit(inline="always")
def _leader_below(state):
    """leader_below at the look-ahead's scale bound: the cached leader, or -1."""
    bound = state.ahead[AHEAD_SCALE]
    return leader_below(state.means, state.radius, bound, _tolerance(state, bound), state.leader)


class HeteroLaplaceUCB(NamedTuple):
    eps_min: float
    random_forced: bool


implements(init_state, HeteroLaplaceUCB)(_new_state)


@implements(select, HeteroLaplaceUCB)
def _select_l(policy, state, t):
    k = state.counts.shape[0]
    _look_ahead(state, t, False)
    if state.bounds[MIN_WEIGHT] > state.ahead[AHEAD_BIG_L] / (policy.eps_min * policy.eps_min):
        arm = _leader_below(state)        # F is empty (below) and the cached leader leads clearly
        if arm >= 0:
            return arm, 1
    big_l = 4.0 * math.log(t + 1.0)
    threshold = big_l / (policy.eps_min * policy.eps_min)
    n_forced = 0
    first = -1
    if state.bounds[MIN_WEIGHT] <= threshold:       # F may be non-empty (weights only grow)
        low = math.inf
        for a in range(k):
            if state.weights[a] <= threshold:
                if first < 0:
                    first = a
                n_forced += 1
            if state.weights[a] < low:
                low = state.weights[a]
        state.bounds[MIN_WEIGHT] = low
    if n_forced > 0:                                 # forced exploration
        if not policy.random_forced:
            return first, 1
        j = int(rng.uniform() * n_forced)
        for a in range(k):
            if state.weights[a] <= threshold:
                if j == 0:
                    return a, 1
                j -= 1
        return first, 1
    # s/N + sqrt(L/(2N)) + sqrt(8 A L)/N = mean + sqrt(L) * (sqrt(1/(2N)) + sqrt(8 A)/N)
    scale = math.sqrt(big_l)
    arm = _clear_leader(state, scale)
    if arm >= 0:
        return arm, 1
    best = -math.inf                  # near-tie: the exact index, ties to the lowest arm
    for a in range(k):
        n = state.counts[a]
        u = state.sums[a] / n + math.sqrt(big_l / (2.0 * n)) + math.sqrt(8.0 * state.weights[a] * big_l) / n
        if u > best:
            best = u
            arm = a
    return arm, 1


@implements(update, HeteroLaplaceUCB)
def _update_l(policy, state, arm, m, value, level, t):
    if level >= policy.eps_min:
        _accept(state, arm, value, 1.0 / (level * level))
        n = state.counts[arm]
        _set_radius(state, arm, math.sqrt(0.5 / n) + math.sqrt(8.0 * state.weights[arm]) / n)
    keep_state(state.bounds)


class HeteroBernoulliUCB(NamedTuple):
    eps_min: float


implements(init_state, HeteroBernoulliUCB)(_new_state)


@implements(select, HeteroBernoulliUCB)
def _select_b(policy, state, t):
    k = state.counts.shape[0]
    if state.bounds[MIN_COUNT] == 0.0:              # unpulled arms first, in index order
        low = math.inf
        for a in range(k):
            if state.counts[a] == 0.0:
                return a, 1
            if state.counts[a] < low:
                low = state.counts[a]
        state.bounds[MIN_COUNT] = low
    _look_ahead(state, t, True)
    arm = _leader_below(state)
    if arm >= 0:
        return arm, 1
    half_l = 2.0 * math.log(t + 1.0)                 # L / 2
    # s/N + sqrt(B L/2)/N = mean + sqrt(L/2) * sqrt(B)/N
    scale = math.sqrt(half_l)
    arm = _clear_leader(state, scale)
    if arm >= 0:
        return arm, 1
    best = -math.inf                  # near-tie: the exact index, ties to the lowest arm
    for a in range(k):
        n = state.counts[a]
        u = state.sums[a] / n + math.sqrt(state.weights[a] * half_l) / n
        if u > best:
            best = u
            arm = a
    return arm, 1


@implements(update, HeteroBernoulliUCB)
def _update_b(policy, state, arm, m, value, level, t):
    if level >= policy.eps_min:
        c = _contraction(state.level_memo, level)          # g(x; eps) and beta(eps) from one tanh
        _accept(state, arm, debias_contracted(value, c), bernoulli_factor_contracted(c))
        _set_radius(state, arm, math.sqrt(state.weights[arm]) / state.counts[arm])
    keep_state(state.bounds)


# ----------------------------------------------------------------- catalog
_LEVEL_PARAMS = (
    Param("eps_dist", "distribution of the users' privacy levels",
          choice("fixed", "discrete", "truncated_gaussian"), "fixed"),
    Param("eps", "the common level when eps_dist=fixed", real(0.0, low_open=True), None),
    Param("eps_min", "privacy threshold: responses with eps_t < eps_min are discarded "
          "(default: eps when eps_dist=fixed)", real(0.0, low_open=True), None),
    Param("eps_values", "support of eps_dist=discrete (uniform)", vector(0.0), None),
    Param("eps_mu", "mean of eps_dist=truncated_gaussian", real(), 1.0),
    Param("eps_sd", "sd of eps_dist=truncated_gaussian", real(0.0, low_open=True), 1.0),
    Param("eps_lo", "lower clip of eps_dist=truncated_gaussian", real(0.0), 0.0),
    Param("eps_hi", "upper clip of eps_dist=truncated_gaussian", real(0.0, low_open=True), 100.0),
)


def _levels(eps_dist, eps, eps_min, eps_values, eps_mu, eps_sd, eps_lo, eps_hi):
    if eps_dist == "fixed" and eps is None:
        raise InputError("eps must be given (a finite real number > 0) when eps_dist=fixed")
    levels = make_levels(eps_dist, eps=eps, values=eps_values, mu=eps_mu, sd=eps_sd, lo=eps_lo, hi=eps_hi)
    if eps_min is None:
        if eps_dist != "fixed":
            raise InputError(f"eps_min must be given (a finite real number > 0) when eps_dist={eps_dist}")
        eps_min = eps
    stats = level_statistics(levels, eps_min)   # refuses an eps_min that rejects everyone
    return levels, eps_min, {k: float(v) for k, v in stats.items()}


def _build_l(sigmoid):
    def build(instance, horizon, forced_choice, **level_params):
        levels, eps_min, info = _levels(**level_params)
        policy = HeteroLaplaceUCB(eps_min, forced_choice == "random")
        return Built(policy, HeteroCurator.ctl(levels, sigmoid), info=info)
    return build


def _build_b(sigmoid):
    def build(instance, horizon, **level_params):
        levels, eps_min, info = _levels(**level_params)
        return Built(HeteroBernoulliUCB(eps_min), HeteroCurator.ctb(levels, sigmoid), info=info)
    return build


_FORCED = Param("forced_choice", "which arm of the forced-exploration set to pull",
                choice("random", "lowest"), "random")

for _name, _label, _builder, _params, _rewards, _src in (
        ("heldp_ucb_l", "HeLDP-UCB-L", _build_l(False), _LEVEL_PARAMS + (_FORCED,), "unit", "seed 001 Agent 2, Thm 7"),
        ("heldp_ucb_b", "HeLDP-UCB-B", _build_b(False), _LEVEL_PARAMS, "unit", "seed 001 Agent 4, Thm 10"),
        ("heldp_ucb_ls", "HeLDP-UCB-LS", _build_l(True), _LEVEL_PARAMS + (_FORCED,), "any", "seed 001 Cor. 13"),
        ("heldp_ucb_bs", "HeLDP-UCB-BS", _build_b(True), _LEVEL_PARAMS, "any", "seed 001 Cor. 13")):
    register_algorithm(AlgorithmSpec(
        name=_name, label=_label, family="heldp_ucb",
        summary=f"{_label}: heterogeneous-privacy UCB with threshold eps_min",
        source=_src, params=_params, build=_builder, rewards=_rewards, privacy="local"))
