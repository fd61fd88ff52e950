"""Privacy factors of the local-DP curators as the paper's regret bounds state them.

The curators themselves (CTL, CTB) are in :mod:`dpbench.mechanisms.ldp_curators`; these are the
factors by which their noise scales a UCB bound or a lower bound (Ren et al., spec
``seed_000_001.md`` table 0.1 and Appendix A.1).  The paper's bounds (:mod:`.bounds`), its
checks and its revision (seed 001) use them; :func:`register` names them for the claim kinds
(``predicted = "factor:beta"``), called when the paper loads.
"""
from __future__ import annotations

import math

from dpbench.mechanisms.ldp_curators import bernoulli_factor, contraction, laplace_factor


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


def sqrt_T_log_T(t: float) -> float:
    """sqrt(T log T): the distribution-free rate of Theorems 4 and 6 (and seed 001's 7, 10)."""
    return math.sqrt(t * math.log(t))


#: the factors a claim may predict the local slope of (``predicted = "factor:NAME"``)
NAMED = {"beta": beta, "F_L": F_L, "sqrt_beta": lambda e: math.sqrt(beta(e)),
         "sqrt_F_L": lambda e: math.sqrt(F_L(e)), "sqrt_T_log_T": sqrt_T_log_T}


def register() -> None:
    """Name the factors for the claim kinds (:func:`dpbench.reporting.claims.kinds.register_factor`)."""
    from dpbench.reporting.claims.kinds import register_factor
    for name, fn in NAMED.items():
        register_factor(name, fn)


__all__ = ["F_L", "beta", "c_eps", "G", "sqrt_T_log_T", "NAMED", "register"]
