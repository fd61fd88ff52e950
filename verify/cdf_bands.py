"""Sample-based Lemma 8 / Lemma 9 checks with uniform (DKW) confidence bands.

Sample-based Lemma 8 / Lemma 9 checks: uniform (DKW) confidence bands over all thresholds
(seed 002, Wang & Zhu; spec ``seed_002.md`` §3.2, §3.4).  For when only a sampler of the
perturbation is available, not its CDF.

With n draws from F, the Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant,
P[sup_x |F_n(x) - F(x)| > t] <= 2 exp(-2 n t^2), gives a band that holds at every x at
once: t = sqrt(ln(4/alpha) / (2n)) for F and t' likewise for F' hold together with
probability >= 1 - alpha.  On that event every inequality of Lemma 8 (half-lines) and
Lemma 9 (intervals, 2t; complements, 2t) is bounded at every threshold simultaneously,
so the supremum over x costs no multiple-testing penalty:

* ``lower``: a lower confidence bound of delta_required = sup_x [F - e^eps F'] (and the
  other three forms); above the allowed delta -> a certified violation ("violated");
* ``upper``: an upper confidence bound, from the band clipped to [0, 1] (so the tails,
  where both CDFs are near 0, cost t, not t + e^eps t'); below the allowed delta ->
  certified ("holds"); otherwise "inconclusive".

The empirical CDFs are step functions, so the suprema over all real x are exact maxima
over the merged sample points (O(n log n) for the sort, O(n) after).  Lemma 9's
suprema over x < y use running minima (and, for the clipped upper bound, ``searchsorted``
for the pairs whose neighbour mass is within the band).

>>> from verify import cdf_bands
>>> from dpbench.mechanisms.perturbations import GaussianLaw
>>> r = cdf_bands.band_check_family(GaussianLaw, eps=1.0, delta=0.01, n=1, draws=200_000, seed=1)
>>> r.verdict, r.lower > 0.01      # N = 1 is inside DP-FTPL-Gauss's start phase
('violated', True)
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from dpbench.engine.result import to_json
from dpbench.randomness import stream_seed
from dpbench.validation import InputError, check_delta, check_int, check_real

from .cdf_feasibility import LEMMA8_CONSTRAINTS, LEMMA9_CONSTRAINTS, _check_lemma, law_pair, validate


def dkw_radius(n: int, alpha: float) -> float:
    """t with P[sup |F_n - F| > t] <= alpha (Massart's constant): sqrt(ln(2/alpha)/(2n))."""
    return math.sqrt(math.log(2.0 / alpha) / (2.0 * n))


@dataclass
class BandResult:
    """A simultaneous confidence interval for the delta a lemma needs, from samples."""

    lemma: int
    eps: float
    delta: float
    allowed: float
    alpha: float
    draws: int
    draws_prime: int
    radius: float                  # DKW band half-width of F
    radius_prime: float            # of F'
    lower: float                   # lower confidence bound of delta_required
    estimate: float                # plug-in value (empirical CDFs)
    upper: float                   # upper confidence bound
    verdict: str                   # "holds" | "violated" | "inconclusive"
    constraint: str                # the inequality of the witness (largest lower bound)
    x: float
    y: float | None
    history: dict = field(default_factory=dict)
    details: list = field(default_factory=list)

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval."""
        return self.lower <= value <= self.upper

    def to_dict(self) -> dict:
        """Return the result as strict-JSON data."""
        return to_json(asdict(self))

    def summary(self) -> str:
        """Describe the verdict and its evidence, for the command line."""
        return (f"Lemma {self.lemma} from samples ({self.draws} + {self.draws_prime} draws, "
                f"DKW bands +-{self.radius:.3g}, alpha = {self.alpha:g}): {self.verdict.upper()}\n"
                f"  delta required in [{self.lower:.4g}, {self.upper:.4g}] (plug-in {self.estimate:.4g})"
                f" vs allowed {self.allowed:.4g}; witness: {self.constraint} at x = {self.x:.6g}"
                + ("" if self.y is None else f", y = {self.y:.6g}"))


def _ecdfs(draws, draws_prime):
    """Return the merged thresholds and the empirical CDFs of two samples.

    Merged thresholds (region k = [z_k, z_{k+1}), region 0 = (-inf, z_1)) and the
    empirical CDFs of both samples on each region.
    """
    xs, ys = np.sort(draws), np.sort(draws_prime)
    z = np.unique(np.concatenate([xs, ys]))
    a = np.concatenate(([0.0], np.searchsorted(xs, z, side="right") / xs.size))
    b = np.concatenate(([0.0], np.searchsorted(ys, z, side="right") / ys.size))
    return np.concatenate(([-math.inf], z)), a, b


def _halflines(z, a, b, t, u, ee):
    """Lower/upper confidence bounds and plug-in values of the four Lemma 8 suprema."""
    rows = []
    for P_, Q_, tp, tq in ((a, b, t, u), (1.0 - a, 1.0 - b, t, u), (b, a, u, t), (1.0 - b, 1.0 - a, u, t)):
        lo = np.maximum(0.0, P_ - tp) - ee * np.minimum(1.0, Q_ + tq)
        up = np.minimum(1.0, P_ + tp) - ee * np.maximum(0.0, Q_ - tq)
        i = int(np.argmax(lo))
        rows.append((float(lo[i]), float(np.max(P_ - ee * Q_)), float(up.max()), float(z[i]), None))
    return rows


def _intervals(z, a, b, t, u, ee):
    """Bounds of sup_{x<y} [(F(y)-F(x)) - e^eps (F'(y)-F'(x))] from bands of F and F'."""
    G = a - ee * b
    pm = np.minimum.accumulate(G)
    val = G - pm
    j = int(np.argmax(val))
    i = int(np.argmin(G[:j + 1]))
    lower = float(val[j]) - 2.0 * t - 2.0 * ee * u
    # upper: pairs whose F'-mass is within the band (x in regions m(y)..y) cost no e^eps term
    m = np.searchsorted(b, b - 2.0 * u, side="left")
    small = np.minimum(1.0, a - a[m] + 2.0 * t)
    has_large = m >= 1
    large = np.full(G.size, -math.inf)
    large[has_large] = G[has_large] - pm[m[has_large] - 1] + 2.0 * t + 2.0 * ee * u
    upper = float(np.maximum(small, large).max())
    return lower, float(val[j]), upper, float(z[i]), float(z[j])


def _complements(z, a, b, t, u, ee):
    """Bounds of sup_{x<y} [(F(x) + 1 - F(y)) - e^eps (F'(x) + 1 - F'(y))]."""
    g = a - ee * b
    h = (1.0 - a) - ee * (1.0 - b)
    pmax = np.maximum.accumulate(g)
    val = pmax + h
    j = int(np.argmax(val))
    i = int(np.argmax(g[:j + 1]))
    lower = float(val[j]) - 2.0 * t - 2.0 * ee * u
    # pairs with F'(x) + 1 - F'(y) <= 2u: x in regions 0..M(y)
    M = np.searchsorted(b, b - 1.0 + 2.0 * u, side="right") - 1
    idx = np.arange(g.size)
    top = np.minimum(M, idx)
    small = np.where(top >= 0, np.minimum(1.0, a[np.maximum(top, 0)] + 1.0 - a + 2.0 * t), -math.inf)
    # other pairs: x in (M(y), y]; max of g there <= min(suffix max after M, prefix max to y)
    smax = np.concatenate([np.maximum.accumulate(g[::-1])[::-1], [-math.inf]])
    window = np.minimum(smax[np.minimum(M + 1, g.size)], pmax)
    large = np.where(M < idx, window + h + 2.0 * t + 2.0 * ee * u, -math.inf)
    upper = float(np.maximum(small, large).max())
    return lower, float(val[j]), upper, float(z[i]), float(z[j])


def band_check(draws, draws_prime, eps: float, delta: float, *, lemma: int = 8,
               alpha: float = 1e-6, history: dict | None = None) -> BandResult:
    """Check Lemma 8 or 9 on two samples, with simultaneous confidence bands.

    Parameters
    ----------
    draws, draws_prime : array_like
        Samples of the laws F and F'.
    eps, delta : float
        The privacy level (>= 0) and slack (in [0, 1)).
    lemma : {8, 9}
        As for :func:`verify.cdf_feasibility.check`.
    alpha : float
        1 - the simultaneous confidence over every threshold and all inequalities (DKW).
    history : dict, optional
        Recorded in the result (which neighbouring histories the samples come from).

    Returns
    -------
    BandResult
        A confidence interval [``lower``, ``upper``] for the delta the lemma needs,
        ``verdict`` ("holds", "violated" or "inconclusive" against ``allowed``), the
        witness constraint and threshold, ``summary()`` and ``to_dict()``.
    """
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    lemma = _check_lemma(lemma)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    x = np.asarray(draws, dtype=np.float64).ravel()
    y = np.asarray(draws_prime, dtype=np.float64).ravel()
    for name, arr in (("draws", x), ("draws_prime", y)):
        if arr.size < 2 or not np.all(np.isfinite(arr)):
            raise InputError(f"{name} must hold at least 2 finite draws (got {arr.size})")
    t, u = dkw_radius(x.size, alpha / 2.0), dkw_radius(y.size, alpha / 2.0)
    ee = math.exp(eps)
    z, a, b = _ecdfs(x, y)
    if lemma == 8:
        rows, names, allowed = _halflines(z, a, b, t, u, ee), LEMMA8_CONSTRAINTS, delta
    else:
        rows = [_intervals(z, a, b, t, u, ee), _complements(z, a, b, t, u, ee),
                _intervals(z, b, a, u, t, ee), _complements(z, b, a, u, t, ee)]
        names, allowed = LEMMA9_CONSTRAINTS, delta / 2.0
    k = max(range(4), key=lambda i: rows[i][0])
    lower = max(0.0, max(r[0] for r in rows))
    upper = max(0.0, max(r[2] for r in rows))
    estimate = max(0.0, max(r[1] for r in rows))
    verdict = "violated" if lower > allowed else "holds" if upper <= allowed else "inconclusive"
    details = [{"constraint": c, "lower": r[0], "estimate": r[1], "upper": r[2]} for c, r in zip(names, rows)]
    return BandResult(lemma, eps, delta, allowed, alpha, int(x.size), int(y.size), t, u, lower,
                      estimate, upper, verdict, names[k], rows[k][3], rows[k][4],
                      history or {}, details)


def band_check_sampler(sample, sample_prime, eps: float, delta: float, *, draws: int = 1_000_000,
                       seed: int = 0, lemma: int = 8, alpha: float = 1e-6) -> BandResult:
    """``band_check`` on ``draws`` outputs of each sampler ``sample(size, seed)``."""
    draws = check_int("draws", draws, low=2)
    seed = check_int("seed", seed, low=0)
    return band_check(sample(draws, stream_seed(seed, 0)), sample_prime(draws, stream_seed(seed, 1)),
                      eps, delta, lemma=lemma, alpha=alpha)


def band_check_mechanism(mechanism, x, x_prime, eps: float, delta: float, *, draws: int = 1_000_000,
                         seed: int = 0, lemma: int = 8, alpha: float = 1e-6) -> BandResult:
    """Check a catalog mechanism's output laws on two inputs with confidence bands.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(x, n, seed)``, e.g. ``dpbench.sampler("ftpl_gauss", eps=1, delta=0.01)``.
    x, x_prime : float
        Neighbouring inputs (e.g. 0 and 1: one reward changed).
    eps, delta, lemma, alpha
        As for :func:`band_check`.
    draws : int
        Samples per input.
    seed : int
        Seed of the samples.

    Returns
    -------
    BandResult
        As for :func:`band_check`.
    """
    draws = check_int("draws", draws, low=2)
    seed = check_int("seed", seed, low=0)
    res = band_check(mechanism(x, draws, stream_seed(seed, 0)), mechanism(x_prime, draws, stream_seed(seed, 1)),
                     eps, delta, lemma=lemma, alpha=alpha)
    res.history = {"mechanism": getattr(mechanism, "name", repr(mechanism)), "x": x, "x_prime": x_prime}
    return res


def band_check_family(law, eps: float, delta: float, n: int, *, lemma: int = 8,
                      draws: int = 1_000_000, seed: int = 0, alpha: float = 1e-6,
                      histories=None, **options) -> BandResult:
    """Check a perturbation law class from samples (counterpart of ``cdf_feasibility.check``).

    The same neighbouring pairs as the exact check, sampled through the laws' samplers.

    Parameters
    ----------
    law, eps, delta, n, lemma, **options
        As for :func:`verify.cdf_feasibility.check`.
    draws : int
        Samples per law.
    seed : int
        Seed of the samples.
    alpha : float
        As for :func:`band_check`; several histories share it (Bonferroni).
    histories : sequence of int, optional
        A law with several histories (not a location family): the histories R checked
        (default the edge R = 0 and the middle).

    Returns
    -------
    BandResult
        The worst over the histories checked.
    """
    law, eps, delta, n, lemma, options = validate(law, eps, delta, n, lemma, **options)
    rs = [0] if law.LOCATION else sorted({0, (n - 1) // 2} if histories is None else
                                         {check_int("history", r, low=0, high=n - 1) for r in histories})
    results = []
    for i, r in enumerate(rs):
        pair = law_pair(law, n, options, r)
        res = band_check_sampler(pair.law.sample, pair.neighbour.sample, eps, delta, draws=draws,
                                 seed=stream_seed(seed, i) % (2 ** 31), lemma=lemma, alpha=alpha / len(rs))
        res.history = dict(pair.history)
        results.append(res)
    worst = max(results, key=lambda r: r.lower)          # the witness
    out = BandResult(**{**asdict(worst), "alpha": alpha})
    out.upper = max(r.upper for r in results)
    out.estimate = max(r.estimate for r in results)
    out.verdict = ("violated" if any(r.verdict == "violated" for r in results) else
                   "holds" if all(r.verdict == "holds" for r in results) else "inconclusive")
    if len(results) > 1:
        out.details = [{"history": r.history, "lower": r.lower, "upper": r.upper, "verdict": r.verdict}
                       for r in results]
    return out


__all__ = ["band_check", "band_check_sampler", "band_check_mechanism", "band_check_family",
           "dkw_radius", "BandResult"]
