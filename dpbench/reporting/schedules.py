"""When a run's allocation is still a data-independent schedule, and from which horizon it is not.

Several policies of seeds 002 and 003 open with a phase whose pulls do not depend on the
rewards: DP-FTPL-Gauss/-Beta's start phase (K ceil(N*) pulls), the first epoch of the
successive-elimination algorithms (K R_1 pulls), DP-UCB-INT's round-robin phase (K f pulls);
DP Robust UCB's index width can exceed every gap, so its allocation stays near-uniform; and
GDP-Elim-New only has to start exploiting after its phase k* (2 Delta(k*) < Delta_min).  Until
that phase ends, the run's regret is its schedule's, not what the policy learned: a claim about
how the policy ranks cannot be observed at that horizon.

:func:`schedule_limit` reads the phase from the policy's own build information (the policy's
formulas, not a copy) at the run's horizon and, because every such phase grows with ln T,
finds by bisection the smallest horizon at which it ends before T.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..validation import MAX_COUNT
from .markdown import fmt_t

#: bisection range of the horizon (log10): beyond the largest horizon dpbench accepts
#: (:data:`~dpbench.validation.MAX_COUNT` = 2^53) the answer is "not in reach"
_MAX_LOG10_T = math.log10(MAX_COUNT)


def _horizon(log_t: float) -> int:
    """The horizon 10^log_t, an integer no larger than MAX_COUNT."""
    return min(int(round(10 ** log_t)), MAX_COUNT)


@dataclass(frozen=True)
class ScheduleLimit:
    """A run still in its data-independent phase at ``at``; it ends before T from ``horizon`` on."""
    reason: str
    at: int
    horizon: float | None       # None: not before 2^53


def _phase(policy: str, info: dict, k: int, horizon: int, gaps: np.ndarray) -> tuple[str, float] | None:
    """(what, end) of the policy's data-independent phase at ``horizon`` (end >= horizon means the
    whole run is in it), or None for a policy without one."""
    if policy in ("dp_ftpl_gauss", "dp_ftpl_beta"):
        return "start phase", k * info["start_pulls_per_arm"]
    if policy == "dp_se":
        return "first epoch", k * info["epoch_1_pulls_per_arm"]
    if policy in ("dp_robust_se", "ldp_robust_se"):
        return "first epoch", info["K_R1_over_T"] * horizon
    if policy == "dp_ucb_int":
        return "round-robin phase", k * info["interval_f"]
    if policy == "gdp_elim_new":
        return (f"phases up to k* = {info['exploit_phase_bound']} (the first that must end in exploitation)",
                info["steps_through_exploit_phase_bound"])
    if policy == "dp_robust_ucb":
        # the index width at n = T/K against the largest gap: wider, and no arm can be told apart
        width = info["width_at_T_over_K"]
        return (f"near-uniform allocation (index width {width:.3g} at n = T/K > largest gap "
                f"{gaps.max():.3g})", math.inf if width > gaps.max() else 0.0)
    return None


_PHASED = ("dp_ftpl_gauss", "dp_ftpl_beta", "dp_se", "dp_robust_se", "ldp_robust_se", "dp_ucb_int", "gdp_elim_new",
           "dp_robust_ucb")


def _build_info(result, horizon: int) -> dict:
    """The policy's build information at ``horizon`` (its own formulas: start phases, epochs)."""
    from ..engine.simulate import prepare
    key = (result.policy, result.environment, repr(sorted(dict(result.env_params).items())),
           repr(sorted(dict(result.params).items())), int(horizon))
    if key not in _INFO:
        plan = prepare(result.policy, result.environment, int(horizon), 0, env_params=dict(result.env_params),
                       checkpoints=[1], **dict(result.params))
        _INFO[key] = dict(plan.built.info)
    return _INFO[key]


_CACHE: dict = {}
_INFO: dict = {}


def schedule_limit(result, at: int | None = None) -> ScheduleLimit | None:
    """A :class:`ScheduleLimit` if ``result`` is still in its data-independent phase at checkpoint
    ``at`` (default: its horizon), else None."""
    at = int(result.checkpoints[-1]) if at is None else int(at)
    key = (result.policy, result.environment, repr(sorted(dict(result.env_params).items())),
           repr(sorted(dict(result.params).items())), int(result.horizon), at)
    if key not in _CACHE:
        _CACHE[key] = _schedule_limit(result, at)
    return _CACHE[key]


#: phased elimination for linear bandits (seed 004): its batches are a fixed design schedule
#: until an action is eliminated or it commits
_LINEAR = ("linear_central", "linear_local", "linear_shuffle", "linear_batched")


def _linear_limit(result, at: int) -> ScheduleLimit | None:
    """A linear phased-elimination run whose regret at ``at`` is the same in each of its (at least
    10) repetitions: its pulls up to ``at`` did not depend on the rewards, so it has played a
    fixed schedule (the design's, while nothing is eliminated; a replay of its own code and
    seeds, ``private_phased_elimination.core_sets``, says which).  No registered bound says from
    when it learns."""
    from ..engine.simulate import prepare
    from ..policies.private_phased_elimination import core_sets
    regret = np.asarray(result.regret_at(at))
    if regret.size < 10 or np.ptp(regret) != 0:
        return None
    plan = prepare(result.policy, result.environment, int(result.horizon), int(result.seed),
                   env_params=dict(result.env_params), **dict(result.params))
    k = len(result.means)
    kept = all(b.active >= k for rep in core_sets(plan, min(2, int(result.reps))) for b in rep)
    what = "no action eliminated" if kept else "the same eliminations in every repetition"
    return ScheduleLimit(f"{result.label}: a fixed schedule ({what}; the same regret in all {regret.size} "
                         f"repetitions at T = {fmt_t(at)})", at, None)


def _schedule_limit(result, at: int) -> ScheduleLimit | None:
    horizon = int(result.horizon)
    gaps = np.max(result.means) - np.asarray(result.means)
    if result.policy in _LINEAR:
        return _linear_limit(result, at)
    if result.policy not in _PHASED:
        return None
    phase = _phase(result.policy, _build_info(result, horizon), len(result.means), horizon, gaps)
    if phase is None:
        return None
    what, end = phase
    if end < at:
        return None

    def ends_before(log_t: float) -> bool:
        t = _horizon(log_t)
        info = _build_info(result, t)
        got = _phase(result.policy, info, len(result.means), t, gaps)
        return got is not None and got[1] < t

    lo, hi = math.log10(max(at, 2)), _MAX_LOG10_T
    if not ends_before(hi):
        return ScheduleLimit(f"{result.label}: {what} lasts beyond T = {fmt_t(at)}", at, None)
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ends_before(mid) else (mid, hi)
    end_text = f" ({end:,.0f} steps)" if math.isfinite(end) and end > 0 else ""
    return ScheduleLimit(f"{result.label}: {what}{end_text} lasts beyond T = {fmt_t(at)}", at, 10 ** hi)





# ------------------------------------------------------------ instance-dependent regime
def _se_envelope_end(result, horizon: int) -> float:
    """When the epoch that must eliminate the smallest gap ends (spec 3.8 'schedule envelope'):
    arm a stays active through epoch tau_a = min{tau: D_tau <= Delta_a}, epoch tau lasts
    |S_tau| R_tau pulls with the policy's own R_tau (``epoch_parameters``)."""
    from ..policies.robust_elimination import epoch_schedule
    info, params = _build_info(result, horizon), dict(result.params)
    gaps = np.max(result.means) - np.asarray(result.means)
    sub = gaps[gaps > 0]
    local = result.policy == "ldp_robust_se"
    base = 4.0 if local and params.get("d_mode", "2^-tau") == "4^-tau" else 2.0
    last = int(math.ceil(-math.log(float(sub.min())) / math.log(base)))
    end = 0.0
    for tau in range(1, last + 1):
        active = 1 + int(np.sum(sub < base ** -(tau - 1)))      # not yet guaranteed eliminated
        rows = epoch_schedule(result.policy, v=params["v"], u=info["u"], eps=params["eps"], horizon=horizon,
                              n_active=active, c=info["c"], epochs=tau,
                              **({"d_mode": params.get("d_mode", "2^-tau"),
                                  "err_mode": params.get("err_mode", "sqrtR")} if local else {}))
        end += active * rows[-1]["R"]
    return end


def _ucb_resolution(result, horizon: int) -> float:
    """Pulls DP Robust UCB needs before its index width at every sub-optimal arm falls below
    Delta_a / 2 (the UCB argument): sum_a (2 c u^(1/(1+v)) / Delta_a)^((1+v)/v) ln(2T^4) ln^(1.5+1/v) T / eps."""
    info, params = _build_info(result, horizon), dict(result.params)
    v, eps = float(params["v"]), float(params["eps"])
    gaps = np.max(result.means) - np.asarray(result.means)
    sub = gaps[gaps > 0]
    coef = info["c"] * info["u"] ** (1.0 / (1.0 + v))
    log_term = (math.log(2.0) + 4.0 * math.log(horizon)) * math.log(horizon) ** (1.5 + 1.0 / v) / eps
    return float(np.sum((2.0 * coef / sub) ** ((1.0 + v) / v) * log_term))


_REGIME = {"dp_robust_se": ("the epoch that must eliminate the smallest gap", _se_envelope_end),
           "ldp_robust_se": ("the epoch that must eliminate the smallest gap", _se_envelope_end),
           "dp_robust_ucb": ("the pulls its index width needs to separate every arm", _ucb_resolution)}


def regime_limit(result) -> ScheduleLimit | None:
    """A :class:`ScheduleLimit` if ``result`` has not reached its instance-dependent regime by its
    horizon (a sub-optimal arm that theory does not yet force out), with the horizon from which
    it has; None if it has, or if no criterion is known for the policy."""
    if result.policy not in _REGIME:
        return None
    what, end_of = _REGIME[result.policy]
    horizon = int(result.horizon)
    end = end_of(result, horizon)
    if end <= horizon:
        return None

    def reached(log_t: float) -> bool:
        t = _horizon(log_t)
        return end_of(result, t) <= t

    lo, hi = math.log10(horizon), _MAX_LOG10_T
    if not reached(hi):
        return ScheduleLimit(f"{result.label}: {what} ends after T = {fmt_t(horizon)}", horizon, None)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if reached(mid) else (mid, hi)
    return ScheduleLimit(f"{result.label}: {what} ({end:,.3g} pulls) ends after T = {fmt_t(horizon)}",
                         horizon, 10 ** hi)


__all__ = ["ScheduleLimit", "schedule_limit", "regime_limit"]
