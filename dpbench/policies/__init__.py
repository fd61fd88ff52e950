"""Bandit policies (engine components + catalog entries), one module per family."""
from . import heldp_ucb, ldp_ucb, ucb
