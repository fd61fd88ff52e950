"""Heavy-tailed reward environments of Tao et al. (seed 003, Sec. 6 and App. D).

* ``ParetoArms``    classic Pareto(alpha_a, lambda_a): density alpha lambda^alpha / x^(alpha+1)
                    on x >= lambda, drawn by inversion X = lambda (1 - U)^(-1/alpha)
                    (NOT numpy's ``pareto``, which is the shifted Lomax law).
* ``StudentTArms``  mu_a + s_a T_nu, T_nu = Z / sqrt(G / nu), G ~ Gamma(nu/2, 2).

The paper's instances (spec Sec. 5.1): K = 5 arms with means ``SETTINGS`` S1
(linear gaps), S2 (convex) and S3 (concave), Pareto shape alpha = 1.05 + v
and scale lambda_a = (alpha - 1) mu_a / alpha, so that the mean is mu_a and
the (1+v)-th moment alpha lambda^(1+v) / (alpha - 1 - v) exists but only
barely; u = max_a of it (5.5946 for v = 0.5, 8.1421 for v = 0.9).

``raw_moments(instance, p)`` gives E|X_a|^p exactly (closed forms; one
numerical integral for a shifted Student-t) for every environment of dpbench,
and ``moment_bound`` turns a declared (v, u) into the checked bound the
robust policies use: a declared u below the true moment is an ``InputError``.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import integrate, special

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import EnvironmentSpec, Instance, Param, choice, real, register_environment, vector
from ..engine.components import draw, implements
from ..validation import InputError, check_real
from . import stochastic_arms as sa
from .replay import ReplayArms

#: The paper's three 5-armed settings (spec Sec. 5.1).
SETTINGS = {
    "S1": (0.9, 0.7, 0.5, 0.3, 0.1),                                   # linear gaps
    "S2": tuple(round(0.05 * (a - 5) ** 2 + 0.1, 10) for a in range(1, 6)),   # convex
    "S3": tuple(round(-0.05 * (a - 1) ** 2 + 0.9, 10) for a in range(1, 6)),  # concave
}

#: The paper's Pareto shape: alpha = PAPER_SHAPE_OFFSET + v.
PAPER_SHAPE_OFFSET = 1.05


# ------------------------------------------------------------ components
class ParetoArms(NamedTuple):
    shapes: np.ndarray      # alpha_a > 1
    scales: np.ndarray      # lambda_a > 0 (the minimum reward)


@cached_njit
def pareto(shape, scale):
    """Classic Pareto(shape, scale) by inversion of one uniform."""
    return scale * (1.0 - rng.uniform()) ** (-1.0 / shape)


@implements(draw, ParetoArms)
def _pareto_draw(env, arm):
    return pareto(env.shapes[arm], env.scales[arm])


class StudentTArms(NamedTuple):
    means: np.ndarray
    scales: np.ndarray
    dofs: np.ndarray        # nu_a > 1


@cached_njit
def student_t(dof):
    """Standard Student-t(dof): one normal, then one Gamma(dof/2, 2) (chi-square)."""
    z = rng.normal(0.0, 1.0)
    g = rng.gamma(0.5 * dof, 2.0)
    return z / math.sqrt(g / dof)


@implements(draw, StudentTArms)
def _student_t_draw(env, arm):
    return env.means[arm] + env.scales[arm] * student_t(env.dofs[arm])


# ------------------------------------------------------------ exact moments
def pareto_raw_moment(shape: float, scale: float, p: float) -> float:
    """E X^p = alpha lambda^p / (alpha - p) for p < alpha, else infinity."""
    return shape * scale ** p / (shape - p) if p < shape else math.inf


def student_t_raw_moment(mean: float, scale: float, dof: float, p: float) -> float:
    """E|mean + scale T_dof|^p: closed form when mean = 0, else one adaptive integral
    (split at the kink, relative tolerance 1e-12); infinity for p >= dof."""
    if p >= dof:
        return math.inf
    central = (scale ** p * dof ** (p / 2) * math.exp(special.gammaln((p + 1) / 2) + special.gammaln((dof - p) / 2)
                                                       - special.gammaln(dof / 2)) / math.sqrt(math.pi))
    if mean == 0.0:
        return central
    kink = -mean / scale

    def f(x):
        return abs(mean + scale * x) ** p * math.exp(special.gammaln((dof + 1) / 2) - special.gammaln(dof / 2)
                                                     - 0.5 * math.log(dof * math.pi)
                                                     - (dof + 1) / 2 * math.log1p(x * x / dof))
    total = 0.0
    for lo, hi in ((-math.inf, kink), (kink, math.inf)):
        val, _ = integrate.quad(f, lo, hi, epsabs=0.0, epsrel=1e-12, limit=500)
        total += val
    return total


def gaussian_raw_moment(mean: float, sd: float, p: float) -> float:
    """E|X|^p for X ~ N(mean, sd^2): sd^p 2^(p/2) Gamma((p+1)/2)/sqrt(pi) 1F1(-p/2; 1/2; -mean^2/(2 sd^2))."""
    return (sd ** p * 2 ** (p / 2) * math.exp(special.gammaln((p + 1) / 2)) / math.sqrt(math.pi)
            * special.hyp1f1(-p / 2, 0.5, -mean * mean / (2 * sd * sd)))


def _abs_power_integral(a, b, p):
    """int_a^b |x|^p dx."""
    def prim(x):
        return math.copysign(abs(x) ** (p + 1) / (p + 1), x)
    return prim(b) - prim(a)


def _mixed_raw_moment(law, p1, p2, p3, p):
    if law == sa.BERNOULLI:
        return p1
    if law == sa.BETA:
        return math.exp(special.betaln(p1 + p, p2) - special.betaln(p1, p2))
    if law == sa.TWO_POINT:
        return (1 - p3) * abs(p1) ** p + p3 * abs(p2) ** p
    if law == sa.UNIFORM:
        return _abs_power_integral(p1, p2, p) / (p2 - p1)
    return gaussian_raw_moment(p1, p2, p)


def raw_moments(instance: Instance, p: float) -> np.ndarray:
    """E|X_a|^p of every arm of a built environment (exact; inf where it does not exist)."""
    env = instance.env
    if isinstance(env, ParetoArms):
        vals = [pareto_raw_moment(a, lam, p) for a, lam in zip(env.shapes, env.scales)]
    elif isinstance(env, StudentTArms):
        vals = [student_t_raw_moment(m, s, d, p) for m, s, d in zip(env.means, env.scales, env.dofs)]
    elif isinstance(env, sa.BernoulliArms):
        vals = list(env.means)
    elif isinstance(env, sa.GaussianArms):
        vals = [gaussian_raw_moment(m, s, p) for m, s in zip(env.means, env.sigmas)]
    elif isinstance(env, sa.MixedArms):
        vals = [_mixed_raw_moment(int(law), a, b, c, p) for law, a, b, c in zip(env.laws, env.p1, env.p2, env.p3)]
    elif isinstance(env, ReplayArms):      # a fixed reward table (policy audits): its rows' moments
        vals = np.mean(np.abs(env.table) ** p, axis=1)
    else:
        raise InputError(f"the (1+v)-th moments of environment {instance.name!r} are unknown to dpbench; "
                         "it cannot be used with the heavy-tailed policies")
    return np.asarray(vals, dtype=np.float64)


def moment_bound(instance: Instance, v: float, u: float | None) -> tuple[float, np.ndarray]:
    """The checked moment bound (u, per-arm moments) of assumption (2): E|X_a|^(1+v) <= u.

    ``u=None`` takes the paper's choice u = max_a E|X_a|^(1+v).  A declared u
    below that, or an environment whose (1+v)-th moment is infinite, is an
    ``InputError`` naming ``u`` (resp. ``v``).
    """
    moments = raw_moments(instance, 1.0 + v)
    worst = int(np.argmax(moments))
    if not math.isfinite(moments[worst]):
        raise InputError(f"v must be such that every arm has a finite (1+v)-th moment: arm {worst} of "
                         f"environment {instance.name!r} has E|X|^(1+v) = infinity at v={v:g}"
                         f"{_tail_hint(instance, worst)}")
    if u is None:
        return float(moments[worst]), moments
    u = check_real("u", u, low=0.0, low_open=True)
    if u < moments[worst] * (1.0 - 1e-12):
        raise InputError(f"u must be >= max_a E|X_a|^(1+v) = {moments[worst]:.6g} (arm {worst} of environment "
                         f"{instance.name!r} at v={v:g}); got u={u:g}, which this distribution does not satisfy")
    return u, moments


def _tail_hint(instance, arm):
    env = instance.env
    if isinstance(env, ParetoArms):
        return f" (Pareto shape {env.shapes[arm]:g} <= 1+v)"
    if isinstance(env, StudentTArms):
        return f" (Student-t dof {env.dofs[arm]:g} <= 1+v)"
    return ""


# ------------------------------------------------------------ builders
def _setting_means(setting, means):
    if means is not None:
        return np.asarray(means, dtype=np.float64), None
    return np.asarray(SETTINGS[setting], dtype=np.float64), setting


def pareto_arms(means=None, shape=None, tail_v=None, setting="S1") -> Instance:
    """Pareto arms with means ``means`` (or the paper's ``setting``) and one shape:
    ``shape``, or the paper's 1.05 + ``tail_v`` (default tail_v = 0.5)."""
    mu, setting = _setting_means(setting, means)
    if (mu <= 0).any():
        raise InputError(f"means of Pareto arms must be > 0 (got {mu.min()!r})")
    if shape is not None and tail_v is not None:
        raise InputError("give either shape or tail_v (shape = 1.05 + tail_v), not both")
    if shape is None:
        shape = PAPER_SHAPE_OFFSET + (0.5 if tail_v is None else tail_v)
    shape = check_real("shape", shape, low=1.0, low_open=True)
    shapes = np.full(mu.shape, shape)
    scales = (shape - 1.0) * mu / shape
    params = {"means": mu.tolist(), "shape": shape}
    if setting:
        params["setting"] = setting
    return Instance(ParetoArms(shapes, scales), mu.copy(), float(scales.min()), math.inf, "pareto", params,
                    info={"pareto_scales": scales.tolist()})


def student_t_arms(means=None, dof=3.0, scale=1.0, setting="S1") -> Instance:
    """Student-t arms mu_a + scale T_dof (finite (1+v)-th moment iff 1 + v < dof)."""
    mu, setting = _setting_means(setting, means)
    k = mu.shape[0]
    params = {"means": mu.tolist(), "dof": dof, "scale": scale}
    if setting:
        params["setting"] = setting
    return Instance(StudentTArms(mu, np.full(k, float(scale)), np.full(k, float(dof))), mu.copy(),
                    -math.inf, math.inf, "student_t", params)


_SETTING = Param("setting", "the paper's arm means: S1 (0.9,0.7,0.5,0.3,0.1), S2 (0.9,0.55,0.3,0.15,0.1), "
                 "S3 (0.9,0.85,0.7,0.45,0.1); ignored when means is given", choice(*SETTINGS), "S1")

register_environment(EnvironmentSpec(
    "pareto", "Pareto arms with mean mu_a, shape 1.05 + tail_v (seed 003 Sec. 6)",
    (Param("means", "arm means (> 0); default: the setting's", vector(min_len=2), None),
     Param("shape", "Pareto shape alpha (> 1)", real(1.0, low_open=True), None),
     Param("tail_v", "paper's shape choice alpha = 1.05 + tail_v (default 0.5)", real(0.0, 1.0, low_open=True),
           None),
     _SETTING), pareto_arms))

register_environment(EnvironmentSpec(
    "student_t", "Student-t arms mu_a + scale * T_dof (heavy-tailed, symmetric)",
    (Param("means", "arm means; default: the setting's", vector(min_len=2), None),
     Param("dof", "degrees of freedom (> 1)", real(1.0, low_open=True), 3.0),
     Param("scale", "scale of the t law", real(0.0, low_open=True), 1.0),
     _SETTING), student_t_arms))
