"""Known-answer suite: the 20 mechanisms of the DP-Sniper benchmark and the floating-point case.

Mechanisms of Bichsel et al., "DP-Sniper" (S&P'21; ``dpsniper/mechanisms``,
inputs of ``dpsniper/experiments/exp_default.py``), every one claiming eps = 0.1,
audited at 90% confidence (alpha = 0.1) on the same input patterns, written
here as compiled components (``fast.compiled_mechanism``) so that the audit
counts events inside compiled code.  Published figures (DD-Search with logistic
regression / MLP, two StatDP runs) are in ``verify/data/dpsniper_reference_results.csv``.

``dpbench audit-suite`` regenerates ``reports/audit_benchmark.md`` (:mod:`.report`) and ``dpbench audit-suite
--planted-only`` ``reports/audit_planted.md``.
"""
from __future__ import annotations

import csv
import math
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from dpbench import randomness as rng
from dpbench.engine.caching import cached_njit
from dpbench.engine.components import implements

from ..engine import audit
from ..fast import compiled_mechanism, emit
from ..inputs import Domain, pattern_pairs
from .planted import LATTICE

DATA = Path(__file__).resolve().parents[2] / "data" / "dpsniper_reference_results.csv"
CLAIMED_EPS = 0.1
ALPHA = 0.1                      # DP-Sniper's 90% confidence


# ------------------------------------------------------------------ mechanisms
# The mechanisms add noise rounded to a lattice of 2^-32 (verify.audit.suites.planted.LATTICE;
# Mironov's fix of floating-point noise, CCS'12, in its simplest form): on the suite's integer
# inputs every sum is then exact, so each mechanism has the law of its exact-arithmetic
# description and the known answers hold for the code that runs.  Textbook float noise
# (``x + laplace``) is not DP at all (its granularity depends on x); the audit's default
# statistics see that, which is the FloatingPointLaplace row.
_PER_UNIT = 1.0 / LATTICE


@cached_njit
def lattice_laplace(scale):
    """Laplace(0, scale) (dpbench's sampler) rounded to the nearest multiple of LATTICE."""
    return np.rint(rng.laplace(scale) * _PER_UNIT) / _PER_UNIT


@cached_njit
def lattice_exponential(scale):
    """Exponential(scale) rounded to the nearest multiple of LATTICE."""
    return np.rint(rng.exponential(scale) * _PER_UNIT) / _PER_UNIT


class Laplace(NamedTuple):
    """x + Laplace(scale) per output entry, ``copies`` independent entries (LaplaceMechanism,
    LaplaceParallel, NoisyHist1/2), the noise on the lattice; ``float_safe=False``: the
    textbook float sampler scale * log(2u) / -scale * log(2 - 2u) of one uniform double
    (NumPy's legacy laplace) added in plain floating point."""
    scale: float
    copies: int          # 0: one entry per input entry (histograms); k > 0: k copies of x[0]
    float_safe: bool = True


@implements(emit, Laplace)
def _laplace_emit(mech, x, out):
    m = x.shape[0] if mech.copies == 0 else mech.copies
    for j in range(m):
        noise = lattice_laplace(mech.scale) if mech.float_safe else rng.laplace(mech.scale)
        out[j] = (x[j] if mech.copies == 0 else x[0]) + noise


class TruncatedGeometric(NamedTuple):
    """Balcer & Vadhan's GeoSample (Alg. 4.8 of arXiv:1709.05396) with integer arithmetic:
    k = ceil(ln(2/eps)), d = (2^(k+1) + 1)(2^k + 1)^(n-1), output the smallest z in
    {0..n} with F(z) >= u, u uniform on {1..d}.  Thm 4.7: ln(1 + 2^-k)-DP (0.1178 for eps 0.1)."""
    k: int
    n: int
    d: int


@implements(emit, TruncatedGeometric)
def _geometric_emit(mech, x, out):
    c = int(x[0])
    u = np.random.randint(1, mech.d + 1)
    two_k = 1 << mech.k
    z = mech.n
    for j in range(mech.n):
        if j < c:
            f = (two_k ** (c - j)) * ((two_k + 1) ** (mech.n - (c - j)))
        else:
            f = mech.d - (two_k ** (j - c + 1)) * ((two_k + 1) ** (mech.n - 1 - (j - c)))
        if f >= u:
            z = j
            break
    out[0] = z


def truncated_geometric(eps=0.1, n=5):
    k = math.ceil(math.log(2.0 / eps))
    return TruncatedGeometric(k, n, int((2 ** (k + 1) + 1) * (2 ** k + 1) ** (n - 1)))


class ReportNoisyMax(NamedTuple):
    """argmax (or max value) of x_j + noise_j, noise Laplace(scale) or Exponential(scale)
    (Ding et al. CCS'18 Algs. 5-8: ReportNoisyMax1-4)."""
    scale: float
    exponential: bool
    value: bool


@implements(emit, ReportNoisyMax)
def _rnm_emit(mech, x, out):
    best = -math.inf
    arg = 0
    for j in range(x.shape[0]):
        noise = lattice_exponential(mech.scale) if mech.exponential else lattice_laplace(mech.scale)
        v = x[j] + noise
        if v > best:
            best = v
            arg = j
    out[0] = best if mech.value else arg


# SVT variants (Lyu, Su & Li, VLDB'17, Algs. 1-6; Wang et al. PLDI'19 NumericalSVT)
SVT1, SVT2, SVT3, SVT4, SVT5, SVT6, NUMERICAL = 1, 2, 3, 4, 5, 6, 7


class SparseVector(NamedTuple):
    """One of the sparse-vector variants of the DP-Sniper benchmark, as coded there:
    outputs 1 (above), 0 (below), -1 (aborted) per query; SVT3 outputs the noisy
    value when above, -1000 below, -2000 aborted; NumericalSVT outputs a fresh noisy
    value when above, 0 below, -1000 aborted.  ``c`` answers before aborting.  (The
    noise of queries after the abort is not drawn: it never reaches the output.)"""
    variant: int
    eps: float
    c: int
    t: float


@implements(emit, SparseVector)
def _svt_emit(mech, x, out):
    v = mech.variant
    eps, c, t = mech.eps, mech.c, mech.t
    eps1 = eps / 4.0 if v == SVT4 else eps / 2.0
    eps2 = eps - eps1
    if v == NUMERICAL:
        rho = lattice_laplace(3.0 / eps)
    elif v == SVT2:
        rho = lattice_laplace(c / eps1)
    else:
        rho = lattice_laplace(1.0 / eps1)
    count = 0
    aborted = False
    for j in range(x.shape[0]):
        if aborted:                  # every later output is the abort flag: skip its noise
            out[j] = -1000.0 if v == NUMERICAL else (-2000.0 if v == SVT3 else -1.0)
            continue
        if v == SVT1 or v == SVT2:
            m = x[j] + lattice_laplace(2.0 * c / eps2)
        elif v == SVT3:
            m = x[j] + lattice_laplace(c / eps2)
        elif v == SVT4 or v == SVT6:
            m = x[j] + lattice_laplace(1.0 / eps2)
        elif v == SVT5:
            m = x[j]
        else:
            m = x[j] + lattice_laplace(6.0 * c / eps)
        above = m >= rho + t
        if v == NUMERICAL:
            z = x[j] + lattice_laplace(3.0 * c / eps)
            out[j] = z if above else 0.0
        elif v == SVT3:
            out[j] = m if above else -1000.0
        else:
            out[j] = 1.0 if above else 0.0
        if v == SVT2 and above:
            rho = lattice_laplace(c / eps1)
        if v != SVT5 and v != SVT6:
            if above:
                count += 1
            if count == c:
                aborted = True


class SVT34Parallel(NamedTuple):
    """SparseVectorTechnique3 and SparseVectorTechnique4 run side by side on the same input."""
    eps: float
    c: int
    t: float


@implements(emit, SVT34Parallel)
def _svt34_emit(mech, x, out):
    d = x.shape[0]
    emit(SparseVector(SVT3, mech.eps, mech.c, mech.t), x, out[:d])
    emit(SparseVector(SVT4, mech.eps, mech.c, mech.t), x, out[d:])


class Rappor(NamedTuple):
    """RAPPOR steps 1-3 (Erlingsson et al. CCS'14): Bloom filter of the input (rows of
    ``bloom`` for inputs low, low+1, ...), permanent randomised response with f, then
    instantaneous randomised response with (p, q) unless ``one_time``."""
    bloom: np.ndarray
    low: int
    f: float
    p: float
    q: float
    one_time: bool


@implements(emit, Rappor)
def _rappor_emit(mech, x, out):
    row = int(x[0]) - mech.low
    for j in range(mech.bloom.shape[1]):
        u = np.random.random()
        bit = mech.bloom[row, j]
        if u < 0.5 * mech.f:
            bit = 1.0
        elif u < mech.f:
            bit = 0.0
        if mech.one_time:
            out[j] = bit
        else:
            out[j] = rng.bernoulli(mech.q if bit == 1.0 else mech.p)


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 x86 32-bit, signed (as the ``mmh3.hash`` used by DP-Sniper's Rappor)."""
    mask = 0xFFFFFFFF

    def rotl(v, r):
        return ((v << r) | (v >> (32 - r))) & mask
    h = seed & mask
    nblocks = len(data) // 4
    for i in range(nblocks):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = rotl((k * 0xCC9E2D51) & mask, 15) * 0x1B873593 & mask
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & mask
    tail = data[4 * nblocks:]
    k = 0
    for i in reversed(range(len(tail))):
        k ^= tail[i] << (8 * i)
    if tail:
        h ^= rotl((k * 0xCC9E2D51) & mask, 15) * 0x1B873593 & mask
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h - (1 << 32) if h >= (1 << 31) else h


def rappor(one_time=False, low=-10, high=10, n_hashes=4, size=20):
    bloom = np.zeros((high - low + 1, size))
    for r, value in enumerate(range(low, high + 1)):
        for i in range(n_hashes):
            bloom[r, murmur3_32(str(value).encode(), i) % size] = 1.0
    if one_time:
        return Rappor(bloom, low, 0.95, 0.45, 0.55, True)
    return Rappor(bloom, low, 0.75, 0.45, 0.55, False)


class PrefixSum(NamedTuple):
    """Running sums of x_j + Laplace(1/eps) (Wang et al. PLDI'19)."""
    eps: float


@implements(emit, PrefixSum)
def _prefix_emit(mech, x, out):
    total = 0.0
    for j in range(x.shape[0]):
        total += x[j] + lattice_laplace(1.0 / mech.eps)
        out[j] = total


# ------------------------------------------------------------------ the suite
#: the suite's one sample budget: certification outputs per input, the same for every row
#: (selection and refinement follow the audit's default rules, ``audit(n=SUITE_N)``)
SUITE_N = 30_000_000


@dataclass
class Case:
    name: str                    # as in the DP-Sniper logs
    component: tuple
    output_dim: int
    domain: Domain
    note: str = ""
    true_eps: float | None = None    # the pair's exact eps where known (for the report)
    extra: dict = field(default_factory=dict)

    #: every row is audited with the default statistics (kept for callers that pass it on)
    features = ("auto",)

    def mechanism(self):
        return compiled_mechanism(self.component, self.output_dim, name=self.name,
                                  claimed_eps=CLAIMED_EPS)


def cases() -> list[Case]:
    """The suite: the DP-Sniper mechanisms on their input domains, and FloatingPointLaplace."""
    e = CLAIMED_EPS
    f1 = Domain(1, -10, 10)
    f5c = Domain(5, -10, 10, componentwise=True)
    f10c = Domain(10, -10, 10, componentwise=True)
    i5 = Domain(5, 0, 10, integer=True)
    rap = Domain(1, -10, 10, integer=True)
    return [
        Case("LaplaceMechanism", Laplace(1.0 / e, 1), 1, f1, true_eps=0.1),
        Case("TruncatedGeometricMechanism", truncated_geometric(e, 5), 1, Domain(1, 0, 5, integer=True),
             true_eps=math.log(1 + 2 ** -3)),
        Case("NoisyHist1", Laplace(1.0 / e, 0), 5, i5, true_eps=0.1),
        Case("NoisyHist2", Laplace(e, 0), 5, i5, true_eps=10.0),
        Case("ReportNoisyMax1", ReportNoisyMax(2.0 / e, False, False), 1, f5c, true_eps=0.0946149),
        Case("ReportNoisyMax2", ReportNoisyMax(2.0 / e, True, False), 1, f5c, true_eps=0.1),
        Case("ReportNoisyMax3", ReportNoisyMax(2.0 / e, False, True), 1, f5c, true_eps=0.25),
        Case("ReportNoisyMax4", ReportNoisyMax(2.0 / e, True, True), 1, f5c, true_eps=math.inf),
        Case("SparseVectorTechnique1", SparseVector(SVT1, e, 1, 0.5), 10, f10c, true_eps=0.0885258),
        Case("SparseVectorTechnique2", SparseVector(SVT2, e, 1, 1.0), 10, f10c),
        Case("SparseVectorTechnique3", SparseVector(SVT3, e, 1, 1.0), 10, f10c),
        Case("SparseVectorTechnique4", SparseVector(SVT4, e, 1, 1.0), 10, f10c, true_eps=0.1724707),
        Case("SparseVectorTechnique5", SparseVector(SVT5, e, 1, 1.0), 10, f10c, true_eps=math.inf),
        Case("SparseVectorTechnique6", SparseVector(SVT6, e, 1, 1.0), 10, f10c),
        Case("Rappor", rappor(False), 20, rap, true_eps=6 * math.log(0.5125 / 0.4875)),
        Case("OneTimeRappor", rappor(True), 20, rap, true_eps=6 * math.log(0.525 / 0.475)),
        Case("LaplaceParallel", Laplace(1.0 / 0.005, 20), 20, f1, true_eps=0.1),
        Case("SVT34Parallel", SVT34Parallel(e, 2, 1.0), 20, f10c),
        Case("PrefixSum", PrefixSum(e), 10, f10c, true_eps=1.0),
        Case("NumericalSVT", SparseVector(NUMERICAL, e, 2, 1.0), 10, f10c),
        Case("FloatingPointLaplace", Laplace(1.0 / e, 1, False), 1, f1, true_eps=math.inf,
             note="textbook Laplace (log of a uniform double) added in floating point"),
    ]


def published() -> dict:
    """{mechanism: {tool: eps_lcb}} from the DP-Sniper reference logs (plus the floating-point runs)."""
    out: dict = {}
    with open(DATA, newline="") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["mechanism"], {})[row["tool"]] = {
                "eps_lcb": float(row["eps_lcb_conf0.9"]),
                "seconds": float(row["time_search_s"]) + float(row["time_final_s"])}
    # floating_point_data.log / floating_fixed_data.log (anchors spec Sec. 4.1): DD-Search + MLP
    out.setdefault("FloatingPointLaplace", {})["ddsearch_mlp"] = {"eps_lcb": 0.2521, "seconds": 1817.0}
    return out


def run_case(case: Case, n: int = SUITE_N, seed: int = 0, progress: bool = False):
    """(AuditResult, wall seconds, CPU seconds of all threads) of one known-answer case: the
    default audit with n certification outputs per input."""
    t0, c0 = time.perf_counter(), time.process_time()
    result = audit(case.mechanism(), eps=CLAIMED_EPS, alpha=ALPHA, n=n, seed=seed, domain=case.domain,
                   progress=progress)
    return result, time.perf_counter() - t0, time.process_time() - c0


def _run_named(name: str, n: int, seed: int):
    """:func:`run_case` of the case called ``name`` (what a worker process is handed)."""
    return run_case(next(c for c in cases() if c.name == name), n, seed)


#: thread-count variables of the compiled code (numba) and of NumPy's linear algebra
_THREAD_VARIABLES = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def _threads_for_children(threads: int):
    """Processes started inside this block run ``threads`` threads each (the variables are read
    when a child imports numba and NumPy); the parent's environment is restored after."""
    saved = {k: os.environ.get(k) for k in _THREAD_VARIABLES}
    os.environ.update({k: str(threads) for k in _THREAD_VARIABLES})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_cases(selected: list[Case], n: int = SUITE_N, seed: int = 0, workers: int | None = None,
              on_row=None) -> list[tuple]:
    """[(case, AuditResult, wall s, CPU s)] of every case of ``selected``, in that order.

    The rows run ``workers`` at a time (default: one per core, at most one per row), each in a
    process of its own with cores // workers compiled threads: an audit alternates compiled
    sampling on every core with NumPy statistics on one, so one row per core keeps both cores
    busy where one row on both leaves one idle.  The largest rows (output dimension, then input
    pairs) start first, so that the last to finish are short.  The results do not depend on this:
    an audit gives the same numbers for any thread count.  ``on_row(case, result, wall, cpu)`` is
    called as each row finishes (in the order they finish)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    workers = min(len(selected), cores if workers is None else workers)
    done: dict[str, tuple] = {}

    def finished(case, outcome):
        done[case.name] = (case, *outcome)
        if on_row is not None:
            on_row(*done[case.name])

    if workers <= 1:
        for case in selected:
            finished(case, run_case(case, n, seed))
        return [done[c.name] for c in selected]
    order = sorted(selected, key=lambda c: (c.output_dim, len(pattern_pairs(c.domain))), reverse=True)
    with _threads_for_children(max(1, cores // workers)):
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        futures = {pool.submit(_run_named, c.name, n, seed): c for c in order}   # workers start here
    try:
        for future in as_completed(futures):
            finished(futures[future], future.result())
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)      # Ctrl-C reaches the workers too
        raise
    pool.shutdown()
    return [done[c.name] for c in selected]
