"""Robust successive elimination under central DP and LDP (Tao et al., seed 003).

**DP Robust SE** (``dp_robust_se``, Algorithm 3, Theorems 3-4).  Epoch
tau = 1, 2, ... with active set S (|S| = s at the epoch's start),
D_tau = 2^-tau, L_tau = ln(4 s tau^2 / beta) and, with e = (1+v)/v,

    R_tau = ceil(u^(1/v) (2c)^e L_tau / (eps D_tau^e) + 1)      pulls of every active arm
    B_tau = (u R_tau eps / L_tau)^(1/(1+v))                       truncation (zeroing) threshold
    err_tau = u^(1/(1+v)) (L_tau / (R_tau eps))^(v/(1+v))         (= D_tau / (2c) before the +1)

Each active arm's epoch mean of truncated rewards gets Lap(2 B_tau / (R_tau eps));
arm a is eliminated when max_b mu~_b - mu~_a > c err_tau.  Paper: c = 12.

**LDP Robust SE** (``ldp_robust_se``, Algorithm 4, Theorem 6).  Every user
reports trunc(x, B_tau) + Lap(2 B_tau / eps) (``mechanisms/truncation.py``,
B_tau broadcast by the learner), L_tau = ln(8 s tau^2 / beta),

    R_tau = ceil(u^(2/v) (2c)^(2e) L_tau / (eps^2 D_tau^(2e)) + L_tau)
    B_tau = (u sqrt(R_tau) eps / sqrt(L_tau))^(1/(1+v))
    err_tau = u^(1/(1+v)) (sqrt(L_tau) / (sqrt(R_tau) eps))^(v/(1+v))   (err_mode "sqrtR", proof eq. (24))
           or u^(1/(1+v)) (sqrt(L_tau) / (R_tau eps))^(v/(1+v))         (err_mode "literal", the box; L1)

and arm a is eliminated when max_b mu_b - mu_a > c err_tau.  Paper: c = 14;
D_tau = 2^-tau by default (the proof's), 4^-tau with ``d_mode="4^-tau"`` (the box; L2).

Modes (spec Sec. 5.5).  With the paper's c, R_1 alone exceeds T/K for every
setting of the paper at T <= 1e7 (except Alg. 3, v = 0.9, T = 1e7), so the run
is pure round-robin with regret (T/K) sum of gaps.  ``constants="scaled"``
takes a smaller ``c`` in both R_tau and the threshold, which keeps
c err_tau <= D_tau / 2 and every predicted exponent (only constants move).

Numerics and engine use.  R_tau is computed in log space and capped at T
before the integer cast (Alg. 4 with 4^-tau passes 2^63 at tau = 3): no
overflow is possible.  An epoch's statistics do not depend on the order of
its pulls, so an epoch is played as round-robin sweeps in which every active
arm gets one batch of consecutive pulls (``select`` returns ``(arm, m)``);
batches start at 1 pull and grow by 10% per sweep up to R_tau / ``SWEEPS``, so
the regret curve is the paper's round-robin one up to one sweep, i.e. up to
~10% of the epoch's elapsed part (invisible on a log-time plot).  If T ends an epoch, its remaining pulls are split as
round-robin would split them (first arms one more) and no release is made.
Once one arm is left it is played to T in one batch.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..engine.caching import cached_njit
from ..engine.catalog import AlgorithmSpec, Built, Param, choice, real, register_algorithm
from ..engine.components import broadcast, implements, init_state, select, update
from ..environments.heavy_tailed import moment_bound
from ..mechanisms.central_laplace import laplace_release
from ..mechanisms.lattice import lattice_claim_warnings
from ..mechanisms.truncation import TruncatedLaplace
from ..validation import check_choice, check_int, check_real
from .robust_ucb import EPS_PARAM, PAPER_C, SCALED_C, U_PARAM, V_PARAM, constants_param, resolve_constant

#: An epoch's round-robin sweeps give every active arm one batch each; batch sizes start at 1
#: and grow by 10% (at least 1) per sweep up to ceil(max_a target_a / SWEEPS).
SWEEPS = 64


class RobustSE(NamedTuple):
    local: bool         # False: Algorithm 3 (central), True: Algorithm 4 (LDP)
    sqrt_err: bool      # Alg. 4 err_tau with sqrt(R_tau) (proof) or R_tau (box)
    u: float
    v: float
    eps: float
    beta: float
    c: float            # elimination constant (paper 12 / 14)
    base: float         # D_tau = base^-tau


@cached_njit
def epoch_parameters(local, sqrt_err, u, v, eps, beta, c, base, tau, n_active, horizon):
    """(R_tau, B_tau, err_tau, L_tau) of epoch ``tau`` with ``n_active`` arms; R_tau capped at ``horizon``."""
    e = (1.0 + v) / v
    if local:
        big_l = math.log(8.0 * n_active * tau * tau / beta)
        log_r0 = (2.0 / v) * math.log(u) + 2.0 * e * math.log(2.0 * c) + math.log(big_l) \
            - 2.0 * math.log(eps) + 2.0 * e * tau * math.log(base)
        extra = big_l
    else:
        big_l = math.log(4.0 * n_active * tau * tau / beta)
        log_r0 = (1.0 / v) * math.log(u) + e * math.log(2.0 * c) + math.log(big_l) \
            - math.log(eps) + e * tau * math.log(base)
        extra = 1.0
    if log_r0 >= math.log(horizon):
        r = horizon
    else:
        r = min(int(math.ceil(math.exp(log_r0) + extra)), horizon)
    rf = float(r)
    if local:
        bound = (u * math.sqrt(rf) * eps / math.sqrt(big_l)) ** (1.0 / (1.0 + v))
        denom = math.sqrt(rf) if sqrt_err else rf
        err = u ** (1.0 / (1.0 + v)) * (math.sqrt(big_l) / (denom * eps)) ** (v / (1.0 + v))
    else:
        bound = (u * rf * eps / big_l) ** (1.0 / (1.0 + v))
        err = u ** (1.0 / (1.0 + v)) * (big_l / (rf * eps)) ** (v / (1.0 + v))
    return r, bound, err, big_l


class RobustSEState(NamedTuple):
    """Per-arm arrays, and one-element arrays for the counters that change (numba tuples are
    immutable; the arrays are changed in place)."""
    horizon: int             # T
    active: np.ndarray       # (k,) int64: 1 while arm a is active
    target: np.ndarray       # (k,) int64: pulls of arm a in this epoch
    done: np.ndarray         # (k,) int64: pulls of arm a done in this epoch
    sums: np.ndarray         # (k,) this epoch's (truncated) reward sums, then the private means
    tau: np.ndarray          # [the epoch, 1-based]
    r: np.ndarray            # [R_tau, pulls per active arm]
    n_active: np.ndarray     # [active arms]
    chunk: np.ndarray        # [pulls per arm added to the cap by the next sweep]
    cap: np.ndarray          # [this sweep's cap on every arm's pulls]
    cursor: np.ndarray       # [the next arm of the sweep]
    pending: np.ndarray      # [pulls left in this epoch]
    max_chunk: np.ndarray    # [the largest chunk]
    bound: np.ndarray        # [B_tau, the truncation threshold]
    err: np.ndarray          # [err_tau, the elimination width's factor]


@cached_njit
def _start_epoch(policy, state, t):
    k = state.active.shape[0]
    state.tau[0] += 1
    n_act = state.n_active[0]
    r, bound, err, _ = epoch_parameters(policy.local, policy.sqrt_err, policy.u, policy.v, policy.eps,
                                        policy.beta, policy.c, policy.base, state.tau[0], n_act, state.horizon)
    state.r[0] = r
    state.bound[0] = bound
    state.err[0] = err
    remaining = state.horizon - t
    full = r <= remaining // n_act
    q = remaining // n_act
    extra = remaining - q * n_act
    rank = 0
    most = 0
    for a in range(k):
        state.done[a] = 0
        state.sums[a] = 0.0
        if state.active[a] == 1:
            if full:
                state.target[a] = r
            else:                           # T ends this epoch: round-robin's split of the rest
                state.target[a] = q + (1 if rank < extra else 0)
            rank += 1
            most = max(most, state.target[a])
        else:
            state.target[a] = 0
    state.pending[0] = r * n_act if full else remaining
    state.max_chunk[0] = max(1, -(-most // SWEEPS))
    state.chunk[0] = 1
    state.cap[0] = 1
    state.cursor[0] = 0


@implements(init_state, RobustSE)
def _init(policy, k, horizon):
    state = RobustSEState(horizon, np.ones(k, dtype=np.int64), np.zeros(k, dtype=np.int64),
                          np.zeros(k, dtype=np.int64), np.zeros(k),
                          np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.full(1, k, dtype=np.int64),
                          np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
                          np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros(1))
    _start_epoch(policy, state, 0)
    return state


@implements(select, RobustSE)
def _select(policy, state, t):
    k = state.active.shape[0]
    if state.n_active[0] == 1:
        for a in range(k):
            if state.active[a] == 1:
                return a, state.horizon - t
    while True:
        for a in range(state.cursor[0], k):
            stop = min(state.target[a], state.cap[0])
            if state.done[a] < stop:
                state.cursor[0] = a + 1
                return a, stop - state.done[a]
        state.chunk[0] = min(state.max_chunk[0], state.chunk[0] + max(1, state.chunk[0] // 10))   # next sweep
        state.cap[0] += state.chunk[0]
        state.cursor[0] = 0


@implements(broadcast, RobustSE)
def _broadcast(policy, state):
    return state.bound[0]                   # B_tau: the users' truncation threshold


@implements(update, RobustSE)
def _update(policy, state, arm, m, value, level, t):
    if state.n_active[0] == 1:
        return
    state.sums[arm] += value
    state.done[arm] += m
    state.pending[0] -= m
    if state.pending[0] > 0 or t + m >= state.horizon:
        return                              # epoch running, or cut by T (no release)
    k = state.active.shape[0]
    r = float(state.r[0])
    best = -math.inf
    for a in range(k):                      # private means, kept in sums[]
        if state.active[a] == 1:
            if policy.local:
                mean = state.sums[a] / r
            else:                           # R rewards truncated to [-B, B]: Lap(2B/(R eps))
                mean = laplace_release(state.sums[a], r, 2.0 * state.bound[0], policy.eps)
            state.sums[a] = mean
            best = max(best, mean)
    threshold = policy.c * state.err[0]
    for a in range(k):
        if state.active[a] == 1 and best - state.sums[a] > threshold:
            state.active[a] = 0
            state.n_active[0] -= 1
    if state.n_active[0] > 1:
        _start_epoch(policy, state, t + m)


# ---------------------------------------------------------------- catalog
D_MODES = {"2^-tau": 2.0, "4^-tau": 4.0}
ERR_MODES = ("sqrtR", "literal")


def _beta(beta, horizon):
    return 1.0 / horizon if beta is None else beta


def _schedule_info(policy, k, horizon, mode):
    r1, b1, err1, l1 = epoch_parameters(policy.local, policy.sqrt_err, policy.u, policy.v, policy.eps, policy.beta,
                                        policy.c, policy.base, 1, k, 2 ** 62)
    return {"mode": mode, "c": policy.c, "u": policy.u, "beta": policy.beta, "R_1": int(r1), "B_1": b1,
            "err_1": err1, "L_1": l1, "K_R1_over_T": k * r1 / horizon, "stays_in_epoch_1": k * r1 >= horizon}


def _warnings(name, info, instance, horizon):
    if not info["stays_in_epoch_1"]:
        return []
    return [f"{name} ({info['mode']} constants, c={info['c']:g}): epoch 1 needs K R_1 = {info['K_R1_over_T']:.3g} T "
            f"pulls, so the run is pure round-robin (regret (T/K) sum of gaps = "
            f"{horizon / instance.k * float(instance.gaps.sum()):.6g})"]


def _build_dprse(instance, horizon, v, u, eps, beta, constants, c):
    u, moments = moment_bound(instance, v, u)
    c = resolve_constant("dp_robust_se", constants, c, SCALED_C["dp_robust_se"])
    policy = RobustSE(False, True, u, v, eps, _beta(beta, horizon), c, 2.0)
    info = {**_schedule_info(policy, instance.k, horizon, constants), "moments": moments.tolist()}
    # truncation at the broadcast B_tau (the bound field is never used: B_tau > 0 always)
    return Built(policy, TruncatedLaplace(0.0, math.inf),
                 warnings=lattice_claim_warnings("dp_robust_se", eps)
                 + _warnings("dp_robust_se", info, instance, horizon),
                 info=info)


def _build_ldprse(instance, horizon, v, u, eps, beta, constants, c, d_mode, err_mode):
    u, moments = moment_bound(instance, v, u)
    c = resolve_constant("ldp_robust_se", constants, c, SCALED_C["ldp_robust_se"])
    policy = RobustSE(True, err_mode == "sqrtR", u, v, eps, _beta(beta, horizon), c, D_MODES[d_mode])
    info = {**_schedule_info(policy, instance.k, horizon, constants), "moments": moments.tolist(),
            "d_mode": d_mode, "err_mode": err_mode}
    return Built(policy, TruncatedLaplace(eps, math.inf),
                 warnings=lattice_claim_warnings("ldp_robust_se", eps)
                 + _warnings("ldp_robust_se", info, instance, horizon),
                 info=info)


_BETA = Param("beta", "confidence parameter (default 1/T, as in the theorems)",
              real(0.0, 1.0, low_open=True, high_open=True), None)

register_algorithm(AlgorithmSpec(
    name="dp_robust_se", label="DPRSE", family="robust_heavy_tailed",
    summary="DP Robust Successive Elimination: epoch means of truncated rewards + Laplace, central eps-DP",
    source="seed 003 Algorithm 3, Theorems 3-4",
    params=(V_PARAM, U_PARAM, EPS_PARAM, _BETA) + constants_param(SCALED_C["dp_robust_se"], PAPER_C["dp_robust_se"]),
    build=_build_dprse, rewards="any", privacy="central"))

register_algorithm(AlgorithmSpec(
    name="ldp_robust_se", label="LDPRSE", family="robust_heavy_tailed",
    summary="LDP Robust Successive Elimination: users report trunc(x, B_tau) + Lap(2 B_tau / eps)",
    source="seed 003 Algorithm 4, Theorem 6",
    params=(V_PARAM, U_PARAM, EPS_PARAM, _BETA)
    + constants_param(SCALED_C["ldp_robust_se"], PAPER_C["ldp_robust_se"])
    + (Param("d_mode", "gap target D_tau: '2^-tau' (the proof's, default) or '4^-tau' (the algorithm box)",
             choice(*D_MODES), "2^-tau"),
       Param("err_mode", "err_tau with sqrt(R_tau) ('sqrtR', the proof's eq. (24), default) or R_tau "
             "('literal', the box: eliminates the best arm w.h.p.)", choice(*ERR_MODES), "sqrtR")),
    build=_build_ldprse, rewards="any", privacy="local"))


# ---------------------------------------------------------------- schedule table
def epoch_schedule(policy: str, *, v, u, eps, horizon, n_active, beta=None, c=None, d_mode="2^-tau",
                   err_mode="sqrtR", epochs: int = 8) -> list[dict]:
    """R_tau, B_tau, err_tau, L_tau, D_tau of epochs 1..``epochs`` for a fixed active-set size
    (the "schedule envelope" of spec Sec. 3.8); ``c=None`` is the paper's constant."""
    policy = check_choice("policy", policy, ("dp_robust_se", "ldp_robust_se"))
    v = check_real("v", v, low=0.0, high=1.0, low_open=True)
    u = check_real("u", u, low=0.0, low_open=True)
    eps = check_real("eps", eps, low=0.0, low_open=True)
    horizon = check_int("horizon", horizon, low=2)
    n_active = check_int("n_active", n_active, low=1)
    beta = _beta(None if beta is None else check_real("beta", beta, low=0.0, high=1.0, low_open=True,
                                                         high_open=True), horizon)
    c = PAPER_C[policy] if c is None else check_real("c", c, low=0.0, low_open=True)
    local = policy == "ldp_robust_se"
    base = D_MODES[check_choice("d_mode", d_mode, D_MODES)] if local else 2.0
    sqrt_err = check_choice("err_mode", err_mode, ERR_MODES) == "sqrtR"
    rows = []
    for tau in range(1, epochs + 1):
        r, b, err, big_l = epoch_parameters(local, sqrt_err, u, v, eps, beta, c, base, tau, n_active, horizon)
        rows.append({"tau": tau, "R": int(r), "B": b, "err": err, "L": big_l, "D": base ** -tau})
    return rows

