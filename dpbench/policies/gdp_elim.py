"""GDP-Elim-New (seed 002, Wang & Zhu, Algorithm 4, Lemma 9, Theorem 18).

(eps, delta)-global DP (Definition 3: the output is the whole action vector).
Phases k = 1, 2, ... with Delta(k) = 2^-k and

    N(k) = ceil(max{ 32 ln T / Delta(k)^2,
                     (4/(eps Delta(k))) ln((T^2(e^eps-1) + T^2 delta)/(2(e^eps-1) + T^2 delta)) })

pulls of every arm (ceil: spec R30).  At the end of phase k every arm draws
theta_i ~ Lemma 15 law at (eps, delta/2) centred at the mean of this phase's
N(k) rewards only; if theta_i > max_{j != i} theta_j + Delta(k) (Lemma 9's exploit
rule), arm i is pulled for the rest of the horizon (one batch).  eps = 0 uses
the uniform limit of the log term, (4/Delta(k)) (T^2 - 2)/(T^2 delta).

The pull order inside a phase is not specified by the paper and decides the
regret of an unfinished last phase (spec §11): ``order="round_robin"`` (default,
favours no arm) or ``"blocks"`` (arm 1's N(k) pulls, then arm 2's, ...; one
batch per arm).  With the paper's constants the phases are long (N(1) = 1474 at
T = 1e5), so on the paper's instances the algorithm does not exploit before T
and its regret is near-linear (spec §5.4: expected, not a bug).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..engine.catalog import AlgorithmSpec, Built, Param, choice, real, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.bernoulli_trick import bernoulli_observations
from ..mechanisms.perturbations import lemma15_lattice_draw
from ..mechanisms.perturbations.lemma15 import lemma15_lattice_report
from ..validation import InputError

#: ``select``'s batch length when exploiting: the loop cuts it at the horizon.
_REST_OF_HORIZON = 1 << 62
ORDERS = ("round_robin", "blocks")


class GDPElimNew(NamedTuple):
    eps: float
    half_delta: float          # the Lemma 15 law uses (eps, delta/2)
    phase_pulls: np.ndarray    # N(k) for k = 1, 2, ... (int64; enough phases to exceed T)
    phase_gaps: np.ndarray     # Delta(k) = 2^-k
    blocks: bool               # pull order inside a phase (False: round robin)


class GDPElimState(NamedTuple):
    """This phase's reward sums, and one-element arrays for the counters that change."""
    sums: np.ndarray         # (k,) this phase's reward sums
    phase: np.ndarray        # [phase index, 0-based]
    done: np.ndarray         # [pulls done in the phase]
    exploit: np.ndarray      # [the exploited arm, -1 before]


@implements(init_state, GDPElimNew)
def _init(policy, k, horizon):
    return GDPElimState(np.zeros(k), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
                        np.full(1, -1, dtype=np.int64))


@implements(select, GDPElimNew)
def _select(policy, state, t):
    if state.exploit[0] >= 0:
        return state.exploit[0], _REST_OF_HORIZON
    n_k = policy.phase_pulls[state.phase[0]]
    done = state.done[0]
    if policy.blocks:
        return done // n_k, n_k - done % n_k
    return done % state.sums.shape[0], 1


@implements(update, GDPElimNew)
def _update(policy, state, arm, m, value, level, t):
    if state.exploit[0] >= 0:
        return
    state.sums[arm] += value
    state.done[0] += m
    k = state.sums.shape[0]
    n_k = policy.phase_pulls[state.phase[0]]
    if state.done[0] < k * n_k:
        return
    # end of phase: one Lemma 15 draw per arm (in arm order) from this phase's means
    n = float(n_k)
    best = -math.inf
    second = -math.inf
    leader = 0
    for a in range(k):
        theta = lemma15_lattice_draw(state.sums[a] / n, n, policy.eps, policy.half_delta)
        if theta > best:
            second = best
            best = theta
            leader = a
        elif theta > second:
            second = theta
    if best > second + policy.phase_gaps[state.phase[0]]:
        state.exploit[0] = leader
        return
    state.phase[0] += 1
    state.done[0] = 0
    for a in range(k):
        state.sums[a] = 0.0


# ================================================================== schedule
def privacy_log_term(horizon: int, eps: float, delta: float) -> float:
    """(1/eps) ln((T^2(e^eps-1) + T^2 delta)/(2(e^eps-1) + T^2 delta)); its eps -> 0 limit
    (T^2 - 2)/(T^2 delta) at eps = 0 (Alg. 4; Lemma 15 at (eps, delta/2) has tail 1/T^2)."""
    t2 = float(horizon) ** 2
    if eps == 0.0:
        return (t2 - 2.0) / (t2 * delta)
    em1 = math.expm1(eps)
    return math.log((t2 * em1 + t2 * delta) / (2.0 * em1 + t2 * delta)) / eps


def phase_length(k: int, horizon: int, eps: float, delta: float) -> int:
    """N(k) = ceil(max{32 ln T / Delta(k)^2, 4 privacy_log_term / Delta(k)}), Delta(k) = 2^-k."""
    gap = 0.5 ** k
    return int(math.ceil(max(32.0 * math.log(horizon) / gap ** 2,
                              4.0 * privacy_log_term(horizon, eps, delta) / gap)))


def phase_schedule(horizon: int, eps: float, delta: float, arms: int):
    """(N(k), Delta(k)) for k = 1..K, K the first phase whose end lies beyond the horizon."""
    pulls = []
    used = 0
    while used < horizon:
        pulls.append(phase_length(len(pulls) + 1, horizon, eps, delta))
        used += arms * pulls[-1]
    return np.array(pulls, dtype=np.int64), 0.5 ** np.arange(1, len(pulls) + 1)


def build(instance, horizon, eps, delta=0.0, order="round_robin"):
    if eps == 0.0 and delta == 0.0:
        raise InputError("eps and delta cannot both be 0 (got eps = 0, delta = 0); use eps > 0 or delta > 0")
    pulls, gaps = phase_schedule(horizon, eps, delta, instance.k)
    k = instance.k
    gap_min = float(np.min(instance.gaps[instance.gaps > 0])) if np.any(instance.gaps > 0) else math.inf
    # under the good event exploitation must start once 2 Delta(k) < Delta_min (spec §5.4)
    k_star = 1
    while 2.0 * 0.5 ** k_star >= gap_min:
        k_star += 1
    steps_to_k_star = k * sum(phase_length(j, horizon, eps, delta) for j in range(1, k_star + 1))
    info, warnings = lemma15_lattice_report("GDP-Elim-New (its Lemma 15 draws at delta/2)", float(eps),
                                            0.5 * float(delta))
    info.update({"privacy_notion": "(eps, delta)-global DP of the whole action vector (seed 002 Def. 3)",
                 "phase_pulls": pulls.tolist(), "order": order, "exploit_phase_bound": k_star,
                 "steps_through_exploit_phase_bound": steps_to_k_star})
    if k * int(pulls[0]) >= horizon:
        warnings.append(f"GDP-Elim-New: the first phase ({k} arms x N(1) = {int(pulls[0])} pulls) does not "
                        f"end within the horizon T = {horizon}; the whole run is phase-1 exploration")
    elif steps_to_k_star > horizon:
        info["note"] = (f"exploitation is only guaranteed after phase {k_star} ({steps_to_k_star} steps > "
                        f"T = {horizon}): expect near-linear regret (spec §5.4)")
    policy = GDPElimNew(float(eps), 0.5 * float(delta), pulls, gaps, order == "blocks")
    return Built(policy, bernoulli_observations(instance), warnings, info)


register_algorithm(AlgorithmSpec(
    name="gdp_elim_new", label="GDP-Elim-New", family="dp_ftpl",
    summary="phased elimination with Lemma 15 perturbations at (eps, delta/2); global DP",
    source="seed 002 Alg. 4, Lemma 9, Thm 18",
    params=(Param("eps", "privacy level eps >= 0 (not both eps and delta 0)", real(0.0)),
            Param("delta", "privacy slack delta in [0, 1)", real(0.0, 1.0, high_open=True), 0.0),
            Param("order", "pull order inside a phase (unspecified in the paper; spec §11)",
                  choice(*ORDERS), "round_robin")),
    build=build, rewards="unit", privacy="central"))
