"""Seed 000: Ren, Liu, Zhou, Shroff, "Multi-armed bandits with local differential privacy" (v000).

Homogeneous eps: LDP-UCB-L/B with the curators CTL/CTB, their sigmoid variants, Theorem 1's
lower bound.  Spec ``seed_000_001.md``.  ``ldp_checks.py`` holds the measurements that are not
regret runs (exact constants, spec tables, Monte-Carlo checks of the curators); the revised
version, seed 001, uses them and this paper's bounds.
"""
from . import bounds  # registers the paper's bounds
from . import factors

factors.register()  # the factors its claims predict slopes of ("factor:beta")
