"""Privacy factors of the local-DP curators as the regret bounds state them.

The curators themselves (CTL, CTB) are in :mod:`dpbench.mechanisms.ldp_curators`; these are
the factors by which their noise scales a UCB bound or a lower bound (Ren et al., spec
``seed_000_001.md`` table 0.1 and Appendix A.1).  They are generic: any paper's bounds, the
claim kinds (``FACTORS``) and the privacy-scaling fits of :mod:`verify.regret_fits` use them.
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


__all__ = ["F_L", "beta", "c_eps", "G"]
