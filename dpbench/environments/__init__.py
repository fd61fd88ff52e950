"""Reward environments (engine components + catalog entries), one module per family: each
registers its environments (:func:`dpbench.register_environment`) when imported, and every module
of this folder is imported (:func:`dpbench.plugins.import_folder`)."""
from ..plugins import import_folder
from .stochastic_arms import (TWENTY_ARM_MEANS, BernoulliArms, GaussianArms, MixedArms, bernoulli,
                              beta, gaussian, mixture, paper_mixed, two_point, uniform)

import_folder(__name__)

__all__ = ["TWENTY_ARM_MEANS", "BernoulliArms", "GaussianArms", "MixedArms", "bernoulli", "beta", "gaussian",
           "mixture", "paper_mixed", "two_point", "uniform"]
