"""The LDP curators of Ren et al. (seed 000 Sec. 3; seed 001 Sec. 3).

* CTL(eps)    r -> r + Laplace(1/eps)                        (Curator 1, Lemma 2)
* CTB(eps)    r -> Bernoulli((r e^eps + 1 - r) / (1 + e^eps)) (Curator 3, Lemma 5; R9)
* CTL-S, CTB-S the same applied to sigmoid(r), for unbounded rewards (Curators 5/6, Lemmas 8/9)
* debias g(x; eps) = 1/2 + (x - 1/2) / tanh(eps/2)            (seed 001 M6, unbiased for mu)

Each curator is both an engine component (``respond`` pulls the arm and
privatises; heterogeneous versions draw the user's eps_t first and return it)
and a stand-alone vectorised sampler ``sample_*(x, n, seed, eps) -> ndarray``
used by the audits.  ``tanh`` forms avoid overflow and cancellation:
p_eps(r) = 1/2 + (r - 1/2) tanh(eps/2), beta(eps) = coth^2(eps/2).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import MechanismSpec, Param, real, register_mechanism
from ..engine.components import draw, draw_sum, implements, respond
from ..validation import check_eps, check_int
from .privacy_levels import PrivacyLevels, draw_level


# ------------------------------------------------------------- formulas
@cached_njit
def sigmoid(x):
    """s(x) = 1 / (1 + e^-x), overflow-safe."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


@cached_njit
def ctb_probability(r, eps):
    """P[CTB(r) = 1] = (r e^eps + 1 - r)/(1 + e^eps) = 1/2 + (r - 1/2) tanh(eps/2)."""
    return contracted(r, math.tanh(0.5 * eps))


@cached_njit
def contracted(r, c):
    """1/2 + (r - 1/2) c: ``ctb_probability`` given c = tanh(eps/2)."""
    return 0.5 + (r - 0.5) * c


@cached_njit
def contraction(eps):
    """c_eps = (e^eps - 1)/(e^eps + 1) = tanh(eps/2): CTB's gap factor (Lemma 5)."""
    return math.tanh(0.5 * eps)


@cached_njit
def bernoulli_factor(eps):
    """beta(eps) = ((e^eps + 1)/(e^eps - 1))^2 = coth^2(eps/2) (Thm 6)."""
    c = math.tanh(0.5 * eps)
    return 1.0 / (c * c)


def laplace_factor(eps):
    """F_L(eps) = (1 + 4/eps)^2 (Thm 4)."""
    return (1.0 + 4.0 / eps) ** 2


@cached_njit
def debias(x, eps):
    """g(x; eps) = 1/2 + (x - 1/2)/c_eps, so E[g(CTB(R; eps); eps)] = E[R] (seed 001 M6)."""
    return 0.5 + (x - 0.5) / math.tanh(0.5 * eps)


# ------------------------------------------------------ engine components
class Direct(NamedTuple):
    """No privacy: the agent sees the raw reward (optionally sigmoid-mapped).
    Used by UCB1 and by central-DP policies, which privatise internally."""
    sigmoid: bool


@implements(respond, Direct)
def _direct_respond(mech, env, arm, m):
    if not mech.sigmoid:
        return draw_sum(env, arm, m), 0.0
    total = 0.0
    for _ in range(m):
        total += sigmoid(draw(env, arm))
    return total, 0.0


class CTL(NamedTuple):
    """Convert-to-Laplace (sigmoid=False) or CTL-S (sigmoid=True) at level eps."""
    eps: float
    sigmoid: bool


@implements(respond, CTL)
def _ctl_respond(mech, env, arm, m):
    scale = 1.0 / mech.eps
    total = 0.0
    for _ in range(m):
        r = draw(env, arm)
        if mech.sigmoid:
            r = sigmoid(r)
        total += r + rng.laplace(scale)
    return total, mech.eps


class CTB(NamedTuple):
    """Convert-to-Bernoulli (sigmoid=False) or CTB-S (sigmoid=True) at level eps; build it with
    ``CTB.at(eps, sigmoid)``.  ``contraction`` = tanh(eps/2) is computed once: numba calls
    libm's tanh as an opaque function, which LLVM cannot hoist out of the loop."""
    eps: float
    sigmoid: bool
    contraction: float

    @classmethod
    def at(cls, eps, sigmoid):
        return cls(eps, sigmoid, math.tanh(0.5 * eps))


@implements(respond, CTB)
def _ctb_respond(mech, env, arm, m):
    total = 0.0
    for _ in range(m):
        r = draw(env, arm)
        if mech.sigmoid:
            r = sigmoid(r)
        total += rng.bernoulli(contracted(r, mech.contraction))
    return total, mech.eps


class HeteroCurator(NamedTuple):
    """CTL / CTB (and their -S variants) with a per-user level eps_t ~ levels (seed 001
    Curators 1 and 3, R9): ``binary`` selects CTB, else CTL.

    Order of draws per round: eps_t, then (if eps_t > 0) the reward, then the noise.
    A user with eps_t = 0 sends nothing usable: no reward or noise is drawn, the
    response is (0, 0) and every HeLDP agent discards it (it still costs regret).
    The level distribution's fields are held flat (see ``privacy_levels.draw_level``)."""
    level_kind: int
    level_values: np.ndarray
    level_mu: float
    level_sd: float
    level_lo: float
    level_hi: float
    sigmoid: bool
    binary: bool

    @classmethod
    def ctl(cls, levels: PrivacyLevels, sigmoid: bool):
        return cls(*levels, sigmoid, False)

    @classmethod
    def ctb(cls, levels: PrivacyLevels, sigmoid: bool):
        return cls(*levels, sigmoid, True)


@implements(respond, HeteroCurator)
def _hetero_respond(mech, env, arm, m):
    eps = draw_level(mech.level_kind, mech.level_values, mech.level_mu, mech.level_sd,
                     mech.level_lo, mech.level_hi)
    if eps <= 0.0:
        return 0.0, 0.0
    r = draw(env, arm)
    if mech.sigmoid:
        r = sigmoid(r)
    if mech.binary:
        return rng.bernoulli(ctb_probability(r, eps)), eps
    return r + rng.laplace(1.0 / eps), eps


# ------------------------------------------------- stand-alone samplers
@cached_njit
def _sample_ctl_kernel(x, eps, sig, seed, out):
    np.random.seed(seed)
    m = sigmoid(x) if sig else x
    scale = 1.0 / eps
    for i in range(out.shape[0]):
        out[i] = m + rng.laplace(scale)


@cached_njit
def _sample_ctb_kernel(x, eps, sig, seed, out):
    np.random.seed(seed)
    p = ctb_probability(sigmoid(x) if sig else x, eps)
    for i in range(out.shape[0]):
        out[i] = 1.0 if np.random.random() < p else 0.0


def _sampler(kernel, sig, bounded):
    def sample(x, n, seed, *, eps):
        """n i.i.d. outputs for input x (see module docstring)."""
        eps = check_eps(eps)
        n = check_int("n", n, low=1)
        x = float(x)
        if bounded and not 0.0 <= x <= 1.0:
            from ..validation import InputError
            raise InputError(f"x must lie in [0, 1] for this mechanism (got {x})")
        out = np.empty(n, dtype=np.float64)
        kernel(x, eps, sig, rng.stream_seed(seed), out)
        return out
    return sample


sample_ctl = _sampler(_sample_ctl_kernel, False, True)
sample_ctb = _sampler(_sample_ctb_kernel, False, True)
sample_ctl_s = _sampler(_sample_ctl_kernel, True, False)
sample_ctb_s = _sampler(_sample_ctb_kernel, True, False)
for _f, _n in ((sample_ctl, "sample_ctl"), (sample_ctb, "sample_ctb"),
               (sample_ctl_s, "sample_ctl_s"), (sample_ctb_s, "sample_ctb_s")):
    _f.__name__ = _f.__qualname__ = _n

_EPS = (Param("eps", "privacy level", real(0.0, low_open=True)),)


def _claim(p):
    return p["eps"], 0.0


register_mechanism(MechanismSpec("ctl", "CTL: r + Laplace(1/eps), eps-LDP on [0,1]",
                                 "seed 000 Curator 1, Lemma 2", _EPS, sample_ctl, _claim))
register_mechanism(MechanismSpec("ctb", "CTB: Bernoulli((r e^eps + 1 - r)/(1 + e^eps)), eps-LDP on [0,1]",
                                 "seed 000 Curator 3, Lemma 5", _EPS, sample_ctb, _claim))
register_mechanism(MechanismSpec("ctl_s", "CTL-S: sigmoid(r) + Laplace(1/eps), eps-LDP on R",
                                 "seed 000 Curator 5, Lemma 8", _EPS, sample_ctl_s, _claim,
                                 -math.inf, math.inf))
register_mechanism(MechanismSpec("ctb_s", "CTB-S: CTB applied to sigmoid(r), eps-LDP on R",
                                 "seed 000 Curator 6, Lemma 9", _EPS, sample_ctb_s, _claim,
                                 -math.inf, math.inf))
