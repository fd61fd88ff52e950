"""Reward environments (engine components + catalog entries)."""
from . import stochastic_arms
from .stochastic_arms import (TWENTY_ARM_MEANS, BernoulliArms, GaussianArms, MixedArms, bernoulli,
                              beta, gaussian, mixture, paper_mixed, two_point, uniform)
from . import heavy_tailed  # seed 003
from . import linear  # seed 004
