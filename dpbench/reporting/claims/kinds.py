"""The test kinds of a claims table (the ``test`` key of a ``[[claim]]``), one function each.

==============  ==================================================================================
``ordering``    ``runs`` (claimed increasing regret): one-sided Welch (``method = "mannwhitney"``
                for Mann-Whitney) per adjacent pair on per-repetition values (``per_rep`` =
                ``"regret"`` at T, or ``"late_exponent"``: the local log-log exponent of R(t) on
                [T/10, T], i.e. how far from flat the curve still is); Holm over the report.
                Unobservable when a run of a failing pair is still round-robin.
``ratio``       ``run`` / ``baseline`` mean regret at T, bootstrap interval at level 1 - alpha,
                against ``expected`` (or ``measure``) +- ``tolerance`` (default: half a unit of
                the paper's last digit); ``side = "upper_bound"``: refuted only if the interval
                lies above the value.
``exponent``    log-log slope across runs (``runs`` with ``values``, or ``sweep = {panel?,
                policy, variable}``) of the final regret (``of = "regret"``) or of the log-regret
                slope C (``of = "log_slope"``, runs outside the logarithmic regime excluded) by
                weighted least squares (:func:`verify.inference.power_law`), against
                ``predicted`` (a number or ``"factor:NAME"``, the local slope of a registered
                factor over the same values) +- ``tolerance``.
``flattening``  every run of ``runs`` has reached the logarithmic regime: the slope of R against
                ln t on [T/10, T] is at most (1 + ``tolerance``) x that on [T/100, T/10]
                (one-sided t-test over repetitions).  Unobservable before theory forces learning.
``argmin``      ``runs`` with the claimed ``best`` (lowest regret) and optionally ``worst``:
                one-sided tests of best < every other and worst > every other.
``same_law``    two ``runs`` have the same regret law at T (two-sample Kolmogorov-Smirnov).
``bound``       registered bound ``bound`` against every run of the evidence it applies to
                (values at every checkpoint, log-regret slope): refuted if a check is outside,
                unobservable if every check is vacuous (the bound >= T x max gap).
``value``       measurement ``measure`` (a number or an interval) against ``expected`` +-
                ``tolerance``, or ``at_least`` / ``at_most``.
``computed``    measurement ``measure`` returns the :class:`Outcome` itself (complex checks).
``not_checked`` ``reason``: why no computation can check it (e.g. a typo in a proof).
==============  ==================================================================================
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import stats

from ..bound_checks import late_log_fit
from ..markdown import fmt, fmt_t
from ..runs import horizons_of, panel_sweep
from . import (
    Claim,
    Evidence,
    Hypothesis,
    NotChecked,
    Outcome,
    Unobservable,
    Verdict,
    claim_test,
    common_checkpoint,
    learning_horizon,
    provenance_of,
    round_robin,
    run_name,
)

#: named theory factors f(x) whose local log-log slope a claim may predict ("factor:NAME")
FACTORS: dict[str, Callable[[float], float]] = {}


def register_factor(name: str, fn: Callable[[float], float]) -> None:
    FACTORS[name] = fn


def _alpha(claim: Claim, ev: Evidence) -> float:
    return claim.alpha if claim.alpha is not None else ev.alpha


def rounding(value: float) -> float:
    """Half a unit of the last digit of a paper's number: 1.6 -> 0.05, 74 -> 0.5, 0.9977 -> 5e-5."""
    text = repr(float(value))
    if "e" in text or float(value).is_integer():
        return 0.5
    return 0.5 * 10.0 ** -len(text.split(".")[1])


def _expected_value(claim: Claim, ev: Evidence) -> float:
    if "expected" in claim.params:
        return float(claim.params["expected"])
    if "measure" in claim.params:
        v = ev.measurement(claim)
        return float(v.estimate if hasattr(v, "estimate") else v)
    raise NotChecked(f"claim {claim.id!r} gives neither 'expected' nor 'measure'")


def _names(claim: Claim, key: str = "runs") -> list[str]:
    return [run_name(r) for r in claim.require(key)]


def _mean_se(x: np.ndarray) -> str:
    se = x.std(ddof=1) / math.sqrt(x.size) if x.size > 1 else math.nan
    return f"{fmt(float(x.mean()))} +- {fmt(float(se), 2)}"


def _need_reps(results, n=2):
    small = [r.label for r in results if r.reps < n]
    if small:
        raise NotChecked(f"fewer than {n} repetitions in {', '.join(small)}")


# ------------------------------------------------------------------ per repetition
def late_exponents(result, t: int) -> np.ndarray:
    """Per-repetition OLS slope of ln R on ln t over the checkpoints in [t/10, t]."""
    cps = np.asarray(result.checkpoints, dtype=float)
    inside = (cps >= t / 10) & (cps <= t)
    if inside.sum() < 3:
        raise NotChecked(f"fewer than 3 checkpoints in [{t / 10:g}, {t:g}]")
    x = np.log(cps[inside])
    y = np.log(np.maximum(result.regret[:, inside], 1e-9))
    xc = x - x.mean()
    return (y - y.mean(axis=1, keepdims=True)) @ xc / float(xc @ xc)


PER_REP = {"regret": lambda r, t: r.regret_at(t), "late_exponent": late_exponents}


def _per_rep_name(claim):
    return {"regret": "pseudo-regret R(T) per repetition",
            "late_exponent": "local exponent d ln R / d ln t on [T/10, T] per repetition"}[
        claim.get("per_rep", "regret")]


# ------------------------------------------------------------------ ordering
@claim_test("ordering", keys=("runs",), optional=("experiment", "method", "per_rep"),
            quantity=_per_rep_name,
            expected=lambda c: " < ".join(_names(c)),
            method=lambda c: f"one-sided {c.get('method', 'welch')} per adjacent pair, Holm")
def ordering(claim: Claim, ev: Evidence) -> Outcome:
    from verify.inference import compare
    results = ev.results(claim)
    _need_reps(results)
    names = _names(claim)
    kind = claim.get("per_rep", "regret")
    if kind not in PER_REP:
        raise NotChecked(f"unknown per_rep {kind!r}; allowed: {', '.join(PER_REP)}")
    t = common_checkpoint(results, claim.horizon)
    values = [PER_REP[kind](r, t) for r in results]
    hyps = []
    for i in range(len(results) - 1):
        test = compare(values[i], values[i + 1], alternative="less", method=claim.get("method", "welch"))
        hyps.append(Hypothesis(test.p_value, True, f"{names[i]} < {names[i + 1]}: {test}",
                               round_robin([results[i], results[i + 1]], t, names[i:i + 2])))
    statistic = "; ".join(f"{n}: {_mean_se(v)}" for n, v in zip(names, values))
    return Outcome(statistic, hypotheses=tuple(hyps), horizon=t, **provenance_of(results))


# ------------------------------------------------------------------ ratio
@claim_test("ratio", keys=("run", "baseline"),
            optional=("experiment", "expected", "measure", "tolerance", "side"),
            quantity=lambda c: f"rho = R({run_name(c.params['run'])}) / R({run_name(c.params['baseline'])}) at T",
            expected=lambda c: (("<= " if c.get("side") == "upper_bound" else "")
                                + (f"{c.params['expected']:g}" if "expected" in c.params else c.get("measure", ""))
                                + (f" +- {c.get('tolerance', rounding(c.params['expected'])):g}"
                                   if "expected" in c.params and c.get("side") != "upper_bound" else "")),
            method=lambda c: "bootstrap interval of the ratio of means")
def ratio(claim: Claim, ev: Evidence) -> Outcome:
    from verify.inference import bootstrap_ci, mean_ratio
    num, den = ev.result(claim, claim.require("run")), ev.result(claim, claim.require("baseline"))
    _need_reps([num, den])
    alpha = _alpha(claim, ev)
    t = common_checkpoint([num, den], claim.horizon)
    value = _expected_value(claim, ev)
    tol = float(claim.get("tolerance", rounding(value) if "expected" in claim.params else 0.0))
    ci = bootstrap_ci((num.regret_at(t), den.regret_at(t)), mean_ratio, level=1 - alpha)
    trail = [f"T = {fmt_t(h)}: {bootstrap_ci((num.regret_at(h), den.regret_at(h)), mean_ratio, level=1 - alpha)}"
             for h in horizons_of(num) if h < t and h in set(int(c) for c in den.checkpoints)]
    statistic = f"rho = {ci} ({100 * (1 - alpha):g}% BCa)" + (f"; earlier {'; '.join(trail)}" if trail else "")
    size = dict(horizon=t, **provenance_of([num, den]))
    if claim.get("side") == "upper_bound":
        above = ci.low > value + tol
        return Outcome(statistic, Verdict.REFUTED if above else Verdict.REPRODUCED,
                       reason=f"interval {'above' if above else 'not above'} {value:.4g}", **size)
    if ci.contains(value, tol):
        return Outcome(statistic, Verdict.REPRODUCED, reason=f"interval meets {value:g} +- {tol:g}", **size)
    stuck = round_robin([num, den], t, [run_name(claim.params["run"]), run_name(claim.params["baseline"])])
    if stuck is not None:
        return Outcome(statistic, Verdict.UNOBSERVABLE, reason=str(stuck), **size)
    return Outcome(statistic, Verdict.REFUTED, reason=f"interval excludes {value:g} +- {tol:g}", **size)


# ------------------------------------------------------------------ exponent
def _sweep_results(claim: Claim, ev: Evidence) -> tuple[list[float], list]:
    if "sweep" in claim.params:
        sw = claim.params["sweep"]
        run = ev.run(claim.require("experiment"))
        found = panel_sweep(run, sw.get("panel", ""), sw["policy"], sw["variable"])
        if not found and "panel" not in sw:
            found = {x: r for spec in {s.panel for s in run.runs}
                     for x, r in panel_sweep(run, spec, sw["policy"], sw["variable"]).items()}
        keep = sw.get("values")
        items = sorted((x, r) for x, r in found.items() if keep is None or x in keep)
        return [x for x, _ in items], [r for _, r in items]
    values = [float(v) for v in claim.require("values")]
    return values, ev.results(claim)


def _predicted(claim: Claim, xs) -> tuple[float, str]:
    pred = claim.require("predicted")
    if isinstance(pred, str) and pred.startswith("factor:"):
        name = pred.split(":", 1)[1]
        if name not in FACTORS:
            raise NotChecked(f"factor {name!r} is not registered")
        f = FACTORS[name]
        slope = float(np.polyfit(np.log(xs), np.log([f(x) for x in xs]), 1)[0])
        return slope, f"local slope of {name} over these values"
    return float(pred), "paper"


@claim_test("exponent", keys=("predicted",),
            optional=("experiment", "runs", "values", "sweep", "of", "tolerance", "variable"),
            quantity=lambda c: (f"d ln {'C' if c.get('of') == 'log_slope' else 'R(T)'} / d ln "
                                f"{c.get('variable') or (c.get('sweep') or {}).get('variable', 'x')}"),
            expected=lambda c: f"{c.params['predicted']} +- {c.get('tolerance', 0.1):g}",
            method=lambda c: "WLS of log means on log values (statsmodels), interval at 1 - alpha")
def exponent(claim: Claim, ev: Evidence) -> Outcome:
    from verify.inference import power_law
    xs, results = _sweep_results(claim, ev)
    _need_reps(results, 3)
    alpha = _alpha(claim, ev)
    tol = float(claim.get("tolerance", 0.1))
    of = claim.get("of", "regret")
    kept_x, samples, excluded, stuck = [], [], [], []
    for x, r in zip(xs, results):
        t = min(int(r.checkpoints[-1]), int(claim.horizon or r.checkpoints[-1]))
        if of == "log_slope":
            fit = late_log_fit(_truncate(r, t), bounds=())
            if not fit.applicable:
                excluded.append(x)
                stuck.append(r)
                continue
            samples.append(fit.details["per_rep"])
        else:
            samples.append(r.regret_at(max(c for c in r.checkpoints if c <= t)))
        kept_x.append(x)
    size = dict(horizon=int(min(r.checkpoints[-1] for r in results)), **provenance_of(results))
    if len(kept_x) < 3:
        horizons = [learning_horizon(r) for r in stuck]
        why = Unobservable(f"{len(excluded)} of {len(xs)} runs not yet logarithmic (at "
                           f"{', '.join(f'{x:g}' for x in excluded)}); an exponent needs 3",
                           None if any(h is None for h in horizons) or not horizons else max(horizons))
        return Outcome("", Verdict.UNOBSERVABLE, reason=str(why), **size)
    fit = power_law(kept_x, samples, level=1 - alpha)
    pred, source = _predicted(claim, kept_x)
    d = fit.diagnostics
    statistic = (f"slope {fit.slope:.3g} [{fit.ci[0]:.3g}, {fit.ci[1]:.3g}] over {', '.join(f'{x:g}' for x in kept_x)}"
                 f"; R^2 = {fit.r_squared:.4f}; lack of fit chi2 = {d['lack_of_fit_chi2']:.3g} on {d['df']} df"
                 + (f" (p = {d['lack_of_fit_p']:.2g}; interval widened x{math.sqrt(d['scale']):.2g})"
                    if d["df"] > 0 else "")
                 + (f"; excluded (not logarithmic): {', '.join(f'{x:g}' for x in excluded)}" if excluded else "")
                 + f"; predicted {pred:.3g} ({source})")
    ok = fit.ci[0] - tol <= pred <= fit.ci[1] + tol
    return Outcome(statistic, Verdict.REPRODUCED if ok else Verdict.REFUTED,
                   reason=f"interval {'meets' if ok else 'excludes'} {pred:.3g} +- {tol:g}", **size)


def _truncate(result, t: int):
    """A view of ``result`` up to checkpoint t (for fits at a claim's horizon)."""
    if int(result.checkpoints[-1]) == t:
        return result
    from types import SimpleNamespace
    keep = np.asarray(result.checkpoints) <= t
    return SimpleNamespace(checkpoints=np.asarray(result.checkpoints)[keep], regret=result.regret[:, keep],
                           policy=result.policy, means=result.means, horizon=t, params=result.params,
                           env_params=result.env_params, info=result.info, environment=result.environment,
                           label=result.label, reps=result.reps, seed=result.seed)


# ------------------------------------------------------------------ flattening
def _decade_slopes(result, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-repetition slopes of R against ln t on [t/100, t/10] and [t/10, t]."""
    cps = np.asarray(result.checkpoints, dtype=float)
    out = []
    for lo, hi in ((t / 100, t / 10), (t / 10, t)):
        inside = (cps >= lo) & (cps <= hi)
        if inside.sum() < 3:
            raise NotChecked(f"fewer than 3 checkpoints in [{lo:g}, {hi:g}]")
        x = np.log(cps[inside])
        xc = x - x.mean()
        y = result.regret[:, inside]
        out.append((y - y.mean(axis=1, keepdims=True)) @ xc / float(xc @ xc))
    return out[0], out[1]


@claim_test("flattening", keys=("runs",), optional=("experiment", "tolerance"),
            quantity=lambda c: "slope of R against ln t on [T/10, T] over that on [T/100, T/10]",
            expected=lambda c: f"<= {1 + c.get('tolerance', 0.2):g} for every run (logarithmic growth)",
            method=lambda c: "one-sided t-test per run over repetitions, Holm")
def flattening(claim: Claim, ev: Evidence) -> Outcome:
    results = ev.results(claim)
    _need_reps(results)
    names = _names(claim)
    tol = float(claim.get("tolerance", 0.2))
    t = common_checkpoint(results, claim.horizon)
    hyps, shown = [], []
    for name, r in zip(names, results):
        early, late = _decade_slopes(r, t)
        diff = late - (1 + tol) * early
        test = stats.ttest_1samp(diff, 0.0, alternative="less")
        p = float(test.pvalue) if math.isfinite(test.pvalue) else 1.0
        ratio = float(late.mean() / early.mean()) if early.mean() > 0 else math.inf
        shown.append(f"{name}: {ratio:.2f}")
        why = round_robin([r], t, [name])
        if why is None:
            h = learning_horizon(r)
            if h is not None and t < h:
                why = Unobservable(f"{name} still accelerating at T = {fmt_t(t)} (late/early slope {ratio:.2f}) "
                                   "before its bound forces learning", h)
        hyps.append(Hypothesis(p, True, f"{name} flat (t = {test.statistic:.3g})", why))
    return Outcome("late/early slope ratio: " + "; ".join(shown), hypotheses=tuple(hyps), horizon=t,
                   **provenance_of(results))


# ------------------------------------------------------------------ argmin
@claim_test("argmin", keys=("runs", "best"), optional=("experiment", "worst", "method"),
            quantity=lambda c: "pseudo-regret R(T) per repetition",
            expected=lambda c: f"lowest: {run_name(c.params['best'])}"
                               + (f"; highest: {run_name(c.params['worst'])}" if "worst" in c.params else ""),
            method=lambda c: f"one-sided {c.get('method', 'welch')} against every other run, Holm")
def argmin(claim: Claim, ev: Evidence) -> Outcome:
    from verify.inference import compare
    results = ev.results(claim)
    _need_reps(results)
    names = _names(claim)
    t = common_checkpoint(results, claim.horizon)
    values = dict(zip(names, (r.regret_at(t) for r in results)))
    by_name = dict(zip(names, results))
    hyps = []
    method = claim.get("method", "welch")
    for role, ref, alt in (("best", claim.params["best"], "less"), ("worst", claim.params.get("worst"), "greater")):
        if ref is None:
            continue
        key = run_name(ref)
        if key not in values:
            raise NotChecked(f"{role} run {key!r} is not among the claim's runs")
        for other in names:
            if other == key:
                continue
            test = compare(values[key], values[other], alternative=alt, method=method)
            hyps.append(Hypothesis(test.p_value, True, f"{key} {'<' if alt == 'less' else '>'} {other}: {test}",
                                   round_robin([by_name[key], by_name[other]], t, [key, other])))
    statistic = "; ".join(f"{n}: {_mean_se(v)}" for n, v in values.items())
    return Outcome(statistic, hypotheses=tuple(hyps), horizon=t, **provenance_of(results))


# ------------------------------------------------------------------ same law
@claim_test("same_law", keys=("runs",), optional=("experiment",),
            quantity=lambda c: "law of R(T) over repetitions",
            expected=lambda c: " = ".join(_names(c)),
            method=lambda c: "two-sample Kolmogorov-Smirnov (rejection refutes), Holm")
def same_law(claim: Claim, ev: Evidence) -> Outcome:
    results = ev.results(claim)
    if len(results) != 2:
        raise NotChecked("same_law compares exactly two runs")
    _need_reps(results)
    names = _names(claim)
    t = common_checkpoint(results, claim.horizon)
    a, b = (r.regret_at(t) for r in results)
    test = stats.ks_2samp(a, b)
    return Outcome(f"{names[0]}: {_mean_se(a)}; {names[1]}: {_mean_se(b)}; KS D = {test.statistic:.3g}",
                   hypotheses=(Hypothesis(float(test.pvalue), False, f"KS p = {test.pvalue:.2g}"),),
                   horizon=t, **provenance_of(results))


# ------------------------------------------------------------------ bound
@claim_test("bound", keys=("bound",), optional=("experiments",),
            quantity=lambda c: "mean regret at every checkpoint and log-regret slope of every run it covers",
            expected=lambda c: "within the bound",
            method=lambda c: "verify.regret_fits checks (mean +- 3 s.e., slope interval)")
def bound(claim: Claim, ev: Evidence) -> Outcome:
    from verify import bounds
    from verify import regret_fits as rf
    key = claim.require("bound")
    b = bounds.get(key)
    names = claim.get("experiments") or list(ev.runs)
    checked, outside, vacuous, reasons, used = [], [], [], set(), []
    for name in names:
        run = ev.runs.get(name)
        if run is None:
            continue
        for label, res in run.results.items():
            if not b.applies_to(res.policy, res.label):
                continue
            used.append(res)
            verdicts = rf.check_values(res, [key])
            if b.slope is not None:
                fit = late_log_fit(res, bounds=[key])
                verdicts += fit.checks
                if not fit.applicable:
                    reasons.add("log-regret slope not applicable (window not logarithmic) on some runs")
            for v in verdicts:
                where = f"{name}: {label}"
                if v.status == rf.NOT_APPLICABLE:
                    reasons.add(v.reason)
                elif v.status == rf.OUTSIDE:
                    outside.append(f"{where}: {v.reason}")
                else:
                    checked.append(where)
                    if v.evidence.get("vacuous_fraction", 0.0) >= 1.0:
                        vacuous.append(res)
    if not used:
        raise NotChecked(f"no run of this report is covered by {key}")
    size = dict(horizon=int(max(r.horizon for r in used)), **provenance_of(used))
    statistic = f"{len(checked) + len(outside)} checks on {len(used)} runs; {len(outside)} outside"
    if outside:
        return Outcome(statistic + ": " + "; ".join(outside[:3]), Verdict.REFUTED, reason="a check is outside", **size)
    if not checked:
        raise NotChecked("not applicable: " + "; ".join(sorted(reasons)))
    if len(vacuous) == len(checked):
        horizon = min((h for r in vacuous if (h := _nonvacuous_horizon(b, r)) is not None), default=None)
        return Outcome(statistic, Verdict.UNOBSERVABLE,
                       reason=str(Unobservable("every check is vacuous (bound >= T x max gap)", horizon)), **size)
    return Outcome(statistic, Verdict.REPRODUCED, reason="no check outside", **size)


def _nonvacuous_horizon(b, result) -> float | None:
    from verify import bounds
    ctx = bounds.context(result)

    def useful(log_t):
        e = b.evaluate(ctx, T=float(10 ** log_t))
        return e.applicable and e.value is not None and not e.vacuous
    lo, hi = math.log10(max(2, len(result.means))), 15.0
    if not useful(hi):
        return None
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if useful(mid) else (mid, hi)
    return 10 ** hi


# ------------------------------------------------------------------ values
def _describe_value(claim: Claim) -> str:
    if "expected" in claim.params:
        tol = claim.get("tolerance", rounding(claim.params["expected"]))
        return f"{claim.params['expected']:g} +- {tol:g}"
    if "at_least" in claim.params:
        return f">= {claim.params['at_least']:g}"
    if "at_most" in claim.params:
        return f"<= {claim.params['at_most']:g}"
    return ""


@claim_test("value", keys=("measure",), optional=("expected", "tolerance", "at_least", "at_most"),
            quantity=lambda c: c.params["measure"].replace("_", " "),
            expected=_describe_value,
            method=lambda c: "computed value (interval at 1 - alpha when random)")
def value(claim: Claim, ev: Evidence) -> Outcome:
    got = ev.measurement(claim)
    text = ""
    if isinstance(got, tuple):
        got, text = got
    is_interval = hasattr(got, "low")
    shown = str(got) if is_interval else f"{float(got):.6g}"
    statistic = shown + (f"; {text}" if text else "")
    lo, hi = (got.low, got.high) if is_interval else (float(got), float(got))
    if "expected" in claim.params:
        target = float(claim.params["expected"])
        tol = float(claim.get("tolerance", rounding(target)))
        ok = lo - tol <= target <= hi + tol
        reason = f"{'meets' if ok else 'misses'} {target:g} +- {tol:g}"
    elif "at_least" in claim.params:
        ok = hi >= float(claim.params["at_least"])
        reason = f"{'>=' if ok else '<'} {claim.params['at_least']:g}"
    elif "at_most" in claim.params:
        ok = lo <= float(claim.params["at_most"])
        reason = f"{'<=' if ok else '>'} {claim.params['at_most']:g}"
    else:
        raise NotChecked("a value claim needs expected, at_least or at_most")
    return Outcome(statistic, Verdict.REPRODUCED if ok else Verdict.REFUTED, reason=reason)


@claim_test("computed", keys=("measure",), optional=("args",),
            quantity=lambda c: c.params["measure"].replace("_", " "),
            expected=lambda c: (c.get("args") or {}).get("expected", "as the claim states"),
            method=lambda c: "the measurement's own test (see measured)")
def computed(claim: Claim, ev: Evidence) -> Outcome:
    out = ev.measurement(claim)
    if not isinstance(out, Outcome):
        raise TypeError(f"measurement {claim.params['measure']!r} must return an Outcome for claim {claim.id!r}")
    return out


@claim_test("not_checked", keys=("reason",), method=lambda c: "none")
def not_checked(claim: Claim, ev: Evidence) -> Outcome:
    return Outcome("", Verdict.NOT_CHECKED, reason=str(claim.params["reason"]))


def register_seed000_001_factors():
    from verify.bounds.factors import F_L, beta
    register_factor("beta", beta)
    register_factor("F_L", F_L)
    register_factor("sqrt_beta", lambda e: math.sqrt(beta(e)))
    register_factor("sqrt_F_L", lambda e: math.sqrt(F_L(e)))
    register_factor("sqrt_T_log_T", lambda t: math.sqrt(t * math.log(t)))


register_seed000_001_factors()

__all__ = ["FACTORS", "register_factor", "rounding", "late_exponents", "PER_REP"]
