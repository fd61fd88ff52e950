"""Regret bounds of Tao, Wu, Zhao, Wang, "Optimal rates of (locally) private heavy-tailed MABs" (seed 003).

Rewards satisfy E|X|^(1+v) <= u with v in (0, 1] (both known).  Every utility
theorem assumes 0 < eps <= 1.  Entries: Theorem 2 (DPRUCB, explicit constants
from its proof), Lemma 4 / Theorem 4 (DPRSE), Theorems 5 and 10 (central-DP
lower bounds, explicit constants from their proofs), Theorem 7 (LDPRSE, as
claimed) and the spec's algorithm-implied correction of it (erratum 7), and
Theorems 8, 9, 11 (LDP lower bounds).  Spec ``seed_003.md`` sections 3 and 6;
the exponent table of section 3.8 is what :func:`exponent_table` returns.

Constants from proofs hold for the paper-literal constants of the algorithms
(policy parameter ``constants = "paper"``, the default); the constant-scaled mode
the spec recommends leaves the exponents unchanged but not the constants.
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
    Exponent,
    positive_gaps,
    register,
)

SPEC = "spec seed_003.md"
PAPER = "Tao, Wu, Zhao, Wang (seed 003)"

DPRUCB = ("dp_robust_ucb", "DPRUCB", "DP Robust UCB")
DPRSE = ("dp_robust_se", "DPRSE", "DP Robust Successive Elimination")
LDPRSE = ("ldp_robust_se", "LDPRSE", "LDP Robust Successive Elimination")

UTILITY_EPS = Condition("0 < eps <= 1", lambda c: 0 < c["eps"] <= 1)
MOMENT = Condition("0 < v <= 1 and u > 0", lambda c: 0 < c["v"] <= 1 and c["u"] > 0)
ORDER_V = Condition("0 < v <= 1", lambda c: 0 < c["v"] <= 1)     # lower-bound instances fix u <= 1
LITERAL = Condition("paper-literal algorithm constants (constants = paper)",
                    lambda c: str(c.get("constants", "paper")) in ("paper", "literal"))
HORIZON3 = Condition("T >= 3 (ln T >= 1)", lambda c: c["T"] >= 3)


# ------------------------------------------------------------ Theorem 2
def _thm2_value(ctx):
    T, eps, v, u = ctx["T"], ctx["eps"], ctx["v"], ctx["u"]
    d = positive_gaps(ctx)
    lead = 36.0 * math.log(2.0 * T ** 4) * math.log(T) ** (1.5 + 1.0 / v) / eps
    return float(np.sum(lead * (u / d) ** (1.0 / v) + 5.0 * d))


register(Bound(
    key="seed003.thm2", seed="003", theorem="Theorem 2",
    source=f"{PAPER}, Theorem 2 (constants from its proof); {SPEC} 3.2",
    side=UPPER, form=EXPLICIT,
    statement="R_T <= sum_a (36 ln(2T^4) ln^(1.5+1/v) T / eps (u/Delta_a)^(1/v) + 5 Delta_a)",
    algorithms=DPRUCB, privacy="eps-DP (central)", needs=("gaps", "eps", "v", "u"),
    conditions=(UTILITY_EPS, MOMENT, HORIZON3, LITERAL), value=_thm2_value,
    notes="the paper states O(sum (log^(2.5+1/v) T/eps)(u/Delta)^(1/v) + Delta); uses T, checked at the horizon"))


# ------------------------------------------------------- Lemma 4 / Theorem 4
def _lemma4_pulls(ctx):
    """Algorithm-consistent explicit pull bound of a sub-optimal arm (spec 3.3, u^(1/v) version),
    with beta = 1/T, capped at T."""
    T, eps, v, u, K = ctx["T"], ctx["eps"], ctx["v"], ctx["u"], ctx["K"]
    beta = 1.0 / T
    d = positive_gaps(ctx)
    loglog = 2.0 * np.log(np.maximum(np.log2(2.0 / d), 1.0 + 1e-12))
    pulls = (u ** (1.0 / v) * (96.0 / d) ** ((1.0 + v) / v) * (math.log(4.0 * K / beta) + loglog) / eps
             + 2.0 * np.log2(2.0 / d))
    return np.minimum(pulls, T)


def _lemma4_value(ctx):
    d = positive_gaps(ctx)
    # with probability >= 1 - beta the pulls are bounded; the failure event costs <= T max gap * beta
    return float(np.sum(d * _lemma4_pulls(ctx)) + float(np.max(ctx["gaps"])))


register(Bound(
    key="seed003.lemma4", seed="003", theorem="Lemma 4 (with Theorem 4's beta = 1/T)",
    source=f"{PAPER}, Lemma 4 and proof of Theorem 4; {SPEC} 3.3 (algorithm-consistent u^(1/v))",
    side=UPPER, form=EXPLICIT,
    statement="E R_T <= sum_a Delta_a min{T, u^(1/v)(96/Delta_a)^((1+v)/v)(ln(4K T) + 2 ln log2(2/Delta_a))/eps "
              "+ 2 log2(2/Delta_a)} + max_a Delta_a",
    algorithms=DPRSE, privacy="eps-DP (central)", needs=("gaps", "eps", "v", "u"),
    conditions=(UTILITY_EPS, MOMENT, LITERAL,
                Condition("every gap <= 1", lambda c: float(np.max(c["gaps"])) <= 1.0)),
    value=_lemma4_value,
    notes="the paper's Lemma 4 carries u^(1/(1+v)); the algorithm pulls in proportion to u^(1/v) "
          "(erratum 5), so the algorithm-consistent constant is used"))
register(Bound(
    key="seed003.thm4", seed="003", theorem="Theorem 4 (eq. 7)", source=f"{PAPER}, Theorem 4; {SPEC} 3.3",
    side=UPPER, form=ORDER,
    statement="R_T = O(u^(1/(1+v)) log T/eps sum_a (1/Delta_a)^(1/v) + max_a Delta_a)",
    algorithms=DPRSE, privacy="eps-DP (central)", needs=("eps", "v", "u"), conditions=(UTILITY_EPS, MOMENT),
    exponents=(Exponent("eps", -1.0, "zero"),
               Exponent("gap", lambda c: -1 / c["v"], "zero", "Delta_a N_a", "-1/v"),
               Exponent("ln T", 1.0, "infinity"),
               Exponent("u", lambda c: 1 / c["v"], "infinity", "N_a",
                        "algorithm-implied 1/v; the paper states 1/(1+v) (erratum 5)"))))
register(Bound(
    key="seed003.thm4_free", seed="003", theorem="Theorem 4 (eq. 8)", source=f"{PAPER}, Theorem 4; {SPEC} 3.3",
    side=UPPER, form=ORDER,
    statement="sup over instances R_T = O(u^(v/(1+v)^2) (K log T/eps)^(v/(1+v)) T^(1/(1+v)))",
    algorithms=DPRSE, privacy="eps-DP (central)", needs=("eps", "v", "u"), conditions=(UTILITY_EPS, MOMENT),
    exponents=(Exponent("T", lambda c: 1 / (1 + c["v"]), "infinity", "max over instances R_T", "1/(1+v)"),
               Exponent("K", lambda c: c["v"] / (1 + c["v"]), "infinity", "max over instances R_T", "v/(1+v)"),
               Exponent("eps", lambda c: -c["v"] / (1 + c["v"]), "zero", "max over instances R_T",
                        "-v/(1+v)"))))


# ---------------------------------------------------- central lower bounds
def _thm5_slope(ctx):
    d = positive_gaps(ctx)
    return float(np.sum(d ** (-1.0 / ctx["v"])) / (200.0 * ctx["eps"] * 4.0 ** (1.0 / ctx["v"])))


def _thm10_slope(ctx):
    d = positive_gaps(ctx)
    return float(np.sum(d ** (-1.0 / ctx["v"])) / (200.0 * ctx["eps"] * 5.0 ** (1.0 / ctx["v"])))


register(Bound(
    key="seed003.thm5", seed="003", theorem="Theorem 5",
    source=f"{PAPER}, Theorem 5 (constant from its proof); {SPEC} 3.4",
    side=LOWER, form=ASYMPTOTIC,
    statement="R_T >= sum_a ln T/(200 eps 4^(1/v)) Delta_a^(-1/v) on the Theorem 5 instance, for every eps-DP "
              "policy with R_T <= T^(3/4), T large (T^0.13 > 4K/Delta_a)",
    algorithms=DPRUCB + DPRSE, privacy="eps-DP (central)", needs=("gaps", "eps", "v"),
    conditions=(UTILITY_EPS, ORDER_V,
                Condition("instance: mu_a <= 1/6 and 0 < Delta_a < 1/12",
                          lambda c: c.get("means") is not None and float(np.max(c["means"])) <= 1 / 6
                          and float(np.max(c["gaps"])) < 1 / 12),
                Condition("T^0.13 > 4K/Delta_a for every arm",
                          lambda c: c["T"] ** 0.13 > 4 * c["K"] / float(np.min(positive_gaps(c))))),
    slope=_thm5_slope,
    notes="the T precondition is out of reach of simulation (Delta = 0.05 needs T > 4e14): report "
          "comparisons as informal (spec G1)"))
register(Bound(
    key="seed003.thm10", seed="003", theorem="Theorem 10 (two arms)", source=f"{PAPER}, Theorem 10; {SPEC} 3.4",
    side=LOWER, form=ASYMPTOTIC,
    statement="R_T >= ln T/(200 eps 5^(1/v)) Delta^(-1/v), two-point arms, Delta in (0, 1/5), T^0.13 > 4/Delta",
    algorithms=DPRUCB + DPRSE, privacy="eps-DP (central)", needs=("gaps", "eps", "v"),
    conditions=(UTILITY_EPS, ORDER_V,
                Condition("two arms, 0 < Delta < 1/5", lambda c: c["K"] == 2 and 0 < float(np.max(c["gaps"])) < 0.2),
                Condition("T^0.13 > 4/Delta", lambda c: c["T"] ** 0.13 > 4 / float(np.max(c["gaps"])))),
    slope=_thm10_slope))


# --------------------------------------------------------------- LDP
register(Bound(
    key="seed003.thm7", seed="003", theorem="Theorem 7 (eqs. 10, 11), as claimed",
    source=f"{PAPER}, Theorem 7; {SPEC} 3.5", side=UPPER, form=ORDER,
    statement="R_T = O(u^(2/v) log T/eps^2 sum_a (1/Delta_a)^(1/v) + max Delta_a); "
              "sup R_T = O(u^(2/(1+v)) (K log T/eps^2)^(v/(1+v)) T^(1/(1+v)))",
    algorithms=LDPRSE, privacy="eps-LDP", needs=("eps", "v", "u"), conditions=(UTILITY_EPS, MOMENT),
    exponents=(Exponent("eps", -2.0, "zero", "N_a"),
               Exponent("gap", lambda c: -1 / c["v"], "zero", "Delta_a N_a", "-1/v"),
               Exponent("T", lambda c: 1 / (1 + c["v"]), "infinity", "max over instances R_T", "1/(1+v)")),
    notes="the spec (3.5, erratum 7) shows the proof's D vs D^2 step is invalid: see seed003.thm7_alg"))
register(Bound(
    key="seed003.thm7_alg", seed="003", theorem="Theorem 7 corrected (algorithm-implied, spec erratum 7)",
    source=f"derived in {SPEC} 3.5 (not a theorem of the paper)", side=UPPER, form=ORDER,
    statement="R_T = O(u^(2/v) log T/eps^2 sum_a Delta_a^(-(2+v)/v) + max Delta_a); "
              "sup R_T = O((K log T/eps^2)^(v/(2(1+v))) T^((2+v)/(2(1+v))))",
    algorithms=LDPRSE, privacy="eps-LDP", needs=("eps", "v", "u"), conditions=(UTILITY_EPS, MOMENT),
    exponents=(Exponent("eps", -2.0, "zero", "N_a"),
               Exponent("gap", lambda c: -(2 + c["v"]) / c["v"], "zero", "Delta_a N_a", "-(2+v)/v"),
               Exponent("T", lambda c: (2 + c["v"]) / (2 * (1 + c["v"])), "infinity", "max over instances R_T",
                        "(2+v)/(2(1+v))"))))
register(Bound(
    key="seed003.thm8", seed="003", theorem="Theorems 8 and 11", source=f"{PAPER}, Theorems 8, 11; {SPEC} 3.6",
    side=LOWER, form=ORDER,
    statement="liminf R_T/log T >= Omega(eps^-2 sum_a (1/Delta_a)^(1/v)) for eps-LDP policies with o(T^a) regret",
    algorithms=LDPRSE, privacy="eps-LDP", needs=("eps", "v", "u"), conditions=(UTILITY_EPS, MOMENT),
    exponents=(Exponent("eps", -2.0, "zero", "R_T/ln T"),
               Exponent("gap", lambda c: -1 / c["v"], "zero", "R_T/ln T", "-1/v")),
    notes="valid but loose: the TV^2-based bound gives Delta^(-(2+v)/v) (spec 3.5)"))
register(Bound(
    key="seed003.thm9", seed="003", theorem="Theorem 9", source=f"{PAPER}, Theorem 9; {SPEC} 3.6",
    side=LOWER, form=ORDER,
    statement="R_T >= Omega((K/eps^2)^(v/(1+v)) T^(1/(1+v))) on a worst-case instance",
    algorithms=LDPRSE, privacy="eps-LDP", needs=("eps", "v", "u"), conditions=(UTILITY_EPS, MOMENT),
    exponents=(Exponent("T", lambda c: 1 / (1 + c["v"]), "infinity", "max over instances R_T", "1/(1+v)"),
               Exponent("K", lambda c: c["v"] / (1 + c["v"]), "infinity", "max over instances R_T", "v/(1+v)"),
               Exponent("eps", lambda c: -2 * c["v"] / (1 + c["v"]), "zero", "max over instances R_T",
                        "-2v/(1+v)"))))


# -------------------------------------------------- v-dependent exponents
def exponent_table(v: float) -> dict:
    """The spec's section 3.8 exponents at moment order ``v`` (paper claim vs algorithm-implied)."""
    return {
        "DPRSE N_a vs Delta": (-(1 + v) / v, -(1 + v) / v),
        "DPRSE regret share vs Delta": (-1 / v, -1 / v),
        "DPRSE N_a vs eps": (-1.0, -1.0),
        "DPRSE N_a vs u": (1 / (1 + v), 1 / v),
        "DPRSE worst-case R_T vs T": (1 / (1 + v), 1 / (1 + v)),
        "DPRSE worst-case R_T vs K": (v / (1 + v), v / (1 + v)),
        "DPRSE worst-case R_T vs eps": (-v / (1 + v), -v / (1 + v)),
        "DPRSE worst-case R_T vs u": (v / (1 + v) ** 2, 1 / (1 + v)),
        "DPRUCB bound vs ln T": (2.5 + 1 / v, 2.5 + 1 / v),
        "LDPRSE N_a vs Delta": (-(1 + v) / v, -2 * (1 + v) / v),
        "LDPRSE regret share vs Delta": (-1 / v, -(2 + v) / v),
        "LDPRSE N_a vs eps": (-2.0, -2.0),
        "LDPRSE N_a vs u": (2 / v, 2 / v),
        "LDPRSE worst-case R_T vs T": (1 / (1 + v), (2 + v) / (2 * (1 + v))),
        "LDPRSE worst-case R_T vs K": (v / (1 + v), v / (2 * (1 + v))),
        "LDPRSE worst-case R_T vs eps": (-2 * v / (1 + v), -v / (1 + v)),
        "LDPRSE worst-case R_T vs u": (2 / (1 + v), 1 / (1 + v)),
    }
