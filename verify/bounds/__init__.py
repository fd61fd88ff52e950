"""Regret bounds of the seed papers: one registry, one module per paper.

>>> from verify import bounds
>>> ev = bounds.get("seed000.thm6").evaluate(means=[0.9, 0.8], eps=2.0, T=10**5,
...                                          environment="bernoulli")
>>> ev.value, ev.slope
"""
from . import seed000_001, seed002, seed003, seed004  # noqa: F401  (register the bounds)
from .registry import (ASYMPTOTIC, BOUNDS, EXPLICIT, LOWER, ORDER, UPPER, Bound, Condition,
                       Evaluation, Exponent, bounds_for, context, get)

__all__ = ["BOUNDS", "Bound", "Condition", "Evaluation", "Exponent", "bounds_for", "context", "get",
           "UPPER", "LOWER", "EXPLICIT", "ASYMPTOTIC", "ORDER"]
