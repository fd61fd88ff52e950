"""Regret bounds of Wang & Zhu, "Optimal learning policies for differential privacy in MABs" (seed 002).

Theorem 4 (GDP lower bound, two arms) and its N-arm remark, Theorem 11
(DP-FTPL-Gauss), Theorem 13 (DP-FTPL-Beta), Theorem 16 (DP-FTPL-New) and
Theorem 18 (GDP-Elim-New), plus the abstract-level orders.  Formulas and their
confidence tags: spec ``seed_002.md`` section 6 and the ambiguity register
(section 9).  The paper text is garbled OCR; constants tagged [M]/[L] there
are flagged in each entry's notes.

``N`` below is the number of arms ``K``; sums run over the sub-optimal arms.
The privacy-cost term ``(1/eps) ln(((e^eps - 1) T + c T delta) / (c (e^eps - 1) + c' T delta))``
is computed with ``expm1``/``log1p`` and its eps -> 0 limit, so eps = 0 (pure
delta-privacy) and eps = 1e-5 stay finite (spec C19).
"""
from __future__ import annotations

import math

import numpy as np

from verify.bounds.registry import (
    ASYMPTOTIC,
    EXPLICIT,
    LOWER,
    ORDER,
    UPPER,
    Bound,
    Condition,
    positive_gaps,
    register,
    scaling,
    sum_inverse_gaps,
)

SPEC = "spec seed_002.md"
PAPER = "Wang & Zhu (seed 002)"

DP_FTPL_GAUSS = ("dp_ftpl_gauss", "DP-FTPL-Gauss")
DP_FTPL_BETA = ("dp_ftpl_beta", "DP-FTPL-Beta")
DP_FTPL_NEW = ("dp_ftpl_new", "DP-FTPL-New")
GDP_ELIM_NEW = ("gdp_elim_new", "GDP-Elim-New")


# ------------------------------------------------------------- helpers
def log_ratio(eps: float, delta: float, a: float, b: float, c: float) -> float:
    """ln((a (e^eps - 1) + b delta) / (c (e^eps - 1) + b delta)), stable for small eps."""
    e1 = math.expm1(eps)
    den = c * e1 + b * delta
    if den <= 0.0:
        raise ValueError("eps and delta cannot both be 0")
    return math.log1p((a - c) * e1 / den)


def privacy_term(eps: float, delta: float, a: float, b: float, c: float) -> float:
    """(1/eps) * log_ratio(...), with its eps -> 0 limit (a - c)/(b delta)."""
    if eps == 0.0:
        if delta <= 0.0:
            raise ValueError("eps and delta cannot both be 0")
        return (a - c) / (b * delta)
    return log_ratio(eps, delta, a, b, c) / eps


def start_phase_gauss(eps: float, delta: float) -> float:
    """N_G* = min{1/(4 pi delta^2), (1/eps^2) ln(e/(4 pi delta^2))}  (Algorithm 1, [M])."""
    first = 1.0 / (4.0 * math.pi * delta ** 2)
    if eps == 0.0:
        return first
    return min(first, math.log(math.e / (4.0 * math.pi * delta ** 2)) / eps ** 2)


def start_phase_beta(eps: float, delta: float) -> float:
    """N_B* = max{min{40e/(9 pi delta^2), (8000/(81 eps^2)) ln(50e/(9 pi delta^2))}, 1000e/(9 pi)}
    (Algorithm 2, [M]; the log argument is [L])."""
    first = 40.0 * math.e / (9.0 * math.pi * delta ** 2)
    inner = first if eps == 0.0 else min(
        first, 8000.0 / (81.0 * eps ** 2) * math.log(50.0 * math.e / (9.0 * math.pi * delta ** 2)))
    return max(inner, 1000.0 * math.e / (9.0 * math.pi))


DELTA_POSITIVE = Condition("delta > 0", lambda c: c["delta"] > 0)
NOT_BOTH_ZERO = Condition("eps > 0 or delta > 0", lambda c: c["eps"] > 0 or c["delta"] > 0)
EPS_NONNEG = Condition("eps >= 0 and 0 <= delta < 1", lambda c: c["eps"] >= 0 and 0 <= c["delta"] < 1)
BOUNDED = Condition("rewards in [0, 1]", lambda c: None if c.get("environment") is None
                    else c["environment"] in ("bernoulli", "beta", "two_point", "uniform", "mixed", "mixture"))
UNIQUE_BEST = Condition("unique optimal arm", lambda c: int(np.sum(np.asarray(c["gaps"]) == 0)) == 1)


# ----------------------------------------------------------- Theorem 16
def _thm16_value(ctx):
    T, eps, delta = ctx["T"], ctx["eps"], ctx["delta"]
    extra = 4.0 * privacy_term(eps, delta, T, 2.0 * T, 2.0)
    d = positive_gaps(ctx)
    return float(np.sum(np.maximum(16.0 * math.log(T) / d, extra)) + 4.0 * ctx["K"])


def _thm16_slope(ctx):
    """ln T coefficient as T -> infinity: 16/Delta per arm; with delta = 0 the privacy term is
    (4/eps) ln(T/2), so max{16/Delta, 4/eps}."""
    d = positive_gaps(ctx)
    if ctx["delta"] > 0:
        return float(np.sum(16.0 / d))
    return float(np.sum(np.maximum(16.0 / d, 4.0 / ctx["eps"])))


register(Bound(
    key="seed002.thm16", seed="002", theorem="Theorem 16", source=f"{PAPER}, Theorem 16 [H]; {SPEC} 6.4",
    side=UPPER, form=EXPLICIT,
    statement="Reg(T) <= sum_{Delta_i>0} max{16 ln T/Delta_i, (4/eps) ln((T(e^eps-1) + 2T delta)"
              "/(2(e^eps-1) + 2T delta))} + 4N",
    algorithms=DP_FTPL_NEW, privacy="(eps, delta)-DP (Definition 1)", needs=("gaps", "eps", "delta"),
    conditions=(EPS_NONNEG, NOT_BOTH_ZERO, BOUNDED, UNIQUE_BEST), value=_thm16_value, slope=_thm16_slope,
    notes="the algorithm uses T (its centre x0 contains ln T): the bound is checked at the horizon only"))


# ----------------------------------------------------------- Theorem 18
def _thm18_value(ctx):
    T, eps, delta = ctx["T"], ctx["eps"], ctx["delta"]
    d = positive_gaps(ctx)
    dmin = float(d.min())
    extra = 32.0 * privacy_term(eps, delta, T * T, T * T, 2.0)   # (32/eps) ln(...)
    return float(np.sum(1024.0 * d * math.log(T) / dmin ** 2 + d / dmin * extra) + 4.0 * ctx["K"])


def _thm18_slope(ctx):
    d = positive_gaps(ctx)
    dmin = float(d.min())
    slope = np.sum(1024.0 * d / dmin ** 2)
    if ctx["delta"] == 0:
        slope += np.sum(2.0 * 32.0 * d / (dmin * ctx["eps"]))    # ln(T^2/2) grows like 2 ln T
    return float(slope)


register(Bound(
    key="seed002.thm18", seed="002", theorem="Theorem 18", source=f"{PAPER}, Theorem 18 [H]; {SPEC} 6.5",
    side=UPPER, form=EXPLICIT,
    statement="Reg(T) <= sum_i (1024 Delta_i ln T/Delta_min^2 + (32 Delta_i/(eps Delta_min)) "
              "ln((T^2(e^eps-1) + T^2 delta)/(2(e^eps-1) + T^2 delta))) + 4N",
    algorithms=GDP_ELIM_NEW, privacy="(eps, delta)-GDP (Definition 3)", needs=("gaps", "eps", "delta"),
    conditions=(EPS_NONNEG, NOT_BOTH_ZERO, BOUNDED, UNIQUE_BEST), value=_thm18_value, slope=_thm18_slope,
    notes="phases use T; checked at the horizon only"))


# ------------------------------------------------------ Theorems 11, 13
register(Bound(
    key="seed002.thm11", seed="002", theorem="Theorem 11", source=f"{PAPER}, Theorem 11 [M]; {SPEC} 6.2",
    side=UPPER, form=ASYMPTOTIC,
    statement="Reg(T) <= sum_{i>=2} max{2 Delta_i ln T/(Delta_i - 2 lambda)^2, N_G* Delta_i} + O(N/lambda^4), "
              "any lambda < Delta_min/2; so limsup Reg/ln T <= sum 2 v/Delta_i",
    algorithms=DP_FTPL_GAUSS, privacy="(eps, delta)-DP (Definition 1)", needs=("gaps", "eps", "delta"),
    conditions=(DELTA_POSITIVE, BOUNDED, UNIQUE_BEST),
    slope=lambda c: float(np.sum(2.0 * float(c.get("v", 2.0)) / positive_gaps(c))),
    notes="the O(N/lambda^4) term has no stated constant, so only the ln T coefficient is checkable "
          "(lambda -> 0).  The 2 ln T constant corresponds to variance 1/N (v = 1); with the privacy "
          "proof's v = 2 it is 4 ln T (spec 6.2, ambiguity 7): the slope uses the policy's variance factor "
          "ctx['v'] (default 2, the spec's default)"))
register(Bound(
    key="seed002.thm13", seed="002", theorem="Theorem 13", source=f"{PAPER}, Theorem 13 [M]/[L]; {SPEC} 6.3",
    side=UPPER, form=ASYMPTOTIC,
    statement="Reg(T) <= sum_{i>=2} max{5 Delta_i ln T/(2 (Delta_i - c_lambda lambda)^2), N_B* Delta_i} "
              "+ O(N/lambda^4); so limsup Reg/ln T <= sum 5/(2 Delta_i)",
    algorithms=DP_FTPL_BETA, privacy="(eps, delta)-DP (Definition 1)", needs=("gaps", "eps", "delta"),
    conditions=(DELTA_POSITIVE, BOUNDED, UNIQUE_BEST),
    slope=lambda c: float(np.sum(2.5 / positive_gaps(c))),
    notes="the 5/2 is [M]; c_lambda in {2, 5/2} [L] does not matter as lambda -> 0"))


# ------------------------------------------------------------ Theorem 4
def _thm4_log(ctx):
    """ln(((e^eps-1) T^(1-alpha) + 5 delta T^(1-alpha)) / (40 c0 (e^eps-1) + 5 delta T^(1-alpha)))."""
    t1a = ctx["T"] ** (1.0 - ctx["alpha"])
    return log_ratio(ctx["eps"], ctx["delta"], t1a, 5.0 * t1a, 40.0 * ctx["c0"])


def _thm4_value(ctx):
    return _thm4_log(ctx) / (16.0 * ctx["eps"])


def _thm4_time_ok(ctx):
    return ctx["T"] >= 3.0 / ctx["eps"] * _thm4_log(ctx)


register(Bound(
    key="seed002.thm4", seed="002", theorem="Theorem 4", source=f"{PAPER}, Theorem 4 [H]; {SPEC} 6.1",
    side=LOWER, form=EXPLICIT,
    statement="Reg(T) >= (1/(16 eps)) ln(((e^eps-1) T^(1-alpha) + 5 delta T^(1-alpha)) / "
              "(40 c0 (e^eps-1) + 5 delta T^(1-alpha))) on I1 = (1/2, 1/4), for every (eps, delta)-GDP "
              "policy with Reg <= c0 T^alpha on every instance",
    algorithms=GDP_ELIM_NEW, privacy="(eps, delta)-GDP", needs=("gaps", "eps", "delta", "c0", "alpha"),
    conditions=(Condition("eps > 0", lambda c: c["eps"] > 0),
                Condition("instance I1: two Bernoulli arms with means (1/2, 1/4)",
                          lambda c: c.get("means") is not None and np.allclose(sorted(c["means"]), [0.25, 0.5])),
                Condition("hypothesis Reg <= c0 T^alpha with alpha < 1", lambda c: 0 <= c["alpha"] < 1 and c["c0"] > 0),
                Condition("T >= (3/eps) ln(...)", _thm4_time_ok),
                Condition("ln(...) > 0 (the bound is positive)", lambda c: _thm4_log(c) > 0)),
    value=_thm4_value,
    notes="numerically tiny (0.13 at T = 1e5 for eps = 1, delta = 0, c0 = 1, alpha = 1/2): a "
          "qualitative statement; c0 and alpha are the algorithm's worst-case regret constants"))
register(Bound(
    key="seed002.lower_n_arms", seed="002", theorem="Remarks 5-7 (N arms)",
    source=f"{PAPER}, Remarks 5-7 [H]; {SPEC} 6.1", side=LOWER, form=ORDER,
    statement="Reg = Omega((N/eps) ln(((e^eps-1) T + delta T)/((e^eps-1) + delta T))); delta = 0: "
              "Omega((N/eps) ln T); delta > 0: T-independent",
    algorithms=GDP_ELIM_NEW, privacy="(eps, delta)-GDP",
    exponents=scaling(("eps", -1.0, "zero", "R_T", "at delta = 0"), ("K", 1.0, "infinity"))))


# ---------------------------------------------------------- headline orders
register(Bound(
    key="seed002.gauss_order", seed="002", theorem="Abstract / Theorem 11 (order)",
    source=f"{PAPER}, abstract [H]; {SPEC} 6.6", side=UPPER, form=ORDER,
    statement="O(sum_i ln T/Delta_i + N min{ln(1/delta)/eps^2, 1/delta^2})",
    algorithms=DP_FTPL_GAUSS, privacy="(eps, delta)-DP", conditions=(DELTA_POSITIVE,),
    exponents=scaling(("delta", -2.0, "zero", "R_T - R_T(non-private)", "eps = 0 regime (1/delta^2)"),
                      ("eps", -2.0, "zero", "R_T - R_T(non-private)", "ln(1/delta)/eps^2 regime"))))
register(Bound(
    key="seed002.new_order", seed="002", theorem="Abstract / Theorem 16 (order)",
    source=f"{PAPER}, abstract [H]; {SPEC} 6.6-6.7", side=UPPER, form=ORDER,
    statement="O(sum_i (ln T/Delta_i + (1/eps) ln(((e^eps-1) T + delta T)/((e^eps-1) + delta T))))",
    algorithms=DP_FTPL_NEW, privacy="(eps, delta)-DP",
    exponents=scaling(("eps", -1.0, "zero", "R_T - R_T(non-private)", "delta ~ 0: (4/eps) ln(T/2) per arm"),
                      ("delta", -1.0, "zero", "R_T - R_T(non-private)", "eps = 0: about 2/delta per arm"))))
register(Bound(
    key="seed002.elim_order", seed="002", theorem="Abstract / Theorem 18 (order)",
    source=f"{PAPER}, abstract [H]; {SPEC} 6.6", side=UPPER, form=ORDER,
    statement="O(sum_i (Delta_i ln T/Delta_min^2 + (Delta_i/(eps Delta_min)) ln(...)))",
    algorithms=GDP_ELIM_NEW, privacy="(eps, delta)-GDP",
    exponents=scaling(("eps", -1.0, "zero", "R_T - R_T(non-private)"),
                      ("Delta_min", -2.0, "zero", "R_T", "at fixed Delta_i"))))


def start_phase_regret(gaps, n_star: float) -> float:
    """Regret of a start phase pulling every arm ceil(n_star) times: sum_i Delta_i ceil(N*) (spec C17)."""
    return float(np.sum(np.asarray(gaps, dtype=float)) * math.ceil(n_star))


__all__ = ["privacy_term", "log_ratio", "start_phase_gauss", "start_phase_beta", "start_phase_regret",
           "sum_inverse_gaps"]
