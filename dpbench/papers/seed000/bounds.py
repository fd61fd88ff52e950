"""Regret bounds of Ren et al., "Multi-armed bandits with local differential privacy" (v000).

Seed 000 (v000, homogeneous eps): Theorem 1 (lower bound), Theorems 4 and 6
(LDP-UCB-L/B), Corollaries 10 and 11 (sigmoid agents).  Formulas: spec
``seed_000_001.md`` section 1.4; the privacy factors (:mod:`.factors`)
of its table 0.1 and Appendix A.1.  The revised version (seed 001,
:mod:`dpbench.papers.seed001.bounds`) builds on the conditions and formulas here.

All logs are natural.  ``gaps`` holds every arm's gap; sums run over the
sub-optimal arms.  UCB1's bound (Auer, Cesa-Bianchi and Fischer 2002, Thm 1) is
registered too: it is the baseline of the papers' ratios (spec Appendix A.2).
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
    is_bounded_environment,
    positive_gaps,
    register,
    scaling,
    sum_inverse_gaps,
)

from .factors import F_L, G, beta

PI2 = math.pi ** 2

#: Lemma 7 (v000) / Lemma 12 (v001): c_s >= 0.0765 e^-1 for unit sub-Gaussian noise, and
#: c_s >= 0.2066 e^-1 for standard Gaussian noise (spec M3).
C_S_SUBGAUSSIAN = 0.0765 / math.e
C_S_GAUSSIAN = 0.2066 / math.e


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


# ---------------------------------------------------------------- formulas
def homogeneous(factor, constant):
    """sum_a [8 factor log T / Delta_a + constant Delta_a] and its ln T coefficient."""
    def value(ctx):
        d = positive_gaps(ctx)
        return float(np.sum(8.0 * factor(ctx) * math.log(ctx["T"]) / d + constant * d))

    def slope(ctx):
        return 8.0 * factor(ctx) * sum_inverse_gaps(ctx)
    return value, slope


def scaled(factor_value, factor_slope, scale):
    return (lambda ctx: factor_value(ctx) / scale(ctx) ** 2,
            lambda ctx: factor_slope(ctx) / scale(ctx) ** 2)


_thm4 = homogeneous(lambda c: F_L(c["eps"]), 1.0 + 2.0 * PI2 / 3.0)
_thm6 = homogeneous(lambda c: beta(c["eps"]), 1.0 + PI2 / 3.0)
_ucb1 = homogeneous(lambda c: 1.0, 1.0 + PI2 / 3.0)


# ------------------------------------------------------------------ registry
V000 = "Ren, Liu, Zhou, Shroff (seed 000, v000)"
SPEC = "spec seed_000_001.md"
LDP_HOMOGENEOUS = ("ldp_ucb_l", "ldp_ucb_b", "ldp_ucb_ls", "ldp_ucb_bs",
                   "heldp_ucb_l", "heldp_ucb_b", "heldp_ucb_ls", "heldp_ucb_bs")

def register_lower_bound(seed: str, key: str, theorem: str, cite: str, section: str) -> Bound:
    """The eps-LDP lower bound (v000 Theorem 1, restated as v001 Theorem 4) under one paper's key."""
    return register(Bound(
        key=key, seed=seed, theorem=theorem, source=f"{cite}, {theorem}; {SPEC} {section}",
        side=LOWER, form=ASYMPTOTIC,
        statement="liminf R(T)/log T >= (e^eps - e^-eps)^-2 sum_a 1/Delta_a (any eps-LDP policy)",
        algorithms=LDP_HOMOGENEOUS, privacy="eps-LDP", needs=("eps", "gaps"),
        conditions=(BERNOULLI, HOMOGENEOUS),
        slope=lambda c: G(c["eps"]) * sum_inverse_gaps(c),
        notes="asymptotic: a finite-T slope below it is not a contradiction; the LDP-UCB agents' "
              "upper bounds exceed it by 128 cosh^4(eps/2) (B) and 8 F_L/G (L)"))


register_lower_bound("000", "seed000.thm1", "Theorem 1", V000, "1.4")
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
_cor10 = scaled(*_thm4, c_s)
_cor11s = scaled(*_thm6, c_s)
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

# -------------------------------------------------- derived checkable numbers
def ratio_upper_to_lower(eps: float, agent: str) -> float:
    """Upper-bound slope over lower-bound slope: 8 beta / G (B; = 128 cosh^4(eps/2)) or 8 F_L / G (L)."""
    factor = beta(eps) if agent.upper() == "B" else F_L(eps)
    return 8.0 * factor / G(eps)
