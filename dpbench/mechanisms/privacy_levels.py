"""Per-user privacy levels of the heterogeneous LDP model (seed 001 Def. 3, Sec. 4.2).

Each user t arrives with an i.i.d. privacy level eps_t ~ F, revealed to the
agent.  ``PrivacyLevels`` is the engine-side description of F:

* fixed             eps_t = eps (HoLDP)
* discrete          uniform on a set, e.g. F_D = U{0, 0.2, 1, 2, 100}
* truncated_gaussian N(mu, sd^2) clipped to [lo, hi], e.g. F_G = clip(N(1, 1), 0, 100)

``level_statistics`` gives the exact p0, alpha0, beta0, Q_L, Q_B, V_L, V_L'
and V_B of seed 001 Theorems 7/10 and Sec. 4.2 (reconstruction R17: the
expectations are conditional on eps_t >= eps_min).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import integrate, stats

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..validation import InputError, check_real, check_vector

FIXED, DISCRETE, TRUNCATED_GAUSSIAN = 0, 1, 2


class PrivacyLevels(NamedTuple):
    kind: int
    values: np.ndarray
    mu: float
    sd: float
    lo: float
    hi: float


@cached_njit
def draw_level(kind, values, mu, sd, lo, hi):
    """(eps_t, j): one eps_t from the fields of a :class:`PrivacyLevels` and, for a fixed or
    discrete distribution, its index j in ``values`` (-1 for a continuous one: a curator keeps
    what it computes from a level in a table by j, ``ldp_curators.level_row``).  Fixed levels
    consume no randomness; discrete ones one uniform; the truncated Gaussian one normal draw.
    (Components hold these fields flat: numba cannot pass a nested tuple holding an array into
    a parallel loop.)"""
    if kind == 0:
        return values[0], 0
    if kind == 1:
        n = values.shape[0]
        j = int(rng.uniform() * n)
        if j >= n:
            j = n - 1
        return values[j], j
    x = rng.normal(mu, sd)
    if x < lo:
        return lo, -1
    if x > hi:
        return hi, -1
    return x, -1


def fixed(eps: float) -> PrivacyLevels:
    eps = check_real("eps", eps, low=0.0, low_open=True)
    return PrivacyLevels(FIXED, np.array([eps]), 0.0, 0.0, eps, eps)


def discrete(values) -> PrivacyLevels:
    vals = check_vector("eps_values", values, low=0.0)
    return PrivacyLevels(DISCRETE, vals, 0.0, 0.0, float(vals.min()), float(vals.max()))


def truncated_gaussian(mu: float = 1.0, sd: float = 1.0, lo: float = 0.0, hi: float = 100.0) -> PrivacyLevels:
    mu = check_real("eps_mu", mu)
    sd = check_real("eps_sd", sd, low=0.0, low_open=True)
    lo = check_real("eps_lo", lo, low=0.0)
    hi = check_real("eps_hi", hi, low=lo, low_open=True)
    return PrivacyLevels(TRUNCATED_GAUSSIAN, np.zeros(1), mu, sd, lo, hi)


#: The paper's two user pools (seed 001 Sec. 4.2).
PAPER_DISCRETE = (0.0, 0.2, 1.0, 2.0, 100.0)


def make_levels(kind: str, *, eps=None, values=None, mu=1.0, sd=1.0, lo=0.0, hi=100.0) -> PrivacyLevels:
    if kind == "fixed":
        if eps is None:
            raise InputError("eps_dist='fixed' needs eps")
        return fixed(eps)
    if kind == "discrete":
        return discrete(PAPER_DISCRETE if values is None else values)
    if kind == "truncated_gaussian":
        return truncated_gaussian(mu, sd, lo, hi)
    raise InputError(f"unknown eps_dist {kind!r}; allowed values: discrete, fixed, truncated_gaussian")


# ------------------------------------------------------ exact statistics
def _beta_factor(e):
    return 1.0 / math.tanh(e / 2.0) ** 2


def level_statistics(levels: PrivacyLevels, eps_min: float) -> dict:
    """p0, alpha0, beta0, Q_L, Q_B, V_L, V_L', V_B for threshold ``eps_min`` (seed 001 A.3)."""
    eps_min = check_real("eps_min", eps_min, low=0.0, low_open=True)
    funcs = {"alpha": lambda e: e ** -2, "beta": _beta_factor, "vl": lambda e: (1 + 4 / e) ** 2}
    if levels.kind in (FIXED, DISCRETE):
        vals = np.asarray(levels.values, dtype=float)
        acc = vals[vals >= eps_min]
        p0 = acc.size / vals.size
        cond = {k: (np.mean([f(e) for e in acc]) if acc.size else math.inf) for k, f in funcs.items()}
        eps_max = float(vals.max())
    else:
        dist = stats.norm(levels.mu, levels.sd)
        lo, hi = levels.lo, levels.hi
        a = max(eps_min, lo)
        # continuous part on (a, hi) plus the atom at hi (and at lo if eps_min <= lo)
        p_hi = dist.sf(hi)
        p_lo_atom = dist.cdf(lo) if (eps_min <= lo and lo > 0) else 0.0
        p_cont = dist.cdf(hi) - dist.cdf(a) if a < hi else 0.0
        p0 = p_cont + p_hi + p_lo_atom
        cond = {}
        for k, f in funcs.items():
            # in u = log(eps): the 1/eps^2 factors near a small eps_min become smooth exponentials
            val = integrate.quad(lambda u, f=f: f(math.exp(u)) * dist.pdf(math.exp(u)) * math.exp(u),
                                 math.log(a), math.log(hi), limit=200)[0] if a < hi else 0.0
            val += f(hi) * p_hi + (f(lo) * p_lo_atom if p_lo_atom else 0.0)
            cond[k] = val / p0 if p0 > 0 else math.inf
        eps_max = hi
    if p0 == 0:
        raise InputError(f"eps_min={eps_min} rejects every user of this privacy-level distribution")
    alpha0, beta0 = cond["alpha"], cond["beta"]
    return {
        "p0": p0, "alpha0": alpha0, "beta0": beta0,
        "Q_L": eps_min ** -2 - eps_max ** -2, "Q_B": _beta_factor(eps_min) - _beta_factor(eps_max),
        "V_L": cond["vl"] / p0, "V_L_alt": (1 + 4 * math.sqrt(alpha0)) ** 2 / p0, "V_B": beta0 / p0,
        "eps_max": eps_max,
    }
