"""Float-safe noise: the input and the noise on a power-of-two lattice, so that their sum is exact.

``x + noise`` computed in floating point is not differentially private as implemented: the set
of floats that ``x + noise`` can round to depends on x, so the low bits of an output reveal the
input (Mironov, "On significance of the least significant bits for differential privacy",
CCS 2012).  Every dpbench mechanism that adds continuous noise therefore works on a lattice
g Z with g a power of two (``arithmetic="lattice"``, the default; ``"float"`` keeps the
paper-literal floating-point form, which the audit flags):

* the input is rounded to the lattice, X = rint(x / g) (exact: g is a power of two);
* the noise is drawn as an integer number K of lattice steps;
* the output is (X + K) g: an integer times a power of two, exact while |X + K| < 2^53.

The lattice and the claim.  g = 2^(floor(log2 min(b, 16 Delta)) - 16) for a noise scale b and
a sensitivity Delta: about 2^16 steps per noise scale (the granularity of Google's secure
noise, "Secure Noise Generation", 2020, is 2^-40 of the scale), and never coarser than
2^-12 Delta.  Rounding moves neighbouring inputs apart by at most D steps: D = rint(hi/g) -
rint(lo/g) for an input range [lo, hi] (``span_steps``, exact), or D = ceil(Delta/g) + 1 for a
statistic computed in floating point (``sensitivity_steps``: one step for the rounding, as
Google's Delta + g; the statistic's own float error must stay below g/2).  The exact law of
the output is post-processing of the continuous mechanism at sensitivity D g (rint of a sum
with a lattice point is that point plus rint of the noise), so it keeps that mechanism's
claim at sensitivity D g; the scale is calibrated to it.

The float error of the sampler.  The noise is a function of uniform draws on the grid
2^-53 Z (``randomness.uniform``, NumPy's 53-bit ``random_sample``) computed with a few
correctly rounded operations and one library logarithm (assumed accurate to 2 ulp; glibc
documents 1).  Each lattice cell's probability is then within a factor 1 +- r of the exact
law's, r bounded below, and no cell of the exact law is missing, so an (eps, delta) guarantee
of the exact law becomes (eps + ln((1+r)/(1-r)), (1+r) delta) as implemented; the calibration
takes that slack from the claim in advance, so the implementation is (eps, delta)-DP at the
claimed level.

Laplace (``laplace_steps``, pure eps).  A truncated uniform cannot reach the far tail, which
an eps-DP output needs (an output one input reaches and its neighbour cannot has ratio
infinity).  Exp(1) = 4B + E' with B ~ Geometric(e^-4) and E' ~ Exp(1) truncated to [0, 4)
independent (the exponential law is memoryless); so one uniform gives the sign and, by
inversion, E' (probability 1 - e^-4) or else a fresh Exp(1) is drawn and 4 added: the tail is
exact to any depth, each block costing one more uniform with probability e^-4.  With the
scale an integer s of lattice steps, K = +-(4 s B + rint(s E')) is exact.  Per cell, with
u-grid spacing 2^-52 and the logarithm's error E <= s 2^-49 steps,

    r = 2^-51 s e^(4 + 1/(2s)) + 2 E e^((1 + E)/s)          (``laplace_slack``)

and neighbouring outputs differ by at most D/(4s) + 2 blocks, each changing the block
probability by a factor within 2^-45 of e^-4, so

    eps_implemented <= D/s + ln((1 + r)/(1 - r)) + (D/(4s) + 2) 2^-45 =: D/s + sigma(s).

``laplace_scale_steps`` sets s = ceil(D/(eps - sigma)) with sigma at the bound 2D/eps on s:
eps-DP exactly (sigma ~ 1e-8 for eps >= 1/16).  A claim whose sigma exceeds eps/1024 is
refused (below eps ~ 7e-4, ``smallest_lattice_eps``).  The only event not covered is a
geometric part beyond 2^34 blocks (that many consecutive successes of probability e^-4):
probability below 10^-(2.9e10).

Bounded or approximate-DP laws (the Lemma 15 law, the Gaussian) are drawn by inversion of
``tail_uniform``: a side and m uniform on (0, 1/2), refined to the grid 2^-106 below 2^-9 by a
second uniform (probability 2^-8), so that the relative grid error stays small in the tails.
Their modules account for it the same way (``perturbations.lemma15``, ``perturbations.gaussian``).
"""
from __future__ import annotations

import math

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import Param, choice, integer
from ..engine.kernel import ERROR_MODEL
from ..validation import InputError, check_int

#: the lattice is 2^LATTICE_BITS times finer than min(noise scale, 2^SENSITIVITY_BITS sensitivity)
LATTICE_BITS = 16
SENSITIVITY_BITS = 4
#: the arithmetic options of a mechanism that adds continuous noise to its input
ARITHMETICS = ("lattice", "float")
#: the largest share of eps the float slack may take (the scale grows by at most this share)
MAX_SLACK_SHARE = 2.0 ** -10

_BLOCK = 4.0                         # Exp(1) = 4 B + E': one block of the exponential law
_BLOCK_Q = -math.expm1(-_BLOCK)      # 1 - e^-4: below it, w inverts to E' in [0, 4)
_E4 = math.exp(_BLOCK + 1e-3)        # e^(4 + 1/(2s)) for s >= 500
_REFINE = 2.0 ** -9                  # tail_uniform refines m below this

# The compiled functions of this module run under numba's "numpy" error model, as the simulation
# loop does (engine/kernel.py): their divisors are positive for every validated parameter, and a
# compiled check for a zero divisor is a raise path in the middle of each release, which keeps
# numba from pruning the atomic reference counting around the policy's update (DP-RobustUCB:
# nine increment/decrement pairs a pull; 1.3x faster without them, measured).
_njit = cached_njit(error_model=ERROR_MODEL)


# ------------------------------------------------------------------ the lattice
@_njit
def lattice_spacing(scale, sensitivity):
    """g = 2^(floor(log2 min(scale, 2^SENSITIVITY_BITS sensitivity)) - LATTICE_BITS), a power of two:
    about 2^16 steps per noise scale, at least 2^12 per sensitivity."""
    m, e = math.frexp(min(scale, sensitivity * 2.0 ** SENSITIVITY_BITS))   # min = m 2^e, m in [1/2, 1)
    return math.ldexp(1.0, e - 1 - LATTICE_BITS)


@_njit
def to_steps(x, inv_g):
    """rint(x / g): x rounded to the lattice, in steps (exact: 1/g is a power of two)."""
    return np.rint(x * inv_g)


@_njit
def span_steps(lo, hi, g):
    """D = rint(hi/g) - rint(lo/g): the largest distance, in steps, between two inputs in
    [lo, hi] rounded to the lattice (rint is monotone)."""
    return np.rint(hi / g) - np.rint(lo / g)


@_njit
def sensitivity_steps(sensitivity, g):
    """D = ceil(Delta/g) + 1: steps between the roundings of two values that differ by at most
    Delta plus a float error below g/2 (|rint a - rint b| <= |a - b| + 1)."""
    return math.ceil(sensitivity / g) + 1.0


# ------------------------------------------------------------------ Laplace
@_njit
def laplace_slack(s, d_steps):
    """sigma(s): the eps the float sampler may add to D/s (module docstring), for a scale of
    at most s steps and a sensitivity of D steps."""
    r = s * (2.0 ** -51 * _E4 + 2.0 ** -48 * 1.0001)
    return 2.0 * r / (1.0 - r) + (d_steps / (4.0 * s) + 2.0) * 2.0 ** -45


@_njit
def laplace_scale_steps(d_steps, eps):
    """s = ceil(D/(eps - sigma)): the scale, in steps, whose lattice Laplace is eps-DP as
    implemented for a sensitivity of D steps.  Where the slack would take half of eps or more
    (eps below about 3e-4), the paper's scale ceil(D/eps): the claim is then not kept exactly
    (a catalog mechanism refuses it, ``check_lattice_claim``; a policy says so,
    ``lattice_claim_warnings``)."""
    sigma = laplace_slack(2.0 * d_steps / eps + 2.0, d_steps)
    if not sigma < 0.5 * eps:
        return math.ceil(d_steps / eps)
    return math.ceil(d_steps / (eps - sigma))


@_njit
def laplace_keeps(d_steps, eps):
    """True if ``laplace_scale_steps`` keeps eps exactly for a sensitivity of D steps."""
    return laplace_slack(2.0 * d_steps / eps + 2.0, d_steps) < 0.5 * eps


@_njit
def laplace_steps(s):
    """K ~ the lattice Laplace law of scale s steps (s a positive integer-valued float):
    rint(Laplace(s)), exact to any depth of the tail (module docstring)."""
    u = rng.uniform()
    upper = u >= 0.5
    w = (u + u) - 1.0 if upper else u + u           # exact: uniform on {0, 2^-52, ..., 1 - 2^-52}
    base = 0.0
    while w >= _BLOCK_Q:                            # E >= 4 (probability e^-4): 4 + a fresh Exp(1)
        base += _BLOCK * s
        w = rng.uniform()
    k = base + np.rint(-s * math.log(1.0 - w))     # 1 - w exact: w is on the grid 2^-52 of [0, 1)
    return k if upper else -k


@_njit
def range_plan(lo, hi, eps):
    """(g, s): the lattice and the scale in steps of an eps-DP Laplace report of an input in
    [lo, hi] (sensitivity D = ``span_steps``, exact; ``laplace_scale_steps``)."""
    width = hi - lo
    g = lattice_spacing(width / eps, width)
    return g, laplace_scale_steps(span_steps(lo, hi, g), eps)


@_njit
def laplace_on_lattice(x_steps, s, g):
    """(X + K) g: the lattice input X (steps) plus lattice Laplace noise of scale s steps."""
    return (x_steps + laplace_steps(s)) * g


@_njit
def laplace_sum_steps(m, s):
    """The noise of m users' lattice reports summed, drawn at once: rint(Gamma(m, s) -
    Gamma(m, s)) (``randomness.laplace_sum``) for m > 1.  The batched forms use it: equal in
    law to the sum of m ``laplace_steps`` up to the rounding of each term (a variance smaller
    by m/12 steps^2 in 2 m s^2, s >= 2^16); the users' own reports are each float-safe."""
    if m == 1:
        return laplace_steps(s)
    return np.rint(rng.laplace_sum(m, s))


@_njit
def laplace_lattice_release(value, sensitivity, eps):
    """A float-safe eps-DP Laplace release of ``value`` whose sensitivity is ``sensitivity``
    (computed in floating point, error below a half lattice step): scale ~ sensitivity/eps,
    on the lattice of ``lattice_spacing``; the central releases and tree counters call it."""
    g = lattice_spacing(sensitivity / eps, sensitivity)
    d = sensitivity_steps(sensitivity, g)
    return laplace_on_lattice(to_steps(value, 1.0 / g), laplace_scale_steps(d, eps), g)


# ------------------------------------------------------------------ uniforms for inversion
@_njit
def tail_uniform():
    """A signed t = +-m: the sign is a fair side, m uniform on (0, 1/2), on the grid 2^-53 and,
    below 2^-9 (probability 2^-8), on the grid 2^-106 (a second uniform refines it): inversion of
    m reaches deep tails with a small relative error per lattice cell.  m = 0 (probability 2^-106)
    is redrawn."""
    while True:
        u = rng.uniform()
        upper = u >= 0.5
        m = u - 0.5 if upper else u                 # exact (Sterbenz)
        if m < _REFINE:
            m += rng.uniform() * 2.0 ** -53
        if m > 0.0:
            return m if upper else -m


# ------------------------------------------------------------------ validation
#: a chosen lattice may be at most this many binary orders coarser than min(b, 16 Delta) 2^-16
COARSEST_EXTRA_BITS = LATTICE_BITS - 8


def lattice_plan(eps: float, sensitivity: float, *, span=None, lattice=None, strict: bool = True
                 ) -> tuple[float, float]:
    """(g, s) of a catalog mechanism's lattice Laplace: the automatic spacing ``lattice_spacing``,
    or g = 2^lattice when ``lattice`` (an integer exponent) is given; s from D = the span of the
    input range ``span = (lo, hi)`` (exact) or ceil(sensitivity/g) + 1.  InputError, naming the
    allowed exponents, for a lattice coarser than 2^-8 of min(noise scale, 16 sensitivity) (its
    rounding would change the law) or so fine that the float slack exceeds eps/1024 or the sum
    leaves the exact integers of float64; and (``strict``) for an eps the lattice cannot keep."""
    if strict:
        check_lattice_claim(eps, sensitivity=sensitivity)
    auto = float(lattice_spacing(sensitivity / eps, sensitivity))
    if lattice is None:
        g = auto
    else:
        k = check_int("lattice", lattice)
        k_auto = int(math.log2(auto))
        k_max = k_auto + COARSEST_EXTRA_BITS
        k_min = k_auto
        while k_min > -1000 and _plan_ok(eps, sensitivity, span, 2.0 ** (k_min - 1)):
            k_min -= 1
        if k > k_max:
            raise InputError(f"lattice = {k} (spacing 2^{k}) is too coarse for the noise scale "
                             f"{sensitivity / eps:.4g}: allowed lattice exponents {k_min}..{k_max} (default {k_auto})")
        if k < k_min:
            raise InputError(f"lattice = {k} (spacing 2^{k}) is too fine for eps = {eps:g}: its float slack would "
                             f"exceed eps/1024; allowed lattice exponents {k_min}..{k_max} (default {k_auto})")
        g = 2.0 ** k
    d = float(span_steps(span[0], span[1], g)) if span is not None else float(sensitivity_steps(sensitivity, g))
    return g, float(laplace_scale_steps(d, eps))


def _plan_ok(eps, sensitivity, span, g) -> bool:
    d = float(span_steps(span[0], span[1], g)) if span is not None else float(sensitivity_steps(sensitivity, g))
    reach = (max(abs(span[0]), abs(span[1])) if span is not None else 0.0) / g + 100.0 * d / eps
    return float(laplace_slack(2.0 * d / eps + 2.0, d)) <= MAX_SLACK_SHARE * eps and reach < 2.0 ** 52


def check_arithmetic(value, options=ARITHMETICS) -> str:
    """``arithmetic`` among ``options`` (InputError naming the allowed values otherwise)."""
    if value not in options:
        raise InputError(f"arithmetic must be one of {', '.join(options)} (got {value!r})")
    return value


def check_lattice_claim(eps: float, *, sensitivity: float = 1.0, name: str = "eps") -> float:
    """eps if the lattice Laplace keeps it with a float slack of at most eps/1024; InputError
    otherwise (the smallest level kept is about 7e-4 at any sensitivity)."""
    g = float(lattice_spacing(sensitivity / eps, sensitivity))
    d = float(sensitivity_steps(sensitivity, g))
    sigma = float(laplace_slack(2.0 * d / eps + 2.0, d))
    if sigma > MAX_SLACK_SHARE * eps:
        floor = smallest_lattice_eps()
        raise InputError(f"{name} = {eps:g} is below what arithmetic='lattice' keeps exactly: its float slack "
                         f"{sigma:.2g} exceeds {name}/1024 (allowed: {name} >= {floor:.2g}, or arithmetic='float')")
    return eps


def lattice_guarantee(eps: float, sensitivity: float = 1.0) -> tuple[bool, float]:
    """(kept, eps_impl): whether the lattice Laplace at eps keeps eps exactly with a slack of at
    most eps/1024, and the level it has as implemented (D/s + sigma)."""
    g = float(lattice_spacing(sensitivity / eps, sensitivity))
    d = float(sensitivity_steps(sensitivity, g))
    s = float(laplace_scale_steps(d, eps))
    sigma = float(laplace_slack(s, d))
    return sigma <= MAX_SLACK_SHARE * eps and d / s + sigma <= eps, d / s + sigma


def lattice_claim_warnings(name: str, eps: float, sensitivity: float = 1.0) -> list[str]:
    """A policy's warning when its lattice Laplace releases cannot keep eps exactly (eps below
    about 7e-4: the policy runs, each release is eps_impl-DP as implemented; a catalog
    mechanism refuses such a claim)."""
    kept, eps_impl = lattice_guarantee(eps, sensitivity)
    if kept:
        return []
    return [f"{name}: at eps = {eps:g} the float-safe Laplace cannot absorb its float slack; each release is "
            f"{eps_impl:.3g}-DP as implemented"]


def smallest_lattice_eps() -> float:
    """The smallest eps whose lattice Laplace slack is at most eps/1024 (bisection, sensitivity 1)."""
    lo, hi = 1e-6, 1.0
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        g = float(lattice_spacing(1.0 / mid, 1.0))
        d = float(sensitivity_steps(1.0, g))
        if float(laplace_slack(2.0 * d / mid + 2.0, d)) > MAX_SLACK_SHARE * mid:
            lo = mid
        else:
            hi = mid
    return hi


#: the catalog parameter of every mechanism with a float-safe and a paper-literal form
ARITHMETIC_PARAM = Param("arithmetic", "lattice: input and noise on a power-of-two lattice, DP as implemented; "
                         "float: the paper's floating-point form, not DP as implemented (Mironov 2012)",
                         choice(*ARITHMETICS), "lattice")

#: the catalog parameter choosing the lattice of a mechanism with ``arithmetic="lattice"``
LATTICE_PARAM = Param("lattice", "lattice exponent k: outputs on 2^k Z (default: about 2^-16 of the noise scale)",
                      integer(-1000, 1000), None)
