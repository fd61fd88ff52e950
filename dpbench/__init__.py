"""dpbench: Numba-compiled benchmarking and verification of differentially private bandits.

>>> import dpbench
>>> result = dpbench.simulate("ldp_ucb_b", "bernoulli", horizon=100_000, reps=8, seed=1, eps=2.0)
>>> result.mean[-1], result.ci95[:, -1]
"""
from importlib import metadata as _metadata

try:                                        # the one version number is pyproject.toml's
    __version__ = _metadata.version("dpbench")
except _metadata.PackageNotFoundError:      # a source tree that was never installed
    __version__ = "0+unknown"

from . import environments, mechanisms, policies  # noqa: E402,F401  (registers components)
from .engine.catalog import ALGORITHMS, ENVIRONMENTS, MECHANISMS  # noqa: E402
from .engine.result import SimulationResult, to_json  # noqa: E402
from .engine.simulate import Interrupted, simulate  # noqa: E402
from .engine.guard import LongRunWarning  # noqa: E402
from .extend import (ComponentError, implements, load_plugins, register_environment,  # noqa: E402
                     register_mechanism, register_policy)
from .mechanisms import sampler  # noqa: E402
from .validation import InputError  # noqa: E402

__all__ = ["simulate", "SimulationResult", "Interrupted", "InputError", "LongRunWarning", "sampler",
           "ALGORITHMS", "ENVIRONMENTS", "MECHANISMS", "__version__",
           "register_policy", "register_mechanism", "register_environment", "implements", "ComponentError",
           "load_plugins"]
