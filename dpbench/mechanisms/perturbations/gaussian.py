"""The Gaussian perturbation of DP-FTPL-Gauss (seed 002 Alg. 1, Thm 11; spec seed_002.md §5.1).

theta ~ N(R/N, v/N) for an arm with N pulls and reward sum R; v = 2 by default (the privacy
proof of Theorem 11 needs it, the regret proof uses 1: spec §5.1, §10.2, R7).  One reward
changes the mean by at most 1/N, so one draw is the Gaussian mechanism with sensitivity
1/N and sd sqrt(v/N): mu-GDP with mu = 1/sqrt(vN), (eps, delta(eps)) for
delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) (Balle & Wang, ICML 2018, Thm 8).

* scalar kernels ``gauss_cdf/sf/pdf``, ``gauss_sd`` and ``gauss_sample`` (a draw of the exact
  law, in floating point); ``gauss_start_phase`` (N_G*, three readings);
* ``gauss_perturbation(mean, sd, sensitivity)``: the draw DP-FTPL-Gauss makes for each arm,
  the component's ``privatize`` and the audit's: float-safe, on the lattice of
  :mod:`dpbench.mechanisms.lattice` (``gauss_perturbation_float``: the paper-literal
  ``mean + sd * N(0, 1)``, ``arithmetic="float"``);
* the law object ``GaussianLaw`` (cdf/sf/pdf/sample/neighbour), the component
  ``GaussPerturbation`` and the mechanism ``GaussPerturbationMechanism`` (catalog
  ``ftpl_gauss``).

The lattice Gaussian.  g = ``lattice_spacing(sd, 1/N)``; the mean is rounded to it, so two
neighbouring means are D = ceil(g^-1/N) + 1 steps apart at most; the sd is widened to
sd' = sd D g N (at most 2^-15 wider) so that D g / sd' = mu stays the paper's: the exact law of
the lattice draw (the rounded N(X g, sd'^2)) is post-processing of a Gaussian mechanism with
the same mu.  The noise is s z steps, s = sd'/g, z = Phi^-1 of ``tail_uniform`` (``special.ndtri``,
AS 241, relative error assumed <= 2^-48; tested against scipy to 2^-49.8), rounded to an
integer.  Every cell with |z| <= GAUSS_CUT = 8 is within a factor 1 +- r of the exact law's
(``gauss_lattice_slack``: grid 2^-53 down to m = 2^-9, 2^-106 below; float error E <= s (8 2^-48 + 2^-50) steps),

    r = s (2^-52 / phi(2.879) + 2^-105 / phi(8.01) + 2.002 (8 2^-48 + 2^-50)),

and the outputs beyond (for either input) weigh beta <= 2 Phi(-(8 - mu - 1/s)) (1 + r) + 2^-100,
so the draw is (eps + ln((1+r)/(1-r)), (1 + r) delta(eps) + beta)-DP as implemented.  At the
catalog's setting (N = 8, s ~ 2^18) r ~ 1e-7 and beta ~ 1e-14; the mechanism refuses a claim
that the exact law keeps and the lattice would not.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
from scipy import stats

from ... import randomness as rng
from ...engine.caching import cached_njit
from ...engine.catalog import Param, integer, real
from ...engine.components import implements, privatize
from ...engine.mechanism import CatalogMechanism
from ...validation import InputError, check_real
from ..lattice import ARITHMETIC_PARAM, lattice_spacing, sensitivity_steps, tail_uniform, to_steps
from ..special import ndtri
from ._common import DELTA_POS, EPS0, OTHERS, FeasibilityFamily, KernelLaw, history, known_options

#: Default Gaussian variance factor v in N(R/N, v/N): the privacy proof of Theorem 11 needs
#: v = 2 (density sqrt(N/(4 pi)) exp(-N (x - mu)^2 / 4)); its regret proof uses v = 1, with
#: which the delta-branch of N_G* is not sufficient (spec §5.1, §10.2, R7).
GAUSS_VARIANCE = 2.0
#: |z| up to which the lattice Gaussian's cells are bounded relative to the exact law
GAUSS_CUT = 8.0


# ------------------------------------------------------------------ scalar kernels
@cached_njit
def gauss_cdf(x, mean, n, v):
    """P[theta <= x] for theta ~ N(mean, v/n)."""
    return 0.5 * math.erfc((mean - x) / math.sqrt(2.0 * v / n))


@cached_njit
def gauss_sf(x, mean, n, v):
    """P[theta > x] for theta ~ N(mean, v/n) (accurate in the upper tail)."""
    return 0.5 * math.erfc((x - mean) / math.sqrt(2.0 * v / n))


@cached_njit
def gauss_pdf(x, mean, n, v):
    var = v / n
    z = x - mean
    return math.exp(-0.5 * z * z / var) / math.sqrt(2.0 * math.pi * var)


@cached_njit
def gauss_sd(n, v):
    """sqrt(v/n): the standard deviation of DP-FTPL-Gauss's theta after n pulls (Alg. 1)."""
    return math.sqrt(v / n)


@cached_njit
def gauss_sample(mean, n, v):
    """One theta ~ N(mean, v/n) of the exact law (one standard normal, floating point)."""
    return gauss_perturbation_float(mean, gauss_sd(n, v))


@cached_njit
def gauss_perturbation_float(mean, sd):
    """mean + sd N(0, 1) in floating point: the paper-literal draw (``arithmetic="float"``),
    whose low bits reveal the mean; not DP as implemented."""
    return rng.normal(mean, sd)


@cached_njit
def gauss_lattice_plan(sd, sensitivity):
    """(g, s): the lattice of a Gaussian draw of sd ``sd`` whose mean has sensitivity
    ``sensitivity``, and its sd in steps, s = sd'/g with sd' = sd D g / sensitivity (keeps
    mu = sensitivity / sd; module docstring)."""
    g = lattice_spacing(sd, sensitivity)
    return g, sd * sensitivity_steps(sensitivity, g) / sensitivity


@cached_njit
def gauss_lattice_theta(mean, g, s):
    """(rint(mean/g) + K) g with K = rint(s Phi^-1(m)), m from ``tail_uniform``, signed by its side."""
    return gauss_lattice_step(tail_uniform(), mean, g, s)


@cached_njit
def gauss_lattice_step(t, mean, g, s):
    """``gauss_lattice_theta`` of the signed tail uniform t (``tail_uniform``) drawn beforehand."""
    k = np.rint(-s * ndtri(abs(t)))
    return (to_steps(mean, 1.0 / g) + (k if t > 0.0 else -k)) * g


#: every m >= GAUSS_CENTRAL_M has |Phi^-1(m)| <= GAUSS_CENTRAL_Z (Phi^-1(0.075) = -1.43953; AS 241's
#: central branch): an upper-side draw there moves theta up by at most rint(s GAUSS_CENTRAL_Z) steps
GAUSS_CENTRAL_M = 0.075
GAUSS_CENTRAL_Z = 1.44


@cached_njit
def gauss_lattice_bound(t, mean, g, s):
    """An upper bound of ``gauss_lattice_step(t, mean, g, s)`` without its quantile (inf where none
    is that cheap): a lower-side draw (t < 0) gives at most the rounded mean, an upper-side draw
    with m >= GAUSS_CENTRAL_M at most rint(s GAUSS_CENTRAL_Z) steps above it (rint is monotone and
    (n + K) g is exact on the lattice, so the bound holds in floating point)."""
    base = to_steps(mean, 1.0 / g)
    if t < 0.0:
        return base * g
    if t >= GAUSS_CENTRAL_M:
        return (base + np.rint(s * GAUSS_CENTRAL_Z)) * g
    return np.inf


@cached_njit
def gauss_perturbation(mean, sd, sensitivity):
    """One float-safe theta ~ N(mean, sd^2) on the lattice (module docstring), for a mean whose
    sensitivity is ``sensitivity`` (1/N): the draw of the sampler and the audit, and of
    DP-FTPL-Gauss, which keeps each arm's ``gauss_lattice_plan`` between its pulls."""
    g, s = gauss_lattice_plan(sd, sensitivity)
    return gauss_lattice_theta(mean, g, s)


# ------------------------------------------------------------------ accounting
@cached_njit
def gauss_lattice_slack(s):
    """r: the relative error bound of every lattice cell with |z| <= GAUSS_CUT, for a noise of
    at most s steps per standard deviation (module docstring)."""
    phi_refine = 0.006310                 # phi(2.879) <= phi at m = 2^-9, |z| <= 2.8785
    phi_cut = 5.0e-15                     # phi(8.01)
    return s * (2.0 ** -52 / phi_refine + 2.0 ** -105 / phi_cut + 2.002 * (GAUSS_CUT * 2.0 ** -48 + 2.0 ** -50))


def gauss_delta(eps: float, mu: float) -> float:
    """delta(eps) of the Gaussian mechanism with sensitivity / sd = mu (Balle & Wang 2018, Thm 8)."""
    if mu == 0.0:
        return 0.0
    return float(stats.norm.cdf(mu / 2.0 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2.0 - eps / mu))


def gauss_lattice_delta(eps: float, pulls: float, v: float) -> float:
    """The delta at eps of one lattice draw as implemented, for N = ``pulls`` and variance factor
    v: (1 + r) delta_mu(eps - sigma) + beta, sigma = ln((1+r)/(1-r)) (module docstring)."""
    sd, sensitivity = math.sqrt(v / pulls), 1.0 / pulls
    g = float(lattice_spacing(sd, sensitivity))
    s = sd * float(sensitivity_steps(sensitivity, g)) / sensitivity
    r = float(gauss_lattice_slack(s))
    mu = sensitivity / sd
    sigma = math.log((1.0 + r) / (1.0 - r))
    beta = 2.0 * float(stats.norm.sf(GAUSS_CUT - mu - 1.0 / s)) * (1.0 + r) + 2.0 ** -100
    return (1.0 + r) * gauss_delta(max(eps - sigma, 0.0), mu) + beta


def check_gauss_claim(eps: float, delta: float, pulls: float, v: float) -> None:
    """InputError if the exact law keeps (eps, delta) after ``pulls`` pulls and the lattice draw
    does not (a claim the exact law does not keep either is the paper's, left to the audit)."""
    mu = 1.0 / math.sqrt(v * pulls)
    if gauss_delta(eps, mu) <= delta < gauss_lattice_delta(eps, pulls, v):
        raise InputError(f"delta = {delta:g} is kept by the exact Gaussian law but not by arithmetic='lattice' "
                         f"(delta as implemented {gauss_lattice_delta(eps, pulls, v):.3g}): allowed delta >= "
                         f"{gauss_lattice_delta(eps, pulls, v):.3g}, or arithmetic='float'")


#: N_G* readings (spec §9 R8): the spec's, and the two alternatives it lists.
GAUSS_START_RULES = ("spec", "log_without_e", "prefactor_4")


def gauss_start_phase(eps: float, delta: float, rule: str = "spec") -> float:
    """N_G* of Algorithm 1 (spec §5.1, [M]) under reading ``rule``:

    * ``spec``           min{1/(4 pi delta^2), (1/eps^2) ln(e/(4 pi delta^2))}   (7.68 at (1, 0.01))
    * ``log_without_e``  min{1/(4 pi delta^2), (1/eps^2) ln(1/(4 pi delta^2))}
    * ``prefactor_4``    min{1/(4 pi delta^2), (4/eps^2) ln(e/(4 pi delta^2))}

    eps = 0 leaves the delta branch (Fig. 6a); delta = 0 gives inf (Gauss needs delta > 0).
    """
    if rule not in GAUSS_START_RULES:
        raise InputError(f"unknown start_rule {rule!r}; allowed values: {', '.join(GAUSS_START_RULES)}")
    if delta <= 0.0:
        return math.inf
    q = 4.0 * math.pi * delta * delta
    by_delta = 1.0 / q
    log_term = -math.log(q) if rule == "log_without_e" else 1.0 - math.log(q)
    factor = 4.0 if rule == "prefactor_4" else 1.0
    by_eps = math.inf if eps == 0.0 else factor * log_term / (eps * eps)
    return min(by_delta, by_eps)


# ------------------------------------------------------------------ array kernels
@cached_njit
def _eval(x, mean, n, v, what, out):
    for i in range(x.shape[0]):
        if what == 0:
            out[i] = gauss_cdf(x[i], mean, n, v)
        elif what == 1:
            out[i] = gauss_sf(x[i], mean, n, v)
        else:
            out[i] = gauss_pdf(x[i], mean, n, v)


@cached_njit
def _fill(mean, n, v, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = gauss_sample(mean, n, v)


# ------------------------------------------------------------------ the law
@dataclass(frozen=True)
class GaussianLaw(KernelLaw, FeasibilityFamily):
    """theta ~ N(mean, v/pulls): DP-FTPL-Gauss's perturbation (Alg. 1, spec §5.1).

    As a family of the CDF checker (:class:`._common.FeasibilityFamily`): N(R/N, v/N) against
    the mean moved by ``shift``/N (1: the largest change a reward in [0, 1] makes), a location
    family (every history the same check, x measured from R/N); options ``v`` (default 2) and
    ``shift``; log r(x) = n z (z - 2x)/(2v) crosses log c at z/2 - v log c/(n z)."""

    EVAL, FILL = _eval, _fill
    NAME = "gauss"
    LOCATION = True
    ZERO_DELTA = False
    IN_N = "decreasing"
    OPTIONS = ("v", "shift")
    mean: float
    pulls: float
    v: float = GAUSS_VARIANCE

    def __post_init__(self):
        check_real("mean", self.mean)
        check_real("pulls", self.pulls, low=0.0, low_open=True)
        check_real("v", self.v, low=0.0, low_open=True)

    @classmethod
    def from_history(cls, reward_sum, pulls, v=GAUSS_VARIANCE):
        return cls(reward_sum / pulls, pulls, v)

    def _p(self):
        return float(self.mean), float(self.pulls), float(self.v)

    def support(self):
        return -math.inf, math.inf

    def breakpoints(self):
        return np.array([self.mean])

    def neighbour(self, z):
        """The law after the mean moves by z (one reward changed: |z| <= 1/pulls)."""
        return replace(self, mean=self.mean + z)

    # ---------------------------------------------------------- the CDF checker's family
    @classmethod
    def options(cls, *, lemma, eps, delta, **given):
        known_options(cls.NAME, given, cls.OPTIONS)
        return {"v": check_real("v", given.get("v", GAUSS_VARIANCE), low=0.0, low_open=True),
                "shift": check_real("shift", given.get("shift", 1.0), low=0.0)}

    @classmethod
    def neighbour_pair(cls, n, options, history=0):
        v, z = options["v"], options["shift"] / n
        law = cls(0.0, float(n), float(v))

        def crossings(c):
            return [] if z == 0 else [z / 2.0 - v * math.log(c) / (n * z)]
        return law, law.neighbour(z), {"mu_hat": "any (location family; x measured from R/N)", "N": n,
                                       "shift": z}, crossings

    @classmethod
    def start_phase(cls, eps, delta, options):
        return gauss_start_phase(eps, delta)

    @classmethod
    def delta_required(cls, n, eps, options):
        """The exact Lemma 8 (= Lemma 9, = hockey-stick) delta against a shift/n move: F - e^eps F'
        at the ratio crossing x = z/2 - v eps/(n z) (the other three half-line suprema are equal or
        0); it decreases in n (the standardised shift 1/sqrt(vn))."""
        v, z = options["v"], options["shift"] / n
        x = z / 2.0 - v * eps / (n * z)
        return max(0.0, gauss_cdf(x, 0.0, n, v) - math.exp(eps) * gauss_cdf(x, z, n, v))


# ------------------------------------------------------------------ component and mechanism
class GaussPerturbation(NamedTuple):
    """DP-FTPL-Gauss's theta ~ N((others + x)/pulls, v/pulls) of one arm (Alg. 1), on the lattice
    (``lattice``) or in floating point."""
    pulls: float
    others: float
    v: float
    lattice: bool


@implements(privatize, GaussPerturbation)
def _gauss_privatize(mech, r, public):
    mean = (mech.others + r) / mech.pulls
    sd = gauss_sd(mech.pulls, mech.v)
    if mech.lattice:
        return gauss_perturbation(mean, sd, 1.0 / mech.pulls)
    return gauss_perturbation_float(mean, sd)


class GaussPerturbationMechanism(CatalogMechanism):
    """DP-FTPL-Gauss's theta of one arm, N(R/N, v/N), as a function of one observation x in
    [0, 1] of the arm's N, the other N - 1 summing to ``others``: (eps, delta)-DP once N >= N_G*
    (seed 002 Alg. 1, Thm 11; v = 2, spec §5.1 R7).  ``pulls`` defaults to ceil(N_G*), the end of
    the start phase; below it the claim does not hold (negative control: pulls = 1)."""

    NAME = "ftpl_gauss"
    SUMMARY = "DP-FTPL-Gauss perturbation N(R/N, v/N) of one arm after the start phase (on a lattice)"
    SOURCE = "seed 002 Alg. 1, Thm 11 (v: spec §5.1 R7)"
    PARAMS = (EPS0, DELTA_POS,
              Param("pulls", "observations of the arm (default ceil(N_G*))", integer(1), None), OTHERS,
              Param("v", "variance factor v of N(R/N, v/N)", real(0.0, low_open=True), GAUSS_VARIANCE),
              ARITHMETIC_PARAM)
    AUDIT = {"eps": 1.0, "delta": 0.01}                  # pulls = ceil(N_G*) = 8
    local = False                  # a draw of the policy's own perturbation, not a user's report

    def _setup(self, *, eps, delta, pulls, others, v, arithmetic):
        if pulls is None:
            pulls = max(1, math.ceil(gauss_start_phase(eps, delta)))
        pulls, others = history(pulls, others)
        if arithmetic == "lattice":
            check_gauss_claim(eps, delta, pulls, v)
        self._claim(GaussPerturbation(pulls, others, v, arithmetic == "lattice"), eps=eps, delta=delta,
                    params={"eps": eps, "delta": delta, "pulls": int(pulls), "others": others, "v": v,
                            "arithmetic": arithmetic},
                    arithmetic=arithmetic)


GaussPerturbationMechanism.register()
