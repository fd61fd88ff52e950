"""Stochastic K-armed reward environments (seed 000 Sec. 5 and App. B).

Three engine components:

* ``BernoulliArms``  Bernoulli(mu_a); a batch of m pulls is one binomial draw.
* ``GaussianArms``   N(mu_a, sigma_a^2); a batch is one normal draw.
* ``MixedArms``      a law per arm: Bernoulli, Beta(a, b), two-point, Uniform, Gaussian
                     (e.g. the mixed instance of seed 000 Fig 1(e,f)).

Catalog names: ``bernoulli``, ``beta``, ``two_point``, ``uniform``,
``gaussian`` (all parameterised by the arm means), ``mixed`` (the paper's mixed
instance) and ``mixture`` (explicit laws, e.g. ``"bernoulli(0.9);beta(4,1)"``).
"""
from __future__ import annotations

import math
import re
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.catalog import EnvironmentSpec, Instance, Param, real, register_environment, text, vector
from ..engine.components import draw, draw_sum, implements
from ..validation import InputError

#: The 20-arm instance of seed 000/001: 0.9, 5 x 0.8, 5 x 0.7, 5 x 0.6, 4 x 0.5.
TWENTY_ARM_MEANS = (0.9,) + (0.8,) * 5 + (0.7,) * 5 + (0.6,) * 5 + (0.5,) * 4


# ------------------------------------------------------------ components
class BernoulliArms(NamedTuple):
    means: np.ndarray


@implements(draw, BernoulliArms)
def _bernoulli_draw(env, arm):
    return rng.bernoulli(env.means[arm])


@implements(draw_sum, BernoulliArms)
def _bernoulli_draw_sum(env, arm, m):
    if m == 1:
        return rng.bernoulli(env.means[arm])
    return rng.binomial(m, env.means[arm])


class GaussianArms(NamedTuple):
    means: np.ndarray
    sigmas: np.ndarray


@implements(draw, GaussianArms)
def _gaussian_draw(env, arm):
    return rng.normal(env.means[arm], env.sigmas[arm])


@implements(draw_sum, GaussianArms)
def _gaussian_draw_sum(env, arm, m):
    return rng.normal(m * env.means[arm], math.sqrt(m) * env.sigmas[arm])


# law codes of MixedArms
BERNOULLI, BETA, TWO_POINT, UNIFORM, GAUSSIAN = 0, 1, 2, 3, 4


class MixedArms(NamedTuple):
    """Arm a has law ``laws[a]`` with parameters ``p1[a], p2[a], p3[a]``:
    Bernoulli(p1) | Beta(p1, p2) | p2 w.p. p3 else p1 | U[p1, p2] | N(p1, p2^2)."""
    laws: np.ndarray
    p1: np.ndarray
    p2: np.ndarray
    p3: np.ndarray


@implements(draw, MixedArms)
def _mixed_draw(env, arm):
    law = env.laws[arm]
    if law == 0:
        return rng.bernoulli(env.p1[arm])
    if law == 1:
        return rng.beta(env.p1[arm], env.p2[arm])
    if law == 2:
        return env.p2[arm] if rng.uniform() < env.p3[arm] else env.p1[arm]
    if law == 3:
        return env.p1[arm] + (env.p2[arm] - env.p1[arm]) * rng.uniform()
    return rng.normal(env.p1[arm], env.p2[arm])


# ------------------------------------------------------------ builders
def _law_mean(law, a, b, c):
    return {BERNOULLI: a, BETA: a / (a + b) if a + b > 0 else 0.0, TWO_POINT: a + c * (b - a),
            UNIFORM: 0.5 * (a + b), GAUSSIAN: a}[law]


def mixed_instance(laws, p1, p2, p3, name="mixture", params=None) -> Instance:
    laws = np.asarray(laws, dtype=np.int64)
    p1, p2, p3 = (np.asarray(v, dtype=np.float64) for v in (p1, p2, p3))
    means = np.array([_law_mean(int(law), a, b, c) for law, a, b, c in zip(laws, p1, p2, p3)])
    bounded = not (laws == GAUSSIAN).any()
    low = 0.0 if bounded else -math.inf
    high = 1.0 if bounded else math.inf
    if bounded:
        lo = np.where(laws == BETA, 0.0, np.where(laws == BERNOULLI, 0.0, np.minimum(p1, p2)))
        hi = np.where(laws == BETA, 1.0, np.where(laws == BERNOULLI, 1.0, np.maximum(p1, p2)))
        low, high = float(lo.min()), float(hi.max())
    return Instance(MixedArms(laws, p1, p2, p3), means, low, high, name, params or {})


def bernoulli(means) -> Instance:
    means = np.asarray(means, dtype=np.float64)
    return Instance(BernoulliArms(means), means.copy(), 0.0, 1.0, "bernoulli", {"means": means.tolist()})


def gaussian(means, sigma=1.0) -> Instance:
    means = np.asarray(means, dtype=np.float64)
    sig = np.broadcast_to(np.asarray(sigma, dtype=np.float64), means.shape).copy()
    return Instance(GaussianArms(means, sig), means.copy(), -math.inf, math.inf, "gaussian",
                    {"means": means.tolist(), "sigma": sig.tolist()})


def beta(means, concentration=5.0) -> Instance:
    means = np.asarray(means, dtype=np.float64)
    if ((means <= 0) | (means >= 1)).any():
        raise InputError(f"beta rewards need means in (0, 1) (got {means.min()!r}..{means.max()!r})")
    n = means.size
    return mixed_instance(np.full(n, BETA), means * concentration, (1 - means) * concentration,
                          np.zeros(n), "beta", {"means": means.tolist(), "concentration": concentration})


def two_point(means, spread=0.3) -> Instance:
    means = np.asarray(means, dtype=np.float64)
    lo, hi = means - spread, means + spread
    if (lo < 0).any() or (hi > 1).any():
        raise InputError(f"two_point rewards mean +/- spread must lie in [0, 1]; spread={spread} "
                         f"is too large for means {means.min():g}..{means.max():g}")
    n = means.size
    return mixed_instance(np.full(n, TWO_POINT), lo, hi, np.full(n, 0.5), "two_point",
                          {"means": means.tolist(), "spread": spread})


def uniform(means) -> Instance:
    """U[mu - w, mu + w] with the widest w = min(mu, 1 - mu) inside [0, 1]."""
    means = np.asarray(means, dtype=np.float64)
    w = np.minimum(means, 1 - means)
    n = means.size
    return mixed_instance(np.full(n, UNIFORM), means - w, means + w, np.zeros(n), "uniform",
                          {"means": means.tolist()})


#: laws of the mixed instance (seed 000 Fig 1(e,f); seed 001 Fig 1(c,d)), by arm mean
_PAPER_MIXED = {0.9: (BERNOULLI, 0.9, 0.0, 0.0), 0.8: (BETA, 4.0, 1.0, 0.0),
                0.7: (TWO_POINT, 0.4, 1.0, 0.5), 0.6: (BERNOULLI, 0.6, 0.0, 0.0),
                0.5: (UNIFORM, 0.0, 1.0, 0.0)}


def paper_mixed(means=TWENTY_ARM_MEANS) -> Instance:
    rows = []
    for mu in means:
        key = round(float(mu), 10)
        if key not in _PAPER_MIXED:
            raise InputError(f"the 'mixed' instance defines laws only for means "
                             f"{sorted(_PAPER_MIXED)} (got {mu}); use 'mixture' with explicit laws")
        rows.append(_PAPER_MIXED[key])
    laws, p1, p2, p3 = zip(*rows)
    return mixed_instance(laws, p1, p2, p3, "mixed", {"means": [float(m) for m in means]})


_LAW_RE = re.compile(r"^\s*(bernoulli|beta|two_point|uniform|gaussian)\s*\(([^)]*)\)\s*$")
_LAW_ARITY = {"bernoulli": (1, BERNOULLI), "beta": (2, BETA), "two_point": (3, TWO_POINT),
              "uniform": (2, UNIFORM), "gaussian": (2, GAUSSIAN)}


def mixture(laws) -> Instance:
    """Explicit per-arm laws: ``"bernoulli(0.9);beta(4,1);two_point(0.4,1,0.5);uniform(0,1);gaussian(0.5,1)"``."""
    items = laws.split(";") if isinstance(laws, str) else list(laws)
    codes, p1, p2, p3 = [], [], [], []
    for item in items:
        m = _LAW_RE.match(item)
        if not m:
            raise InputError(f"laws: cannot parse {item!r}; expected e.g. bernoulli(0.9), beta(4,1), "
                             "two_point(low,high,p_high), uniform(low,high), gaussian(mu,sigma)")
        kind, args = m.group(1), [float(v) for v in m.group(2).split(",") if v.strip()]
        arity, code = _LAW_ARITY[kind]
        if kind == "two_point" and len(args) == 2:
            args.append(0.5)
        if len(args) != arity:
            raise InputError(f"laws: {kind} takes {arity} parameters (got {item!r})")
        args += [0.0] * (3 - len(args))
        _check_law(kind, args, item)
        codes.append(code), p1.append(args[0]), p2.append(args[1]), p3.append(args[2])
    if len(codes) < 2:
        raise InputError("laws: a bandit needs at least 2 arms")
    return mixed_instance(codes, p1, p2, p3, "mixture", {"laws": ";".join(i.strip() for i in items)})


def _check_law(kind, args, item):
    a, b, c = args
    ok = {"bernoulli": 0 <= a <= 1, "beta": a > 0 and b > 0,
          "two_point": 0 <= c <= 1 and np.isfinite(a) and np.isfinite(b),
          "uniform": a < b, "gaussian": b > 0}[kind]
    if not ok or not all(np.isfinite(args)):
        raise InputError(f"laws: invalid parameters in {item!r}")


# ------------------------------------------------------------ catalog
_MEANS_01 = Param("means", "arm means, comma-separated", vector(0.0, 1.0, min_len=2),
                  list(TWENTY_ARM_MEANS))

register_environment(EnvironmentSpec(
    "bernoulli", "Bernoulli(mu_a) arms (seed 000 Fig 1(a-d))", (_MEANS_01,), bernoulli))
register_environment(EnvironmentSpec(
    "beta", "Beta arms with mean mu_a and a + b = concentration",
    (_MEANS_01, Param("concentration", "a + b of each Beta law", real(0, low_open=True), 5.0)), beta))
register_environment(EnvironmentSpec(
    "two_point", "uniform on {mu_a - spread, mu_a + spread}",
    (_MEANS_01, Param("spread", "half distance between the two points", real(0, 0.5), 0.3)), two_point))
register_environment(EnvironmentSpec(
    "uniform", "U[mu_a - w, mu_a + w], w = min(mu_a, 1 - mu_a)", (_MEANS_01,), uniform))
register_environment(EnvironmentSpec(
    "gaussian", "N(mu_a, sigma^2) arms, unbounded (seed 000 App. B Fig 2)",
    (Param("means", "arm means", vector(min_len=2), list(TWENTY_ARM_MEANS)),
     Param("sigma", "noise standard deviation", real(0, low_open=True), 1.0)), gaussian))
register_environment(EnvironmentSpec(
    "mixed", "the mixed instance of seed 000 Fig 1(e,f): Bernoulli, Beta(4,1), {0.4,1}, U[0,1] by mean",
    (_MEANS_01,), paper_mixed))
register_environment(EnvironmentSpec(
    "mixture", "explicit per-arm laws, e.g. 'bernoulli(0.9);beta(4,1);uniform(0,1)'",
    (Param("laws", "per-arm laws separated by ';'",
           text("text: bernoulli(p), beta(a,b), two_point(lo,hi,p), uniform(lo,hi) or gaussian(mu,sd) "
                "per arm")),), mixture))
