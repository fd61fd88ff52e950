"""Regret bounds of Hanna, Girgis, Fragouli, Diggavi, "DP stochastic linear bandits: (almost) for free" (seed 004).

Every theorem is order-only with an unstated constant C (Theorems 1-3 hold with
probability >= 1 - 1/T; Remarks 1 and 4 give the same in expectation), so the
registry holds their exponents: spec ``seed_004.md`` sections 6.1 and 6.3.
The proofs' versions keep the dimension d (erratum E6); those are the ones
registered.  The lower bound is Remark 2's combination of
Rusmevichientong-Tsitsiklis (non-private) and Shariff-Sheffet (central DP).

Exponents in T are those of the worst-case (minimax) family: on a fixed
instance with constant gaps the elimination algorithms have gap-dependent,
logarithmic regret (spec 6.3, "Important").
"""
from __future__ import annotations

from verify.bounds.registry import LOWER, ORDER, UPPER, Bound, Condition, Exponent, register

SPEC = "spec seed_004.md"
PAPER = "Hanna, Girgis, Fragouli, Diggavi (seed 004)"

CENTRAL = ("linear_central", "Algorithm 1", "Alg. 1 (central)")
LOCAL = ("linear_local", "Algorithm 2", "Alg. 2 (local)")
SHUFFLED = ("linear_shuffle", "linear_shuffled", "Algorithm 3", "Alg. 3 (shuffle)")

WORST = "max over instances R_T"

register(Bound(
    key="seed004.thm1", seed="004", theorem="Theorem 1 (and Remark 1)",
    source=f"{PAPER}, Theorem 1, eqs. 6, 17-20; {SPEC} 6.1",
    side=UPPER, form=ORDER,
    statement="R_T <= C (d sqrt(T log T) + d^2 log^2 T / eps) with probability >= 1 - 1/T",
    algorithms=CENTRAL, privacy="eps-DP (central)",
    exponents=(Exponent("T", 0.5, "infinity", WORST, "times sqrt(log T)"),
               Exponent("eps", -1.0, "zero", "R_T - R_T(eps=inf)", "additive privacy term"),
               Exponent("d", 1.0, "infinity", WORST, "d^2 in the privacy term (net version)")),
    notes="as printed the Laplace scale 1/eps on rewards in [-1, 1] gives 2 eps-DP (erratum E1)"))
register(Bound(
    key="seed004.thm2", seed="004", theorem="Theorem 2 (and Remark 4)",
    source=f"{PAPER}, Theorem 2, eq. 8, 33; {SPEC} 6.1",
    side=UPPER, form=ORDER,
    statement="R_T <= C (1 + 1/eps0) d sqrt(d T log T) with probability >= 1 - 1/T",
    algorithms=LOCAL, privacy="eps0-LDP",
    exponents=(Exponent("T", 0.5, "infinity", WORST, "times sqrt(log T)"),
               Exponent("eps", -1.0, "zero", "R_T", "multiplicative, eps0 << 1"),
               Exponent("d", 1.5, "infinity", WORST)),
    notes="Remark 6: eps0 = T^-alpha gives T-exponent 1/2 + alpha"))
register(Bound(
    key="seed004.thm3", seed="004", theorem="Theorem 3", source=f"{PAPER}, Theorem 3, eqs. 11, 41-42; {SPEC} 6.1",
    side=UPPER, form=ORDER,
    statement="R_T <= C (d sqrt(T log T) + (d log T)^(3/2) sqrt(log(1/delta)) / eps) for eps = O(sqrt(log(1/delta)/T))",
    algorithms=SHUFFLED, privacy="(eps, delta)-DP (shuffle model)",
    conditions=(Condition("0 < delta < 1", lambda c: 0 < c["delta"] < 1),
                Condition("eps <= sqrt(log(1/delta)/T) (high-privacy regime, up to the constant)",
                          lambda c: None)),
    exponents=(Exponent("T", 0.5, "infinity", WORST, "times sqrt(log T)"),
               Exponent("eps", -1.0, "zero", "R_T - R_T(eps=inf)", "additive"),
               Exponent("delta", 0.0, "zero", "R_T", "sqrt(log(1/delta)) factor: slower than any power")),
    notes="the condition holds only up to an unstated constant, so it cannot be verified: "
          "evaluating this bound always reports 'cannot verify' (erratum E12)"))
register(Bound(
    key="seed004.lower", seed="004", theorem="Remark 2 (lower bound)",
    source=f"{PAPER}, Remark 2 (Rusmevichientong-Tsitsiklis 2010; Shariff-Sheffet 2018); {SPEC} 6.1",
    side=LOWER, form=ORDER,
    statement="R_T = Omega(sqrt(T) + log(T)/eps) for eps-DP linear bandit algorithms",
    algorithms=CENTRAL + SHUFFLED, privacy="eps-DP",
    exponents=(Exponent("T", 0.5, "infinity", WORST),
               Exponent("eps", -1.0, "zero", "R_T - R_T(eps=inf)", "additive")),
    notes="the non-private part is Omega(d sqrt T) for unit-sphere action sets"))
