"""Privacy mechanisms: engine components with one ``privatize`` each, and their mechanism objects.

``sampler(name, **params)`` returns the catalog mechanism ``name`` as a
:class:`~dpbench.engine.mechanism.Mechanism` (callable ``mechanism(x, n, seed)``).
Every mechanism that adds continuous noise to its input does it on a power-of-two lattice
(:mod:`.lattice`: DP as implemented), with the paper-literal floating-point form as the
option ``arithmetic="float"``; :mod:`.special` holds the special functions of the laws.
"""
from __future__ import annotations

from . import lattice, special
from . import ldp_curators, privacy_levels
from . import perturbations  # seed 002 perturbation laws
from . import tree_counter, truncation  # seed 003
from . import shuffle_amplification  # seed 004
from . import central_laplace  # central DP (DP-SE, DP Robust SE, seed 004 Alg. 1)
from ..engine.mechanism import Mechanism, sampler


__all__ = ["Mechanism", "sampler"]
