"""Bandit policies (engine components + catalog entries), one module per family."""
from . import heldp_ucb, ldp_ucb, ucb
from . import dp_ftpl, gdp_elim, thompson  # seed 002
