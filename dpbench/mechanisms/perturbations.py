"""Perturbation laws of the DP-FTPL family (seed 002, Wang & Zhu; spec ``seed_002.md`` §4-5).

An FTPL policy draws one sample theta_i per arm from a law built from the arm's
history and pulls the argmax; Lemma 8 (DP) / Lemma 9 (GDP) turn CDF
inequalities between the law and its neighbour into privacy.  Three laws:

==================  ===========================================  ======================
law                 definition                                    used by
==================  ===========================================  ======================
Gaussian            N(R/N, v/N); v = 2 by default (spec §5.1)     DP-FTPL-Gauss (Alg. 1)
Beta                Beta(R+1+k, N-R+1+k), k = floor(N/8) + 1      DP-FTPL-Beta (Alg. 2)
Lemma 15            Laplace(x0, 1/(N eps)) truncated to x0 +- A,   DP-FTPL-New (Alg. 3),
                    A = ln(1 + (e^eps - 1)/(2 delta))/(N eps)      GDP-Elim-New (Alg. 4)
==================  ===========================================  ======================

Stable API (the Lemma 8/9 checks and the audits build on it):

* compiled scalar functions, callable from numba code and from Python:
  ``gauss_cdf/gauss_sf/gauss_pdf/gauss_sample``, ``beta_cdf/beta_sf/beta_pdf/beta_sample``
  (regularised incomplete beta, ~1e-14 relative, stable for shapes up to 1e7),
  ``beta_shapes`` (Algorithm 2's parameters), ``lemma15_cdf/sf/pdf/sample``,
  ``lemma15_width`` (A), ``lemma15_tail_radius`` (the d of Fact 4), and the
  sampler's parts ``open_uniform``, ``lemma15_c``, ``lemma15_from_uniform`` (quantile);
* start phases ``gauss_start_phase`` (N_G*) and ``beta_start_phase`` (N_B*);
* vectorised law objects ``GaussianLaw``, ``BetaLaw``, ``Lemma15Law`` with
  ``cdf/sf/pdf(x)`` (array in, array out), ``sample(size, seed)``, ``support()``,
  ``breakpoints()`` and ``neighbour(...)`` (the law after one reward changes);
* the draws the policies make, ``gauss_perturbation`` (with ``gauss_sd``),
  ``beta_perturbation`` and ``lemma15_draw`` / ``lemma15_from_uniform``;
* mechanism objects (``dpbench.sampler("ftpl_gauss" | "ftpl_beta" | "lemma15", ...)``,
  ``GaussPerturbationMechanism`` ...): one arm's perturbation with ``pulls``
  observations, of which one (the input x in [0, 1]) may change and the others sum
  to ``others``, so any two inputs are neighbours in the sense of Definition 1; their
  components' ``privatize`` is the policies' draw, so the audit checks what runs.

Every sampler draws through :mod:`dpbench.randomness` (Lemma 15 by inversion of one
uniform in (0, 1); Beta by two Marsaglia-Tsang gammas; Gaussian by one normal).
Edge cases: Lemma 15 at delta = 0 is the Laplace law, at eps = 0 the uniform law on
x0 +- 1/(2 N delta) (spec §4.2); not both may be 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import MechanismSpec, Param, flag, integer, real, register_mechanism
from ..engine.components import implements, privatize
from ..engine.mechanism import Mechanism
from ..validation import InputError, check_delta, check_int, check_real

#: Default Gaussian variance factor v in N(R/N, v/N): the privacy proof of Theorem 11
#: needs v = 2 (density sqrt(N/(4 pi)) exp(-N (x - mu)^2 / 4)); its regret proof uses
#: v = 1, with which the delta-branch of N_G* is not sufficient (spec §5.1, §10.2, R7).
GAUSS_VARIANCE = 2.0

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


# ===================================================================== Gaussian
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
def gauss_perturbation(mean, sd):
    """One theta ~ N(mean, sd^2) (one standard normal): DP-FTPL-Gauss draws each arm's theta
    with this, sd = ``gauss_sd(N_i, v)``, and so do the sampler and the audit."""
    return rng.normal(mean, sd)


@cached_njit
def gauss_sample(mean, n, v):
    """One theta ~ N(mean, v/n)."""
    return gauss_perturbation(mean, gauss_sd(n, v))


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


# ========================================================================= Beta
@cached_njit
def _stirling_correction(z):
    """lgamma(z) - [(z - 1/2) ln z - z + ln(2 pi)/2] (the Stirling-series remainder)."""
    if z >= 15.0:
        iz = 1.0 / z
        iz2 = iz * iz
        return iz * (1.0 / 12.0 - iz2 * (1.0 / 360.0 - iz2 * (1.0 / 1260.0 - iz2 * (
            1.0 / 1680.0 - iz2 / 1188.0))))
    return math.lgamma(z) - ((z - 0.5) * math.log(z) - z + _HALF_LOG_2PI)


@cached_njit
def _beta_front(x, a, b):
    """x^a (1-x)^b / B(a, b), computed around the mode p = a/(a+b) so that shapes of
    1e6 and more keep full relative accuracy (no difference of huge lgammas)."""
    n = a + b
    p = a / n
    q = b / n
    # x - p from the side where p (or q = 1 - p) is small, hence exact to a tiny absolute
    # error (a rounding error e in p costs a relative error n * e of the result)
    dx = x - p if p <= 0.5 else q - (1.0 - x)
    # a ln(x/p) + b ln((1-x)/q): log1p near the mode (where the two cancel to first
    # order), plain logs of the ratios far from it (where 1 - dx/q would lose digits)
    lx = math.log1p(dx / p) if abs(dx) < 0.5 * p else math.log(x / p)
    ly = math.log1p(-dx / q) if abs(dx) < 0.5 * q else math.log((1.0 - x) / q)
    log_front = (0.5 * math.log(a * b / (2.0 * math.pi * n))
                 + _stirling_correction(n) - _stirling_correction(a) - _stirling_correction(b)
                 + a * lx + b * ly)
    return math.exp(log_front)


@cached_njit
def _beta_continued_fraction(a, b, x):
    """Lentz evaluation of the continued fraction of I_x(a, b) (Numerical Recipes 6.4)."""
    tiny = 1e-300
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    for m in range(1, 1_000_000):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return h


@cached_njit
def _beta_cdf_sf(x, a, b):
    """(I_x(a, b), 1 - I_x(a, b)), each computed on its accurate side."""
    if x <= 0.0:
        return 0.0, 1.0
    if x >= 1.0:
        return 1.0, 0.0
    front = _beta_front(x, a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        lower = front * _beta_continued_fraction(a, b, x) / a
        return lower, 1.0 - lower
    upper = front * _beta_continued_fraction(b, a, 1.0 - x) / b
    return 1.0 - upper, upper


@cached_njit
def beta_cdf(x, a, b):
    """Regularised incomplete beta I_x(a, b) = P[theta <= x], theta ~ Beta(a, b)."""
    return _beta_cdf_sf(x, a, b)[0]


@cached_njit
def beta_sf(x, a, b):
    """P[theta > x], theta ~ Beta(a, b) (accurate in the upper tail)."""
    return _beta_cdf_sf(x, a, b)[1]


@cached_njit
def beta_pdf(x, a, b):
    if x <= 0.0 or x >= 1.0:
        return 0.0
    return _beta_front(x, a, b) / (x * (1.0 - x))


@cached_njit
def beta_sample(a, b):
    """One theta ~ Beta(a, b) (two Marsaglia-Tsang gammas, ``randomness.beta``)."""
    return rng.beta(a, b)


@cached_njit
def beta_shapes(r, n, extra_k):
    """Algorithm 2's (a_i + k_i, b_i + k_i) for R = r ones in n pulls:
    a = R + 1, b = N - R + 1, k = floor(N/8) + 1 pseudo-ones AND pseudo-zeros
    (k = 0 when ``extra_k`` is False: plain Beta-Bernoulli Thompson sampling)."""
    k = math.floor(n / 8.0) + 1.0 if extra_k else 0.0
    return r + 1.0 + k, n - r + 1.0 + k


@cached_njit
def beta_perturbation(r, n, extra_k):
    """One theta of DP-FTPL-Beta for R = r ones in n pulls: Beta(``beta_shapes(r, n, extra_k)``);
    the policy draws each arm's theta with this, and so do the sampler and the audit."""
    a, b = beta_shapes(r, n, extra_k)
    return beta_sample(a, b)


#: N_B* readings (spec §9 R9): the log argument 50e/(9 pi delta^2) [L], or 40e/(9 pi delta^2).
BETA_START_RULES = ("spec", "log_40e")


def beta_start_phase(eps: float, delta: float, rule: str = "spec") -> float:
    """N_B* = max{min{40e/(9 pi delta^2), (8000/(81 eps^2)) ln(c e/(9 pi delta^2))}, 1000e/(9 pi)}
    with c = 50 (``spec``; structure [M], log argument [L]) or c = 40 (``log_40e``)
    (Alg. 2; spec §5.2).  At (1, 0.01): 1064.7."""
    if rule not in BETA_START_RULES:
        raise InputError(f"unknown start_rule {rule!r}; allowed values: {', '.join(BETA_START_RULES)}")
    if delta <= 0.0:
        return math.inf
    nd = 9.0 * math.pi * delta * delta
    by_delta = 40.0 * math.e / nd
    c = 40.0 if rule == "log_40e" else 50.0
    by_eps = math.inf if eps == 0.0 else 8000.0 / (81.0 * eps * eps) * math.log(c * math.e / nd)
    return max(min(by_delta, by_eps), 1000.0 * math.e / (9.0 * math.pi))


# ============================================================ Lemma 15 (trunc. Laplace)
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
def lemma15_tail_radius(n, tail, eps, delta):
    """d >= 0 with P[theta <= x0 - d] = P[theta > x0 + d] = tail (0 < tail <= 1/2).

    tail = 1/T gives Fact 4's d = ln((T(e^eps-1) + 2T delta)/(2(e^eps-1) + 2T delta))/(n eps)
    (DP-FTPL-New's centre shift); tail = 1/T^2 at delta/2 gives GDP-Elim-New's radius.
    """
    if eps == 0.0:
        return (0.5 - tail) / (n * delta)
    c = lemma15_c(eps, delta)
    return math.log1p((0.5 - tail) / (tail + c)) / (n * eps)


@cached_njit
def open_uniform():
    """U(0, 1): ``randomness.uniform`` redrawn on the (probability 2^-53) value 0."""
    u = rng.uniform()
    while u == 0.0:
        u = rng.uniform()
    return u


@cached_njit
def lemma15_from_uniform(u, x0, n, eps, delta, c):
    """The Lemma 15 quantile at u in (0, 1), given c = ``lemma15_c(eps, delta)`` (the
    policies precompute it): D = ln(1 + (1/2 - m)/(m + c))/(n eps), m = min(u, 1-u),
    theta = x0 - D if u < 1/2 else x0 + D (spec §4.4); x0 + (u - 1/2)/(n delta) at eps = 0.
    Never above x0 when u < 1/2 (floating-point subtraction of D >= 0 is monotone)."""
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


# ================================================================= array kernels
_CDF, _SF, _PDF = 0, 1, 2


@cached_njit
def _gauss_eval(x, mean, n, v, what, out):
    for i in range(x.shape[0]):
        if what == 0:
            out[i] = gauss_cdf(x[i], mean, n, v)
        elif what == 1:
            out[i] = gauss_sf(x[i], mean, n, v)
        else:
            out[i] = gauss_pdf(x[i], mean, n, v)


@cached_njit
def _beta_eval(x, a, b, what, out):
    for i in range(x.shape[0]):
        if what == 2:
            out[i] = beta_pdf(x[i], a, b)
        else:
            out[i] = _beta_cdf_sf(x[i], a, b)[what]


@cached_njit
def _lemma15_eval(x, x0, n, eps, delta, what, out):
    for i in range(x.shape[0]):
        if what == 0:
            out[i] = lemma15_cdf(x[i], x0, n, eps, delta)
        elif what == 1:
            out[i] = lemma15_sf(x[i], x0, n, eps, delta)
        else:
            out[i] = lemma15_pdf(x[i], x0, n, eps, delta)


@cached_njit
def _gauss_fill(mean, n, v, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = gauss_sample(mean, n, v)


@cached_njit
def _beta_fill(a, b, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = beta_sample(a, b)


@cached_njit
def _lemma15_fill(x0, n, eps, delta, seed, out):
    np.random.seed(seed)
    c = lemma15_c(eps, delta)
    for i in range(out.shape[0]):
        out[i] = lemma15_draw(x0, n, eps, delta, c)


def _evaluate(kernel, x, *params):
    arr = np.asarray(x, dtype=np.float64)
    flat = np.ascontiguousarray(arr.reshape(-1))
    out = np.empty_like(flat)
    kernel(flat, *params, out)
    return float(out[0]) if arr.ndim == 0 else out.reshape(arr.shape)


def _draw(fill, size, seed, *params):
    size = check_int("size", size, low=1)
    out = np.empty(size, dtype=np.float64)
    fill(*params, rng.stream_seed(seed), out)
    return out


# ===================================================================== law objects
@dataclass(frozen=True)
class GaussianLaw:
    """theta ~ N(mean, v/pulls): DP-FTPL-Gauss's perturbation (Alg. 1, spec §5.1)."""
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

    def cdf(self, x):
        return _evaluate(_gauss_eval, x, float(self.mean), float(self.pulls), float(self.v), _CDF)

    def sf(self, x):
        return _evaluate(_gauss_eval, x, float(self.mean), float(self.pulls), float(self.v), _SF)

    def pdf(self, x):
        return _evaluate(_gauss_eval, x, float(self.mean), float(self.pulls), float(self.v), _PDF)

    def sample(self, size, seed):
        return _draw(_gauss_fill, size, seed, float(self.mean), float(self.pulls), float(self.v))

    def support(self):
        return -math.inf, math.inf

    def breakpoints(self):
        return np.array([self.mean])

    def neighbour(self, z):
        """The law after the mean moves by z (one reward changed: |z| <= 1/pulls)."""
        return replace(self, mean=self.mean + z)


@dataclass(frozen=True)
class BetaLaw:
    """theta ~ Beta(a, b): DP-FTPL-Beta's perturbation (Alg. 2, spec §5.2)."""
    a: float
    b: float

    def __post_init__(self):
        check_real("a", self.a, low=0.0, low_open=True)
        check_real("b", self.b, low=0.0, low_open=True)

    @classmethod
    def from_history(cls, ones, pulls, extra_k=True):
        """Algorithm 2's law for R = ``ones`` in N = ``pulls`` (k = floor(N/8) + 1 unless
        ``extra_k`` is False, the Thompson-sampling law that Fig. 2(d-f) shows failing)."""
        return cls(*beta_shapes(float(ones), float(pulls), bool(extra_k)))

    def cdf(self, x):
        return _evaluate(_beta_eval, x, float(self.a), float(self.b), _CDF)

    def sf(self, x):
        return _evaluate(_beta_eval, x, float(self.a), float(self.b), _SF)

    def pdf(self, x):
        return _evaluate(_beta_eval, x, float(self.a), float(self.b), _PDF)

    def sample(self, size, seed):
        return _draw(_beta_fill, size, seed, float(self.a), float(self.b))

    def support(self):
        return 0.0, 1.0

    def breakpoints(self):
        return np.array([0.0, (self.a - 1.0) / (self.a + self.b - 2.0) if self.a + self.b > 2 else 0.5,
                         self.a / (self.a + self.b), 1.0])

    def neighbour(self, up=True):
        """One observation changed 0 -> 1 (``up``: (a+1, b-1)) or 1 -> 0 ((a-1, b+1))."""
        return BetaLaw(self.a + 1.0, self.b - 1.0) if up else BetaLaw(self.a - 1.0, self.b + 1.0)


@dataclass(frozen=True)
class Lemma15Law:
    """The truncated-Laplace law of Lemma 15 (spec §4): centre x0, count ``pulls``, (eps, delta).

    Laplace(x0, 1/(pulls eps)) truncated to [x0 - A, x0 + A]; a shift of x0 by
    |z| <= 1/pulls costs exactly (eps, delta) (hockey-stick = delta at |z| = 1/pulls).
    """
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

    def cdf(self, x):
        return _evaluate(_lemma15_eval, x, *self._p(), _CDF)

    def sf(self, x):
        return _evaluate(_lemma15_eval, x, *self._p(), _SF)

    def pdf(self, x):
        return _evaluate(_lemma15_eval, x, *self._p(), _PDF)

    def sample(self, size, seed):
        return _draw(_lemma15_fill, size, seed, *self._p())

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


# ====================================================== one arm's theta as a mechanism
# The input x in [0, 1] is one observation of an arm with ``pulls`` observations, the
# other pulls - 1 of which sum to ``others``; any two inputs are neighbours in the sense of
# Definition 1.  Each component's ``privatize`` is the draw the policy makes for that arm.
class GaussPerturbation(NamedTuple):
    """DP-FTPL-Gauss's theta ~ N((others + x)/pulls, v/pulls) (Alg. 1)."""
    pulls: float
    others: float
    v: float


@implements(privatize, GaussPerturbation)
def _gauss_privatize(mech, r, public):
    return gauss_perturbation((mech.others + r) / mech.pulls, gauss_sd(mech.pulls, mech.v))


class BetaPerturbation(NamedTuple):
    """DP-FTPL-Beta's theta for R = others + x ones in ``pulls`` pulls (Alg. 2)."""
    pulls: float
    others: float
    extra_k: bool


@implements(privatize, BetaPerturbation)
def _beta_privatize(mech, r, public):
    return beta_perturbation(mech.others + r, mech.pulls, mech.extra_k)


class Lemma15Perturbation(NamedTuple):
    """The Lemma 15 law centred at (others + x)/pulls (DP-FTPL-New, GDP-Elim-New)."""
    pulls: float
    others: float
    eps: float
    delta: float
    c: float              # lemma15_c(eps, delta)


@implements(privatize, Lemma15Perturbation)
def _lemma15_privatize(mech, r, public):
    return lemma15_draw((mech.others + r) / mech.pulls, mech.pulls, mech.eps, mech.delta, mech.c)


def _history(pulls, others):
    """Validated (pulls, others) of a neighbouring history: others in [0, pulls - 1]."""
    pulls = check_int("pulls", pulls, low=1)
    others = 0.0 if others is None else check_real("others", others, low=0.0, high=pulls - 1.0)
    return float(pulls), others


class GaussPerturbationMechanism(Mechanism):
    """DP-FTPL-Gauss's theta of one arm, N(R/N, v/N), as a function of one observation x in
    [0, 1]: (eps, delta)-DP once N >= N_G*(eps, delta) (seed 002 Alg. 1, Thm 11; v = 2, spec
    §5.1 R7).  ``pulls`` defaults to ceil(N_G*), the end of the start phase; below it the
    claim does not hold (negative control: pulls = 1)."""

    local = False                  # a draw of the policy's own perturbation, not a user's report

    def __init__(self, *, eps: float, delta: float, pulls: int | None = None, others: float | None = None,
                 v: float = GAUSS_VARIANCE):
        eps = check_real("eps", eps, low=0.0)
        delta = check_delta(delta, allow_zero=False)
        v = check_real("v", v, low=0.0, low_open=True)
        if pulls is None:
            pulls = max(1, math.ceil(gauss_start_phase(eps, delta)))
        pulls, others = _history(pulls, others)
        super().__init__(GaussPerturbation(pulls, others, v), eps=eps, delta=delta, name="ftpl_gauss",
                         params={"eps": eps, "delta": delta, "pulls": int(pulls), "others": others, "v": v},
                         source="seed 002 Alg. 1, Thm 11")


class BetaPerturbationMechanism(Mechanism):
    """DP-FTPL-Beta's theta of one arm, Beta(R+1+k, N-R+1+k) with R = ``others`` + x (default
    others = 0: the worst-case edge history, spec §3.2): (eps, delta)-DP once N >= N_B*
    (seed 002 Alg. 2, Thm 13).  ``pulls`` defaults to ceil(N_B*); ``extra_k=False`` drops
    the k pseudo-counts (the Fig. 2(d-f) negative control)."""

    local = False                  # a draw of the policy's own perturbation, not a user's report

    def __init__(self, *, eps: float, delta: float, pulls: int | None = None, others: float | None = None,
                 extra_k: bool = True):
        eps = check_real("eps", eps, low=0.0)
        delta = check_delta(delta, allow_zero=False)
        if pulls is None:
            pulls = math.ceil(beta_start_phase(eps, delta))
        pulls, others = _history(pulls, others)
        super().__init__(BetaPerturbation(pulls, others, bool(extra_k)), eps=eps, delta=delta, name="ftpl_beta",
                         params={"eps": eps, "delta": delta, "pulls": int(pulls), "others": others,
                                 "extra_k": bool(extra_k)},
                         source="seed 002 Alg. 2, Thm 13")


class Lemma15Mechanism(Mechanism):
    """The Lemma 15 law (truncated Laplace, spec §4) centred at x0 = (others + x)/pulls: a
    centre shift of at most 1/N costs exactly (eps, delta) (seed 002 Lemma 15).  DP-FTPL-New's
    theta up to the history-independent shift sqrt(ln T/N) + d (Alg. 3), GDP-Elim-New's at
    (eps, delta/2) (Alg. 4)."""

    local = False                  # a draw of the policy's own perturbation, not a user's report

    def __init__(self, *, eps: float, delta: float, pulls: int = 10, others: float | None = None):
        eps = check_real("eps", eps, low=0.0)
        delta = check_delta(delta)
        if eps == 0.0 and delta == 0.0:
            raise InputError("lemma15 needs eps > 0 or delta > 0 (got eps = delta = 0)")
        pulls, others = _history(pulls, others)
        super().__init__(Lemma15Perturbation(pulls, others, eps, delta, float(lemma15_c(eps, delta))),
                         eps=eps, delta=delta, name="lemma15",
                         params={"eps": eps, "delta": delta, "pulls": int(pulls), "others": others},
                         source="seed 002 Lemma 15, Alg. 3-4")


_EPS0 = Param("eps", "privacy level eps >= 0", real(0.0))
_DELTA_POS = Param("delta", "privacy slack delta in (0, 1)", real(0.0, 1.0, low_open=True, high_open=True))
_DELTA = Param("delta", "privacy slack delta in [0, 1)", real(0.0, 1.0, high_open=True))
_OTHERS = Param("others", "sum of the other pulls - 1 rewards of the arm (default 0)",
                real(0.0), None)


register_mechanism(MechanismSpec(
    "ftpl_gauss", "DP-FTPL-Gauss perturbation N(R/N, v/N) of one arm after the start phase",
    "seed 002 Alg. 1, Thm 11 (v: spec §5.1 R7)",
    (_EPS0, _DELTA_POS,
     Param("pulls", "observations of the arm (default ceil(N_G*))", integer(1), None), _OTHERS,
     Param("v", "variance factor v of N(R/N, v/N)", real(0.0, low_open=True), GAUSS_VARIANCE)),
    GaussPerturbationMechanism))
register_mechanism(MechanismSpec(
    "ftpl_beta", "DP-FTPL-Beta perturbation Beta(R+1+k, N-R+1+k) of one arm after the start phase",
    "seed 002 Alg. 2, Thm 13",
    (_EPS0, _DELTA_POS,
     Param("pulls", "observations of the arm (default ceil(N_B*))", integer(1), None), _OTHERS,
     Param("extra_k", "add k = floor(N/8) + 1 pseudo-counts (False: negative control)", flag(), True)),
    BetaPerturbationMechanism))
register_mechanism(MechanismSpec(
    "lemma15", "Lemma 15 truncated-Laplace perturbation centred at the arm's mean (sensitivity 1/N)",
    "seed 002 Lemma 15, Alg. 3-4",
    (_EPS0, _DELTA, Param("pulls", "observations N of the arm", integer(1), 10), _OTHERS),
    Lemma15Mechanism))
