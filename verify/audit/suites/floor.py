"""The statistical floor of a certified eps lower bound, from a mechanism's exact law.

**Floor.**  For a pair of inputs (x, x'), a target bound ``eps_lb`` and a level ``alpha``, the
floor is the smallest number n of outputs *per input* at which some event S of a family, at its
true frequencies p = P[M(x) in S] and q = P[M(x') in S], reaches the target with the audit's own
certification statistic (``statistics.certifier_for(delta)``: the exact conditional test on
Poisson counts at delta = 0, Clopper-Pearson at alpha / 2 per side otherwise), evaluated at the
expected counts p n and q n.  The minimum is over the events of the family
and both orders of the pair.  It is what a perfect selection would need for certification alone
(no samples spent choosing the event): the samples an audit used for the same bound, divided by
the floor, measure what selection and a suboptimal event cost.

Families: every subset of the outputs for a discrete law (its likelihood-ratio upper sets when
there are more than 12 outcomes); for a scalar continuous law, every interval (a, b] and its
complement (tails included), endpoints on quantile grids refined around the best event.

Laws (:func:`row_law`) are the exact-arithmetic laws of the known-answer rows where they are cheap
and exact: Laplace noise on one differing coordinate (LaplaceMechanism, NoisyHist1/2), the
truncated geometric pmf, report-noisy-argmax (ReportNoisyMax1/2, by quadrature), the noisy max
value (ReportNoisyMax3/4: the CDF is a product), and RAPPOR's report on the Bloom-filter bits where
the two inputs differ (the events of the family are sets of those bits' values; the other bits
have the same law under both inputs), the sparse-vector variants whose answers are bits
(SVT1/2/4 with one answer above, SVT5, SVT6: an integral over the noisy threshold).  The rows'
2^-32 noise lattice is ignored (it moves frequencies by about 1e-9).  Any other row has no law here.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product

import numpy as np
from scipy import integrate, stats

from .. import statistics as st

#: events whose exact floor is computed, the best of the family by the normal approximation
SHORTLIST = 64


def samples_for_bound(p, q, eps_lb: float, alpha: float, delta: float = 0.0, n_max: float = 1e15):
    """The smallest n per input (to 1%) at which an event of true frequencies p (under x) and q
    (under x') certifies ``eps_lb`` at the expected counts; inf where none up to ``n_max`` can
    (the ratio ln((p - delta) / q) is not above the target).  Vectorised over p and q."""
    p, q = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(q, dtype=float))

    bound = st.certifier_for(delta).bound

    def reached(n):
        return bound(p * n, n, q * n, n, alpha, delta) >= eps_lb

    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where((p - delta > 0) & (q >= 0), np.log(np.maximum(p - delta, 1e-320)) - np.log(q), -np.inf)
    ok = (ratio > eps_lb) & reached(np.full(p.shape, n_max))
    lo, hi = np.zeros(p.shape), np.log(np.full(p.shape, n_max))
    while np.any(ok & (hi - lo > 0.005)):              # bisection on ln n, to 0.5 %
        mid = 0.5 * (lo + hi)
        r = reached(np.exp(mid))
        hi, lo = np.where(r, mid, hi), np.where(r, lo, mid)
    out = np.where(ok, np.ceil(np.exp(hi)), np.inf)
    return out if out.ndim else float(out)


@dataclass(frozen=True)
class Discrete:
    """A discrete law of the pair: ``p[i]``, ``q[i]`` the probabilities of outcome ``labels[i]``."""
    p: np.ndarray
    q: np.ndarray
    labels: tuple


@dataclass(frozen=True)
class Scalar:
    """A scalar continuous law of the pair: CDFs and quantile functions under x and x'."""
    cdf_x: Callable
    cdf_x_prime: Callable
    ppf_x: Callable
    ppf_x_prime: Callable


@dataclass(frozen=True)
class Floor:
    """The floor of one bound: samples per input, the best event and its true frequencies."""
    n: float
    event: str
    p: float
    q: float


def floor(law, eps_lb: float, alpha: float, delta: float = 0.0) -> Floor:
    """The floor (module docstring) of ``eps_lb`` at ``alpha`` for a :class:`Discrete` or
    :class:`Scalar` law, with the best event of its family."""
    if isinstance(law, Discrete):
        return _floor_discrete(law, eps_lb, alpha, delta)
    return _floor_scalar(law, eps_lb, alpha, delta)


def reach_chance(law, target: float, n: float, alpha: float, delta: float = 0.0, *, draws: int = 4000,
                 seed: int = 0) -> tuple[float, Floor]:
    """(chance, best event): the fraction of ``draws`` simulated certifications at n outputs per
    input in which the best event of the family for ``target`` (:func:`floor`), at its exact
    frequencies, certifies at least ``target`` with the audit's own certifier (Poisson(n)
    outputs at delta = 0, exactly n otherwise).  What a perfect selection could expect at this n:
    a chance near 1/2 at the floor, near 0 far below it."""
    best = floor(law, target, alpha, delta)
    if not math.isfinite(best.n):
        return 0.0, best
    rng = np.random.default_rng(seed)
    cert = st.certifier_for(delta)
    if cert.poisson:
        m1, m2 = rng.poisson(n, draws), rng.poisson(n, draws)
    else:
        m1 = m2 = np.full(draws, int(n))
    k1, k2 = rng.binomial(m1, best.p), rng.binomial(m2, best.q)
    return float(np.mean(cert.bound(k1, m1, k2, m2, alpha, delta) >= target)), best


def over_ratio_chance(law, ratio: float, n: float, alpha: float, delta: float = 0.0, *,
                      draws: int = 4000, seed: int = 0) -> tuple[float, float]:
    """(bound, chance): the bound whose floor is n / ``ratio`` outputs per input, and the chance that
    a perfect audit at n outputs per input certifies less than it, so that its samples are more than
    ``ratio`` times the floor of the bound it certified.  The perfect audit here knows, for every
    target, the best event of the family (:func:`reach_chance`), so the chance is a lower bound for
    any audit: near the floor the bound grows slowly with n, and the counts' own luck moves the
    ratio by a factor of several.  NaN where no bound has that floor (a law with no event above 0)."""
    target = n / ratio

    def reached(eps_lb):                 # the floor is increasing in the bound (inf above the law's eps)
        return floor(law, eps_lb, alpha, delta).n >= target

    hi = 1e-3
    while not reached(hi):
        hi *= 2.0
        if hi > 1e3:
            return math.nan, math.nan
    lo = 0.0 if hi == 1e-3 else hi / 2.0
    for _ in range(24):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if reached(mid) else (mid, hi)
    chance, _ = reach_chance(law, lo, n, alpha, delta, draws=draws, seed=seed)
    return lo, 1.0 - chance


def _best(p, q, eps_lb, alpha, delta, name):
    """The best of events with frequencies (p, q) under (x, x'), either order of the pair."""
    both_p, both_q = np.concatenate([p, q]), np.concatenate([q, p])
    keep = 0.0 if st.certifier_for(delta).poisson else 1.0  # Poisson counts: variance n p, not n p (1 - p)
    with np.errstate(divide="ignore", invalid="ignore"):   # normal approximation, to rank events
        margin = np.log(np.maximum(both_p - delta, 0.0)) - np.log(both_q) - eps_lb
        approx = np.where(margin > 0, ((1 - keep * both_p) / both_p + (1 - keep * both_q) / both_q) / margin ** 2,
                          np.inf)
    never = (both_q == 0) & (both_p > delta)            # never under the other input: no normal approximation
    top = np.argsort(np.where(never, np.inf, np.nan_to_num(approx, nan=np.inf)))[:SHORTLIST]
    if never.any():                 # of these, the likeliest certifies the most at every n: it alone is a candidate
        top = np.append(top, np.flatnonzero(never)[np.argmax(both_p[never])])
    n = np.full(len(both_p), np.inf)
    n[top] = samples_for_bound(both_p[top], both_q[top], eps_lb, alpha, delta)
    i = int(np.argmin(n))
    order = "x, x'" if i < len(p) else "x', x"
    return Floor(float(n[i]), f"{name(i % len(p))} (order {order})", float(both_p[i]), float(both_q[i]))


def _floor_discrete(law: Discrete, eps_lb, alpha, delta) -> Floor:
    k = len(law.p)
    if k <= 12:
        masks = np.array([m for m in product((0, 1), repeat=k) if any(m)], dtype=bool)
    else:                                              # likelihood-ratio upper sets, both ways
        with np.errstate(divide="ignore", invalid="ignore"):
            order = np.argsort(np.log(law.p) - np.log(law.q))
        masks = np.zeros((2 * k, k), dtype=bool)
        for j in range(k):
            masks[j, order[k - 1 - j:]] = True
            masks[k + j, order[:j + 1]] = True
    p, q = masks @ law.p, masks @ law.q
    possible = (law.p > 0) | (law.q > 0)                # outcomes of mass 0 are left out of the name
    return _best(p, q, eps_lb, alpha, delta,
                 lambda i: "output in {" + ", ".join(str(law.labels[j])
                                                     for j in np.flatnonzero(masks[i] & possible)) + "}")


def _floor_scalar(law: Scalar, eps_lb, alpha, delta) -> Floor:
    u = np.concatenate([np.geomspace(1e-9, 0.5, 40), 1 - np.geomspace(1e-9, 0.5, 40)[::-1]])
    grid = np.unique(np.concatenate([law.ppf_x(u), law.ppf_x_prime(u)]))
    best = None
    for _ in range(4):                                 # zoom in around the best endpoints
        ends = np.concatenate([[-np.inf], grid, [np.inf]])
        a, b = np.meshgrid(ends, ends, indexing="ij")
        keep = a < b
        a, b = a[keep], b[keep]
        pa, pb = law.cdf_x(a), law.cdf_x(b)
        qa, qb = law.cdf_x_prime(a), law.cdf_x_prime(b)
        p = np.concatenate([pb - pa, 1 - (pb - pa)])
        q = np.concatenate([qb - qa, 1 - (qb - qa)])
        m = len(a)
        cand = _best(p, q, eps_lb, alpha, delta,
                     lambda i, a=a, b=b, m=m: (f"output in ({a[i % m]:.6g}, {b[i % m]:.6g}]" if i < m
                                               else f"output not in ({a[i % m]:.6g}, {b[i % m]:.6g}]"))
        best = cand if best is None or cand.n < best.n else best
        finite = np.sort(grid)
        spread = (finite[-1] - finite[0]) / len(finite)
        centres = [v for v in _endpoints(best.event) if math.isfinite(v)]
        if not centres:
            break
        grid = np.unique(np.concatenate([c + spread * np.linspace(-2, 2, 41) for c in centres]))
    return best


def _endpoints(event: str):
    inner = event[event.index("(") + 1:event.index("]")]
    return [float(v) for v in inner.split(",")]


# ------------------------------------------------------------------ the rows' laws
#: exact laws computed so far, by (row, x, x'): a report asks for a short row's law twice
_LAWS: dict = {}


def row_law(case, x, x_prime):
    """The exact law of a known-answer row's mechanism on (x, x') (module docstring), or None."""
    x, xp = np.atleast_1d(np.asarray(x, dtype=float)), np.atleast_1d(np.asarray(x_prime, dtype=float))
    key = (case.name, x.tobytes(), xp.tobytes())
    if key not in _LAWS:
        _LAWS[key] = _row_law(case, x, xp)
    return _LAWS[key]


def _row_law(case, x, xp):
    from . import sniper as sn
    comp = case.component
    if isinstance(comp, sn.Laplace) and comp.float_safe:
        if comp.copies == 1 or (comp.copies == 0 and np.count_nonzero(x != xp) == 1):
            j = 0 if comp.copies == 1 else int(np.flatnonzero(x != xp)[0])
            d1, d2 = stats.laplace(x[j], comp.scale), stats.laplace(xp[j], comp.scale)
            return Scalar(d1.cdf, d2.cdf, d1.ppf, d2.ppf)
        return None
    if isinstance(comp, sn.TruncatedGeometric):
        return Discrete(_geometric_pmf(comp, int(x[0])), _geometric_pmf(comp, int(xp[0])),
                        tuple(range(comp.n + 1)))
    if isinstance(comp, sn.ReportNoisyMax) and not comp.value:
        return Discrete(_argmax_pmf(x, comp.scale, comp.exponential),
                        _argmax_pmf(xp, comp.scale, comp.exponential), tuple(range(len(x))))
    if isinstance(comp, sn.ReportNoisyMax):
        return _max_law(x, xp, comp.scale, comp.exponential)
    if isinstance(comp, sn.Rappor):
        return _rappor_law(comp, int(x[0]), int(xp[0]))
    if isinstance(comp, sn.SparseVector):
        return _svt_law(comp, x, xp)
    return None


def _svt_law(mech, x, xp) -> Discrete | None:
    """The sparse-vector variants without a numeric output (SVT1, SVT2 and SVT4 with c = 1, SVT5,
    SVT6): given the noisy threshold r, the queries answer independently, so the law of the answers
    is an integral over r (``quad_vec``).  With c = 1 an answer vector is the first query above
    (or none); without an abort (SVT5/6) it is one of the 2^d bit vectors."""
    from . import sniper as sn
    v = mech.variant
    if v in (sn.SVT3, sn.NUMERICAL) or (v in (sn.SVT1, sn.SVT2, sn.SVT4) and mech.c != 1):
        return None
    eps1 = mech.eps / 4.0 if v == sn.SVT4 else mech.eps / 2.0
    eps2 = mech.eps - eps1
    rho = stats.laplace(scale=(mech.c / eps1) if v == sn.SVT2 else 1.0 / eps1)
    nu = stats.laplace(scale={sn.SVT1: 2.0 * mech.c / eps2, sn.SVT2: 2.0 * mech.c / eps2}.get(v, 1.0 / eps2))
    d, abort = len(x), v in (sn.SVT1, sn.SVT2, sn.SVT4)
    masks = None if abort else np.array(list(product((0, 1), repeat=d)), dtype=bool)

    def answers(values, r):
        above = (values >= r + mech.t).astype(float) if v == sn.SVT5 else nu.sf(r + mech.t - values)
        if abort:
            below = np.concatenate([[1.0], np.cumprod(1.0 - above)])
            return np.concatenate([below[:-1] * above, below[-1:]])
        return np.prod(np.where(masks, above, 1.0 - above), axis=1)

    def law(values):
        width = 60 * rho.std()
        return integrate.quad_vec(lambda r: rho.pdf(r) * answers(values, r), -width, width,
                                  points=sorted({0.0, *(values - mech.t)}), epsabs=1e-14, limit=2000)[0]
    if abort:
        labels = tuple(f"first above at query {j}" for j in range(d)) + ("none above",)
    else:
        labels = tuple("answers " + "".join(str(int(b)) for b in m) for m in masks)
    return Discrete(law(x), law(xp), labels)


def _max_law(x, xp, scale: float, exponential: bool) -> Scalar:
    """The law of max_j (x_j + noise_j): CDF the product of the noises' CDFs; quantiles by
    interpolation on a fine grid of the CDF."""
    noise = stats.expon(scale=scale) if exponential else stats.laplace(scale=scale)

    def cdf_of(v):
        return lambda t: np.prod([noise.cdf(np.asarray(t, dtype=float) - c) for c in v], axis=0)

    def ppf_of(cdf):
        lo = min(x.min(), xp.min()) - (0.0 if exponential else 40 * scale)
        t = np.linspace(lo, max(x.max(), xp.max()) + 40 * scale, 200_001)
        c = cdf(t)
        keep = np.concatenate([[True], np.diff(c) > 0])
        return lambda u: np.interp(u, c[keep], t[keep])
    cx, cxp = cdf_of(x), cdf_of(xp)
    return Scalar(cx, cxp, ppf_of(cx), ppf_of(cxp))


def _rappor_law(mech, v: int, vp: int) -> Discrete | None:
    """RAPPOR's report on the Bloom-filter bits where inputs v and vp differ (the other bits have
    the same law under both and are independent of these); None when no bit differs."""
    a, b = mech.bloom[v - mech.low], mech.bloom[vp - mech.low]
    bits = np.flatnonzero(a != b)
    if len(bits) == 0:
        return None
    if mech.one_time:
        one = [mech.f / 2, mech.f / 2 + 1 - mech.f]                  # P[report 1 | bloom bit 0, 1]
    else:
        base = mech.f / 2 * (mech.p + mech.q)
        one = [base + (1 - mech.f) * mech.p, base + (1 - mech.f) * mech.q]
    outcomes = list(product((0, 1), repeat=len(bits)))

    def pmf(row):
        return np.array([np.prod([one[int(row[j])] if o else 1 - one[int(row[j])] for j, o in zip(bits, out)])
                         for out in outcomes])
    labels = tuple("bits " + ",".join(str(int(j)) for j in bits) + " = " + "".join(map(str, o)) for o in outcomes)
    return Discrete(pmf(a), pmf(b), labels)


def _geometric_pmf(mech, c: int) -> np.ndarray:
    """P[Z = z], z = 0..n, of GeoSample at input c, from its integer CDF (exact fractions)."""
    two_k = 1 << mech.k
    cdf = []
    for j in range(mech.n):
        if j < c:
            cdf.append(two_k ** (c - j) * (two_k + 1) ** (mech.n - (c - j)))
        else:
            cdf.append(mech.d - two_k ** (j - c + 1) * (two_k + 1) ** (mech.n - 1 - (j - c)))
    cdf.append(mech.d)
    return np.diff([0] + cdf) / mech.d


def _argmax_pmf(x, scale: float, exponential: bool) -> np.ndarray:
    """P[argmax_j (x_j + noise_j) = j] with i.i.d. Laplace or Exponential noise of ``scale``."""
    noise = stats.expon(scale=scale) if exponential else stats.laplace(scale=scale)
    out = np.empty(len(x))
    lo, hi = x.min() - (0 if exponential else 60 * scale), x.max() + 60 * scale
    for j in range(len(x)):
        def f(t, j=j):
            others = np.prod([noise.cdf(t - x[k]) for k in range(len(x)) if k != j])
            return noise.pdf(t - x[j]) * others
        out[j] = integrate.quad(f, lo, hi, points=sorted(set(x)), limit=400, epsabs=1e-13)[0]
    return out / out.sum()
