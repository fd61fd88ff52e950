"""Seed 003: Tao, Wu, Zhao, Wang, "Optimal rates of (locally) private heavy-tailed multi-armed bandits".

Heavy-tailed rewards under central DP and LDP: DP Robust UCB, DP/LDP Robust Successive
Elimination.  Spec ``seed_003.md``.
"""
from . import bounds  # registers the paper's bounds
