"""Random-number primitives and per-repetition seeding.

Every kernel draws its randomness through these functions, and every
repetition (or stand-alone sampler call) starts with ``np.random.seed(s)``
inside compiled code.  numba keeps one Mersenne Twister per thread whose
stream equals NumPy's legacy ``np.random.seed`` stream for ``random``,
``standard_normal``, ``standard_exponential`` and ``binomial``; numba's own
``gamma``/``beta`` differ from NumPy's, so they are written here
(Marsaglia–Tsang) on top of the matching primitives.  The consequence: the
``.py_func`` of any kernel, or a plain-Python reference that calls these
helpers after ``np.random.seed(s)``, reproduces the compiled run bit for bit.

Seeds: a repetition's seed depends only on (master seed, repetition index),
so results are identical whatever the thread count, chunking or backend.
"""
from __future__ import annotations

import math

import numpy as np

# numba's own cache, not dpbench.engine.caching.cached_njit: these primitives call nothing
# outside this file, so numba's per-file invalidation is exact for them (and the kernels that
# inline them are cached_njit, whose package hash covers this file).  It also keeps this
# module at the bottom of the core, below the engine that seeds every run through it.
from numba import njit

from .validation import InputError, check_int


# ----------------------------------------------------------------- seeding
def rep_seeds(master_seed: int, first: int, count: int) -> np.ndarray:
    """uint32 seeds of repetitions ``first .. first+count-1`` of ``master_seed``.

    Seed r is ``SeedSequence(master_seed, spawn_key=(r,))`` reduced to one
    32-bit word, i.e. it depends on (master seed, r) only.
    """
    master_seed = check_int("seed", master_seed, low=0)
    out = np.empty(count, dtype=np.uint32)
    for i in range(count):
        ss = np.random.SeedSequence(master_seed, spawn_key=(first + i,))
        out[i] = ss.generate_state(1, dtype=np.uint32)[0]
    return out


def stream_seed(seed: int, *key: int) -> int:
    """One uint32 seed for a stand-alone sampler call, from ``seed`` and an optional key."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer (got {seed!r})")
    ss = np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


# -------------------------------------------------------------- primitives
@njit(cache=True)
def uniform():
    """U[0, 1)."""
    return np.random.random()


@njit(cache=True)
def bernoulli(p):
    """1.0 with probability p, else 0.0 (one uniform)."""
    return 1.0 if np.random.random() < p else 0.0


@njit(cache=True)
def normal(mu, sigma):
    """N(mu, sigma^2) (NumPy legacy polar method, shared stream)."""
    return mu + sigma * np.random.standard_normal()


@njit(cache=True)
def laplace(scale):
    """Laplace(0, scale) by inversion of one uniform, as NumPy's legacy sampler.  The half is
    chosen by selects, not a branch around the logarithm: the sign of the noise is a coin flip,
    so a branch would be mispredicted half the time (same draws and bits either way)."""
    u = np.random.random()
    while u == 0.0:              # log(0): redraw (probability 2**-53)
        u = np.random.random()
    upper = u >= 0.5
    arg = (2.0 - u - u) if upper else (u + u)
    return (-scale if upper else scale) * math.log(arg)


@njit(cache=True)
def exponential(scale):
    return scale * np.random.standard_exponential()


@njit(cache=True)
def gamma(shape, scale):
    """Gamma(shape, scale) by Marsaglia–Tsang (shape < 1 boosted by U^(1/shape))."""
    if shape <= 0.0:
        return 0.0
    boost = 1.0
    if shape < 1.0:
        boost = np.random.random() ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = np.random.standard_normal()
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = np.random.random()
        if u < 1.0 - 0.0331 * x * x * x * x:
            return d * v * boost * scale
        if math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return d * v * boost * scale


@njit(cache=True)
def beta(a, b):
    """Beta(a, b) as X/(X+Y) with X ~ Gamma(a), Y ~ Gamma(b)."""
    x = gamma(a, 1.0)
    y = gamma(b, 1.0)
    return x / (x + y)


@njit(cache=True)
def binomial(n, p):
    """Binomial(n, p) count as a float (numba's sampler, NumPy-identical stream)."""
    if n <= 0:
        return 0.0
    return float(np.random.binomial(n, p))


@njit(cache=True)
def laplace_sum(m, scale):
    """Sum of m i.i.d. Laplace(0, scale) in O(1) draws: Gamma(m, b) - Gamma(m, b)."""
    if m == 1:
        return laplace(scale)
    return gamma(float(m), scale) - gamma(float(m), scale)
