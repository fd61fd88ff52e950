"""The Beta perturbation of DP-FTPL-Beta (seed 002 Alg. 2, Thm 13; spec seed_002.md §5.2).

theta ~ Beta(R + 1 + k, N - R + 1 + k) for an arm with R ones in N pulls, k = floor(N/8) + 1
pseudo-ones and pseudo-zeros (k = 0: Beta-Bernoulli Thompson sampling, the law Fig. 2(d-f)
shows failing).  One reward moves the shapes by (+1, -1): a law whose parameters the input
sets, not input plus noise, so its floating-point draw has no input-dependent rounding of a
sum (``arithmetic="none"``).

* scalar kernels ``beta_cdf/sf/pdf`` (regularised incomplete beta, :mod:`..special`),
  ``beta_sample`` (two Marsaglia-Tsang gammas, ``randomness.beta``), ``beta_shapes``
  (Algorithm 2's parameters), ``beta_start_phase`` (N_B*, two readings);
* ``beta_perturbation(r, n, extra_k)``: the draw the policy, the sampler and the audit make;
* the law object ``BetaLaw``, the component ``BetaPerturbation`` and the mechanism
  ``BetaPerturbationMechanism`` (catalog ``ftpl_beta``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ... import randomness as rng
from ...engine.caching import cached_njit
from ...engine.catalog import Param, flag, integer
from ...engine.components import implements, privatize
from ...engine.mechanism import CatalogMechanism
from ...validation import InputError, check_int, check_real
from ..special import beta_cdf_sf, beta_front
from ._common import DELTA_POS, EPS0, OTHERS, FeasibilityFamily, KernelLaw, history, known_options


# ------------------------------------------------------------------ scalar kernels
@cached_njit
def beta_cdf(x, a, b):
    """Regularised incomplete beta I_x(a, b) = P[theta <= x], theta ~ Beta(a, b)."""
    return beta_cdf_sf(x, a, b)[0]


@cached_njit
def beta_sf(x, a, b):
    """P[theta > x], theta ~ Beta(a, b) (accurate in the upper tail)."""
    return beta_cdf_sf(x, a, b)[1]


@cached_njit
def beta_pdf(x, a, b):
    if x <= 0.0 or x >= 1.0:
        return 0.0
    return beta_front(x, a, b) / (x * (1.0 - x))


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


# ------------------------------------------------------------------ array kernels
@cached_njit
def _eval(x, a, b, what, out):
    for i in range(x.shape[0]):
        if what == 2:
            out[i] = beta_pdf(x[i], a, b)
        else:
            out[i] = beta_cdf_sf(x[i], a, b)[what]


@cached_njit
def _fill(a, b, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = beta_sample(a, b)


# ------------------------------------------------------------------ the law
@dataclass(frozen=True)
class BetaLaw(KernelLaw, FeasibilityFamily):
    """theta ~ Beta(a, b): DP-FTPL-Beta's perturbation (Alg. 2, spec §5.2).

    As a family of the CDF checker (:class:`._common.FeasibilityFamily`): Algorithm 2's law for
    R ones in N pulls against R + 1 (the four inequalities cover R + 1 -> R), every R = 0..N-1
    scanned in closed form (:meth:`history_deltas`); option ``extra_k`` (False: without k, the
    law of Fig. 2(d-f)); the ratio a(1 - x)/((b - 1) x) equals c at a/(a + c(b - 1))."""

    EVAL, FILL = _eval, _fill
    NAME = "beta"
    LOCATION = False
    ZERO_DELTA = False
    IN_N = "scan"
    OPTIONS = ("extra_k",)
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

    def _p(self):
        return float(self.a), float(self.b)

    def support(self):
        return 0.0, 1.0

    def breakpoints(self):
        return np.array([0.0, (self.a - 1.0) / (self.a + self.b - 2.0) if self.a + self.b > 2 else 0.5,
                         self.a / (self.a + self.b), 1.0])

    def neighbour(self, up=True):
        """One observation changed 0 -> 1 (``up``: (a+1, b-1)) or 1 -> 0 ((a-1, b+1))."""
        return BetaLaw(self.a + 1.0, self.b - 1.0) if up else BetaLaw(self.a - 1.0, self.b + 1.0)

    # ---------------------------------------------------------- the CDF checker's family
    @classmethod
    def options(cls, *, lemma, eps, delta, **given):
        known_options(cls.NAME, given, cls.OPTIONS)
        return {"extra_k": bool(given.get("extra_k", True))}

    @classmethod
    def neighbour_pair(cls, n, options, history=0):
        if not 0 <= history < n:
            raise InputError(f"the history R must be an integer in [0, {n - 1}] (got {history})")
        a, b = beta_shapes(float(history), float(n), bool(options["extra_k"]))
        law = cls(a, b)

        def crossings(c):
            return [a / (a + c * (b - 1.0))]
        return law, law.neighbour(up=True), {"N": n, "R": history, "change": "R -> R+1 (0 -> 1)",
                                             "k": int(a - history - 1.0), "a": a, "b": b}, crossings

    @classmethod
    def start_phase(cls, eps, delta, options):
        return beta_start_phase(eps, delta) if options["extra_k"] else None

    @classmethod
    def history_deltas(cls, n, eps, options):
        """(delta_required[R], x[R], constraint index[R]) of every history R = 0..n-1 at N = n (0 -> 1
        changes; the index into Lemma 8's four inequalities).  R mirrors n-1-R (x -> 1 - x), so
        half is computed."""
        n = check_int("n", n, low=1)
        eps = check_real("eps", eps, low=0.0)
        half = (n + 1) // 2
        d, x, w = np.empty(half), np.empty(half), np.empty(half, dtype=np.int64)
        _beta_histories(float(n), bool(options["extra_k"]), math.exp(eps), d, x, w)
        mirror = n - half                                      # histories half..n-1
        d_full = np.concatenate([d, d[:mirror][::-1]])
        x_full = np.concatenate([x, 1.0 - x[:mirror][::-1]])
        w_full = np.concatenate([w, 3 - w[:mirror][::-1]])     # the reflection swaps F and F'
        return np.maximum(d_full, 0.0), x_full, w_full

    @classmethod
    def worst_by_n(cls, n_lo, n_hi, eps, options):
        """The worst delta required over every history, for each N in [n_lo, n_hi]."""
        n_lo = check_int("n_lo", n_lo, low=1)
        n_hi = check_int("n_hi", n_hi, low=n_lo)
        out = np.empty(n_hi - n_lo + 1)
        _beta_worst_by_n(n_lo, bool(options["extra_k"]), math.exp(check_real("eps", eps, low=0.0)), out)
        return np.maximum(out, 0.0)


# ------------------------------------------------------------------ Lemma 8 over every history
@cached_njit
def _beta_pair_required(n, r, extra_k, ee):
    """The exact Lemma 8 delta of Algorithm 2's law for history (n, r) against r -> r+1, with its
    location and constraint index: by the monotone likelihood ratio a (1 - x)/((b - 1) x), the
    only positive suprema are F - e^eps F' at x = a/(a + e^eps (b-1)) and (1 - F') - e^eps (1 - F)
    at x = a/(a + e^-eps (b-1))."""
    a, b = beta_shapes(r, n, extra_k)
    x1 = a / (a + ee * (b - 1.0))
    f1 = beta_cdf(x1, a, b) - ee * beta_cdf(x1, a + 1.0, b - 1.0)
    x4 = a / (a + (b - 1.0) / ee)
    f4 = beta_sf(x4, a + 1.0, b - 1.0) - ee * beta_sf(x4, a, b)
    if f1 >= f4:
        return f1, x1, 0
    return f4, x4, 3


@cached_njit
def _beta_histories(n, extra_k, ee, out_d, out_x, out_which):
    """``_beta_pair_required`` for r = 0..len(out_d)-1."""
    for r in range(out_d.shape[0]):
        out_d[r], out_x[r], out_which[r] = _beta_pair_required(n, float(r), extra_k, ee)


@cached_njit
def _beta_worst_by_n(n_lo, extra_k, ee, out):
    """out[i] = max over histories of the delta required at N = n_lo + i (history r mirrors
    n-1-r under x -> 1 - x: half the histories suffice)."""
    for i in range(out.shape[0]):
        n = n_lo + i
        worst = 0.0
        for r in range((n + 1) // 2):
            d = _beta_pair_required(float(n), float(r), extra_k, ee)[0]
            if d > worst:
                worst = d
        out[i] = worst


# ------------------------------------------------------------------ component and mechanism
class BetaPerturbation(NamedTuple):
    """DP-FTPL-Beta's theta for R = others + x ones in ``pulls`` pulls (Alg. 2)."""
    pulls: float
    others: float
    extra_k: bool


@implements(privatize, BetaPerturbation)
def _beta_privatize(mech, r, public):
    return beta_perturbation(mech.others + r, mech.pulls, mech.extra_k)


class BetaPerturbationMechanism(CatalogMechanism):
    """DP-FTPL-Beta's theta of one arm, Beta(R+1+k, N-R+1+k) with R = ``others`` + x (default
    others = 0: the worst-case edge history, spec §3.2): (eps, delta)-DP once N >= N_B*
    (seed 002 Alg. 2, Thm 13).  ``pulls`` defaults to ceil(N_B*); ``extra_k=False`` drops
    the k pseudo-counts (the Fig. 2(d-f) negative control)."""

    NAME = "ftpl_beta"
    SUMMARY = "DP-FTPL-Beta perturbation Beta(R+1+k, N-R+1+k) of one arm after the start phase"
    SOURCE = "seed 002 Alg. 2, Thm 13"
    PARAMS = (EPS0, DELTA_POS,
              Param("pulls", "observations of the arm (default ceil(N_B*))", integer(1), None), OTHERS,
              Param("extra_k", "add k = floor(N/8) + 1 pseudo-counts (False: negative control)", flag(), True))
    AUDIT = {"eps": 1.0, "delta": 0.01}                  # pulls = ceil(N_B*) = 1065, edge R = 0
    local = False                  # a draw of the policy's own perturbation, not a user's report

    def _setup(self, *, eps, delta, pulls, others, extra_k):
        if pulls is None:
            pulls = math.ceil(beta_start_phase(eps, delta))
        pulls, others = history(pulls, others)
        self._claim(BetaPerturbation(pulls, others, bool(extra_k)), eps=eps, delta=delta,
                    params={"eps": eps, "delta": delta, "pulls": int(pulls), "others": others,
                            "extra_k": bool(extra_k)})


BetaPerturbationMechanism.register()
