"""The trade-off (f-DP) view of an audit: certified points of the trade-off curve, the
Gaussian-DP parameter they certify, and the eps(delta) curve they imply.

Hypothesis-testing view of DP (Wasserman & Zhou 2010; Dong, Roth & Su 2022, "Gaussian
differential privacy", JRSS-B, Sec. 2): an event S of outputs that favours x is a test
of H0 "the output came from M(x')" that rejects on S, with

    FPR = P[M(x') in S],   FNR = P[M(x) not in S],

and M is f-DP on the pair when FNR >= f(FPR) for every S (f the trade-off function).
From the certification counts of S (k1 of n outputs of M(x), k2 of n of M(x')), the
Clopper-Pearson bounds of :mod:`.statistics` give the *certified point*

    (a, b) = (p2_U, 1 - p1_L)   with   FPR <= a  and  FNR <= b,

so the true point lies below and to the left of it; for any non-increasing f,
f(a) <= f(FPR) <= FNR <= b, and a trade-off function with f(a) > b is refuted.  The
points of all events are simultaneous at confidence 1 - alpha by Bonferroni (alpha/m
per event, alpha/(2m) per side, m distinct events), as the audit's eps(delta) curve is.

* Gaussian DP: G_mu(a) = Phi(Phi^-1(1 - a) - mu) (Dong et al. Def. 2.7), so the points
  refute mu-GDP for every mu < max over points of Phi^-1(1 - a) - Phi^-1(b): the
  largest mu they certify (Nasr et al. 2023, "Tight auditing of differentially private
  machine learning", Sec. 4, compute mu from (FPR, FNR) the same way).
* (eps, delta)-DP is f-DP with f(a) = max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a))
  (Dong et al. Prop. 2.5; Kairouz, Oh & Viswanath 2015), so a point refutes it when
  eps < max(ln((1 - delta - b) / a), ln((1 - delta - a) / b)) -- the event S favouring x
  and its complement favouring x'.
* The exact curve of mu-GDP, the analytic Gaussian mechanism with mu = Delta / sigma
  (Balle & Wang 2018, Thm. 8; Dong et al. Cor. 2.13), is
  delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2): :func:`gdp_delta`,
  :func:`gdp_eps`, :func:`gdp_tradeoff` (references for tests and reports).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from . import statistics as st


@dataclass
class Certified:
    """What the events of a curve certify together (confidence 1 - alpha).

    fpr, fnr         certified points: upper bounds on (FPR, FNR) of each event, the
                     Pareto-lower ones only, sorted by FPR
    mu_lower_bound   the largest mu such that every mu' < mu is refuted (0: none)
    eps              eps(delta) lower bounds at the requested deltas (clipped at 0)
    alpha_per_event  the Bonferroni share of each distinct event
    events           the number of distinct events
    """
    fpr: list
    fnr: list
    mu_lower_bound: float
    eps: list
    alpha_per_event: float
    events: int


def certify(events, hist_x, hist_x_prime, n: int, alpha: float, deltas, n_prime: int | None = None) -> Certified:
    """Certified trade-off points, GDP mu and eps(delta) of ``events`` (bins of one
    statistic) from the certification histograms of n outputs of M(x) and ``n_prime``
    (default n) of M(x').  Clopper-Pearson on the numbers drawn, whether fixed or Poisson."""
    n_prime = n if n_prime is None else n_prime
    distinct = {}
    for ev in events:
        distinct.setdefault(ev.key(), ev)
    m = max(1, len(distinct))
    a_event = alpha / m
    counts = np.array([ev.counts(hist_x, hist_x_prime) for ev in distinct.values()],
                      dtype=np.float64).reshape(-1, 2)
    forward = np.array([getattr(ev, "forward", True) for ev in distinct.values()], dtype=bool)
    n_fav, n_other = np.where(forward, n, n_prime), np.where(forward, n_prime, n)
    fpr = st.cp_upper(counts[:, 1], n_other, a_event / 2.0)           # P[M(other) in S] <= fpr
    fnr = 1.0 - st.cp_lower(counts[:, 0], n_fav, a_event / 2.0)       # P[M(favoured) not in S] <= fnr
    fpr, fnr = pareto_points(fpr, fnr)
    return Certified(fpr=fpr.tolist(), fnr=fnr.tolist(), mu_lower_bound=gdp_mu_lower_bound(fpr, fnr),
                     eps=eps_lower_bounds(fpr, fnr, deltas).tolist(), alpha_per_event=a_event, events=m)


def pareto_points(fpr, fnr) -> tuple[np.ndarray, np.ndarray]:
    """The points not dominated by another (no other point is at most as large in both
    coordinates and smaller in one), sorted by increasing FPR."""
    fpr, fnr = np.asarray(fpr, np.float64), np.asarray(fnr, np.float64)
    order = np.lexsort((fnr, fpr))
    keep, best = [], math.inf
    for i in order:
        if fnr[i] < best:
            keep.append(i)
            best = fnr[i]
    return fpr[keep], fnr[keep]


def gdp_mu_lower_bound(fpr, fnr) -> float:
    """The largest mu certified by points (a, b): max of Phi^-1(1 - a) - Phi^-1(b), at least 0."""
    fpr, fnr = np.asarray(fpr, np.float64), np.asarray(fnr, np.float64)
    if fpr.size == 0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = -special.ndtri(fpr) - special.ndtri(fnr)          # Phi^-1(1 - a) = -Phi^-1(a), exactly
    mu = mu[~np.isnan(mu)]
    return float(max(0.0, mu.max())) if mu.size else 0.0


def eps_lower_bounds(fpr, fnr, deltas) -> np.ndarray:
    """eps(delta) lower bounds implied by points (a, b): the largest eps whose
    (eps, delta) trade-off function lies above a point, at each delta (at least 0)."""
    a = np.asarray(fpr, np.float64)[:, None]
    b = np.asarray(fnr, np.float64)[:, None]
    d = np.asarray(deltas, np.float64)[None, :]
    if a.size == 0:
        return np.zeros(d.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        forward = np.where(1.0 - d - b > 0, np.log(np.maximum(1.0 - d - b, 1e-320)) - np.log(a), -np.inf)
        backward = np.where(1.0 - d - a > 0, np.log(np.maximum(1.0 - d - a, 1e-320)) - np.log(b), -np.inf)
    best = np.maximum(forward, backward).max(axis=0)
    return np.maximum(best, 0.0)


# ------------------------------------------------------------ exact Gaussian DP curves
def gdp_tradeoff(mu: float, fpr):
    """G_mu(a) = Phi(Phi^-1(1 - a) - mu): the trade-off curve of mu-GDP."""
    return special.ndtr(-special.ndtri(np.asarray(fpr, np.float64)) - mu)


def gdp_delta(mu: float, eps):
    """delta(eps) of mu-GDP (the analytic Gaussian mechanism with Delta / sigma = mu)."""
    eps = np.asarray(eps, np.float64)
    return special.ndtr(-eps / mu + mu / 2.0) - np.exp(eps) * special.ndtr(-eps / mu - mu / 2.0)


def gdp_eps(mu: float, delta: float) -> float:
    """The exact eps(delta) of mu-GDP (0 when delta >= delta(0))."""
    if gdp_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(mu, hi) > delta:
        hi *= 2.0
    return float(optimize.brentq(lambda e: gdp_delta(mu, e) - delta, 0.0, hi, xtol=1e-12))
