"""Regret bounds of Ren et al., "Multi-armed bandits with local differential privacy".

Seed 000 (v000, homogeneous eps): Theorem 1 (lower bound), Theorems 4 and 6
(LDP-UCB-L/B), Corollaries 10 and 11 (sigmoid agents).  Seed 001 (v001, adds
heterogeneous levels): Theorem 4 (= v000 Thm 1), Theorems 7 and 10 (HeLDP-UCB-L/B,
minimised over kappa numerically), Corollaries 8 and 11 (their homogeneous
forms), Corollary 13 (sigmoid agents).  Formulas: spec ``seed_000_001.md``
sections 1.4 and 2.4; the privacy factors of its table 0.1 and Appendix A.1.

All logs are natural.  ``gaps`` holds every arm's gap; sums run over the
sub-optimal arms.  UCB1's bound (Auer, Cesa-Bianchi and Fischer 2002, Thm 1) is
registered too: it is the baseline of the papers' ratios (spec Appendix A.2).
"""
from __future__ import annotations

import math

import numpy as np

from dpbench.mechanisms.ldp_curators import bernoulli_factor, contraction, laplace_factor

from .registry import (
    ASYMPTOTIC,
    EXPLICIT,
    LOWER,
    ORDER,
    UPPER,
    Bound,
    Condition,
    is_bounded_environment,
    minimise,
    positive_gaps,
    register,
    scaling,
    sum_inverse_gaps,
)

PI2 = math.pi ** 2

#: Lemma 7 (v000) / Lemma 12 (v001): c_s >= 0.0765 e^-1 for unit sub-Gaussian noise, and
#: c_s >= 0.2066 e^-1 for standard Gaussian noise (spec M3).
C_S_SUBGAUSSIAN = 0.0765 / math.e
C_S_GAUSSIAN = 0.2066 / math.e


# ------------------------------------------------------------- privacy factors
def F_L(eps: float) -> float:
    """(1 + 4/eps)^2: the Laplace agents' privacy factor (Thm 4)."""
    return laplace_factor(float(eps))


def beta(eps: float) -> float:
    """((e^eps + 1)/(e^eps - 1))^2 = coth^2(eps/2): the Bernoulli agents' factor (Thm 6)."""
    return float(bernoulli_factor(float(eps)))


def c_eps(eps: float) -> float:
    """tanh(eps/2): CTB's gap contraction (Lemma 5)."""
    return float(contraction(float(eps)))


def G(eps: float) -> float:
    """(e^eps - e^-eps)^-2 = 1/(4 sinh^2 eps): the lower-bound factor (Thm 1)."""
    return 1.0 / (4.0 * math.sinh(eps) ** 2)


def c_s(ctx) -> float:
    """The sigmoid gap constant for the context: ``ctx['c_s']`` if given, else Lemma 7's
    Gaussian value for Gaussian noise with sigma <= 1, else the sub-Gaussian value."""
    if ctx.get("c_s") is not None:
        return float(ctx["c_s"])
    if ctx.get("environment") == "gaussian" and float(ctx.get("sigma", 1.0)) <= 1.0:
        return C_S_GAUSSIAN
    return C_S_SUBGAUSSIAN


# ------------------------------------------------------------------ conditions
BOUNDED = Condition("rewards in [0, 1]", is_bounded_environment)
BERNOULLI = Condition("Bernoulli arms", lambda c: None if c.get("environment") is None
                      else c["environment"] == "bernoulli")
HOMOGENEOUS = Condition("homogeneous privacy level (eps_dist = fixed)",
                        lambda c: str(c.get("eps_dist", "fixed")) == "fixed")
SHIFT_NOISE = Condition(
    "rewards mu_a + Z, Z i.i.d. across arms, sub-Gaussian with variance <= 1, means in [0, 1]",
    lambda c: None if c.get("environment") is None else (
        c["environment"] == "gaussian" and float(c.get("sigma", 1.0)) <= 1.0
        and bool(np.all(np.max(c["gaps"]) <= 1.0))))
ACCEPTS_SOME = Condition("p0 = P(eps_t >= eps_min) > 0", lambda c: c["p0"] > 0)


# ---------------------------------------------------------------- formulas
def _homogeneous(factor, constant):
    """sum_a [8 factor log T / Delta_a + constant Delta_a] and its ln T coefficient."""
    def value(ctx):
        d = positive_gaps(ctx)
        return float(np.sum(8.0 * factor(ctx) * math.log(ctx["T"]) / d + constant * d))

    def slope(ctx):
        return 8.0 * factor(ctx) * sum_inverse_gaps(ctx)
    return value, slope


def _scaled(factor_value, factor_slope, scale):
    return (lambda ctx: factor_value(ctx) / scale(ctx) ** 2,
            lambda ctx: factor_slope(ctx) / scale(ctx) ** 2)


_thm4 = _homogeneous(lambda c: F_L(c["eps"]), 1.0 + 2.0 * PI2 / 3.0)
_thm6 = _homogeneous(lambda c: beta(c["eps"]), 1.0 + PI2 / 3.0)
_ucb1 = _homogeneous(lambda c: 1.0, 1.0 + PI2 / 3.0)
_cor11 = _homogeneous(lambda c: beta(c["eps"]), 2.0 + PI2 / 3.0)


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


# ------------------------------------------------------------------ registry
V000 = "Ren, Liu, Zhou, Shroff (seed 000, v000)"
V001 = "Ren et al. (seed 001, v001)"
SPEC = "spec seed_000_001.md"
LDP_HOMOGENEOUS = ("ldp_ucb_l", "ldp_ucb_b", "ldp_ucb_ls", "ldp_ucb_bs",
                   "heldp_ucb_l", "heldp_ucb_b", "heldp_ucb_ls", "heldp_ucb_bs")

for _seed, _thm, _cite in (("000", "Theorem 1", V000), ("001", "Theorem 4", V001)):
    register(Bound(
        key=f"seed{_seed}.{'thm1' if _seed == '000' else 'thm4'}", seed=_seed, theorem=_thm,
        source=f"{_cite}, {_thm}; {SPEC} {'1.4' if _seed == '000' else '2.4'}",
        side=LOWER, form=ASYMPTOTIC,
        statement="liminf R(T)/log T >= (e^eps - e^-eps)^-2 sum_a 1/Delta_a (any eps-LDP policy)",
        algorithms=LDP_HOMOGENEOUS, privacy="eps-LDP", needs=("eps", "gaps"),
        conditions=(BERNOULLI, HOMOGENEOUS),
        slope=lambda c: G(c["eps"]) * sum_inverse_gaps(c),
        notes="asymptotic: a finite-T slope below it is not a contradiction; the LDP-UCB agents' "
              "upper bounds exceed it by 128 cosh^4(eps/2) (B) and 8 F_L/G (L)"))

register(Bound(
    key="seed000.thm4", seed="000", theorem="Theorem 4", source=f"{V000}, Theorem 4; {SPEC} 1.4",
    side=UPPER, form=EXPLICIT,
    statement="R(T) <= sum_a [8 (1 + 4/eps)^2 log T / Delta_a + (1 + 2 pi^2/3) Delta_a]",
    algorithms=("ldp_ucb_l", "LDP-UCB-L"), privacy="eps-LDP", needs=("eps", "gaps"),
    conditions=(BOUNDED,), value=_thm4[0], slope=_thm4[1], anytime=True,
    notes="constant 1 + 2 pi^2/3 per reconstruction R5"))
register(Bound(
    key="seed000.thm4_free", seed="000", theorem="Theorem 4 (distribution-free)",
    source=f"{V000}, Theorem 4; {SPEC} 1.4", side=UPPER, form=ORDER,
    statement="sup over instances R(T) = O(eps^-1 sqrt(n T log T))",
    algorithms=("ldp_ucb_l", "LDP-UCB-L"), privacy="eps-LDP", conditions=(BOUNDED,),
    exponents=scaling(("T", 0.5, "infinity", "max over instances R_T", "times sqrt(log T)"),
                      ("eps", -1.0, "zero", "max over instances R_T"),
                      ("K", 0.5, "infinity", "max over instances R_T"))))
register(Bound(
    key="seed000.thm6", seed="000", theorem="Theorem 6", source=f"{V000}, Theorem 6; {SPEC} 1.4",
    side=UPPER, form=EXPLICIT,
    statement="R(T) <= sum_a [(8/Delta_a) ((e^eps + 1)/(e^eps - 1))^2 log T + (1 + pi^2/3) Delta_a]",
    algorithms=("ldp_ucb_b", "LDP-UCB-B"), privacy="eps-LDP", needs=("eps", "gaps"),
    conditions=(BOUNDED,), value=_thm6[0], slope=_thm6[1], anytime=True))
register(Bound(
    key="seed000.thm6_free", seed="000", theorem="Theorem 6 (distribution-free)",
    source=f"{V000}, Theorem 6; {SPEC} 1.4", side=UPPER, form=ORDER,
    statement="sup over instances R(T) = O(eps^-1 sqrt(n T log T))",
    algorithms=("ldp_ucb_b", "LDP-UCB-B"), privacy="eps-LDP", conditions=(BOUNDED,),
    exponents=scaling(("T", 0.5, "infinity", "max over instances R_T", "times sqrt(log T)"),
                      ("eps", -1.0, "zero", "max over instances R_T"),
                      ("K", 0.5, "infinity", "max over instances R_T"))))
_cor10 = _scaled(*_thm4, c_s)
_cor11s = _scaled(*_thm6, c_s)
register(Bound(
    key="seed000.cor10", seed="000", theorem="Corollary 10", source=f"{V000}, Corollary 10; {SPEC} 1.4",
    side=UPPER, form=EXPLICIT,
    statement="R(T) <= c_s^-2 sum_a [8 (1 + 4/eps)^2 log T / Delta_a + (1 + 2 pi^2/3) Delta_a]",
    algorithms=("ldp_ucb_ls", "LDP-UCB-LS"), privacy="eps-LDP", needs=("eps", "gaps"),
    conditions=(SHIFT_NOISE,), value=_cor10[0], slope=_cor10[1], anytime=True,
    notes="c_s = 0.2066/e for Gaussian noise, 0.0765/e for other unit sub-Gaussian noise "
          "(Lemma 7), or ctx['c_s']"))
register(Bound(
    key="seed000.cor11", seed="000", theorem="Corollary 11", source=f"{V000}, Corollary 11; {SPEC} 1.4",
    side=UPPER, form=EXPLICIT,
    statement="R(T) <= c_s^-2 sum_a [(8/Delta_a) beta(eps) log T + (1 + pi^2/3) Delta_a]",
    algorithms=("ldp_ucb_bs", "LDP-UCB-BS"), privacy="eps-LDP", needs=("eps", "gaps"),
    conditions=(SHIFT_NOISE,), value=_cor11s[0], slope=_cor11s[1], anytime=True))
register(Bound(
    key="auer2002.ucb1", seed="000", theorem="UCB1 bound (Auer, Cesa-Bianchi, Fischer 2002, Thm 1)",
    source=f"baseline of seed 000/001; {SPEC} Appendix A.2", side=UPPER, form=EXPLICIT,
    statement="R(T) <= sum_a [8 log T / Delta_a + (1 + pi^2/3) Delta_a]",
    algorithms=("ucb1", "UCB1"), privacy="none", needs=("gaps",), conditions=(BOUNDED,),
    value=_ucb1[0], slope=_ucb1[1], anytime=True))

# ------------------------------------------------------------------ v001
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
    _s = _scaled(*_base, c_s)
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


# -------------------------------------------------- derived checkable numbers
def ratio_upper_to_lower(eps: float, agent: str) -> float:
    """Upper-bound slope over lower-bound slope: 8 beta / G (B; = 128 cosh^4(eps/2)) or 8 F_L / G (L)."""
    factor = beta(eps) if agent.upper() == "B" else F_L(eps)
    return 8.0 * factor / G(eps)


def forced_term_threshold(gap: float = 1.0) -> float:
    """The eps above which Cor 8's dropped term 10 Delta log T exceeds 8 (1 + 4/eps)^2 log T / Delta
    (R18): solves 8 (1 + 4/eps)^2 = 10 Delta^2."""
    from scipy.optimize import brentq
    return brentq(lambda e: 8.0 * F_L(e) - 10.0 * gap ** 2, 1e-3, 1e6)
