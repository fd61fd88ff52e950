"""Seed 000 report: Ren et al., "Multi-armed bandits with local differential privacy" (v000).

The claims (``claims.toml``: every quantitative claim of the paper, the spec's
checks and its reconstruction log R1-R8, R19) are decided by their tests.  This module gives
the report's hooks (:mod:`dpbench.reporting.paper`): the runs they read (``plan``), the
measurements that are not regret runs (``measure``: :mod:`.ldp_checks` and the ones below),
the bounds figure and the per-run bound checks.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from dpbench.reporting.bound_checks import bound_checks_section, late_log_fit
from dpbench.reporting.claims import (
    Check,
    Evidence,
    Exact,
    NotChecked,
    Outcome,
    Verdict,
    learning_horizon,
    not_yet,
    round_robin,
)
from dpbench.reporting.claims.kinds import order_check
from dpbench.reporting.context import ReportContext
from dpbench.reporting.figures import bound_curve, new_figure, plot_curves
from dpbench.reporting.markdown import Report, fmt, fmt_t
from dpbench.reporting.runs import run_results

ALPHA = 0.01

#: experiment -> (horizon, reps) for the full report; None keeps the TOML's value.  Every figure
#: runs to T = 1e7 with the paper's 50 trials: the paper states no horizon, so its figure claims
#: are decided at T = 1e5, at T = 1e7 and at an unstated T in between (the horizon readings of
#: paper.toml; the spec's sanity runs match its numbers near T = 1e7, section 6).
PLAN = {name: (None, None) for name in (
    "seed000_fig1a", "seed000_fig1b", "seed000_fig1c", "seed000_fig1d", "seed000_fig1e", "seed000_fig1f",
    "seed000_appB_fig2a", "seed000_appB_fig2b", "seed000_appB_fig2c", "seed000_check_gap_scaling",
    "seed000_check_large_eps")}

#: the paper's own words for two numbers it calls alike (the readings of "similar", paper.toml):
#: the pairs it puts side by side, whose largest ratio is the factor the word allows
SIMILAR = {"close": ((1.7, 1.6), (9.0, 8.6)),                 # v001 Sec. 4.1: 'close to theoretical values'
           "not_far": ((441.0, 210.0), (101.0, 74.0))}      # v000/v001 Sec. 4.1: 'not far away', 'not substantially'


def similar_factor(reading: str) -> float:
    """The largest ratio among the pairs the paper calls ``reading`` (:data:`SIMILAR`)."""
    return max(a / b for a, b in SIMILAR[reading])


#: spec F5: two Bernoulli arms 0.5 +- Delta/2, Delta = c sqrt(2 ln T / (T eps^2)), worst over c
FREE_C = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
FREE_HORIZONS = (10 ** 4, 10 ** 5, 10 ** 6)
FREE_EPS = (0.25, 0.5, 1.0)
FREE_EPS0 = 0.5
FREE_REPS = 50
#: agent -> (policy, its parameters at a given eps, theory factor whose sqrt the eps law follows)
FREE_AGENTS = {"B": ("ldp_ucb_b", lambda eps: {"eps": eps}, "sqrt_beta"),
               "L": ("ldp_ucb_l", lambda eps: {"eps": eps}, "sqrt_F_L")}


def free_gap(c: float, horizon: int, eps: float) -> float:
    return c * math.sqrt(2.0 * math.log(horizon) / (horizon * eps ** 2))


def free_experiment(horizon: int, eps_values, agents=FREE_AGENTS, *, name="seed000_check_free", seed=2000050):
    """Spec F5's two-armed instances at one horizon: every agent x eps x c (gaps up to 0.9)."""
    from dpbench.experiments.runner import Experiment, RunSpec
    runs = []
    for agent, (policy, params, _) in agents.items():
        for eps in eps_values:
            for c in FREE_C:
                gap = free_gap(c, horizon, eps)
                if gap <= 0.9:
                    runs.append(RunSpec(f"{agent}, eps={eps:g}, c={c:g}", policy, params(float(eps)),
                                        {"name": "bernoulli", "means": [0.5 + gap / 2, 0.5 - gap / 2]}))
    return Experiment(name=f"{name}_T{horizon:.0e}".replace("+0", ""), title="spec F5: worst-case regret over gaps",
                      source="spec seed_000_001.md section 5 F5", horizon=horizon, reps=FREE_REPS, seed=seed,
                      runs=runs, yscale="log", raw={})


def free_plan():
    """The F5 experiments: T in FREE_HORIZONS at eps = FREE_EPS0, and every FREE_EPS at the largest T."""
    return [free_experiment(t, FREE_EPS if t == FREE_HORIZONS[-1] else (FREE_EPS0,)) for t in FREE_HORIZONS]


# ------------------------------------------------------------------ measurements
def _worst(run, agent: str, eps: float):
    """(c, result, edge) of the largest mean final regret over the c values run (gaps up to 0.9);
    ``edge``: that c is the smallest or largest run, so the maximum may lie beyond the grid."""
    cands = [(c, run_results(run, f"{agent}, eps={eps:g}, c={c:g}")) for c in FREE_C]
    cands = [(c, r) for c, r in cands if r is not None]
    if not cands:
        raise NotChecked(f"no F5 runs of {agent} at eps = {eps:g}")
    c, r = max(cands, key=lambda cr: float(cr[1].final_regrets.mean()))
    return c, r, c in (cands[0][0], cands[-1][0])


def distribution_free(t_runs: list, eps_run, agents=FREE_AGENTS, eps0: float = FREE_EPS0, eps_grid=FREE_EPS):
    """Spec F5: the exponent of the worst regret over gaps in T (runs ``t_runs`` at eps0) or in eps
    (``eps_run`` at eps_grid).  ``args.side``: 'predicted' (default: the slope's interval inside
    the local slope of sqrt(T log T) or of sqrt(factor(eps)) +- ``args.tolerance``) or
    'upper_bound' (an O() bound: the exponent in T at most that slope + tolerance; the exponent in
    eps at least ``args.limit`` - tolerance).  The worst c must be interior to the c grid at every
    point and the fit must pass its lack-of-fit test, or the row decides nothing."""
    def measure(claim, ev) -> Outcome:
        from dpbench.reporting.measures import need_tolerance
        from verify.inference import power_law, slope_estimate

        from .factors import NAMED
        args = claim.require("args")
        agent, variable, side = args["agent"], args["variable"], args.get("side", "predicted")
        if not t_runs or eps_run is None:
            raise NotChecked("the distribution-free (F5) experiments were not run")
        if variable == "T":
            points = [(float(run.config["horizon"]), *_worst(run, agent, eps0)) for run in t_runs]
            factor = NAMED["sqrt_T_log_T"]
        else:
            points = [(eps, *_worst(eps_run, agent, eps)) for eps in eps_grid]
            factor = NAMED[agents[agent][2]]
        xs = [p[0] for p in points]
        if len(set(xs)) < 3:
            raise NotChecked(f"the F5 runs span fewer than 3 distinct {variable} values (quick sizes)")
        fit = power_law(xs, [r.final_regrets for _, _, r, _ in points], level=1 - ALPHA)
        pred = float(np.polyfit(np.log(xs), np.log([factor(x) for x in xs]), 1)[0])
        tol = need_tolerance(args, claim)
        if side == "predicted":
            band = (pred - tol, pred + tol)
        elif variable == "T":
            band = (-math.inf, pred + tol)
        else:
            band = (float(args["limit"]) - tol, math.inf)
        edges = [x for x, _, _, edge in points if edge]
        shown = ", ".join(f"{x:g}: {fmt(float(r.final_regrets.mean()))} (c={c:g})" for x, c, r, _ in points)
        statistic = (f"worst mean regret {shown}; exponent {fit.slope:.3g} "
                     f"(WLS, R^2 = {fit.r_squared:.4f}); sqrt-law slope {pred:.3g}; the maximum over c is taken on "
                     "the fitted repetitions (a small upward bias)")
        degenerate = "; ".join(x for x in (
            fit.diagnostics["degenerate"],
            f"the worst c is at the edge of the c values run (gap <= 0.9) at {variable} = "
            f"{', '.join(f'{e:g}' for e in edges)}: the maximum may lie beyond it" if edges else "")
            if x)
        last = t_runs[-1] if variable == "T" else eps_run
        check = Check(slope_estimate(fit), *band, f"exponent in {variable}", degenerate=degenerate)
        return Outcome(statistic, comparisons=(check,), horizon=int(last.config["horizon"]), reps=FREE_REPS,
                       seed=int(last.config["seed"]))
    return measure


def factor_values(ev: Evidence):
    """beta_<eps> and F_L_<eps> for the eps the claims name, and factors_at (spec strings)."""
    from .factors import F_L, beta
    for eps in (0.2, 0.5, 2.0):
        ev.measure(f"beta_{eps:g}", lambda c, e, x=eps: beta(x))
        ev.measure(f"F_L_{eps:g}", lambda c, e, x=eps: F_L(x))

    def factors_at(claim, e) -> Outcome:
        from .ldp_checks import compare_table
        a = claim.require("args")
        return compare_table([(f"F_L({a['eps']:g})", F_L(a["eps"]), a["F_L"]),
                              (f"beta({a['eps']:g})", beta(a["eps"]), a["beta"])])
    ev.measure("factors_at", factors_at)


def tightness_ratio(claim, ev) -> Outcome:
    """Thm 1's tightness for eps <= 1: 8 beta(eps) (e^eps - e^-eps)^2 = 128 cosh^4(eps/2)."""
    from .bounds import ratio_upper_to_lower
    from .ldp_checks import tolerance_of
    args = claim.require("args")
    values = [ratio_upper_to_lower(e, "B") for e in args["eps"]]
    limit, at_one = float(args["limit"]), args["at_one"]
    ok = (abs(values[0] - limit) < 1e-3 * limit and all(np.diff(values) > 0)
          and abs(values[-1] - float(at_one)) <= tolerance_of(at_one))
    return Outcome("UB_B/LB at eps = " + ", ".join(f"{e:g}: {v:.4g}" for e, v in zip(args["eps"], values)),
                   comparisons=(Exact(ok, f"bounded by {at_one} on eps <= 1, -> {limit:g}" if ok
                                      else "not as stated"),))


def ratio_similarity(claim, ev) -> Outcome:
    """(R_a / R_b) / (R_c / R_d) with its bootstrap standard error per pair: 'similar' = every
    interval inside [1/f, f], f the factor of the paper's word (``args.similar``, :data:`SIMILAR`).
    ``args.only_eps``: the pairs at these eps only (the authors' eps grid); ``args.horizon_range``:
    the paper's unstated horizon (similar at every checkpoint of the range,
    :mod:`dpbench.reporting.claims.horizon_range`)."""
    from dpbench.reporting.claims.horizon_range import checkpoints_in, over_horizons, range_of
    from dpbench.reporting.measures import estimate

    def stat(a, b, c, d, axis=-1):
        return (np.mean(a, axis) / np.mean(b, axis)) / (np.mean(c, axis) / np.mean(d, axis))
    args = claim.require("args")
    reading = args.get("similar", "not_far")
    if reading not in SIMILAR:
        raise NotChecked(f"args.similar must be one of {', '.join(SIMILAR)} (got {reading!r})")
    f = similar_factor(reading)
    only = [f"eps={float(e)}" for e in args.get("only_eps", ())]
    pairs = [refs for refs in args["pairs"] if not only or any(o in refs[0]["run"] for o in only)]
    shown, checks, used = [], [], []
    span = range_of(claim)
    for refs in pairs:
        results = [ev.result(claim, r) for r in refs]
        used += results
        label = f"{refs[0]['run']} vs {refs[2]['run']}"

        source = (f"'{reading}': a factor {f:.3g} (the paper's "
                  f"{', '.join(f'{a:g}/{b:g}' for a, b in SIMILAR[reading])})")

        def at(t, results=results, refs=refs, label=label, source=source):
            est = estimate([r.regret_at(t) for r in results], stat)
            return Check(est, 1 / f, f, label, unobservable=round_robin(results, t, [r["run"] for r in refs], ev),
                         band_source=source)
        if span is None:
            t = min(max(c for c in r.checkpoints if c <= (claim.horizon or r.horizon)) for r in results)
            checks.append(at(t))
        else:
            cps = checkpoints_in(results, *span)
            t = cps[-1]
            checks += over_horizons(at, cps, exists=False)
        shown.append(f"{label}: {estimate([r.regret_at(t) for r in results], stat)}")
    return Outcome(f"ratio of ratios at T = {fmt_t(t)}: " + "; ".join(shown) + f"; similar = within a factor {f:.3g}",
                   comparisons=tuple(checks), horizon=t, reps=min(r.reps for r in used))


def difference_shrinks(claim, ev) -> Outcome:
    """B < L at each eps (Welch difference), and (unless ``args.shrink`` is false) the difference
    R_L - R_B decreasing in eps (the difference of successive differences against [0, inf)).
    Remark iv is about the logarithmic regime: a comparison with a run not yet logarithmic at T
    (its late window fails the local-slope test, spec F1) is unobservable, either way."""
    from verify.inference import Estimate, difference_estimate
    args = claim.require("args")
    b = [ev.result(claim, r) for r in args["b"]]
    lres = [ev.result(claim, r) for r in args["l"]]
    t = min(int(r.checkpoints[-1]) for r in b + lres)
    comps, diffs, regime = [], [], []
    for eps, rb, rl in zip(args["eps"], b, lres):
        xb, xl = rb.regret_at(t), rl.regret_at(t)
        comps.append(order_check(xb, xl, f"B < L at eps = {eps:g}",
                                 round_robin([rb, rl], t, [f"B({eps:g})", f"L({eps:g})"], ev)))
        diffs.append(difference_estimate(xl, xb))
        late = [r for r in (rb, rl) if not late_log_fit(r, bounds=()).applicable]
        regime.append(None if not late else not_yet(
            f"not yet logarithmic at T = {fmt_t(t)} at eps = {eps:g} ({', '.join(r.label for r in late)})",
            max((h for r in late if (h := learning_horizon(r)) is not None), default=None), t))
    for i in range(len(diffs) - 1 if args.get("shrink", True) else 0):
        d1, d2 = diffs[i], diffs[i + 1]
        se = math.sqrt(d1.se ** 2 + d2.se ** 2)
        shrink = Estimate(d1.value - d2.value, se, min(d1.df, d2.df), min(d1.reps, d2.reps), method="Welch")
        comps.append(Check(shrink, low=0.0,
                           label=f"L - B shrinks from eps = {args['eps'][i]:g} to {args['eps'][i + 1]:g}",
                           unobservable=regime[i] or regime[i + 1]))
    return Outcome(f"L - B at T = {fmt_t(t)}: "
                   + ", ".join(f"eps={e:g}: {fmt(d.value)}" for e, d in zip(args["eps"], diffs)),
                   comparisons=comps, horizon=t, reps=min(r.reps for r in b + lres))


def slope_ratio_above(claim, ev) -> Outcome:
    """C_run / C_baseline on the late window (bootstrap standard error over the per-repetition
    slopes) above ``factor``; unobservable while a slope is not logarithmic."""
    from dpbench.reporting.measures import estimate
    from verify import regret_fits as rf
    from verify.inference import mean_ratio
    args = claim.require("args")
    ref = {"experiment": args["experiment"]}
    num, den = ev.result(claim, {**ref, "run": args["run"]}), ev.result(claim, {**ref, "run": args["baseline"]})
    a, b = late_log_fit(num, bounds=()), late_log_fit(den, bounds=())
    if a.applicable and b.applicable and a.details["window"] != b.details["window"]:
        a = rf.log_regret_fit(num, window=(num.horizon / 10, num.horizon), bounds=())
        b = rf.log_regret_fit(den, window=(den.horizon / 10, den.horizon), bounds=())
    size = dict(horizon=int(num.horizon), reps=min(num.reps, den.reps), seed=int(num.seed))
    if not (a.applicable and b.applicable):
        bad = num if not a.applicable else den
        return Outcome("", Verdict.UNOBSERVABLE, unobservable=not_yet(
            (a if not a.applicable else b).verdict.reason, learning_horizon(bad), int(bad.horizon)), **size)
    est = estimate((a.details["per_rep"], b.details["per_rep"]), mean_ratio)
    w = a.details["window"]
    return Outcome(f"C_run / C_base = {est} on [{w[0]:g}, {w[1]:g}]",
                   comparisons=(Check(est, low=float(args["factor"]), label="C_run / C_base"),), **size)


def spec_band(est, value: float, spec_reps: int, label: str) -> Check:
    """The spec's number (from its own sanity runs of ``spec_reps`` repetitions) against ours: a
    band of its rounding, widened by its Monte Carlo error at the spread observed here."""
    from dpbench.reporting.claims.kinds import paper_error, rounding
    se, said = paper_error(est, int(spec_reps))
    return Check(est, value - rounding(value), value + rounding(value), label, reference_se=se,
                 band_source="+- the spec's rounding, " + said.replace("the paper's", "the spec's"))


def ucb1_late_slope(claim, ev) -> Outcome:
    """UCB1's log-regret slope on the last decade of Fig. 1(a) against the spec's 'about 270'
    (two significant digits; from its 10 repetitions at T = 1e7)."""
    from verify import regret_fits as rf
    from verify.inference import Estimate
    args = claim.require("args")
    res = ev.result(claim, {"experiment": "seed000_fig1a", "run": "UCB1"})
    fit = rf.log_regret_fit(res, window=(res.horizon / 10, res.horizon), bounds=(), level=1 - ALPHA)
    if not fit.applicable:
        raise NotChecked(fit.verdict.reason)
    est = Estimate(fit.estimate, fit.details["se"], float(res.reps - 1), int(res.reps), method="cluster OLS")
    value = float(args["value"])
    check = spec_band(est, value, int(args["spec_reps"]), "C_UCB1")
    check = replace(check, low=value - float(args["tolerance"]), high=value + float(args["tolerance"]))
    return Outcome(f"C_UCB1 = {est} on [{res.horizon / 10:g}, {res.horizon:g}], T = {fmt_t(res.horizon)}",
                   comparisons=(check,), horizon=int(res.horizon), reps=int(res.reps), seed=int(res.seed))


def ratios_at(claim, ev) -> Outcome:
    """Several ratios, each at its horizon, against the spec's sanity numbers: their rounding widened
    by the spec's own Monte Carlo error (``spec_reps``: its repetitions, per value or one for all)."""
    from dpbench.reporting.measures import estimate
    from verify.inference import mean_ratio
    args = claim.require("args")
    horizons = args.get("horizons") or [claim.horizon] * len(args["runs"])
    spec_reps = args["spec_reps"] if isinstance(args["spec_reps"], list) else [args["spec_reps"]] * len(args["runs"])
    shown, checks, used = [], [], []
    for run, t, value, reps in zip(args["runs"], horizons, args["values"], spec_reps):
        num = ev.result(claim, {"experiment": args["experiment"], "run": run})
        den = ev.result(claim, {"experiment": args["experiment"], "run": args["baseline"]})
        used += [num, den]
        if int(t) not in set(int(c) for c in num.checkpoints):
            raise NotChecked(f"needs T = {fmt_t(t)} (the run has T = {fmt_t(num.horizon)})")
        est = estimate((num.regret_at(int(t)), den.regret_at(int(t))), mean_ratio)
        shown.append(f"{run} at {fmt_t(t)}: {est} (spec {value:g})")
        checks.append(spec_band(est, float(value), int(reps), f"{run} at {fmt_t(t)}"))
    return Outcome("; ".join(shown), comparisons=checks,
                   horizon=int(max(horizons)), reps=min(r.reps for r in used), seed=int(used[0].seed))


def joint_horizon(claim, ev) -> Outcome:
    """Is there one checkpoint in [1e5, T] at which every ratio lies inside the paper's value
    (+- its rounding, the ratio's interval widened by the paper's Monte Carlo error)?  The paper states no T; this asks
    whether any single T explains its numbers.  The checkpoint whose worst ratio is deepest inside
    its band (in standard errors) is compared, chosen among all of them (decided at alpha / (m x
    checkpoints)); if even it has a ratio outside its band, so does every checkpoint."""
    from dpbench.reporting.claims.horizon_range import depth as horizon_depth
    from dpbench.reporting.claims.kinds import paper_error, rounding
    from dpbench.reporting.measures import estimate
    from verify.inference import mean_ratio
    args = claim.require("args")
    base = ev.result(claim, {"experiment": args["experiment"], "run": args["baseline"]})
    nums = [ev.result(claim, {"experiment": args["experiment"], "run": r}) for r in args["runs"]]
    cps = [int(c) for c in base.checkpoints if c >= 1e5]
    if not cps:
        raise NotChecked(f"needs T >= 1e5 (the run has T = {fmt_t(base.horizon)})")
    best = None
    for t in cps:
        checks = []
        for run, num, value in zip(args["runs"], nums, args["values"]):
            est = estimate((num.regret_at(t), base.regret_at(t)), mean_ratio)
            se, said = paper_error(est, ev.paper_reps([num, base]))
            checks.append(Check(est, value - rounding(value), value + rounding(value), f"{run} at {fmt_t(t)}",
                                looks=len(cps), reference_se=se, band_source=f"+- the paper's rounding, {said}"))
        depth = min(horizon_depth(c) for c in checks)
        if best is None or depth > best[0]:
            best = (depth, t, checks)
    _, t, checks = best
    statistic = (f"deepest inside at T = {fmt_t(t)} (of {len(cps)} checkpoints in [1e5, T]): "
                 + "; ".join(f"{c.label}: {c.estimate} vs {c.band()}" for c in checks))
    return Outcome(statistic, comparisons=checks, horizon=int(base.horizon),
                   reps=min(r.reps for r in nums + [base]), seed=int(base.seed))


def plan(ctx: ReportContext) -> dict:
    """The report's runs: PLAN's experiments and the F5 worst-case families (built in code)."""
    out = {name: (name, *sizes) for name, sizes in PLAN.items()}
    out.update({exp.name: (exp, None, None) for exp in free_plan()})
    return out


def measure(ev: Evidence, runs: dict) -> None:
    """The measurements that are not regret runs (:mod:`.ldp_checks`, the constants) and the ones
    below, some reading the runs."""
    from . import agent_checks, ldp_checks
    ldp_checks.register(ev)
    agent_checks.register(ev)
    factor_values(ev)
    for fn in (tightness_ratio, ratio_similarity, difference_shrinks, slope_ratio_above, ucb1_late_slope, ratios_at,
               joint_horizon):
        ev.measure(fn.__name__, fn)
    free_runs = [runs[e.name] for e in free_plan() if runs.get(e.name) is not None]
    ev.measure("distribution_free", distribution_free(free_runs, free_runs[-1] if free_runs else None))


# ------------------------------------------------------------------ report
def bounds_figure(report: Report, run, results=()):
    """Fig. 1(a)'s runs with the explicit upper bounds of their policies (linked from the bound rows)."""
    if run is None:
        return
    fig, (ax,) = new_figure(width=6.0, height=4.0)
    curves = {lab: run_results(run, lab) for lab in ("UCB1", "LDP-UCB-B", "LDP-UCB-L")}
    extra = {}
    for lab, key, name in (("UCB1", "auer2002.ucb1", "UCB1 bound"), ("LDP-UCB-B", "seed000.thm6", "Thm 6"),
                           ("LDP-UCB-L", "seed000.thm4", "Thm 4")):
        if curves[lab] is not None:
            values = bound_curve(curves[lab], key)
            if values is not None:
                extra[lab] = {name: values}
    plot_curves(ax, curves, bounds_for_label=extra, title="Fig. 1(a), eps = 2, with the explicit bounds")
    keys = ("auer2002.ucb1", "seed000.thm6", "seed000.thm4")
    claims = [r.claim.id for r in results if r.claim.test == "bound" and r.claim.params.get("bound") in keys]
    report.figure(fig, "fig1a_bounds", "Fig. 1(a) runs (mean, 95% band) with the upper bounds of "
                                       "Auer et al., Theorem 6 and Theorem 4 (dashed).", paper_figure="Fig. 1",
                  claims=claims)


def figures(report: Report, runs: dict, results) -> None:
    bounds_figure(report, runs.get("seed000_fig1a"), results)


def sections(report: Report, runs: dict, results) -> None:
    bound_checks_section(
        report, "Bound checks per run",
        "The evidence behind the theorem rows: for every run, the log-regret slope C of R(t) = a + C ln t "
        "on [T/100, T] (or the last decade; cluster-robust OLS interval; *not applicable* when the window is "
        "not logarithmic, spec F1) against every registered slope bound, and the mean regret +- 3 s.e. "
        "against every explicit bound at every checkpoint. Vacuous bounds (>= T x max gap) are marked.",
        {name: run for name, run in runs.items() if name in PLAN and not name.endswith(("gap_scaling", "large_eps"))})


__all__ = ["PLAN", "plan", "measure", "figures", "sections", "free_experiment", "free_plan", "distribution_free",
           "ALPHA"]
