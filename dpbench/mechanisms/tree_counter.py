"""The (adaptive) tree-based private counter (binary mechanism) over a stream.

Tao et al. (seed 003), Algorithm 2 and Lemma 2, after Dwork et al. 2010 and
Chan, Shi & Song 2011.  Item t (1-based) of a stream sigma closes the p-sum
alpha_i = sigma(t - 2^i + 1 .. t), i = number of trailing zeros of t; its
noisy copy alpha_hat_i = alpha_i + Lap(scale_t) is drawn ONCE, when the p-sum
is formed (note N2), and the release is

    S_hat(t) = sum_{j : bit j of t is 1} alpha_hat_j        (popcount(t) noise terms)

Each item lies in at most L = floor(log2 T) + 1 released p-sums (one per
level), so with items in [-B_t, B_t], B_t non-decreasing (the *adaptive*
version), and scale_t = 2 B_t / eps', the stream is (L eps')-DP.  The paper
writes eps' = eps / log T; with the natural log that overspends by up to
~1.6x (spec note N1, erratum 8), so the split is a choice (``TREE_EPS_SPLITS``):

* ``"levels"`` eps' = eps / (floor(log2 T) + 1)   privacy-safe, the default
* ``"log2"``   eps' = eps / log2 T
* ``"ln"``     eps' = eps / ln T                  the paper's literal formula

The counter is plain state arrays plus compiled functions, so a policy keeps
one counter per arm as rows of two ``(rows, L)`` arrays:

    psum, noisy = tree_new(k, horizon)           # in init_state
    s_hat = tree_add(psum, noisy, arm, n, x, 2 * B, eps')   # item n of row ``arm``: noise Lap(2B/eps')
    s_hat = tree_release(noisy, arm, n)          # the current release, again
    tree_reset(psum, noisy, arm)                 # start a new stream in a row

Each noisy p-sum is a float-safe Laplace release on a lattice
(``lattice.laplace_lattice_release``: sensitivity 2 B_t, level eps'), so every released
value is DP as implemented; the releases sum them (post-processing).  ``eps' = 0`` disables
the noise (no random draw): the releases are then the exact prefix sums, computed by the
same p-sum additions.  Seed 003 uses it
with per-item bounds (DP Robust UCB, ``policies/robust_ucb.py``); Tossou &
Dimitrakakis' hybrid counter (seed 002) with a fixed scale per block.
"""
from __future__ import annotations

import math

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..validation import InputError, check_choice, check_eps, check_int, check_real, check_vector
from .lattice import laplace_lattice_release

TREE_EPS_SPLITS = ("levels", "log2", "ln")


# ------------------------------------------------------ compiled counter
@cached_njit
def tree_levels(horizon):
    """L = floor(log2 horizon) + 1: levels enough for any stream of length <= horizon (N3)."""
    levels = 0
    n = horizon
    while n > 0:
        levels += 1
        n >>= 1
    return max(levels, 1)


@cached_njit
def tree_new(rows, horizon):
    """Fresh state of ``rows`` independent counters: (p-sums, noisy p-sums), each (rows, L)."""
    levels = tree_levels(horizon)
    return np.zeros((rows, levels)), np.zeros((rows, levels))


@cached_njit
def tree_release(noisy, row, t):
    """S_hat(t) = sum of the noisy p-sums at the set bits of t (lowest level first)."""
    total = 0.0
    j = 0
    while t > 0:
        if t & 1:
            total += noisy[row, j]
        t >>= 1
        j += 1
    return total


@cached_njit
def tree_add(psum, noisy, row, t, value, sensitivity, eps_level):
    """Insert item number ``t`` (>= 1; items 1..t-1 already inserted) with ``value``
    into counter ``row``; the new p-sum gets the float-safe eps_level-DP Laplace release for
    ``sensitivity`` (noise Lap(sensitivity/eps_level) on a lattice; none if eps_level == 0).
    Returns the release S_hat(t).  Algorithm 2, lines 6-13.

    An item past the counter's capacity (a stream longer than the horizon ``tree_new`` was given)
    changes nothing and returns NaN.  It does not raise: a raise here is an exit from the middle
    of a policy's ``update``, and numba's reference-count pruning cannot remove the atomic
    increments and decrements of the policy's state around a call that may exit (DP-RobustUCB:
    nine pairs a pull; 1.3x faster without them).  The policies size their counters for their
    horizon, so they never reach it."""
    levels = psum.shape[1]
    i = 0
    while (t >> i) & 1 == 0:
        i += 1
    if i >= levels:
        return math.nan
    s = 0.0
    for j in range(i):                 # alpha_i <- sum_{j<i} alpha_j + sigma(t)
        s += psum[row, j]
    s += value
    for j in range(i):
        psum[row, j] = 0.0
        noisy[row, j] = 0.0
    psum[row, i] = s
    if eps_level > 0.0:
        noisy[row, i] = laplace_lattice_release(s, sensitivity, eps_level)
    else:
        noisy[row, i] = s
    return tree_release(noisy, row, t)


@cached_njit
def tree_reset(psum, noisy, row):
    """Forget counter ``row`` (a new stream starts at item 1)."""
    for j in range(psum.shape[1]):
        psum[row, j] = 0.0
        noisy[row, j] = 0.0


# ------------------------------------------------------ accounting
def tree_level_eps(eps: float, horizon: int, split: str = "levels") -> float:
    """eps' of one p-sum for a stream of length ``horizon`` (see module docstring)."""
    eps = check_eps(eps)
    horizon = check_int("horizon", horizon, low=2)
    split = check_choice("tree_eps_split", split, TREE_EPS_SPLITS)
    if split == "levels":
        return eps / tree_levels(horizon)
    if split == "log2":
        return eps / math.log2(horizon)
    return eps / math.log(horizon)


def tree_privacy_loss(eps: float, horizon: int, split: str = "levels") -> float:
    """Worst-case privacy loss of one item: (number of levels) * eps' (check B3).
    At most ``eps`` for ``"levels"``; up to ~1.6 eps for the paper's ``"ln"``."""
    return tree_levels(check_int("horizon", horizon, low=2)) * tree_level_eps(eps, horizon, split)


def tree_error_bound_paper(bound: float, eps: float, horizon: int, delta: float) -> float:
    """Lemma 2, eq. (3): |S_hat(t) - S(t)| <= (2 B_t / eps) ln^1.5 T ln(1/delta) w.p. >= 1 - delta.
    Stated for any delta > 0, but false for large delta (spec check C5)."""
    bound = check_real("bound", bound, low=0.0)
    eps = check_eps(eps)
    horizon = check_int("horizon", horizon, low=2)
    delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    return 2.0 * bound / eps * math.log(horizon) ** 1.5 * math.log(1.0 / delta)


def tree_error_bound(bound: float, eps: float, horizon: int, delta: float, split: str = "levels",
                     t: int | None = None) -> float:
    """A valid (1 - delta) bound on |S_hat(t) - S(t)| for the split actually used.

    The error is a sum of n = popcount(t) (or L when t is None) Laplace
    variables of scale at most b = 2 B_t / eps'.  It is the smaller of the
    union bound n b ln(n/delta) and, when n > ln(2/delta), Chan-Shi-Song's
    Corollary 2.9, b sqrt(8 n ln(2/delta)).
    """
    bound = check_real("bound", bound, low=0.0)
    delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    b = 2.0 * bound / tree_level_eps(eps, horizon, split)
    if t is None:
        n = tree_levels(horizon)
    else:
        n = bin(check_int("t", t, low=1, high=horizon)).count("1")
    best = n * b * math.log(n / delta)
    if n > math.log(2.0 / delta):
        best = min(best, b * math.sqrt(8.0 * n * math.log(2.0 / delta)))
    return best


# ------------------------------------------------------ stand-alone counter
@cached_njit
def _prefix_sums_kernel(stream, bounds, eps_level, seed, out):
    np.random.seed(seed)
    psum, noisy = tree_new(1, stream.shape[0])
    for t in range(stream.shape[0]):
        out[t] = tree_add(psum, noisy, 0, t + 1, stream[t], 2.0 * bounds[t], eps_level)


def tree_prefix_sums(stream, bounds=None, *, eps: float | None = 1.0, split: str = "levels",
                     seed: int = 0, horizon: int | None = None) -> np.ndarray:
    """All releases S_hat(1..n) of Algorithm 2 on ``stream`` (n = its length).

    ``bounds[t]`` is the bound B_t of item t (non-decreasing; default: max |stream|
    for every item); ``eps=None`` disables the noise (exact prefix sums); ``horizon``: the
    stream length T >= n the counter is built for (its eps' per p-sum; default n), as a
    policy's counter is built for its horizon and read after n items.
    """
    x = check_vector("stream", stream)
    T = x.shape[0] if horizon is None else check_int("horizon", horizon, low=x.shape[0])
    if bounds is None:
        b = np.full(T, float(np.abs(x).max()))
    else:
        b = check_vector("bounds", bounds, low=0.0)
        if b.shape != x.shape:
            raise InputError(f"bounds must have the stream's length {x.shape[0]} (got {b.shape[0]})")
        if (np.diff(b) < 0).any():
            raise InputError("bounds must be non-decreasing (Algorithm 2 needs B_t non-decreasing)")
        if (np.abs(x) > b).any():
            i = int(np.argmax(np.abs(x) > b))
            raise InputError(f"stream item {i + 1} = {x[i]!r} exceeds its bound {b[i]!r}")
    eps_level = 0.0 if eps is None else tree_level_eps(eps, max(T, 2), split)
    out = np.empty(x.shape[0])
    _prefix_sums_kernel(x, b, eps_level, rng.stream_seed(seed), out)
    return out


@cached_njit
def _many_prefix_sums_kernel(streams, bounds, eps_level, seeds, out):
    for r in range(streams.shape[0]):
        _prefix_sums_kernel(streams[r], bounds, eps_level, seeds[r], out[r])


def tree_prefix_sums_many(streams, bounds, *, eps: float | None = 1.0, split: str = "levels", seed: int = 0,
                          horizon: int | None = None) -> np.ndarray:
    """:func:`tree_prefix_sums` of every row of ``streams`` (m independent streams of length n, one
    bound per item shared by the rows), row r seeded by word r of
    ``SeedSequence(seed).generate_state(m)``: the releases S_hat(1..n) of m counters at once (a
    Monte Carlo of a policy's private means)."""
    x = np.asarray(streams, dtype=float)
    if x.ndim != 2 or x.shape[1] == 0 or not np.all(np.isfinite(x)):
        raise InputError(f"streams must be a finite 2-D array of rows (got shape {x.shape})")
    b = check_vector("bounds", bounds, low=0.0)
    if b.shape[0] != x.shape[1]:
        raise InputError(f"bounds must have the streams' length {x.shape[1]} (got {b.shape[0]})")
    if (np.diff(b) < 0).any():
        raise InputError("bounds must be non-decreasing (Algorithm 2 needs B_t non-decreasing)")
    if (np.abs(x) > b).any():
        raise InputError("a stream item exceeds its bound (truncate the items first)")
    T = x.shape[1] if horizon is None else check_int("horizon", horizon, low=x.shape[1])
    eps_level = 0.0 if eps is None else tree_level_eps(eps, max(T, 2), split)
    rng.stream_seed(seed)                                      # validates the seed
    seeds = np.random.SeedSequence(int(seed)).generate_state(x.shape[0], dtype=np.uint32).astype(np.int64)
    out = np.empty_like(x)
    _many_prefix_sums_kernel(x, b, eps_level, seeds, out)
    return out


# ------------------------------------------------------ hybrid mechanism
# Added for the seed 002 baselines (DP-UCB, DP-UCB-BOUND of Tossou & Dimitrakakis 2016),
# on top of the tree counter above; nothing above depends on it.
@cached_njit
def hybrid_new(rows, horizon):
    """Fresh state of ``rows`` hybrid counters for streams of length <= ``horizon``:
    (p-sums, noisy p-sums) of the current block's tree, and per row
    [running sum + logarithmic-mechanism noise, its last release]."""
    psum, noisy = tree_new(rows, horizon)
    return psum, noisy, np.zeros((rows, 2))


@cached_njit
def hybrid_add(psum, noisy, logm, row, t, value, eps):
    """Insert item ``t`` (>= 1) with |value| <= 1 into hybrid counter ``row``; return the
    release S_hat(t).  Chan, Shi & Song 2011 (Sec. 4), as in Tossou & Dimitrakakis 2016:

    * t = 2^j: logarithmic mechanism at eps/2: the running sum gets a fresh Lap(2/eps)
      on top of the earlier ones and is released; a new block starts (tree reset);
    * 2^j < t < 2^(j+1): that release plus a binary mechanism at eps/2 over the block's
      items t - 2^j = 1 .. 2^j - 1 (j levels, Lap(2j/eps) per p-sum).

    Every item enters one logarithmic increment and at most j p-sums: eps-DP in total.
    Draws: one Laplace per item (the log step's, or the new p-sum's), each a float-safe
    release of sensitivity 1 (``lattice.laplace_lattice_release``)."""
    logm[row, 0] += value
    if t & (t - 1) == 0:
        logm[row, 0] = laplace_lattice_release(logm[row, 0], 1.0, 0.5 * eps)
        logm[row, 1] = logm[row, 0]
        tree_reset(psum, noisy, row)
        release = logm[row, 1]
    else:
        j = 0
        while (t >> (j + 1)) > 0:
            j += 1
        release = logm[row, 1] + tree_add(psum, noisy, row, t - (1 << j), value, 1.0, 0.5 * eps / j)
    # One exit, and the three arrays still in use where the branches join (as
    # ``policies.index_search.keep_state``): numba then releases them there, once, and prunes
    # the increments of each arm's call; released in each branch, DP-UCB paid three atomic pairs
    # per arm and step.
    psum[0, 0] = psum[0, 0]
    noisy[0, 0] = noisy[0, 0]
    logm[0, 0] = logm[0, 0]
    return release


@cached_njit
def _hybrid_prefix_sums_kernel(stream, eps, seed, out):
    np.random.seed(seed)
    psum, noisy, logm = hybrid_new(1, stream.shape[0])
    for t in range(stream.shape[0]):
        out[t] = hybrid_add(psum, noisy, logm, 0, t + 1, stream[t], eps)


def hybrid_prefix_sums(stream, *, eps: float = 1.0, seed: int = 0) -> np.ndarray:
    """All releases S_hat(1..T) of the eps-DP hybrid counter on ``stream`` (items in [-1, 1])."""
    x = check_vector("stream", stream, low=-1.0, high=1.0)
    eps = check_eps(eps)
    out = np.empty(x.shape[0])
    _hybrid_prefix_sums_kernel(x, eps, rng.stream_seed(seed), out)
    return out
