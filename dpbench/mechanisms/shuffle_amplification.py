"""Local Laplace randomiser, shuffler and privacy amplification by shuffling (seed 004, Sec. 4-5).

* Local randomiser (Algorithms 2 and 3): a client in [-1, 1] reports r + Laplace(s).
  The paper uses s = 1/eps0 and calls it eps0-LDP; rewards in [-1, 1] differ by up to
  Delta_r = 2, so that report is 2 eps0-LDP (ERRATUM E1).  ``noise_scale="calibrated"``
  (default) uses s = Delta_r / eps0; ``"paper"`` keeps 1/eps0.
  One report is :func:`laplace_lattice_report` (float-safe, the default: the reward on the
  lattice g = 2^(floor(log2 min(s, 2)) - 16) of :mod:`.lattice`, whose span over [-1, 1] is
  exact, plus the lattice Laplace calibrated to the level Delta_r / s the scale gives: that
  level as implemented) or :func:`laplace_report` (``arithmetic="float"``: r + Laplace(s) in
  floating point); the engine component :class:`LaplaceRandomizer` privatises with it, and a
  batch of m reports is the sum of m rewards plus one Laplace-sum draw, Gamma(m, s) -
  Gamma(m, s), on the lattice (:func:`laplace_report_sum`, the batched form).  In the shuffle
  model the server announces s = Delta_r / eps0^(i) for each batch (``broadcast``) and the
  same component uses it.  ``LaplaceRandomizerMechanism`` (catalog ``laplace_pm1``) samples
  and is audited through the same component.
* Amplification, eq. (10) (Feldman, McMillan & Talwar 2021, Thm 1 / 3.1):

      f_{n,delta}(eps0) = log(1 + (e^eps0 - 1)/(e^eps0 + 1) *
                              (8 sqrt(e^eps0 log(4/delta)) / sqrt(n) + 8 e^eps0 / n))

  is the central epsilon of n shuffled eps0-LDP reports; Algorithm 3 gives every client
  of batch i the level eps0^(i) = f^{-1}_{n_i,delta}(eps) (:func:`amplification_inverse`,
  bisection).  FMT's theorem only holds for eps0 <= log(n / (16 log(2/delta))); the paper
  applies eq. (10) without it, so small batches are uncovered and f^{-1}(eps) < eps there
  (ERRATUM E5).  ``eps0_mode="safe"`` (default) uses
  max(eps, min(f^{-1}(eps), log(n / (16 log(4/delta))))) (the stricter limit of the FMT
  reference code), or eps when that limit is <= 0: always (eps, delta)-DP per batch;
  ``"paper"`` uses f^{-1}(eps).
* Shuffler (Sec. 5, spec §2.7): :func:`shuffle_batch` simulates one batch explicitly
  (uniform permutation of the action multiset over the clients, :func:`laplace_report`
  reports, un-permuted output in enumeration order) for audits; regret runs use the sums,
  which the permutation does not change.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..engine.caching import cached_njit
from ..engine.catalog import Param, choice, real
from ..engine.components import broadcast_or, draw_sum, implements, privatize, respond_broadcast
from ..engine.mechanism import CatalogMechanism
from ..validation import InputError, check_delta, check_eps, check_int, check_real
from .lattice import (
    ARITHMETIC_PARAM,
    LATTICE_PARAM,
    laplace_on_lattice,
    laplace_sum_steps,
    lattice_plan,
    range_plan,
    to_steps,
)

REWARD_RANGE = 2.0           # rewards in [-1, 1] (Assumption 1): Delta_r
NOISE_SCALES = ("calibrated", "paper")
EPS0_MODES = ("safe", "paper")


def laplace_scale(eps: float, noise_scale: str = "calibrated", reward_range: float = REWARD_RANGE) -> float:
    """Laplace scale giving the claimed level eps: Delta_r / eps (calibrated) or 1 / eps (paper, E1)."""
    return (reward_range if noise_scale == "calibrated" else 1.0) / eps


# ------------------------------------------------------------ eq. (10)
@cached_njit
def amplification(eps0, n, delta):
    """f_{n,delta}(eps0): central level of n shuffled eps0-LDP reports (eq. 10)."""
    e = math.exp(min(eps0, 700.0))
    frac = math.tanh(0.5 * eps0)                       # (e^eps0 - 1)/(e^eps0 + 1)
    inner = 8.0 * math.sqrt(e * math.log(4.0 / delta)) / math.sqrt(n) + 8.0 * e / n
    return math.log1p(frac * inner)


@cached_njit
def amplification_inverse(eps, n, delta):
    """eps0 with f_{n,delta}(eps0) = eps (bisection; f is continuous, increasing, f(0) = 0)."""
    if eps <= 0.0:
        return 0.0
    hi = 1.0
    while amplification(hi, n, delta) < eps and hi < 1e3:
        hi *= 2.0
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        if amplification(mid, n, delta) < eps:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@cached_njit
def fmt_limit(n, delta):
    """log(n / (16 log(4/delta))): the largest eps0 the (strict) FMT bound covers."""
    return math.log(n / (16.0 * math.log(4.0 / delta)))


@cached_njit
def batch_local_eps(eps, n, delta, safe):
    """eps0^(i) of a batch of n clients (see module docstring for the two modes)."""
    inverse = amplification_inverse(eps, n, delta)
    if not safe:
        return inverse
    limit = fmt_limit(n, delta)
    if limit <= 0.0:
        return eps
    return max(eps, min(inverse, limit))


def local_eps(eps, n, delta, eps0_mode: str = "safe") -> float:
    """Validated :func:`batch_local_eps`: the per-client level for a batch of n clients."""
    eps = check_eps(eps)
    n = check_int("n", n, low=1)
    delta = check_delta(delta, allow_zero=False)
    if eps0_mode not in EPS0_MODES:
        raise InputError(f"unknown eps0_mode {eps0_mode!r}; allowed values: {', '.join(EPS0_MODES)}")
    return float(batch_local_eps(eps, float(n), delta, eps0_mode == "safe"))


def amplified_eps(eps0, n, delta) -> float:
    """Validated :func:`amplification` (n may be fractional, as in the spec's tables)."""
    eps0 = check_real("eps0", eps0, low=0.0)
    n = check_real("n", n, low=1.0)
    delta = check_delta(delta, allow_zero=False)
    return float(amplification(eps0, n, delta))


# ------------------------------------------------------------ engine component
@cached_njit
def laplace_report(r, scale):
    """One client's report r + Laplace(s) in floating point (Algorithms 2-3): (Delta_r / s)-LDP
    in exact arithmetic (``arithmetic="float"``)."""
    return r + rng.laplace(scale)


@cached_njit
def laplace_plan(scale):
    """(g, s): the lattice of a report of scale ``scale`` on [-1, 1] and its Laplace scale in
    steps, calibrated to the level Delta_r / scale (``lattice.range_plan``)."""
    return range_plan(-1.0, 1.0, REWARD_RANGE / scale)


@cached_njit
def laplace_lattice_report(r, scale):
    """One client's float-safe report: r on the lattice plus the lattice Laplace of scale about
    ``scale``: (Delta_r / scale)-LDP as implemented."""
    g, s = laplace_plan(scale)
    return laplace_on_lattice(to_steps(r, 1.0 / g), s, g)


@cached_njit
def _randomizer_plan(mech, public):
    """(scale, g, s): the scale in force (announced, or the component's) and its lattice plan."""
    if public > 0.0 or mech.g <= 0.0:
        scale = broadcast_or(public, mech.scale)
        g, s = laplace_plan(scale)
        return scale, g, s
    return mech.scale, mech.g, mech.s


@cached_njit
def laplace_report_sum(total, m, scale):
    """The sum of m clients' floating-point reports whose rewards sum to ``total``: total plus
    the sum of m Laplace(s) noises, drawn at once (``randomness.laplace_sum``)."""
    return total + rng.laplace_sum(m, scale)


@cached_njit
def laplace_lattice_report_sum(total, m, g, s):
    """The sum of m clients' lattice reports whose rewards sum to ``total``: total rounded to
    the lattice plus the m noises' sum drawn at once and rounded (``lattice.laplace_sum_steps``;
    its law is the sum of m lattice reports up to the rounding of each term)."""
    return (to_steps(total, 1.0 / g) + laplace_sum_steps(m, s)) * g


class LaplaceRandomizer(NamedTuple):
    """Every client reports reward + Laplace(s), s = ``scale``, or the scale the server
    announces for the current batch (positive ``broadcast``: the shuffle model's eps0^(i)
    from eq. (10), Alg. 3); ``eps`` is the level returned with the response.  On the lattice
    (``lattice``: the plan of ``laplace_plan`` for the announced scale, or (``g``, ``s``) for
    ``scale`` when ``g`` > 0) or in floating point."""
    scale: float
    eps: float
    lattice: bool = True
    g: float = 0.0
    s: float = 0.0


@implements(privatize, LaplaceRandomizer)
def _laplace_randomizer_privatize(mech, r, public):
    if mech.lattice:
        scale, g, s = _randomizer_plan(mech, public)
        return laplace_on_lattice(to_steps(r, 1.0 / g), s, g)
    return laplace_report(r, broadcast_or(public, mech.scale))


@implements(respond_broadcast, LaplaceRandomizer)
def _laplace_randomizer_respond(mech, env, arm, m, public):
    if mech.lattice:
        scale, g, s = _randomizer_plan(mech, public)
        return laplace_lattice_report_sum(draw_sum(env, arm, m), m, g, s), mech.eps
    return laplace_report_sum(draw_sum(env, arm, m), m, broadcast_or(public, mech.scale)), mech.eps


# ------------------------------------------------------------ shuffler (audit path)
@cached_njit
def _shuffle_batch_kernel(counts, client_rewards, scale, seed, slot_action, report, client_of_slot):
    np.random.seed(seed)
    n = slot_action.shape[0]
    pos = 0
    for a in range(counts.shape[0]):                   # enumeration a_1..a_n of the multiset
        for _ in range(counts[a]):
            slot_action[pos] = a
            pos += 1
    perm = np.arange(n)                                # client j plays slot perm[j]
    for i in range(n - 1, 0, -1):                      # Fisher–Yates, one uniform per swap
        j = int(rng.uniform() * (i + 1))
        tmp = perm[i]
        perm[i] = perm[j]
        perm[j] = tmp
    for j in range(n):
        slot = perm[j]
        client_of_slot[slot] = j
        report[slot] = laplace_lattice_report(client_rewards[j, slot_action[slot]], scale)


def shuffle_batch(counts, client_rewards, scale, seed):
    """One shuffled batch (Algorithm 3 lines 11-16).

    counts[a]: plays of action a in the batch (n = sum); client_rewards[j, a]: the
    reward client j would get from action a (n x K).  Returns (slot_action, report,
    client_of_slot): what the server sees, the multiset in enumeration order with the
    privatised rewards, and which client produced each slot (hidden from the server;
    returned for tests)."""
    counts = np.asarray(counts, dtype=np.int64)
    if counts.ndim != 1 or (counts < 0).any() or counts.sum() < 1:
        raise InputError(f"counts must be non-negative integers with a positive sum (got {counts!r})")
    n = int(counts.sum())
    table = np.ascontiguousarray(client_rewards, dtype=np.float64)
    if table.shape != (n, counts.size):
        raise InputError(f"client_rewards must have shape (n, K) = ({n}, {counts.size}); got {table.shape}")
    scale = check_real("scale", scale, low=0.0, low_open=True)
    slot_action = np.empty(n, dtype=np.int64)
    report = np.empty(n)
    client_of_slot = np.empty(n, dtype=np.int64)
    _shuffle_batch_kernel(counts, table, scale, rng.stream_seed(seed), slot_action, report, client_of_slot)
    return slot_action, report, client_of_slot


# ------------------------------------------------------------ mechanism object
class LaplaceRandomizerMechanism(CatalogMechanism):
    """One client's report r + Laplace(s) of a reward r in [-1, 1] (seed 004 Algorithms 2-3,
    App. B.1): s = 2/eps (``noise_scale="calibrated"``) is eps-LDP; the paper's s = 1/eps
    (``"paper"``) is only 2 eps-LDP (erratum E1) but claims eps.  Float-safe on a lattice by
    default.  Engine component :class:`LaplaceRandomizer` (Alg. 2; in the shuffle model, Alg. 3,
    the same component at the announced level eps0^(i): audit it here with eps =
    :func:`local_eps`)."""

    NAME = "laplace_pm1"
    SUMMARY = ("r + Laplace(s) on rewards in [-1,1]; s = 2/eps (calibrated) or 1/eps (paper: really 2 eps-LDP, "
               "erratum E1); on a lattice")
    SOURCE = "seed 004 Algorithms 2-3, App. B.1"
    PARAMS = (Param("eps", "claimed privacy level", real(0.0, low_open=True)),
              Param("noise_scale", "calibrated (2/eps) or paper (1/eps)", choice(*NOISE_SCALES), "calibrated"),
              ARITHMETIC_PARAM, LATTICE_PARAM)
    AUDIT = {"eps": 1.0}

    def _setup(self, *, eps, noise_scale, arithmetic, lattice):
        scale = laplace_scale(eps, noise_scale)
        g, s = lattice_plan(REWARD_RANGE / scale, REWARD_RANGE, span=(-1.0, 1.0), lattice=lattice) \
            if arithmetic == "lattice" else (0.0, 0.0)
        self._claim(LaplaceRandomizer(scale, eps, arithmetic == "lattice", g, s), eps=eps, input_range=(-1.0, 1.0),
                    params={"eps": eps, "noise_scale": noise_scale, "arithmetic": arithmetic, "lattice": lattice},
                    arithmetic=arithmetic)


LaplaceRandomizerMechanism.register()
