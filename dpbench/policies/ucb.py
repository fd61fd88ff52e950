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

import numpy as np

from ..engine.catalog import AlgorithmSpec, Built, register_algorithm
from ..engine.components import implements, init_state, select, update
from ..mechanisms.ldp_curators import Direct


class UCB1Index(NamedTuple):
    c: float          # exploration constant: radius sqrt(c log t / N); 2 in every paper here


@implements(init_state, UCB1Index)
def _init(policy, k, horizon):
    # S: sum of responses, N: counts, M: means (kept exact as S/N at each update)
    return np.zeros(k), np.zeros(k), np.zeros(k)


@implements(select, UCB1Index)
def _select(policy, state, t):
    s, n, mean = state
    k = n.shape[0]
    if t < k:
        return t, 1
    width = policy.c * math.log(t)
    best = -math.inf
    arm = 0
    for a in range(k):
        u = mean[a] + math.sqrt(width / n[a])
        if u > best:
            best = u
            arm = a
    return arm, 1


@implements(update, UCB1Index)
def _update(policy, state, arm, m, value, level, t):
    s, n, mean = state
    s[arm] += value
    n[arm] += m
    mean[arm] = s[arm] / n[arm]


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
