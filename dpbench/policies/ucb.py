"""UCB1 (Auer, Cesa-Bianchi & Fischer 2002), the index behind several agents.

``UCB1Index``: pull each arm once, then argmax_a  M_a + sqrt(c log t / N_a),
with t the number of completed pulls and M_a the running mean of whatever the
curator returned (seed 000 Sec. 1.3, A0).  Ties go to the lowest index.

Catalog names: ``ucb1`` (raw rewards) and ``ucb1_sigmoid`` (rewards mapped
by the sigmoid, the baseline of seed 000 App. B).  LDP-UCB-B/BS reuse this
index on CTB bits (``ldp_ucb.py``).
"""
from __future__ import annotations

import math
from typing import NamedTuple

from ..engine.catalog import AlgorithmSpec, Built, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.ldp_curators import Direct
from .index_search import (
    AHEAD_SCALE,
    AHEAD_UNTIL,
    LEADER_TOLERANCE,
    MAX_ABS_MEAN,
    ahead_step,
    clear_leader,
    init_mean_state,
    leader_below,
    update_mean_state,
)


class UCB1Index(NamedTuple):
    c: float          # exploration constant: radius sqrt(c log t / N); 2 in every paper here


implements(init_state, UCB1Index)(init_mean_state)
implements(update, UCB1Index)(update_mean_state)


@implements(select, UCB1Index)
def _select(policy, state, t):
    k = state.counts.shape[0]
    if t < k:
        return t, 1
    if t > state.ahead[AHEAD_UNTIL]:     # the cached leader, checked at a bound of the scale
        until = ahead_step(t)
        state.ahead[AHEAD_UNTIL] = until
        state.ahead[AHEAD_SCALE] = math.sqrt(policy.c * math.log(until))
    bound = state.ahead[AHEAD_SCALE]
    arm = leader_below(state.means, state.inv_sqrt_counts, bound,
                       LEADER_TOLERANCE * (state.bounds[MAX_ABS_MEAN] + bound), state.leader)
    if arm >= 0:
        return arm, 1
    width = policy.c * math.log(t)
    scale = math.sqrt(width)          # radius_a = sqrt(width / N_a) = scale / sqrt(N_a), N_a >= 1
    arm = clear_leader(state.means, state.inv_sqrt_counts, scale,
                       LEADER_TOLERANCE * (state.bounds[MAX_ABS_MEAN] + scale), state.leader)
    if arm >= 0:
        return arm, 1
    best = -math.inf                  # near-tie: the exact index, ties to the lowest arm
    for a in range(k):
        u = state.means[a] + math.sqrt(width / state.counts[a])
        if u > best:
            best = u
            arm = a
    return arm, 1


register_algorithm(AlgorithmSpec(
    name="ucb1", label="UCB1", family="ucb",
    summary="non-private UCB1 on raw rewards (the eps = infinity baseline)",
    source="Auer et al. 2002; seed 000 Sec. 5 baseline", params=(),
    build=lambda instance, horizon: Built(UCB1Index(2.0), Direct(False)), rewards="unit"))

register_algorithm(AlgorithmSpec(
    name="ucb1_sigmoid", label="UCB1-S", family="ucb",
    summary="non-private UCB1 on sigmoid(reward) (baseline for unbounded rewards)",
    source="seed 000 App. B", params=(),
    build=lambda instance, horizon: Built(UCB1Index(2.0), Direct(True)), rewards="any"))
