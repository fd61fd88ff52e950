"""The Bernoulli trick (Agrawal & Goyal 2013; seed 002 Sec. 3.1): [0, 1] rewards -> bits.

The DP-FTPL policies of seed 002 (and its baselines) are written for Bernoulli
rewards.  For a reward x in [0, 1] the trusted agent draws y ~ Bernoulli(x) and
feeds y to the algorithm; the y's are i.i.d. Bernoulli(mu_arm), so every
Bernoulli-reward guarantee carries over.  Not a privacy mechanism (the policies
privatise inside their own state); a pre-map in front of the agent.

* ``BernoulliTrick``: ``privatize`` maps a reward x to one Bernoulli(x) bit; the
  default ``respond`` does that for each of the m pulls in turn (m rewards and m
  uniforms; level 0).
* ``bernoulli_observations(instance)``: the mechanism a seed 002 policy uses on
  ``instance``: ``Direct`` for Bernoulli arms (the bit is the reward; a batch is
  one binomial draw), ``BernoulliTrick`` otherwise.
"""
from __future__ import annotations

from typing import NamedTuple

from .. import randomness as rng
from ..engine.components import implements, privatize
from ..environments.stochastic_arms import BernoulliArms
from .ldp_curators import Direct


class BernoulliTrick(NamedTuple):
    """y ~ Bernoulli(x) for every reward x in [0, 1] (seed 002 Sec. 3.1)."""
    binary_output: bool      # always True (a field, so that the tuple is not empty)


@implements(privatize, BernoulliTrick)
def _bernoulli_trick_privatize(mech, r, public):
    return rng.bernoulli(r)


def bernoulli_observations(instance):
    """``Direct(False)`` if ``instance`` has Bernoulli arms, else ``BernoulliTrick(True)``."""
    if isinstance(instance.env, BernoulliArms):
        return Direct(False)
    return BernoulliTrick(True)
