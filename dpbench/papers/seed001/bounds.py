"""Regret bounds of Ren et al., "Multi-armed bandits with local differential privacy" (v001).

Seed 001 (the revised version, adds heterogeneous levels): Theorem 4 (= v000 Thm 1),
Theorems 7 and 10 (HeLDP-UCB-L/B, minimised over kappa numerically), Corollaries 8
and 11 (their homogeneous forms), Corollary 13 (sigmoid agents).  Formulas: spec
``seed_000_001.md`` section 2.4.  The conditions, the sigmoid constant and the
homogeneous-bound formula are v000's (:mod:`dpbench.papers.seed000.bounds`).
"""
from __future__ import annotations

import math

import numpy as np

from dpbench.papers.seed000.bounds import (
    BOUNDED,
    HOMOGENEOUS,
    PI2,
    SHIFT_NOISE,
    SPEC,
    c_s,
    homogeneous,
    register_lower_bound,
    scaled,
)
from dpbench.papers.seed000.factors import F_L, beta
from verify.bounds.registry import EXPLICIT, ORDER, UPPER, Bound, Condition, minimise, positive_gaps, register, scaling

V001 = "Ren et al. (seed 001, v001)"
ACCEPTS_SOME = Condition("p0 = P(eps_t >= eps_min) > 0", lambda c: c["p0"] > 0)

register_lower_bound("001", "seed001.thm4", "Theorem 4", V001, "2.4")


# ---------------------------------------------------------------- formulas
_cor11 = homogeneous(lambda c: beta(c["eps"]), 2.0 + PI2 / 3.0)


def _cor8_value(ctx):
    """Cor 8 with reconstruction R18: max{8 F_L/Delta, 10 Delta} log T + (3 + 2 pi^2/3) Delta."""
    d = positive_gaps(ctx)
    lead = np.maximum(8.0 * F_L(ctx["eps"]) / d, 10.0 * d)
    return float(np.sum(lead * math.log(ctx["T"]) + (3.0 + 2.0 * PI2 / 3.0) * d))


def _cor8_slope(ctx):
    d = positive_gaps(ctx)
    return float(np.sum(np.maximum(8.0 * F_L(ctx["eps"]) / d, 10.0 * d)))


def thm7_terms(ctx, kappa, log_t: float | None):
    """Theorem 7's sum over arms at ``kappa`` (a number or an array of them): the full bound when
    ``log_t`` is ln T, or its ln T coefficient when ``log_t`` is None (layout R15)."""
    d = positive_gaps(ctx)
    k = np.asarray(kappa, dtype=float)[..., None]
    p0, a0, q, em = ctx["p0"], ctx["alpha0"], ctx["Q_L"], ctx["eps_min"]
    lead = np.maximum(8.0 / (p0 * d) * (1.0 + 4.0 * np.sqrt(a0 + k * q)) ** 2,
                      2.0 * d / (p0 * a0 ** 2) * (4.0 * a0 * em ** -2 + em ** -4))
    if log_t is None:
        return np.sum(lead + d / (2.0 * p0 * k ** 2), axis=-1)
    kappa_term = d / (2.0 * p0 * k ** 2) * (math.log(p0) + log_t + 2.0 * k ** 2)
    return np.sum(lead * log_t + kappa_term + 2.0 * d / p0 + 2.0 * PI2 * d / 3.0, axis=-1)


def thm10_terms(ctx, kappa, log_t: float | None):
    """Theorem 10's sum over arms at ``kappa`` (a number or an array; bound, or ln T coefficient)."""
    d = positive_gaps(ctx)
    k = np.asarray(kappa, dtype=float)[..., None]
    p0, b0, q = ctx["p0"], ctx["beta0"], ctx["Q_B"]
    lead = 8.0 / (p0 * d) * (b0 + k * q)
    if log_t is None:
        return np.sum(lead + d / (2.0 * p0 * k ** 2), axis=-1)
    kappa_term = d / (2.0 * p0 * k ** 2) * (math.log(p0) + log_t + 2.0 * p0 * k ** 2)
    return np.sum(lead * log_t + kappa_term + d / p0 + PI2 * d / 3.0, axis=-1)


def _kappa_limit(terms, q_key):
    """inf over kappa > 0; when Q = 0 (homogeneous levels) the infimum is the kappa -> inf limit."""
    def value(ctx):
        log_t = math.log(ctx["T"])
        best = minimise(lambda k: terms(ctx, k, log_t))[1]
        if ctx[q_key] == 0.0:
            best = min(best, float(terms(ctx, 1e12, log_t)))
        return best

    def slope(ctx):
        best = minimise(lambda k: terms(ctx, k, None))[1]
        if ctx[q_key] == 0.0:
            best = min(best, float(terms(ctx, 1e12, None)))
        return best
    return value, slope


_thm7 = _kappa_limit(thm7_terms, "Q_L")
_thm10 = _kappa_limit(thm10_terms, "Q_B")


def minimising_kappa(ctx, theorem: int) -> float:
    """The kappa attaining the infimum of Theorem 7 or 10 at horizon ctx['T']."""
    terms = thm7_terms if theorem == 7 else thm10_terms
    return minimise(lambda k: terms(ctx, k, math.log(ctx["T"])))[0]


register(Bound(
    key="seed001.thm7", seed="001", theorem="Theorem 7", source=f"{V001}, Theorem 7 (layout R15); {SPEC} 2.4",
    side=UPPER, form=EXPLICIT,
    statement="R(T) <= inf_kappa sum_a [max{8/(p0 Delta)(1 + 4 sqrt(alpha0 + kappa Q_L))^2 log T, "
              "2 Delta/(p0 alpha0^2)(4 alpha0 eps_min^-2 + eps_min^-4) log T} "
              "+ Delta/(2 p0 kappa^2) log(p0 T e^{2 kappa^2}) + 2 Delta/p0 + 2 pi^2 Delta/3]",
    algorithms=("heldp_ucb_l", "HeLDP-UCB-L"), privacy="heterogeneous eps_t-LDP",
    needs=("gaps", "p0", "alpha0", "Q_L", "eps_min"), conditions=(BOUNDED, ACCEPTS_SOME),
    value=_thm7[0], slope=_thm7[1], anytime=True,
    notes="infimum over kappa found numerically (log-kappa grid, then golden section); "
          "with Q_L = 0 it is the kappa -> infinity limit, which equals Corollary 8"))
register(Bound(
    key="seed001.thm7_free", seed="001", theorem="Theorem 7 (distribution-free)",
    source=f"{V001}, Theorem 7; {SPEC} 2.4", side=UPPER, form=ORDER,
    statement="sup over instances R(T) = O(sqrt((1 + alpha0) n T log T / p0))",
    algorithms=("heldp_ucb_l", "HeLDP-UCB-L"), privacy="heterogeneous eps_t-LDP", conditions=(BOUNDED,),
    exponents=scaling(("T", 0.5, "infinity", "max over instances R_T", "times sqrt(log T)"),
                      ("K", 0.5, "infinity", "max over instances R_T"))))
register(Bound(
    key="seed001.cor8", seed="001", theorem="Corollary 8", source=f"{V001}, Corollary 8 (with R18); {SPEC} 2.4",
    side=UPPER, form=EXPLICIT,
    statement="R(T) <= sum_a [max{8 (1 + 4/eps)^2 / Delta_a, 10 Delta_a} log T + (3 + 2 pi^2/3) Delta_a]",
    algorithms=("heldp_ucb_l", "HeLDP-UCB-L"), privacy="eps-LDP (HoLDP)", needs=("eps", "gaps"),
    conditions=(BOUNDED, HOMOGENEOUS), value=_cor8_value, slope=_cor8_slope, anytime=True,
    notes="the paper drops the forced-exploration term 10 Delta_a log T; it is dominated only "
          "while 8 (1 + 4/eps)^2 >= 10 Delta_a^2, i.e. for eps <= 33.9 when Delta_a <= 1 (R18): "
          "the max keeps the corollary true for every eps"))
register(Bound(
    key="seed001.thm10", seed="001", theorem="Theorem 10", source=f"{V001}, Theorem 10; {SPEC} 2.4",
    side=UPPER, form=EXPLICIT,
    statement="R(T) <= inf_kappa sum_a [(8/(p0 Delta))(beta0 + kappa Q_B) log T "
              "+ Delta/(2 p0 kappa^2) log(p0 T e^{2 p0 kappa^2}) + Delta/p0 + pi^2 Delta/3]",
    algorithms=("heldp_ucb_b", "HeLDP-UCB-B"), privacy="heterogeneous eps_t-LDP",
    needs=("gaps", "p0", "beta0", "Q_B"), conditions=(BOUNDED, ACCEPTS_SOME),
    value=_thm10[0], slope=_thm10[1], anytime=True,
    notes="exponent 2 p0 kappa^2 as printed (Theorem 7 has 2 kappa^2)"))
register(Bound(
    key="seed001.thm10_free", seed="001", theorem="Theorem 10 (distribution-free)",
    source=f"{V001}, Theorem 10; {SPEC} 2.4", side=UPPER, form=ORDER,
    statement="sup over instances R(T) = O(sqrt(beta0 n T log T / p0))",
    algorithms=("heldp_ucb_b", "HeLDP-UCB-B"), privacy="heterogeneous eps_t-LDP", conditions=(BOUNDED,),
    exponents=scaling(("T", 0.5, "infinity", "max over instances R_T", "times sqrt(log T)"),
                      ("K", 0.5, "infinity", "max over instances R_T"))))
register(Bound(
    key="seed001.cor11", seed="001", theorem="Corollary 11", source=f"{V001}, Corollary 11; {SPEC} 2.4",
    side=UPPER, form=EXPLICIT,
    statement="R(T) <= sum_a [(8/Delta_a) beta(eps) log T + (2 + pi^2/3) Delta_a]",
    algorithms=("heldp_ucb_b", "HeLDP-UCB-B"), privacy="eps-LDP (HoLDP)", needs=("eps", "gaps"),
    conditions=(BOUNDED, HOMOGENEOUS), value=_cor11[0], slope=_cor11[1], anytime=True))
for _name, _label, _base, _key in (("heldp_ucb_ls", "HeLDP-UCB-LS", _thm7, "l"),
                                   ("heldp_ucb_bs", "HeLDP-UCB-BS", _thm10, "b")):
    _s = scaled(*_base, c_s)
    register(Bound(
        key=f"seed001.cor13_{_key}", seed="001", theorem="Corollary 13",
        source=f"{V001}, Corollary 13 (R14); {SPEC} 2.4", side=UPPER, form=EXPLICIT,
        statement=f"R(T) <= c_s^-2 x (Theorem {'7' if _key == 'l' else '10'} bound)",
        algorithms=(_name, _label), privacy="heterogeneous eps_t-LDP",
        needs=("gaps", "p0", "alpha0" if _key == "l" else "beta0", "Q_L" if _key == "l" else "Q_B")
        + (("eps_min",) if _key == "l" else ()),
        conditions=(SHIFT_NOISE, ACCEPTS_SOME), value=_s[0], slope=_s[1], anytime=True,
        notes="the v001 sigmoid curators are in the absent supplement; v000's definitions with "
              "per-user eps are assumed"))


def forced_term_threshold(gap: float = 1.0) -> float:
    """The eps above which Cor 8's dropped term 10 Delta log T exceeds 8 (1 + 4/eps)^2 log T / Delta
    (R18): solves 8 (1 + 4/eps)^2 = 10 Delta^2."""
    from scipy.optimize import brentq
    return brentq(lambda e: 8.0 * F_L(e) - 10.0 * gap ** 2, 1e-3, 1e6)
