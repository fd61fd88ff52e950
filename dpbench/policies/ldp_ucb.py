"""LDP-UCB-L, LDP-UCB-B, LDP-UCB-LS, LDP-UCB-BS (seed 000, Agents 2 and 4, Cor. 10/11).

* LDP-UCB-L(eps) (Agent 2, Thm 4): pull each arm once; then, with t completed
  pulls, if some arm has N_a <= 4 log(t+1) pull the lowest-indexed such arm
  (forced exploration: Lemma 3 needs N_a > 4 log t; the paper says "an arm", the
  authors' code takes the first), else argmax
  S_a/N_a + sqrt(2 log t / N_a) + sqrt(32 log t / (eps^2 N_a))   (reconstruction R1).
  Responses come from CTL(eps).
* LDP-UCB-B(eps) (Agent 4, Thm 6): UCB1 on the bits of CTB(eps); no forced exploration.
* LDP-UCB-LS / LDP-UCB-BS: the same agents behind CTL-S / CTB-S (sigmoid-mapped
  rewards, for unbounded rewards such as N(mu, 1)); regret is always measured on
  the original means.

The indices do not depend on the curator, so each takes ``mechanism=`` (any local
mechanism, e.g. ``simulate("ldp_ucb_l", "bernoulli", eps=1.0, mechanism="ctb")``;
:mod:`dpbench.engine.composition`): the -L agents take real-valued reports, the -B agents
(UCB1's Hoeffding radius, valid for the CTB bits of Thm 6) bit reports only.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from ..engine.caching import cached_njit
from ..engine.catalog import AlgorithmSpec, Built, Param, real, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.lattice import lattice_claim_warnings
from ..mechanisms.ldp_curators import CTB, CTL
from .index_search import (
    AHEAD_LOG,
    AHEAD_SCALE,
    AHEAD_UNTIL,
    LEADER_TOLERANCE,
    MAX_ABS_MEAN,
    MIN_COUNT,
    ahead_step,
    clear_leader,
    init_mean_state,
    leader_below,
    update_mean_state,
)
from .ucb import UCB1Index


class LaplaceUCB(NamedTuple):
    eps: float


implements(init_state, LaplaceUCB)(init_mean_state)
implements(update, LaplaceUCB)(update_mean_state)


@implements(select, LaplaceUCB)
def _select(policy, state, t):
    k = state.counts.shape[0]
    if t < k:
        return t, 1
    if t > state.ahead[AHEAD_UNTIL]:     # bounds of log t and of the scale over the next steps
        until = ahead_step(t)
        log_until = math.log(until)
        state.ahead[AHEAD_UNTIL] = until
        state.ahead[AHEAD_LOG] = log_until
        state.ahead[AHEAD_SCALE] = _scale(policy, log_until)
    if state.bounds[MIN_COUNT] > 4.0 * state.ahead[AHEAD_LOG] + 2.001:      # no forced arm (see below)
        bound = state.ahead[AHEAD_SCALE]
        arm = leader_below(state.means, state.inv_sqrt_counts, bound,
                           LEADER_TOLERANCE * (state.bounds[MAX_ABS_MEAN] + bound), state.leader)
        if arm >= 0:
            return arm, 1
    log_t = math.log(t)
    # forced exploration of the lowest-indexed arm with N_a <= 4 log(t+1).  No arm qualifies
    # while a lower bound of min N_a (counts only grow) exceeds 4 log t + 2 >= 4 log(t+1),
    # so the counts are scanned, and log(t+1) computed, only when the bound comes close.
    if state.bounds[MIN_COUNT] <= 4.0 * log_t + 2.001:
        forced = 4.0 * math.log(t + 1.0)
        low = math.inf
        for a in range(k):
            if state.counts[a] <= forced:
                return a, 1
            if state.counts[a] < low:
                low = state.counts[a]
        state.bounds[MIN_COUNT] = low
    hoeffding = 2.0 * log_t
    laplace = 32.0 * log_t / (policy.eps * policy.eps)
    scale = _scale(policy, log_t)     # sqrt(hoeffding) + sqrt(laplace), the same operations
    arm = clear_leader(state.means, state.inv_sqrt_counts, scale,
                       LEADER_TOLERANCE * (state.bounds[MAX_ABS_MEAN] + scale), state.leader)
    if arm >= 0:
        return arm, 1
    best = -math.inf                  # near-tie: the exact index, ties to the lowest arm
    for a in range(k):
        u = (state.means[a] + math.sqrt(hoeffding / state.counts[a])
             + math.sqrt(laplace / state.counts[a]))
        if u > best:
            best = u
            arm = a
    return arm, 1


@cached_njit(inline="always")
def _scale(policy, log_t):
    """sqrt(2 log t) + sqrt(32 log t / eps^2): the factor of 1/sqrt(N_a) in the index."""
    return math.sqrt(2.0 * log_t) + math.sqrt(32.0 * log_t / (policy.eps * policy.eps))


_EPS = (Param("eps", "privacy level of every user (eps-LDP)", real(0.0, low_open=True)),)

register_algorithm(AlgorithmSpec(
    name="ldp_ucb_l", label="LDP-UCB-L", family="ldp_ucb",
    summary="UCB with Laplace radius and forced exploration on CTL(eps) responses",
    source="seed 000 Agent 2, Thm 4", params=_EPS,
    build=lambda instance, horizon, eps: Built(LaplaceUCB(eps), CTL.at(eps, False),
                                               lattice_claim_warnings("LDP-UCB-L", eps)),
    rewards="unit", privacy="local", reports="real"))
register_algorithm(AlgorithmSpec(
    name="ldp_ucb_b", label="LDP-UCB-B", family="ldp_ucb",
    summary="UCB1 on CTB(eps) bits",
    source="seed 000 Agent 4, Thm 6", params=_EPS,
    build=lambda instance, horizon, eps: Built(UCB1Index(2.0), CTB.at(eps, False)),
    rewards="unit", privacy="local", reports="bits"))
register_algorithm(AlgorithmSpec(
    name="ldp_ucb_ls", label="LDP-UCB-LS", family="ldp_ucb",
    summary="LDP-UCB-L behind CTL-S (sigmoid, unbounded rewards)",
    source="seed 000 Cor. 10", params=_EPS,
    build=lambda instance, horizon, eps: Built(LaplaceUCB(eps), CTL.at(eps, True),
                                               lattice_claim_warnings("LDP-UCB-LS", eps)),
    rewards="any", privacy="local", reports="real"))
register_algorithm(AlgorithmSpec(
    name="ldp_ucb_bs", label="LDP-UCB-BS", family="ldp_ucb",
    summary="LDP-UCB-B behind CTB-S (sigmoid, unbounded rewards)",
    source="seed 000 Cor. 11", params=_EPS,
    build=lambda instance, horizon, eps: Built(UCB1Index(2.0), CTB.at(eps, True)),
    rewards="any", privacy="local", reports="bits"))
