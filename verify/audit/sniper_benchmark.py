"""Known-answer suite: the 20 mechanisms of the DP-Sniper benchmark and the floating-point case.

Mechanisms of Bichsel et al., "DP-Sniper" (S&P'21; ``dpsniper/mechanisms``,
inputs of ``dpsniper/experiments/exp_default.py``), every one claiming eps = 0.1,
audited at 90% confidence (alpha = 0.1) on the same input patterns, written
here as compiled components (``fast.compiled_mechanism``) so that the audit
counts events inside compiled code.  Published figures (DD-Search with logistic
regression / MLP, two StatDP runs) are in ``verify/data/dpsniper_reference_results.csv``.

``python -m verify.audit.sniper_benchmark`` regenerates ``reports/audit_benchmark.md``.
"""
from __future__ import annotations

import argparse
import csv
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from dpbench import randomness as rng
from dpbench.engine.components import implements

from .fast import compiled_mechanism, emit
from .inputs import Domain

DATA = Path(__file__).resolve().parents[1] / "data" / "dpsniper_reference_results.csv"
CLAIMED_EPS = 0.1
ALPHA = 0.1                      # DP-Sniper's 90% confidence


# ------------------------------------------------------------------ mechanisms
class Laplace(NamedTuple):
    """x + Laplace(scale) per output entry, ``copies`` independent entries (LaplaceMechanism,
    LaplaceParallel, NoisyHist1/2).  The noise is the textbook float sampler
    scale * log(2u) / -scale * log(2 - 2u) of one uniform double (NumPy's legacy laplace)."""
    scale: float
    copies: int          # 0: one entry per input entry (histograms); k > 0: k copies of x[0]


@implements(emit, Laplace)
def _laplace_emit(mech, x, out):
    if mech.copies == 0:
        for j in range(x.shape[0]):
            out[j] = x[j] + rng.laplace(mech.scale)
    else:
        for j in range(mech.copies):
            out[j] = x[0] + rng.laplace(mech.scale)


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
        noise = rng.exponential(mech.scale) if mech.exponential else rng.laplace(mech.scale)
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
        rho = rng.laplace(3.0 / eps)
    elif v == SVT2:
        rho = rng.laplace(c / eps1)
    else:
        rho = rng.laplace(1.0 / eps1)
    count = 0
    aborted = False
    for j in range(x.shape[0]):
        if aborted:                  # every later output is the abort flag: skip its noise
            out[j] = -1000.0 if v == NUMERICAL else (-2000.0 if v == SVT3 else -1.0)
            continue
        if v == SVT1 or v == SVT2:
            m = x[j] + rng.laplace(2.0 * c / eps2)
        elif v == SVT3:
            m = x[j] + rng.laplace(c / eps2)
        elif v == SVT4 or v == SVT6:
            m = x[j] + rng.laplace(1.0 / eps2)
        elif v == SVT5:
            m = x[j]
        else:
            m = x[j] + rng.laplace(6.0 * c / eps)
        above = m >= rho + t
        if v == NUMERICAL:
            z = x[j] + rng.laplace(3.0 * c / eps)
            out[j] = z if above else 0.0
        elif v == SVT3:
            out[j] = m if above else -1000.0
        else:
            out[j] = 1.0 if above else 0.0
        if v == SVT2 and above:
            rho = rng.laplace(c / eps1)
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
        total += x[j] + rng.laplace(1.0 / mech.eps)
        out[j] = total


# ------------------------------------------------------------------ the suite
@dataclass
class Case:
    name: str                    # as in the DP-Sniper logs
    component: tuple
    output_dim: int
    domain: Domain
    n: int                       # certification samples per input
    n_select: int                # selection samples per input and pair
    features: tuple = ("auto",)
    note: str = ""
    true_eps: float | None = None    # the pair's exact eps where known (for the report)
    n_refine: int | None = None  # refinement outputs per input (None: the audit's n // 4)
    extra: dict = field(default_factory=dict)

    def mechanism(self):
        return compiled_mechanism(self.component, self.output_dim, name=self.name,
                                  claimed_eps=CLAIMED_EPS)


def cases(scale: float = 1.0) -> list[Case]:
    """The suite; ``scale`` multiplies every sample count (1.0: the report's settings)."""
    def n(v):
        return max(10_000, int(v * scale))
    e = CLAIMED_EPS
    f1 = Domain(1, -10, 10)
    f5c = Domain(5, -10, 10, componentwise=True)
    f10c = Domain(10, -10, 10, componentwise=True)
    i5 = Domain(5, 0, 10, integer=True)
    rap = Domain(1, -10, 10, integer=True)
    # n: certification outputs per input, sized so that the bound clears the published one
    # where that is reachable (rows that cannot reach it, see SHORTFALL, get less); the
    # selection (n_select per input and pair) only picks the pair and the statistic, the
    # refinement (r, fresh outputs of the chosen pair) picks the event
    return [
        Case("LaplaceMechanism", Laplace(1.0 / e, 1), 1, f1, n(5e8), n(2e6), n_refine=n(2e7), true_eps=0.1),
        Case("TruncatedGeometricMechanism", truncated_geometric(e, 5), 1, Domain(1, 0, 5, integer=True),
             n(1e8), n(1e6), n_refine=n(5e6), true_eps=math.log(1 + 2 ** -3)),
        Case("NoisyHist1", Laplace(1.0 / e, 0), 5, i5, n(1e8), n(2e6), n_refine=n(5e6), true_eps=0.1),
        Case("NoisyHist2", Laplace(e, 0), 5, i5, n(2e7), n(1e6), n_refine=n(2e6), true_eps=10.0),
        Case("ReportNoisyMax1", ReportNoisyMax(2.0 / e, False, False), 1, f5c, n(5e7), n(1e6),
             n_refine=n(5e6), true_eps=0.0946149),
        Case("ReportNoisyMax2", ReportNoisyMax(2.0 / e, True, False), 1, f5c, n(5e8), n(1e6),
             n_refine=n(1e7), true_eps=0.1),
        Case("ReportNoisyMax3", ReportNoisyMax(2.0 / e, False, True), 1, f5c, n(1e8), n(1e6),
             n_refine=n(1e7), true_eps=0.25),
        Case("ReportNoisyMax4", ReportNoisyMax(2.0 / e, True, True), 1, f5c, n(2e7), n(1e6),
             n_refine=n(2e6), true_eps=math.inf),
        Case("SparseVectorTechnique1", SparseVector(SVT1, e, 1, 0.5), 10, f10c, n(2e8), n(2e6),
             n_refine=n(1e7), true_eps=0.0885258),
        Case("SparseVectorTechnique2", SparseVector(SVT2, e, 1, 1.0), 10, f10c, n(1e8), n(2e6),
             n_refine=n(1e7)),
        Case("SparseVectorTechnique3", SparseVector(SVT3, e, 1, 1.0), 10, f10c, n(2e7), n(1e6),
             n_refine=n(1e7)),
        Case("SparseVectorTechnique4", SparseVector(SVT4, e, 1, 1.0), 10, f10c, n(3e7), n(1e6),
             n_refine=n(5e6), true_eps=0.1724707),
        Case("SparseVectorTechnique5", SparseVector(SVT5, e, 1, 1.0), 10, f10c, n(2e8), n(1e6),
             n_refine=n(5e6), true_eps=math.inf),
        Case("SparseVectorTechnique6", SparseVector(SVT6, e, 1, 1.0), 10, f10c, n(2e7), n(1e6),
             n_refine=n(1e7)),
        Case("Rappor", rappor(False), 20, rap, n(2e7), n(1e6), n_refine=n(2e6),
             true_eps=6 * math.log(0.5125 / 0.4875)),
        Case("OneTimeRappor", rappor(True), 20, rap, n(2e7), n(1e6), n_refine=n(2e6),
             true_eps=6 * math.log(0.525 / 0.475)),
        Case("LaplaceParallel", Laplace(1.0 / 0.005, 20), 20, f1, n(3e7), n(1e6), n_refine=n(3e6), true_eps=0.1),
        Case("SVT34Parallel", SVT34Parallel(e, 2, 1.0), 20, f10c, n(5e7), n(1e6), n_refine=n(1e7)),
        Case("PrefixSum", PrefixSum(e), 10, f10c, n(1e7), n(5e5), n_refine=n(2e6), true_eps=1.0),
        Case("NumericalSVT", SparseVector(NUMERICAL, e, 2, 1.0), 10, f10c, n(5e7), n(1e6), n_refine=n(1e7)),
        Case("FloatingPointLaplace", Laplace(1.0 / e, 1), 1, f1, n(2e7), n(1e6), n_refine=n(2e6),
             features=("bits4",),
             note="textbook Laplace (log of a uniform double), statistic: float bit pattern"),
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


def run_case(case: Case, seed: int = 0, progress: bool = False, keep_pairs=None):
    """(AuditResult, wall seconds, CPU seconds of all threads) of one known-answer case."""
    from .core import audit
    t0, c0 = time.perf_counter(), time.process_time()
    result = audit(case.mechanism(), eps=CLAIMED_EPS, alpha=ALPHA, n=case.n, n_select=case.n_select,
                   seed=seed, domain=case.domain, features=case.features, progress=progress,
                   keep_pairs=keep_pairs, n_refine=case.n_refine)
    return result, time.perf_counter() - t0, time.process_time() - c0


TOOLS = [("ddsearch_logreg", "DD-Search LR"), ("ddsearch_mlp", "DD-Search MLP"),
         ("statdp_run1", "StatDP 1"), ("statdp_run2", "StatDP 2")]


def report(rows, total_seconds: float, total_cpu: float, command: str, controls=None,
           controls_seconds=None) -> str:
    pub = published()
    lines = ["# Audit known-answer suite: the DP-Sniper benchmark", "",
             f"Regenerate with `{command}`.", "",
             "Every mechanism claims eps = 0.1; bounds are certified at 90% confidence (alpha = 0.1, "
             "Clopper-Pearson, union bound), on the input patterns of DP-Sniper's `exp_default.py`. "
             "`n` is certification outputs per input; `samples` counts every output drawn (selection "
             "over all pattern pairs, refinement of the event on fresh outputs of the chosen pair, "
             "certification on fresh outputs again). Published columns: eps lower bounds from "
             "DP-Sniper's reference logs (DD-Search with logistic regression / MLP, two StatDP runs); "
             "`best` is the largest of them. `true eps` is the exact eps of the mechanism on these "
             "inputs where it is known (closed form, or numerical integration for SVT1/SVT4 and "
             "ReportNoisyMax1; inf: not DP at all). `wall s` was measured on a 2-core machine shared "
             "with other jobs; `cpu s` is the CPU time of all threads (compilation included when the "
             "cache was cold), the steadier figure.", "",
             "| mechanism | ours eps_LB | best published | DD-Search LR | DD-Search MLP | StatDP 1 | StatDP 2 "
             "| true eps | n | samples | wall s | cpu s | samples/s (wall) | witness |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
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
                     + " | ".join(cells) + f" | {true} | {res.n:.0e} | {res.n_samples:.2e} | {secs:.1f} | "
                     f"{cpu:.1f} | {res.n_samples / secs:.2e} | x={_fmt(w['x'])}, x'={_fmt(w['x_prime'])}: "
                     f"{w['statistic']} |")
    whole = f"Whole suite: {total_seconds:.0f} s wall time, {total_cpu:.0f} s CPU time (all threads)"
    if controls_seconds:
        whole += (f", of which the known-answer rows {total_seconds - controls_seconds[0]:.0f} s wall / "
                  f"{total_cpu - controls_seconds[1]:.0f} s CPU and the catalog/controls table "
                  f"{controls_seconds[0]:.0f} s wall / {controls_seconds[1]:.0f} s CPU")
    lines += ["", whole + ".", ""]
    if short:
        lines.append("## Rows below the best published bound")
        lines.append("")
        for case, res, best in short:
            why = _shortfall_reason(case, res, best)
            lines.append(f"- **{case.name}**: {res.eps_lower_bound:.5f} vs {best:.5f}. {why}")
        lines.append("")
    if controls:
        lines += ["## dpbench mechanisms at their claims, and negative controls", "",
                  "n = 10^6 certification outputs per input, alpha = 1e-3, inputs searched over the "
                  "mechanism's input range (local randomisers: any two inputs are neighbours).", "",
                  "| mechanism | claim (eps, delta) | eps_LB at delta | p-value | verdict | witness event |",
                  "|---|---|---|---|---|---|"]
        for name, eps, delta, res, expect in controls:
            verdict = "violated" if res.violated else "holds"
            mark = "" if (res.violated == (expect == "violated")) else " **(unexpected)**"
            lines.append(f"| {name} | ({eps:g}, {delta:g}) | {res.eps_lower_bound:.4f} | {res.p_value:.3g} | "
                         f"{verdict}{mark} | {res.witness['event']} |")
        lines.append("")
    return "\n".join(lines)


def audit_controls(n: int = 1_000_000, seed: int = 0):
    """Every catalog mechanism at its claim (expected to hold) and every negative control
    (expected to be violated): rows (name, eps, delta, result, expectation)."""
    from .controls import CATALOG_SETTINGS, catalog_mechanism, negative_controls
    from .core import audit
    rows = []
    for name in sorted(CATALOG_SETTINGS):
        m = catalog_mechanism(name)
        rows.append((name, m.claimed_eps, m.claimed_delta,
                     audit(m, eps=m.claimed_eps, delta=m.claimed_delta, n=n, alpha=1e-3, seed=seed), "holds"))
    for c in negative_controls():
        rows.append((c.name, c.eps, c.delta, audit(c.mechanism, eps=c.eps, delta=c.delta, n=n, alpha=1e-3,
                                                   seed=seed), "violated"))
    return rows


def _fmt(v):
    if isinstance(v, float):
        return f"{v:g}"
    return "[" + ",".join(f"{a:g}" for a in np.asarray(v).ravel()) + "]"


#: why a row cannot reach the best published figure at the report's sample counts (computed
#: from the exact output laws: numerical integration for the SVTs, closed forms elsewhere)
SHORTFALL = {
    "SparseVectorTechnique4": (
        "The exact eps on the best pattern pair (1..1 vs 2,2,2,2,2,0,..,0) is 0.17247 (event: first "
        "TRUE at query 6, mass 0.0167; numerical integration), only 0.0006 above StatDP's 0.1719. A "
        "Clopper-Pearson bound on that event loses about 26.6/sqrt(n), so reaching 0.1719 needs "
        "n ~ 2e9 outputs per input (the suite uses 3e7: no feasible n reaches it)."),
    "OneTimeRappor": (
        "The exact eps is 0.60047 (6 Bloom bits differ between inputs 1 and 0, each ln(0.525/0.475)); "
        "the best event (all 6 bits favourable) has mass 0.021, so a Clopper-Pearson bound loses "
        "about 26.7/sqrt(n): reaching DP-Sniper's 0.5999 needs n ~ 2e9 per input (the suite uses 2e7)."),
    "Rappor": (
        "The exact eps is 0.30013 (6 differing Bloom bits, each ln(0.5125/0.4875)), below DP-Sniper's "
        "published 0.3008: no valid lower bound can reach that figure (their 90% bound did not hold "
        "on that run)."),
    "NoisyHist2": (
        "The exact eps of the one-above/one-below pairs is 10.0 (Laplace scale 0.1, shift 1), below "
        "StatDP's 10.0022, which no valid lower bound can reach; the row is 'near 10' as required."),
    "ReportNoisyMax2": (
        "The exact eps is 0.1 (event: argmax = the raised query, mass 0.2); the bound loses about "
        "6.8/sqrt(n), so StatDP's 0.0997 needs n ~ 4.2e8 per input."),
    "ReportNoisyMax3": (
        "The exact eps is 0.25 (event: max <= 0 on 0..0 vs 1..1, mass 1/32; the ratio is exactly "
        "e^0.25 below the threshold and falls off above it), 0.0012 above DP-Sniper's 0.2488. The "
        "Clopper-Pearson bound loses about 13/sqrt(n) on that event and more on the nearest "
        "quantile edge of the value, so reaching 0.2488 takes several 1e8 outputs per input (an "
        "earlier report at n = 4e8 still gave 0.24804); the suite uses 1e8 to stay in its time budget."),
}


def _shortfall_reason(case, res, best) -> str:
    if case.name in SHORTFALL:
        return SHORTFALL[case.name]
    if case.true_eps is not None and best > case.true_eps:
        return (f"The published figure exceeds the mechanism's exact eps on these inputs "
                f"({case.true_eps:.4f}), so no valid lower bound can reach it.")
    return ("Not analysed in closed form: the event search did not find an event as strong as the "
            "published one at this sample size.")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every sample count")
    parser.add_argument("--only", nargs="*", help="run only these mechanisms")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-controls", action="store_true", help="skip the dpbench catalog/controls table")
    parser.add_argument("--keep-pairs", type=int, help="quick pass over the input pairs, full selection "
                                                       "on this many (faster, noisier event choice)")
    parser.add_argument("--out", default="reports/audit_benchmark.md")
    args = parser.parse_args(argv)
    rows = []
    t0, c0 = time.perf_counter(), time.process_time()
    for case in cases(args.scale):
        if args.only and case.name not in args.only:
            continue
        res, secs, cpu = run_case(case, args.seed, keep_pairs=args.keep_pairs)
        print(f"{case.name:30s} eps_LB={res.eps_lower_bound:9.5f}  {secs:6.1f}s wall {cpu:6.1f}s cpu  "
              f"{res.witness['statistic']}", flush=True)
        rows.append((case, res, secs, cpu))
    t1, c1 = time.perf_counter(), time.process_time()
    controls = None if (args.no_controls or args.only) else audit_controls(seed=args.seed)
    controls_seconds = (time.perf_counter() - t1, time.process_time() - c1) if controls else None
    total, total_cpu = time.perf_counter() - t0, time.process_time() - c0
    cmd = ("python -m verify.audit.sniper_benchmark" + (f" --scale {args.scale:g}" if args.scale != 1 else "")
           + (f" --keep-pairs {args.keep_pairs}" if args.keep_pairs else ""))
    text = report(rows, total, total_cpu, cmd, controls, controls_seconds)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    print(f"wrote {args.out} ({total:.0f} s wall, {total_cpu:.0f} s cpu for the suite, controls included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
