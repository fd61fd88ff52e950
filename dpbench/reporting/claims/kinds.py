"""The test kinds of a claims table (the ``test`` key of a ``[[claim]]``), one function each.

==============  ==================================================================================
``ordering``    ``runs`` (claimed increasing regret): per adjacent pair, the difference of mean
                per-repetition values (Welch) against (-inf, 0] (``method = "mannwhitney"``: a
                one-sided Mann-Whitney test each way) on ``per_rep`` = ``"regret"`` at T, or
                ``"late_exponent"``: the local log-log exponent of R(t) on [T/10, T].
                Unobservable (both ways) when a run of a pair is still round-robin.
``ratio``       ``run`` / ``baseline`` mean regret at T (bootstrap standard error) against
                ``expected`` (or ``measure``) +- ``tolerance`` (default: half a unit of the
                paper's last digit); ``side = "upper_bound"``: against (-inf, expected + tol]
                (default ``"two_sided"``).
``exponent``    log-log slope across runs (``runs`` with ``values``, or ``sweep = {panel?,
                policy, variable}``) of the final regret (``of = "regret"``) or of the log-regret
                slope C (``of = "log_slope"``, runs outside the logarithmic regime left out) by
                weighted least squares (:func:`verify.inference.power_law`), against
                ``predicted`` (a number or ``"factor:NAME"``, the local slope of a registered
                factor over the same values) +- ``tolerance``.  Saturated runs are left out
                (:func:`~dpbench.reporting.claims.saturated`); ``limit_range = [lo, hi]``: a
                limit claim ("-2 as eps -> 0") uses only values in the limit's range.  A fit
                failing its lack-of-fit test decides nothing.
``flattening``  every run of ``runs`` has reached the logarithmic regime: the slope of R against
                ln t on [T/10, T] is at most (1 + ``tolerance``) x that on [T/100, T/10]
                (mean difference over repetitions against (-inf, 0]).  Unobservable before
                theory forces learning.
``argmin``      ``runs`` with the claimed ``best`` (lowest regret) and optionally ``worst``:
                differences of best - every other against (-inf, 0] (worst: [0, inf)).
``same_law``    two ``runs`` have the same regret law at T: two-sample Kolmogorov-Smirnov
                (rejection contradicts), reproduced only with power >= POWER against a
                location shift of ``departure`` x the mean (a DKW bound on the power).
``bound``       registered bound ``bound`` against every run of the evidence it applies to: the
                mean regret at every checkpoint (anytime bounds) or at the horizon, and the
                log-regret slope, each against the bound; unobservable if every check is vacuous
                (an upper bound >= T x max gap, a lower bound <= the sum of the gaps).
``value``       measurement ``measure`` (a number: exact; an Estimate or an Interval with a
                standard error: random) against ``expected`` +- ``tolerance``, or ``at_least``
                / ``at_most``.
``computed``    measurement ``measure`` returns the :class:`Outcome` itself (complex checks).
``not_checked`` ``reason``: why no computation can check it (e.g. a typo in a proof).
==============  ==================================================================================
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from scipy import stats

from verify.inference import MANN_WHITNEY, WELCH

from ..bound_checks import late_log_fit
from ..markdown import fmt, fmt_t
from ..runs import horizons_of, panel_sweep
from .comparisons import Check, Exact, Hypothesis, Outcome, Unobservable
from .evidence import (
    Evidence,
    common_checkpoint,
    fixed_schedule,
    horizon_to_learn,
    learning_horizon,
    paired,
    provenance_of,
    round_robin,
    run_name,
    saturated,
)
from .horizon_range import KEY as RANGE
from .horizon_range import checkpoints_in, over_horizons, range_of
from .model import Claim, NotChecked, Verdict
from .registry import claim_test

#: named theory factors f(x) whose local log-log slope a claim may predict ("factor:NAME")
FACTORS: dict[str, Callable[[float], float]] = {}


def register_factor(name: str, fn: Callable[[float], float]) -> None:
    FACTORS[name] = fn


def ratio_estimate(num, den, fixed: bool = False, paired: bool = False):
    """mean(num) / mean(den) with its bootstrap standard error; ``fixed`` (both runs in a
    data-independent schedule) and neither varying over its repetitions: an exact ratio of two
    computed numbers; ``paired`` (:func:`~dpbench.reporting.claims.paired`): repetitions resampled
    jointly.  Two runs equal in every repetition, in order (one computation on the same draws: the
    code runs the same algorithm twice; independent draws never agree to the last bit), have the
    exact ratio 1, not a zero-spread estimate."""
    from verify.inference import Estimate, bootstrap_estimate, mean_ratio
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if fixed and np.ptp(num) == 0 and np.ptp(den) == 0:
        return Estimate.exact_value(float(num.mean() / den.mean()), "ratio of two fixed schedules")
    if num.shape == den.shape and num.size and np.array_equal(num, den) and den.mean() != 0:
        return Estimate.exact_value(1.0, "the two runs are equal in every repetition")
    return bootstrap_estimate((num, den), mean_ratio, paired=paired)


def order_check(a, b, label: str, unobservable=None, *, method: str = "welch", fixed: bool = False,
                paired: bool = False):
    """The claim mean(a) < mean(b) of per-repetition values: the difference a - b (Welch; ``paired``
    runs, :func:`~dpbench.reporting.claims.paired`: the paired t of the differences) against
    (-inf, 0], or a one-sided Mann-Whitney test each way.  ``fixed``: both runs
    are in a data-independent schedule (:func:`~dpbench.reporting.claims.fixed_schedule`); when
    neither varies over its repetitions the comparison is of two computed numbers (exact)."""
    from verify.inference import MANN_WHITNEY, compare, difference_estimate, paired_difference_estimate
    if fixed and np.ptp(a) == 0 and np.ptp(b) == 0:
        if unobservable is not None and float(np.mean(a)) == float(np.mean(b)):
            # the same data-independent phase on both sides: a tie by construction, not an ordering the
            # algorithms' learning shows, so not decided even at the horizon the claim is about
            unobservable = replace(unobservable, sticky=True,
                                   reason=unobservable.reason + "; both runs tie by construction")
        return Exact(float(np.mean(a)) < float(np.mean(b)),
                     f"{label}: {float(np.mean(a)):.6g} vs {float(np.mean(b)):.6g}, both fixed schedules at this T",
                     unobservable)
    if method == MANN_WHITNEY:
        less = compare(a, b, alternative="less", method=method)
        more = compare(a, b, alternative="greater", method=method)
        return Hypothesis(less.p_value, True, f"{label}: {less}", unobservable, p_against=more.p_value)
    diff = paired_difference_estimate(a, b) if paired else difference_estimate(a, b)
    return Check(diff, high=0.0, label=f"{label} ({'paired difference' if paired else 'difference of means'})",
                 unobservable=unobservable)


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
@claim_test("ordering", keys=("runs",), optional=("experiment", "method", "per_rep", RANGE),
            choices={"method": (WELCH, MANN_WHITNEY), "per_rep": tuple(PER_REP)},
            quantity=_per_rep_name,
            expected=lambda c: " < ".join(_names(c)),
            method=lambda c: f"{c.get('method', 'welch')} difference per adjacent pair, family-wise")
def ordering(claim: Claim, ev: Evidence) -> Outcome:
    results = ev.results(claim)
    _need_reps(results)
    names = _names(claim)
    kind = claim.get("per_rep", "regret")
    if kind not in PER_REP:
        raise NotChecked(f"unknown per_rep {kind!r}; allowed: {', '.join(PER_REP)}")

    def pair(i: int, t: int):
        a, b = (PER_REP[kind](r, t) for r in results[i:i + 2])
        return order_check(a, b, f"{names[i]} < {names[i + 1]}",
                           round_robin([results[i], results[i + 1]], t, names[i:i + 2], ev),
                           method=claim.get("method", "welch"), fixed=fixed_schedule(results[i:i + 2], t),
                           paired=paired(results[i:i + 2]) and kind == "regret")
    t, comps = _at_horizon(claim, results, lambda i, t: pair(i, t), range(len(results) - 1))
    values = [PER_REP[kind](r, t) for r in results]
    statistic = "; ".join(f"{n}: {_mean_se(v)}" for n, v in zip(names, values))
    return Outcome(statistic, comparisons=comps, horizon=t, **provenance_of(results))


def _at_horizon(claim: Claim, results, make, parts, *, exists: bool = False):
    """(T, comparisons): ``make(part, t)`` for every part at the claim's horizon, or over the
    checkpoints of its ``horizon_range`` (:mod:`.horizon_range`: ``exists`` for a number read off
    the figure, else the claim must hold at every checkpoint); T is then the range's last one."""
    span = range_of(claim)
    if span is None:
        t = common_checkpoint(results, claim.horizon)
        return t, [make(part, t) for part in parts]
    cps = checkpoints_in(results, *span)
    return cps[-1], [c for part in parts for c in over_horizons(lambda t, part=part: make(part, t), cps,
                                                                exists=exists)]


# ------------------------------------------------------------------ ratio
@claim_test("ratio", keys=("run", "baseline"),
            optional=("experiment", "expected", "measure", "tolerance", "side", RANGE),
            choices={"side": ("upper_bound", "two_sided")},
            quantity=lambda c: f"rho = R({run_name(c.params['run'])}) / R({run_name(c.params['baseline'])}) at T",
            expected=lambda c: (("<= " if c.get("side") == "upper_bound" else "")
                                + (f"{c.params['expected']:g}" if "expected" in c.params else c.get("measure", ""))
                                + (f" +- {c.get('tolerance', rounding(c.params['expected'])):g}"
                                   if "expected" in c.params and c.get("side") != "upper_bound" else "")),
            method=lambda c: "ratio of means, bootstrap standard error")
def ratio(claim: Claim, ev: Evidence) -> Outcome:
    num, den = ev.result(claim, claim.require("run")), ev.result(claim, claim.require("baseline"))
    _need_reps([num, den])
    value = _expected_value(claim, ev)
    tol = float(claim.get("tolerance", rounding(value) if "expected" in claim.params else 0.0))
    two_sided = claim.get("side") != "upper_bound"
    low = value - tol if two_sided else -math.inf
    names = [run_name(claim.params["run"]), run_name(claim.params["baseline"])]
    pair = paired([num, den])

    def at(_, t: int) -> Check:
        est = ratio_estimate(num.regret_at(t), den.regret_at(t), fixed_schedule([num, den], t), pair)
        reference_se, source = 0.0, claim.margin
        if two_sided and "expected" in claim.params:
            # the paper's number is itself a mean over its repetitions: its Monte Carlo error (at the spread
            # observed here) joins the estimate's, besides the band of its rounding
            reference_se, mc = paper_error(est, ev.paper_reps([num, den]))
            source = ", ".join(s for s in (claim.margin or ("+- the paper's rounding" if "tolerance" not in
                                                            claim.params else ""), mc) if s)
        return Check(est, low, value + tol, "rho", round_robin([num, den], t, names, ev), reference_se=reference_se,
                     band_source=source)
    t, comps = _at_horizon(claim, [num, den], at, [0], exists=two_sided and "expected" in claim.params)
    trail = [f"T = {fmt_t(h)}: "
             f"{ratio_estimate(num.regret_at(h), den.regret_at(h), fixed_schedule([num, den], h), pair)}"
             for h in horizons_of(num) if h < t and h in set(int(c) for c in den.checkpoints)]
    statistic = (f"rho = {ratio_estimate(num.regret_at(t), den.regret_at(t), fixed_schedule([num, den], t), pair)}"
                 + (f" at T = {fmt_t(t)}" if range_of(claim) else "")
                 + (f"; earlier {'; '.join(trail)}" if trail else ""))
    return Outcome(statistic, comparisons=tuple(comps), horizon=t, **provenance_of([num, den]))


def paper_error(est, paper_reps: int | None) -> tuple[float, str]:
    """The standard error of the paper's own estimate of the quantity ``est`` estimates here, from
    its repetitions (``paper_reps``; unknown: as many as here) at the spread observed here, and the
    words for it."""
    if est.exact or not est.reps or not math.isfinite(est.se) or est.se <= 0:
        return 0.0, ""
    reps = paper_reps or int(est.reps)
    se = float(est.se) * math.sqrt(int(est.reps) / reps)
    said = f"its {reps} repetitions" if paper_reps else f"repetitions not stated, taken as this run's {reps}"
    return se, f"the interval widened by the paper's Monte Carlo error (s.e. {se:.2g} from {said})"


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


def _factor(claim: Claim) -> tuple[str, Callable[[float], float]] | None:
    """The registered theory factor a claim predicts (``predicted = "factor:NAME"``), or None."""
    pred = claim.require("predicted")
    if isinstance(pred, str) and pred.startswith("factor:"):
        name = pred.split(":", 1)[1]
        if name not in FACTORS:
            raise NotChecked(f"factor {name!r} is not registered")
        return name, FACTORS[name]
    return None


@claim_test("exponent", keys=("predicted",),
            optional=("experiment", "runs", "values", "sweep", "of", "tolerance", "variable", "limit_range"),
            choices={"of": ("regret", "log_slope")},
            quantity=lambda c: (f"d ln {'C' if c.get('of') == 'log_slope' else 'R(T)'} / d ln "
                                f"{c.get('variable') or (c.get('sweep') or {}).get('variable', 'x')}"),
            expected=lambda c: (f"y / {c.params['predicted'][7:]} flat: slope 0 +- {c.get('tolerance', 0.1):g}"
                                if str(c.params["predicted"]).startswith("factor:")
                                else f"{c.params['predicted']} +- {c.get('tolerance', 0.1):g}"),
            method=lambda c: "WLS of log means on log values (statsmodels) with its lack-of-fit test")
def exponent(claim: Claim, ev: Evidence) -> Outcome:
    from verify.inference import Estimate, power_law, slope_estimate
    xs, results = _sweep_results(claim, ev)
    _need_reps(results, 3)
    tol = float(claim.get("tolerance", 0.1))
    of = claim.get("of", "regret")
    lo, hi = (float(v) for v in claim.get("limit_range", (-math.inf, math.inf)))
    kept_x, samples, excluded, stuck, outside = [], [], [], [], []
    for x, r in zip(xs, results):
        if not lo <= x <= hi:
            outside.append(x)
            continue
        t = min(int(r.checkpoints[-1]), int(claim.horizon or r.checkpoints[-1]))
        why = saturated(r, t)
        if of == "log_slope":
            fit = late_log_fit(_truncate(r, t), bounds=())
            if not fit.applicable:
                why = why or "not logarithmic"
            elif not why:
                samples.append(fit.details["per_rep"])
        elif not why:
            samples.append(r.regret_at(max(c for c in r.checkpoints if c <= t)))
        if why:
            excluded.append(f"{x:g} ({why})")
            stuck.append((r, t))
            continue
        kept_x.append(x)
    size = dict(horizon=int(min(r.checkpoints[-1] for r in results)), **provenance_of(results))
    in_range = f" in the limit's range [{lo:g}, {hi:g}]" if math.isfinite(lo) or math.isfinite(hi) else ""
    if len(kept_x) < 3:
        text = (f"{len(kept_x)} value(s){in_range} usable"
                + (f"; left out: {', '.join(excluded)}" if excluded else "")
                + (f"; outside the limit's range: {', '.join(f'{x:g}' for x in outside)}" if outside else ""))
        if len(kept_x) + len(stuck) >= 3:
            horizons = [horizon_to_learn(r, t) for r, t in stuck]
            why = Unobservable(f"{len(stuck)} of {len(xs) - len(outside)} runs{in_range} not usable at this "
                               "horizon; an exponent needs 3",
                               None if any(h is None for h in horizons) or not horizons else max(horizons))
            return Outcome(text, Verdict.UNOBSERVABLE, unobservable=why, **size)
        raise NotChecked(f"{text}; an exponent needs 3 values{in_range}")
    factor = _factor(claim)
    if factor is None:
        # whose prediction: an erratum's corrected exponent is not the paper's (seed 003's u^(1/v))
        pred, what = float(claim.params["predicted"]), "slope"
        source = {"paper": "paper", "erratum": "the erratum", "spec": "the spec", "ambiguity": "the reading",
                  "control": "the control"}.get(claim.category, claim.category)
    else:
        # proportional to a factor F that is no power law: ln(y / F) has slope 0, and the fit's
        # lack-of-fit test asks whether y / F is constant within the noise
        name, f = factor
        samples = [np.asarray(s, dtype=float) / f(x) for x, s in zip(kept_x, samples)]
        local = float(np.polyfit(np.log(kept_x), np.log([f(x) for x in kept_x]), 1)[0])
        pred, what = 0.0, f"slope of ln(y / {name})"
        source = f"proportional to {name}; its local slope here {local:.3g}"
    fit = power_law(kept_x, samples, level=0.99)
    d = fit.diagnostics
    statistic = (f"{what} {fit.slope:.3g} over {', '.join(f'{x:g}' for x in kept_x)}{in_range}"
                 f"; R^2 = {fit.r_squared:.4f}"
                 + (f"; lack of fit chi2 = {d['lack_of_fit_chi2']:.3g} on {d['df']} df (p = {d['lack_of_fit_p']:.2g})"
                    if d["df"] > 0 and math.isfinite(d["lack_of_fit_chi2"]) else "")
                 + (f"; no spread at {', '.join(f'{x:g}' for x in d['zero_variance'])}: OLS on the residual scatter"
                    if d["zero_variance"] else "")
                 + (f"; left out: {', '.join(excluded)}" if excluded else "")
                 + (f"; outside the limit's range: {', '.join(f'{x:g}' for x in outside)}" if outside else "")
                 + f"; predicted {pred:.3g} ({source})")
    est, rejected = slope_estimate(fit), ""
    if d["degenerate"] and math.isfinite(d.get("lack_of_fit_p", math.nan)) and not d["zero_variance"]:
        # the claimed form fails its lack-of-fit test: the slope's interval carries the misfit (the
        # standard error scaled by the Birge ratio, t on the fit's residual degrees of freedom); outside
        # the band, the claimed form is rejected
        est = Estimate(est.value, est.se * math.sqrt(max(1.0, d["birge_ratio"])), float(d["df"]), est.reps,
                       method="slope with its standard error widened by the misfit", scales_with_reps=False)
        rejected = (f"power law lack of fit chi2 = {d['lack_of_fit_chi2']:.3g} on {d['df']} df, "
                    f"p = {d['lack_of_fit_p']:.2g}")
    check = Check(est, pred - tol, pred + tol, what, degenerate="" if rejected else d["degenerate"],
                  form_rejected=rejected, band_source=claim.margin)
    return Outcome(statistic, comparisons=(check,), **size)


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
def _decade_slopes(result, t: int, scale: str = "log") -> tuple[np.ndarray, np.ndarray]:
    """Per-repetition slopes of R (``scale = "loglog"``: of ln R) against ln t on [t/100, t/10]
    and [t/10, t]."""
    cps = np.asarray(result.checkpoints, dtype=float)
    out = []
    for lo, hi in ((t / 100, t / 10), (t / 10, t)):
        inside = (cps >= lo) & (cps <= hi)
        if inside.sum() < 3:
            raise NotChecked(f"fewer than 3 checkpoints in [{lo:g}, {hi:g}]")
        x = np.log(cps[inside])
        xc = x - x.mean()
        y = result.regret[:, inside]
        if scale == "loglog":
            y = np.log(np.maximum(y, 1e-9))
        out.append((y - y.mean(axis=1, keepdims=True)) @ xc / float(xc @ xc))
    return out[0], out[1]


#: what "flattens" means (``scale``): the regret's slope against ln t stops growing (logarithmic
#: growth), or its curve on log-log axes bends over (its local exponent falls)
FLATTENING = {"log": "slope of R against ln t on [T/10, T] over that on [T/100, T/10]",
              "loglog": "local exponent d ln R / d ln t on [T/10, T] minus that on [T/100, T/10]"}


@claim_test("flattening", keys=("runs",), optional=("experiment", "tolerance", "scale", RANGE),
            choices={"scale": tuple(FLATTENING)},
            quantity=lambda c: FLATTENING[c.get("scale", "log")],
            expected=lambda c: (f"<= {1 + c.get('tolerance', 0.2):g} for every run (logarithmic growth)"
                                if c.get("scale", "log") == "log" else
                                f"< {c.get('tolerance', 0.0):g} for every run (the log-log curve bends over)"),
            method=lambda c: ("mean over repetitions of late - (1 + tol) early slope, per run"
                              if c.get("scale", "log") == "log" else
                              "mean over repetitions of late - early local exponent, per run"))
def flattening(claim: Claim, ev: Evidence) -> Outcome:
    from verify.inference import mean_estimate
    results = ev.results(claim)
    _need_reps(results)
    names = _names(claim)
    scale = claim.get("scale", "log")
    tol = float(claim.get("tolerance", 0.2 if scale == "log" else 0.0))

    def at(i: int, t: int) -> Check:
        name, r = names[i], results[i]
        early, late = _decade_slopes(r, t, scale)
        why = round_robin([r], t, [name], ev)
        if scale == "loglog":
            return Check(mean_estimate(late - early), high=tol, label=f"{name}: late - early local exponent",
                         unobservable=why)
        ratio = float(late.mean() / early.mean()) if early.mean() > 0 else math.inf
        if why is None:
            h = learning_horizon(r)
            if h is not None and t < h:
                why = Unobservable(f"{name} still accelerating at T = {fmt_t(t)} (late/early slope {ratio:.2f}) "
                                   "before its bound forces learning", h)
        return Check(mean_estimate(late - (1 + tol) * early), high=0.0, label=f"{name}: late - {1 + tol:g} x early "
                     "slope", unobservable=why)
    t, comps = _at_horizon(claim, results, at, range(len(results)))
    shown = []
    for name, r in zip(names, results):
        early, late = _decade_slopes(r, t, scale)
        shown.append(f"{name}: {float(late.mean() / early.mean()) if early.mean() > 0 else math.inf:.2f}"
                     if scale == "log" else f"{name}: {float(early.mean()):.3f} -> {float(late.mean()):.3f}")
    what = "late/early slope ratio" if scale == "log" else "local exponent, previous decade -> last decade"
    return Outcome(f"{what} at T = {fmt_t(t)}: " + "; ".join(shown), comparisons=comps, horizon=t,
                   **provenance_of(results))


# ------------------------------------------------------------------ argmin
@claim_test("argmin", keys=("runs", "best"), optional=("experiment", "worst", "method", RANGE),
            choices={"method": (WELCH, MANN_WHITNEY)},
            quantity=lambda c: "pseudo-regret R(T) per repetition",
            expected=lambda c: f"lowest: {run_name(c.params['best'])}"
                               + (f"; highest: {run_name(c.params['worst'])}" if "worst" in c.params else ""),
            method=lambda c: f"{c.get('method', 'welch')} difference against every other run, family-wise")
def argmin(claim: Claim, ev: Evidence) -> Outcome:
    results = ev.results(claim)
    _need_reps(results)
    names = _names(claim)
    by_name = dict(zip(names, results))
    method = claim.get("method", "welch")
    pairs = []
    for role, ref, alt in (("best", claim.params["best"], "less"), ("worst", claim.params.get("worst"), "greater")):
        if ref is None:
            continue
        key = run_name(ref)
        if key not in by_name:
            raise NotChecked(f"{role} run {key!r} is not among the claim's runs")
        pairs += [(key, other, alt) for other in names if other != key]

    def at(pair, t: int):
        key, other, alt = pair
        runs = [by_name[key], by_name[other]]
        why, fixed = round_robin(runs, t, [key, other], ev), fixed_schedule(runs, t)
        a, b = (r.regret_at(t) for r in runs)
        if alt == "less":
            return order_check(a, b, f"{key} < {other}", why, method=method, fixed=fixed, paired=paired(runs))
        return order_check(b, a, f"{key} > {other}", why, method=method, fixed=fixed, paired=paired(runs))
    t, comps = _at_horizon(claim, results, at, pairs)
    statistic = "; ".join(f"{n}: {_mean_se(r.regret_at(t))}" for n, r in by_name.items())
    return Outcome(statistic, comparisons=comps, horizon=t, **provenance_of(results))


# ------------------------------------------------------------------ same law
def ks_power(a, b, shift: float) -> Callable[[float, int], float]:
    """A lower bound on the power of the two-sample Kolmogorov-Smirnov test against a location
    shift ``shift`` of the pooled, centred law of (a, b), as a function of (level, reps per
    sample): D, the shift's sup-distance between the two CDFs, against the test's asymptotic
    critical value, with the Dvoretzky-Kiefer-Wolfowitz bound on both empirical CDFs."""
    pooled = np.sort(np.concatenate([np.asarray(a, float) - np.mean(a), np.asarray(b, float) - np.mean(b)]))
    grid = np.concatenate([pooled, pooled + shift])

    def cdf(x):
        return np.searchsorted(pooled, x, side="right") / pooled.size
    d = float(np.max(np.abs(cdf(grid) - cdf(grid - shift)))) if shift > 0 else 0.0

    def power(level: float, reps: int) -> float:
        if reps < 2 or d <= 0:
            return 0.0
        crit = math.sqrt(-math.log(level / 2) / 2) * math.sqrt(2.0 / reps)
        if d <= crit:
            return 0.0
        gap = (d - crit) / 2
        return max(0.0, 1.0 - 4.0 * math.exp(-2.0 * reps * gap * gap))
    return power


@claim_test("same_law", keys=("runs",), optional=("experiment", "departure"),
            quantity=lambda c: "law of R(T) over repetitions",
            expected=lambda c: " = ".join(_names(c)),
            method=lambda c: ("two-sample Kolmogorov-Smirnov (rejection contradicts; non-rejection counts with "
                              f"power against a shift of {c.get('departure', '?')} x the mean)"))
def same_law(claim: Claim, ev: Evidence) -> Outcome:
    results = ev.results(claim)
    if len(results) != 2:
        raise NotChecked("same_law compares exactly two runs")
    _need_reps(results)
    names = _names(claim)
    t = common_checkpoint(results, claim.horizon)
    a, b = (r.regret_at(t) for r in results)
    test = stats.ks_2samp(a, b)
    departure = claim.get("departure")
    power, text = None, ""
    if departure is not None:
        shift = float(departure) * abs(0.5 * (a.mean() + b.mean()))
        power, text = ks_power(a, b, shift), f"a shift of {float(departure):g} x the mean ({shift:.4g})"
    hyp = Hypothesis(float(test.pvalue), False, f"KS D = {test.statistic:.3g}",
                     round_robin(results, t, names, ev), power=power, departure=text, reps=min(a.size, b.size))
    return Outcome(f"{names[0]}: {_mean_se(a)}; {names[1]}: {_mean_se(b)}; KS D = {test.statistic:.3g}",
                   comparisons=(hyp,), horizon=t, **provenance_of(results))


# ------------------------------------------------------------------ bound
@claim_test("bound", keys=("bound",), optional=("experiments",),
            quantity=lambda c: "mean regret at every checkpoint and log-regret slope of every run it covers",
            expected=lambda c: "within the bound",
            method=lambda c: "mean regret (t, over repetitions) and slope interval against the bound, per run")
def bound(claim: Claim, ev: Evidence) -> Outcome:
    from verify import bounds
    from verify import regret_fits as rf
    from verify.bounds.registry import ASYMPTOTIC, UPPER
    from verify.inference import Estimate
    key = claim.require("bound")
    b = bounds.get(key)
    upper = b.side == UPPER
    names = claim.get("experiments") or list(ev.runs)
    comps, vacuous, reasons, used, shown = [], [], set(), [], []
    for name in names:
        run = ev.runs.get(name)
        if run is None:
            continue
        for label, res in run.results.items():
            if not b.applies_to(res.policy, res.label):
                continue
            used.append(res)
            where = f"{name}: {label}"
            if b.value is not None and res.reps >= 2:
                rows, reason = rf.bound_points(res, b)
                live = [r for r in rows if not r[2]]
                if reason:
                    reasons.add(reason)
                elif rows and not live:
                    vacuous.append(res)
                elif live:
                    # the checkpoint nearest to the bound in standard errors decides both ways: every
                    # checkpoint must clear the bound (no correction needed), one beyond it contradicts
                    # (searched over len(live) checkpoints)
                    margin = [_margin(v - m if upper else m - v, s) for t, v, _, m, s in live]
                    t, v, _, m, se = live[int(np.argmin(margin))]
                    est = Estimate(m, se, float(res.reps - 1), int(res.reps), method="mean over repetitions")
                    comps.append(Check(est, -math.inf if upper else v, v if upper else math.inf,
                                       f"{where}: R({fmt_t(t)}) vs {v:.4g}", looks=len(live)))
                    shown.append(f"{label}: {fmt(m)} vs {fmt(v)} at T = {fmt_t(t)}")
            if b.slope is not None:
                fit = late_log_fit(res, bounds=[key])
                if not fit.applicable:
                    reasons.add("log-regret slope not applicable (window not logarithmic) on some runs")
                    continue
                for v in fit.checks:
                    if v.status == rf.NOT_APPLICABLE:
                        reasons.add(v.reason)
                        continue
                    slope = v.evidence["bound_slope"]
                    est = Estimate(fit.estimate, fit.details["se"], float(res.reps - 1), int(res.reps),
                                   method="log-regret slope")
                    # a fit window that begins inside a data-independent phase (a start phase, a first
                    # epoch) measures that phase, not the regime an asymptotic coefficient describes, and
                    # a run whose repetitions all agree has no spread to decide with: neither decides
                    comps.append(Check(est, -math.inf if upper else slope, slope if upper else math.inf,
                                       f"{where}: ln t coefficient vs {slope:.4g}",
                                       unobservable=_window_in_phase(res, fit, label),
                                       degenerate="" if fit.details["se"] > 0 else
                                       "zero spread: every repetition has the same regret (a data-independent "
                                       "schedule), so its slope has no standard error",
                                       can_contradict=upper or b.form != ASYMPTOTIC))
    if not used:
        raise NotChecked(f"no run of this report is covered by {key}")
    size = dict(horizon=int(max(r.horizon for r in used)), **provenance_of(used))
    statistic = (f"{len(comps)} checks on {len(used)} runs" + (f"; {len(vacuous)} vacuous" if vacuous else "")
                 + (f"; nearest: {'; '.join(shown[:3])}" if shown else ""))
    if not comps:
        if vacuous:
            horizon = min((h for r in vacuous if (h := _nonvacuous_horizon(b, r)) is not None), default=None)
            what = "bound >= T x max gap" if upper else "bound <= the sum of the gaps"
            return Outcome(statistic, Verdict.UNOBSERVABLE,
                           unobservable=Unobservable(f"every check is vacuous ({what})", horizon), **size)
        raise NotChecked("not applicable: " + "; ".join(sorted(reasons)))
    return Outcome(statistic, comparisons=comps, **size)


def _window_in_phase(result, fit, label: str) -> Unobservable | None:
    """An :class:`Unobservable` if the slope fit's window begins while ``result`` is still in a
    data-independent phase (its schedule: a start phase, a first epoch): the window must start after
    it, so the horizon that allows it is the phase's end times the window's span."""
    from ..schedules import schedule_limit
    lo, hi = (float(x) for x in fit.details.get("window", (result.checkpoints[0], result.checkpoints[-1])))
    limit = schedule_limit(result, int(lo))
    if limit is None:
        return None
    return Unobservable(f"the fit window [{fmt_t(lo)}, {fmt_t(hi)}] of {label} begins inside its data-independent "
                        f"phase ({limit.reason})", None if limit.horizon is None else limit.horizon * hi / lo)


def _margin(room: float, se: float) -> float:
    return room / se if se > 0 else math.copysign(math.inf, room)


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


def as_estimate(got):
    """A measurement as an :class:`~verify.inference.Estimate`: a number is exact; an Interval
    with a standard error is random (its interval is redrawn at the family's level)."""
    from verify.inference import Estimate, Interval
    if isinstance(got, Estimate):
        return got
    if isinstance(got, Interval):
        if not math.isfinite(got.se):
            raise TypeError("an Interval measurement needs its standard error (se) to be redrawn at the "
                            "report's family-wise level")
        return Estimate(got.estimate, got.se, method=got.method)
    return Estimate.exact_value(float(got))


def value_band(claim: Claim) -> tuple[float, float]:
    if "expected" in claim.params:
        target = float(claim.params["expected"])
        tol = float(claim.get("tolerance", rounding(target)))
        return target - tol, target + tol
    if "at_least" in claim.params:
        return float(claim.params["at_least"]), math.inf
    if "at_most" in claim.params:
        return -math.inf, float(claim.params["at_most"])
    raise NotChecked("a value claim needs expected, at_least or at_most")


@claim_test("value", keys=("measure",), optional=("expected", "tolerance", "at_least", "at_most"),
            quantity=lambda c: c.params["measure"].replace("_", " "),
            expected=_describe_value,
            method=lambda c: "computed value (exact), or an estimate's interval at the family's level")
def value(claim: Claim, ev: Evidence) -> Outcome:
    got = ev.measurement(claim)
    text = ""
    if isinstance(got, tuple):
        got, text = got
    est = as_estimate(got)
    statistic = str(got if not hasattr(got, "low") else est) + (f"; {text}" if text else "")
    low, high = value_band(claim)
    return Outcome(statistic, comparisons=(Check(est, low, high, claim.params["measure"].replace("_", " ")),))


@claim_test("computed", keys=("measure",), optional=("args",),
            quantity=lambda c: c.params["measure"].replace("_", " "),
            expected=lambda c: (c.get("args") or {}).get("expected", "as the claim states"),
            method=lambda c: "the measurement's own test (see measured)")
def computed(claim: Claim, ev: Evidence) -> Outcome:
    out = ev.measurement(claim)
    if not isinstance(out, Outcome):
        raise TypeError(f"measurement {claim.params['measure']!r} must return an Outcome for claim {claim.id!r}")
    return out


__all__ = ["FACTORS", "register_factor", "rounding", "late_exponents", "PER_REP", "order_check", "ratio_estimate",
           "ks_power",
           "as_estimate", "value_band"]


@claim_test("not_checked", keys=("reason",), method=lambda c: "none")
def not_checked(claim: Claim, ev: Evidence) -> Outcome:
    return Outcome("", Verdict.NOT_CHECKED, reason=str(claim.params["reason"]))

