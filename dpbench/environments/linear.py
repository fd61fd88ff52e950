"""Stochastic linear bandit environments with finite action sets (seed 004, Sec. 2 and 6).

The reward of action a is r = <a, theta*> + eta.  Assumption 1 of the paper asks
for ||a|| <= 1, ||theta*|| <= 1, 1-sub-Gaussian noise and |r| <= 1; the paper does
not say which law it simulated.  ``LinearArms`` offers:

* ``noise="rademacher"`` (default, spec §8.3 [PROPOSED DEFAULT]): r in {-1, +1} with
  P(r = +1) = (1 + mu_a)/2, mu_a = <a, theta*>.  Bounded in [-1, 1] (so the Laplace
  sensitivity is Delta_r = 2), mean exact, 1-sub-Gaussian; a batch of m pulls is one
  draw, 2 Binomial(m, (1 + mu_a)/2) - m.
* ``noise="gaussian"``: r = mu_a + N(0, sigma^2), a batch is one normal draw.  The
  rewards are unbounded, so no Laplace calibration is private; the private policies
  warn.

The engine's arms are the action indices; gaps are max_b mu_b - mu_a (pseudo-regret,
eq. 1).  Catalog names:

* ``linear_sphere``: K actions and theta* uniform on the unit sphere S^{d-1} (the paper's
  Sec. 6 data; the paper does not say whether it re-drew the instance per run): drawn once
  from ``instance_seed`` (``instance="fixed"``, the default) or afresh for every repetition
  from the repetition's seed (``instance="per_repetition"``, the spec's §8.3 default);
* ``linear``: explicit ``actions`` (K x d) and ``theta``;
* ``linear_sphere_net``: the continuous unit sphere replaced by a zeta-net (Lemma 1):
  the exact circle net for d = 2, a greedy net of a random pool otherwise.  Regret is
  measured against the best net action; the continuous optimum is ||theta*||, and
  ``info["discretization_gap"]`` is the extra per-round regret to it (<= zeta).

Nets (Lemma 1; the paper gives no construction): :func:`net_sphere_2d` (the unit
circle, M = ceil(pi / arcsin(zeta/2)) equally spaced points) and :func:`greedy_net`
(maximal zeta-separated subset of a finite pool, plus up to d points completing a
basis).  A finite action set whose points are > zeta apart is its own net.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import EnvironmentSpec, Instance, Param, choice, integer, real, register_environment, text
from ..engine.components import draw, draw_sum, implements
from ..validation import InputError, check_real

RADEMACHER, GAUSSIAN = 0, 1
NOISES = {"rademacher": RADEMACHER, "gaussian": GAUSSIAN}
_NORM_SLACK = 1e-9


# ------------------------------------------------------------ action sets and their nets (Lemma 1)
# ------------------------------------------------------------ nets (Lemma 1)
@cached_njit
def _greedy_net(pool, zeta, keep_out):
    """Maximal zeta-separated subset (scan order), then up to d pool points that complete
    a basis.  keep_out[i] = 1 for kept points; returns their number."""
    n, d = pool.shape
    kept = np.empty(n, dtype=np.int64)
    count = 0
    z2 = zeta * zeta
    for a in range(n):
        far = True
        for j in range(count):
            s = 0.0
            b = kept[j]
            for k in range(d):
                diff = pool[a, k] - pool[b, k]
                s += diff * diff
            if s <= z2:
                far = False
                break
        if far:
            kept[count] = a
            count += 1
    for a in range(n):
        keep_out[a] = 0
    for j in range(count):
        keep_out[kept[j]] = 1
    # completion: Gram–Schmidt of the kept points, then add pool points with new directions
    q = np.zeros((d, d))
    rank = 0
    for pass_ in range(2):
        for a in range(n):
            if rank >= d:
                break
            if (pass_ == 0) != (keep_out[a] == 1):
                continue
            r = pool[a].copy()
            for j in range(rank):
                s = 0.0
                for k in range(d):
                    s += r[k] * q[j, k]
                for k in range(d):
                    r[k] -= s * q[j, k]
            s = 0.0
            for k in range(d):
                s += r[k] * r[k]
            norm = math.sqrt(s)
            if norm > 1e-10:
                for k in range(d):
                    q[rank, k] = r[k] / norm
                rank += 1
                if pass_ == 1:
                    keep_out[a] = 1
                    count += 1
    return count


def net_sphere_2d(zeta: float, max_points: int = 10_000_000) -> np.ndarray:
    """Unit-circle zeta-net: angles 2 pi k / M, M = ceil(pi / arcsin(zeta / 2)) (spec §2.1)."""
    zeta = check_real("zeta", zeta, low=0.0, high=2.0, low_open=True)
    n = int(math.ceil(math.pi / math.asin(zeta / 2.0)))
    if n > max_points:
        raise InputError(f"zeta = {zeta:g} needs a net of {n} points (more than {max_points}); "
                         "use a larger zeta (the extra regret is at most T * zeta)")
    angles = 2.0 * math.pi * np.arange(n) / n
    return np.ascontiguousarray(np.column_stack([np.cos(angles), np.sin(angles)]))


def greedy_net(pool, zeta: float) -> np.ndarray:
    """Indices of a zeta-net of the finite set ``pool`` (rows) that spans span(pool)
    whenever pool spans R^d: a maximal zeta-separated subset, size <= (1 + 2/zeta)^d,
    plus at most d points (Lemma 1's "+ d")."""
    pool = check_actions(pool, "pool")
    zeta = check_real("zeta", zeta, low=0.0, low_open=True)
    keep = np.zeros(pool.shape[0], dtype=np.int64)
    _greedy_net(pool, zeta, keep)
    return np.flatnonzero(keep)


def check_actions(actions, name: str = "actions") -> np.ndarray:
    """A C-contiguous float64 (K, d) array of finite entries with K >= 1 and d >= 1."""
    try:
        arr = np.asarray(actions, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a K x d array of real numbers (got {actions!r})") from None
    if arr.ndim != 2:
        raise InputError(f"{name} must be a 2-d array (K actions x d coordinates); got shape {arr.shape}")
    if arr.shape[1] < 1:
        raise InputError(f"{name}: the dimension d must be >= 1 (got d = {arr.shape[1]})")
    if arr.shape[0] < 1:
        raise InputError(f"{name} must hold at least 1 action (got 0)")
    if not np.isfinite(arr).all():
        raise InputError(f"{name} must contain only finite numbers (found "
                         f"{float(arr[~np.isfinite(arr)][0])!r})")
    return np.ascontiguousarray(arr)



class LinearArms(NamedTuple):
    """K actions (rows of ``actions``) with mean rewards ``means`` = actions @ theta*."""
    actions: np.ndarray      # (K, d), C-contiguous
    means: np.ndarray        # (K,)
    noise: int               # RADEMACHER | GAUSSIAN
    sigma: float             # Gaussian noise standard deviation (unused for Rademacher)


@implements(draw, LinearArms)
def _linear_draw(env, arm):
    mu = env.means[arm]
    if env.noise == RADEMACHER:
        return 2.0 * rng.bernoulli(0.5 * (1.0 + mu)) - 1.0
    return rng.normal(mu, env.sigma)


@implements(draw_sum, LinearArms)
def _linear_draw_sum(env, arm, m):
    mu = env.means[arm]
    if env.noise == RADEMACHER:
        if m == 1:
            return 2.0 * rng.bernoulli(0.5 * (1.0 + mu)) - 1.0
        return 2.0 * rng.binomial(m, 0.5 * (1.0 + mu)) - m
    return rng.normal(m * mu, math.sqrt(m) * env.sigma)


# ------------------------------------------------------------ builders
def unit_sphere(k: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(actions (k x d), theta (d)) uniform on S^{d-1}, from numpy Generator(seed)."""
    gen = np.random.default_rng(seed)
    actions = gen.standard_normal((k, d))
    actions /= np.linalg.norm(actions, axis=1, keepdims=True)
    theta = gen.standard_normal(d)
    theta /= np.linalg.norm(theta)
    return np.ascontiguousarray(actions), theta


def _parse_matrix(name, value):
    if isinstance(value, str):
        try:
            value = [[float(v) for v in row.split(",") if v.strip()]
                     for row in value.split(";") if row.strip()]
        except ValueError:
            raise InputError(f"{name} must be rows of numbers like '1,0;0,1' (got {value!r})") from None
        if len({len(r) for r in value}) > 1:
            raise InputError(f"{name}: every row must have the same length (got {value!r})")
    return value


def _parse_vector(name, value):
    if isinstance(value, str):
        try:
            value = [float(v) for v in value.split(",") if v.strip()]
        except ValueError:
            raise InputError(f"{name} must be numbers like '0.6,0.8' (got {value!r})") from None
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a vector of real numbers (got {value!r})") from None


def linear(actions, theta, noise: str = "rademacher", sigma: float = 1.0, *, name="linear",
           params=None, info=None) -> Instance:
    """A linear bandit with the given actions (K x d) and parameter theta (d)."""
    x = check_actions(_parse_matrix("actions", actions))
    k, d = x.shape
    if k < 2:
        raise InputError(f"actions: a bandit needs at least 2 actions (got {k})")
    th = _parse_vector("theta", theta)
    if th.ndim != 1 or th.shape[0] != d:
        raise InputError(f"theta must be a vector of length d = {d} (the actions' dimension); "
                         f"got shape {th.shape}")
    if not np.isfinite(th).all():
        raise InputError(f"theta must contain only finite numbers (got {th.tolist()})")
    norms = np.linalg.norm(x, axis=1)
    if norms.max() > 1.0 + _NORM_SLACK:
        raise InputError(f"actions must have Euclidean norm <= 1 (Assumption 1); action "
                         f"{int(norms.argmax())} has norm {norms.max():.6g}")
    if np.linalg.norm(th) > 1.0 + _NORM_SLACK:
        raise InputError(f"theta must have Euclidean norm <= 1 (Assumption 1); got {np.linalg.norm(th):.6g}")
    if noise not in NOISES:
        raise InputError(f"unknown noise {noise!r}; allowed values: {', '.join(NOISES)}")
    sigma = check_real("sigma", sigma, low=0.0, low_open=True)
    means = np.clip(x @ th, -1.0, 1.0)
    if noise == "rademacher":
        low, high = -1.0, 1.0
    else:
        low, high = -math.inf, math.inf
    env = LinearArms(x, means, NOISES[noise], float(sigma))
    params = dict(params or {"actions": x.tolist(), "theta": th.tolist()})
    params.update(noise=noise, sigma=float(sigma))
    info = dict(info or {})
    info.update(k=k, d=d, theta=th.tolist(), reward_model=noise)
    return Instance(env, means.copy(), low, high, name, params, info)


INSTANCE_MODES = ("fixed", "per_repetition")


def linear_sphere(k: int = 10, d: int = 2, instance_seed: int = 0, noise: str = "rademacher",
                  sigma: float = 1.0, instance: str = "fixed") -> Instance:
    """K actions and theta* uniform on the unit sphere S^{d-1} (paper Sec. 6).

    ``instance="fixed"``: one instance, drawn from ``numpy.random.default_rng(instance_seed)``, for
    every repetition.  ``"per_repetition"`` (the spec's default, §8.3: the actions and theta*
    resampled per seed): repetition r draws its own from ``default_rng(SeedSequence(s_r,
    spawn_key=(instance_seed,)))``, s_r its seed (``rep_seeds``), so it depends on (master seed,
    r) only, never on threads or chunking, and every run of an experiment (one master seed)
    meets the same instances; its rewards keep their own stream."""
    if instance not in INSTANCE_MODES:
        raise InputError(f"unknown instance {instance!r}; allowed values: {', '.join(INSTANCE_MODES)}")
    params = {"k": k, "d": d, "instance_seed": instance_seed, "instance": instance}
    law = ["reward law: Rademacher r in {-1,+1}, P(+1) = (1 + <a,theta>)/2 (paper silent; spec §8.3)"]

    def build(seed, what):
        actions, theta = unit_sphere(k, d, seed)
        info = {"instance": what, "proposed_defaults_environment": law + [
            "one fixed instance per instance_seed (paper silent)" if instance == "fixed" else
            "actions and theta* resampled per repetition (paper silent; spec §8.3)"]}
        return linear(actions, theta, noise, sigma, name="linear_sphere", params=params, info=info)

    if instance == "fixed":
        return build(instance_seed, f"K={k} actions and theta* uniform on S^{d - 1}, numpy Generator({instance_seed})")

    def redraw(rep_seed: int) -> Instance:
        seq = np.random.SeedSequence(int(rep_seed), spawn_key=(int(instance_seed),))
        out = build(seq, f"per repetition: K={k} actions and theta* uniform on S^{d - 1}, numpy Generator("
                         f"SeedSequence(repetition seed, spawn_key=({instance_seed},))); this one: repetition seed "
                         f"{int(rep_seed)}")
        out.redraw = redraw
        return out
    return redraw(0)


def linear_sphere_net(d: int = 2, zeta: float = 0.01, pool: int = 100_000, instance_seed: int = 0,
                      noise: str = "rademacher", sigma: float = 1.0) -> Instance:
    """The continuous unit sphere replaced by a zeta-net (Lemma 1): the circle net for
    d = 2, a greedy net of ``pool`` uniform points otherwise; theta* uniform on S^{d-1}."""
    gen = np.random.default_rng(instance_seed)
    theta = gen.standard_normal(d)
    theta /= np.linalg.norm(theta)
    if d == 2:
        actions = net_sphere_2d(zeta)
        how = f"circle net, M = ceil(pi / arcsin(zeta/2)) = {actions.shape[0]} points"
    else:
        work = pool * min(pool, (1.0 + 2.0 / zeta) ** d)
        if work > 2e9:
            raise InputError(f"a greedy zeta-net of {pool} points with zeta = {zeta:g} in d = {d} costs up to "
                             f"{work:.2g} distance evaluations; use a larger zeta or a smaller pool")
        cloud = gen.standard_normal((pool, d))
        cloud /= np.linalg.norm(cloud, axis=1, keepdims=True)
        actions = np.ascontiguousarray(cloud[greedy_net(cloud, zeta)])
        how = f"greedy zeta-net of {pool} uniform points: {actions.shape[0]} points"
    means = actions @ theta
    params = {"d": d, "zeta": zeta, "pool": pool, "instance_seed": instance_seed}
    info = {"zeta": zeta, "net": how, "discretization_gap": float(1.0 - means.max()),
            "continuous_optimum": 1.0}
    return linear(actions, theta, noise, sigma, name="linear_sphere_net", params=params, info=info)


_NOISE = Param("noise", "reward law: rademacher (bounded in [-1,1], the default) or gaussian",
               choice(*NOISES), "rademacher")
_SIGMA = Param("sigma", "standard deviation of gaussian noise", real(0.0, low_open=True), 1.0)


def _matrix(name, value):
    return _parse_matrix(name, value)


register_environment(EnvironmentSpec(
    "linear_sphere", "linear bandit: K actions and theta* uniform on the unit sphere (seed 004 Sec. 6)",
    (Param("k", "number of actions K", integer(2), 10),
     Param("d", "dimension d", integer(1), 2),
     Param("instance_seed", "seed of the fixed instance (with instance=per_repetition: the key of the "
           "repetitions' draws)", integer(0), 0),
     _NOISE, _SIGMA,
     Param("instance", "fixed: one instance for every repetition; per_repetition: each repetition draws its "
           "own from its seed (spec §8.3)", choice(*INSTANCE_MODES), "fixed")), linear_sphere))
register_environment(EnvironmentSpec(
    "linear", "linear bandit with explicit actions (K x d, rows ';'-separated) and theta",
    (Param("actions", "K x d action matrix, e.g. '1,0;0,1;0.6,0.8'",
           text("matrix: rows separated by ';', numbers by ','", _matrix)),
     Param("theta", "parameter theta* (length d), e.g. '0.6,0.8'",
           text("list of d numbers", lambda n, v: _parse_vector(n, v).tolist())),
     _NOISE, _SIGMA), linear))
register_environment(EnvironmentSpec(
    "linear_sphere_net", "linear bandit on a zeta-net of the unit sphere (seed 004 Lemma 1)",
    (Param("d", "dimension d", integer(1), 2),
     Param("zeta", "net resolution (the paper uses 1/T)", real(0.0, 2.0, low_open=True), 0.01),
     Param("pool", "random pool size of the greedy net (d > 2)", integer(1), 100_000),
     Param("instance_seed", "seed of theta* (and of the pool)", integer(0), 0),
     _NOISE, _SIGMA), linear_sphere_net))
