"""Bandit policies (engine components + catalog entries), one module per family."""
from . import heldp_ucb, ldp_ucb, ucb
from . import linucb, optimal_design, private_phased_elimination  # seed 004
from . import robust_elimination, robust_ucb  # seed 003
from . import dp_ftpl, dp_se, dp_ucb_baselines, gdp_elim, thompson  # seed 002
