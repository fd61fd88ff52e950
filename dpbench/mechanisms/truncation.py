"""Truncation at a threshold B plus Laplace noise (Tao et al., seed 003).

``truncate(x, B) = x * 1{|x| <= B}``: values beyond the threshold are
ZEROED, not clipped (spec Sec. 2.0); the output lies in [-B, B], so changing
one reward moves it by at most 2B, hence the noise Lap(2B / eps).

Uses:

* LDP (Algorithm 4, Theorem 6): each user reports trunc(x, B_tau) + Lap(2 B_tau / eps),
  with the bound B_tau broadcast by the learner (engine verb ``broadcast``).
* central DP (Algorithm 3): the trusted agent truncates every reward of an epoch
  at B_tau and adds Lap(2 B_tau / (R_tau eps)) to the epoch mean itself; the
  component with ``eps = 0`` does the truncation of a batch without noise.
* DP Robust UCB (Algorithm 1) truncates each reward at B_n before it enters the
  tree counter (``tree_counter.py``).

Engine component ``TruncatedLaplace(eps)``: ``m`` pulls of an arm, each
truncated at the broadcast bound, plus the sum of the ``m`` users' noises
(drawn in O(1) as Gamma(m, b) - Gamma(m, b), the law of a sum of m Lap(b)).
Stand-alone sampler ``sample_truncated_laplace(x, n, seed, eps=, bound=)``
(catalog mechanism ``truncated_laplace``) for the privacy audits.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import MechanismSpec, Param, real, register_mechanism
from ..engine.components import draw, implements, respond_broadcast
from ..validation import check_eps, check_int, check_real


@cached_njit
def truncate(x, bound):
    """x if |x| <= bound else 0 (the paper's x * 1{|x| <= B})."""
    return x if abs(x) <= bound else 0.0


class TruncatedLaplace(NamedTuple):
    """Users truncate at the broadcast bound B and add Lap(2B/eps); eps = 0: truncation only
    (the central-DP agent's own pre-processing, no privacy by itself)."""
    eps: float


@implements(respond_broadcast, TruncatedLaplace)
def _truncated_laplace_respond(mech, env, arm, m, public):
    total = 0.0
    for _ in range(m):
        total += truncate(draw(env, arm), public)
    if mech.eps > 0.0:
        total += rng.laplace_sum(m, 2.0 * public / mech.eps)
    return total, mech.eps


# ------------------------------------------------------ stand-alone sampler
@cached_njit
def _sample_kernel(x, bound, eps, seed, out):
    np.random.seed(seed)
    y = truncate(x, bound)
    scale = 2.0 * bound / eps
    for i in range(out.shape[0]):
        out[i] = y + rng.laplace(scale)


def sample_truncated_laplace(x, n, seed, *, eps, bound):
    """n i.i.d. reports trunc(x, bound) + Lap(2 bound / eps) of one reward x (eps-LDP on R)."""
    eps = check_eps(eps)
    bound = check_real("bound", bound, low=0.0, low_open=True)
    n = check_int("n", n, low=1)
    x = check_real("x", x, allow_inf=False)
    out = np.empty(n)
    _sample_kernel(x, bound, eps, rng.stream_seed(seed), out)
    return out


register_mechanism(MechanismSpec(
    "truncated_laplace", "trunc(x, B) + Lap(2B/eps): zero beyond B, then Laplace; eps-LDP on R",
    "seed 003 Algorithm 4, Theorem 6",
    (Param("eps", "privacy level", real(0.0, low_open=True)),
     Param("bound", "truncation threshold B", real(0.0, low_open=True), 1.0)),
    sample_truncated_laplace, lambda p: (p["eps"], 0.0), -math.inf, math.inf))
