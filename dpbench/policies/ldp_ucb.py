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

import numpy as np

from ..engine.catalog import AlgorithmSpec, Built, Param, real, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.ldp_curators import CTB, CTL
from .ucb import UCB1Index


class LaplaceUCB(NamedTuple):
    eps: float


@implements(init_state, LaplaceUCB)
def _init(policy, k, horizon):
    return np.zeros(k), np.zeros(k), np.zeros(k)


@implements(select, LaplaceUCB)
def _select(policy, state, t):
    s, n, mean = state
    k = n.shape[0]
    if t < k:
        return t, 1
    forced = 4.0 * math.log(t + 1.0)
    for a in range(k):
        if n[a] <= forced:
            return a, 1
    log_t = math.log(t)
    hoeffding = 2.0 * log_t
    laplace = 32.0 * log_t / (policy.eps * policy.eps)
    best = -math.inf
    arm = 0
    for a in range(k):
        u = mean[a] + math.sqrt(hoeffding / n[a]) + math.sqrt(laplace / n[a])
        if u > best:
            best = u
            arm = a
    return arm, 1


@implements(update, LaplaceUCB)
def _update(policy, state, arm, m, value, level, t):
    s, n, mean = state
    s[arm] += value
    n[arm] += m
    mean[arm] = s[arm] / n[arm]


_EPS = (Param("eps", "privacy level of every user (eps-LDP)", real(0.0, low_open=True)),)

register_algorithm(AlgorithmSpec(
    name="ldp_ucb_l", label="LDP-UCB-L", family="ldp_ucb",
    summary="UCB with Laplace radius and forced exploration on CTL(eps) responses",
    source="seed 000 Agent 2, Thm 4", params=_EPS,
    build=lambda instance, horizon, eps: Built(LaplaceUCB(eps), CTL(eps, False)),
    rewards="unit", privacy="local", reports="real"))
register_algorithm(AlgorithmSpec(
    name="ldp_ucb_b", label="LDP-UCB-B", family="ldp_ucb",
    summary="UCB1 on CTB(eps) bits",
    source="seed 000 Agent 4, Thm 6", params=_EPS,
    build=lambda instance, horizon, eps: Built(UCB1Index(2.0), CTB(eps, False)),
    rewards="unit", privacy="local", reports="bits"))
register_algorithm(AlgorithmSpec(
    name="ldp_ucb_ls", label="LDP-UCB-LS", family="ldp_ucb",
    summary="LDP-UCB-L behind CTL-S (sigmoid, unbounded rewards)",
    source="seed 000 Cor. 10", params=_EPS,
    build=lambda instance, horizon, eps: Built(LaplaceUCB(eps), CTL(eps, True)),
    rewards="any", privacy="local", reports="real"))
register_algorithm(AlgorithmSpec(
    name="ldp_ucb_bs", label="LDP-UCB-BS", family="ldp_ucb",
    summary="LDP-UCB-B behind CTB-S (sigmoid, unbounded rewards)",
    source="seed 000 Cor. 11", params=_EPS,
    build=lambda instance, horizon, eps: Built(UCB1Index(2.0), CTB(eps, True)),
    rewards="any", privacy="local", reports="bits"))
