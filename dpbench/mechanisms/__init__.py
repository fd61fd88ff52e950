"""Privacy mechanisms: engine components with one ``privatize`` each, and their mechanism objects.

``sampler(name, **params)`` returns the catalog mechanism ``name`` as a
:class:`~dpbench.engine.mechanism.Mechanism` (callable ``mechanism(x, n, seed)``).
Every mechanism that adds continuous noise to its input does it on a power-of-two lattice
(:mod:`.lattice`: DP as implemented), with the paper-literal floating-point form as the
option ``arithmetic="float"``; :mod:`.special` holds the special functions of the laws.
"""
from __future__ import annotations

from ..engine.mechanism import Mechanism, sampler
from ..plugins import import_folder

import_folder(__name__)      # one module per mechanism family; each registers its catalog entries


__all__ = ["Mechanism", "sampler"]
