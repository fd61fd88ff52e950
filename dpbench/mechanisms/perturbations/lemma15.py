"""The Lemma 15 law of DP-FTPL-New and GDP-Elim-New (seed 002 Lemma 15, Alg. 3-4; spec §4).

Laplace(x0, 1/(N eps)) truncated to x0 +- A, A = ln(1 + (e^eps - 1)/(2 delta))/(N eps): its
density is (1/2 + c) N eps exp(-N eps |x - x0|) on the support, c = delta/(e^eps - 1), and a
shift of the centre by at most 1/N costs exactly (eps, delta) (the hockey-stick divergence is
delta at |z| = 1/N).  delta = 0 is the Laplace law; eps = 0 the uniform law on x0 +- 1/(2 N delta)
(spec §4.2); not both.

* scalar kernels ``lemma15_c``, ``lemma15_width`` (A), ``lemma15_lower_tail``, ``lemma15_cdf/sf/pdf``,
  ``lemma15_tail_radius`` (Fact 4's d; ``lemma15_tail_radius_parts``), and the floating-point sampler of the exact law:
  ``open_uniform``, ``lemma15_from_uniform`` (the quantile, spec §4.4), ``lemma15_draw``,
  ``lemma15_sample``;
* the float-safe draw the policies, the sampler and the audit make: ``lemma15_lattice_draw(x0,
  n, eps, delta)`` (GDP-Elim-New), or, for a policy that draws its uniforms ahead (DP-FTPL-New),
  ``lemma15_lattice(n, eps)``, ``lemma15_lattice_law(eps, delta)``, ``lemma15_predraw`` and
  ``lemma15_lattice_theta``;
* the law object ``Lemma15Law``, the component ``Lemma15Perturbation`` and the mechanism
  ``Lemma15Mechanism`` (catalog ``lemma15``).

The lattice draw.  g = ``lattice_spacing(1/(N eps), 1/N)`` (about 2^-16 of the noise scale); the
centre is rounded to it, so neighbouring centres are D = ceil(g^-1/N) + 1 steps apart at most, and the law is taken with
count N' = 1/(D g) (shift D g = 1/N'), so that Lemma 15 applies to the rounded centres.  At
delta = 0 the noise is the lattice Laplace of :mod:`dpbench.mechanisms.lattice` (pure eps, the
scale calibrated there).  At delta > 0 (or eps = 0) it is the quantile of ``tail_uniform``
rounded to an integer number of steps, which is within a factor 1 +- r of the exact law on
every cell inside both neighbours' supports:

    eps > 0:  r = 1.0001 s (2^-44 + 2^-106 / c + 2^-48 (2 + ln(1 + 1/(2c)))),   s = D / eps'
    eps = 0:  r = 1.0001 (D / delta') 2^-50.6

(grid 2^-53, 2^-106 below m = 2^-9; float error of the quantile, in steps, <= s 2^-49 (2 + N'eps'A)),
while the cells at either support's edges weigh at most beta = 4 (1 + e^eps')(c'/s)(1 + 2r) + 2^-48
(eps = 0: 8 (delta'/D)(1 + 2r) + 2^-48).  The draw is therefore (eps' + ln((1+r)/(1-r)),
(1 + r) delta' + beta)-DP as implemented, and ``lemma15_lattice_law`` picks the law's (eps',
delta') so that this is the claimed (eps, delta): eps' = eps - ln((1+r)/(1-r)),
delta' = (delta - 2^-48)/(1 + r + beta/delta') (at eps = 0 the eps slack moves into delta:
- 2r/(1-r)).  r is taken at the largest s any N gives, so (eps', delta', c') depend on (eps,
delta) only: at (1, 0.01) they differ from (eps, delta) by 1e-8 and 1.3e-4 relative.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ... import randomness as rng
from ...engine.caching import cached_njit
from ...engine.catalog import Param, integer
from ...engine.components import implements, privatize
from ...engine.mechanism import CatalogMechanism
from ...validation import InputError, check_delta, check_real
from ..lattice import (
    ARITHMETIC_PARAM,
    LATTICE_BITS,
    MAX_SLACK_SHARE,
    SENSITIVITY_BITS,
    check_lattice_claim,
    laplace_scale_steps,
    lattice_spacing,
    sensitivity_steps,
    tail_uniform,
    to_steps,
)
from ._common import DELTA, EPS0, OTHERS, FeasibilityFamily, KernelLaw, history, known_options

_BLOCK = 4.0
_BLOCK_Q = -math.expm1(-_BLOCK)


# ------------------------------------------------------------------ scalar kernels
@cached_njit
def lemma15_c(eps, delta):
    """c = delta / (e^eps - 1): the law's edge constant (inf at eps = 0)."""
    if eps == 0.0:
        return math.inf
    return delta / math.expm1(eps)


@cached_njit
def lemma15_width(n, eps, delta):
    """Half-width A of the support: ln(1 + (e^eps - 1)/(2 delta))/(n eps); inf at delta = 0,
    1/(2 n delta) at eps = 0 (spec §4.1-4.2)."""
    if delta == 0.0:
        return math.inf
    if eps == 0.0:
        return 0.5 / (n * delta)
    return math.log1p(math.expm1(eps) / (2.0 * delta)) / (n * eps)


@cached_njit
def lemma15_lower_tail(s, n, eps, delta):
    """G(s) = P[theta <= x0 - s] for s >= 0: (1/2) e^(-lam s) + c expm1(-lam s), clipped at 0."""
    if eps == 0.0:
        g = 0.5 - n * delta * s
    else:
        lam = n * eps
        g = 0.5 * math.exp(-lam * s)
        if delta > 0.0:
            g += (delta / math.expm1(eps)) * math.expm1(-lam * s)
    return g if g > 0.0 else 0.0


@cached_njit
def lemma15_cdf(x, x0, n, eps, delta):
    """P[theta <= x] for the Lemma 15 law centred at x0 with count n (spec §4.1)."""
    if x < x0:
        return lemma15_lower_tail(x0 - x, n, eps, delta)
    return 1.0 - lemma15_lower_tail(x - x0, n, eps, delta)


@cached_njit
def lemma15_sf(x, x0, n, eps, delta):
    """P[theta > x] (accurate in the upper tail)."""
    if x > x0:
        return lemma15_lower_tail(x - x0, n, eps, delta)
    return 1.0 - lemma15_lower_tail(x0 - x, n, eps, delta)


@cached_njit
def lemma15_pdf(x, x0, n, eps, delta):
    """(1/2 + c) n eps exp(-n eps |x - x0|) on |x - x0| <= A; n delta on x0 +- A at eps = 0."""
    s = abs(x - x0)
    if s > lemma15_width(n, eps, delta):
        return 0.0
    if eps == 0.0:
        return n * delta
    lam = n * eps
    return (0.5 + delta / math.expm1(eps)) * lam * math.exp(-lam * s)


@cached_njit
def lemma15_tail_radius_parts(tail, eps, delta):
    """(r, rate) with ``lemma15_tail_radius(n, tail, eps, delta)`` = r / (n rate): the part that
    does not depend on n, for a policy that shifts a centre every step (one logarithm per run)."""
    if eps == 0.0:
        return 0.5 - tail, delta
    return math.log1p((0.5 - tail) / (tail + lemma15_c(eps, delta))), eps


@cached_njit
def lemma15_tail_radius(n, tail, eps, delta):
    """d >= 0 with P[theta <= x0 - d] = P[theta > x0 + d] = tail (0 < tail <= 1/2).

    tail = 1/T gives Fact 4's d = ln((T(e^eps-1) + 2T delta)/(2(e^eps-1) + 2T delta))/(n eps)
    (DP-FTPL-New's centre shift); tail = 1/T^2 at delta/2 gives GDP-Elim-New's radius.
    """
    r, rate = lemma15_tail_radius_parts(tail, eps, delta)
    return r / (n * rate)


# ------------------------------------------------------------------ the float sampler
@cached_njit
def open_uniform():
    """U(0, 1): ``randomness.uniform`` redrawn on the (probability 2^-53) value 0."""
    u = rng.uniform()
    while u == 0.0:
        u = rng.uniform()
    return u


@cached_njit
def lemma15_from_uniform(u, x0, n, eps, delta, c):
    """The Lemma 15 quantile at u in (0, 1), given c = ``lemma15_c(eps, delta)``:
    D = ln(1 + (1/2 - m)/(m + c))/(n eps), m = min(u, 1-u), theta = x0 - D if u < 1/2 else
    x0 + D (spec §4.4); x0 + (u - 1/2)/(n delta) at eps = 0.  In floating point: the exact law's
    sampler (``Lemma15Law.sample``) and the paper-literal draw (``arithmetic="float"``)."""
    if eps == 0.0:
        return x0 + (u - 0.5) / (n * delta)
    m = u if u < 0.5 else 1.0 - u
    d = math.log1p((0.5 - m) / (m + c)) / (n * eps)
    return x0 - d if u < 0.5 else x0 + d


@cached_njit
def lemma15_draw(x0, n, eps, delta, c):
    """One theta by inversion of one uniform in (0, 1) (see ``lemma15_from_uniform``)."""
    return lemma15_from_uniform(open_uniform(), x0, n, eps, delta, c)


@cached_njit
def lemma15_sample(x0, n, eps, delta):
    """One theta from the Lemma 15 law (see ``lemma15_draw``)."""
    return lemma15_draw(x0, n, eps, delta, lemma15_c(eps, delta))


# ------------------------------------------------------------------ the lattice draw
@cached_njit
def lemma15_lattice(n, eps):
    """(g, D): the lattice of a centre whose sensitivity is 1/n, and the steps between
    neighbouring rounded centres (the law's count is N' = 1/(D g))."""
    sensitivity = 1.0 / n
    g = lattice_spacing(sensitivity / eps if eps > 0.0 else math.inf, sensitivity)
    return g, sensitivity_steps(sensitivity, g)


#: the largest share of delta the float slack may take when eps cannot carry it
DELTA_SLACK_SHARE = 2.0 ** -5


@cached_njit
def lemma15_lattice_slack(eps, delta):
    """(r, kappa): the relative error bound of every lattice cell inside both neighbours'
    supports, and the weight of the cells at their edges per unit of delta', for the law at
    (about) (eps, delta) on the lattice of any N (module docstring)."""
    rel = max(eps, 2.0 ** -SENSITIVITY_BITS)                         # 1/N over min(b, 16/N)
    d_max = rel * 2.0 ** (LATTICE_BITS + 1) + 2.0                     # D for any N
    d_min = rel * 2.0 ** LATTICE_BITS
    if eps == 0.0:
        r = 1.0001 * (d_max / ((1.0 - DELTA_SLACK_SHARE) * delta)) * 2.0 ** -50.6
        return r, 8.0 * (1.0 + 2.0 * r) / d_min
    s = d_max / ((1.0 - MAX_SLACK_SHARE) * eps)                      # steps per 1/(N' eps')
    c_low = (1.0 - DELTA_SLACK_SHARE) * delta / math.expm1(eps)
    r = 1.0001 * s * (2.0 ** -44 + 2.0 ** -106 / c_low + 2.0 ** -48 * (2.0 + math.log1p(0.5 / c_low)))
    kappa = 4.0 * (1.0 + math.exp(eps)) * (1.0 + 2.0 * r) * eps / (math.expm1(eps) * d_min)
    return r, kappa


@cached_njit
def lemma15_lattice_law(eps, delta):
    """(eps', delta', c'): the law's parameters whose lattice draw is (eps, delta)-DP as
    implemented (module docstring): the float slack taken from eps when it is at most
    eps/1024, else from delta when that leaves delta' >= (1 - 2^-5) delta; if neither, the
    claimed (eps, delta) themselves (the claim is then not kept exactly:
    ``lemma15_lattice_guarantee`` says by how much).  delta = 0: (eps, 0, 0), the lattice
    Laplace calibrating itself."""
    if delta == 0.0:
        return eps, 0.0, 0.0
    r, kappa = lemma15_lattice_slack(eps, delta)
    if eps > 0.0:
        sigma = math.log((1.0 + r) / (1.0 - r))
        if sigma <= MAX_SLACK_SHARE * eps:
            eps_law = eps - sigma
            delta_law = (delta - 2.0 ** -48) / (1.0 + r + kappa)
            return eps_law, delta_law, delta_law / math.expm1(eps_law)
    delta_law = (delta - 2.0 ** -48 - math.exp(eps) * 2.0 * r / (1.0 - r)) / (1.0 + r + kappa)
    if delta_law >= (1.0 - DELTA_SLACK_SHARE) * delta:
        return eps, delta_law, lemma15_c(eps, delta_law)
    return eps, delta, lemma15_c(eps, delta)


def lemma15_lattice_guarantee(eps: float, delta: float) -> tuple[bool, float, float]:
    """(kept, eps_impl, delta_impl): whether the lattice draw is (eps, delta)-DP as implemented,
    and the guarantee it has: (eps, delta) when kept, else (eps + ln((1+r)/(1-r)),
    (1 + r) delta + beta) for the nominal law.  delta = 0: the lattice Laplace's own check."""
    if delta == 0.0:
        try:
            check_lattice_claim(eps)
        except InputError:
            return False, math.inf, 0.0
        return True, eps, 0.0
    eps_law, delta_law, _ = lemma15_lattice_law(eps, delta)
    if eps_law != eps or delta_law != delta:
        return True, eps, delta
    r, kappa = lemma15_lattice_slack(eps, delta)
    return False, eps + math.log((1.0 + r) / (1.0 - r)), (1.0 + r + kappa) * delta + 2.0 ** -48


@cached_njit
def lemma15_predraw(delta):
    """The randomness of one lattice draw, taken ahead of its use (a policy draws every arm's in
    arm order, then evaluates only the arms that may win): (t, blocks), t = +-m from
    ``tail_uniform`` (delta > 0), or, for the Laplace law (delta = 0), t = +-w with w the
    within-block uniform and blocks = B the number of whole blocks (the extra uniforms drawn
    now), the sign of t being the side (``lattice.laplace_steps``'s draws, in its order)."""
    if delta > 0.0:
        return tail_uniform(), 0.0
    u = rng.uniform()
    upper = u >= 0.5
    w = (u + u) - 1.0 if upper else u + u
    blocks = 0.0
    while w >= _BLOCK_Q:
        blocks += 1.0
        w = rng.uniform()
    # w = 0 with a lower side would read as +0: keep the side in the sign of blocks + 1
    return (w if upper else -w), (blocks + 1.0 if upper else -(blocks + 1.0))


@cached_njit
def lemma15_lattice_steps(t, blocks, scale, eps_law, delta_law, c_law):
    """The noise in lattice steps from the predrawn (t, blocks): ``scale`` is D/eps' (delta > 0),
    D/delta' (eps = 0) or the lattice Laplace's scale s (delta = 0)."""
    if delta_law == 0.0:
        k = _BLOCK * scale * (abs(blocks) - 1.0) + np.rint(-scale * math.log1p(-abs(t)))
        return k if blocks > 0.0 else -k
    m = abs(t)
    if eps_law == 0.0:
        k = np.rint((0.5 - m) * scale)
    else:
        k = np.rint(math.log1p((0.5 - m) / (m + c_law)) * scale)
    return k if t > 0.0 else -k


@cached_njit
def lemma15_step_scale(d_steps, eps, eps_law, delta_law):
    """The ``scale`` of ``lemma15_lattice_steps`` for a centre sensitivity of D steps."""
    if delta_law == 0.0:
        return laplace_scale_steps(d_steps, eps)
    if eps_law == 0.0:
        return d_steps / delta_law
    return d_steps / eps_law


@cached_njit
def lemma15_lattice_theta(t, blocks, x0, g, scale, eps_law, delta_law, c_law):
    """theta = (rint(x0/g) + K) g for the predrawn (t, blocks)."""
    return (to_steps(x0, 1.0 / g) + lemma15_lattice_steps(t, blocks, scale, eps_law, delta_law, c_law)) * g


@cached_njit
def lemma15_lattice_draw(x0, n, eps, delta):
    """One float-safe theta of the Lemma 15 law centred at x0 with count n, (eps, delta)-DP as
    implemented for centres that move by at most 1/n (module docstring): GDP-Elim-New's draw."""
    g, d_steps = lemma15_lattice(n, eps)
    eps_law, delta_law, c_law = lemma15_lattice_law(eps, delta)
    t, blocks = lemma15_predraw(delta)
    return lemma15_lattice_theta(t, blocks, x0, g, lemma15_step_scale(d_steps, eps, eps_law, delta_law),
                                 eps_law, delta_law, c_law)


def lemma15_lattice_report(name: str, eps: float, delta: float) -> tuple[dict, list[str]]:
    """(info, warnings) of a policy whose draws are the lattice Lemma 15 law at (eps, delta): the
    guarantee of one draw as implemented, and a warning when the float slack cannot be taken
    from the claim (tiny eps and delta: the policy still runs, the catalog mechanism refuses)."""
    kept, eps_impl, delta_impl = lemma15_lattice_guarantee(eps, delta)
    info = {"privacy_as_implemented": {"eps": eps_impl, "delta": delta_impl, "claim_kept_exactly": kept}}
    warnings = [] if kept else [
        f"{name}: at (eps, delta) = ({eps:g}, {delta:g}) the float-safe draw cannot absorb its float slack "
        f"(sampling error ~1e-13 per lattice cell); each step is ({eps_impl:.3g}, {delta_impl:.3g})-DP as "
        "implemented"]
    return info, warnings


def check_lemma15_claim(eps: float, delta: float) -> None:
    """InputError if the lattice draw cannot keep (eps, delta) exactly (module docstring)."""
    kept, eps_impl, delta_impl = lemma15_lattice_guarantee(eps, delta)
    if not kept:
        raise InputError(f"(eps, delta) = ({eps:g}, {delta:g}) cannot be kept exactly by arithmetic='lattice': "
                         f"its float slack would exceed eps/1024 and delta/32 (as implemented ({eps_impl:.3g}, "
                         f"{delta_impl:.3g})); allowed: a larger eps or delta, or arithmetic='float'")


# ------------------------------------------------------------------ array kernels
@cached_njit
def _eval(x, x0, n, eps, delta, what, out):
    for i in range(x.shape[0]):
        if what == 0:
            out[i] = lemma15_cdf(x[i], x0, n, eps, delta)
        elif what == 1:
            out[i] = lemma15_sf(x[i], x0, n, eps, delta)
        else:
            out[i] = lemma15_pdf(x[i], x0, n, eps, delta)


@cached_njit
def _fill(x0, n, eps, delta, seed, out):
    np.random.seed(seed)
    c = lemma15_c(eps, delta)
    for i in range(out.shape[0]):
        out[i] = lemma15_draw(x0, n, eps, delta, c)


# ------------------------------------------------------------------ the law
@dataclass(frozen=True)
class Lemma15Law(KernelLaw, FeasibilityFamily):
    """The truncated-Laplace law of Lemma 15 (spec §4): centre x0, count ``pulls``, (eps, delta).

    Laplace(x0, 1/(pulls eps)) truncated to [x0 - A, x0 + A]; a shift of x0 by
    |z| <= 1/pulls costs exactly (eps, delta) (hockey-stick = delta at |z| = 1/pulls).
    ``sample`` draws the exact law in floating point.

    As a family of the CDF checker (:class:`._common.FeasibilityFamily`): the law centred at 0
    against its centre moved by ``shift``/N, a location family whose law at N is its law at 1
    scaled by 1/N (so the delta it needs does not depend on N); built with (eps, delta) for
    Lemma 8 and, as Algorithm 4 uses it, (eps, delta/2) for Lemma 9 (options ``law_eps``,
    ``law_delta`` override: negative controls); the ratio is flat (e^{lam z}) left of 0, flat
    (e^{-lam z}) right of z and exp(lam (z - 2x)) between (lam = N eps).
    """

    EVAL, FILL = _eval, _fill
    NAME = "lemma15"
    LOCATION = True
    ZERO_DELTA = True
    IN_N = "constant"
    OPTIONS = ("shift", "law_eps", "law_delta")
    x0: float
    pulls: float
    eps: float
    delta: float

    def __post_init__(self):
        check_real("x0", self.x0)
        check_real("pulls", self.pulls, low=0.0, low_open=True)
        check_real("eps", self.eps, low=0.0)
        check_delta(self.delta)
        if self.eps == 0.0 and self.delta == 0.0:
            raise InputError("the Lemma 15 law needs eps > 0 or delta > 0 (got eps = delta = 0)")

    def _p(self):
        return float(self.x0), float(self.pulls), float(self.eps), float(self.delta)

    @property
    def width(self) -> float:
        """A: the support is [x0 - A, x0 + A] (A = inf at delta = 0)."""
        return float(lemma15_width(float(self.pulls), float(self.eps), float(self.delta)))

    def tail_radius(self, tail):
        """d with P[theta <= x0 - d] = P[theta > x0 + d] = tail (Fact 4 with tail = 1/T)."""
        tail = check_real("tail", tail, low=0.0, high=0.5, low_open=True)
        return float(lemma15_tail_radius(float(self.pulls), tail, float(self.eps), float(self.delta)))

    def support(self):
        return self.x0 - self.width, self.x0 + self.width

    def breakpoints(self):
        a = self.width
        if math.isinf(a):
            return np.array([self.x0])
        return np.array([self.x0 - a, self.x0 - a + 1.0 / self.pulls, self.x0,
                         self.x0 + a - 1.0 / self.pulls, self.x0 + a])

    def neighbour(self, z):
        """The law after the centre moves by z (one reward changed: |z| <= 1/pulls)."""
        return replace(self, x0=self.x0 + z)

    # ---------------------------------------------------------- the CDF checker's family
    @classmethod
    def options(cls, *, lemma, eps, delta, **given):
        known_options(cls.NAME, given, cls.OPTIONS)
        law_eps, law_delta = given.get("law_eps"), given.get("law_delta")
        le = eps if law_eps is None else check_real("law_eps", law_eps, low=0.0)
        ld = (delta if lemma == 8 else delta / 2.0) if law_delta is None else check_delta(law_delta, "law_delta")
        if le == 0.0 and ld == 0.0:
            raise InputError("the Lemma 15 law needs eps > 0 or delta > 0 (got eps = delta = 0)")
        return {"shift": check_real("shift", given.get("shift", 1.0), low=0.0), "law_eps": le, "law_delta": ld}

    @classmethod
    def neighbour_pair(cls, n, options, history=0):
        z, eps, delta = options["shift"] / n, options["law_eps"], options["law_delta"]
        law = cls(0.0, float(n), float(eps), float(delta))
        lam = n * eps

        def crossings(c):
            if lam == 0.0 or z == 0.0:
                return []
            return [min(max(z / 2.0 - math.log(c) / (2.0 * lam), 0.0), z)]
        return law, law.neighbour(z), {"x0": "any (location family; x measured from x0)", "N": n, "shift": z,
                                       "law_eps": eps, "law_delta": delta}, crossings


# ------------------------------------------------------------------ component and mechanism
class Lemma15Perturbation(NamedTuple):
    """The Lemma 15 law centred at (others + x)/pulls (DP-FTPL-New, GDP-Elim-New), on the lattice
    (``lattice``; the plan ``g``, ``scale``, ``eps_law``, ``delta_law``, ``c_law`` of
    ``lemma15_lattice_draw``) or in floating point.  ``law_pulls`` is the count the law is built
    for: pulls, except in a negative control whose centre moves by more than 1/law_pulls."""
    pulls: float
    others: float
    eps: float
    delta: float
    law_pulls: float
    lattice: bool
    g: float
    scale: float
    eps_law: float
    delta_law: float
    c_law: float

    @classmethod
    def at(cls, pulls, others, eps, delta, law_pulls=None, lattice=True):
        n = float(pulls if law_pulls is None else law_pulls)
        g, d_steps = lemma15_lattice(n, float(eps))
        eps_law, delta_law, c_law = lemma15_lattice_law(float(eps), float(delta))
        scale = lemma15_step_scale(d_steps, float(eps), eps_law, delta_law)
        return cls(float(pulls), float(others), float(eps), float(delta), n, bool(lattice), float(g),
                   float(scale), float(eps_law), float(delta_law), float(c_law))


@implements(privatize, Lemma15Perturbation)
def _lemma15_privatize(mech, r, public):
    x0 = (mech.others + r) / mech.pulls
    if mech.lattice:
        t, blocks = lemma15_predraw(mech.delta)
        return lemma15_lattice_theta(t, blocks, x0, mech.g, mech.scale, mech.eps_law, mech.delta_law, mech.c_law)
    return lemma15_draw(x0, mech.law_pulls, mech.eps, mech.delta, lemma15_c(mech.eps, mech.delta))


class Lemma15Mechanism(CatalogMechanism):
    """The Lemma 15 law (truncated Laplace, spec §4) centred at x0 = (others + x)/pulls: a
    centre shift of at most 1/N costs exactly (eps, delta) (seed 002 Lemma 15).  DP-FTPL-New's
    theta up to the history-independent shift sqrt(ln T/N) + d (Alg. 3), GDP-Elim-New's at
    (eps, delta/2) (Alg. 4)."""

    NAME = "lemma15"
    SUMMARY = ("Lemma 15 truncated-Laplace perturbation centred at the arm's mean (sensitivity 1/N), "
               "on a lattice")
    SOURCE = "seed 002 Lemma 15, Alg. 3-4"
    PARAMS = (EPS0, DELTA, Param("pulls", "observations N of the arm", integer(1), 10), OTHERS, ARITHMETIC_PARAM)
    AUDIT = {"eps": 1.0, "delta": 0.01, "pulls": 10}
    local = False                  # a draw of the policy's own perturbation, not a user's report

    def _setup(self, *, eps, delta, pulls, others, arithmetic):
        if eps == 0.0 and delta == 0.0:
            raise InputError("lemma15 needs eps > 0 or delta > 0 (got eps = delta = 0)")
        pulls, others = history(pulls, others)
        if arithmetic == "lattice":
            check_lemma15_claim(eps, delta)
        self._claim(Lemma15Perturbation.at(pulls, others, eps, delta, lattice=arithmetic == "lattice"),
                    eps=eps, delta=delta, arithmetic=arithmetic,
                    params={"eps": eps, "delta": delta, "pulls": int(pulls), "others": others,
                            "arithmetic": arithmetic})


Lemma15Mechanism.register()
