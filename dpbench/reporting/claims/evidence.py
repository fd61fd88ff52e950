"""What the tests read (the runs of a report and named measurements) and what a run can show at
a horizon: its checkpoints, whether it is still round-robin, saturated or in a fixed schedule."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..markdown import fmt_t
from .comparisons import Unobservable, fmt_horizon
from .model import DEFAULT_ALPHA, LEARNING_LEVEL, SATURATION_SHARE, Claim, NotChecked


class Evidence:
    """What the tests read: experiment runs by name and named Python measurements."""

    def __init__(self, runs: Mapping | None = None, alpha: float = DEFAULT_ALPHA):
        self.runs = {k: v for k, v in (runs or {}).items()}
        self.measurements: dict[str, Callable] = {}
        self.alpha = alpha
        self._cache: dict = {}

    def _experiment_value(self, results, attr: str) -> float | None:
        """``attr`` of the experiment that ran these results, if they all share one value; else None."""
        found = set()
        for r in results:
            hit = None
            for run in self.runs.values():
                values = getattr(run, "results", {}).values()
                if any(v is r for v in values):
                    hit = getattr(getattr(run, "experiment", None), attr, None)
                    break
            found.add(None if hit is None else float(hit))
        return found.pop() if len(found) == 1 else None

    def paper_horizon(self, results) -> float | None:
        """The horizon of the paper's own figure for these results (``paper_horizon`` of the
        experiment that ran them), if they all share one; else None."""
        return self._experiment_value(results, "paper_horizon")

    def paper_reps(self, results) -> int | None:
        """The repetitions behind the paper's own figure for these results (``paper_reps`` of the
        experiment that ran them), if they all share one; else None."""
        value = self._experiment_value(results, "paper_reps")
        return None if value is None else int(value)

    def measure(self, name: str, fn: Callable) -> None:
        self.measurements[name] = fn

    def measurement(self, claim: Claim, name: str | None = None):
        name = name or claim.require("measure")
        if name not in self.measurements:
            raise NotChecked(f"measurement {name!r} is not available in this installation")
        key = (name, repr(claim.params.get("args")), claim.horizon)    # the same check once per report
        if key not in self._cache:
            self._cache[key] = self.measurements[name](claim, self)
        return self._cache[key]

    def run(self, experiment: str):
        run = self.runs.get(experiment)
        if run is None:
            raise NotChecked(f"experiment {experiment!r} not available")
        return run

    def run_at(self, experiment: str, horizon: float | None = None):
        """The run of ``experiment`` the report made to ``horizon``, when it ran that experiment to
        that horizon as well (a run to T is not a longer run read at T: a policy's beta = 1/T and
        every ln T of its schedule change with T); else the run of that name or key."""
        run = self.run(experiment)
        if horizon is None:
            return run
        name = getattr(getattr(run, "experiment", None), "name", None)
        for other in self.runs.values():
            if (getattr(getattr(other, "experiment", None), "name", None) == name and name is not None
                    and int((getattr(other, "config", None) or {}).get("horizon", -1)) == int(horizon)):
                return other
        return run

    def result(self, claim: Claim, ref):
        """The SimulationResult named by ``ref`` (a label of the claim's experiment, or a table
        ``{experiment, run}``)."""
        from ..runs import run_results
        if isinstance(ref, Mapping):
            experiment, label = ref["experiment"], ref["run"]
        else:
            experiment, label = claim.require("experiment"), ref
        res = run_results(self.run(experiment), label)
        if res is None:
            raise NotChecked(f"run {label!r} not in experiment {experiment!r}")
        return res

    def results(self, claim: Claim, key: str = "runs") -> list:
        return [self.result(claim, ref) for ref in claim.require(key)]


def run_name(ref) -> str:
    return f"{ref['experiment']}: {ref['run']}" if isinstance(ref, Mapping) else str(ref)


# ------------------------------------------------------------- horizons
def checkpoint(result, horizon: float | None) -> int:
    """The largest checkpoint of ``result`` at or below ``horizon`` (default: its last)."""
    cps = np.asarray(result.checkpoints)
    if horizon is None:
        return int(cps[-1])
    below = cps[cps <= horizon]
    if below.size == 0:
        raise NotChecked(f"no checkpoint at or below T = {fmt_t(horizon)}")
    return int(below[-1])


def common_checkpoint(results, horizon: float | None) -> int:
    t = min(checkpoint(r, horizon) for r in results)
    for r in results:
        if t not in set(int(c) for c in r.checkpoints):
            raise NotChecked(f"no common checkpoint at T = {fmt_t(t)}")
    return t


def uniform_share(result, t: int) -> float:
    """Mean regret at t as a share of uniform play's regret t x mean gap (1: round-robin)."""
    gaps = np.max(result.means) - np.asarray(result.means)
    uniform = t * float(np.mean(gaps))
    return float(result.regret_at(t).mean()) / uniform if uniform > 0 else 0.0


def learning_p_value(result, t: int) -> float:
    """The p-value of "the run's regret at t is not below uniform play's" (one-sided t-test over its
    repetitions of R(t) against t x mean gap): small when the run has left round-robin.  A run
    without spread is decided by its value (0 below uniform play, 1 otherwise)."""
    from scipy import stats
    gaps = np.max(result.means) - np.asarray(result.means)
    uniform = t * float(np.mean(gaps))
    x = np.asarray(result.regret_at(t), dtype=float)
    if uniform <= 0:
        return 0.0
    if x.size < 2 or np.ptp(x) == 0:
        return 0.0 if float(x.mean()) < uniform else 1.0
    se = float(x.std(ddof=1)) / math.sqrt(x.size)
    return float(stats.t.sf((uniform - float(x.mean())) / se, x.size - 1))


def not_yet(reason: str, horizon: float | None, t: int) -> Unobservable:
    """Unobservable at the run's horizon ``t``, observable from ``horizon`` (a policy's learning
    horizon) -- unless the run already reaches it: then no horizon can be named (a row read
    "needs T >= 4.1e5" on a run to 1e6), and what it needs is a longer run than this one."""
    if horizon is not None and horizon <= t:
        return Unobservable(reason, None, need=f"needs a run beyond T = {fmt_t(t)}: it already passed the "
                                               f"{fmt_horizon(horizon)} from which its bound forces learning")
    return Unobservable(reason, horizon)


def learning_horizon(result, share: float = 1.0) -> float | None:
    """The smallest T at which an explicit registered upper bound on the policy's regret falls
    below ``share`` of uniform play's regret T x mean gap: from then on theory forces the policy off
    round-robin (share 1) or below a saturation share.  None if no explicit bound applies to the
    run."""
    from verify import bounds
    ctx = bounds.context(result)
    gaps = np.asarray(ctx["gaps"])
    uniform = float(np.mean(gaps))
    best = None
    for b in bounds.bounds_for(result.policy, side=bounds.UPPER, form=bounds.EXPLICIT):
        def below(log_t, b=b):
            ev = b.evaluate(ctx, T=float(10 ** log_t))
            return ev.applicable and ev.value < share * 10 ** log_t * uniform
        lo, hi = math.log10(max(2, gaps.size)), 15.0
        if not below(hi):
            continue
        if below(lo):
            return 10 ** lo
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if below(mid) else (mid, hi)
        best = hi if best is None else min(best, hi)
    return None if best is None else 10 ** best


def rate_horizon(result, t: int, share: float) -> tuple[float, str] | None:
    """Where no explicit bound applies: the horizon at which ``result``'s share of uniform play's
    regret (today's, at t) falls below ``share`` if its regret grows from today's level at the T
    exponent a < 1 of a registered order-only upper bound (the share falls like T^(a - 1)), with
    the bound's name; None if no such bound is registered.  A lower estimate: a saturated run is
    not yet in the bound's regime, and the bound's log factors are left out."""
    from verify import bounds
    now = uniform_share(result, t)
    best = None
    for b in bounds.bounds_for(result.policy, side=bounds.UPPER):
        for e in b.exponents:
            if e.variable != "T" or e.limit != "infinity" or callable(e.value) or not 0 <= e.value < 1:
                continue
            h = t * max(1.0, now / share) ** (1.0 / (1.0 - float(e.value)))
            if best is None or h < best[0]:
                best = (h, f"{b.theorem}'s T^{float(e.value):g}")
    return best


def horizon_to_learn(result, t: int) -> float | None:
    """From which horizon ``result``'s policy can show what it learns: the end of the data-independent
    phase it is in at t (:mod:`..schedules`: its first epoch, start phase, ...), else the horizon from
    which a registered bound forces it off round-robin (:func:`learning_horizon`), else the horizon
    from which its own schedule reaches its instance-dependent regime (``schedules.regime_limit``);
    None if none says."""
    from ..schedules import regime_limit, schedule_limit
    limit = schedule_limit(result, t)
    if limit is not None and limit.horizon is not None:
        return limit.horizon
    bound = learning_horizon(result)
    if bound is not None:
        return bound
    regime = regime_limit(result)
    return None if regime is None else regime.horizon


def round_robin(results, t: int, names: Sequence[str], ev: Evidence | None = None) -> Unobservable | None:
    """An :class:`Unobservable` if some run is still round-robin at t, else None: its policy is
    still in a data-independent phase (start phase, first epoch; the horizon is when that phase
    ends, :mod:`..schedules`), or the learning-phase diagnostic does not show it below uniform
    play (:func:`learning_p_value` >= :data:`.model.LEARNING_LEVEL`; the horizon is when a
    registered bound forces learning).  At the horizon the claim is about the rule waives the mark
    (:func:`.rule.at_claim_horizon`): the paper's figure shows the same.  ``ev`` is accepted for
    the callers' convenience and not used."""
    from ..schedules import schedule_limit
    stuck, horizons = [], []
    for n, r in zip(names, results):
        limit = schedule_limit(r, t)
        if limit is not None:
            stuck.append(limit.reason)
            horizons.append(limit.horizon)
        elif (p := learning_p_value(r, t)) >= LEARNING_LEVEL:
            stuck.append(f"{n} ({uniform_share(r, t):.0%} of uniform play's regret, not below it at level "
                         f"{LEARNING_LEVEL:g}: p = {p:.2g})")
            horizons.append(horizon_to_learn(r, t))
    if not stuck:
        return None
    known = [h for h in horizons if h is not None]
    return Unobservable(f"still round-robin at T = {fmt_horizon(t)}: {', '.join(stuck)}",
                        max(known) if len(known) == len(horizons) else None)


def paired(results) -> bool:
    """Whether the runs' repetitions are paired: each drew its instance afresh per repetition from the
    repetition's seed (``info["instance_per_repetition"]``, :mod:`dpbench.engine.simulate`) with one
    master seed over the same repetitions, so repetition r of every run met the same instance and
    their values are compared pair by pair (the instance's share of the spread cancels)."""
    results = list(results)
    return (len(results) > 1 and all(bool(r.info.get("instance_per_repetition")) for r in results)
            and len({(int(r.seed), int(r.first_rep), int(r.reps)) for r in results}) == 1)


def fixed_schedule(results, t: int) -> bool:
    """Every run is still in its data-independent phase at t (:mod:`..schedules`): its regret at t
    is its schedule's, a computed number rather than an estimate."""
    from ..schedules import schedule_limit
    return all(schedule_limit(r, t) is not None for r in results)


def saturated(result, t: int) -> str:
    """Why ``result`` at t says nothing about how its regret scales ("" if it does): still in a
    data-independent phase, or at least ``SATURATION_SHARE`` of uniform play's regret.  Every
    exponent fit leaves such runs out the same way."""
    from ..schedules import schedule_limit
    limit = schedule_limit(result, t)
    if limit is not None:
        return limit.reason
    share = uniform_share(result, t)
    if share >= SATURATION_SHARE:
        return f"saturated: {share:.0%} of uniform play's regret"
    return ""


def provenance_of(results) -> dict:
    results = list(results)
    if not results:
        return {}
    seeds = sorted({int(r.seed) for r in results})
    return {"reps": min(int(r.reps) for r in results), "seed": seeds[0] if len(seeds) == 1 else None}
