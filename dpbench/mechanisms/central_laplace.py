"""The central Laplace mechanism on a mean (Dwork, McSherry, Nissim & Smith 2006).

A trusted agent that holds n values in an interval of width w releases their
mean plus Lap(w / (n eps)): one value moves the mean by at most w/n, so the
release is eps-DP.  ``laplace_release`` is the one function the central-DP
policies call for it:

* DP-SE (Sajed & Sheffet 2019; seed 002 baseline): each epoch mean of n_e rewards
  in [0, 1], Lap(1/(eps n_e)) (``policies/dp_se.py``);
* DP Robust SE (seed 003 Algorithm 3): each epoch mean of R_tau rewards truncated
  to [-B_tau, B_tau], Lap(2 B_tau/(R_tau eps)) (``policies/robust_elimination.py``);
* central phased elimination (seed 004 Algorithm 1): each core action's batch reward
  sum (n = 1: the sum, w = Delta_r), Lap(Delta_r/eps) (``private_phased_elimination.py``).

``LaplaceReleaseMechanism`` (catalog ``laplace_release``) is the same function as a
mechanism of one of the n values, the others fixed, for samplers and audits.

The release is float-safe (:func:`dpbench.mechanisms.lattice.laplace_lattice_release`): the
mean on the lattice g = 2^(floor(log2 min(w/(n eps), w/n)) - 16), the sensitivity taken as
ceil(w/(n g)) + 1 steps (the rounding, and the mean's own float error below g/2), the noise
the lattice Laplace calibrated to it: eps-DP as implemented.  ``laplace_release_float`` is the
textbook total/n + Lap(w/(n eps)) in floating point (the mechanism's ``arithmetic="float"``).
"""
from __future__ import annotations

from typing import NamedTuple

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import Param, integer, real
from ..engine.components import implements, privatize
from ..engine.mechanism import CatalogMechanism
from ..validation import check_real
from .lattice import (
    ARITHMETIC_PARAM,
    LATTICE_PARAM,
    laplace_lattice_release,
    laplace_on_lattice,
    lattice_plan,
    to_steps,
)


@cached_njit
def laplace_release(total, n, width, eps):
    """total/n + Lap(width/(n eps)) on the lattice: the float-safe eps-DP release of the mean
    of n values in an interval of width ``width`` whose sum is ``total`` (n = 1: of the sum)."""
    return laplace_lattice_release(total / n, width / n, eps)


@cached_njit
def laplace_release_float(total, n, width, eps):
    """total/n + Lap(width/(n eps)) in floating point: eps-DP in exact arithmetic only."""
    return total / n + rng.laplace(width / (n * eps))


class LaplaceRelease(NamedTuple):
    """The release of the mean of ``n`` values in [0, width]: ``others`` (the sum of n - 1 of
    them) plus the input; on the lattice (``lattice``; g and s: its plan, as
    ``lattice.lattice_plan`` makes it) or in floating point."""
    n: float
    others: float
    width: float
    eps: float
    lattice: bool
    g: float
    s: float


@implements(privatize, LaplaceRelease)
def _laplace_release_privatize(mech, r, public):
    if mech.lattice:
        return laplace_on_lattice(to_steps((mech.others + r) / mech.n, 1.0 / mech.g), mech.s, mech.g)
    return laplace_release_float(mech.others + r, mech.n, mech.width, mech.eps)


class LaplaceReleaseMechanism(CatalogMechanism):
    """The mean of n values in [0, width], one of which is the input x and the others sum to
    ``others`` (default 0), plus Lap(width/(n eps)): eps-DP (the Laplace mechanism, Dwork et
    al. 2006, as DP-SE, DP Robust SE (seed 003 Alg. 3) and seed 004 Alg. 1 use it), float-safe
    on a lattice by default."""

    NAME = "laplace_release"
    SUMMARY = ("mean of n values in [0, width] (one is x) + Lap(width/(n eps)): the central Laplace mechanism "
               "of DP-SE, DP Robust SE and linear_central (on a lattice)")
    SOURCE = "Dwork et al. 2006; seed 003 Alg. 3"
    PARAMS = (Param("eps", "privacy level", real(0.0, low_open=True)),
              Param("n", "number of values averaged", integer(1), 1),
              Param("width", "width of the values' interval", real(0.0, low_open=True), 1.0),
              Param("others", "sum of the other n - 1 values (default 0)", real(0.0), None),
              ARITHMETIC_PARAM, LATTICE_PARAM)
    AUDIT = {"eps": 1.0, "n": 10}
    local = False                  # a central release of a mean, not a user's report

    def _setup(self, *, eps, n, width, others, arithmetic, lattice):
        others = 0.0 if others is None else check_real("others", others, low=0.0, high=(n - 1) * width)
        # the policies' sensitivity rule (ceil(width/(n g)) + 1 steps), as laplace_release applies it
        g, s = lattice_plan(eps, width / n, lattice=lattice) if arithmetic == "lattice" else (0.0, 0.0)
        self._claim(LaplaceRelease(float(n), others, width, eps, arithmetic == "lattice", g, s), eps=eps,
                    input_range=(0.0, width),
                    params={"eps": eps, "n": n, "width": width, "others": others, "arithmetic": arithmetic,
                            "lattice": lattice},
                    arithmetic=arithmetic)


LaplaceReleaseMechanism.register()
