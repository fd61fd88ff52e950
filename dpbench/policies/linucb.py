"""LinUCB / OFUL (Abbasi-Yadkori, Pál & Szepesvári 2011): the non-private linear-bandit reference
cited by seed 004 (Remark 3: "privacy for free" is measured against its O(sqrt(T log T)) rate).

Ridge estimate theta_t = V_t^-1 b_t, V_t = lam I + sum_s a_s a_s^T, b_t = sum_s r_s a_s;
play argmax_a <a, theta_t> + beta_t ||a||_{V_t^-1} with the self-normalised radius
(their Thm 2, with L = max ||a||):

    beta_t = sqrt(lam) S + sigma sqrt(2 log(1/delta) + d log(1 + t L^2 / (lam d))).

V_t^-1 is kept by Sherman–Morrison updates.  Defaults: lam = 1, S = 1 and sigma = 1
(Assumption 1: ||theta*|| <= 1, 1-sub-Gaussian noise), delta = 1/T.  Ties go to the
lowest index.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..engine.catalog import AlgorithmSpec, Built, Param, real, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.ldp_curators import Direct
from ..validation import InputError


class LinUCB(NamedTuple):
    actions: np.ndarray      # (K, d)
    lam: float               # ridge regulariser
    s_bound: float           # S >= ||theta*||
    sigma: float             # sub-Gaussian noise level
    log_inv_delta: float     # log(1/delta)
    l_bound: float           # L = max ||a||


class LinUCBState(NamedTuple):
    v_inv: np.ndarray        # (d, d) V^-1, V = lam I + sum of x x^T
    b: np.ndarray            # (d,) sum of reward x
    theta: np.ndarray        # (d,) V^-1 b
    z: np.ndarray            # (d,) scratch: V^-1 x


@implements(init_state, LinUCB)
def _init(policy, k, horizon):
    d = policy.actions.shape[1]
    v_inv = np.zeros((d, d))
    for i in range(d):
        v_inv[i, i] = 1.0 / policy.lam
    return LinUCBState(v_inv, np.zeros(d), np.zeros(d), np.zeros(d))


@implements(select, LinUCB)
def _select(policy, state, t):
    n_actions, d = policy.actions.shape
    beta = math.sqrt(policy.lam) * policy.s_bound + policy.sigma * math.sqrt(
        2.0 * policy.log_inv_delta
        + d * math.log(1.0 + t * policy.l_bound * policy.l_bound / (policy.lam * d)))
    best = -math.inf
    arm = 0
    for a in range(n_actions):
        mean = 0.0
        quad = 0.0
        for i in range(d):
            mean += policy.actions[a, i] * state.theta[i]
            row = 0.0
            for j in range(d):
                row += state.v_inv[i, j] * policy.actions[a, j]
            quad += policy.actions[a, i] * row
        u = mean + beta * math.sqrt(max(quad, 0.0))
        if u > best:
            best = u
            arm = a
    return arm, 1


@implements(update, LinUCB)
def _update(policy, state, arm, m, value, level, t):
    d = policy.actions.shape[1]
    x = policy.actions[arm]
    quad = 0.0
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += state.v_inv[i, j] * x[j]
        state.z[i] = s
        quad += x[i] * s
    f = m / (1.0 + m * quad)                     # (V + m x x^T)^-1 by Sherman–Morrison
    for i in range(d):
        for j in range(d):
            state.v_inv[i, j] -= f * state.z[i] * state.z[j]
        state.b[i] += value * x[i]
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += state.v_inv[i, j] * state.b[j]
        state.theta[i] = s


def _build(instance, horizon, lam, S, sigma, delta):
    actions = getattr(instance.env, "actions", None)
    if not isinstance(actions, np.ndarray) or actions.ndim != 2:
        raise InputError(f"linucb needs a linear environment (linear_sphere, linear, linear_sphere_net); "
                         f"got {instance.name!r}")
    delta = 1.0 / horizon if delta is None else delta
    l_bound = float(np.linalg.norm(actions, axis=1).max())
    info = {"delta": delta, "proposed_defaults": ["lam = 1, S = 1, sigma = 1, delta = 1/T (OFUL Thm 2 "
                                                  "under Assumption 1)"]}
    return Built(LinUCB(actions, float(lam), float(S), float(sigma), float(math.log(1.0 / delta)), l_bound),
                 Direct(False), [], info)


register_algorithm(AlgorithmSpec(
    name="linucb", label="LinUCB (OFUL)", family="linucb",
    summary="non-private optimistic linear bandit with the self-normalised confidence ellipsoid",
    source="Abbasi-Yadkori et al. 2011, Thm 2; seed 004 Remark 3 reference",
    params=(Param("lam", "ridge regulariser", real(0.0, low_open=True), 1.0),
            Param("S", "bound on ||theta*||", real(0.0), 1.0),
            Param("sigma", "sub-Gaussian noise level", real(0.0), 1.0),
            Param("delta", "confidence delta (default 1/T)", real(0.0, 1.0, low_open=True, high_open=True),
                  None)),
    build=_build, rewards="any", privacy="none"))
