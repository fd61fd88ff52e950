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

One report is (float-safe, the default) trunc(r, B) on
the lattice g = 2^(floor(log2 min(2B/eps, 32B)) - 16) of :mod:`.lattice`, whose span over
[-B, B] is exact, plus the lattice Laplace calibrated to it: eps-LDP as implemented) or
``truncated_laplace_report`` (``arithmetic="float"``: the paper's trunc(r, B) + Lap(2B/eps) in
floating point); the engine component ``TruncatedLaplace`` privatises with it (bound: the
broadcast B_tau when the learner broadcasts one) and its ``respond`` draws the m users' noises
at once (Gamma(m, b) - Gamma(m, b), the law of a sum of m Lap(b), rounded to the lattice): the
batched form.  ``TruncatedLaplaceMechanism(eps=, bound=)`` (catalog ``truncated_laplace``)
samples and is audited through the same component.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import Param, real
from ..engine.components import broadcast_or, draw, implements, privatize, respond_broadcast
from ..engine.mechanism import CatalogMechanism
from .lattice import (
    ARITHMETIC_PARAM,
    LATTICE_PARAM,
    laplace_on_lattice,
    laplace_sum_steps,
    lattice_plan,
    range_plan,
    to_steps,
)


@cached_njit
def truncate(x, bound):
    """x if |x| <= bound else 0 (the paper's x * 1{|x| <= B})."""
    return x if abs(x) <= bound else 0.0


@cached_njit
def truncation_noise_scale(bound, eps):
    """2B/eps: trunc(., B) moves by at most 2B when one reward changes (Alg. 4; Theorem 6)."""
    return 2.0 * bound / eps


@cached_njit
def truncated_laplace_report(r, bound, eps):
    """One user's report trunc(r, B) + Lap(2B/eps) in floating point (eps-LDP on R in exact
    arithmetic; ``arithmetic="float"``); eps = 0: trunc(r, B) only."""
    y = truncate(r, bound)
    if eps > 0.0:
        y += rng.laplace(truncation_noise_scale(bound, eps))
    return y


class TruncatedLaplace(NamedTuple):
    """Users truncate at B and add Lap(2B/eps): B = ``bound``, or the bound the learner
    broadcasts (positive) when it broadcasts one (B_tau of Alg. 3/4); eps = 0: truncation
    only (the central-DP agent's own pre-processing, no privacy by itself).  On the lattice
    (``lattice``: the plan of ``range_plan`` for the broadcast bound, or (``g``, ``s``) for
    ``bound`` when ``g`` > 0) or in floating point."""
    eps: float
    bound: float
    lattice: bool = True
    g: float = 0.0
    s: float = 0.0


@cached_njit
def _truncation_plan(mech, public):
    """(B, g, s): the bound in force and its lattice plan."""
    if public > 0.0 or mech.g <= 0.0:
        bound = broadcast_or(public, mech.bound)
        g, s = range_plan(-bound, bound, mech.eps)
        return bound, g, s
    return mech.bound, mech.g, mech.s


@implements(privatize, TruncatedLaplace)
def _truncated_laplace_privatize(mech, r, public):
    if mech.lattice and mech.eps > 0.0:
        bound, g, s = _truncation_plan(mech, public)
        return laplace_on_lattice(to_steps(truncate(r, bound), 1.0 / g), s, g)
    return truncated_laplace_report(r, broadcast_or(public, mech.bound), mech.eps)


@implements(respond_broadcast, TruncatedLaplace)
def _truncated_laplace_respond(mech, env, arm, m, public):
    bound = broadcast_or(public, mech.bound)
    if mech.lattice and mech.eps > 0.0:
        bound, g, s = _truncation_plan(mech, public)
        inv_g = 1.0 / g
        steps = 0.0
        for _ in range(m):
            steps += to_steps(truncate(draw(env, arm), bound), inv_g)
        return (steps + laplace_sum_steps(m, s)) * g, mech.eps
    total = 0.0
    for _ in range(m):
        total += truncate(draw(env, arm), bound)
    if mech.eps > 0.0:
        total += rng.laplace_sum(m, truncation_noise_scale(bound, mech.eps))
    return total, mech.eps


class TruncatedLaplaceMechanism(CatalogMechanism):
    """trunc(x, B) + Lap(2B/eps) of one reward x in R: eps-LDP (seed 003 Algorithm 4,
    Theorem 6; truncation zeroes, spec Sec. 2.0), float-safe on a lattice by default.  Engine
    component :class:`TruncatedLaplace` (LDP Robust SE, with the broadcast B_tau in place of
    ``bound``)."""

    NAME = "truncated_laplace"
    SUMMARY = "trunc(x, B) + Lap(2B/eps): zero beyond B, then Laplace; eps-LDP on R (on a lattice)"
    SOURCE = "seed 003 Algorithm 4, Theorem 6"
    PARAMS = (Param("eps", "privacy level", real(0.0, low_open=True)),
              Param("bound", "truncation threshold B", real(0.0, low_open=True), 1.0), ARITHMETIC_PARAM,
              LATTICE_PARAM)
    AUDIT = {"eps": 1.0, "bound": 1.0}

    def _setup(self, *, eps, bound, arithmetic, lattice):
        g, s = lattice_plan(eps, 2.0 * bound, span=(-bound, bound), lattice=lattice) if arithmetic == "lattice" \
            else (0.0, 0.0)
        self._claim(TruncatedLaplace(eps, bound, arithmetic == "lattice", g, s), eps=eps,
                    input_range=(-math.inf, math.inf),
                    params={"eps": eps, "bound": bound, "arithmetic": arithmetic, "lattice": lattice},
                    arithmetic=arithmetic)


TruncatedLaplaceMechanism.register()
