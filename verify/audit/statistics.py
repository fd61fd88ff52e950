"""Counts to certified privacy statements: Clopper-Pearson bounds, p-values, resolution floors.

Notation: an event S was chosen *before* the certification samples were drawn;
``k1`` of ``n1`` outputs of M(x) and ``k2`` of ``n2`` outputs of M(x') fell in S.
With probability >= 1 - alpha (union bound, alpha/2 per side, as DP-Sniper and
Delta-Siege do),

    p1 >= p1_L = Beta^-1(alpha/2; k1, n1 - k1 + 1)
    p2 <= p2_U = Beta^-1(1 - alpha/2; k2 + 1, n2 - k2)

and an (eps, delta) claim on the pair requires p1 <= e^eps p2 + delta, so

    eps_LB(delta) = ln((p1_L - delta) / p2_U)           (anchors spec Sec. 3, item 2)

is a lower bound on the eps of the pair at confidence 1 - alpha.  The p-value
of H0 "(eps, delta)-DP holds on this pair" is the smallest alpha at which this
bound exceeds eps, so ``p_value <= alpha`` exactly when ``eps_LB > eps``.
There is no cap of the ln(1/c) kind: the only ceiling is what n samples can
resolve, reported by :func:`eps_ceiling` and :func:`certification_floor`.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special


# ------------------------------------------------------------ Clopper-Pearson
def cp_lower(k, n, a):
    """One-sided (1 - a) Clopper-Pearson lower bound of a binomial proportion (0 when k = 0)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = special.betaincinv(np.maximum(k, 1e-300), n - k + 1.0, a)
    return np.where(k <= 0, 0.0, out)


def cp_upper(k, n, a):
    """One-sided (1 - a) Clopper-Pearson upper bound of a binomial proportion (1 when k = n)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = special.betaincinv(k + 1.0, np.maximum(n - k, 1e-300), 1.0 - a)
    return np.where(k >= n, 1.0, out)


def eps_bound(k1, n1, k2, n2, alpha, delta=0.0):
    """Certified eps lower bound ln((p1_L - delta)/p2_U) at confidence 1 - alpha (-inf if vacuous)."""
    lo = cp_lower(k1, n1, alpha / 2.0) - delta
    hi = cp_upper(k2, n2, alpha / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(lo > 0.0, np.log(np.maximum(lo, 1e-320)) - np.log(hi), -np.inf)
    return out if out.ndim else float(out)


def delta_bound(k1, n1, k2, n2, alpha, eps):
    """Certified delta lower bound p1_L - e^eps p2_U at eps (confidence 1 - alpha)."""
    out = cp_lower(k1, n1, alpha / 2.0) - math.exp(eps) * cp_upper(k2, n2, alpha / 2.0)
    return out if np.ndim(out) else float(out)


def p_value(k1, n1, k2, n2, eps, delta=0.0):
    """p-value of H0 "p1 <= e^eps p2 + delta" for one pre-chosen event.

    The smallest alpha at which :func:`eps_bound` exceeds eps (bisection on
    log alpha; the bound grows with alpha).  1.0 if no alpha < 1 rejects.
    """
    def rejects(a):
        return eps_bound(k1, n1, k2, n2, a, delta) > eps

    if not rejects(1.0 - 1e-12):
        return 1.0
    lo, hi = -745.0, math.log(1.0 - 1e-12)      # log alpha: exp(-745) is the smallest double
    if rejects(math.exp(lo)):
        return 0.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if rejects(math.exp(mid)):
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-6:
            break
    return float(math.exp(hi))


class ClopperPearson:
    """How the audit certifies one pre-chosen event from its counts: :func:`eps_bound` and
    :func:`p_value` (fixed n, union of two one-sided Clopper-Pearson bounds).

    The audit's plan holds its certifier; another one (a joint test, a sequential e-value test
    over rounds of counts) offers the same two methods.
    """

    name = "Clopper-Pearson"

    def bound(self, k1, n1, k2, n2, alpha, delta=0.0) -> float:
        """Certified eps lower bound at confidence 1 - alpha (-inf if vacuous)."""
        return eps_bound(k1, n1, k2, n2, alpha, delta)

    def p_value(self, k1, n1, k2, n2, eps, delta=0.0) -> float:
        """p-value of H0 "(eps, delta)-DP holds on this event"."""
        return p_value(k1, n1, k2, n2, eps, delta)


#: the audit's default certifier
CLOPPER_PEARSON = ClopperPearson()


# ------------------------------------------------------------ ranking proxy
def approx_eps_bound(k1, n1, k2, n2, z, delta=0.0):
    """A fast, slightly conservative stand-in for :func:`eps_bound` used to *rank* many
    candidate events (square-root/Poisson approximations of the two Clopper-Pearson
    bounds, z the one-sided normal quantile).  Never used for a reported figure."""
    k1 = np.asarray(k1, dtype=np.float64)
    k2 = np.asarray(k2, dtype=np.float64)
    lo = np.square(np.maximum(np.sqrt(k1) - 0.5 * z, 0.0)) / n1 - delta
    hi = np.minimum(np.square(np.sqrt(k2 + 1.0) + 0.5 * z) / n2, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(lo > 0.0, np.log(np.maximum(lo, 1e-320)) - np.log(hi), -np.inf)


def one_sided_z(alpha: float) -> float:
    """Normal quantile z with P[Z > z] = alpha/2 (the per-side level of the union bound)."""
    return float(-special.ndtri(alpha / 2.0))


# ------------------------------------------------------------ resolution floors
def eps_ceiling(n: int, alpha: float) -> float:
    """The largest eps that n samples per input can ever certify at confidence 1 - alpha:
    every output of M(x) in S and none of M(x') (about ln(n / ln(2/alpha)))."""
    return eps_bound(n, n, 0, n, alpha, 0.0)


def certification_floor(n: int, alpha: float, eps: float, delta: float = 0.0) -> float:
    """The smallest probability mass of a violating event that certification on n samples
    can certify, once the event is known.

    A violation confined to an event S with P[M(x) in S] = d and P[M(x') in S] = 0 is
    certified only if at least d n of the n outputs of M(x) fall in S, where d n is the
    smallest count k with p1_L(k) - delta > e^eps p2_U(0); about
    (1 + e^eps) ln(2/alpha) / n + delta.  Violations on rarer events are invisible to any
    black-box audit with n samples (the "Curator attack" blind spot).  What an audit that
    must also *find* S achieves is larger: ``verify.audit.core.resolution_floor``.
    """
    k = min_count(lambda k: eps_bound(k, n, 0, n, alpha, delta) > eps, n)
    return 1.0 if k is None else k / n


def min_count(passes, limit: int) -> int | None:
    """The smallest count k in 1..limit with passes(k) (passes monotone in k), None if none."""
    if limit < 1 or not passes(limit):
        return None
    lo, hi = 1, limit
    while lo < hi:
        mid = (lo + hi) // 2
        if passes(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def stage_floor(stages, level: float = 0.5) -> float:
    """The smallest mass p at which an event occurring with probability p per output passes
    every stage with probability at least ``level``, where stage (k, m) needs at least k
    occurrences among m fresh outputs (independent Poisson counts; 1.0 if unreachable)."""
    from scipy.stats import poisson

    def chance(p):
        return math.prod(float(poisson.sf(k - 1, p * m)) for k, m in stages)

    if chance(1.0) < level:
        return 1.0
    lo, hi = -16.0, 0.0                              # bisection on log10 p
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if chance(10.0 ** mid) >= level else (mid, hi)
    return 10.0 ** hi


def min_samples_to_certify(eps: float, alpha: float) -> int:
    """The smallest n whose :func:`eps_ceiling` exceeds eps (so any violation could show)."""
    n = 1
    while eps_ceiling(n, alpha) <= eps:
        n *= 2
        if n > 2 ** 62:
            return n
    lo, hi = n // 2 + 1, n
    while lo < hi:
        mid = (lo + hi) // 2
        if eps_ceiling(mid, alpha) > eps:
            hi = mid
        else:
            lo = mid + 1
    return lo


def log_delta_grid(n: int, points: int = 25) -> np.ndarray:
    """A log grid of delta from about 1/(10 n) (below any floor) up to 0.5."""
    low = max(1e-12, 0.1 / max(n, 1))
    return np.logspace(math.log10(low), math.log10(0.5), points)


# ------------------------------------------------------------ stratified homogeneity
def stratified_excess(favoured, other, member, strata) -> float:
    """One-sided p-value that an event is more frequent under the favoured input *within strata*.

    ``favoured`` / ``other``: per-bin counts of certification outputs of the two inputs;
    ``member``: the bins of the event; ``strata``: a stratum label per bin.  H0: within every
    stratum, the event's share of the outputs is the same under both inputs (the inputs may
    differ in how often each stratum occurs).  The Cochran-Mantel-Haenszel statistic --
    observed minus expected favoured counts in the event, conditional on every stratum's
    margins (hypergeometric), with a continuity correction of 1/2 -- against the normal
    tail.  1.0 when no stratum can show a difference.
    """
    favoured, other = np.asarray(favoured, np.float64), np.asarray(other, np.float64)
    member = np.asarray(member, bool)
    _, group = np.unique(np.asarray([hash(s) for s in strata]), return_inverse=True)
    n1 = np.bincount(group, weights=favoured)
    n2 = np.bincount(group, weights=other)
    a = np.bincount(group, weights=np.where(member, favoured, 0.0), minlength=n1.size)
    m = a + np.bincount(group, weights=np.where(member, other, 0.0), minlength=n1.size)
    t = n1 + n2
    ok = t > 1
    expected = np.where(ok, n1 * m / np.maximum(t, 1.0), a)
    variance = np.where(ok, n1 * n2 * m * (t - m) / np.maximum(t * t * (t - 1.0), 1.0), 0.0)
    total_var = float(variance.sum())
    if total_var <= 0.0:
        return 1.0
    z = (float((a - expected).sum()) - 0.5) / math.sqrt(total_var)
    return float(special.ndtr(-z))
