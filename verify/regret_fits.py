"""Fits of regret curves, with honest uncertainty, and verdicts against the bounds registry.

Every fit returns a :class:`Fit`: the estimate, its confidence interval, and
``checks``: one :class:`Verdict` per bound (or prediction) it was compared
with.  Statuses:

* ``within`` / ``outside``      a number against an upper/lower bound (slope or value);
* ``consistent`` / ``inconsistent``  an exponent against an order-only bound or a scaling law;
* ``inconclusive``              the interval straddles the bound;
* ``not applicable``            the fit or the bound does not apply, with the reason
  (too few checkpoints or repetitions, a window that is not logarithmic, a
  bound evaluated outside its hypotheses such as eps > 1).  Never a silent pass.

Uncertainty respects the correlation along a regret curve: a curve's points
share its repetitions, so an OLS standard error over checkpoints would be far too
small.  Slopes along a curve are statsmodels OLS fits of the stacked repetitions
with covariance clustered by repetition (``ci="t"``, default; the slope is the mean
of the per-repetition slopes) or a bootstrap over repetitions (``ci="bootstrap"``).
Exponents across separate runs (eps or gap sweeps) are weighted least-squares
fits of the log means (:func:`verify.inference.power_law`: interval, R^2 and a
lack-of-fit test); ratios and R^2 intervals come from the project's one bootstrap,
:func:`verify.inference.bootstrap_ci`.

Inputs are ``SimulationResult`` objects (``checkpoints``, ``regret[R, C]``,
``means``, ``params``, ``info``) or plain arrays ``(checkpoints, regret)``.

Main entry points: :func:`log_regret_fit` (R(t) = a + C ln t, spec 000/001 F1),
:func:`curve_exponent` (log-log exponent along a curve),
:func:`power_law_fit` (exponent across runs), :func:`privacy_scaling` (C vs
eps, F3), :func:`gap_scaling` (C vs Delta, F4), :func:`ratio_at` (privacy-cost ratios, F2), :func:`check_values`
(explicit bounds at the horizon or at every checkpoint).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import statsmodels.api as sm
from scipy import stats

from dpbench.validation import InputError, check_int, check_real

from . import bounds as _bounds
from .bounds.registry import ASYMPTOTIC, EXPLICIT, UPPER, Bound, Exponent
from .inference import bootstrap_ci, curve_slope, mean_ratio, power_law

WITHIN, OUTSIDE, INCONCLUSIVE = "within", "outside", "inconclusive"
CONSISTENT, INCONSISTENT = "consistent", "inconsistent"
NOT_APPLICABLE = "not applicable"


@dataclass
class Verdict:
    """The verdict of a fit or a bound check: ``status`` and the ``reason`` for it."""

    status: str
    reason: str = ""
    bound: str | None = None                 # registry key, or a label of the prediction
    evidence: dict = field(default_factory=dict)

    def __str__(self):
        """``bound: status (reason)``."""
        head = f"{self.bound}: " if self.bound else ""
        return f"{head}{self.status}" + (f" ({self.reason})" if self.reason else "")


@dataclass
class Fit:
    """A fitted regret quantity: estimate, interval, verdict and the details of the fit."""

    kind: str
    estimate: float | None
    ci: tuple[float, float] | None
    level: float
    n_reps: int
    n_points: int
    verdict: Verdict                        # is the fit itself applicable?
    checks: list[Verdict] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    @property
    def applicable(self) -> bool:
        """Whether the fit applies to the run (its verdict is not NOT_APPLICABLE)."""
        return self.verdict.status != NOT_APPLICABLE

    @property
    def bound_verdict(self) -> Verdict:
        """One verdict over every applicable check: outside/inconsistent wins, then inconclusive."""
        if not self.applicable:
            return self.verdict
        live = [c for c in self.checks if c.status != NOT_APPLICABLE]
        if not live:
            return Verdict(NOT_APPLICABLE, "no applicable bound or prediction")
        for bad in (OUTSIDE, INCONSISTENT, INCONCLUSIVE):
            hits = [c for c in live if c.status == bad]
            if hits:
                return Verdict(bad, "; ".join(str(c) for c in hits))
        return Verdict(live[0].status if len({c.status for c in live}) == 1 else WITHIN,
                       "; ".join(str(c) for c in live))

    def __str__(self):
        """Describe the estimate with its interval and verdict, in one line."""
        if not self.applicable:
            return f"{self.kind}: not applicable ({self.verdict.reason})"
        lo, hi = self.ci
        return f"{self.kind}: {self.estimate:.4g} [{lo:.4g}, {hi:.4g}] ({self.level:.0%}, R={self.n_reps})"


def _not_applicable(kind, reason, level=0.95, n_reps=0, n_points=0, **details) -> Fit:
    return Fit(kind, None, None, level, n_reps, n_points, Verdict(NOT_APPLICABLE, reason), details=details)


# ------------------------------------------------------------------ inputs
@dataclass
class Curves:
    """Per-repetition regret curves: ``regret[r, c]`` after ``checkpoints[c]`` pulls."""

    checkpoints: np.ndarray
    regret: np.ndarray
    result: object = None            # the SimulationResult, when there is one

    @property
    def reps(self) -> int:
        """The number of repetitions."""
        return int(self.regret.shape[0])


def as_curves(obj) -> Curves:
    """Return the curves of a ``SimulationResult``, a ``Curves`` or ``(checkpoints, regret)`` arrays.

    Parameters
    ----------
    obj : SimulationResult, Curves or (array_like, array_like)
        Checkpoints (T,) and regret (repetitions, T).

    Returns
    -------
    Curves
    """
    if isinstance(obj, Curves):
        return obj
    if hasattr(obj, "checkpoints") and hasattr(obj, "regret"):
        return Curves(np.asarray(obj.checkpoints, dtype=float), np.asarray(obj.regret, dtype=float), obj)
    try:
        checkpoints, regret = obj
    except (TypeError, ValueError):
        raise InputError("expected a SimulationResult or a pair (checkpoints, regret[R, C])") from None
    checkpoints = np.asarray(checkpoints, dtype=float)
    regret = np.atleast_2d(np.asarray(regret, dtype=float))
    if checkpoints.ndim != 1 or regret.shape[1] != checkpoints.size:
        raise InputError(f"regret must have shape (reps, {checkpoints.size}) to match the checkpoints "
                         f"(got {regret.shape})")
    if checkpoints.size and (np.any(np.diff(checkpoints) <= 0) or checkpoints[0] < 1):
        raise InputError("checkpoints must be increasing pull counts >= 1")
    if not np.all(np.isfinite(regret)):
        raise InputError("regret contains non-finite values")
    return Curves(checkpoints, regret)


def _check_level(level):
    return check_real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)


def _window(curves: Curves, window) -> tuple[float, float]:
    horizon = float(curves.checkpoints[-1])
    if window is None:
        return horizon / 100.0, horizon
    lo, hi = (float(w) for w in window)
    if not (0 < lo < hi):
        raise InputError(f"window must be (lo, hi) with 0 < lo < hi (got {window!r})")
    return lo, hi


def _slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """OLS slope of every row of y (R, n) on x (n,)."""
    xc = x - x.mean()
    return (y - y.mean(axis=1, keepdims=True)) @ xc / float(xc @ xc)


def _interval(samples: np.ndarray, level: float, method: str, n_boot: int, seed: int):
    """Return the mean of per-repetition estimates and its interval.

    Mean of independent per-repetition estimates and its interval (Student t, or the
    project's bootstrap :func:`verify.inference.bootstrap_ci`).
    """
    est = float(samples.mean())
    if method == "t":
        se = float(samples.std(ddof=1) / math.sqrt(samples.size))
        half = float(stats.t.ppf(0.5 + level / 2, samples.size - 1)) * se
        return est, (est - half, est + half), se
    if method == "bootstrap":
        ci = bootstrap_ci((samples,), _mean, level=level, n_resamples=n_boot, seed=seed)
        return est, (ci.low, ci.high), ci.se
    raise InputError(f"ci must be 't' or 'bootstrap' (got {method!r})")


def _mean(x, axis=-1):
    return np.mean(x, axis=axis)


# --------------------------------------------------------- log-regret fit
def log_regret_fit(result, *, window=None, bounds=None, ctx: Mapping | None = None, min_points: int = 5,
                   min_reps: int = 3, agreement: float = 0.2, level: float = 0.95, ci: str = "t",
                   n_boot: int = 2000, seed: int = 0) -> Fit:
    """Fit R(t) = a + C ln t on a late window (default [T/100, T]).

    The window is accepted as logarithmic only if the local slopes on its lower
    and upper halves (in ln t) agree within ``agreement`` (relative, spec F1's
    20%); otherwise the fit is *not applicable*.  C's interval comes from
    per-repetition fits.  ``bounds`` (registry keys or :class:`Bound` objects;
    default: every bound registered for the result's policy) are compared with C:
    an upper bound's ln T coefficient must not lie below the interval, a lower
    bound's not above it.

    Parameters
    ----------
    result : SimulationResult, Curves or (checkpoints, regret)
        The run: regret of shape (repetitions, checkpoints).
    window : (float, float), optional
        The t range of the fit (default [T/100, T]).
    bounds : sequence, optional
        Registry keys or :class:`Bound` objects (default: those of the result's policy;
        ``()`` for none).
    ctx : mapping, optional
        Values the bounds need beyond the result's (gaps, eps, ...).
    min_points, min_reps : int
        Fewest checkpoints in the window and repetitions for an applicable fit.
    agreement : float
        Largest relative difference of the two halves' local slopes.
    level : float
        Confidence level of C's interval.
    ci : {"t", "bootstrap"}
        Student t over the per-repetition fits, or a percentile bootstrap of them.
    n_boot, seed : int
        Bootstrap resamples and their seed.

    Returns
    -------
    Fit
        ``estimate`` C, ``ci``, ``verdict`` (is the window logarithmic?) and ``checks``
        (one :class:`Verdict` per bound).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.unique(np.geomspace(10, 100_000, 60).astype(int))
    >>> regret = 40 * np.log(t) + np.random.default_rng(0).normal(0, 2, (20, t.size))
    >>> print(log_regret_fit((t, regret), bounds=()))
    log-regret slope C: 39.89 [39.76, 40.02] (95%, R=20)
    """
    level = _check_level(level)
    min_points = check_int("min_points", min_points, low=3)
    min_reps = check_int("min_reps", min_reps, low=2)
    agreement = check_real("agreement", agreement, low=0.0, low_open=True)
    curves = as_curves(result)
    lo, hi = _window(curves, window)
    inside = (curves.checkpoints >= lo) & (curves.checkpoints <= hi)
    n_points, reps = int(inside.sum()), curves.reps
    kind = "log-regret slope C"
    if reps < min_reps:
        return _not_applicable(kind, f"{reps} repetition(s); an interval needs at least {min_reps}",
                               level, reps, n_points)
    if n_points < min_points:
        return _not_applicable(kind, f"{n_points} checkpoint(s) in the window [{lo:g}, {hi:g}]; "
                                     f"at least {min_points} needed", level, reps, n_points)
    x = np.log(curves.checkpoints[inside])
    y = curves.regret[:, inside]
    per_rep = _slopes(x, y)
    ols = curve_slope(x, y, level=level)
    if ci == "t":
        est, interval, se = ols.slope, ols.ci, ols.se
    else:
        est, interval, se = _interval(per_rep, level, ci, n_boot, seed)
    # local slopes on the two halves of the window (in ln t)
    mid = 0.5 * (x[0] + x[-1])
    halves = [x <= mid, x >= mid]
    local = []
    for h in halves:
        if h.sum() < 3:
            return _not_applicable(kind, f"too few checkpoints ({int(h.sum())}) in half of the window to test "
                                         "that it is logarithmic", level, reps, n_points)
        local.append(float(_slopes(x[h], y[:, h]).mean()))
    s1, s2 = local
    scale = max(abs(s1), abs(s2))
    rel = abs(s2 - s1) / scale if scale > 0 else 0.0
    details = {"window": (lo, hi), "intercept": ols.intercept, "r_squared": ols.r_squared, "ols": ols,
               "local_slopes": (s1, s2), "local_windows": ((float(np.exp(x[0])), float(np.exp(mid))),
                                                           (float(np.exp(mid)), float(np.exp(x[-1])))),
               "relative_difference": rel, "se": se, "per_rep": per_rep}
    if rel > agreement:
        return _not_applicable(
            kind, f"window [{lo:g}, {hi:g}] is not logarithmic: local slopes {s1:.4g} on the lower half and "
                  f"{s2:.4g} on the upper half differ by {rel:.1%} (> {agreement:.0%})",
            level, reps, n_points, **details)
    fit = Fit(kind, est, interval, level, reps, n_points, Verdict(WITHIN, "logarithmic window"),
              details=details)
    fit.checks = _slope_checks(fit, curves, bounds, ctx)
    return fit


def _resolve_bounds(bounds, curves: Curves, ctx) -> tuple[list[Bound], dict]:
    result = curves.result
    context = _bounds.context(result, **(ctx or {})) if result is not None else _bounds.context(None, **(ctx or {}))
    if bounds is None:
        bounds = _bounds.bounds_for(result.policy) if result is not None else []
    out = []
    for b in bounds:
        out.append(_bounds.get(b) if isinstance(b, str) else b)
    return out, context


def _slope_checks(fit: Fit, curves: Curves, bounds, ctx) -> list[Verdict]:
    chosen, context = _resolve_bounds(bounds, curves, ctx)
    checks = []
    lo, hi = fit.ci
    for b in chosen:
        if b.slope is None or (b.form == EXPLICIT and not b.anytime):
            # an explicit bound of an algorithm that uses T bounds R(T) at the horizon only (the
            # value check): a run's ln t slope below T is no consequence of it
            continue
        ev = b.evaluate(context)
        if not ev.applicable:
            checks.append(Verdict(NOT_APPLICABLE, ev.reason, b.key))
            continue
        evidence = {"bound_slope": ev.slope, "estimate": fit.estimate, "ci": fit.ci, "side": b.side,
                    "form": b.form}
        if b.side == UPPER:
            status = WITHIN if hi <= ev.slope else OUTSIDE if lo > ev.slope else INCONCLUSIVE
            text = (f"C = {fit.estimate:.4g} [{lo:.4g}, {hi:.4g}] vs upper-bound coefficient {ev.slope:.4g}")
        else:
            status = WITHIN if lo >= ev.slope else OUTSIDE if hi < ev.slope else INCONCLUSIVE
            if status == OUTSIDE and b.form == ASYMPTOTIC:
                status = INCONCLUSIVE          # an asymptotic lower bound says nothing of a finite-T slope
            text = (f"C = {fit.estimate:.4g} [{lo:.4g}, {hi:.4g}] vs lower-bound coefficient {ev.slope:.4g}"
                    + (" (asymptotic bound, finite-T slope)" if b.form == ASYMPTOTIC else ""))
        checks.append(Verdict(status, text, b.key, evidence))
    return checks


# ---------------------------------------------------------- explicit values
def check_values(result, bounds=None, *, ctx: Mapping | None = None, z: float = 3.0) -> list[Verdict]:
    """Check mean regret against explicit bounds.

    Mean regret against explicit bounds: at every checkpoint for algorithms that do not
    know T (``anytime`` bounds), else at the horizon.

    ``within``: mean + z SE <= an upper bound (>= a lower bound) everywhere checked;
    ``outside``: mean - z SE > the upper bound (mean + z SE < the lower bound) somewhere;
    ``inconclusive`` otherwise.  A vacuous upper bound (>= T x max gap) is reported as such.

    Parameters
    ----------
    result : SimulationResult
        The run.
    bounds : sequence, optional
        Registry keys or :class:`Bound` objects (default: those of the result's policy).
    ctx : mapping, optional
        Values the bounds need beyond the result's.
    z : float
        Standard errors of margin.

    Returns
    -------
    list of Verdict
        One per explicit bound.
    """
    curves = as_curves(result)
    chosen, context = _resolve_bounds(bounds, curves, ctx)
    reps = curves.reps
    out = []
    for b in chosen:
        if b.value is None:
            continue
        if reps < 2:
            out.append(Verdict(NOT_APPLICABLE, f"{reps} repetition(s): no standard error", b.key))
            continue
        rows, reason = bound_points(curves, b, context)
        if reason or not rows:
            out.append(Verdict(NOT_APPLICABLE, reason or "no checkpoint to check", b.key))
            continue
        t, val, vac, m, s = (np.array(col) for col in zip(*rows))
        if b.side == UPPER:
            bad, good = m - z * s > val, m + z * s <= val
        else:
            bad, good = m + z * s < val, m - z * s >= val
        last = -1
        evidence = {"horizon": t[last], "bound": val[last], "mean": m[last], "se": s[last],
                    "vacuous_fraction": float(vac.mean()), "checked": int(t.size)}
        where = "every checkpoint" if b.anytime else "the horizon"
        vac_note = (f"; vacuous ({'>= T x max gap' if b.side == UPPER else '<= the sum of the gaps'}) at "
                    f"{int(vac.sum())}/{t.size} checkpoints" if vac.any() else "")
        if bad.any():
            i = int(np.argmax(bad))
            out.append(Verdict(OUTSIDE, f"at t = {t[i]:g}: mean {m[i]:.4g} +- {z:g} SE {s[i]:.3g} "
                                        f"vs {b.side} bound {val[i]:.4g}", b.key, evidence))
        elif good.all():
            out.append(Verdict(WITHIN, f"{where} ({t.size}); at T = {t[last]:g}: mean {m[last]:.4g} "
                                       f"vs bound {val[last]:.4g}{vac_note}", b.key, evidence))
        else:
            out.append(Verdict(INCONCLUSIVE, f"the {z:g}-SE interval straddles the bound at some checkpoint"
                                             f"{vac_note}", b.key, evidence))
    return out


def bound_points(result, bound: Bound, ctx: Mapping | None = None) -> tuple[list[tuple], str]:
    """Return the checkpoints at which explicit bound ``bound`` bounds the run's mean regret.

    Every checkpoint for an ``anytime`` bound, else the horizon (t >= max(2, K)): rows (t, bound
    value, vacuous, mean, standard error), or ([], why the bound does not apply).
    """
    curves = as_curves(result)
    context = ctx if ctx is not None else _resolve_bounds([bound], curves, None)[1]
    reps = curves.reps
    mean = curves.regret.mean(axis=0)
    se = curves.regret.std(axis=0, ddof=1) / math.sqrt(reps) if reps > 1 else np.full_like(mean, np.nan)
    idx = np.arange(curves.checkpoints.size) if bound.anytime else np.array([curves.checkpoints.size - 1])
    idx = idx[curves.checkpoints[idx] >= max(2, context.get("K", 2))]
    rows = []
    for i in idx:
        ev = bound.evaluate(context, T=float(curves.checkpoints[i]))
        if not ev.applicable:
            return [], ev.reason
        rows.append((float(curves.checkpoints[i]), ev.value, ev.vacuous, float(mean[i]), float(se[i])))
    return rows, ""


# ----------------------------------------------------------- exponents
def _exponent_check(est, ci, expected: Exponent | float, side: str | None, tolerance: float,
                    label: str) -> Verdict:
    """Compare an exponent's interval with a prediction or a one-sided order bound.

    ``side`` None: the band value +- tolerance must contain the whole interval (disjoint:
    inconsistent); a bound: the interval on the bound's side is consistent, wholly beyond it
    inconsistent; anything else is inconclusive.
    """
    lo, hi = ci
    if isinstance(expected, Exponent):
        value, limit = expected.value, expected.limit
    else:
        value, limit = float(expected), None
    evidence = {"estimate": est, "ci": ci, "expected": value, "tolerance": tolerance, "side": side}
    if side is None:                                            # a scaling law: the band must hold the CI
        band_lo, band_hi = value - tolerance, value + tolerance
        status = (CONSISTENT if band_lo <= lo and hi <= band_hi else
                  INCONSISTENT if hi < band_lo or lo > band_hi else INCONCLUSIVE)
        rel = {CONSISTENT: "inside", INCONSISTENT: "outside", INCONCLUSIVE: "straddles"}[status]
        return Verdict(status, f"exponent {est:.3g} [{lo:.3g}, {hi:.3g}] {rel} {value:.3g} +- {tolerance:g}",
                       label, evidence)
    grows = (limit == "infinity") == (side == UPPER)
    if grows:
        status = CONSISTENT if hi <= value + tolerance else INCONSISTENT if lo > value + tolerance else INCONCLUSIVE
    else:
        status = CONSISTENT if lo >= value - tolerance else INCONSISTENT if hi < value - tolerance else INCONCLUSIVE
    sign = "<=" if grows else ">="
    return Verdict(status,
                   f"exponent {est:.3g} [{lo:.3g}, {hi:.3g}]: {side} bound needs {sign} {value:.3g} "
                   f"(+- {tolerance:g}) as {getattr(expected, 'variable', 'x')} -> "
                   f"{'0' if limit == 'zero' else 'infinity'}", label, evidence)


def exponent_checks(fit: Fit, variable: str, *, bounds=(), ctx: Mapping | None = None,
                    predicted: float | None = None, tolerance: float = 0.1,
                    predicted_label: str = "prediction") -> list[Verdict]:
    """Compare a fitted exponent in ``variable`` with order-only bounds and/or a prediction.

    Parameters
    ----------
    fit : Fit
        A fitted exponent (:func:`curve_exponent`, :func:`power_law_fit`).
    variable : str
        The variable whose exponent the bounds give (e.g. "T", "eps").
    bounds : sequence
        Registry keys or :class:`Bound` objects.
    ctx : mapping, optional
        Values the bounds need.
    predicted : float, optional
        A predicted exponent, consistent if within ``tolerance`` of the interval.
    tolerance : float
        Absolute tolerance on the exponent.
    predicted_label : str
        Name of the prediction in the verdicts.

    Returns
    -------
    list of Verdict
        One per bound with an exponent in ``variable``, and one for ``predicted``.
    """
    if not fit.applicable:
        return []
    out = []
    if predicted is not None:
        out.append(_exponent_check(fit.estimate, fit.ci, predicted, None, tolerance, predicted_label))
    out += _bound_exponent_checks(fit, variable, bounds, ctx, tolerance)
    degenerate = fit.details.get("degenerate")
    if degenerate:                          # a fit failing its own lack-of-fit test decides nothing
        out = [Verdict(INCONCLUSIVE, f"{v.reason}; but {degenerate}", v.bound, v.evidence)
               if v.status in (CONSISTENT, INCONSISTENT) else v for v in out]
    return out


def _bound_exponent_checks(fit: Fit, variable: str, bounds, ctx, tolerance: float) -> list[Verdict]:
    out = []
    for b in bounds:
        b = _bounds.get(b) if isinstance(b, str) else b
        ev = b.evaluate(_bounds.context(None, **(ctx or {})))
        if not ev.applicable:
            out.append(Verdict(NOT_APPLICABLE, ev.reason, b.key))
            continue
        hits = [e for e in ev.exponents if e.variable == variable]
        if not hits:
            out.append(Verdict(NOT_APPLICABLE, f"{b.key} states no exponent in {variable}", b.key))
            continue
        for e in hits:
            v = _exponent_check(fit.estimate, fit.ci, e, b.side, tolerance, b.key)
            v.evidence["quantity"] = e.quantity
            out.append(v)
    return out


def curve_exponent(result, *, window=None, log_factor: float = 0.0, predicted: float | None = None,
                   bounds=(), ctx: Mapping | None = None, tolerance: float = 0.1, min_points: int = 5,
                   min_reps: int = 3, level: float = 0.95, ci: str = "t", n_boot: int = 2000,
                   seed: int = 0) -> Fit:
    """Log-log exponent of R(t) / (ln t)^log_factor against t on a window (default [T/100, T]), fitted per repetition.

    E.g. ``log_factor=0.5`` divides out the sqrt(log T) of a sqrt(T log T) law.  Compared with
    ``predicted`` and with the ``T`` exponents of ``bounds``.

    Parameters
    ----------
    result : SimulationResult, Curves or (checkpoints, regret)
        The run.
    window : (float, float), optional
        The t range (default [T/100, T]).
    log_factor : float
        Power of ln t divided out of R(t).
    predicted, bounds, ctx, tolerance
        As for :func:`exponent_checks`.
    min_points, min_reps, level, ci, n_boot, seed
        As for :func:`log_regret_fit`.

    Returns
    -------
    Fit
        The exponent, its interval and the checks.
    """
    level = _check_level(level)
    curves = as_curves(result)
    lo, hi = _window(curves, window)
    inside = (curves.checkpoints >= lo) & (curves.checkpoints <= hi) & (curves.checkpoints > 1)
    n_points, reps = int(inside.sum()), curves.reps
    kind = "log-log exponent in T"
    if reps < min_reps:
        return _not_applicable(kind, f"{reps} repetition(s); at least {min_reps} needed", level, reps, n_points)
    if n_points < min_points:
        return _not_applicable(kind, f"{n_points} checkpoint(s) in [{lo:g}, {hi:g}]; at least {min_points} needed",
                               level, reps, n_points)
    t = curves.checkpoints[inside]
    y = curves.regret[:, inside]
    if np.any(y <= 0):
        return _not_applicable(kind, "zero regret at a checkpoint of the window: no logarithm", level, reps, n_points)
    ly = np.log(y) - log_factor * np.log(np.log(t))
    per_rep = _slopes(np.log(t), ly)
    ols = curve_slope(np.log(t), ly, level=level)
    if ci == "t":
        est, interval, se = ols.slope, ols.ci, ols.se
    else:
        est, interval, se = _interval(per_rep, level, ci, n_boot, seed)
    fit = Fit(kind, est, interval, level, reps, n_points, Verdict(WITHIN, "fitted"),
              details={"window": (lo, hi), "log_factor": log_factor, "se": se, "per_rep": per_rep,
                       "r_squared": ols.r_squared, "ols": ols})
    fit.checks = exponent_checks(fit, "T", bounds=bounds, ctx=ctx, predicted=predicted, tolerance=tolerance)
    return fit


# ------------------------------------------------------- across-run fits
def power_law_fit(xs: Sequence[float], samples: Sequence, *, variable: str = "x", predicted: float | None = None,
                  bounds=(), ctx: Mapping | None = None, tolerance: float = 0.1, level: float = 0.95,
                  min_runs: int = 3, min_reps: int = 2, kind: str | None = None) -> Fit:
    """Exponent of y against x from separate runs: slope of ln(mean y) on ln x.

    ``samples[i]`` holds run i's independent per-repetition values of y (or is a
    ``SimulationResult``, whose final regrets are used).  Weighted least squares
    (:func:`verify.inference.power_law`): weights from each log mean's sampling
    variance, interval from the statsmodels results object (widened by the residual
    scatter when the power law does not fit within the noise), R^2 and the
    lack-of-fit test in ``details``.

    Parameters
    ----------
    xs : sequence of float
        The variable's value of each run (> 0).
    samples : sequence
        Per run, independent per-repetition values of y, or a ``SimulationResult``.
    variable : str
        Name of x (for the bounds' exponents and the text).
    predicted, bounds, ctx, tolerance
        As for :func:`exponent_checks`.
    level : float
        Confidence level.
    min_runs, min_reps : int
        Fewest runs and repetitions per run for an applicable fit.
    kind : str, optional
        The fit's name (default from ``variable``).

    Returns
    -------
    Fit
        The exponent, its interval, the checks and the fit's diagnostics in ``details``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> xs = [0.5, 1, 2, 4]
    >>> samples = [50 / x**2 * (1 + 0.05 * rng.standard_normal(20)) for x in xs]
    >>> print(power_law_fit(xs, samples, variable="eps", predicted=-2.0))
    exponent in eps: -1.988 [-2.002, -1.974] (95%, R=20)
    """
    level = _check_level(level)
    kind = kind or f"exponent in {variable}"
    xs = np.asarray(xs, dtype=float)
    ys = [np.asarray(s.final_regrets if hasattr(s, "final_regrets") else s, dtype=float).ravel() for s in samples]
    if xs.ndim != 1 or xs.size != len(ys):
        raise InputError(f"xs and samples must have the same length (got {xs.size} and {len(ys)})")
    if xs.size < min_runs:
        return _not_applicable(kind, f"{xs.size} run(s); an exponent needs at least {min_runs}", level)
    if np.any(xs <= 0) or np.unique(xs).size < xs.size:
        return _not_applicable(kind, f"{variable} values must be distinct and > 0 (got {xs.tolist()})", level)
    small = [i for i, y in enumerate(ys) if y.size < min_reps]
    if small:
        return _not_applicable(kind, f"run(s) at {variable} = {xs[small].tolist()} have fewer than {min_reps} "
                                     "repetitions", level)
    means = np.array([y.mean() for y in ys])
    if np.any(means <= 0):
        return _not_applicable(kind, f"mean <= 0 at {variable} = {xs[means <= 0].tolist()}: no logarithm", level)
    law = power_law(xs, ys, level=level)
    fit = Fit(kind, law.slope, law.ci, level, int(min(y.size for y in ys)), int(xs.size),
              Verdict(WITHIN, "fitted"),
              details={"x": xs.tolist(), "mean": means.tolist(), "intercept": law.intercept,
                       "r_squared": law.r_squared, "se": law.se, "ols": law, **law.diagnostics})
    fit.checks = exponent_checks(fit, variable, bounds=bounds, ctx=ctx, predicted=predicted, tolerance=tolerance)
    return fit


def _run_slopes(results: Mapping, window, min_reps, agreement) -> tuple[list, list, dict]:
    xs, samples, excluded = [], [], {}
    for x, res in sorted(results.items(), key=lambda kv: float(kv[0])):
        fit = log_regret_fit(res, window=window, bounds=(), min_reps=min_reps, agreement=agreement)
        if not fit.applicable:
            excluded[float(x)] = fit.verdict.reason
            continue
        xs.append(float(x))
        samples.append(fit.details["per_rep"])
    return xs, samples, excluded


def privacy_scaling(results: Mapping, *, factor: Callable | None = None, factor_name: str = "F", window=None,
                    predicted: float | None = None, tolerance: float = 0.2, agreement: float = 0.2,
                    min_reps: int = 3, level: float = 0.95) -> Fit:
    """Slope of ln C on ln eps, C the log-regret slope of each run (spec 000/001 F3).

    ``results`` maps eps -> SimulationResult.  Runs whose window is not
    logarithmic are excluded (listed in ``details['excluded']``).  Checks: C
    proportional to the theory factor ``factor`` (a function of eps; ``factor_name``
    names it in the check): the slope of ln(C / F) in ln eps is 0, with its lack-of-fit test
    (``details['factor_fit']``; the factor's local slope is in
    ``details['factor_local_slope']``), and/or ``predicted``
    (e.g. -2, the small-eps limit of both factors).  Fit 2 of F3, C = k F(eps), is
    reported in ``details`` (k, its R^2, and eps^2 C).

    Parameters
    ----------
    results : mapping
        eps -> SimulationResult.
    factor : callable, optional
        The theory factor F(eps), C proportional to F.
    factor_name : str
        Its name in the check ("C proportional to NAME(eps)").
    window, agreement, min_reps, level
        As for :func:`log_regret_fit` (per run).
    predicted : float, optional
        A predicted slope.
    tolerance : float
        Absolute tolerance on the slope.

    Returns
    -------
    Fit
        The slope, its interval and the checks.
    """
    xs, samples, excluded = _run_slopes(results, window, min_reps, agreement)
    fit = power_law_fit(xs, samples, variable="eps", tolerance=tolerance, level=level,
                        kind="privacy scaling: d ln C / d ln eps")
    fit.details["excluded"] = excluded
    if not fit.applicable:
        if excluded:
            fit.verdict.reason += f"; {len(excluded)} run(s) excluded as not logarithmic (eps = " \
                                  f"{', '.join(f'{e:g}' for e in excluded)})"
        return fit
    fn = factor
    label = "eps^-2 law (small-eps limit)"
    if fn is not None:
        fx = np.array([fn(e) for e in xs])
        lx = np.log(xs)
        local = float(np.polyfit(lx, np.log(fx), 1)[0])
        c_mean = np.array([s.mean() for s in samples])
        model = sm.OLS(c_mean, fx).fit()
        fit.details.update({"factor_local_slope": local, "k": float(model.params[0]),
                            "k_r_squared": float(model.rsquared), "eps2_C": (np.square(xs) * c_mean).tolist()})
        name = factor_name
        # C proportional to F: ln(C / F) has slope 0 in ln eps, and its lack-of-fit test asks whether
        # C / F is constant within the noise (F itself is no power law, so ln C's slope is not one number)
        law = power_law(xs, [s / f for s, f in zip(samples, fx)], level=level)
        fit.details["factor_fit"] = {"slope": law.slope, "ci": law.ci, **law.diagnostics}
        check = _exponent_check(law.slope, law.ci, 0.0, None, tolerance,
                                f"C proportional to {name}(eps): slope of ln(C / {name})")
        if law.diagnostics["degenerate"] and check.status != INCONCLUSIVE:
            check = Verdict(INCONCLUSIVE, f"{check.reason}; but {law.diagnostics['degenerate']}", check.bound,
                            check.evidence)
        fit.checks = [check]
    if predicted is not None:
        fit.checks += exponent_checks(fit, "eps", predicted=predicted, tolerance=tolerance, predicted_label=label)
    return fit


def gap_scaling(results: Mapping, *, predicted: float = -1.0, window=None, tolerance: float = 0.2,
                agreement: float = 0.2, min_reps: int = 3, level: float = 0.95) -> Fit:
    """Fit the slope of ln C on ln Delta over two-armed instances.

    Slope of ln C on ln Delta over two-armed instances (spec 000/001 F4: -1, i.e. C ~ 1/Delta;
    -1/v for heavy tails).  ``results`` maps Delta -> SimulationResult.

    Parameters
    ----------
    results : mapping
        Delta -> SimulationResult.
    predicted : float
        The predicted slope (default -1).
    window, tolerance, agreement, min_reps, level
        As for :func:`privacy_scaling`.

    Returns
    -------
    Fit
        The slope, its interval and the check against ``predicted``.
    """
    xs, samples, excluded = _run_slopes(results, window, min_reps, agreement)
    fit = power_law_fit(xs, samples, variable="gap", predicted=predicted, tolerance=tolerance, level=level,
                        kind="gap scaling: d ln C / d ln Delta")
    fit.details["excluded"] = excluded
    if not fit.applicable and excluded:
        fit.verdict.reason += f"; {len(excluded)} run(s) excluded as not logarithmic (Delta = " \
                              f"{', '.join(f'{d:g}' for d in excluded)})"
    if fit.applicable:
        fit.details["C_times_gap"] = [float(x * s.mean()) for x, s in zip(xs, samples)]
    return fit


# --------------------------------------------------------------- ratios
def ratio_at(numerator, denominator, t: int | None = None, *, level: float = 0.95, n_boot: int = 4000,
             seed: int = 0) -> Fit:
    """Return the ratio of mean regrets of two independent runs.

    Ratio of mean regrets of two independent runs at checkpoint ``t`` (default: the common horizon),
    with a percentile bootstrap over each run's repetitions (the privacy-cost ratio rho of F2).

    Parameters
    ----------
    numerator, denominator : SimulationResult, Curves or (checkpoints, regret)
        The two runs.
    t : int, optional
        The checkpoint (default: the common horizon).
    level, n_boot, seed
        Confidence level, bootstrap resamples and their seed.

    Returns
    -------
    Fit
        The ratio and its interval.
    """
    level = _check_level(level)
    a, b = as_curves(numerator), as_curves(denominator)
    kind = "ratio of mean regrets"
    if t is None:
        t = int(min(a.checkpoints[-1], b.checkpoints[-1]))
    cols = []
    for c in (a, b):
        hit = np.nonzero(c.checkpoints == t)[0]
        if hit.size == 0:
            return _not_applicable(kind, f"t = {t} is not a checkpoint of both runs", level)
        cols.append(c.regret[:, hit[0]])
    x, y = cols
    if min(x.size, y.size) < 2:
        return _not_applicable(kind, "each run needs at least 2 repetitions", level, min(x.size, y.size))
    if y.mean() <= 0:
        return _not_applicable(kind, f"denominator mean regret is {y.mean():g} at t = {t}", level)
    ci = bootstrap_ci((x, y), mean_ratio, level=level, n_resamples=n_boot, seed=seed)
    return Fit(kind, ci.estimate, (ci.low, ci.high), level, int(min(x.size, y.size)), 1, Verdict(WITHIN, "fitted"),
               details={"t": t, "numerator_mean": float(x.mean()), "denominator_mean": float(y.mean()),
                        "method": ci.method})


def claim_check(fit: Fit, claimed: float, label: str, *, relative_tolerance: float = 0.0) -> Verdict:
    """Compare a paper's number with a measured interval.

    A paper's number against a measured interval: consistent if the whole interval lies inside
    the claim +- ``relative_tolerance`` of it (for rounded claims), inconsistent if it lies
    outside, inconclusive if it straddles an edge (with no tolerance a point claim is never
    consistent: an interval that merely contains a number is not evidence for it).

    Parameters
    ----------
    fit : Fit
        The measurement.
    claimed : float
        The paper's number.
    label : str
        Name of the claim in the verdict.
    relative_tolerance : float
        Widening of the interval, relative to the claim.

    Returns
    -------
    Verdict
        Consistent, inconsistent, inconclusive, or not applicable (no interval).
    """
    if not fit.applicable:
        return Verdict(NOT_APPLICABLE, fit.verdict.reason, label)
    lo, hi = fit.ci
    pad = abs(claimed) * relative_tolerance
    status = (CONSISTENT if claimed - pad <= lo and hi <= claimed + pad else
              INCONSISTENT if hi < claimed - pad or lo > claimed + pad else INCONCLUSIVE)
    rel = {CONSISTENT: "inside", INCONSISTENT: "outside", INCONCLUSIVE: "straddles"}[status]
    return Verdict(status, f"measured {fit.estimate:.4g} [{lo:.4g}, {hi:.4g}] {rel} {claimed:g}"
                   + (f" +- {pad:.3g}" if pad else ""), label,
                   {"claimed": claimed, "estimate": fit.estimate, "ci": fit.ci})


__all__ = ["Fit", "Verdict", "Curves", "as_curves", "log_regret_fit", "check_values", "curve_exponent",
           "power_law_fit", "privacy_scaling", "gap_scaling", "ratio_at",
           "claim_check", "exponent_checks", "WITHIN", "OUTSIDE", "INCONCLUSIVE", "CONSISTENT",
           "INCONSISTENT", "NOT_APPLICABLE"]
