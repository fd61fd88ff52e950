"""The bounds registry: every regret bound of the seed papers as a function of the instance.

A :class:`Bound` is one theorem (or corollary, or a derived statement the
specs single out) of one paper.  It states

* ``side``: ``"upper"`` or ``"lower"``;
* ``form``: ``"explicit"`` (a number for every finite T, with the paper's
  constants), ``"asymptotic"`` (an explicit coefficient of ``ln T`` valid as
  T -> infinity, e.g. Lai-Robbins type ``liminf R(T)/ln T >= C``, or a leading
  term whose additive constant is hidden) or ``"order"`` (only an O / Omega
  statement: checked as exponents);
* ``conditions``: its hypotheses (``eps <= 1``, Bernoulli arms, ...); a bound
  evaluated outside them is *not applicable*, never silently used;
* ``value(ctx)`` (explicit bounds): the regret bound at horizon ``ctx["T"]``;
  ``slope(ctx)``: the coefficient of ``ln T`` (asymptotic and log-regret
  explicit bounds); ``exponents``: the scaling exponents of an order bound.

The evaluation context ``ctx`` is a plain dict of the quantities a bound may
need: ``gaps`` (every arm, 0 for optimal ones), ``K``, ``T``, ``eps``,
``delta``, ``d``, ``v``, ``u``, ``c_s``, the heterogeneous-privacy statistics
``p0, alpha0, beta0, Q_L, Q_B, eps_min, eps_max``, the reward law
``environment`` ...  :func:`context` builds it from a ``SimulationResult``.

Each paper registers its bounds with :func:`register` when its package is imported
(``dpbench/papers/seed<NNN>/bounds.py``; a user's module does the same).  verify loads no
paper: the application does (the command line and every report's build load all papers,
:func:`dpbench.papers.load` from Python), and :func:`get` names what to load when a key is
unknown.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from dpbench.validation import InputError

UPPER, LOWER = "upper", "lower"
EXPLICIT, ASYMPTOTIC, ORDER = "explicit", "asymptotic", "order"

#: reward laws bounded in [0, 1]
BOUNDED_ENVIRONMENTS = ("bernoulli", "beta", "two_point", "uniform", "mixed", "mixture")


@dataclass(frozen=True)
class Condition:
    """One hypothesis of a theorem: ``holds(ctx)`` is True, False, or None (cannot tell)."""
    text: str
    holds: Callable[[dict], bool | None]


@dataclass(frozen=True)
class Exponent:
    """An order-only scaling: regret ~ variable**value as variable -> ``limit``.

    ``limit`` is ``"infinity"`` (T, K, d, u) or ``"zero"`` (eps, delta, a gap).
    For an upper bound, a fitted exponent may not exceed ``value`` when the
    limit is infinity (regret may not grow faster), and may not fall below it
    when the limit is zero (regret may not blow up faster as the variable -> 0).
    ``quantity`` says what scales (``"R_T"``, ``"N_a"``, ``"R_T - R_T(eps=inf)"``).
    """
    variable: str
    value: float | Callable[[dict], float]   # a number, or a function of the context (e.g. of v)
    limit: str = "infinity"
    quantity: str = "R_T"
    note: str = ""

    def at(self, ctx: Mapping) -> Exponent:
        """This exponent with a context-dependent value resolved."""
        if callable(self.value):
            return Exponent(self.variable, float(self.value(dict(ctx))), self.limit, self.quantity, self.note)
        return self


@dataclass(frozen=True)
class Evaluation:
    """A bound evaluated on one context."""
    bound: Bound = field(repr=False)
    applicable: bool
    reason: str = ""
    value: float | None = None        # explicit bounds: R(T) bound
    slope: float | None = None        # coefficient of ln T
    trivial: float | None = None      # T * max gap: any regret is below this
    exponents: tuple[Exponent, ...] = ()
    floor: float | None = None        # the sum of the gaps: one pull of every arm costs this

    @property
    def vacuous(self) -> bool:
        """An upper bound above the trivial regret T * max gap says nothing; so does a lower bound
        at or below the sum of the gaps, which any policy that pulls every arm once pays."""
        if self.value is None:
            return False
        if self.bound.side == UPPER:
            return self.trivial is not None and self.value >= self.trivial
        return self.floor is not None and self.value <= self.floor


@dataclass(frozen=True)
class Bound:
    key: str                              # "seed000.thm4"
    seed: str                             # "000"
    theorem: str                          # "Theorem 4"
    source: str                           # paper and spec section
    side: str                             # UPPER | LOWER
    form: str                             # EXPLICIT | ASYMPTOTIC | ORDER
    statement: str                        # the formula, in words/ASCII
    algorithms: tuple[str, ...]           # paper labels or dpbench names it applies to
    privacy: str                          # the privacy notion of the theorem
    needs: tuple[str, ...] = ()           # context keys required
    conditions: tuple[Condition, ...] = ()
    value: Callable[[dict], float] | None = None
    slope: Callable[[dict], float] | None = None
    exponents: tuple[Exponent, ...] = ()
    anytime: bool = False                 # the algorithm does not use T: value(t) bounds R(t) for every t
    notes: str = ""

    def applies_to(self, policy: str, label: str | None = None) -> bool:
        """True if this bound is about ``policy`` (matched by name or paper label)."""
        wanted = {_norm(a) for a in self.algorithms}
        return _norm(policy) in wanted or (label is not None and _norm(label) in wanted)

    def check(self, ctx: Mapping) -> list[str]:
        """The reasons this bound does not apply to ``ctx`` (empty list: it applies)."""
        missing = [k for k in self.needs if ctx.get(k) is None]
        if missing:
            return [f"needs {', '.join(missing)}"]
        reasons = []
        for cond in self.conditions:
            try:
                ok = cond.holds(dict(ctx))
            except (TypeError, ValueError, KeyError) as err:
                ok = None
                detail = f" ({err})"
            else:
                detail = ""
            if ok is None:
                reasons.append(f"cannot verify the hypothesis '{cond.text}'{detail}")
            elif not ok:
                reasons.append(f"hypothesis '{cond.text}' fails ({_describe(cond.text, ctx)})")
        return reasons

    def evaluate(self, ctx: Mapping | None = None, **overrides) -> Evaluation:
        """Evaluate at ``ctx`` (plus ``overrides``); outside the hypotheses: not applicable."""
        ctx = _complete({**(ctx or {}), **overrides})
        reasons = self.check(ctx)
        trivial = _trivial(ctx)
        floor = float(np.sum(ctx["gaps"])) if ctx.get("gaps") is not None else None
        if reasons:
            return Evaluation(self, False, "; ".join(reasons), trivial=trivial, floor=floor)
        value = float(self.value(ctx)) if self.value is not None and ctx.get("T") is not None else None
        slope = float(self.slope(ctx)) if self.slope is not None else None
        exponents = tuple(e.at(ctx) for e in self.exponents)
        return Evaluation(self, True, "", value, slope, trivial, exponents, floor)

    def describe(self) -> str:
        return (f"{self.key}: {self.theorem} ({self.source}); {self.side} bound, {self.form}; "
                f"{self.statement}")


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _describe(text: str, ctx: Mapping) -> str:
    shown = [f"{k}={_short(ctx[k])}" for k in ("eps", "delta", "T", "K", "v", "u", "environment",
                                                "eps_min", "p0") if k in text and ctx.get(k) is not None]
    if "gap" in text.lower() or "mean" in text.lower() or "Delta" in text:
        if ctx.get("gaps") is not None:
            shown.append(f"gaps={_short(ctx['gaps'])}")
    return ", ".join(shown) or "see context"


def _short(x):
    if isinstance(x, np.ndarray):
        vals = np.unique(np.round(x, 4))
        return "[" + ", ".join(f"{v:g}" for v in vals[:6]) + (", ...]" if vals.size > 6 else "]")
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


def _trivial(ctx: Mapping) -> float | None:
    gaps, horizon = ctx.get("gaps"), ctx.get("T")
    if gaps is None or horizon is None:
        return None
    return float(horizon) * float(np.max(gaps))


def _complete(ctx: dict) -> dict:
    """Derived context entries: gaps from means, K, the sums the bounds use."""
    ctx = dict(ctx)
    if ctx.get("gaps") is None and ctx.get("means") is not None:
        means = np.asarray(ctx["means"], dtype=float)
        ctx["gaps"] = means.max() - means
    if ctx.get("gaps") is not None:
        gaps = np.asarray(ctx["gaps"], dtype=float)
        if gaps.ndim != 1 or gaps.size < 2 or np.any(gaps < 0) or not np.all(np.isfinite(gaps)):
            raise InputError(f"gaps must be a list of at least 2 finite numbers >= 0 (got {ctx['gaps']!r})")
        ctx["gaps"] = gaps
        ctx.setdefault("K", int(gaps.size))
    return ctx


# ----------------------------------------------------------------- registry
#: every registered bound by key; complete once the papers are loaded (get and bounds_for do it)
BOUNDS: dict[str, Bound] = {}


def register(bound: Bound) -> Bound:
    """Add ``bound`` to the registry (a paper's bounds module calls this when imported)."""
    if bound.key in BOUNDS:
        raise ValueError(f"bound {bound.key!r} registered twice")
    if bound.side not in (UPPER, LOWER) or bound.form not in (EXPLICIT, ASYMPTOTIC, ORDER):
        raise ValueError(f"bound {bound.key!r}: bad side {bound.side!r} or form {bound.form!r}")
    if bound.form == EXPLICIT and bound.value is None:
        raise ValueError(f"explicit bound {bound.key!r} needs a value function")
    if bound.form == ASYMPTOTIC and bound.slope is None:
        raise ValueError(f"asymptotic bound {bound.key!r} needs a slope function")
    if bound.form == ORDER and not bound.exponents:
        raise ValueError(f"order-only bound {bound.key!r} needs exponents")
    BOUNDS[bound.key] = bound
    return bound


def get(key: str) -> Bound:
    """The bound registered under ``key`` (e.g. ``"seed000.thm6"``)."""
    try:
        return BOUNDS[key]
    except KeyError:
        raise InputError(f"unknown bound {key!r}: no loaded paper registers it (a paper registers its bounds "
                         "when it is loaded: dpbench.papers.load() in Python; the command line and reports load "
                         f"every paper); registered: {', '.join(sorted(BOUNDS)) or 'none'}") from None


def bounds_for(policy: str | None = None, *, seed: str | None = None, side: str | None = None,
               form: str | None = None) -> list[Bound]:
    """Registered bounds (of the papers loaded), filtered by policy (name or paper label), seed, side
    and form."""
    label = None
    if policy is not None:
        from dpbench.engine.catalog import ALGORITHMS
        spec = ALGORITHMS.get(policy)
        label = spec.label if spec is not None else None
    out = []
    for b in BOUNDS.values():
        if policy is not None and not b.applies_to(policy, label):
            continue
        if seed is not None and b.seed != str(seed).removeprefix("seed"):
            continue
        if side is not None and b.side != side:
            continue
        if form is not None and b.form != form:
            continue
        out.append(b)
    return out


# ------------------------------------------------------------------ context
def context(result=None, **overrides) -> dict:
    """The evaluation context of a ``SimulationResult`` (plus ``overrides``).

    Takes gaps from the result's means, T from its horizon, eps/delta/v/u/d and
    every other scalar parameter from its parameters (and its environment's),
    the heterogeneous-privacy statistics (p0, alpha0, beta0, Q_L, Q_B, eps_max)
    from its ``info``, and ``environment`` from its environment name.
    """
    ctx: dict = {}
    if result is not None:
        ctx["means"] = np.asarray(result.means, dtype=float)
        ctx["T"] = int(result.horizon)
        ctx["environment"] = result.environment
        ctx["policy"] = result.policy
        for source in (result.env_params or {}, result.params or {}, result.info or {}):
            for k, v in source.items():
                if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
                    ctx[k] = float(v) if isinstance(v, (float, np.floating)) else int(v)
                elif isinstance(v, str):
                    ctx.setdefault(k, v)
        if ctx.get("eps_min") is None and ctx.get("eps") is not None:
            ctx["eps_min"] = ctx["eps"]
        if str(ctx.get("eps_dist", "fixed")) == "fixed" and ctx.get("eps") is not None:
            ctx.setdefault("eps_max", ctx["eps"])
    ctx.update(overrides)
    return _complete(ctx)


# ------------------------------------------------------ shared helpers
def positive_gaps(ctx) -> np.ndarray:
    gaps = np.asarray(ctx["gaps"], dtype=float)
    return gaps[gaps > 0]


def sum_inverse_gaps(ctx) -> float:
    """S1 = sum over sub-optimal arms of 1/Delta_a."""
    return float(np.sum(1.0 / positive_gaps(ctx)))


def sum_gaps(ctx) -> float:
    return float(np.sum(positive_gaps(ctx)))


def minimise(f: Callable, lo: float = -12.0, hi: float = 12.0) -> tuple[float, float]:
    """min over kappa = exp(x), x in [lo, hi], of f(kappa) (f unimodal in log kappa for the bounds
    here); returns (kappa, f(kappa)).  ``f`` takes an array of kappas and returns their values:
    a 97-point grid, then three zooms of 33 points around the best, each to the neighbouring cells
    (about 1e-5 in log kappa: far below the bounds' printed precision), all vectorised."""
    grid = np.linspace(lo, hi, 97)
    for _ in range(4):
        vals = np.asarray(f(np.exp(grid)), dtype=float)
        i = int(np.argmin(vals))
        best_x, best = grid[i], float(vals[i])
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        grid = np.linspace(a, b, 33)
    return math.exp(best_x), best


def is_bounded_environment(ctx) -> bool | None:
    env = ctx.get("environment")
    if env is None:
        return None
    return str(env) in BOUNDED_ENVIRONMENTS


def eps_at_most_one(ctx) -> bool:
    return ctx["eps"] <= 1.0


def scaling(*pairs) -> tuple[Exponent, ...]:
    """Shorthand: scaling(("T", 0.5), ("eps", -1, "zero"), ...)."""
    return tuple(Exponent(*p) for p in pairs)


__all__ = ["Bound", "Condition", "Exponent", "Evaluation", "BOUNDS", "register", "get", "bounds_for",
           "context", "UPPER", "LOWER", "EXPLICIT", "ASYMPTOTIC", "ORDER"]
