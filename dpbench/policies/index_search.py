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


@cached_njit(inline="always")
def clear_leader(means, radius, scale, tol):
    """argmax_a means[a] + scale * radius[a] if it exceeds every other arm's value by
    more than ``tol``, else -1 (near-tie: the caller evaluates the exact index)."""
    best = -math.inf
    second = -math.inf
    arm = 0
    for a in range(means.shape[0]):
        v = means[a] + scale * radius[a]
        if v > best:
            second = best
            best = v
            arm = a
        elif v > second:
            second = v
    if best - second > tol:
        return arm
    return -1


@cached_njit(inline="always")
def raise_bound(bounds, i, value):
    """bounds[i] = max(bounds[i], |value|): the running bounds behind ``tol``."""
    value = abs(value)
    if value > bounds[i]:
        bounds[i] = value


class MeanState(NamedTuple):
    """Per-arm statistics of the mean-based indices (UCB1, LDP-UCB-L)."""
    sums: np.ndarray              # S_a: sum of responses
    counts: np.ndarray            # N_a
    means: np.ndarray             # S_a / N_a, exactly as the index computes it
    inv_sqrt_counts: np.ndarray   # 1 / sqrt(N_a): the radius of clear_leader
    bounds: np.ndarray            # [max over the run of |S_a / N_a|, min_a N_a]


MAX_ABS_MEAN, MIN_COUNT = 0, 1


@cached_njit(inline="always")
def new_mean_state(k):
    return MeanState(np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(2))


@cached_njit(inline="always")
def add_response(state, arm, m, value):
    """Arm ``arm`` was pulled ``m`` times and its responses sum to ``value``."""
    before = state.counts[arm]
    state.sums[arm] += value
    state.counts[arm] += m
    state.means[arm] = state.sums[arm] / state.counts[arm]
    state.inv_sqrt_counts[arm] = 1.0 / math.sqrt(state.counts[arm])
    raise_bound(state.bounds, MAX_ABS_MEAN, state.means[arm])
    if before == state.bounds[MIN_COUNT]:          # the minimum may have moved up
        low = state.counts[arm]
        for a in range(state.counts.shape[0]):
            low = min(low, state.counts[a])
        state.bounds[MIN_COUNT] = low
