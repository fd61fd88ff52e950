"""The exact log-likelihood ratio (law), when the caller supplies the mechanism's log-density.

``log_density(y, x) -> log p(y | x)`` (vectorised over outputs y) gives the statistic
log p(y|x) - log p(y|x'), whose thresholds are the Neyman-Pearson events.  It applies
whenever a log-density is given, whatever ``features`` asks.
"""
from __future__ import annotations

import numpy as np

from ..layers import LAW
from .base import Feature, FitData, Statistic


class LikelihoodRatio(Feature):
    name = "likelihood"
    layer = LAW
    help = "the exact log-likelihood ratio, when a log_density is given (Python only)"
    fix = "the mechanism's own densities exceed the claimed ratio: calibrate its noise"
    order = 0
    #: applies whenever a log-density is given
    always = True

    def statistics(self, data: FitData) -> list[Statistic]:
        if data.log_density is None:
            return []
        log_density, x, x_prime = data.log_density, data.x, data.x_prime

        def score(rows):
            y = rows[:, 0] if rows.shape[1] == 1 else rows
            return np.asarray(log_density(y, x), np.float64) - np.asarray(log_density(y, x_prime), np.float64)
        return [Statistic(self, "log-likelihood ratio", func=score)]


FEATURE = LikelihoodRatio()
