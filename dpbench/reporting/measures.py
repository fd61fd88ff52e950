"""Measurements of regret runs that any paper's claims use (``computed`` claims of a claims table).

Each ``measure_*`` function has the signature of a claims measurement, ``fn(claim, evidence)``,
reads its arguments from the claim's ``args`` table and returns an
:class:`~dpbench.reporting.claims.Outcome` whose comparisons (an estimate against the claim's
band, an ordering, an audit's p-value, an exact fact) :func:`~dpbench.reporting.claims.evaluate`
decides by the report's one rule, at the family's level.  Standard errors come from
:func:`verify.inference.bootstrap_estimate` (repetitions of separate runs resampled
independently) or Welch's formula, point estimates of slopes from statsmodels OLS.

* :func:`measure_level_exponent`: log-log slope of the privacy part R - A of the final regret
  against a swept privacy parameter, A the algorithm's own privacy-free level (a run of the
  same algorithm with its privacy terms switched off), over the regime the claim names.
* :func:`measure_sweep_dominance`: one policy below another at every value of a sweep.
* :func:`measure_growth_share`: how much of R(T) is gained over [T/2, T] (a plateau, or
  continued growth).
* :func:`measure_crossing`: when one mean regret curve falls below another for good.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import statsmodels.api as sm
from scipy import stats

from verify.inference import p_text

from .claims import (
    SATURATION_SHARE,
    Check,
    Evidence,
    Exact,
    Hypothesis,
    NotChecked,
    Outcome,
    Unobservable,
    Verdict,
    fixed_schedule,
    learning_horizon,
    paired,
    provenance_of,
    rate_horizon,
    round_robin,
    saturated,
    uniform_share,
)
from .claims.kinds import order_check, ratio_estimate
from .markdown import fmt, fmt_t
from .runs import panel_sweep

#: bootstrap resamples of the measurements (BCa); enough for the 1 - alpha = 99% intervals
N_BOOT = 4000


def evidence_of(ctx, runs: dict, measurements: dict) -> Evidence:
    """The claims' evidence: the experiment runs that exist (by key) and the seed's measurements."""
    ev = Evidence({k: v for k, v in runs.items() if v is not None})
    ev.quick = ctx.quick
    for name, fn in measurements.items():
        ev.measure(name, fn)
    return ev


def args(claim) -> dict:
    return dict(claim.get("args") or {})


def alpha_of(claim, ev: Evidence) -> float:
    """The report's family-wise alpha (the level of the intervals a statistic text shows)."""
    return ev.alpha


def result_of(ev: Evidence, ref: dict, horizon: float | None = None):
    """The SimulationResult of ``{experiment, run}`` (of the report's run of it to ``horizon``, if it
    made one: :meth:`~dpbench.reporting.claims.Evidence.run_at`)."""
    from .runs import run_results
    res = run_results(ev.run_at(ref["experiment"], horizon), ref["run"])
    if res is None:
        raise NotChecked(f"run {ref['run']!r} not in {ref['experiment']!r}")
    return res


def sweep_of(ev: Evidence, ref: dict, variable: str) -> dict:
    """{value: result} of ``ref = {experiment, panel, policy}`` (a swept run of an experiment);
    ``group``: only the runs of that ``[[runs]]`` entry (its label template), when a panel sweeps
    one policy twice."""
    run = ev.run(ref["experiment"])
    if "group" in ref:
        from ..experiments.runner import run_key
        found = {float(s.params[variable]): run.results[run_key(s)] for s in run.runs
                 if s.sweep_group == ref["group"] and s.panel == ref.get("panel", "") and variable in s.params}
    else:
        found = panel_sweep(run, ref.get("panel", ""), ref["policy"], variable)
    if not found:
        raise NotChecked(f"no {ref['policy']} sweep over {variable} in {ref['experiment']}: {ref.get('panel', '')}")
    return found


def final(result) -> np.ndarray:
    return np.asarray(result.final_regrets, dtype=float)


def interval(samples: Sequence, statistic: Callable, alpha: float, seed: int = 0):
    from verify.inference import bootstrap_ci
    return bootstrap_ci(samples, statistic, level=1 - alpha, n_resamples=N_BOOT, seed=seed)


def estimate(samples: Sequence, statistic: Callable, seed: int = 0):
    """``statistic(*samples, axis=-1)`` with its bootstrap standard error (an
    :class:`~verify.inference.Estimate` the rule draws at the family's level)."""
    from verify.inference import bootstrap_estimate
    return bootstrap_estimate(samples, statistic, n_resamples=N_BOOT, seed=seed)


def need_tolerance(a: dict, claim) -> float:
    """The claim's declared tolerance (``args.tolerance``; the loader has checked it against the
    claim's ``effect``)."""
    if "tolerance" not in a:
        raise NotChecked(f"claim {claim.id!r} declares no args.tolerance (and effect)")
    return float(a["tolerance"])


def local_slope(xs, f: Callable[[float], float]) -> float:
    """OLS slope of ln f(x) on ln x over ``xs``: a theory term's exponent over the fitted range."""
    lx = np.log(np.asarray(xs, dtype=float))
    return float(sm.OLS(np.log([f(x) for x in xs]), sm.add_constant(lx)).fit().params[1])


# ------------------------------------------------------------ exponent over a level
#: transforms of a swept value before the log-log fit (``x_transform``), e.g. delta -> ln(4/delta)
TRANSFORMS = {"ln(4/x)": lambda x: np.log(4.0 / np.asarray(x, dtype=float))}


def level_slope(lx: np.ndarray, level_mean, run_means) -> np.ndarray:
    """Slope of ln(mean R_i - mean A) on ln x_i, vectorised over leading (bootstrap) axes; NaN
    where a difference is not positive (no logarithm: the estimate's standard error is then
    not finite and it decides nothing)."""
    diff = np.stack(run_means, axis=-1) - np.asarray(level_mean)[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(diff > 0, np.log(np.where(diff > 0, diff, 1.0)), np.nan)
    xc = lx - lx.mean()
    return ((y - y.mean(axis=-1, keepdims=True)) * xc).sum(axis=-1) / float(xc @ xc)


def level_lack_of_fit(lx: np.ndarray, samples: Sequence, level, alpha: float) -> tuple[float, str]:
    """The lack-of-fit test of ln(mean R_i - mean A) against a line in lx: weighted residual
    sum of squares over n - 2 degrees of freedom, each point's variance (var R_i / n_i + var A /
    n_A) / (R_i - A)^2 (the shared A's covariance ignored, which only makes the test milder).
    Returns (p-value, the rejection in words, or "")."""
    means = np.array([np.mean(s) for s in samples])
    offset, var_a = (0.0, 0.0) if level is None else (float(np.mean(level)), _var(np.asarray(level)) / len(level))
    diff = means - offset
    var = np.array([_var(np.asarray(s)) / len(s) for s in samples]) + var_a
    if np.any(var <= 0):
        return math.nan, "a value without spread over its repetitions: no lack-of-fit test (zero-width weights)"
    df = lx.size - 2
    if df <= 0:
        return math.nan, ""
    w = diff ** 2 / var
    fit = sm.WLS(np.log(diff), sm.add_constant(lx), weights=w).fit()
    chi2 = float(np.sum(w * fit.resid ** 2))
    p = float(stats.chi2.sf(chi2, df))
    return p, (f"power law lack of fit chi2 = {chi2:.3g} on {df} df, p = {p:.2g} < {alpha:g}" if p < alpha else "")


def widened_by_misfit(est, lx: np.ndarray, samples: Sequence, level):
    """``est`` with its standard error scaled by the square root of the Birge ratio chi2/df of the
    lack-of-fit test (t on the fit's df): the interval of a slope whose claimed form the test
    rejects, as the rule compares it (:class:`~dpbench.reporting.claims.Check` ``form_rejected``)."""
    from verify.inference import Estimate
    means = np.array([np.mean(s) for s in samples])
    offset, var_a = (0.0, 0.0) if level is None else (float(np.mean(level)), _var(np.asarray(level)) / len(level))
    diff = means - offset
    var = np.array([_var(np.asarray(s)) / len(s) for s in samples]) + var_a
    w = diff ** 2 / var
    df = lx.size - 2
    resid = sm.WLS(np.log(diff), sm.add_constant(lx), weights=w).fit().resid
    birge = float(np.sum(w * resid ** 2)) / df
    return Estimate(est.value, est.se * math.sqrt(max(1.0, birge)), float(df), est.reps,
                    method="slope with its standard error widened by the misfit", scales_with_reps=False)


def measure_level_exponent(claim, ev: Evidence, predictions: dict[str, Callable] | None = None,
                           learns: Callable | None = None) -> Outcome:
    """Exponent of R - A (``subtract = true``, the default; A the mean of run ``level``, the
    algorithm's privacy-free level) or of R (``subtract = false``) against ``variable`` over the
    sweep ``sweep = {experiment, panel, policy}`` (plus ``extra`` sweeps: regime points).

    Values are kept in [``lo``, ``hi``] when the run is past its data-independent phase with room
    to learn (start phase at most ``room`` x T, default 1/2), unsaturated (mean regret below
    ``max_share`` = 1/2 of uniform play's t x mean gap; ``saturation = {experiment, run}`` also
    drops values within 5% of that run's no-learning regret), and, with ``leading = true``, where
    the privacy part leads (R > 2A), or with ``leading_start = true`` where the start phase's
    regret sum_i Delta_i ceil(N*) is at least A (spec 6.7: "once this exceeds the ln T term").
    ``predicted``: a number or the name of a theory term in ``predictions`` (its local slope
    over the kept values); ``x_transform``: fit against a function of the value
    (:data:`TRANSFORMS`).  ``learns(result)``: the paper's own reason ("" if none) why a run has
    not started learning at its horizon (e.g. it never eliminates an action): such values are
    left out like saturated ones; ``max_share``: the share of uniform play's regret from which a
    run counts as saturated (default 1/2; a claim about a plateau that the start phase sets may
    keep higher shares).  The slope (bootstrap standard error) is compared with predicted +-
    ``tolerance``.  A fit failing its lack-of-fit test has the claimed power law rejected: its
    interval is widened by the misfit and contradicts the claim outside the band (the rule);
    ``power_law = false``: the claim is about the average log-log slope over the range ("grows
    much more slowly"), not a power law, and the test's result is only reported."""
    a = args(claim)
    variable = a["variable"]
    tol = need_tolerance(a, claim)
    no_learning = final(result_of(ev, _ref(a, a["saturation"]))).mean() if "saturation" in a else math.inf
    runs = dict(sweep_of(ev, _ref(a, a["sweep"]), variable))
    for extra in a.get("extra", []):
        runs.update(sweep_of(ev, extra, variable))
    lo, hi = float(a.get("lo", -math.inf)), float(a.get("hi", math.inf))
    subtract = bool(a.get("subtract", True))
    level = final(result_of(ev, _ref(a, a["level"]))) if "level" in a else np.zeros(2)
    level_mean = float(level.mean())
    room = float(a.get("room", 0.5))
    max_share = float(a.get("max_share", SATURATION_SHARE))
    kept, dropped, waiting = {}, [], []     # waiting: the horizon at which a dropped run would fit
    rates = []                              # order-only bounds whose rate gave a waiting horizon
    for x, r in sorted(runs.items()):
        if not lo <= x <= hi:
            continue
        t = int(r.checkpoints[-1])
        start = r.info.get("start_pulls_per_arm")
        why = saturated(r, t)
        if why.startswith("saturated") and uniform_share(r, t) < max_share:
            why = ""
        if start is not None and len(r.means) * start > room * t:
            dropped.append(f"{x:g} (start phase > {room:g} T)")
            waiting.append(len(r.means) * start / room)
        elif why or (learns is not None and (why := learns(r))):
            dropped.append(f"{x:g} ({why})")
            if why.startswith("saturated") and (h := learning_horizon(r, share=max_share)) is not None:
                waiting.append(h)              # a registered bound says when it is unsaturated
            elif why.startswith("saturated") and (est := rate_horizon(r, t, max_share)) is not None:
                waiting.append(est[0])         # an order-only bound's rate through today's level
                rates.append(est[1])
        elif final(r).mean() >= 0.95 * no_learning:
            dropped.append(f"{x:g} (at the no-learning level)")
        elif a.get("leading") and final(r).mean() <= 2 * level_mean:
            dropped.append(f"{x:g} (privacy part below the level)")
        elif a.get("leading_start") and float(r.info.get("start_phase_regret", 0.0)) < level_mean:
            dropped.append(f"{x:g} (start-phase regret below the level)")
        else:
            kept[x] = r
    sample = next(iter(runs.values()))
    size = dict(horizon=int(sample.checkpoints[-1]), **provenance_of(list(runs.values())))
    shown_drop = f"; left out: {', '.join(dropped)}" if dropped else ""
    if len(kept) < 3:
        text = f"{len(kept)} value(s) of {variable} in the regime [{lo:g}, {hi:g}]{shown_drop}; an exponent needs 3"
        if len(kept) + len(waiting) >= 3:
            need = sorted(waiting)[3 - len(kept) - 1]
            how = (f" (a lower estimate from {', '.join(dict.fromkeys(rates))} rate through today's level: "
                   "later if the runs are not yet in the bound's regime)" if rates else "")
            return Outcome(text, Verdict.UNOBSERVABLE, unobservable=Unobservable(
                "too few values past their start phase and unsaturated at this horizon" + how, need), **size)
        if any(w in d for d in dropped for w in ("saturated", "no-learning", "phase", "never", "schedule")):
            return Outcome(text, Verdict.UNOBSERVABLE, unobservable=Unobservable(
                "too few unsaturated values at this horizon", None), **size)
        raise NotChecked(text)
    xs = np.array(sorted(kept))
    samples = [level] + [final(kept[x]) for x in xs]
    transform = a.get("x_transform")
    tx = TRANSFORMS[transform](xs) if transform else xs
    lx = np.log(tx)

    def statistic(lv, *rs, axis=-1):
        return level_slope(lx, lv.mean(axis=axis) if subtract else 0.0, [r.mean(axis=axis) for r in rs])

    means = np.array([s.mean() for s in samples[1:]])
    offset = level_mean if subtract else 0.0
    if np.any(means <= offset):
        raise NotChecked(f"mean regret not above the level A = {fmt(level_mean)} at some kept value")
    ols = sm.OLS(np.log(means - offset), sm.add_constant(lx)).fit()
    est = (estimate(samples, statistic) if subtract else
           estimate(samples[1:], lambda *rs, axis=-1: level_slope(lx, 0.0, [r.mean(axis=axis) for r in rs])))
    lof = level_lack_of_fit(lx, samples[1:], level if subtract else None, alpha_of(claim, ev))
    pred = a["predicted"]
    if isinstance(pred, str):
        if predictions is None or pred not in predictions:
            raise NotChecked(f"unknown prediction {pred!r}")
        value, source = local_slope(np.exp(lx), predictions[pred]), f"local slope of {pred} over these values"
    else:
        value, source = float(pred), "paper"
    what = "R - A" if subtract else "R"
    against = f"ln({transform.replace('x', variable)})" if transform else f"ln {variable}"
    statistic_text = (f"slope of ln({what}) on {against} = {ols.params[1]:.3g} (bootstrap s.e. {est.se:.2g}) "
                      f"over {variable} = {', '.join(f'{x:g}' for x in xs)} (R^2 = {ols.rsquared:.3f}"
                      + (f"; lack of fit p = {lof[0]:.2g}" if math.isfinite(lof[0]) else "")
                      + ")" + (f"; level A = {fmt(level_mean)}" if "level" in a else "") + shown_drop
                      + f"; predicted {value:.3g} ({source})")
    degenerate = "" if math.isfinite(lof[0]) else lof[1]          # no spread: no test at all
    rejected = lof[1] if math.isfinite(lof[0]) and a.get("power_law", True) else ""
    if rejected:
        est = widened_by_misfit(est, lx, samples[1:], level if subtract else None)
    elif lof[1] and not degenerate:
        statistic_text += " (the claim is about the average slope over the range, not a power law)"
    check = Check(est, value - tol, value + tol, "slope", degenerate=degenerate, form_rejected=rejected,
                  band_source=claim.margin)
    return Outcome(statistic_text, comparisons=(check,), **size)


# ------------------------------------------------------------ dominance over a sweep
def measure_sweep_dominance(claim, ev: Evidence) -> Outcome:
    """``better = {experiment, panel, policy}`` has lower final regret than ``worse`` at every
    common value of ``variable`` in [``lo``, ``hi``]: the difference of means per value (Welch)
    against (-inf, 0]."""
    a = args(claim)
    variable = a["variable"]
    better, worse = sweep_of(ev, _ref(a, a["better"]), variable), sweep_of(ev, _ref(a, a["worse"]), variable)
    lo, hi = float(a.get("lo", -math.inf)), float(a.get("hi", math.inf))
    common = sorted(x for x in set(better) & set(worse) if lo <= x <= hi)
    if not common:
        raise NotChecked(f"no common {variable} values")
    comps, shown = [], []
    for x in common:
        b, w = better[x], worse[x]
        t = int(b.checkpoints[-1])
        names = [f"{a['better']['policy']} at {variable} = {x:g}", f"{a['worse']['policy']} at {variable} = {x:g}"]
        comps.append(order_check(final(b), final(w), f"{variable} = {x:g}", round_robin([b, w], t, names, ev),
                                 fixed=fixed_schedule([b, w], t), paired=paired([b, w])))
        shown.append(f"{x:g}: {fmt(final(b).mean())} vs {fmt(final(w).mean())}")
    results = [better[x] for x in common] + [worse[x] for x in common]
    return Outcome("mean R(T), better vs worse: " + "; ".join(shown), comparisons=comps,
                   horizon=int(results[0].checkpoints[-1]), **provenance_of(results))


def _ref(a: dict, ref) -> dict:
    """A run or sweep reference of ``args`` as a table: a label, or a table without ``experiment``,
    is in ``args.experiment`` (so that a claim's readings can change the experiment alone)."""
    if isinstance(ref, dict):
        return dict(ref) if "experiment" in ref else {"experiment": a.get("experiment"), **ref}
    return {"experiment": a.get("experiment"), "run": ref}


def _short(ref: dict) -> str:
    return ref["run"].rsplit(" / ", 1)[-1] if ref["run"].count(" / ") == 1 else ref["run"]


def measure_pairs(claim, ev: Evidence) -> Outcome:
    """Orderings ``pairs = [[lower, higher], ...]`` of the regret at the claim's horizon (its last
    checkpoint at or below the claim's ``horizon``; default: the runs' last; the report's runs to
    that horizon where it made them), runs as labels of ``experiment`` or ``{experiment, run}``,
    one Welch difference per pair against (-inf, 0].
    A pair is unobservable (whichever way it falls) when a run of it is still in a
    data-independent phase or round-robin (:func:`~dpbench.reporting.claims.round_robin`); with
    ``regime = true`` also when a run has not reached its instance-dependent regime
    (:func:`~dpbench.reporting.schedules.regime_limit`: the claim is about that regime)."""
    from .claims import common_checkpoint
    from .schedules import regime_limit
    a = args(claim)
    comps, used, at = [], {}, []
    for low, high in a["pairs"]:
        refs = [_ref(a, low), _ref(a, high)]
        rs = [result_of(ev, r, claim.horizon) for r in refs]
        names = [f"{r['run']}" if r["experiment"] == a.get("experiment") else f"{r['experiment']}: {r['run']}"
                 for r in refs]
        t = common_checkpoint(rs, claim.horizon)
        at.append(t)
        why = round_robin(rs, t, names, ev)
        if why is None and a.get("regime"):
            limits = [lim for r in rs if (lim := regime_limit(r)) is not None]
            if limits:
                known = [lim.horizon for lim in limits if lim.horizon is not None]
                why = Unobservable("not yet in the instance-dependent regime: "
                                   + "; ".join(lim.reason for lim in limits),
                                   max(known) if len(known) == len(limits) else None)
        comps.append(order_check(rs[0].regret_at(t), rs[1].regret_at(t), f"{names[0]} < {names[1]}", why,
                                 fixed=fixed_schedule(rs, t), paired=paired(rs)))
        for n, r in zip(names, rs):
            used[n] = (r, t)
    shown = "; ".join(f"{n}: {fmt(r.regret_at(t).mean())} +- {fmt(r.regret_at(t).std(ddof=1) / math.sqrt(r.reps), 2)}"
                      for n, (r, t) in used.items())
    t_all = min(at)
    if any(t != t_all for t in at):
        shown += f" (at T = {', '.join(sorted({fmt_t(t) for t in at}))})"
    return Outcome(shown, comparisons=comps, horizon=t_all, **provenance_of([r for r, _ in used.values()]))


# ------------------------------------------------------------ growth over [T/2, T]
def growth(result, fraction: float = 0.5) -> tuple[int, np.ndarray, np.ndarray]:
    """(t0, R(T) - R(t0), R(T)) per repetition, t0 the last checkpoint <= fraction T."""
    cps = np.asarray(result.checkpoints)
    t_end = int(cps[-1])
    t0 = int(cps[cps <= fraction * t_end][-1])
    end = result.regret_at(t_end)
    return t0, end - result.regret_at(t0), end


def measure_growth_share(claim, ev: Evidence) -> Outcome:
    """Share of R(T) gained over [T/2, T] by ``run = {experiment, run}`` (bootstrap standard
    error): ``at_most`` (a plateau: the share below it) or ``positive = true`` (continued growth:
    the mean per-repetition gain above 0).  Unobservable (either way) while the run is still in
    its data-independent phase at T/2."""
    from verify.inference import mean_estimate

    from .schedules import schedule_limit
    a = args(claim)
    r = result_of(ev, a["run"])
    t0, gain, end = growth(r)
    size = dict(horizon=int(r.checkpoints[-1]), **provenance_of([r]))
    limit = schedule_limit(r, t0)
    share = estimate((np.arange(gain.size),), lambda i, axis=-1: _share(gain, end, i))
    text = (f"R({fmt_t(t0)}) = {fmt(float((end - gain).mean()))}, R(T) = {fmt(float(end.mean()))}; "
            f"share of R(T) gained over [{fmt_t(t0)}, T] = {share}")
    if a.get("positive"):
        why = Unobservable(limit.reason, limit.horizon) if limit is not None else None
        return Outcome(text, comparisons=(Check(mean_estimate(gain), low=0.0, label="gain over [T/2, T]",
                                                unobservable=why),), **size)
    if limit is not None:
        return Outcome(text, Verdict.UNOBSERVABLE, unobservable=Unobservable(limit.reason, 2 * limit.horizon),
                       **size)
    return Outcome(text, comparisons=(Check(share, high=float(a["at_most"]), label="share"),), **size)


def measure_plateau_level(claim, ev: Evidence) -> Outcome:
    """R(T) of ``run`` over its start phase's regret sum_i Delta_i ceil(N*) (deterministic), with
    its bootstrap standard error, against [1, 1 + ``tolerance``]."""
    from .schedules import schedule_limit
    a = args(claim)
    r = result_of(ev, a["run"])
    start = float(r.info["start_phase_regret"])
    t = int(r.checkpoints[-1])
    size = dict(horizon=t, **provenance_of([r]))
    est = estimate((final(r),), lambda x, axis=-1: x.mean(axis=axis) / start)
    text = f"R(T) / {fmt(start)} = {est}"
    limit = schedule_limit(r, t)
    if limit is not None:
        return Outcome(text, Verdict.UNOBSERVABLE, unobservable=Unobservable(limit.reason, limit.horizon), **size)
    tol = need_tolerance(a, claim)
    return Outcome(text, comparisons=(Check(est, 1.0 - 1e-12, 1.0 + tol, "R(T) / start-phase regret"),), **size)


def _var(x: np.ndarray) -> float:
    return 0.0 if np.ptp(x) == 0 else float(x.var(ddof=1))


def _share(gain, end, idx):
    idx = np.asarray(idx, dtype=int)
    return gain[idx].mean(axis=-1) / end[idx].mean(axis=-1)


# ------------------------------------------------------------ crossing of two curves
def crossing_time(checkpoints: np.ndarray, late: np.ndarray, early: np.ndarray) -> float:
    """The t from which mean curve ``late`` stays below ``early`` up to the last checkpoint
    (linear interpolation of the difference in ln t); inf if it is not below at the end, the
    first checkpoint if it always is."""
    d = early - late
    if d[-1] <= 0:
        return math.inf
    bad = np.nonzero(d <= 0)[0]
    if bad.size == 0:
        return float(checkpoints[0])
    i = int(bad[-1])
    lt = np.log(checkpoints[i:i + 2].astype(float))
    frac = -d[i] / (d[i + 1] - d[i])
    return float(math.exp(lt[0] + frac * (lt[1] - lt[0])))


def measure_crossing(claim, ev: Evidence) -> Outcome:
    """When ``late = {experiment, run}`` falls below ``early`` for good (ln t, bootstrap standard
    error over both runs' repetitions), against ``crossing`` +- ``tolerance`` (``expected``: how
    the table shows it).  A resample in which the curves never cross has no crossing time: the
    estimate's standard error is then not finite and it decides nothing."""
    a = args(claim)
    late, early = result_of(ev, a["late"]), result_of(ev, a["early"])
    cps = np.asarray(late.checkpoints)
    if not np.array_equal(cps, np.asarray(early.checkpoints)):
        raise NotChecked("the two runs have different checkpoints")

    def statistic(il, ie, axis=-1):
        il, ie = np.asarray(il, dtype=int), np.asarray(ie, dtype=int)
        ml = late.regret[il].mean(axis=-2)          # (..., checkpoints)
        me = early.regret[ie].mean(axis=-2)
        flat_l, flat_e = ml.reshape(-1, cps.size), me.reshape(-1, cps.size)
        out = np.array([crossing_time(cps, x, y) for x, y in zip(flat_l, flat_e)])
        return np.log(out.reshape(ml.shape[:-1]))

    est = estimate((np.arange(late.reps), np.arange(early.reps)), statistic)
    expected, tol = float(a["crossing"]), need_tolerance(a, claim)
    text = (f"{a['late']['run']} below {a['early']['run']} from t = {math.exp(est.value):,.0f} "
            f"(ln t = {est.value:.3g}, bootstrap s.e. {est.se:.2g})")
    check = Check(est, math.log(max(expected - tol, 1.0)), math.log(expected + tol),
                  f"ln crossing time vs ln [{expected - tol:,.0f}, {expected + tol:,.0f}]")
    return Outcome(text, comparisons=(check,), horizon=int(cps[-1]), **provenance_of([late, early]))


# ------------------------------------------------------------ sweeps: monotone, ratios, gains
def measure_monotone(claim, ev: Evidence) -> Outcome:
    """Final regret non-increasing along ``sweep = {experiment, panel, policy}`` as ``variable``
    grows: for every consecutive pair, R(larger value) / R(smaller value) against (-inf, 1 +
    ``within``] (``within``: the rise the claim tolerates, smaller than its effect; default 0).
    A ratio shown above the band contradicts the claim; a flat stretch within the noise is
    inconclusive unless ``within`` covers it."""
    a = args(claim)
    sweep = sweep_of(ev, _ref(a, a["sweep"]), a["variable"])
    xs = sorted(sweep)
    within = float(a.get("within", 0.0))
    comps = []
    for lo, hi in zip(xs, xs[1:]):
        pair = [sweep[hi], sweep[lo]]
        t = int(pair[0].checkpoints[-1])
        comps.append(Check(ratio_estimate(final(pair[0]), final(pair[1]), fixed_schedule(pair, t), paired(pair)),
                           high=1.0 + within, label=f"R({a['variable']} = {hi:g}) / R({lo:g})",
                           unobservable=round_robin(pair, t, [f"{a['variable']} = {hi:g}", f"{lo:g}"], ev)))
    shown = ", ".join(f"{x:g}: {fmt(final(sweep[x]).mean())}" for x in xs)
    results = list(sweep.values())
    return Outcome(shown, comparisons=comps, horizon=int(results[0].checkpoints[-1]), **provenance_of(results))


def measure_ratio_over(claim, ev: Evidence) -> Outcome:
    """R(x)/R(reference) for every value x of ``sweep`` in [``lo``, ``hi``] (bootstrap standard
    errors): against (-inf, ``at_most``] (an upper bound), [``at_least``, inf) (a lower bound) or
    1 +- ``within``."""
    a = args(claim)
    sweep = sweep_of(ev, _ref(a, a["sweep"]), a["variable"])
    ref = result_of(ev, _ref(a, a["reference"]))
    lo, hi = float(a.get("lo", -math.inf)), float(a.get("hi", math.inf))
    t = int(ref.checkpoints[-1])
    ests = {x: ratio_estimate(final(r), final(ref), fixed_schedule([r, ref], t), paired([r, ref]))
            for x, r in sorted(sweep.items()) if lo <= x <= hi}
    if not ests:
        raise NotChecked(f"no {a['variable']} in [{lo:g}, {hi:g}]")
    shown = "; ".join(f"{a['variable']} = {x:g}: {e}" for x, e in ests.items())
    size = dict(horizon=int(ref.checkpoints[-1]), **provenance_of([ref] + list(sweep.values())))
    if "at_most" in a:
        band = (-math.inf, float(a["at_most"]))
    elif "at_least" in a:
        band = (float(a["at_least"]), math.inf)
    else:
        band = (1.0 - float(a["within"]), 1.0 + float(a["within"]))
    return Outcome(shown, comparisons=[Check(e, *band, f"{a['variable']} = {x:g}") for x, e in ests.items()],
                   **size)


def measure_gain_growth(claim, ev: Evidence) -> Outcome:
    """``gains = [[base, other], ...]`` (runs ordered by the growing parameter): the gain
    mean R(other) - mean R(base) grows along the list: per consecutive pair of gains, their
    difference (Welch-Satterthwaite standard error) against [0, inf)."""
    from verify.inference import Estimate
    a = args(claim)
    pairs = [(result_of(ev, _ref(a, b)), result_of(ev, _ref(a, o))) for b, o in a["gains"]]
    gains, var = [], []
    for b, o in pairs:
        gains.append(final(o).mean() - final(b).mean())
        var.append([_var(final(o)) / o.reps, _var(final(b)) / b.reps, o.reps - 1, b.reps - 1])
    checks = []
    for i in range(len(pairs) - 1):
        parts = var[i][:2] + var[i + 1][:2]
        dfs = [var[i][2], var[i][3], var[i + 1][2], var[i + 1][3]]
        se2 = sum(parts)
        df = se2 ** 2 / sum(c * c / d for c, d in zip(parts, dfs) if d > 0) if se2 > 0 else math.inf
        reps = int(min(r.reps for pair in pairs[i:i + 2] for r in pair))
        checks.append(Check(Estimate(gains[i + 1] - gains[i], math.sqrt(se2), df, reps, method="Welch"), low=0.0,
                            label=f"gain {i + 2} - gain {i + 1}"))
    names = [a.get("labels", [str(i + 1) for i in range(len(gains))])[i] for i in range(len(gains))]
    results = [r for pair in pairs for r in pair]
    return Outcome("gains: " + "; ".join(f"{n}: {fmt(g)}" for n, g in zip(names, gains)), comparisons=checks,
                   horizon=int(results[0].checkpoints[-1]), **provenance_of(results))


def measure_differ(claim, ev: Evidence) -> Outcome:
    """Two runs ``runs = [a, b]`` have different mean final regret: two-sided Welch test (the
    smaller one-sided p-value, doubled); no difference shown is inconclusive."""
    from verify.inference import compare, difference_estimate
    a = args(claim)
    x, y = (result_of(ev, _ref(a, r)) for r in a["runs"])
    p = min(1.0, 2 * min(compare(final(x), final(y), alternative=alt).p_value for alt in ("less", "greater")))
    diff = difference_estimate(final(x), final(y))
    z = abs(diff.value) / diff.se if diff.se > 0 else None
    return Outcome(f"{_short(_ref(a, a['runs'][0]))}: {fmt(final(x).mean())}; {_short(_ref(a, a['runs'][1]))}: "
                   f"{fmt(final(y).mean())}",
                   comparisons=(Hypothesis(p, True, f"two-sided Welch p = {p:.2g}", z=z, reps=diff.reps),),
                   horizon=int(x.checkpoints[-1]), **provenance_of([x, y]))


# ------------------------------------------------------------ worst case over a gap family
def measure_worst_case(claim, ev: Evidence, predictions: dict[str, Callable]) -> Outcome:
    """A distribution-free T exponent: at each horizon (``experiments = {T: evidence key}``) the
    largest mean regret over the runs of ``panel`` (a gap family), the log-log slope of those
    maxima against T (bootstrap standard error over their repetitions) against the local slope
    of ``predicted`` (a named function of T) +- ``tolerance``; ``side = "upper"``/``"lower"``
    makes it a one-sided bound check.

    The worst case must be interior to the family's grid at every horizon: at the grid's edge
    the maximum may lie beyond it, and the slope would follow the grid, not the algorithm (the
    row is inconclusive).  A worst case whose run is (near) uniform play measures the gap
    schedule, not the algorithm: unobservable."""
    a = args(claim)
    xs, samples, shown, edges, stuck = [], [], [], [], []
    for key in a["experiments"]:
        run = ev.run(key)
        family = {k: r for k, r in run.results.items() if k.startswith(a["panel"] + " /")}
        if not family:
            raise NotChecked(f"no runs of {a['panel']!r} in {key}")
        order = _grid_order(family)
        best = max(family, key=lambda k: final(family[k]).mean())
        t = int(family[best].checkpoints[-1])
        xs.append(float(t))
        samples.append(final(family[best]))
        where = best.split(' / ', 1)[1]
        shown.append(f"T = {fmt_t(xs[-1])}: {fmt(samples[-1].mean())} ({where})")
        if len(order) < 3 or best in (order[0], order[-1]):
            edges.append(f"T = {fmt_t(t)}: {where} is at the edge of the grid "
                         f"({order[0].split(' / ', 1)[1]} ... {order[-1].split(' / ', 1)[1]})")
        why = round_robin([family[best]], t, [where], ev)
        if why is not None:
            stuck.append(why)
    if len(set(xs)) < 3:
        raise NotChecked(f"the family ran at {len(set(xs))} distinct horizon(s); an exponent needs 3")
    order = np.argsort(xs)
    xs, samples = [xs[i] for i in order], [samples[i] for i in order]
    lx = np.log(xs)
    est = estimate(samples, lambda *rs, axis=-1: level_slope(lx, 0.0, [r.mean(axis=axis) for r in rs]))
    name = a["predicted"]
    pred = local_slope(xs, predictions[name])
    tol = need_tolerance(a, claim)
    side = a.get("side")
    low = -math.inf if side == "upper" else pred - tol
    high = math.inf if side == "lower" else pred + tol
    degenerate = "; ".join(edges)
    if stuck:
        # the largest regret of a gap family is uniform play's when its smallest gaps are not resolved by
        # T (the nature of a worst case: a longer horizon only moves it to smaller gaps); what decides
        # is a family whose worst case the algorithm learns, i.e. one with larger gaps at the top. Not
        # "unobservable at this horizon": no horizon makes it observable, the grid does (inconclusive)
        degenerate = ("needs a gap family whose worst run learns by T (gaps larger than the grid's "
                      f"{_grid_order(family)[-1].split(' / ', 1)[1]}; a longer horizon only moves the worst case to "
                      "smaller gaps): the worst case is (near) uniform play: "
                      + "; ".join(u.reason for u in stuck) + (f"; {degenerate}" if degenerate else ""))
    check = Check(est, low, high, "slope of the worst regret in ln T", degenerate=degenerate)
    return Outcome(f"largest regret over the family: {'; '.join(shown)}; slope {est}; {name}: local slope {pred:.3f}",
                   comparisons=(check,), horizon=int(max(xs)), reps=min(s.size for s in samples))


def _grid_order(family: dict) -> list[str]:
    """The runs of a gap family in the order of their swept parameter (the number in the label
    after the panel, e.g. 'c=8'), so its edges are known."""
    import re

    def key(k):
        found = re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", k.split(" / ", 1)[1])
        return float(found[-1]) if found else math.inf
    return sorted(family, key=key)


# ------------------------------------------------------------ decided checks
def laplace_sum_tail(terms: int, scale: float, x: float) -> float:
    """P(|L_1 + ... + L_terms| > x) for i.i.d. Laplace(scale), exactly: the sum is G1 - G2 with
    G ~ Gamma(terms, scale) (spec 4, Lemma 8), integrated with scipy."""
    from scipy import integrate
    g = stats.gamma(terms, scale=scale)
    mean, sd = terms * scale, math.sqrt(terms) * scale          # the mass of G2 lies within 40 sd
    lo, hi = max(0.0, mean - 40 * sd), mean + 40 * sd
    upper = integrate.quad(lambda y: g.pdf(y) * g.sf(x + y), lo, hi, limit=400, points=[mean])[0]
    return 2.0 * upper


def catalog_audit(mech, name: str, x, x_prime, *, eps: float, n: int):
    """``verify.audit`` of catalog mechanism ``name`` (its sampler ``mech``) at (eps, its claimed
    delta): both layers, the law and the floating point (a sampler that adds its noise in plain
    floating point is not DP as implemented, Mironov CCS'12).  Returns (the audit, text)."""
    from verify import audit
    res = audit(mech, x, x_prime, eps=eps, delta=mech.claimed_delta, n=n, seed=1)
    law, fp = res.law, res.floating_point
    text = (f"certified eps lower bound {law.eps_lower_bound:.4g} at ({eps:g}, {mech.claimed_delta:g}) for the "
            f"law; {'violated' if law.violated else 'no violation'}; n = {n:,}, inputs ({x:g}, {x_prime:g})")
    if fp.status == "not tested":
        text += "; floating point: not tested"
    elif fp.violated:
        text += (f"; floating point: violated (eps >= {fp.eps_lower_bound:.3g}): the sampler as implemented "
                 f"leaks through its low bits")
    else:
        text += f"; floating point: no violation (eps >= {fp.eps_lower_bound:.3g} certified)"
    return res, text


#: the ``layer`` a mechanism-audit claim may name: the mechanism as implemented (both layers, the
#: default) or its law only (the paper's exact arithmetic)
AUDIT_LAYERS = {"implemented": ("law", "floating_point"), "law": ("law",)}


def audit_layers(args) -> tuple[str, ...]:
    """The layers a mechanism-audit claim is decided on (``args.layer``: "implemented", the default,
    or "law")."""
    layer = str(args.get("layer", "implemented"))
    if layer not in AUDIT_LAYERS:
        from ..validation import InputError
        raise InputError(f"key 'args.layer' must be one of {', '.join(AUDIT_LAYERS)} (got {layer!r})")
    return AUDIT_LAYERS[layer]


def measure_mechanism_audit(claim, ev: Evidence) -> Outcome:
    """A black-box audit (:func:`catalog_audit`) of catalog mechanism ``mechanism`` (``params``)
    on the inputs (``x``, ``x_prime``) at its claimed level (or ``audit_eps``), decided on both
    layers (the mechanism as implemented) unless ``layer = "law"``: the claim that it is private is
    contradicted if either layer's test rejects it, and reproduced only with power against a
    mechanism 10% above its claim on each layer's event (:func:`audit_outcome`); a negative control
    (``control = true``) is reproduced if the violation is caught."""
    import dpbench
    a = args(claim)
    layers = audit_layers(a)
    mech = dpbench.sampler(a["mechanism"], **a.get("params", {}))
    n = int(a.get("n", 10 ** 6)) if not getattr(ev, "quick", False) else 10 ** 5
    eps = float(a.get("audit_eps", mech.claimed_eps))       # audit at another level than the claim
    res, text = catalog_audit(mech, a["mechanism"], float(a["x"]), float(a["x_prime"]), eps=eps, n=n)
    return audit_outcome(res, bool(a.get("control", False)), text, eps=eps, delta=mech.claimed_delta, n=n,
                         layers=layers)


def policy_audit_outcome(policy, table, params, options: dict, *, control: bool, quick: bool) -> Outcome:
    """A whole-policy audit (``verify.audit_policy``) on neighbouring reward tables (one reward
    flipped, ``options`` may name the flip, the output and the horizon), as a claim outcome."""
    from verify.audit.policy_audit import audit_policy
    n = 20_000 if quick else 100_000
    kw = {"eps": 1.0, "delta": 0.0, "n": n, "alpha": 1e-4, "seed": 5, **options}
    if kw.get("n_factor"):
        kw["n"] = n * kw.pop("n_factor")
    res = audit_policy(policy, table, policy_params=params, **kw)
    where = f"step {res.info['step']}" if res.info.get("step") is not None else res.info["output"]
    text = (f"certified eps lower bound {res.eps_lower_bound:.4f} at claimed ({res.eps:g}, {res.delta:g}), "
            f"{where}, n = {res.n:,} per table; {'violated' if res.violated else 'no violation'}")
    return audit_outcome(res, control, text, eps=res.eps, delta=res.delta, n=res.n)


#: an audit's power is stated against a mechanism this much above its claim (on the audit's event)
AUDIT_DEPARTURE = 0.1


def audit_power(res, departure: float = AUDIT_DEPARTURE, *, eps: float | None = None,
                delta: float | None = None) -> Callable[[float, int], float]:
    """The power of an audit's test (H0: P[M(x) in E] <= e^eps P[M(x') in E] + delta on its
    chosen event E) against a mechanism whose event ratio is e^(eps (1 + departure)) at the
    observed P[M(x') in E], as a function of (level, samples per input): a normal approximation
    of the log ratio of the two counts."""
    from scipy import stats as st
    w = res.witness or {}
    p2 = float(w.get("p_x_prime", 0.0))
    eps = float(res.eps if eps is None else eps)
    delta = float(res.delta if delta is None else delta)

    def power(level: float, n: int) -> float:
        if p2 <= 0 or n <= 0:
            return 0.0
        p1 = min(1.0, math.exp(eps * (1 + departure)) * p2 + delta)
        gap = math.log(p1) - math.log(min(1.0, math.exp(eps) * p2 + delta))
        sd = math.sqrt((1 - p1) / (n * p1) + (1 - p2) / (n * p2))
        if sd == 0:
            return 1.0 if gap > 0 else 0.0
        return float(st.norm.cdf(gap / sd - st.norm.isf(level)))
    return power


def audit_outcome(res, control: bool, text: str, *, eps: float | None = None, delta: float | None = None,
                  n: int | None = None, layers: tuple[str, ...] = ("law",)) -> Outcome:
    """An audit as comparisons: per layer of ``layers`` the p-value of H0 "the claimed (eps,
    delta)-DP holds on this pair as far as this layer can tell".  A privacy claim is contradicted
    when a layer rejects H0 at the family's level and reproduced only when every layer had power
    against a mechanism 10% above its claim; a layer that was not tested cannot support the claim.
    A negative control (a planted violation) is reproduced when one layer rejects H0.  ``res`` is a
    whole audit (an ``AuditResult``, with layers) or a policy audit (one test)."""
    n = int(res.n if n is None else n)
    parts = [(name, getattr(res, name)) for name in layers] if hasattr(res, "law") else [("", res)]
    if control:
        tested = [part for part in parts if part[1].p_value is not None]
        if not tested:                            # an untested audit (no power) catches nothing
            status = getattr(res, "status", "not tested")
            return Outcome(text, degenerate=f"the audit did not test the claim ({status})")
        best = min(tested, key=lambda p: float(p[1].p_value))
        return Outcome(text, comparisons=(Hypothesis(float(best[1].p_value), True,
                                                     "violation caught: " + _audit_label(best, n)),))
    comps = []
    for name, layer in parts:
        if getattr(layer, "status", "") == "not tested":
            why = layer.note or "no event"
            comps.append(Hypothesis(1.0, False, f"{name.replace('_', ' ')} layer not tested: {why}", reps=n, unit="n"))
            continue
        comps.append(Hypothesis(
            float(layer.p_value), False, _audit_label((name, layer), n), power=audit_power(layer, eps=eps, delta=delta),
            departure=f"a mechanism at {1 + AUDIT_DEPARTURE:g} x its claimed eps on the audit's event",
            reps=n, unit="n"))
    return Outcome(text, comparisons=tuple(comps))


def _audit_label(part, n: int) -> str:
    name, layer = part
    return (f"{name.replace('_', ' ') + ' ' if name else ''}audit p-value {p_text(layer.p_value, 2)} "
            f"(event: {(layer.witness or {}).get('event', '?')}, n = {n:,})")


def decided(ok: bool, statistic: str, reason_ok: str, reason_bad: str, **size) -> Outcome:
    """An exact (computed, non-random) check as an outcome: it holds or it does not."""
    return Outcome(statistic, comparisons=(Exact(bool(ok), reason_ok if ok else reason_bad),), **size)


def spec_tolerance(text) -> float:
    """Half a unit of the last printed digit of a spec value given as text ("2.92e-6" -> 5e-9,
    "0.0100" -> 5e-5)."""
    s = str(text).strip().lower()
    mantissa, _, exponent = s.partition("e")
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (-digits + (int(exponent) if exponent else 0))


__all__ = ["evidence_of", "measure_level_exponent", "measure_sweep_dominance", "measure_growth_share",
           "measure_crossing", "measure_pairs", "measure_monotone", "measure_ratio_over", "measure_gain_growth",
           "measure_differ", "measure_worst_case", "measure_mechanism_audit", "catalog_audit", "audit_layers",
           "policy_audit_outcome",
           "audit_outcome", "measure_plateau_level", "laplace_sum_tail", "crossing_time", "growth",
           "level_slope", "local_slope", "decided", "spec_tolerance", "args", "alpha_of", "result_of", "sweep_of",
           "final", "interval", "estimate", "need_tolerance", "audit_power", "AUDIT_DEPARTURE", "N_BOOT"]
