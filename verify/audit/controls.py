"""What the audits check on dpbench itself: every catalog mechanism at its claim, and
negative controls (deliberately broken variants that the audit must catch).

The settings each catalog mechanism is audited with are declared with the mechanism (its
class's ``AUDIT``, the catalog's ``MechanismSpec.audit``); the views below derive from the
catalog, and the test suite fails for a catalog mechanism that declares none:

* ``CATALOG_SETTINGS``: name -> the parameters it is audited with at its claim;
* ``FLOAT_UNSAFE``: the names whose mechanism, at those settings, adds its noise in plain
  floating point (``Mechanism.float_unsafe``, from its ``arithmetic``); empty while every
  catalog mechanism is float-safe by default;
* ``FLOAT_FORMS``: name -> the settings of its paper-literal floating-point form
  (``arithmetic="float"``), for every mechanism that has one: the default audit must catch
  each as not DP as implemented, and its law must hold with ``LAW_FEATURES``.
"""
from __future__ import annotations

from dataclasses import dataclass

import dpbench
from dpbench.mechanisms import Mechanism
from dpbench.mechanisms.ldp_curators import CTB
from dpbench.mechanisms.perturbations import Lemma15Perturbation
from dpbench.validation import check_real


def _catalog_settings() -> dict:
    return {name: dict(spec.audit) for name, spec in dpbench.MECHANISMS.items() if spec.audit is not None}


#: parameters each catalog mechanism is audited with (declared with the mechanism: ``AUDIT``)
CATALOG_SETTINGS = _catalog_settings()

#: the paper-literal floating-point form of every catalog mechanism that has one
FLOAT_FORMS = {name: {**settings, "arithmetic": "float"} for name, settings in CATALOG_SETTINGS.items()
               if "float" in dpbench.MECHANISMS[name].options("arithmetic")}

#: catalog mechanisms whose samplers, at their audit settings, add their noise in plain floating
#: point, so that the granularity of an output reveals the input (Mironov, CCS'12): not DP as
#: implemented (derived from each mechanism's ``arithmetic``; their law is audited with
#: LAW_FEATURES)
FLOAT_UNSAFE = frozenset(name for name, settings in CATALOG_SETTINGS.items()
                         if dpbench.sampler(name, **settings).float_unsafe)

#: the default statistics without the floating-point granularity ones: what the law of a
#: mechanism leaks, as if its arithmetic were exact
LAW_FEATURES = ("category", "value", "score")


def catalog_mechanism(name: str, **overrides):
    """The sampler of catalog mechanism ``name`` with its audit settings (and overrides)."""
    return dpbench.sampler(name, **{**CATALOG_SETTINGS[name], **overrides})


def float_form(name: str):
    """The paper-literal floating-point form of catalog mechanism ``name`` at its audit settings."""
    return dpbench.sampler(name, **FLOAT_FORMS[name])


def law_features(name: str) -> tuple:
    """The ``features`` that audit the claim of catalog mechanism ``name`` at its settings: the
    defaults, or LAW_FEATURES for a sampler that is not float-safe (FLOAT_UNSAFE)."""
    return LAW_FEATURES if name in FLOAT_UNSAFE else ("auto",)


# ------------------------------------------------------------------ negative controls
def ctb_towards_reward(eps: float):
    """CTB whose output probabilities are moved towards the reward: it uses the
    randomised-response probability of level 2 eps, P[1 | r] = (r e^(2eps) + 1 - r)/(1 + e^(2eps)),
    while claiming eps (a mis-scaled constant; really 2 eps-LDP): the engine's CTB component
    at 2 eps behind the claim eps."""
    eps = check_real("eps", eps, low=0.0, low_open=True)
    return Mechanism(CTB.at(2.0 * eps, False), eps=eps, name="ctb_towards_reward")


def lemma15_double_shift(eps: float, delta: float, pulls: int = 10):
    """The Lemma 15 law whose centre moves by 2/N (not 1/N) when the input moves from 0 to 1:
    x0 = 2x/N, claiming the (eps, delta) that holds for shifts up to 1/N (the catalog's lattice
    draw, law built for N, centre x/(N/2))."""
    return Mechanism(Lemma15Perturbation.at(0.5 * pulls, 0.0, eps, delta, law_pulls=pulls), eps=eps, delta=delta,
                     name="lemma15_shifted_2_over_N", arithmetic="lattice")


@dataclass
class Control:
    name: str
    mechanism: object
    eps: float          # the (wrong) claim
    delta: float
    why: str
    base: str = ""      # the catalog mechanism it breaks (its features: law_features(base))

    @property
    def features(self) -> tuple:
        """The statistics that test the planted bug, not the sampler's floating-point leak."""
        return law_features(self.base)


def negative_controls() -> list[Control]:
    """Broken mechanisms with the claim they fail; every one must be caught."""
    return [
        Control("laplace_half_scale", dpbench.sampler("ctl", eps=2.0), 1.0, 0.0,
                "CTL with Laplace scale 1/(2 eps): really 2 eps-LDP", "ctl"),
        Control("ctb_towards_reward", ctb_towards_reward(1.0), 1.0, 0.0,
                "CTB with the randomised-response probabilities of 2 eps", "ctb"),
        Control("lemma15_shifted_2_over_N", lemma15_double_shift(1.0, 0.01, 10), 1.0, 0.01,
                "Lemma 15 law whose centre moves by 2/N: its delta at eps is far above 0.01 (spec C2)",
                "lemma15"),
        Control("ftpl_gauss_without_start_phase", dpbench.sampler("ftpl_gauss", eps=1.0, delta=0.01, pulls=1),
                1.0, 0.01, "DP-FTPL-Gauss perturbation after one pull (no start phase; spec C9, Fig. 1a)",
                "ftpl_gauss"),
        Control("ftpl_beta_without_k", dpbench.sampler("ftpl_beta", eps=1.0, delta=0.01, extra_k=False),
                1.0, 0.01, "DP-FTPL-Beta without the k pseudo-counts (spec C4, Fig. 2d-f: delta ~ 0.16)",
                "ftpl_beta"),
        Control("laplace_pm1_paper_scale", dpbench.sampler("laplace_pm1", eps=1.0, noise_scale="paper"),
                1.0, 0.0, "seed 004 erratum E1: Laplace(1/eps) on [-1, 1] is only 2 eps-LDP", "laplace_pm1"),
    ]
