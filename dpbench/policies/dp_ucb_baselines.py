"""DP-UCB, DP-UCB-BOUND and DP-UCB-INT (Tossou & Dimitrakakis, AAAI 2016, arXiv:1511.08681),
the UCB baselines of seed 002's Figures 4-5.

Seed 002 gives none of their parameters; these are the reconstructions of the
spec (seed_002.md §5.5, [EXT]), after the public re-implementations it names.

* DP-UCB-BOUND (Alg. 1; eps-DP): each arm's reward sum is released by an eps-DP
  hybrid counter (``tree_counter.hybrid_add``: logarithmic mechanism at eps/2 plus a
  binary tree at eps/2 inside each block).  After one pull per arm, argmax
  S_hat_a/N_a + sqrt(2 ln t/N_a) + nu_a/N_a with nu_a = (sqrt 8/eps) ln(4 t^4), times
  (ln N_a + 1) when N_a is not a power of 2 (the counter's error bound).
* DP-UCB (Alg. 2; eps-DP) [reconstruction, L/M]: the same counters, but every arm's
  counter receives an item at every step (0 when the arm is not pulled), so each
  stream has length t; index S_hat_a/N_a + sqrt(2 ln t/N_a) (no nu term).
  ``streams = "pulled"`` feeds only the pulled arm's counter (DP-UCB-BOUND without
  its nu term): the other reading of a baseline the paper does not spell out.
* DP-UCB-INT (Alg. 3) [reconstruction, L]: f = ceil(1/eps); the first N f steps are
  round robin; afterwards, at every step, each arm with N_a a multiple of f gets a
  fresh index mean_a + Lap(1/N_a^(1 - v/2)) + sqrt(2 ln t/N_a) (others keep their
  stale index), with privacy rate v = 1.1 (a MATLAB re-implementation; its
  ``laprnd`` reads the last argument as a standard deviation, i.e. scale/sqrt 2 --
  we use it as the scale, as the spec does; ``noise = "sd"`` reads it as laprnd does).
  The map from a target (eps, delta) to
  (f, v) is unresolved in the spec, so no (eps, delta) claim is made for it.

t is the number of completed pulls (the engine's convention).  Rewards in [0, 1]
are used directly (the counters need only |x| <= 1).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.catalog import AlgorithmSpec, Built, Param, choice, real, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.ldp_curators import Direct
from ..mechanisms.tree_counter import hybrid_add, hybrid_new
from .index_search import keep_state


# ============================================================ DP-UCB(-BOUND)
class HybridUCB(NamedTuple):
    eps: float
    bound: bool          # add nu_a/N_a to the index (DP-UCB-BOUND)
    all_streams: bool    # every arm's counter gets an item each step, 0 if not pulled (DP-UCB)


class HybridState(NamedTuple):
    psum: np.ndarray       # the hybrid counters of every arm (mechanisms.tree_counter.hybrid_new)
    noisy: np.ndarray
    logm: np.ndarray
    pulls: np.ndarray      # N_a
    estimate: np.ndarray   # S_hat_a / N_a


@implements(init_state, HybridUCB)
def _hybrid_init(policy, k, horizon):
    psum, noisy, logm = hybrid_new(k, horizon)
    return HybridState(psum, noisy, logm, np.zeros(k), np.zeros(k))


@implements(select, HybridUCB)
def _hybrid_select(policy, state, t):
    k = state.pulls.shape[0]
    if t < k:
        return t, 1
    log_t = math.log(t)
    nu = math.sqrt(8.0) / policy.eps * (math.log(4.0) + 4.0 * log_t)
    best = -math.inf
    arm = 0
    for a in range(k):
        n = state.pulls[a]
        index = state.estimate[a] + math.sqrt(2.0 * log_t / n)
        if policy.bound:
            n_int = int(n)
            if n_int & (n_int - 1) == 0:
                index += nu / n
            else:
                index += nu * (math.log(n) + 1.0) / n
        if index > best:
            best = index
            arm = a
    return arm, 1


@implements(update, HybridUCB)
def _hybrid_update(policy, state, arm, m, value, level, t):
    state.pulls[arm] += 1.0
    if not policy.all_streams:
        s_hat = hybrid_add(state.psum, state.noisy, state.logm, arm, int(state.pulls[arm]), value, policy.eps)
        state.estimate[arm] = s_hat / state.pulls[arm]
        return
    for a in range(state.pulls.shape[0]):
        s_hat = hybrid_add(state.psum, state.noisy, state.logm, a, t + 1, value if a == arm else 0.0, policy.eps)
        if state.pulls[a] > 0:
            state.estimate[a] = s_hat / state.pulls[a]


# ================================================================ DP-UCB-INT
class IntervalUCB(NamedTuple):
    interval: int        # f = ceil(1/eps)
    rate: float          # v: the index noise is Lap(noise/N_a^(1 - v/2))
    noise: float         # 1 (the scale, as the spec reads it) or 1/sqrt 2 (MATLAB laprnd's sd)


class IntervalState(NamedTuple):
    ones: np.ndarray       # R_a, the reward sum of arm a
    pulls: np.ndarray      # N_a
    indices: np.ndarray    # the noisy index of arm a, refreshed every f pulls


@implements(init_state, IntervalUCB)
def _int_init(policy, k, horizon):
    return IntervalState(np.zeros(k), np.zeros(k), np.zeros(k))


@implements(select, IntervalUCB)
def _int_select(policy, state, t):
    k = state.pulls.shape[0]
    if t < k * policy.interval:
        arm = t % k
    else:
        log_t = math.log(t)
        exponent = 1.0 - 0.5 * policy.rate
        f = float(policy.interval)
        best = -math.inf
        arm = 0
        for a in range(k):
            n = state.pulls[a]
            if n % f == 0.0:
                state.indices[a] = (state.ones[a] / n + rng.laplace(policy.noise * n ** -exponent)
                                    + math.sqrt(2.0 * log_t / n))
            if state.indices[a] > best:
                best = state.indices[a]
                arm = a
    # one exit, the state in use where the branches join: no reference counting per pull
    # (dpbench/guides/extending.md; tests/benchmarks/refcounts.py)
    keep_state(state.ones)
    keep_state(state.pulls)
    keep_state(state.indices)
    return arm, 1


@implements(update, IntervalUCB)
def _int_update(policy, state, arm, m, value, level, t):
    state.ones[arm] += value
    state.pulls[arm] += m


# ================================================================== catalog
_EPS = (Param("eps", "privacy level eps > 0", real(0.0, low_open=True)),)
_HYBRID_DP = "eps-DP: every reward enters one arm's eps-DP hybrid counter; the arms follow by post-processing"

register_algorithm(AlgorithmSpec(
    name="dp_ucb_bound", label="DP-UCB-BOUND", family="dp_ucb",
    summary="UCB on hybrid-counter reward sums plus the counter's error bound (eps-DP)",
    source="Tossou & Dimitrakakis 2016 Alg. 1; seed 002 Fig. 5 baseline (spec §5.5 [EXT-M])",
    params=_EPS, rewards="unit", privacy="central",
    build=lambda instance, horizon, eps: Built(HybridUCB(eps, True, False), Direct(False), [],
                                               {"privacy_notion": _HYBRID_DP})))

register_algorithm(AlgorithmSpec(
    name="dp_ucb", label="DP-UCB", family="dp_ucb",
    summary="UCB on hybrid-counter reward sums, every arm's stream fed each step (eps-DP)",
    source="Tossou & Dimitrakakis 2016 Alg. 2; seed 002 Fig. 5 baseline (spec §5.5 [EXT-L/M])",
    params=_EPS + (Param("streams", "whose counter gets an item each step: 'all' (0 for the arms not pulled; "
                         "the spec's reconstruction) or 'pulled' (DP-UCB-BOUND without nu)",
                         choice("all", "pulled"), "all"),),
    rewards="unit", privacy="central",
    build=lambda instance, horizon, eps, streams="all": Built(HybridUCB(eps, False, streams == "all"), Direct(False),
                                                              [], {"privacy_notion": _HYBRID_DP,
                                                                   "streams": streams})))

#: DP-UCB-INT's noise readings: the Laplace scale 1/N^(1 - v/2) (spec 5.5), or that number read as
#: a standard deviation, as MATLAB's laprnd does (scale / sqrt 2)
INT_NOISE = {"scale": 1.0, "sd": 1.0 / math.sqrt(2.0)}


def _build_int(instance, horizon, eps, v=1.1, noise="scale"):
    interval = int(math.ceil(1.0 / eps))
    info = {"interval_f": interval, "privacy_rate_v": v, "noise": noise,
            "privacy_claim": "unresolved: the (eps, delta) -> (f, v) map is not reconstructed (spec §5.5)"}
    warnings = []
    if instance.k * interval >= horizon:
        warnings.append(f"DP-UCB-INT: the round-robin phase ({instance.k} arms x f = {interval}) does not "
                        f"end within the horizon T = {horizon}")
    return Built(IntervalUCB(interval, float(v), INT_NOISE[noise]), Direct(False), warnings, info)


register_algorithm(AlgorithmSpec(
    name="dp_ucb_int", label="DP-UCB-INT", family="dp_ucb",
    summary="UCB whose noisy index is refreshed every f = ceil(1/eps) pulls of an arm",
    source="Tossou & Dimitrakakis 2016 Alg. 3; seed 002 Fig. 4 baseline (spec §5.5 [EXT-L])",
    params=_EPS + (Param("v", "privacy rate v: index noise Lap(1/N^(1 - v/2)) (reconstruction)",
                         real(0.0, 2.0, low_open=True, high_open=True), 1.1),
                   Param("noise", "1/N^(1 - v/2) read as the Laplace scale ('scale', the spec) or as its "
                         "standard deviation ('sd', MATLAB laprnd: scale / sqrt 2)", choice(*INT_NOISE), "scale")),
    build=_build_int, rewards="unit", privacy="central"))
