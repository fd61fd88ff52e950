"""Replay environment: fixed reward histories, for algorithm-level privacy audits.

``ReplayArms``: the j-th pull of arm a (counted within one repetition) returns
``table[a, j]``.  Every repetition of a run sees the same rewards, so the only
randomness left is the policy's (and its mechanism's): running R repetitions
draws R independent outputs of the policy on this reward history, and two tables
that differ in one entry are neighbouring inputs (seed 002 Def. 1 and Def. 3
with a deterministic one-step revision rule).

The pull counters are per thread (``numba.get_thread_id()``; a repetition runs on
one thread) and reset when a repetition has drawn ``horizon`` rewards, so the
environment must be run for exactly ``horizon`` pulls with a mechanism that
draws one reward per pull (``Direct``, ``BernoulliTrick``, CTL/CTB; not the
heterogeneous curators, which skip the draw of a user with eps_t = 0).  Zero
``cursor`` before a run (:func:`reset`); after it every counter is back at zero
(:func:`check_consumed` verifies that, which catches a mismatched draw count).
Drawing beyond the end of a row is reported by :func:`check_consumed`.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ..engine.catalog import Instance
from ..engine.components import draw, draw_sum, implements
from ..validation import InputError, check_int

_EXHAUSTED = -(1 << 40)      # total-pull counter value marking a repetition that ran out of rewards


class ReplayArms(NamedTuple):
    table: np.ndarray      # (k, L) rewards: arm a's j-th pull returns table[a, j]
    cursor: np.ndarray     # (threads, k + 1) int64: pulls per arm in the current repetition, then total
    horizon: int           # pulls per repetition (the counters reset after this many)


@implements(draw, ReplayArms)
def _replay_draw(env, arm):
    row = env.cursor[numba.get_thread_id()]
    j = row[arm]
    k = env.table.shape[0]
    if j >= env.table.shape[1]:          # exhausted: flag it (check_consumed raises) and go on
        row[k] = _EXHAUSTED
        return 0.0
    reward = env.table[arm, j]
    row[arm] = j + 1
    row[k] += 1
    if row[k] == env.horizon:
        for a in range(k + 1):
            row[a] = 0
    return reward


@implements(draw_sum, ReplayArms)
def _replay_draw_sum(env, arm, m):
    total = 0.0
    for _ in range(m):
        total += draw(env, arm)
    return total


def replay(table, horizon: int) -> Instance:
    """An environment replaying ``table`` (k x L rewards) for runs of ``horizon`` pulls."""
    table = np.ascontiguousarray(np.asarray(table, dtype=np.float64))
    if table.ndim != 2 or table.shape[0] < 2 or table.shape[1] < 1:
        raise InputError(f"a reward table must have shape (arms >= 2, pulls >= 1) (got {table.shape})")
    if not np.all(np.isfinite(table)):
        raise InputError("a reward table must contain finite rewards")
    horizon = check_int("horizon", horizon, low=1)
    cursor = np.zeros((numba.config.NUMBA_NUM_THREADS, table.shape[0] + 1), dtype=np.int64)
    low, high = float(table.min()), float(table.max())
    return Instance(ReplayArms(table, cursor, horizon), table.mean(axis=1), min(low, 0.0), max(high, 1.0),
                    "replay", {"table_shape": list(table.shape)})


def reset(env: ReplayArms) -> None:
    env.cursor[:] = 0


def check_consumed(env: ReplayArms) -> None:
    """Raise if some repetition ran out of rewards or did not draw exactly ``horizon`` of them."""
    if np.any(env.cursor[:, -1] < 0):
        raise InputError("replay table exhausted: an arm was pulled more often than its row has "
                         f"rewards ({env.table.shape[1]}); use longer rows or a shorter horizon")
    if np.any(env.cursor != 0):
        raise RuntimeError("replay environment out of step: a repetition drew a number of rewards "
                           "different from the horizon (a mechanism that skips draws?)")
