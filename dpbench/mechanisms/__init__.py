"""Privacy mechanisms: engine components with one ``privatize`` each, and their mechanism objects.

``sampler(name, **params)`` returns the catalog mechanism ``name`` as a
:class:`~dpbench.mechanisms.base.Mechanism` (callable ``mechanism(x, n, seed)``).
"""
from __future__ import annotations

from . import ldp_curators, privacy_levels
from . import perturbations  # seed 002 perturbation laws
from . import tree_counter, truncation  # seed 003
from . import shuffle_amplification  # seed 004
from . import central_laplace  # central DP (DP-SE, DP Robust SE, seed 004 Alg. 1)
from .base import Mechanism
from ..engine.catalog import MECHANISMS, validate_params


def sampler(name: str, **params) -> Mechanism:
    """The catalog mechanism ``name`` built with ``params`` (validated; ``dpbench list
    mechanisms -v`` names them): a :class:`Mechanism` with ``name``, ``claimed_eps``,
    ``claimed_delta``, ``input_range``, ``component``, ``params``, ``sample(x, n, seed)``
    and ``__call__(x, n, seed)`` (the same), ``sample_sum(x, m, n, seed)``."""
    spec = MECHANISMS.get_spec(name)
    checked = validate_params(f"mechanism {name!r}", spec.params, params)
    mechanism = spec.build(**checked)
    mechanism.params = checked
    return mechanism


__all__ = ["Mechanism", "sampler"]
