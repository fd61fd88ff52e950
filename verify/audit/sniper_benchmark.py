"""Known-answer suite: the 20 mechanisms of the DP-Sniper benchmark and the floating-point case.

Mechanisms of Bichsel et al., "DP-Sniper" (S&P'21; ``dpsniper/mechanisms``,
inputs of ``dpsniper/experiments/exp_default.py``), every one claiming eps = 0.1,
audited at 90% confidence (alpha = 0.1) on the same input patterns, written
here as compiled components (``fast.compiled_mechanism``) so that the audit
counts events inside compiled code.  Published figures (DD-Search with logistic
regression / MLP, two StatDP runs) are in ``verify/data/dpsniper_reference_results.csv``.

``dpbench audit-suite`` regenerates ``reports/audit_benchmark.md`` and ``dpbench audit-suite
--planted-only`` ``reports/audit_planted.md``.
"""
from __future__ import annotations

import csv
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from dpbench import randomness as rng
from dpbench.engine.caching import cached_njit
from dpbench.engine.components import implements

from .controls import LATTICE
from .core import SELECT_MAX, SELECT_MIN
from .fast import compiled_mechanism, emit
from .inputs import Domain

DATA = Path(__file__).resolve().parents[1] / "data" / "dpsniper_reference_results.csv"
CLAIMED_EPS = 0.1
ALPHA = 0.1                      # DP-Sniper's 90% confidence


# ------------------------------------------------------------------ mechanisms
# The mechanisms add noise rounded to a lattice of 2^-32 (verify.audit.controls.LATTICE;
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
    from .core import audit
    t0, c0 = time.perf_counter(), time.process_time()
    result = audit(case.mechanism(), eps=CLAIMED_EPS, alpha=ALPHA, n=n, seed=seed, domain=case.domain,
                   progress=progress)
    return result, time.perf_counter() - t0, time.process_time() - c0


TOOLS = [("ddsearch_logreg", "DD-Search LR"), ("ddsearch_mlp", "DD-Search MLP"),
         ("statdp_run1", "StatDP 1"), ("statdp_run2", "StatDP 2")]


def report(rows, n: int, seconds: tuple, command: str, controls=None, planted=None) -> str:
    """The markdown report: the suite's rows, their shortfalls, the dpbench catalog and
    negative controls, and the planted bug classes.  ``seconds``: (suite wall, suite CPU,
    controls wall, controls CPU, planted wall, planted CPU)."""
    pub = published()
    lines = ["# Audit known-answer suite: the DP-Sniper benchmark", "",
             f"Regenerate with `{command}` (one line; add `--no-controls` for the suite alone).", "",
             "Every mechanism claims eps = 0.1; bounds are certified at 90% confidence (alpha = 0.1, "
             "Clopper-Pearson, union bound), on the input patterns of DP-Sniper's `exp_default.py`. "
             f"**One configuration for every row**: the default audit (the same statistics, no "
             f"per-row features) with the suite's one sample budget, n = {n:.0e} certification "
             "outputs per input (`SUITE_N`); selection and refinement follow the audit's default rules "
             f"(n_select = n // 8 within [{SELECT_MIN:.0e}, {SELECT_MAX:.0e}] per input and pair, "
             "n_refine = n // 4 on the chosen pair, once more for a rare-event nominee). `samples` "
             "counts every output drawn. The mechanisms add noise on a lattice of 2^-32 (Mironov's fix) "
             "so that the code that runs has the law of the published mechanism; "
             "FloatingPointLaplace is the textbook float sampler, which is not DP at all. Published "
             "columns: eps lower bounds from DP-Sniper's reference logs (DD-Search with logistic "
             "regression / MLP, two StatDP runs); `best` is the largest of them. `true eps` is the "
             "exact eps of the mechanism on these inputs where known (inf: not DP). `wall s` was "
             "measured on a 2-core machine shared with other jobs; `cpu s` is the CPU time of all "
             "threads (compilation included when the cache was cold), the steadier figure.", "",
             "| mechanism | ours eps_LB | best published | DD-Search LR | DD-Search MLP | StatDP 1 | StatDP 2 "
             "| true eps | samples | wall s | cpu s | witness |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    short = []
    for case, res, secs, cpu in rows:
        p = pub.get(case.name, {})
        vals = [p.get(t, {}).get("eps_lcb") for t, _ in TOOLS]
        best = max([v for v in vals if v is not None], default=float("nan"))
        cells = ["" if v is None else f"{v:.5f}" for v in vals]
        ok = res.eps_lower_bound >= best
        if not ok:
            short.append((case, res, best))
        true = "" if case.true_eps is None else ("inf" if math.isinf(case.true_eps) else f"{case.true_eps:.5f}")
        w = res.witness
        lines.append(f"| {case.name} | **{res.eps_lower_bound:.5f}**{'' if ok else ' (short)'} | {best:.5f} | "
                     + " | ".join(cells) + f" | {true} | {res.n_samples:.2e} | {secs:.1f} | {cpu:.1f} | "
                     f"x={_fmt(w['x'])}, x'={_fmt(w['x_prime'])}: {_short(w['event'])} |")
    wall, cpu = seconds[0], seconds[1]
    lines += ["", f"Known-answer rows: {wall:.0f} s wall time, {cpu:.0f} s CPU time (all threads), "
                  f"{len(rows)} rows.", ""]
    if short:
        lines += ["## Rows below the best published bound", "",
                  "Computed from each row's result: the certified event's frequencies p(x), p(x') and "
                  "the n per input at which that event's bound would reach the published figure "
                  "(expected counts), or why no n can.", ""]
        for case, res, best in short:
            lines.append(f"- **{case.name}**: {res.eps_lower_bound:.5f} vs {best:.5f} "
                         f"(short by {best - res.eps_lower_bound:.5f}). {_shortfall_reason(case, res, best)}")
        lines.append("")
    if controls:
        lines += ["## dpbench mechanisms at their claims, and negative controls", "",
                  "n = 10^6 certification outputs per input, alpha = 1e-3, inputs searched over the "
                  "mechanism's input range (local randomisers: any two inputs are neighbours). `default`: "
                  "the default audit, which also reads the floating-point granularity of the outputs; "
                  "`law`: the statistics of `controls.LAW_FEATURES` (no granularity), which audit the "
                  "mechanism as if its arithmetic were exact. Every catalog mechanism that adds noise does "
                  "it on a power-of-two lattice (DP as implemented); its paper-literal form, which adds "
                  "Laplace or Gaussian noise in plain floating point (`arithmetic=float`, "
                  "`controls.FLOAT_FORMS`), is not DP as implemented, and its law holds; the "
                  "negative controls are audited with the features of the mechanism they break, so "
                  "that they test their planted bug.", "",
                  "| mechanism | claim (eps, delta) | expected | audit | eps_LB at delta | p-value | verdict "
                  "| witness event |", "|---|---|---|---|---|---|---|---|"]
        for name, eps, delta, which, res, expect in controls:
            verdict = "violated" if res.violated else "holds"
            mark = "" if (res.violated == (expect == "violated")) else " **(unexpected)**"
            lines.append(f"| {name} | ({eps:g}, {delta:g}) | {expect} | {which} | {res.eps_lower_bound:.4f} | "
                         f"{res.p_value:.3g} | {verdict}{mark} | {_short(res.witness['event'])} |")
        lines += ["", f"Catalog and controls: {seconds[2]:.0f} s wall, {seconds[3]:.0f} s CPU.", ""]
    if planted:
        lines += planted_section(planted, seconds[4], seconds[5])
    return "\n".join(lines)


def planted_section(planted, wall: float, cpu: float) -> list[str]:
    """Markdown lines of the planted-bug table: rows (case, buggy result, fixed result)."""
    lines = ["## Planted bugs by class: caught by the default audit, passed once fixed", "",
             "Mechanisms written from textbook formulas and published bug classes "
             "(`verify.audit.controls.planted_bugs`), audited as a new user would: n = 2e6, "
             "alpha = 0.01, every other argument at its default. `fixed`: the same mechanism with "
             "the bug removed (floating point: input and noise on the 2^-32 lattice).", "",
             "| class | case | claim | buggy eps_LB | caught | fixed eps_LB | fixed passes | "
             "delta_floor | witness event (buggy) |", "|---|---|---|---|---|---|---|---|---|"]
    for case, bad, good in planted:
        lines.append(f"| {case.bug_class} | {case.name}: {case.why} | ({case.eps:g}, {case.delta:g}) | "
                     f"{bad.eps_lower_bound:.3f} | {'yes' if bad.violated else '**no**'} | "
                     f"{good.eps_lower_bound:.3f} | {'yes' if not good.violated else '**no**'} | "
                     f"{bad.delta_floor:.2g} | {_short(bad.witness['event'])} |")
    caught = sum(bad.violated for _, bad, _ in planted)
    passed = sum(not good.violated for _, _, good in planted)
    lines += ["", f"Caught {caught} of {len(planted)} bugs; {passed} of {len(planted)} fixed versions pass "
                  f"(each fixed version is a correct mechanism: at alpha = 0.01 a sound audit flags it with "
                  f"probability at most 0.01). Planted bugs: {wall:.0f} s wall, {cpu:.0f} s CPU.", ""]
    return lines


def _short(text: str, limit: int = 160) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def audit_controls(n: int = 1_000_000, seed: int = 0):
    """Every catalog mechanism at its claim (its law holds; float-unsafe samplers also under the
    default audit, which must catch them) and every negative control (expected to be
    violated): rows (name, eps, delta, audit features, result, expectation)."""
    from .controls import (
        CATALOG_SETTINGS,
        FLOAT_FORMS,
        FLOAT_UNSAFE,
        LAW_FEATURES,
        catalog_mechanism,
        float_form,
        negative_controls,
    )
    from .core import audit
    rows = []
    forms = [(name, catalog_mechanism(name)) for name in sorted(CATALOG_SETTINGS)]
    forms += [(f"{name} (arithmetic=float)", float_form(name)) for name in sorted(FLOAT_FORMS)]
    for name, m in forms:
        runs = [("default", ("auto",), "violated" if m.float_unsafe or name in FLOAT_UNSAFE else "holds")]
        if m.float_unsafe:
            runs.append(("law", LAW_FEATURES, "holds"))
        for which, features, expect in runs:
            rows.append((name, m.claimed_eps, m.claimed_delta, which,
                         audit(m, eps=m.claimed_eps, delta=m.claimed_delta, n=n, alpha=1e-3, seed=seed,
                               features=features), expect))
    for c in negative_controls():
        rows.append((c.name, c.eps, c.delta, "default" if c.features == ("auto",) else "law",
                     audit(c.mechanism, eps=c.eps, delta=c.delta, n=n, alpha=1e-3, seed=seed,
                           features=c.features), "violated"))
    return rows


def audit_planted(n: int = 2_000_000, alpha: float = 0.01, seed: int = 1):
    """Every planted bug of ``controls.planted_bugs`` and its fix, as a new user audits them:
    rows (case, result of the buggy mechanism, result of the fixed one)."""
    from .controls import planted_bugs
    from .core import audit
    return [(c, audit(c.mechanism, c.x, c.x_prime, eps=c.eps, delta=c.delta, n=n, alpha=alpha, seed=seed),
             audit(c.fixed, c.x, c.x_prime, eps=c.eps, delta=c.delta, n=n, alpha=alpha, seed=seed))
            for c in planted_bugs()]


def _fmt(v):
    if isinstance(v, float):
        return f"{v:g}"
    return "[" + ",".join(f"{a:g}" for a in np.asarray(v).ravel()) + "]"


def _shortfall_reason(case, res, best) -> str:
    """Why a row is below the published figure, computed from its result."""
    from . import statistics as st
    if case.true_eps is not None and best > case.true_eps:
        return (f"The published figure exceeds the mechanism's exact eps on these inputs "
                f"({case.true_eps:.5f}), so no valid lower bound can reach it.")
    w, n = res.witness, res.n
    p1, p2 = w["count_x"] / n, w["count_x_prime"] / n
    ratio = math.log(p1 / p2) if p1 > 0 and p2 > 0 else math.inf
    event = f"The certified event ({_short(w['event'], 80)}) has p(x) = {p1:.4g}, p(x') = {p2:.4g}"
    if ratio <= best:
        return (f"{event}, ratio ln(p(x)/p(x')) = {ratio:.5f}: below the published figure at any n; "
                f"the selection chose a weaker event than the published one"
                + (f" (exact eps {case.true_eps:.5f})." if case.true_eps is not None else "."))
    need = n
    while st.eps_bound(p1 * need, need, p2 * need, need, res.alpha, res.delta) < best and need < 1e13:
        need *= 2
    lo, hi = need // 2, need
    while hi - lo > max(1, lo // 100):
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if st.eps_bound(p1 * mid, mid, p2 * mid, mid, res.alpha, res.delta) < best else (lo, mid)
    return (f"{event}; its Clopper-Pearson bound reaches {best:.5f} at n = {hi:.2g} per input "
            f"({hi / n:.1f} times the suite's budget).")


def command(scale: float = 1.0, seed: int = 0, planted_only: bool = False) -> str:
    """The ``dpbench audit-suite`` command line that regenerates a report of these settings."""
    return ("dpbench audit-suite" + (" --planted-only" if planted_only else "")
            + (f" --scale {scale:g}" if scale != 1 else "") + (f" --seed {seed}" if seed else ""))


def write_planted(out, seed: int = 0) -> tuple[float, float]:
    """Audit every planted bug and its fix and write the table to ``out``; (wall, CPU) seconds."""
    t0 = time.perf_counter(), time.process_time()
    planted = audit_planted(seed=seed)
    wall, cpu = time.perf_counter() - t0[0], time.process_time() - t0[1]
    head = ["# Planted bugs: the default audit by bug class", "",
            f"Regenerate with `{command(seed=seed, planted_only=True)}`.", ""]
    Path(out).write_text("\n".join(head + planted_section(planted, wall, cpu)) + "\n")
    return wall, cpu


def write_suite(out, scale: float = 1.0, only=None, seed: int = 0, controls: bool = True) -> tuple:
    """Run the suite (the ``only`` mechanisms, or all with the catalog/controls and planted-bug
    tables unless ``controls`` is false) and write the report to ``out``; the seconds of each part
    (suite wall, suite CPU, controls wall, controls CPU, planted wall, planted CPU)."""
    rows = []
    n = max(10_000, int(SUITE_N * scale))

    def clock():
        return time.perf_counter(), time.process_time()

    t0 = clock()
    for case in cases():
        if only and case.name not in only:
            continue
        res, secs, cpu = run_case(case, n, seed)
        print(f"{case.name:30s} eps_LB={res.eps_lower_bound:9.5f}  {secs:6.1f}s wall {cpu:6.1f}s cpu  "
              f"{res.witness['statistic']}", flush=True)
        rows.append((case, res, secs, cpu))
    t1 = clock()
    extra = controls and not only
    control_rows = audit_controls(seed=seed) if extra else None
    t2 = clock()
    planted = audit_planted() if extra else None
    t3 = clock()
    seconds = tuple(b[i] - a[i] for a, b in ((t0, t1), (t1, t2), (t2, t3)) for i in (0, 1))
    text = report(rows, n, seconds, command(scale, seed), control_rows, planted)
    Path(out).write_text(text + "\n")
    return seconds

