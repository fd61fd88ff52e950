"""Regret bounds: one registry (:mod:`.registry`); each paper registers its own
(``dpbench/papers/seed<NNN>/bounds.py``) when the application loads it (:func:`dpbench.papers.load`);
verify loads no paper.

>>> from verify import bounds
>>> ev = bounds.get("seed000.thm6").evaluate(means=[0.9, 0.8], eps=2.0, T=10**5,
...                                          environment="bernoulli")
>>> ev.value, ev.slope
"""
from .registry import (ASYMPTOTIC, BOUNDS, EXPLICIT, LOWER, ORDER, UPPER, Bound, Condition,
                       Evaluation, Exponent, bounds_for, context, get, register)

__all__ = ["BOUNDS", "Bound", "Condition", "Evaluation", "Exponent", "bounds_for", "context", "get", "register",
           "UPPER", "LOWER", "EXPLICIT", "ASYMPTOTIC", "ORDER"]
