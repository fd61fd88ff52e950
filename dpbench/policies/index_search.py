"""The argmax of an optimistic index without evaluating it exactly for every arm.

Every UCB-type index in this package has the form

    u_a(t) = mean_a + (terms that are a function of t times a function of arm a's counts),

evaluated in a fixed order of floating-point operations, with ties to the lowest
index.  Per arm that costs a division and one or two square roots each step, and
that arithmetic, not the random numbers, is what limits a UCB loop (engine design
note).  Rewritten as

    v_a(t) = mean_a + scale(t) * radius_a,

``radius_a`` changes only when arm a is pulled (the policy keeps it in its state)
and ``scale(t)`` is one square root per step, so a whole scan is one multiply-add
per arm.  v_a is u_a re-associated: |u_a - v_a| <= 20 * 2^-53 * (|mean_a| + true
radius term), a few units in the last place.  :func:`clear_leader` returns the arm
whose v leads every other arm's by more than ``tol``; with ``tol`` above twice that
error bound (callers pass ``LEADER_TOLERANCE * (max |mean| + scale * max radius)``,
a thousand times above it) that arm is also the unique argmax of the exact u, so
the arm sequence is exactly that of the exact index.  When no arm leads clearly
(ties of equal counts early in a run, or two indices within ~1e-12), it returns -1
and the policy evaluates its exact index for every arm.  Used by ``ucb.py``,
``ldp_ucb.py`` and ``heldp_ucb.py``; tests/test_index_search.py checks the exactness
on long runs against the exact index evaluated every step.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..engine.caching import cached_njit

#: Relative margin of :func:`clear_leader`'s decision: far above the re-association
#: error (about 2e-15 relative) and far below any real gap between two indices.
LEADER_TOLERANCE = 1e-12


# The leader cache: a float array [arm, valid (0/1), scale at the scan, runner-up's value,
# widest radius].  The arm is read through an unsigned index: a possibly negative index makes
# numba emit wrap-around code, after which its reference-count pruning gives up on the whole
# verb (an atomic increment and decrement per state array per pull).
LEADER, VALID, SCALE_AT_SCAN, RUNNER_UP, WIDEST_AT_SCAN = 0, 1, 2, 3, 4


@cached_njit(inline="always")
def new_leader_cache():
    return np.zeros(5)


@cached_njit(inline="always")
def cached_leader(means, radius, scale, tol, cache):
    """The cached leader if it still beats every other arm's value bound at ``scale`` by more
    than ``tol`` (see :func:`clear_leader`), else -1; never scans."""
    leader = np.uint64(cache[LEADER])
    others = cache[RUNNER_UP] + (scale - cache[SCALE_AT_SCAN]) * cache[WIDEST_AT_SCAN]
    if ((cache[VALID] > 0.0) & (scale >= cache[SCALE_AT_SCAN])
            & (means[leader] + scale * radius[leader] - others > tol)):
        return np.int64(leader)
    return np.int64(-1)


@cached_njit(inline="always")
def clear_leader(means, radius, scale, tol, cache):
    """argmax_a means[a] + scale * radius[a] if it exceeds every other arm's value by
    more than ``tol``, else -1 (near-tie: the caller evaluates the exact index).

    Between scans only the leader is pulled, so apart from the common scale only its value
    changes: every other arm's value is at most runner-up + (scale - scale at the scan) *
    widest radius, and while the leader beats that bound by ``tol`` no scan is needed.
    The policy's update drops the cache (:func:`forget_leader`) when any other arm changes."""
    arm = cached_leader(means, radius, scale, tol, cache)
    if arm >= 0:
        return arm
    best = -math.inf
    second = -math.inf
    widest = 0.0
    arm = 0
    for a in range(means.shape[0]):
        v = means[a] + scale * radius[a]
        if radius[a] > widest:
            widest = radius[a]
        if v > best:
            second = best
            best = v
            arm = a
        elif v > second:
            second = v
    if best - second > tol:
        cache[LEADER] = arm
        cache[VALID] = 1.0
        cache[SCALE_AT_SCAN] = scale
        cache[RUNNER_UP] = second
        cache[WIDEST_AT_SCAN] = widest
        return arm
    cache[VALID] = 0.0
    return -1


@cached_njit(inline="always")
def leader_below(means, radius, scale_bound, tol_bound, cache):
    """The cached leader if :func:`clear_leader` would return it from its cache at every scale
    from the scale of its scan up to ``scale_bound`` (``tol_bound``: the tolerance at
    ``scale_bound``, the largest); else -1.  Never scans, and needs no exact scale.

    The leader's lead over the others' bound, means[L] + s radius[L] - runner-up - (s - s0)
    widest, falls as s grows when radius[L] <= widest (checked), and the tolerance grows with
    s; so a lead above ``tol_bound`` at ``scale_bound`` is a lead above the tolerance at every
    smaller scale.  A policy whose scale grows with t keeps an upper bound of it over the next
    steps (a look-ahead array, :func:`new_ahead`) and computes the exact scale (a logarithm, a
    power) only when this fails.  The arm is the one the exact scale gives: :func:`clear_leader`
    would return it from the same cache (up to rounding far inside the tolerance, where it would
    scan and find the same clear leader); every decision is the exact index's argmax either way.
    The caller's tolerance must grow with the scale."""
    if radius[np.uint64(cache[LEADER])] > cache[WIDEST_AT_SCAN]:
        return np.int64(-1)
    return cached_leader(means, radius, scale_bound, tol_bound, cache)


# The look-ahead of a growing scale: a float array [the last step t it serves, then the policy's
# bounds at that step (its scale, and what else it needs, e.g. log t)], for ``leader_below``.
AHEAD_UNTIL = 0


@cached_njit(inline="always")
def new_ahead(size):
    """A look-ahead array of ``size`` slots that serves no step yet."""
    ahead = np.zeros(size)
    ahead[AHEAD_UNTIL] = -1.0
    return ahead


@cached_njit(inline="always")
def ahead_step(t):
    """The last step a look-ahead computed at step ``t`` serves: about t / 4096 steps on (a
    logarithmic scale then grows by less than 1 / (4096 ln t) of itself meanwhile: the indices of
    a UCB policy stay close to one another, so the leader's lead is often small)."""
    return t + (t >> 12) + 1


@cached_njit(inline="always")
def forget_leader(cache, arm):
    """Arm ``arm``'s statistics changed: the cached bound holds only if it is the leader."""
    cache[VALID] = cache[VALID] if arm == cache[LEADER] else 0.0


@cached_njit(inline="always")
def raise_bound(bounds, i, value):
    """bounds[i] = max(bounds[i], |value|): the running bounds behind ``tol``."""
    value = abs(value)
    bounds[i] = value if value > bounds[i] else bounds[i]


@cached_njit(inline="always")
def keep_state(array):
    """``array[0] = array[0]`` (changes nothing), as the last statement of a verb whose work is
    behind a branch: the state is then still in use where the branches join, so numba releases
    its arrays there, once.  Released at the end of each branch instead, the decrements were
    merged by LLVM into one block on phis that pair different arrays, which numba's pruning
    cannot match with the increments: HeLDP-UCB-L and -B paid four atomic pairs per pull, about
    two thirds of the loop's time (engine/components.py)."""
    array[0] = array[0]


class MeanState(NamedTuple):
    """Per-arm statistics of the mean-based indices (UCB1, LDP-UCB-L)."""
    sums: np.ndarray              # S_a: sum of responses
    counts: np.ndarray            # N_a
    means: np.ndarray             # S_a / N_a, exactly as the index computes it
    inv_sqrt_counts: np.ndarray   # 1 / sqrt(N_a): the radius of clear_leader
    bounds: np.ndarray            # [max over the run of |S_a / N_a|, a lower bound of min_a N_a]
    leader: np.ndarray            # clear_leader's cache
    ahead: np.ndarray             # [last step served, scale bound, log-t bound] (leader_below)


MAX_ABS_MEAN, MIN_COUNT = 0, 1
AHEAD_SCALE, AHEAD_LOG = 1, 2


@cached_njit(inline="always")
def new_mean_state(k):
    return MeanState(np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(2), new_leader_cache(),
                     new_ahead(3))


@cached_njit(inline="always")
def add_response(state, arm, m, value):
    """Arm ``arm`` was pulled ``m`` times and its responses sum to ``value``."""
    forget_leader(state.leader, arm)
    state.sums[arm] += value
    state.counts[arm] += m
    state.means[arm] = state.sums[arm] / state.counts[arm]
    state.inv_sqrt_counts[arm] = 1.0 / math.sqrt(state.counts[arm])
    raise_bound(state.bounds, MAX_ABS_MEAN, state.means[arm])


# the init_state and update of every mean-based index (registered by ucb.py and ldp_ucb.py)
def init_mean_state(policy, k, horizon):
    """A fresh :class:`MeanState` for ``k`` arms."""
    return new_mean_state(k)


def update_mean_state(policy, state, arm, m, value, level, t):
    """Add the ``m`` responses of ``arm`` (summing to ``value``) to the state."""
    add_response(state, arm, m, value)
