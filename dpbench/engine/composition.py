"""Composable privatisers: ``simulate(policy, env, mechanism=...)``.

An LDP policy whose index does not depend on the privatiser declares the reports
it can take (``reports`` of :func:`dpbench.register_policy`, :class:`~.catalog.AlgorithmSpec`):

* ``"bits"``: only 0/1 reports -- LDP-UCB-B's UCB1 radius sqrt(2 log t / N) is
  Hoeffding's for the CTB bits of seed 000 Agent 4 (Thm 6);
* ``"real"``: any real report -- LDP-UCB-L's radius carries its own noise term (Agent 2).

``mechanism`` is then a registered mechanism name (built-in, e.g. ``"ctl"``, or
:func:`dpbench.register_mechanism`) or a :class:`~dpbench.engine.mechanism.Mechanism`
object; its engine component replaces the privatiser the policy's ``build`` pairs
it with, so the code that runs is the very ``privatize`` that ``dpbench.sampler``
samples and ``dpbench audit`` audits.  A mechanism given by name takes its parameters
from the run's, by name: a name both have (``eps``) goes to both, a name only the
mechanism has (``delta``) to the mechanism alone.

Compatibility is checked here, before anything compiles, and refused with one line
naming both: the policy must take a mechanism, the mechanism must be a local
randomiser (one user's report), its ``output_kind`` must be one the policy takes
(bits fit a "real" policy, not the reverse), and the environment's rewards must lie
in the mechanism's ``input_range`` (where its privacy claim holds).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..validation import InputError
from .catalog import ALGORITHMS, MECHANISMS, AlgorithmSpec, Instance, MechanismSpec
from .mechanism import Mechanism, sampler

_REPORTS = {"bits": "bit reports (0 or 1)", "real": "real-valued reports"}


@dataclass
class Composition:
    """A policy's privatiser replaced by ``mechanism`` (see the module docstring)."""
    mechanism: Mechanism
    name: str                       # the registered name, or the object's name
    params: dict                    # the mechanism's validated parameters (by name only)
    spec: MechanismSpec | None = None

    def run_params(self, policy_params: dict) -> dict:
        """The parameters that rebuild this run: the policy's, ``mechanism`` and the
        mechanism's own (a sweep cell's configuration)."""
        own = {k: v for k, v in self.params.items() if k not in policy_params}
        return {**policy_params, "mechanism": self.name, **own}


def mechanism_param_names(mechanism) -> set:
    """Parameter names of a registered mechanism (empty for an object or None)."""
    if not isinstance(mechanism, str):
        return set()
    return {p.name for p in MECHANISMS.get_spec(mechanism).params}


def policies_taking_mechanisms() -> list[str]:
    return sorted(name for name, spec in ALGORITHMS.items() if spec.reports is not None)


def compose(spec: AlgorithmSpec, mechanism, params: dict, instance: Instance) -> Composition:
    """Build ``mechanism`` for policy ``spec`` on ``instance`` and check they fit; the
    mechanism-only names are removed from ``params`` (the rest are the policy's)."""
    what = f"policy {spec.name!r} cannot use mechanism {getattr(mechanism, 'name', mechanism)!r}"
    if spec.reports is None:
        raise InputError(f"{what}: its privatiser is part of the algorithm; policies that take "
                         f"mechanism=: {', '.join(policies_taking_mechanisms()) or 'none'}")
    if isinstance(mechanism, str):
        mspec = MECHANISMS.get_spec(mechanism)
        policy_names = {p.name for p in spec.params}
        names = mechanism_param_names(mechanism)
        given = {k: params[k] for k in names if k in params}
        for k in names - policy_names:
            params.pop(k, None)
        built = sampler(mechanism, **given)
        composition = Composition(built, mspec.name, dict(built.params), mspec)
    elif isinstance(mechanism, Mechanism):
        composition = Composition(mechanism, mechanism.name, {})
    else:
        raise InputError(f"mechanism must be a registered mechanism name (dpbench list mechanisms) or a "
                         f"dpbench.extend.Mechanism object (got {type(mechanism).__name__})")
    mech = composition.mechanism
    if not mech.local:
        raise InputError(f"{what}: the mechanism is not a local randomiser (its privatize is a draw the "
                         "policy makes from its own statistics, not one user's report)")
    if spec.reports == "bits" and mech.output_kind != "bits":
        raise InputError(f"{what}: the policy needs {_REPORTS['bits']} and the mechanism's output_kind is "
                         f"{mech.output_kind!r}")
    low, high = mech.input_range
    if instance.reward_low < low or instance.reward_high > high:
        raise InputError(f"{what} on environment {instance.name!r}: the mechanism takes rewards in "
                         f"[{low:g}, {high:g}] (where its privacy claim holds) and the environment's lie in "
                         f"[{instance.reward_low:g}, {instance.reward_high:g}]")
    return composition
