"""Seed 001: Ren et al., "Multi-armed bandits with local differential privacy" (v001, revised).

Adds heterogeneous privacy levels: HeLDP-UCB-L/B (and -LS/-BS).  Spec ``seed_000_001.md``.
Builds on seed 000 (the first version of the same paper): its conditions and formulas, its
curator checks and its distribution-free experiments.
"""
from . import bounds  # registers the paper's bounds
