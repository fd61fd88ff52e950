"""Measurements of regret runs that any paper's claims use (``computed`` claims of a claims table).

Each ``measure_*`` function has the signature of a claims measurement, ``fn(claim, evidence)``,
reads its arguments from the claim's ``args`` table and returns an
:class:`~dpbench.reporting.claims.Outcome`: either decided from an interval (exponents, shares,
crossing times) or with one-sided p-values that :func:`~dpbench.reporting.claims.evaluate`
decides after Holm's correction over the whole report.  Intervals come from
:func:`verify.inference.bootstrap_ci` (repetitions of separate runs resampled independently),
point estimates of slopes from statsmodels OLS.

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

from .claims import (
    Evidence,
    Hypothesis,
    NotChecked,
    Outcome,
    Unobservable,
    Verdict,
    provenance_of,
    round_robin,
    uniform_share,
)
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
    return claim.alpha if claim.alpha is not None else ev.alpha


def result_of(ev: Evidence, ref: dict):
    """The SimulationResult of ``{experiment, run}``."""
    from .runs import run_results
    res = run_results(ev.run(ref["experiment"]), ref["run"])
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


def local_slope(xs, f: Callable[[float], float]) -> float:
    """OLS slope of ln f(x) on ln x over ``xs``: a theory term's exponent over the fitted range."""
    lx = np.log(np.asarray(xs, dtype=float))
    return float(sm.OLS(np.log([f(x) for x in xs]), sm.add_constant(lx)).fit().params[1])


# ------------------------------------------------------------ exponent over a level
#: transforms of a swept value before the log-log fit (``x_transform``), e.g. delta -> ln(4/delta)
TRANSFORMS = {"ln(4/x)": lambda x: np.log(4.0 / np.asarray(x, dtype=float))}


def level_slope(lx: np.ndarray, level_mean, run_means) -> np.ndarray:
    """Slope of ln(mean R_i - mean A) on ln x_i, vectorised over leading (bootstrap) axes."""
    y = np.log(np.maximum(np.stack(run_means, axis=-1) - np.asarray(level_mean)[..., None], 1e-300))
    xc = lx - lx.mean()
    return ((y - y.mean(axis=-1, keepdims=True)) * xc).sum(axis=-1) / float(xc @ xc)


def measure_level_exponent(claim, ev: Evidence, predictions: dict[str, Callable] | None = None) -> Outcome:
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
    (:data:`TRANSFORMS`).  Reproduced if the 1 - alpha bootstrap interval meets predicted +-
    ``tolerance``."""
    from .schedules import schedule_limit
    a = args(claim)
    variable = a["variable"]
    alpha = alpha_of(claim, ev)
    saturated = final(result_of(ev, a["saturation"])).mean() if "saturation" in a else math.inf
    runs = dict(sweep_of(ev, a["sweep"], variable))
    for extra in a.get("extra", []):
        runs.update(sweep_of(ev, extra, variable))
    lo, hi = float(a.get("lo", -math.inf)), float(a.get("hi", math.inf))
    subtract = bool(a.get("subtract", True))
    level = final(result_of(ev, a["level"])) if "level" in a else np.zeros(2)
    level_mean = float(level.mean())
    room, max_share = float(a.get("room", 0.5)), float(a.get("max_share", 0.5))
    kept, dropped, waiting = {}, [], []     # waiting: the horizon at which a dropped run would fit
    for x, r in sorted(runs.items()):
        if not lo <= x <= hi:
            continue
        t = int(r.checkpoints[-1])
        start = r.info.get("start_pulls_per_arm")
        limit = schedule_limit(r, t)
        if limit is not None or (start is not None and len(r.means) * start > room * t):
            dropped.append(f"{x:g} (start phase > {room:g} T)")
            if start is not None:
                waiting.append(len(r.means) * start / room)
        elif uniform_share(r, t) >= max_share:
            dropped.append(f"{x:g} (saturated: {uniform_share(r, t):.0%} of uniform play's regret)")
        elif final(r).mean() >= 0.95 * saturated:
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
            return Outcome(text, Verdict.UNOBSERVABLE, reason=str(Unobservable(
                "too few values past their start phase at this horizon", need)), **size)
        if any("saturated" in d or "no-learning" in d for d in dropped):
            return Outcome(text, Verdict.UNOBSERVABLE, reason=str(Unobservable(
                "too few unsaturated values at this horizon", None)), **size)
        raise NotChecked(text)
    xs = np.array(sorted(kept))
    samples = [level] + [final(kept[x]) for x in xs]
    transform = a.get("x_transform")
    lx = np.log(TRANSFORMS[transform](xs) if transform else xs)

    def statistic(lv, *rs, axis=-1):
        return level_slope(lx, lv.mean(axis=axis) if subtract else 0.0, [r.mean(axis=axis) for r in rs])

    means = np.array([s.mean() for s in samples[1:]])
    ols = sm.OLS(np.log(means - (level_mean if subtract else 0.0)), sm.add_constant(lx)).fit()
    ci = interval(samples if subtract else samples[1:],
                  statistic if subtract else
                  (lambda *rs, axis=-1: level_slope(lx, 0.0, [r.mean(axis=axis) for r in rs])),
                  alpha)
    pred = a["predicted"]
    if isinstance(pred, str):
        if predictions is None or pred not in predictions:
            raise NotChecked(f"unknown prediction {pred!r}")
        tx = np.exp(lx)
        value, source = local_slope(tx, predictions[pred]), f"local slope of {pred} over these values"
    else:
        value, source = float(pred), "paper"
    tol = float(a.get("tolerance", 0.3))
    what = "R - A" if subtract else "R"
    against = f"ln({transform.replace('x', variable)})" if transform else f"ln {variable}"
    statistic_text = (f"slope of ln({what}) on {against} = {ols.params[1]:.3g} [{ci.low:.3g}, {ci.high:.3g}] "
                      f"over {variable} = "
                      f"{', '.join(f'{x:g}' for x in xs)} (R^2 = {ols.rsquared:.3f})"
                      + (f"; level A = {fmt(level_mean)}" if "level" in a else "") + shown_drop
                      + f"; predicted {value:.3g} ({source})")
    ok = ci.contains(value, tol)
    return Outcome(statistic_text, Verdict.REPRODUCED if ok else Verdict.REFUTED,
                   reason=f"interval {'meets' if ok else 'excludes'} {value:.3g} +- {tol:g}", **size)


# ------------------------------------------------------------ dominance over a sweep
def measure_sweep_dominance(claim, ev: Evidence) -> Outcome:
    """``better = {experiment, panel, policy}`` has lower final regret than ``worse`` at every
    common value of ``variable`` in [``lo``, ``hi``]: one-sided Welch test per value (Holm over
    the report)."""
    from verify.inference import compare
    a = args(claim)
    variable = a["variable"]
    better, worse = sweep_of(ev, a["better"], variable), sweep_of(ev, a["worse"], variable)
    lo, hi = float(a.get("lo", -math.inf)), float(a.get("hi", math.inf))
    common = sorted(x for x in set(better) & set(worse) if lo <= x <= hi)
    if not common:
        raise NotChecked(f"no common {variable} values")
    hyps, shown = [], []
    for x in common:
        b, w = better[x], worse[x]
        t = int(b.checkpoints[-1])
        test = compare(final(b), final(w), alternative="less")
        names = [f"{a['better']['policy']} at {variable} = {x:g}", f"{a['worse']['policy']} at {variable} = {x:g}"]
        hyps.append(Hypothesis(test.p_value, True, f"{variable} = {x:g}: {test}", round_robin([b, w], t, names)))
        shown.append(f"{x:g}: {fmt(final(b).mean())} vs {fmt(final(w).mean())}")
    results = [better[x] for x in common] + [worse[x] for x in common]
    return Outcome("mean R(T), better vs worse: " + "; ".join(shown), hypotheses=tuple(hyps),
                   horizon=int(results[0].checkpoints[-1]), **provenance_of(results))


def _ref(a: dict, ref) -> dict:
    return dict(ref) if isinstance(ref, dict) else {"experiment": a["experiment"], "run": ref}


def _short(ref: dict) -> str:
    return ref["run"].rsplit(" / ", 1)[-1] if ref["run"].count(" / ") == 1 else ref["run"]


def measure_pairs(claim, ev: Evidence) -> Outcome:
    """Orderings ``pairs = [[lower, higher], ...]`` of final regret (runs as labels of
    ``experiment`` or ``{experiment, run}``), one one-sided Welch test per pair (Holm over the
    report).  A pair that does not reproduce is unobservable when a run of it is still in a
    data-independent phase or round-robin (:func:`~dpbench.reporting.claims.round_robin`); with
    ``regime = true`` also when a run has not reached its instance-dependent regime
    (:func:`~dpbench.reporting.schedules.regime_limit`: the claim is about that regime)."""
    from verify.inference import compare

    from .schedules import regime_limit
    a = args(claim)
    hyps, shown, used = [], [], {}
    for low, high in a["pairs"]:
        refs = [_ref(a, low), _ref(a, high)]
        rs = [result_of(ev, r) for r in refs]
        names = [f"{r['run']}" if r["experiment"] == a.get("experiment") else f"{r['experiment']}: {r['run']}"
                 for r in refs]
        t = min(int(r.checkpoints[-1]) for r in rs)
        test = compare(final(rs[0]), final(rs[1]), alternative="less")
        why = round_robin(rs, t, names)
        if why is None and a.get("regime"):
            limits = [lim for r in rs if (lim := regime_limit(r)) is not None]
            if limits:
                known = [lim.horizon for lim in limits if lim.horizon is not None]
                why = Unobservable("not yet in the instance-dependent regime: "
                                   + "; ".join(lim.reason for lim in limits),
                                   max(known) if len(known) == len(limits) else None)
        hyps.append(Hypothesis(test.p_value, True, f"{names[0]} < {names[1]}: {test}", why))
        for n, r in zip(names, rs):
            used[n] = r
    shown = "; ".join(f"{n}: {fmt(final(r).mean())} +- {fmt(final(r).std(ddof=1) / math.sqrt(r.reps), 2)}"
                      for n, r in used.items())
    results = list(used.values())
    return Outcome(shown, hypotheses=tuple(hyps), horizon=min(int(r.checkpoints[-1]) for r in results),
                   **provenance_of(results))


# ------------------------------------------------------------ growth over [T/2, T]
def growth(result, fraction: float = 0.5) -> tuple[int, np.ndarray, np.ndarray]:
    """(t0, R(T) - R(t0), R(T)) per repetition, t0 the last checkpoint <= fraction T."""
    cps = np.asarray(result.checkpoints)
    t_end = int(cps[-1])
    t0 = int(cps[cps <= fraction * t_end][-1])
    end = result.regret_at(t_end)
    return t0, end - result.regret_at(t0), end


def measure_growth_share(claim, ev: Evidence) -> Outcome:
    """Share of R(T) gained over [T/2, T] by ``run = {experiment, run}``, bootstrap interval:
    ``at_most`` (a plateau: the interval lies below it) or ``positive = true`` (continued
    growth: one-sided t-test that the per-repetition gain is > 0).  Unobservable while the run
    is still in its data-independent phase at T/2."""
    from .schedules import schedule_limit
    a = args(claim)
    r = result_of(ev, a["run"])
    t0, gain, end = growth(r)
    size = dict(horizon=int(r.checkpoints[-1]), **provenance_of([r]))
    limit = schedule_limit(r, t0)
    ci = interval((np.arange(gain.size),), lambda i, axis=-1: _share(gain, end, i), alpha_of(claim, ev))
    text = (f"R({fmt_t(t0)}) = {fmt(float((end - gain).mean()))}, R(T) = {fmt(float(end.mean()))}; "
            f"share of R(T) gained over [{fmt_t(t0)}, T] = {ci}")
    if a.get("positive"):
        test = stats.ttest_1samp(gain, 0.0, alternative="greater")
        p = float(test.pvalue) if math.isfinite(test.pvalue) else (0.0 if gain.mean() > 0 else 1.0)
        why = Unobservable(limit.reason, limit.horizon) if limit is not None else None
        return Outcome(text, hypotheses=(Hypothesis(p, True, f"gain > 0: t = {test.statistic:.3g}", why),),
                       **size)
    if limit is not None:
        return Outcome(text, Verdict.UNOBSERVABLE, reason=str(Unobservable(limit.reason, 2 * limit.horizon)), **size)
    bound = float(a["at_most"])
    ok = ci.high <= bound
    return Outcome(text, Verdict.REPRODUCED if ok else Verdict.REFUTED,
                   reason=f"interval {'below' if ok else 'not below'} {bound:g}", **size)


def measure_plateau_level(claim, ev: Evidence) -> Outcome:
    """R(T) of ``run`` over its start phase's regret sum_i Delta_i ceil(N*) (deterministic):
    bootstrap interval inside [1, 1 + ``tolerance``]."""
    from .schedules import schedule_limit
    a = args(claim)
    r = result_of(ev, a["run"])
    start = float(r.info["start_phase_regret"])
    t = int(r.checkpoints[-1])
    size = dict(horizon=t, **provenance_of([r]))
    ci = interval((final(r),), lambda x, axis=-1: x.mean(axis=axis) / start, alpha_of(claim, ev))
    text = f"R(T) / {fmt(start)} = {ci}"
    limit = schedule_limit(r, t)
    if limit is not None:
        return Outcome(text, Verdict.UNOBSERVABLE, reason=str(Unobservable(limit.reason, limit.horizon)), **size)
    tol = float(a["tolerance"])
    ok = ci.low >= 1.0 - 1e-12 and ci.high <= 1.0 + tol
    return Outcome(text, Verdict.REPRODUCED if ok else Verdict.REFUTED,
                   reason=f"interval {'inside' if ok else 'outside'} [1, {1 + tol:g}]", **size)


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
    """When ``late = {experiment, run}`` falls below ``early`` for good, with a bootstrap interval
    over both runs' repetitions, against ``crossing`` +- ``tolerance`` (``expected``: how the table
    shows it)."""
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

    ci = interval((np.arange(late.reps), np.arange(early.reps)), statistic, alpha_of(claim, ev))
    est, lo, hi = (math.exp(v) for v in (ci.estimate, ci.low, ci.high))
    expected, tol = float(a["crossing"]), float(a["tolerance"])
    ok = lo - tol <= expected <= hi + tol
    text = (f"{a['late']['run']} below {a['early']['run']} from t = {est:,.0f} "
            f"[{lo:,.0f}, {hi:,.0f}] ({100 * (1 - alpha_of(claim, ev)):g}% bootstrap over repetitions)")
    return Outcome(text, Verdict.REPRODUCED if ok else Verdict.REFUTED,
                   reason=f"interval {'meets' if ok else 'excludes'} {expected:,.0f} +- {tol:,.0f}",
                   horizon=int(cps[-1]), **provenance_of([late, early]))


# ------------------------------------------------------------ sweeps: monotone, ratios, gains
def measure_monotone(claim, ev: Evidence) -> Outcome:
    """Final regret non-increasing along ``sweep = {experiment, panel, policy}`` as ``variable``
    grows: for every consecutive pair, one-sided Welch test that the larger value has *larger*
    regret; a rejection (after Holm) refutes the claim."""
    from verify.inference import compare
    a = args(claim)
    sweep = sweep_of(ev, a["sweep"], a["variable"])
    xs = sorted(sweep)
    hyps = []
    for lo, hi in zip(xs, xs[1:]):
        test = compare(final(sweep[hi]), final(sweep[lo]), alternative="greater")
        hyps.append(Hypothesis(test.p_value, False, f"R({a['variable']} = {hi:g}) > R({lo:g}): {test}"))
    shown = ", ".join(f"{x:g}: {fmt(final(sweep[x]).mean())}" for x in xs)
    results = list(sweep.values())
    return Outcome(shown, hypotheses=tuple(hyps), horizon=int(results[0].checkpoints[-1]), **provenance_of(results))


def measure_ratio_over(claim, ev: Evidence) -> Outcome:
    """R(x)/R(reference) for every value x of ``sweep`` in [``lo``, ``hi``], bootstrap intervals;
    ``at_most``: refuted if some interval lies above it (an upper bound); ``within``: reproduced
    if every interval meets 1 +- within."""
    from verify.inference import mean_ratio
    a = args(claim)
    sweep = sweep_of(ev, a["sweep"], a["variable"])
    ref = result_of(ev, a["reference"])
    lo, hi = float(a.get("lo", -math.inf)), float(a.get("hi", math.inf))
    alpha = alpha_of(claim, ev)
    cis = {x: interval((final(r), final(ref)), mean_ratio, alpha) for x, r in sorted(sweep.items()) if lo <= x <= hi}
    if not cis:
        raise NotChecked(f"no {a['variable']} in [{lo:g}, {hi:g}]")
    shown = "; ".join(f"{a['variable']} = {x:g}: {ci}" for x, ci in cis.items())
    size = dict(horizon=int(ref.checkpoints[-1]), **provenance_of([ref] + list(sweep.values())))
    if "at_most" in a:
        bound = float(a["at_most"])
        above = [x for x, ci in cis.items() if ci.low > bound]
        return Outcome(shown, Verdict.REFUTED if above else Verdict.REPRODUCED,
                       reason=(f"above {bound:g} at {', '.join(f'{x:g}' for x in above)}" if above
                               else f"no interval above {bound:g}"), **size)
    tol = float(a["within"])
    off = [x for x, ci in cis.items() if not ci.contains(1.0, tol)]
    return Outcome(shown, Verdict.REFUTED if off else Verdict.REPRODUCED,
                   reason=(f"interval excludes 1 +- {tol:g} at {', '.join(f'{x:g}' for x in off)}" if off
                           else f"every interval meets 1 +- {tol:g}"), **size)


def measure_gain_growth(claim, ev: Evidence) -> Outcome:
    """``gains = [[base, other], ...]`` (runs ordered by the growing parameter): the gain
    mean R(other) - mean R(base) grows along the list, one one-sided Welch-Satterthwaite test per
    consecutive pair of gains (Holm over the report)."""
    a = args(claim)
    pairs = [(result_of(ev, _ref(a, b)), result_of(ev, _ref(a, o))) for b, o in a["gains"]]
    gains, var = [], []
    for b, o in pairs:
        gains.append(final(o).mean() - final(b).mean())
        var.append([final(o).var(ddof=1) / o.reps, final(b).var(ddof=1) / b.reps, o.reps - 1, b.reps - 1])
    hyps = []
    for i in range(len(pairs) - 1):
        comps = var[i][:2] + var[i + 1][:2]
        dfs = [var[i][2], var[i][3], var[i + 1][2], var[i + 1][3]]
        se2 = sum(comps)
        df = se2 ** 2 / sum(c * c / d for c, d in zip(comps, dfs) if d > 0) if se2 > 0 else 1.0
        tstat = (gains[i + 1] - gains[i]) / math.sqrt(se2) if se2 > 0 else math.inf
        p = float(stats.t.sf(tstat, df))
        hyps.append(Hypothesis(p, True, f"gain {i + 2} > gain {i + 1}: t = {tstat:.3g} ({df:.0f} df)"))
    names = [a.get("labels", [str(i + 1) for i in range(len(gains))])[i] for i in range(len(gains))]
    results = [r for pair in pairs for r in pair]
    return Outcome("gains: " + "; ".join(f"{n}: {fmt(g)}" for n, g in zip(names, gains)), hypotheses=tuple(hyps),
                   horizon=int(results[0].checkpoints[-1]), **provenance_of(results))


def measure_differ(claim, ev: Evidence) -> Outcome:
    """Two runs ``runs = [a, b]`` have different mean final regret: two-sided Welch test (the
    smaller one-sided p-value, doubled), Holm over the report."""
    from verify.inference import compare
    a = args(claim)
    x, y = (result_of(ev, _ref(a, r)) for r in a["runs"])
    p = min(1.0, 2 * min(compare(final(x), final(y), alternative=alt).p_value for alt in ("less", "greater")))
    return Outcome(f"{_short(_ref(a, a['runs'][0]))}: {fmt(final(x).mean())}; {_short(_ref(a, a['runs'][1]))}: "
                   f"{fmt(final(y).mean())}", hypotheses=(Hypothesis(p, True, f"two-sided Welch p = {p:.2g}"),),
                   horizon=int(x.checkpoints[-1]), **provenance_of([x, y]))


# ------------------------------------------------------------ worst case over a gap family
def measure_worst_case(claim, ev: Evidence, predictions: dict[str, Callable]) -> Outcome:
    """A distribution-free T exponent: at each horizon (``experiments = {T: evidence key}``) the
    largest mean regret over the runs of ``panel`` (a gap family), the log-log slope of those
    maxima against T (bootstrap over their repetitions) against the local slope of
    ``predicted`` (a named function of T) +- ``tolerance``; ``side = "upper"``/``"lower"`` makes
    it a one-sided bound check."""
    a = args(claim)
    xs, samples, shown = [], [], []
    for key in a["experiments"]:
        run = ev.run(key)
        family = {k: r for k, r in run.results.items() if k.startswith(a["panel"] + " /")}
        if not family:
            raise NotChecked(f"no runs of {a['panel']!r} in {key}")
        best = max(family, key=lambda k: final(family[k]).mean())
        xs.append(float(family[best].checkpoints[-1]))
        samples.append(final(family[best]))
        shown.append(f"T = {fmt_t(xs[-1])}: {fmt(samples[-1].mean())} ({best.split(' / ', 1)[1]})")
    if len(set(xs)) < 3:
        raise NotChecked(f"the family ran at {len(set(xs))} distinct horizon(s); an exponent needs 3")
    order = np.argsort(xs)
    xs, samples = [xs[i] for i in order], [samples[i] for i in order]
    lx = np.log(xs)
    ci = interval(samples, lambda *rs, axis=-1: level_slope(lx, 0.0, [r.mean(axis=axis) for r in rs]),
                  alpha_of(claim, ev))
    name = a["predicted"]
    pred = local_slope(xs, predictions[name])
    tol = float(a.get("tolerance", 0.1))
    side = a.get("side")
    ok = (ci.low <= pred + tol if side == "upper" else ci.high >= pred - tol if side == "lower"
          else ci.contains(pred, tol))
    need = {"upper": "<=", "lower": ">="}.get(side, "=")
    return Outcome(f"largest regret over the family: {'; '.join(shown)}; slope {ci}; {name}: local slope {pred:.3f}",
                   Verdict.REPRODUCED if ok else Verdict.REFUTED,
                   reason=f"slope {need} {pred:.3f} +- {tol:g}: {'yes' if ok else 'no'}",
                   horizon=int(max(xs)), reps=min(s.size for s in samples))


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
    delta), with the statistics that audit the paper's claim: the law of the mechanism.  A
    sampler that adds its noise in plain floating point (``controls.FLOAT_UNSAFE``: the
    granularity of its outputs reveals the input, Mironov CCS'12) is audited without the
    granularity statistics, and the text says so; the default audit flags those samplers, which
    reports/audit_benchmark.md lists.  Returns (result, text)."""
    from verify import audit
    from verify.audit import controls
    res = audit(mech, x, x_prime, eps=eps, delta=mech.claimed_delta, n=n, seed=1,
                features=controls.law_features(name))
    text = (f"certified eps lower bound {res.eps_lower_bound:.4g} at ({eps:g}, {mech.claimed_delta:g}); "
            f"{'violated' if res.violated else 'no violation'}; n = {n:,}, inputs ({x:g}, {x_prime:g})")
    if name in controls.FLOAT_UNSAFE:
        text += ("; law audit (no granularity statistics): the float sampler as implemented is "
                 "flagged by the default audit")
    return res, text


def measure_mechanism_audit(claim, ev: Evidence) -> Outcome:
    """A black-box audit (:func:`catalog_audit`) of catalog mechanism ``mechanism`` (``params``)
    on the inputs (``x``, ``x_prime``) at its claimed level (or ``audit_eps``): the claim that it
    is private is reproduced if no violation is certified; a negative control (``control =
    true``) is reproduced if the violation is caught."""
    import dpbench
    a = args(claim)
    mech = dpbench.sampler(a["mechanism"], **a.get("params", {}))
    n = int(a.get("n", 10 ** 6)) if not getattr(ev, "quick", False) else 10 ** 5
    eps = float(a.get("audit_eps", mech.claimed_eps))       # audit at another level than the claim
    res, text = catalog_audit(mech, a["mechanism"], float(a["x"]), float(a["x_prime"]), eps=eps, n=n)
    return audit_outcome(res.violated, bool(a.get("control", False)), text)


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
    return audit_outcome(res.violated, control, text)


def audit_outcome(violated: bool, control: bool, text: str) -> Outcome:
    """A privacy claim is reproduced if no violation is certified; a negative control if its
    violation is caught."""
    return decided(violated == control, text, "violation caught" if control else "no violation certified",
                   "violation missed" if control else "violation certified")


def decided(ok: bool, statistic: str, reason_ok: str, reason_bad: str, **size) -> Outcome:
    return Outcome(statistic, Verdict.REPRODUCED if ok else Verdict.REFUTED,
                   reason=reason_ok if ok else reason_bad, **size)


def spec_tolerance(text) -> float:
    """Half a unit of the last printed digit of a spec value given as text ("2.92e-6" -> 5e-9,
    "0.0100" -> 5e-5)."""
    s = str(text).strip().lower()
    mantissa, _, exponent = s.partition("e")
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (-digits + (int(exponent) if exponent else 0))


__all__ = ["evidence_of", "measure_level_exponent", "measure_sweep_dominance", "measure_growth_share",
           "measure_crossing", "measure_pairs", "measure_monotone", "measure_ratio_over", "measure_gain_growth",
           "measure_differ", "measure_worst_case", "measure_mechanism_audit", "catalog_audit", "policy_audit_outcome",
           "audit_outcome", "measure_plateau_level", "laplace_sum_tail", "crossing_time", "growth",
           "level_slope", "local_slope", "decided", "spec_tolerance", "args", "alpha_of", "result_of", "sweep_of",
           "final", "interval", "N_BOOT"]
