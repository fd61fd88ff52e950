"""DP-FTPL-Gauss, DP-FTPL-Beta and DP-FTPL-New (seed 002, Wang & Zhu, Algorithms 1-3).

Follow-the-perturbed-leader under (eps, delta)-DP of Definition 1 (per-step
output i(t); neighbouring histories differ in one observed reward).  Each step
draws one theta_i per arm, in arm order, from a law of the arm's own history
(``mechanisms/perturbations.py``) and pulls the argmax (ties: lowest index).
Lemma 8 turns CDF inequalities between the law and its neighbour into privacy.

* DP-FTPL-Gauss (Alg. 1, Thm 11): start phase of ceil(N_G*) pulls per arm, arm by
  arm, then theta_i ~ N(R_i/N_i, v/N_i); v = 2 by default (spec §5.1: the privacy
  proof needs 2, the regret proof uses 1; ``v`` is a parameter).
* DP-FTPL-Beta (Alg. 2, Thm 13): start phase of ceil(N_B*) pulls per arm, then
  theta_i ~ Beta(R_i + 1 + k_i, N_i - R_i + 1 + k_i), k_i = floor(N_i/8) + 1.
* DP-FTPL-New (Alg. 3, Thm 16): one pull per arm, then theta_i ~ Lemma 15 law
  centred at x0_i = R_i/N_i + sqrt(ln T/N_i) + d(N_i, T) with Fact 4's
  d = ln((T(e^eps-1) + 2T delta)/(2(e^eps-1) + 2T delta))/(N_i eps).  eps = 0
  (uniform law) and delta = 0 (Laplace) are allowed, not both.

A start phase is deterministic, so it is one batched ``select`` per arm (its
rewards are one binomial draw on Bernoulli arms).  Rewards in [0, 1] that are
not bits go through the Bernoulli trick (``mechanisms/bernoulli_trick.py``).
The start-phase readings of the spec's ambiguity register (R8, R9) are
``start_rule`` choices; ``start_pulls`` overrides the length outright (e.g.
1: no start phase, the negative control of spec check C9).

The components are reused by the non-private references in ``thompson.py``
(Beta-Bernoulli TS = DP-FTPL-Beta without k and start phase; Gaussian TS =
DP-FTPL-Gauss with v = 1 and one pull per arm).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..engine.caching import cached_njit
from ..engine.catalog import AlgorithmSpec, Built, Param, choice, flag, integer, real, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.bernoulli_trick import bernoulli_observations
from ..mechanisms.lattice import tail_uniform
from ..mechanisms.perturbations import (
    BETA_START_RULES,
    GAUSS_START_RULES,
    GAUSS_VARIANCE,
    beta_perturbation,
    beta_start_phase,
    gauss_lattice_bound,
    gauss_lattice_plan,
    gauss_lattice_step,
    gauss_sd,
    gauss_start_phase,
    lemma15_lattice,
    lemma15_lattice_law,
    lemma15_lattice_theta,
    lemma15_predraw,
    lemma15_step_scale,
    lemma15_tail_radius_parts,
)
from ..mechanisms.perturbations.lemma15 import lemma15_lattice_report
from ..validation import InputError
from .index_search import keep_state


# ============================================================ DP-FTPL-Gauss
class FTPLGauss(NamedTuple):
    start: int        # start-phase pulls per arm (>= 1, so that N_i >= 1 afterwards)
    v: float          # theta_i ~ N(R_i/N_i, v/N_i)


# DP-FTPL-Gauss's state is one (6, K) array, rows below, for the reason DP-FTPL-New's is (see
# there): its select draws, so numba keeps a reference to each array of the state across the
# call, an atomic increment and decrement per array and step; six arrays made these atomics
# about a quarter of the loop's time (perf), one array costs one pair.  Per arm: R_i, N_i,
# R_i / N_i, the lattice of arm i's draw and its sd in lattice steps
# (gauss_lattice_plan(sqrt(v / N_i), 1 / N_i)), and this step's signed tail uniform.
G_ONES, G_PULLS, G_MEAN, G_LATTICE, G_STEPS, G_DRAWS = range(6)


@implements(init_state, FTPLGauss)
def _gauss_init(policy, k, horizon):
    state = np.zeros((6, k))
    state[G_LATTICE, :] = 1.0
    return state


@cached_njit(inline="always")
def _gauss_theta(state, a):
    return gauss_lattice_step(state[G_DRAWS, a], state[G_MEAN, a], state[G_LATTICE, a], state[G_STEPS, a])


@implements(select, FTPLGauss)
def _gauss_select(policy, state, t):
    k = state.shape[1]
    if t < k * policy.start:                       # start phase: arm by arm
        arm, m = t // policy.start, policy.start - t % policy.start
    else:
        arm, m = _gauss_argmax(state, k), 1
    # One exit, with the state still in use where the branches join (index_search.keep_state):
    # with a return inside the start-phase branch, numba kept an atomic increment and decrement
    # of the state array on every pull (tests/benchmarks/refcounts.py counts them).
    state[G_DRAWS, 0] = state[G_DRAWS, 0]
    return arm, m


@cached_njit(inline="always")
def _gauss_argmax(state, k):
    """The arm after the start phase.  theta_i is the lattice Gaussian draw of the randomness t_i
    drawn for every arm in arm order, as one draw after another would.  The argmax (ties to the
    lowest index) is found from the arm with the highest mean first, so that most other arms are
    ruled out by a bound of their theta (gauss_lattice_bound) without their quantile: the same arm
    as the plain loop, every time."""
    leader = 0
    for a in range(k):
        state[G_DRAWS, a] = tail_uniform()
        if state[G_MEAN, a] > state[G_MEAN, leader]:
            leader = a
    arm = leader
    best = _gauss_theta(state, leader)
    for a in range(k):
        if a == leader or gauss_lattice_bound(state[G_DRAWS, a], state[G_MEAN, a], state[G_LATTICE, a],
                                              state[G_STEPS, a]) < best:
            continue
        theta = _gauss_theta(state, a)
        if theta > best or (theta == best and a < arm):
            best = theta
            arm = a
    return arm


@implements(update, FTPLGauss)
def _gauss_update(policy, state, arm, m, value, level, t):
    state[G_ONES, arm] += value
    state[G_PULLS, arm] += m
    n = state[G_PULLS, arm]
    state[G_MEAN, arm] = state[G_ONES, arm] / n
    state[G_LATTICE, arm], state[G_STEPS, arm] = gauss_lattice_plan(gauss_sd(n, policy.v), 1.0 / n)


# ============================================================= DP-FTPL-Beta
class FTPLBeta(NamedTuple):
    start: int        # start-phase pulls per arm
    extra_k: bool     # add k_i = floor(N_i/8) + 1 pseudo-ones and pseudo-zeros (Alg. 2)


class CountState(NamedTuple):
    ones: np.ndarray     # R_i, the reward sum of arm i
    pulls: np.ndarray    # N_i


@implements(init_state, FTPLBeta)
def _beta_init(policy, k, horizon):
    return CountState(np.zeros(k), np.zeros(k))


@implements(select, FTPLBeta)
def _beta_select(policy, state, t):
    k = state.pulls.shape[0]
    if t < k * policy.start:
        arm, m = t // policy.start, policy.start - t % policy.start
    else:
        best = -math.inf
        arm, m = 0, 1
        for a in range(k):
            theta = beta_perturbation(state.ones[a], state.pulls[a], policy.extra_k)
            if theta > best:
                best = theta
                arm = a
    keep_state(state.ones)                         # one exit, the state in use at the join (as Gauss)
    keep_state(state.pulls)
    return arm, m


@implements(update, FTPLBeta)
def _beta_update(policy, state, arm, m, value, level, t):
    state.ones[arm] += value
    state.pulls[arm] += m


# ============================================================== DP-FTPL-New
class FTPLNew(NamedTuple):
    eps: float
    delta: float
    log_horizon: float    # ln T
    shift: float          # Fact 4's centre shift at tail mass 1/T is d = shift / (N_i shift_rate)
    shift_rate: float     # (lemma15_tail_radius_parts: its logarithm taken once, not every step)
    eps_law: float        # the lattice draw's Lemma 15 law (eps', delta', c'), (eps, delta)-DP as
    delta_law: float      # implemented (perturbations.lemma15.lemma15_lattice_law)
    c_law: float


# DP-FTPL-New's state is one (8, K) array, rows below: its select draws (a call numba's
# reference-count pruning cannot see through), so each array in the state would cost an
# atomic increment and decrement per step; one array costs one of each.  Per arm: R_i, N_i,
# x0_i, the noise scale 1/(N' eps') in value units, the predrawn randomness (t_i, B_i) of its
# theta, and its lattice g_i and scale in lattice steps (perturbations.lemma15).
ONES, PULLS, CENTRE, INV_RATE, UNIFORMS, BLOCKS, LATTICE, SCALE = range(8)


@implements(init_state, FTPLNew)
def _new_init(policy, k, horizon):
    return np.zeros((8, k))


@implements(select, FTPLNew)
def _new_select(policy, state, t):
    k = state.shape[1]
    if t < k:                                      # one initial pull per arm
        return t, 1
    # theta_i is the lattice Lemma 15 draw of randomness (t_i, B_i) drawn for every arm in arm
    # order.  The argmax (ties to the lowest index) is found from the arm with the highest
    # centre first, so that most other arms are ruled out without their logarithm.
    leader = 0
    for a in range(k):
        state[UNIFORMS, a], state[BLOCKS, a] = lemma15_predraw(policy.delta)
        if state[CENTRE, a] > state[CENTRE, leader]:
            leader = a
    arm = leader
    best = _new_theta(policy, state, leader)
    for a in range(k):
        if a == leader or _cannot_reach(policy, state, a, best):
            continue
        theta = _new_theta(policy, state, a)
        if theta > best or (theta == best and a < arm):
            best = theta
            arm = a
    return arm, 1


@cached_njit(inline="always")
def _new_theta(policy, state, a):
    return lemma15_lattice_theta(state[UNIFORMS, a], state[BLOCKS, a], state[CENTRE, a], state[LATTICE, a],
                                 state[SCALE, a], policy.eps_law, policy.delta_law, policy.c_law)


@cached_njit(inline="always")
def _cannot_reach(policy, state, a, best):
    """True only if theta_a < best for sure (so arm a is neither the argmax nor tied with it).
    theta = (rint(x0/g) + K) g <= x0 + g/2 + K g.  Lower side: K <= 0.  Upper side: K g <=
    D + g/2 (up to 2^-49 relative), D the noise in value units, with INV_RATE = 1/(N' eps'):
    delta > 0: D = log1p(q) INV_RATE <= q (6 + q) / (6 + 4q) INV_RATE, q = (1/2 - m)/(m + c'), m = t
    (log(1 + q) <= q (6 + q)/(6 + 4q) for q >= 0, Topsoe 2004; against log1p(q) <= q it cuts the
    draws evaluated per step at T = 2e4 on Instance 1 from 2.18 to 1.49 at (0.1, 0.01) and from
    3.53 to 3.13 at (1e-4, 1e-10), the leader's included);
    delta = 0 (Laplace): D = (4B + E') INV_RATE with E' = -log1p(-w) <= w/(1 - w), w = |t|.
    Margins (1.01 g, 1e-9 relative, gap > 1e-7 |best|) far above the rounding of either side."""
    t = state[UNIFORMS, a]
    blocks = state[BLOCKS, a]
    gap = best - state[CENTRE, a] - 1.01 * state[LATTICE, a]
    upper = blocks > 0.0 if policy.delta == 0.0 else t > 0.0
    if not upper:
        return gap > 0.0
    if policy.eps == 0.0 or not gap > 1e-7 * abs(best):
        return False
    if policy.delta == 0.0:
        w = abs(t)
        return (4.0 * (blocks - 1.0) + w / (1.0 - w)) * state[INV_RATE, a] <= gap * (1.0 - 1e-9)
    a_num, b_den = 0.5 - t, t + policy.c_law          # q = a_num / b_den
    bound = a_num * (6.0 * b_den + a_num) * state[INV_RATE, a]
    return bound <= gap * b_den * (6.0 * b_den + 4.0 * a_num) * (1.0 - 1e-9)


@implements(update, FTPLNew)
def _new_update(policy, state, arm, m, value, level, t):
    state[ONES, arm] += value
    state[PULLS, arm] += m
    n = state[PULLS, arm]
    state[CENTRE, arm] = (state[ONES, arm] / n + math.sqrt(policy.log_horizon / n)
                          + policy.shift / (n * policy.shift_rate))
    g, d_steps = lemma15_lattice(n, policy.eps)
    scale = lemma15_step_scale(d_steps, policy.eps, policy.eps_law, policy.delta_law)
    state[LATTICE, arm] = g
    state[SCALE, arm] = scale
    state[INV_RATE, arm] = scale * g


# ================================================================== builders
def start_phase_pulls(n_star: float, horizon: int, floor: int = 1) -> int:
    """Pulls per arm of a start phase 'while N_i < N*': ceil(N*), at least ``floor``,
    capped at the horizon (a longer phase is cut by T anyway)."""
    if math.isinf(n_star) or n_star >= horizon:
        return int(horizon)
    return max(floor, int(math.ceil(n_star)))


_PER_STEP_DP = "(eps, delta)-DP of each step's arm given the history (seed 002 Def. 1)"


def _start_info(name, n_star, start, instance, horizon):
    k = instance.k
    steps = k * start
    info = {"privacy_notion": _PER_STEP_DP, "start_phase_formula": n_star, "start_pulls_per_arm": start,
            "start_phase_steps": min(steps, horizon),
            "start_phase_regret": float(np.sum(instance.gaps) * start)}
    warnings = []
    if steps >= horizon:
        warnings.append(f"{name}: the start phase ({k} arms x {start} pulls = {steps} steps) "
                        f"does not end within the horizon T = {horizon}; the whole run is start phase")
    return info, warnings


def _check_not_both_zero(eps, delta):
    if eps == 0.0 and delta == 0.0:
        raise InputError("eps and delta cannot both be 0 (got eps = 0, delta = 0); "
                         "use eps > 0 or delta > 0")


def build_gauss(instance, horizon, eps, delta, v=GAUSS_VARIANCE, start_rule="spec", start_pulls=None):
    n_star = gauss_start_phase(eps, delta, start_rule)
    start = start_phase_pulls(n_star, horizon) if start_pulls is None else start_pulls
    info, warnings = _start_info("DP-FTPL-Gauss", n_star, start, instance, horizon)
    info.update(v=v, start_rule=start_rule)
    return Built(FTPLGauss(int(start), float(v)), bernoulli_observations(instance), warnings, info)


def build_beta(instance, horizon, eps, delta, start_rule="spec", start_pulls=None, extra_k=True):
    n_star = beta_start_phase(eps, delta, start_rule)
    start = start_phase_pulls(n_star, horizon) if start_pulls is None else start_pulls
    info, warnings = _start_info("DP-FTPL-Beta", n_star, start, instance, horizon)
    info.update(start_rule=start_rule, extra_k=bool(extra_k))
    return Built(FTPLBeta(int(start), bool(extra_k)), bernoulli_observations(instance), warnings, info)


def build_new(instance, horizon, eps, delta):
    _check_not_both_zero(eps, delta)
    tail = 1.0 / horizon
    shift, shift_rate = lemma15_tail_radius_parts(tail, float(eps), float(delta))
    radius = shift / shift_rate                  # lemma15_tail_radius(1, tail, eps, delta)
    eps_law, delta_law, c_law = lemma15_lattice_law(float(eps), float(delta))
    info, warnings = lemma15_lattice_report("DP-FTPL-New", float(eps), float(delta))
    info.update({"privacy_notion": _PER_STEP_DP,
                 "centre_shift_times_N": radius,          # N_i * d(N_i, T): the Fact 4 shift
                 "extra_regret_per_arm_bound": 4.0 * radius,
                 "lattice_law": {"eps": eps_law, "delta": delta_law}})
    return Built(FTPLNew(float(eps), float(delta), math.log(horizon), float(shift), float(shift_rate),
                         float(eps_law), float(delta_law), float(c_law)),
                 bernoulli_observations(instance), warnings, info)


_EPS = Param("eps", "privacy level eps >= 0 (eps = 0 leaves only delta, as in Fig. 6a)", real(0.0))
_DELTA_POS = Param("delta", "privacy slack delta in (0, 1) (these algorithms need delta > 0)",
                   real(0.0, 1.0, low_open=True, high_open=True))
_DELTA = Param("delta", "privacy slack delta in [0, 1) (delta = 0: Laplace perturbation)",
               real(0.0, 1.0, high_open=True), 0.0)
_START = "start-phase pulls per arm, overriding the formula (e.g. 1 = no start phase: negative control)"

register_algorithm(AlgorithmSpec(
    name="dp_ftpl_gauss", label="DP-FTPL-Gauss", family="dp_ftpl",
    summary="FTPL with Gaussian N(R/N, v/N) perturbation after a start phase of ceil(N_G*) pulls per arm",
    source="seed 002 Alg. 1, Thm 11",
    params=(_EPS, _DELTA_POS,
            Param("v", "variance factor v of N(R/N, v/N): 2 (privacy proof) or 1 (regret proof)",
                  real(0.0, low_open=True), GAUSS_VARIANCE),
            Param("start_rule", "reading of N_G* (spec R8)", choice(*GAUSS_START_RULES), "spec"),
            Param("start_pulls", _START, integer(1), None)),
    build=build_gauss, rewards="unit", privacy="central"))

register_algorithm(AlgorithmSpec(
    name="dp_ftpl_beta", label="DP-FTPL-Beta", family="dp_ftpl",
    summary="FTPL with Beta(R+1+k, N-R+1+k) perturbation after a start phase of ceil(N_B*) pulls per arm",
    source="seed 002 Alg. 2, Thm 13",
    params=(_EPS, _DELTA_POS,
            Param("start_rule", "reading of N_B* (spec R9)", choice(*BETA_START_RULES), "spec"),
            Param("start_pulls", _START, integer(0), None),
            Param("extra_k", "add k = floor(N/8) + 1 pseudo-counts (False: Fig. 2(d-f) negative control)",
                  flag(), True)),
    build=build_beta, rewards="unit", privacy="central"))

register_algorithm(AlgorithmSpec(
    name="dp_ftpl_new", label="DP-FTPL-New", family="dp_ftpl",
    summary="FTPL with the Lemma 15 truncated-Laplace perturbation, centre shifted by sqrt(ln T/N) + d",
    source="seed 002 Alg. 3, Thm 16",
    params=(Param("eps", "privacy level eps >= 0 (not both eps and delta 0)", real(0.0)), _DELTA),
    build=build_new, rewards="unit", privacy="central"))
