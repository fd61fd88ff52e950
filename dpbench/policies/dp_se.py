"""DP-SE: differentially private successive elimination (Sajed & Sheffet, ICML 2019),
the elimination baseline of seed 002's Figure 5 (eps-DP; spec seed_002.md §5.5 [EXT-M]).

Epochs e = 1, 2, ... over the active set S (initially every arm), Delta_e = 2^-e and
beta = 1/T (the regret version; ``beta`` is a parameter):

    R_e = max{ 32 ln(8|S|e^2/beta)/Delta_e^2, 8 ln(4|S|e^2/beta)/(eps Delta_e) } + 1

Every active arm is pulled n_e = ceil(R_e) times (round robin over S), then
mu~_a = (mean of its n_e rewards of THIS epoch) + Lap(1/(eps n_e)) (each reward is
used once: eps-DP); with h_e = sqrt(ln(8|S|e^2/beta)/(2 n_e)) and
c_e = ln(4|S|e^2/beta)/(eps n_e), arm a is eliminated if
max_b mu~_b - mu~_a > 2(h_e + c_e).  With one arm left it is pulled until T.
[Reconstruction: the formulas use R_e, the pulls its ceiling n_e; h_e, c_e and the
noise use n_e, the number of samples actually averaged.]
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..engine.caching import cached_njit
from ..engine.catalog import AlgorithmSpec, Built, Param, real, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.central_laplace import laplace_release
from ..mechanisms.lattice import lattice_claim_warnings
from ..mechanisms.ldp_curators import Direct

_REST_OF_HORIZON = 1 << 62


@cached_njit
def epoch_pulls(epoch, active, eps, beta):
    """n_e = ceil(R_e) pulls per active arm in epoch ``epoch`` (1-based) with ``active`` arms."""
    gap = 0.5 ** epoch
    e2 = float(epoch) * float(epoch)
    r = max(32.0 * math.log(8.0 * active * e2 / beta) / (gap * gap),
            8.0 * math.log(4.0 * active * e2 / beta) / (eps * gap)) + 1.0
    return int(math.ceil(r))


class DPSE(NamedTuple):
    eps: float
    beta: float


class DPSEState(NamedTuple):
    """Reward sums and the active set, and one-element arrays for the counters that change
    (numba tuples are immutable; the arrays are changed in place)."""
    sums: np.ndarray         # (k,) this epoch's reward sums (then the noisy means)
    active: np.ndarray       # (k,) S, its first n_active entries
    epoch: np.ndarray        # [e, 1-based]
    n_active: np.ndarray     # [|S|]
    per_arm: np.ndarray      # [pulls per arm this epoch]
    done: np.ndarray         # [pulls done this epoch]


@implements(init_state, DPSE)
def _init(policy, k, horizon):
    return DPSEState(np.zeros(k), np.arange(k), np.full(1, 1, dtype=np.int64), np.full(1, k, dtype=np.int64),
                     np.full(1, epoch_pulls(1, k, policy.eps, policy.beta), dtype=np.int64),
                     np.zeros(1, dtype=np.int64))


@implements(select, DPSE)
def _select(policy, state, t):
    if state.n_active[0] == 1:
        return state.active[0], _REST_OF_HORIZON
    return state.active[state.done[0] % state.n_active[0]], 1


@implements(update, DPSE)
def _update(policy, state, arm, m, value, level, t):
    n_active = state.n_active[0]
    if n_active == 1:
        return
    state.sums[arm] += value
    state.done[0] += m
    n_e = state.per_arm[0]
    if state.done[0] < n_active * n_e:
        return
    e2 = float(state.epoch[0]) * float(state.epoch[0])
    h = math.sqrt(math.log(8.0 * n_active * e2 / policy.beta) / (2.0 * n_e))
    c = math.log(4.0 * n_active * e2 / policy.beta) / (policy.eps * n_e)
    best = -math.inf
    for j in range(n_active):                    # noisy means, in S's order, stored in sums
        a = state.active[j]
        state.sums[a] = laplace_release(state.sums[a], n_e, 1.0, policy.eps)     # + Lap(1/(eps n_e))
        if state.sums[a] > best:
            best = state.sums[a]
    kept = 0
    for j in range(n_active):
        a = state.active[j]
        if best - state.sums[a] <= 2.0 * (h + c):
            state.active[kept] = a
            kept += 1
    for j in range(state.sums.shape[0]):
        state.sums[j] = 0.0
    state.epoch[0] += 1
    state.n_active[0] = kept
    state.per_arm[0] = epoch_pulls(state.epoch[0], kept, policy.eps, policy.beta)
    state.done[0] = 0


def _build(instance, horizon, eps, beta=None):
    beta = 1.0 / horizon if beta is None else beta
    return Built(DPSE(float(eps), float(beta)), Direct(False), lattice_claim_warnings("DP-SE", eps),
                 {"privacy_notion": "eps-DP: each reward enters one Laplace-noised epoch mean",
                  "beta": beta, "epoch_1_pulls_per_arm": epoch_pulls(1, instance.k, eps, beta)})


register_algorithm(AlgorithmSpec(
    name="dp_se", label="DP-SE", family="dp_ucb",
    summary="eps-DP successive elimination: epochs of fresh samples, Laplace-noised means",
    source="Sajed & Sheffet 2019; seed 002 Fig. 5 baseline (spec §5.5 [EXT-M])",
    params=(Param("eps", "privacy level eps > 0", real(0.0, low_open=True)),
            Param("beta", "failure probability (default 1/T)", real(0.0, 1.0, low_open=True, high_open=True),
                  None)),
    build=_build, rewards="unit", privacy="central"))
