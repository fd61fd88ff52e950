"""Privacy mechanisms: engine components and stand-alone samplers ``sample(x, n, seed)``."""
from __future__ import annotations

from . import ldp_curators, privacy_levels
from . import perturbations  # seed 002 perturbation laws
from . import tree_counter, truncation  # seed 003
from . import shuffle_amplification  # seed 004
from ..engine.catalog import MECHANISMS, validate_params


def sampler(name: str, **params):
    """A callable ``mechanism(x, n, seed) -> ndarray`` for catalog mechanism ``name``.

    The callable carries ``.name``, ``.params``, ``.claimed_eps``, ``.claimed_delta``
    and ``.input_range`` for the audits.
    """
    spec = MECHANISMS.get_spec(name)
    checked = validate_params(f"mechanism {name!r}", spec.params, params)

    def mechanism(x, n, seed):
        return spec.sampler(x, n, seed, **checked)

    mechanism.__name__ = name
    mechanism.name = name
    mechanism.params = checked
    mechanism.claimed_eps, mechanism.claimed_delta = spec.claimed(checked)
    mechanism.input_range = (spec.input_low, spec.input_high)
    return mechanism
