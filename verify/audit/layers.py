"""The two layers an audit judges, from the same samples.

* ``law``: the statistics of an exact-arithmetic mechanism -- values, categories and atoms,
  scores and projections of vectors, a likelihood ratio.  A violation here is a property of
  the mechanism's distribution (a wrong sensitivity, too little noise, a rare output one input
  never produces): no arithmetic can mend it.
* ``floating_point``: artefacts of the implementation that an exact mechanism does not have --
  the granularity (binade and trailing zero mantissa bits) and the low bits of floating-point
  outputs.  ``x + noise`` computed in floating point has a granularity that depends on x
  (Mironov, CCS'12), whatever the sampler; a violation here is mended by arithmetic (noise and
  input on a lattice, a float-safe sampler), not by more noise.

Each statistic plug-in (:mod:`verify.audit.features`) declares its layer.  The audit's level
alpha is shared between the layers that have a statistic (Bonferroni): the law takes
``LAW_SHARE`` of it (its bounds are the calibrated ones, compared with published figures),
the floating point the rest (a floating-point leak, when there is one, is far above any claim).
Every bound, p-value and verdict of both layers then holds together at confidence 1 - alpha.
"""
from __future__ import annotations

LAW = "law"
FLOATING_POINT = "floating_point"
#: every layer, in the order they are reported
LAYERS = (LAW, FLOATING_POINT)
#: how each layer is named in messages
TITLES = {LAW: "law", FLOATING_POINT: "floating point"}
#: what each layer tests, in one line
MEANING = {LAW: "the distribution of the mechanism as if its arithmetic were exact",
           FLOATING_POINT: "artefacts of floating-point arithmetic in the outputs (granularity, low bits)"}
#: the law's share of alpha when both layers are tested
LAW_SHARE = 0.9


def shares(tested) -> dict:
    """The share of alpha of each tested layer (the layers in ``tested``; they sum to 1)."""
    tested = [layer for layer in LAYERS if layer in set(tested)]
    if len(tested) == 1:
        return {tested[0]: 1.0}
    return {LAW: LAW_SHARE, FLOATING_POINT: 1.0 - LAW_SHARE} if tested else {}
