"""Counts to certified privacy statements: two certifiers, ranking proxies, resolution floors.

Notation: an event S was chosen *before* the certification samples were drawn;
``k1`` outputs of M(x) and ``k2`` outputs of M(x') fell in S.  An (eps, delta) claim on the
pair requires p1 <= e^eps p2 + delta, where p1, p2 are the probabilities of S.  Two
certifiers turn the counts into a lower bound on eps and a p-value of the claim; the audit
uses :func:`certifier_for` (delta = 0: the conditional test; delta > 0: Clopper-Pearson).

**Clopper-Pearson, union bound** (:class:`ClopperPearson`; n1, n2 fixed).  With probability
>= 1 - alpha (alpha/2 per side, as DP-Sniper and Delta-Siege do),

    p1 >= p1_L = Beta^-1(alpha/2; k1, n1 - k1 + 1)
    p2 <= p2_U = Beta^-1(1 - alpha/2; k2 + 1, n2 - k2)

so eps_LB(delta) = ln((p1_L - delta) / p2_U) (anchors spec Sec. 3, item 2).

**Conditional test on Poisson counts** (:class:`PoissonConditional`; delta = 0 only).  The
audit draws N1 ~ Poisson(n1) outputs of M(x) and N2 ~ Poisson(n2) of M(x') (Poissonization),
so k1 ~ Poisson(n1 p1) and k2 ~ Poisson(n2 p2) are independent, and given m = k1 + k2,
k1 ~ Binomial(m, theta) with theta = n1 p1 / (n1 p1 + n2 p2) exactly.  The claim p1 <= e^eps p2
is theta <= theta_0 = n1 e^eps / (n1 e^eps + n2): one exact one-sided test at the full alpha
(the Clopper-Pearson bound of theta), instead of two bounds at alpha/2 each, and

    eps_LB = ln(theta_L / (1 - theta_L)) + ln(n2 / n1),  theta_L = Beta^-1(alpha; k1, k2 + 1).

For a small event the margin below the point estimate is z_alpha sqrt(1/k1 + 1/k2) against
z_{alpha/2} (1/sqrt(k1) + 1/sqrt(k2)) for the union bound: about 1.8x narrower at alpha = 0.1,
or 3.3x fewer samples for the same bound.  Poisson counts have variance n p, not n p (1 - p),
so for an event with p1 above about 0.7 the union bound would be narrower; the audit does not
switch by the counts (that would be choosing a test after seeing its data).  On a fixed n the
counts are binomial, less variable than Poisson ones: the test is then conservative in
practice but not exact, and the proof above needs the Poisson counts
(tests/test_audit_certifiers.py checks coverage at the boundary of the claim).

For both, the p-value of H0 "(eps, delta)-DP holds on this pair" is the smallest alpha at
which the bound exceeds eps, so ``p_value <= alpha`` exactly when ``eps_LB > eps``.  There is
no cap of the ln(1/c) kind: the only ceiling is what n samples can resolve, reported by
:func:`eps_ceiling` and :func:`certification_floor`.
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
    """How the audit certifies one pre-chosen event from its counts when delta > 0:
    :func:`eps_bound` and :func:`p_value` (fixed n1, n2: the union of two one-sided
    Clopper-Pearson bounds, alpha/2 each).  ``poisson``: whether certification must draw a
    Poisson number of outputs (no: n1, n2 are the numbers drawn)."""

    name = "Clopper-Pearson, alpha/2 per side"
    poisson = False

    def bound(self, k1, n1, k2, n2, alpha, delta=0.0) -> float:
        """Certified eps lower bound at confidence 1 - alpha (-inf if vacuous)."""
        return eps_bound(k1, n1, k2, n2, alpha, delta)

    def p_value(self, k1, n1, k2, n2, eps, delta=0.0) -> float:
        """p-value of H0 "(eps, delta)-DP holds on this event"."""
        return p_value(k1, n1, k2, n2, eps, delta)

    def approx(self, k1, n1, k2, n2, alpha, delta=0.0):
        """A fast stand-in for :meth:`bound`, to rank many candidate events."""
        return approx_eps_bound(k1, n1, k2, n2, one_sided_z(alpha), delta)


class PoissonConditional:
    """How the audit certifies one pre-chosen event from its counts when delta = 0: the exact
    conditional test of the module docstring.  k1, k2 are counts among Poisson(n1) and
    Poisson(n2) outputs (``poisson``: certification must draw them so); n1, n2 are the means."""

    name = "exact conditional test on Poisson counts"
    poisson = True

    @staticmethod
    def _check(delta):
        if delta != 0.0:
            raise ValueError("the conditional test certifies delta = 0 only (use ClopperPearson for delta > 0)")

    def bound(self, k1, n1, k2, n2, alpha, delta=0.0):
        """Certified eps lower bound ln(theta_L / (1 - theta_L)) + ln(n2 / n1) (-inf when k1 = 0)."""
        self._check(delta)
        k1 = np.asarray(k1, dtype=np.float64)
        k2 = np.asarray(k2, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            theta = special.betaincinv(np.maximum(k1, 1e-300), k2 + 1.0, alpha)
            rest = special.betaincinv(k2 + 1.0, np.maximum(k1, 1e-300), 1.0 - alpha)   # 1 - theta, accurately
            out = np.where(k1 > 0, np.log(theta) - np.log(rest) + np.log(np.divide(n2, n1)), -np.inf)
        return out if out.ndim else float(out)

    def p_value(self, k1, n1, k2, n2, eps, delta=0.0) -> float:
        """P[Binomial(k1 + k2, theta_0) >= k1]: the exact p-value of H0 "p1 <= e^eps p2"."""
        self._check(delta)
        if k1 <= 0:
            return 1.0
        theta0 = 1.0 / (1.0 + (n2 / n1) * math.exp(-eps))
        return float(special.betainc(float(k1), float(k2) + 1.0, theta0))

    def approx(self, k1, n1, k2, n2, alpha, delta=0.0):
        """A fast stand-in for :meth:`bound`, to rank many candidate events: the square-root
        form of :func:`approx_eps_bound` with the one-sided z_alpha split between the two
        counts in proportion to their standard errors (the normal margin
        z_alpha sqrt(1/k1 + 1/k2) in log units)."""
        self._check(delta)
        k1 = np.asarray(k1, dtype=np.float64)
        k2 = np.asarray(k2, dtype=np.float64)
        z = float(-special.ndtri(alpha))
        s1, s2 = 1.0 / np.sqrt(np.maximum(k1, 0.25)), 1.0 / np.sqrt(k2 + 1.0)
        norm = np.sqrt(s1 * s1 + s2 * s2)
        lo = np.square(np.maximum(np.sqrt(k1) - 0.5 * z * s1 / norm, 0.0)) / n1
        hi = np.square(np.sqrt(k2 + 1.0) + 0.5 * z * s2 / norm) / n2
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(lo > 0.0, np.log(np.maximum(lo, 1e-320)) - np.log(hi), -np.inf)


#: the certifiers
CLOPPER_PEARSON = ClopperPearson()
POISSON_CONDITIONAL = PoissonConditional()


def certifier_for(delta: float):
    """The audit's certifier of a claim at ``delta``: the conditional test when delta = 0, else
    Clopper-Pearson (the conditional law has no room for delta)."""
    return POISSON_CONDITIONAL if delta == 0.0 else CLOPPER_PEARSON


def approx_bound(k1, n1, k2, n2, alpha, delta=0.0):
    """The ranking proxy of the certifier that will certify a claim at ``delta``."""
    return certifier_for(delta).approx(k1, n1, k2, n2, alpha, delta)


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
    every output of M(x) in S and none of M(x') (about ln(n / ln(1/alpha)), by the
    conditional test)."""
    return certifier_for(0.0).bound(n, n, 0, n, alpha, 0.0)


def certification_floor(n: int, alpha: float, eps: float, delta: float = 0.0) -> float:
    """The smallest probability mass of a violating event that certification on n samples
    can certify, once the event is known.

    A violation confined to an event S with P[M(x) in S] = d and P[M(x') in S] = 0 is
    certified only if at least d n of the n outputs of M(x) fall in S, where d n is the
    smallest count k whose bound with no count under x' exceeds eps (:func:`certifier_for`);
    about ln(1/alpha) / (n ln(1 + e^-eps)) at delta = 0, about e^eps ln(2/alpha) / n + delta
    otherwise.  Violations on rarer events are invisible to any
    black-box audit with n samples (the "Curator attack" blind spot).  What an audit that
    must also *find* S achieves is larger: ``verify.audit.core.resolution_floor``.
    """
    certifier = certifier_for(delta)
    k = min_count(lambda k: certifier.bound(k, n, 0, n, alpha, delta) > eps, n)
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
