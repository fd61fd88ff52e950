"""Seed 002: Wang & Zhu, "Optimal learning policies for differential privacy in multi-armed bandits".

(eps, delta)-DP and global DP by Follow-the-Perturbed-Leader: DP-FTPL-Gauss/-Beta/-New,
GDP-Elim-New, Lemmas 8/9/15.  Spec ``seed_002.md``.
"""
from . import bounds  # registers the paper's bounds
