"""Seed 004: Hanna, Girgis, Fragouli, Diggavi, "Differentially private stochastic linear bandits: (almost) for free".

Private phased elimination for linear bandits under central, local and shuffle DP.  Spec
``seed_004.md``.
"""
from . import bounds  # registers the paper's bounds
