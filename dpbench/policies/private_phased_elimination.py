"""Private phased elimination for stochastic linear bandits (seed 004: Hanna, Girgis, Fragouli,
Diggavi, "Differentially private stochastic linear bandits: (almost) for free").

One policy component, :class:`PhasedElimination`, runs all of them on the engine loop.
Batch i (Algorithm 1 lines 4-10; spec §2.3-2.6):

1. design pi_i on the active set A_i (core set C_i = supp pi_i, :mod:`optimal_design`);
2. pull each a in C_i n_ia = ceil(pi_i(a) q^i) times, q = (2T)^{1/ln T} (natural log:
   e <= q <= e^2, footnote 1): ``select`` returns (a, n_ia), so a batch costs |C_i|
   engine steps and one reward draw each;
3. privatise the per-action sums: central (Alg. 1) adds one Laplace(s) per (batch,
   action) inside the policy (the trusted server; mechanism ``Direct``); local
   (Alg. 2) receives r + Laplace(s) per reward from :class:`LaplaceRandomizer`;
   shuffle (Alg. 3): the server announces s = Delta_r / eps0^(i), eps0^(i) from eq. (10)
   for the batch's n_i clients (``broadcast``), and each client's
   :class:`LaplaceRandomizer` adds Laplace(s) before the shuffler;
4. least squares theta_i = V_i^+ sum_a rhat_ia a, V_i = sum_a n_ia a a^T, in the
   coordinates of an orthonormal basis of span(A_i) (the "A_i in R^m" of line 6);
5. keep a in A_i with <a, theta_i> >= max_alpha <alpha, theta_i> - 2 gamma_i.

After M = floor(ln T) - 1 batches (``batches="ceil"``: ceil(ln T) - 1) the policy
commits to argmax_{A_M} <a, theta_M> (line 11).  A batch that would overrun T gets the
remaining R rounds split proportionally, floor(R n_ia / n_i) plus largest remainders
(spec §2.3, E8); a count is capped at T first (it could not be played anyway, and
R n_ia then stays inside int64).

Widths (L_i = log(4 |A_i| T^2), Delta_r = 2 the reward range):

* sampling term sqrt((4d / q^i) L_i) (eq. 22/24);
* ``gamma_mode="paper"`` noise terms as printed: central (2 d B d + 2 d L_i)/(eps q^i)
  with B d = |C_i| (``B = 0``, the observed core-set size) or B d; local/shuffle
  (2d / (q^i eps0)) sqrt(n_i L_i); times Delta_r when the noise is calibrated;
* ``gamma_mode="corrected"`` (default): Lemma 4's moment bound is false (E2) and its
  local plug-in gives exp(-L/2), not exp(-L) (E3).  With the true Laplace MGF,
  1/(1 - lambda^2 l^2 / b^2) <= exp(2 lambda^2 l^2 / b^2), the noise term is
  (2d/q^i) s tau(n, L_i), tau = sqrt(8 n L) if L <= n else sqrt(2)(n + L), with s the
  Laplace scale used and n the number of Laplace terms (|C_i| central, n_i local).

Errata as options (default corrected; spec §10):

* ``noise_scale`` (E1): the paper's Laplace(1/eps) on rewards in [-1, 1] is 2 eps-DP;
  "calibrated" uses Delta_r / eps = 2 / eps;
* ``gamma_mode`` (E2, E3): above;
* ``eps0_mode`` (E5, shuffle): eq. (10) outside FMT's validity range; "safe" clamps
  eps0^(i) (see :mod:`shuffle_amplification`);
* ``elim_max_over`` (E4, central/shuffle): Algorithms 1 and 3 take the max over the
  whole action set A (line 10/22), Algorithm 2 over A_i; the analysis only controls
  theta_i on A_i, so "active" (default) uses A_i.  If "all" empties A_{i+1}, the
  argmax over A_i is kept.

Baselines on the same component: ``linear_batched`` (Alg. 1 without noise, gamma the
sampling term; Fig. 3(b)'s "non-private batched algorithm"), ``linear_phased_elim``
(Lattimore & Szepesvári Algorithm 12, Ch. 22: eps_l = 2^-l,
T_l(a) = ceil(2 d pi(a) / eps_l^2 log(k l (l+1) / delta)), delta = 1/T, keep a with
max_b <theta_l, b - a> <= 2 eps_l, no commit phase; Fig. 2's non-private curve), and
``design="uniform"`` / ``"fw_full"`` (Fig. 3(b)'s "no core set": every active action
is played and noised; gamma uses the design value g_i for 2d and |A_i| for B d).
"""
from __future__ import annotations

import math
from enum import IntEnum
from typing import NamedTuple

import numba
import numpy as np

from ..engine.caching import cached_njit
from ..engine.catalog import AlgorithmSpec, Built, Param, choice, integer, real, register_algorithm
from ..engine.components import broadcast, implements, init_state, select, update
from ..engine.kernel import LLVM_DEFAULT_INLINE_THRESHOLD
from ..mechanisms.central_laplace import laplace_release
from ..mechanisms.lattice import lattice_claim_warnings
from ..mechanisms.ldp_curators import Direct
from ..mechanisms.shuffle_amplification import EPS0_MODES, NOISE_SCALES, LaplaceRandomizer, batch_local_eps
from ..validation import InputError
from .optimal_design import CORE_SET, DESIGN_KINDS, cholesky, cholesky_solve, design_kernel


class Model(IntEnum):
    """Where the privacy noise is added (Algorithms 1-3), or none."""
    NONPRIVATE = 0
    CENTRAL = 1
    LOCAL = 2
    SHUFFLE = 3


class Schedule(IntEnum):
    """Batch schedule: q^i batches then commit (seed 004), or Lattimore & Szepesvari Alg. 12."""
    GEOMETRIC = 0
    LATTIMORE = 1


NONPRIVATE, CENTRAL, LOCAL, SHUFFLE = Model.NONPRIVATE, Model.CENTRAL, Model.LOCAL, Model.SHUFFLE
GEOMETRIC, LATTIMORE = Schedule.GEOMETRIC, Schedule.LATTIMORE


class PhasedElimination(NamedTuple):
    """Phased elimination with G-optimal batches (see module docstring)."""
    #: the loop compiles at LLVM's default inlining: this policy decides once per batch of pulls,
    #: so inlining its verbs buys no speed, and the default compiles its kernel in 25-30% less time
    #: (43 s -> 32 s central, 49 s -> 35 s local, cold; runs at T = 1e7 as fast)
    INLINE_THRESHOLD = LLVM_DEFAULT_INLINE_THRESHOLD
    actions: np.ndarray      # (K, d) public action set, C-contiguous
    model: int               # a Model
    schedule: int            # a Schedule
    eps: float               # eps (central, shuffle) or eps0 (local); unused otherwise
    delta: float             # shuffle: delta of eq. (10); LATTIMORE: confidence delta
    reward_range: float      # Delta_r if the noise is calibrated, 1.0 for the paper's scale
    gamma_corrected: bool
    eps0_safe: bool
    elim_over_all: bool
    design_kind: int         # CORE_SET | UNIFORM | FULL_FW
    design_tol: float
    design_max_iter: int
    ceil_batches: bool
    core_bound: float        # B of line 5; 0 = the observed |C_i|
    # The design on the whole action set, computed once by the builder (:func:`_phased`):
    # every batch whose A_i is all of A (the first, and every batch before an elimination) copies it
    # instead of calling the design from object mode, whose cost (about 30 us a call, holding the
    # GIL) was most of a short run's: 100 us per run of T = 60, 240 s of seed 004's policy audits.
    full_rank: int
    full_g: float
    full_weights: np.ndarray     # (K,) pi on A
    full_basis: np.ndarray       # (d, d) its basis (first ``full_rank`` columns)


class PhasedState(NamedTuple):
    """The policy's state: per-action arrays, and one-element arrays for the counters that
    change (numba tuples are immutable; the arrays are changed in place)."""
    horizon: int             # T
    n_batches: int           # M = floor(ln T) - 1 (or ceil)
    log_q: float             # ln q = ln(2T) / ln T
    active: np.ndarray       # (K,) bool: A_i
    weights: np.ndarray      # (K,) the design pi_i
    counts: np.ndarray       # (K,) n_ia, pulls of each action in this batch
    sums: np.ndarray         # (K,) (private) reward sum of each action in this batch
    order: np.ndarray        # (K,) the batch's actions in the order they are played
    values: np.ndarray       # (K,) <a, theta_i>
    theta: np.ndarray        # (d,) least-squares estimate
    basis: np.ndarray        # (d, d) orthonormal basis of span(A_i) (first ``rank`` columns)
    batch: np.ndarray        # [i], the current batch (0 before the first)
    pos: np.ndarray          # [position in ``order`` of the next action to play]
    n_support: np.ndarray    # [actions of this batch with n_ia > 0]
    commit: np.ndarray       # [the committed action, -1 before the commit phase]
    rank: np.ndarray         # [m = dim span(A_i)]
    best: np.ndarray         # [argmax_{A_i} <a, theta_i>]
    n_active: np.ndarray     # [|A_i|]
    n_clients: np.ndarray    # [n_i, the batch's pulls]
    gamma: np.ndarray        # [gamma_i, the elimination width]
    scale: np.ndarray        # [shuffle: Laplace scale announced for the batch]
    eps0: np.ndarray         # [eps0^(i), the clients' level]
    g: np.ndarray            # [design value g_i]
    qi: np.ndarray           # [q^i]


@implements(init_state, PhasedElimination)
def _init(policy, k, horizon):
    n_actions, d = policy.actions.shape
    log_q = 0.0
    n_batches = 0
    if horizon >= 2:
        log_t = math.log(horizon)
        log_q = math.log(2.0 * horizon) / log_t
        n_batches = (math.ceil(log_t) if policy.ceil_batches else math.floor(log_t)) - 1
    return PhasedState(
        horizon, n_batches, log_q, np.ones(n_actions, dtype=np.bool_), np.zeros(n_actions),
        np.zeros(n_actions, dtype=np.int64), np.zeros(n_actions), np.zeros(n_actions, dtype=np.int64),
        np.zeros(n_actions), np.zeros(d), np.zeros((d, d)),
        np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
        np.full(1, -1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
        np.full(1, n_actions, dtype=np.int64), np.zeros(1, dtype=np.int64),
        np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1))


@implements(select, PhasedElimination)
def _select(policy, state, t):
    if state.commit[0] >= 0:
        return state.commit[0], state.horizon - t
    if state.pos[0] >= state.n_support[0]:
        if state.batch[0] > 0:
            _end_batch(policy, state)
        if policy.schedule == GEOMETRIC and state.batch[0] >= state.n_batches:
            state.commit[0] = state.best[0]
            return state.commit[0], state.horizon - t
        _start_batch(policy, state, t)
    arm = state.order[state.pos[0]]
    state.pos[0] += 1
    return arm, state.counts[arm]


@implements(update, PhasedElimination)
def _update(policy, state, arm, m, value, level, t):
    if state.commit[0] >= 0:
        return
    if policy.model == CENTRAL:                              # one Laplace per (batch, action)
        value = laplace_release(value, 1.0, policy.reward_range, policy.eps)
    state.sums[arm] += value


@implements(broadcast, PhasedElimination)
def _broadcast(policy, state):
    """The Laplace scale of the current batch, announced to the shuffle model's clients."""
    return state.scale[0] if policy.model == SHUFFLE else 0.0


@cached_njit
def _start_batch(policy, state, t):
    """Design on A_i, the pull counts (truncated at T), eps0^(i) and gamma_i."""
    active, weights, counts, sums, order = state.active, state.weights, state.counts, state.sums, state.order
    n_actions, d = policy.actions.shape
    i = state.batch[0] + 1
    state.batch[0] = i
    n_act = 0
    for a in range(n_actions):
        if active[a]:
            n_act += 1
    idx = np.empty(n_act, dtype=np.int64)
    x = np.empty((n_act, d))
    j = 0
    for a in range(n_actions):
        if active[a]:
            idx[j] = a
            for c in range(d):
                x[j, c] = policy.actions[a, c]
            j += 1
    w = np.zeros(n_act)
    if n_act == n_actions:                  # A_i = A: the builder's design (the same call, made once)
        rank, g = policy.full_rank, policy.full_g
        w[:] = policy.full_weights
        state.basis[:, :] = policy.full_basis
    else:
        # The design runs in object mode: a compiled call would link the design's code (Frank-Wolfe,
        # support reduction, Cholesky) into every simulation kernel of this policy and have LLVM
        # optimize it again there; from object mode it is one compiled function, shared and cached.
        # Cold compile 34 -> 23 s (central) and 16 -> 12 s (local); same results.
        kind, tol, max_iter, basis = policy.design_kind, policy.design_tol, policy.design_max_iter, state.basis
        with numba.objmode(rank="int64", g="float64"):
            rank, g, _ = design_kernel(x, kind, tol, max_iter, w, basis)
    state.rank[0] = rank
    horizon = state.horizon
    # ---- allocation
    if policy.schedule == GEOMETRIC:
        qi = math.exp(i * state.log_q)
        scale_i = qi
    else:
        eps_l = 0.5 ** i
        scale_i = 2.0 * d / (eps_l * eps_l) * math.log(n_actions * i * (i + 1.0) / policy.delta)
        qi = 0.0
    state.qi[0] = qi
    total = 0
    n_sup = 0
    for j in range(n_act):
        a = idx[j]
        weights[a] = w[j]
        counts[a] = 0
        sums[a] = 0.0
        if w[j] > 0.0:
            counts[a] = np.int64(math.ceil(min(w[j] * scale_i, float(horizon))))
            total += counts[a]
            n_sup += 1
    remaining = horizon - t
    if total > remaining:                                      # spec §2.3: split what is left
        _truncate(idx, counts, total, remaining)
        total = remaining
    pos = 0
    for j in range(n_act):
        a = idx[j]
        if counts[a] > 0:
            order[pos] = a
            pos += 1
    state.pos[0] = 0
    state.n_support[0] = pos
    state.n_active[0] = n_act
    state.n_clients[0] = total
    state.g[0] = g
    # ---- privacy level and width
    eps0 = policy.eps
    if policy.model == SHUFFLE:
        eps0 = batch_local_eps(policy.eps, float(max(total, 1)), policy.delta, policy.eps0_safe)
    state.eps0[0] = eps0
    if policy.model == SHUFFLE:
        state.scale[0] = policy.reward_range / eps0
    if policy.schedule == LATTIMORE:
        state.gamma[0] = 0.5 ** i
    else:
        state.gamma[0] = batch_width(policy, n_act, n_sup, total, qi, g, eps0, horizon)


@cached_njit
def _truncate(idx, counts, total, remaining):
    """floor(R n_a / n) for each atom, then +1 to the largest remainders (lowest index on ties)."""
    given = 0
    for j in range(idx.shape[0]):
        a = idx[j]
        share = (remaining * counts[a]) // total
        given += share
    left = remaining - given
    rem = np.empty(idx.shape[0], dtype=np.int64)
    for j in range(idx.shape[0]):
        a = idx[j]
        rem[j] = (remaining * counts[a]) % total
        counts[a] = (remaining * counts[a]) // total
    for _ in range(left):
        best = -1
        arg = 0
        for j in range(idx.shape[0]):
            if rem[j] > best:
                best = rem[j]
                arg = j
        counts[idx[arg]] += 1
        rem[arg] = -1


@cached_njit
def batch_width(policy, n_active, n_support, n_clients, qi, g, eps0, horizon):
    """gamma_i of a geometric batch (module docstring; spec §2.5)."""
    d = policy.actions.shape[1]
    big_l = math.log(4.0 * n_active * horizon * horizon)
    gval = 2.0 * d
    n_bd = float(n_support)
    if policy.design_kind != CORE_SET:                 # no-core-set ablation: g_i and |A_i|
        gval = g
        n_bd = float(n_active)
    else:
        gval = max(gval, g)
        if policy.core_bound > 0.0:
            n_bd = policy.core_bound * d
    width = math.sqrt(2.0 * gval * big_l / qi)
    if policy.model == NONPRIVATE:
        return width
    if policy.model == CENTRAL:
        if policy.gamma_corrected:
            return width + (gval / qi) * (policy.reward_range / policy.eps) * laplace_tail(float(n_support), big_l)
        return width + policy.reward_range * gval * (n_bd + big_l) / (policy.eps * qi)
    n = float(n_clients)
    if policy.gamma_corrected:
        return width + (gval / qi) * (policy.reward_range / eps0) * laplace_tail(n, big_l)
    return width + policy.reward_range * (gval / (qi * eps0)) * math.sqrt(n * big_l)


@cached_njit
def laplace_tail(n, big_l):
    """tau(n, L): P[sum of n terms l_j Lap(1), |l_j| <= 1, >= tau] <= e^-L (corrected Lemma 4)."""
    if big_l <= n:
        return math.sqrt(8.0 * n * big_l)
    return math.sqrt(2.0) * (n + big_l)


@cached_njit
def _end_batch(policy, state):
    """Least squares on the private sums, then elimination (Algorithm 1 lines 9-10)."""
    active, weights, counts, sums, values, theta, basis = (state.active, state.weights, state.counts, state.sums,
                                                           state.values, state.theta, state.basis)
    n_actions, d = policy.actions.shape
    m = state.rank[0]
    gram = np.zeros((m, m))
    rhs = np.zeros(m)
    y = np.zeros(m)
    for a in range(n_actions):
        if counts[a] > 0:
            for j in range(m):
                s = 0.0
                for c in range(d):
                    s += policy.actions[a, c] * basis[c, j]
                y[j] = s
            for j in range(m):
                rhs[j] += sums[a] * y[j]
                for k in range(m):
                    gram[j, k] += counts[a] * y[j] * y[k]
    coef = np.zeros(m)
    if m > 0:
        chol = np.empty((m, m))
        cholesky(gram, chol)
        cholesky_solve(chol, rhs, coef)
    for c in range(d):
        s = 0.0
        for j in range(m):
            s += basis[c, j] * coef[j]
        theta[c] = s
    best = -math.inf
    best_arm = 0
    top_all = -math.inf
    for a in range(n_actions):
        s = 0.0
        for c in range(d):
            s += policy.actions[a, c] * theta[c]
        values[a] = s
        if active[a] and s > best:
            best = s
            best_arm = a
        if s > top_all:
            top_all = s
    state.best[0] = best_arm
    ref = top_all if policy.elim_over_all else best
    threshold = ref - 2.0 * state.gamma[0]
    kept = 0
    for a in range(n_actions):
        if active[a]:
            if values[a] >= threshold:
                kept += 1
            else:
                active[a] = False
        counts[a] = 0
        sums[a] = 0.0
        weights[a] = 0.0
    if kept == 0:
        active[best_arm] = True


# ------------------------------------------------------------ schedule facts for metadata
def batch_schedule(horizon: int, ceil_batches: bool = False) -> dict:
    """q, the number M of batches and the nominal lengths q^i (spec §2.3 table)."""
    log_t = math.log(horizon)
    log_q = math.log(2.0 * horizon) / log_t
    n_batches = (math.ceil(log_t) if ceil_batches else math.floor(log_t)) - 1
    lengths = [math.exp(i * log_q) for i in range(1, max(n_batches, 0) + 1)]
    return {"q": math.exp(log_q), "batches": n_batches, "nominal_lengths": lengths,
            "nominal_explore_rounds": sum(lengths)}


# ------------------------------------------------------------ catalog
_NOISE_SCALE = Param("noise_scale", "Laplace scale: calibrated = Delta_r/eps = 2/eps (default) or "
                     "paper = 1/eps, which is really 2 eps-DP on rewards in [-1,1] (erratum E1)",
                     choice(*NOISE_SCALES), "calibrated")
_GAMMA_MODE = Param("gamma_mode", "confidence widths: corrected Laplace tail (default) or the paper's "
                    "Lemma 4/5 formulas (errata E2, E3)", choice("corrected", "paper"), "corrected")
_ELIM = Param("elim_max_over", "elimination reference max over the active set (default) or over all "
              "actions as printed in Algorithms 1/3 (erratum E4)", choice("active", "all"), "active")
_EPS0_MODE = Param("eps0_mode", "per-batch client level: safe = clamped to FMT's validity range (default) "
                   "or paper = f^-1(eps) of eq. (10) (erratum E5)", choice(*EPS0_MODES), "safe")
_DESIGN = Param("design", "core_set (G-optimal, support <= d(d+1)/2), uniform or fw_full (the "
                "no-core-set ablations of Fig. 3(b))", choice(*DESIGN_KINDS), "core_set")
_TOL = Param("design_tol", "Frank-Wolfe stops at g <= (1 + tol) d [proposed default 0.05]",
             real(0.0, 1.0, low_open=True), 0.05)
_MAX_ITER = Param("design_max_iter", "Frank-Wolfe step cap", integer(1), 10_000)
_BATCHES = Param("batches", "number of batches: floor (ln T) - 1 (default) or ceil(ln T) - 1",
                 choice("floor", "ceil"), "floor")
_B = Param("B", "core-set constant of line 5 (B d Laplace terms); 0 = the observed |C_i| (default)",
           real(0.0), 0.0)


def _actions_of(instance):
    actions = getattr(instance.env, "actions", None)
    if not isinstance(actions, np.ndarray) or actions.ndim != 2:
        raise InputError(f"this policy needs a linear environment (linear_sphere, linear, "
                         f"linear_sphere_net); got {instance.name!r}")
    return actions


def _range_of(instance, warnings):
    width = instance.reward_high - instance.reward_low
    if not math.isfinite(width):
        warnings.append(f"rewards of {instance.name!r} are unbounded: no Laplace scale makes them private; "
                        "Delta_r = 2 (the paper's [-1,1]) is used")
        return 2.0
    return float(width)


def _info(instance, horizon, model, params, warnings, ceil_batches=False):
    info = {"model": model, "schedule": batch_schedule(horizon, ceil_batches),
            "errata_modes": {k: params[k] for k in ("noise_scale", "gamma_mode", "elim_max_over",
                                                    "eps0_mode") if k in params},
            "proposed_defaults": ["design: Frank-Wolfe, exact line search, tol 0.05, Caratheodory support "
                                  "reduction (spec §2.2; paper leaves step size and B open)",
                                  "B d := observed core-set size |C_i| (spec B_mode=observed)",
                                  "batches: floor(ln T) - 1, last batch truncated at T (spec §2.3, E8)"]}
    zeta = instance.info.get("zeta")
    if zeta is not None and zeta > 1.0 / horizon:
        warnings.append(f"net resolution zeta = {zeta:g} > 1/T = {1.0 / horizon:g}: not paper-faithful; the "
                        f"discretisation adds at most T * zeta = {horizon * zeta:g} regret")
    for key, literal, what in (("noise_scale", "paper", "Laplace(1/eps) on rewards in [-1,1] is 2 eps-DP (E1)"),
                               ("gamma_mode", "paper", "the paper's widths rely on a false Laplace tail (E2, E3)"),
                               ("elim_max_over", "all", "max over all of A is not controlled by theta_i (E4)"),
                               ("eps0_mode", "paper", "eq. (10) used outside FMT's validity range (E5)")):
        if params.get(key) == literal:
            warnings.append(f"{key}={literal}: paper-literal mode; {what}")
    return info


def _phased(**fields) -> PhasedElimination:
    """The policy of ``fields`` with the design on its whole action set: the call ``_start_batch``
    would make for A_i = A (same inputs, same compiled function, so the same numbers), made once."""
    actions = fields["actions"]
    weights, basis = np.zeros(actions.shape[0]), np.zeros((actions.shape[1], actions.shape[1]))
    rank, g, _ = design_kernel(np.ascontiguousarray(actions, dtype=np.float64), fields["design_kind"],
                               fields["design_tol"], fields["design_max_iter"], weights, basis)
    return PhasedElimination(**fields, full_rank=int(rank), full_g=float(g), full_weights=weights,
                             full_basis=basis)


def _common(instance, horizon, model, eps, delta, params):
    actions = _actions_of(instance)
    warnings: list[str] = lattice_claim_warnings("phased elimination", eps) if model != NONPRIVATE else []
    reward_range = _range_of(instance, warnings) if model != NONPRIVATE else 2.0
    if params.get("noise_scale", "calibrated") == "paper":
        reward_range = 1.0
    policy = _phased(
        actions=actions, model=int(model), schedule=int(GEOMETRIC), eps=float(eps), delta=float(delta),
        reward_range=float(reward_range), gamma_corrected=params.get("gamma_mode", "corrected") == "corrected",
        eps0_safe=params.get("eps0_mode", "safe") == "safe",
        elim_over_all=params.get("elim_max_over", "active") == "all",
        design_kind=DESIGN_KINDS[params["design"]], design_tol=float(params["design_tol"]),
        design_max_iter=int(params["design_max_iter"]), ceil_batches=params["batches"] == "ceil",
        core_bound=float(params["B"]))
    names = {NONPRIVATE: "non-private batched", CENTRAL: "central", LOCAL: "local", SHUFFLE: "shuffle"}
    info = _info(instance, horizon, names[model], params, warnings, params["batches"] == "ceil")
    if model == SHUFFLE:
        info["proposed_defaults"].append("delta = 1e-6 unless given (spec §8.3)")
    return policy, warnings, info


def _build_central(instance, horizon, eps, **params):
    policy, warnings, info = _common(instance, horizon, CENTRAL, eps, 0.0, params)
    return Built(policy, Direct(False), warnings, info)


def _build_local(instance, horizon, eps, **params):
    policy, warnings, info = _common(instance, horizon, LOCAL, eps, 0.0, params)
    scale = policy.reward_range / eps
    return Built(policy, LaplaceRandomizer(scale, float(eps)), warnings, info)


def _build_shuffle(instance, horizon, eps, delta, **params):
    policy, warnings, info = _common(instance, horizon, SHUFFLE, eps, delta, params)
    # the clients use the scale the server announces per batch (this one is never used)
    return Built(policy, LaplaceRandomizer(policy.reward_range / eps, float(eps)), warnings, info)


def _build_batched(instance, horizon, **params):
    policy, warnings, info = _common(instance, horizon, NONPRIVATE, 0.0, 0.0, params)
    return Built(policy, Direct(False), warnings, info)


def _build_lattimore(instance, horizon, delta, design_tol, design_max_iter):
    actions = _actions_of(instance)
    delta = 1.0 / horizon if delta is None else delta
    policy = _phased(actions=actions, model=int(NONPRIVATE), schedule=int(LATTIMORE), eps=0.0, delta=float(delta),
                     reward_range=2.0, gamma_corrected=True, eps0_safe=True, elim_over_all=False,
                     design_kind=CORE_SET, design_tol=float(design_tol), design_max_iter=int(design_max_iter),
                     ceil_batches=False, core_bound=0.0)
    info = {"model": "non-private phased elimination (Lattimore & Szepesvari Alg. 12)", "delta": delta,
            "proposed_defaults": ["delta = 1/T (spec §4.1)"]}
    return Built(policy, Direct(False), [], info)


_EPS_PARAM = Param("eps", "privacy level eps", real(0.0, low_open=True))
_EPS0_PARAM = Param("eps", "local privacy level eps0 of every client", real(0.0, low_open=True))
_DELTA_PARAM = Param("delta", "delta of the shuffled (eps, delta)-DP guarantee [proposed default 1e-6]",
               real(0.0, 1.0, low_open=True, high_open=True), 1e-6)
_DESIGN_PARAMS = (_DESIGN, _TOL, _MAX_ITER, _BATCHES, _B)
_SRC = "seed 004 (Hanna et al. 2022)"

register_algorithm(AlgorithmSpec(
    name="linear_central", label="Alg. 1 (central)", family="private_phased_elimination",
    summary="eps-DP phased elimination: Laplace on each core action's batch reward sum",
    source=f"{_SRC}, Algorithm 1, Thm 1",
    params=(_EPS_PARAM, _NOISE_SCALE, _GAMMA_MODE, _ELIM) + _DESIGN_PARAMS,
    build=_build_central, rewards="any", privacy="central"))
register_algorithm(AlgorithmSpec(
    name="linear_local", label="Alg. 2 (local)", family="private_phased_elimination",
    summary="eps0-LDP phased elimination: every client reports reward + Laplace",
    source=f"{_SRC}, Algorithm 2, Thm 2",
    params=(_EPS0_PARAM, _NOISE_SCALE, _GAMMA_MODE) + _DESIGN_PARAMS,
    build=_build_local, rewards="any", privacy="local"))
register_algorithm(AlgorithmSpec(
    name="linear_shuffle", label="Alg. 3 (shuffle)", family="private_phased_elimination",
    summary="(eps, delta)-DP phased elimination in the shuffle model (eps0 per batch by eq. 10)",
    source=f"{_SRC}, Algorithm 3, Thm 3",
    params=(_EPS_PARAM, _DELTA_PARAM, _NOISE_SCALE, _GAMMA_MODE, _ELIM, _EPS0_MODE) + _DESIGN_PARAMS,
    build=_build_shuffle, rewards="any", privacy="shuffle"))
register_algorithm(AlgorithmSpec(
    name="linear_batched", label="non-private batched", family="private_phased_elimination",
    summary="Algorithm 1 without noise (Fig. 3(b)'s non-private batched algorithm)",
    source=f"{_SRC}, Sec. 6 / App. D", params=_DESIGN_PARAMS,
    build=_build_batched, rewards="any", privacy="none"))
register_algorithm(AlgorithmSpec(
    name="linear_phased_elim", label="phased elimination (L&S)", family="private_phased_elimination",
    summary="non-private phased elimination with G-optimal exploration (Lattimore & Szepesvari Alg. 12)",
    source="Lattimore & Szepesvari, Bandit Algorithms, Ch. 22 (seed 004's non-private baseline [24])",
    params=(Param("delta", "confidence delta (default 1/T)", real(0.0, 1.0, low_open=True, high_open=True), None),
            _TOL, _MAX_ITER),
    build=_build_lattimore, rewards="any", privacy="none"))


class BatchRecord(NamedTuple):
    """One batch of a run: its core set C_i (action indices, in playing order) and |A_i|."""
    core: tuple[int, ...]
    active: int


def core_sets(plan, reps: int = 1) -> list[list[BatchRecord]]:
    """The core set C_i = supp pi_i and the active-set size |A_i| of every batch of the first
    ``reps`` repetitions of ``plan`` (:func:`dpbench.engine.simulate.prepare` of a policy of this
    module): its own verbs run as plain Python (:func:`~dpbench.engine.contracts.run_checked`,
    the same seeds as the compiled run) and the state read as each batch starts.  A batch is
    |C_i| engine steps, so this is cheap at any horizon; the compiled loop keeps only regret
    and pull counts."""
    from ..engine.contracts import run_checked
    out = []
    for rep in range(reps):
        seen: list[BatchRecord] = []
        batch = [0]

        def observe(state, t, seen=seen, batch=batch):
            if int(state.batch[0]) != batch[0] and int(state.commit[0]) < 0:
                batch[0] = int(state.batch[0])
                seen.append(BatchRecord(tuple(int(a) for a in state.order[:int(state.n_support[0])]),
                                        int(state.n_active[0])))
        run_checked(plan, rep, observe)
        out.append(seen)
    return out
