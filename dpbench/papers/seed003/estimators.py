"""Seed 003's estimator lemmas (Lemmas 3, 5, 6, 7, 10 and 11; spec sections 3.2 and 4, checks C1,
C2, C4, C6, C9), each a measurement of a claims row.

* Lemmas 3 and 11 (DP Robust UCB's private mean): Monte Carlo of the estimator as the policy forms
  it, each reward of the arm truncated at B_n and inserted into the project's tree counter
  (``tree_counter.tree_prefix_sums``, the counter of ``policies/robust_ucb.py``, built for the
  horizon), against the lemma's radius with constant 18: the failure rate below the lemma's
  probability (exact one-sided binomial tests).
* Lemma 5 (the Laplace tail): draws of the noise LDPRSE's users add (catalog ``truncated_laplace``,
  the sampler the simulation runs), P(|X| >= t b) against e^-t (two-sided binomial tests, with
  power against a tail 10% off).
* Lemma 6 (Bernstein): truncated Pareto rewards, the empirical tail against the bound.
* Lemmas 7 and 10: closed forms and quadrature on the paper's Pareto arms and the lower-bound
  instances' two-point laws (exact).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate, stats

from dpbench.reporting import measures as M
from dpbench.reporting.claims import Evidence, Hypothesis, Outcome

#: the paper's reward laws (spec 5.1): Pareto shape 1.05 + v, scale (shape - 1) mu / shape
SHAPE_OFFSET = 1.05
#: the figures' horizon, at which DPRUCB's truncation and radius are evaluated
HORIZON = 10 ** 6


def pareto_law(mean: float, v: float) -> tuple[float, float]:
    """(shape, scale) of the paper's Pareto arm of mean ``mean`` at moment order ``v``."""
    shape = SHAPE_OFFSET + v
    return shape, (shape - 1.0) * mean / shape


def pareto_draws(rng: np.random.RandomState, shape: float, scale: float, size) -> np.ndarray:
    """Classic Pareto draws by inversion, the law of ``environments.heavy_tailed.pareto``."""
    return scale * (1.0 - rng.random_sample(size)) ** (-1.0 / shape)


def _settings_u(v: float) -> float:
    from dpbench.engine.simulate import build_environment
    from dpbench.environments.heavy_tailed import moment_bound
    return float(moment_bound(build_environment("pareto", {"setting": "S1", "tail_v": v}), v, None)[0])


# ------------------------------------------------------------------ Lemmas 3 and 11
def dprucb_radius(n, delta: float, *, v: float, u: float, eps: float, horizon: int = HORIZON, c: float = 18.0):
    """Lemma 11's radius c u^(1/(1+v)) (ln(1/delta) ln^(1.5+1/v) T / (n eps))^(v/(1+v)) (c = 18)."""
    log_t = math.log(horizon)
    return c * u ** (1 / (1 + v)) * (math.log(1 / delta) * log_t ** (1.5 + 1 / v) / (np.asarray(n) * eps)) ** (
        v / (1 + v))


def dprucb_means(sims: int, length: int, *, v: float, eps: float, seed: int, mean: float = 0.9,
                 horizon: int = HORIZON) -> np.ndarray:
    """``sims`` x ``length`` private means S_hat(n)/n, n = 1..length, of DP Robust UCB's estimator
    of one arm of the paper's S1 (mean ``mean``): reward n truncated (zeroed beyond) at
    B_n = (eps u n / ln^1.5 T)^(1/(1+v)), inserted into the tree counter built for ``horizon``."""
    from dpbench.mechanisms.tree_counter import tree_prefix_sums_many
    u = _settings_u(v)
    shape, scale = pareto_law(mean, v)
    n = np.arange(1, length + 1, dtype=float)
    bounds = (eps * u * n / math.log(horizon) ** 1.5) ** (1 / (1 + v))
    x = pareto_draws(np.random.RandomState(seed), shape, scale, (sims, length))
    x = np.where(np.abs(x) <= bounds, x, 0.0)
    return tree_prefix_sums_many(x, bounds, eps=eps, seed=seed + 1, horizon=horizon) / n


def _below(k: int, sims: int, level: float, label: str) -> Hypothesis:
    """The failure rate k / sims below ``level``: exact one-sided binomial tests each way."""
    less = float(stats.binomtest(k, sims, level, alternative="less").pvalue)
    more = float(stats.binomtest(k, sims, level, alternative="greater").pvalue)
    return Hypothesis(less, True, f"{label}: {k}/{sims} failures vs {level:.3g}", p_against=more, reps=sims)


def lemma11(claim, ev: Evidence) -> Outcome:
    """Lemma 11: |mu_hat_a(n) - mu_a| <= the radius at delta with probability >= 1 - 2 delta, for
    delta in ``deltas``, n in ``ns``, eps and v of ``cases``; the row also gives how loose the
    constant 18 is (the largest error over its radius)."""
    a = M.args(claim)
    sims = int(a["sims"]) if not getattr(ev, "quick", False) else 500
    ns = [int(n) for n in a["ns"]]
    comps, shown, seed = [], [], int(a.get("seed", 3003100))
    for v, eps in a["cases"]:
        u = _settings_u(v)
        means = dprucb_means(sims, max(ns), v=float(v), eps=float(eps), seed=seed)
        seed += sims + 1
        err = np.abs(means[:, [n - 1 for n in ns]] - 0.9)
        worst = 0.0
        for delta in a["deltas"]:
            radius = dprucb_radius(ns, float(delta), v=float(v), u=u, eps=float(eps))
            worst = max(worst, float(np.max(err / radius)))
            for j, n in enumerate(ns):
                k = int(np.sum(err[:, j] > radius[j]))
                comps.append(_below(k, sims, 2 * float(delta), f"v = {v}, eps = {eps}, n = {n}, delta = {delta}"))
        shown.append(f"v = {v}, eps = {eps}: largest |error| / radius {worst:.3g}")
    return Outcome(f"{sims} runs of the estimator per (v, eps), n in {ns}: " + "; ".join(shown),
                   comparisons=comps, reps=sims)


def lemma3(claim, ev: Evidence) -> Outcome:
    """Lemma 3 (Lemma 11 at delta = 1/(2 t^4), one-sided): mu_hat_a(n, t) <= mu_a + the radius
    with probability >= 1 - t^-4, at t = n = ``t`` (t^-4 = 1e-4 at t = 10: the smallest t whose
    failure probability a simulation can bound)."""
    a = M.args(claim)
    sims = int(a["sims"]) if not getattr(ev, "quick", False) else 2000
    t = int(a["t"])
    comps, shown = [], []
    for i, (v, eps) in enumerate(a["cases"]):
        u = _settings_u(v)
        means = dprucb_means(sims, t, v=float(v), eps=float(eps), seed=3003200 + i * (sims + 1))
        excess = means[:, t - 1] - 0.9
        radius = float(dprucb_radius(t, 1 / (2 * t ** 4), v=float(v), u=u, eps=float(eps)))
        k = int(np.sum(excess > radius))
        comps.append(_below(k, sims, float(t) ** -4, f"v = {v}, eps = {eps}, t = n = {t}"))
        shown.append(f"v = {v}, eps = {eps}: radius {radius:.4g}, largest excess {float(excess.max()):.4g}")
    return Outcome(f"{sims} runs per (v, eps): " + "; ".join(shown), comparisons=comps, reps=sims)


# ------------------------------------------------------------------ Lemma 5
def _binomial_power(p: float, rel: float):
    """Power of the two-sided binomial test of P = p against a probability ``rel`` x p off it (the
    nearer direction), as a function of (level, draws): normal approximation."""
    def power(level: float, n: int) -> float:
        if n <= 0:
            return 0.0
        z = float(stats.norm.isf(level / 2))
        out = []
        for q in (p * (1 - rel), p * (1 + rel)):
            se0, se1 = math.sqrt(p * (1 - p) / n), math.sqrt(q * (1 - q) / n)
            out.append(float(stats.norm.cdf((abs(q - p) - z * se0) / se1)))
        return min(out)
    return power


def lemma5(claim, ev: Evidence) -> Outcome:
    """Lemma 5: X ~ Lap(b) has P(|X| >= t b) = e^-t.  X: the noise LDPRSE's users add, drawn by the
    catalog sampler the simulation runs (``truncated_laplace`` at x = 0, B = 1, eps = 1: b = 2)."""
    import dpbench
    a = M.args(claim)
    n = int(a["n"]) if not getattr(ev, "quick", False) else 20_000
    mech = dpbench.sampler("truncated_laplace", eps=1.0, bound=1.0)
    b = 2.0
    x = np.abs(np.asarray(mech(0.0, n, seed=int(a.get("seed", 3003300))), dtype=float)) / b
    comps, shown = [], []
    for t in a["ts"]:
        p = math.exp(-float(t))
        k = int(np.sum(x >= float(t)))
        comps.append(Hypothesis(float(stats.binomtest(k, n, p).pvalue), False,
                                f"P(|X| >= {t:g} b) = {k / n:.5g} vs e^-{t:g} = {p:.5g}",
                                power=_binomial_power(p, 0.1), departure="a tail probability 10% off e^-t",
                                reps=n, unit="n"))
        shown.append(f"t = {t:g}: {k / n:.5g} (e^-t = {p:.5g})")
    return Outcome(f"{n:,} draws of the lattice Laplace(2) the LDP users add: " + "; ".join(shown),
                   comparisons=comps, reps=n)


# ------------------------------------------------------------------ Lemma 6
def truncated_pareto_moments(shape: float, scale: float, bound: float) -> tuple[float, float]:
    """(E[X 1{X <= B}], E[X^2 1{X <= B}]) of Pareto(shape, scale), B >= scale (closed forms)."""
    c = shape * scale ** shape
    m1 = c * (bound ** (1 - shape) - scale ** (1 - shape)) / (1 - shape)
    m2 = c * (bound ** (2 - shape) - scale ** (2 - shape)) / (2 - shape)
    return m1, m2


def lemma6(claim, ev: Evidence) -> Outcome:
    """Lemma 6 (Bernstein): X_i independent, zero mean, |X_i| <= M, E X_i^2 <= s:
    P((1/n) sum X_i >= t) <= exp(-(t^2 n / 2) / (s + M t / 3)).  X_i: a reward of S1's best arm
    (v = 0.9) truncated at B as Algorithm 3 truncates, centred; t set where the bound is each of
    ``bounds``; the empirical tail against the bound (exact one-sided binomial tests)."""
    from scipy.optimize import brentq
    a = M.args(claim)
    sims = int(a["sims"]) if not getattr(ev, "quick", False) else 2000
    n, bound, v = int(a["n"]), float(a["bound"]), float(a.get("v", 0.9))
    shape, scale = pareto_law(0.9, v)
    m1, m2 = truncated_pareto_moments(shape, scale, bound)
    s, big_m = m2 - m1 ** 2, bound - m1
    rng = np.random.RandomState(int(a.get("seed", 3003400)))
    x = pareto_draws(rng, shape, scale, (sims, n))
    means = np.where(x <= bound, x, 0.0).mean(axis=1) - m1
    comps, shown = [], []
    for level in a["bounds"]:
        t = brentq(lambda t, level=float(level): math.exp(-0.5 * t * t * n / (s + big_m * t / 3)) - level,
                   1e-9, 1e3)
        k = int(np.sum(means >= t))
        comps.append(_below(k, sims, float(level), f"t = {t:.4g}"))
        shown.append(f"t = {t:.4g}: P = {k / sims:.4g} vs bound {level:g}")
    return Outcome(f"n = {n}, B = {bound:g}, M = {big_m:.4g}, s = {s:.4g}, {sims:,} runs: " + "; ".join(shown),
                   comparisons=comps, reps=sims)


# ------------------------------------------------------------------ Lemmas 7 and 10
def _laws(vs=(0.5, 0.9)):
    """(name, v, law): the paper's Pareto arms of S1-S3 and the two-point arms of Theorems 5 and 10
    (spec 2.6), a law as ("pareto", shape, scale) or ("points", values, probabilities)."""
    from dpbench.environments.heavy_tailed import SETTINGS
    out = []
    for v in vs:
        for setting, means in SETTINGS.items():
            for mu in sorted(set(means)):
                out.append((f"{setting} mu = {mu:g}", v, ("pareto", *pareto_law(mu, v))))
        g = (5 * 0.19) ** (1 / v)                                         # Theorem 10, Delta = 0.19
        for name, p in (("nu_1", g ** (1 + v) / 2), ("nu_2", g ** (1 + v) / 2 - 0.19 * g)):
            out.append((f"Theorem 10 {name}", v, ("points", np.array([0.0, 1 / g]), np.array([1 - p, p]))))
        for mu in (0.16, 0.1):                                             # Theorem 5's arms
            s = (2 * mu) ** (1 / v)
            p = s ** (1 + v) / 2
            out.append((f"Theorem 5 mu = {mu:g}", v, ("points", np.array([0.0, 1 / s]), np.array([1 - p, p]))))
    return out


def _moment(law, p: float, centre: float = 0.0) -> float:
    """E|X - centre|^p (Pareto: the raw moment in closed form plus the quadrature of
    |x - centre|^p - x^p, which decays fast where the moment itself barely converges; two-point
    laws: exact)."""
    if law[0] == "points":
        return float(np.sum(law[2] * np.abs(law[1] - centre) ** p))
    shape, scale = law[1], law[2]
    raw = shape * scale ** p / (shape - p)
    if centre == 0.0:
        return raw

    def diff(x):
        return (abs(x - centre) ** p - x ** p) * shape * scale ** shape * x ** (-shape - 1)
    pieces = ([(scale, centre)] if centre > scale else []) + [(max(scale, centre), math.inf)]
    return raw + float(sum(integrate.quad(diff, a, b, limit=200)[0] for a, b in pieces))


def _mean(law) -> float:
    if law[0] == "points":
        return float(np.sum(law[1] * law[2]))
    return law[1] * law[2] / (law[1] - 1)


def _tail_parts(law, bound: float) -> tuple[float, float]:
    """(E[X 1{|X| > B}], E[X^2 1{|X| <= B}]), exactly."""
    if law[0] == "points":
        x, p = law[1], law[2]
        return float(np.sum(x * p * (np.abs(x) > bound))), float(np.sum(x ** 2 * p * (np.abs(x) <= bound)))
    shape, scale = law[1], law[2]
    if bound < scale:
        return _mean(law), 0.0
    c = shape * scale ** shape
    return c * bound ** (1 - shape) / (shape - 1), truncated_pareto_moments(shape, scale, bound)[1]


def lemma7(claim, ev: Evidence) -> Outcome:
    """Lemma 7 and its companion: E[X 1{|X| > B}] <= u / B^v and E[X^2 1{|X| <= B}] <= u B^(1-v),
    u = E|X|^(1+v), for B on a log grid (1e-3 .. 1e6), on every law of :func:`_laws`."""
    grid = np.logspace(-3, 6, 91)
    worst = [0.0, 0.0]
    for _, v, law in _laws():
        u = _moment(law, 1 + v)
        for b in grid:
            tail, second = _tail_parts(law, float(b))
            worst[0] = max(worst[0], tail / (u / b ** v))
            worst[1] = max(worst[1], second / (u * b ** (1 - v)))
    ok = worst[0] <= 1 + 1e-12 and worst[1] <= 1 + 1e-12
    return M.decided(ok, f"{len(_laws())} laws, B in [1e-3, 1e6]: largest E[X 1(X > B)] B^v / u = {worst[0]:.4f}, "
                         f"largest E[X^2 1(X <= B)] / (u B^(1-v)) = {worst[1]:.4f}", "both hold on every law and B",
                     "a law and B violate it")


def lemma10(claim, ev: Evidence) -> Outcome:
    """Lemma 10: E|X - mu|^(1+v) <= 4 E|X|^(1+v) and E|X|^(1+v) <= 2 E|X - mu|^(1+v) + 2 |mu|^(1+v),
    on every law of :func:`_laws` (Pareto by quadrature, two-point laws exactly)."""
    first = second = 0.0
    for _, v, law in _laws():
        mu, p = _mean(law), 1 + v
        raw, central = _moment(law, p), _moment(law, p, mu)
        first = max(first, central / (4 * raw))
        second = max(second, raw / (2 * central + 2 * abs(mu) ** p))
    ok = first <= 1 + 1e-9 and second <= 1 + 1e-9
    return M.decided(ok, f"{len(_laws())} laws: largest E|X - mu|^(1+v) / (4 E|X|^(1+v)) = {first:.4f}; largest "
                         f"E|X|^(1+v) / (2 E|X - mu|^(1+v) + 2|mu|^(1+v)) = {second:.4f}",
                     "both inequalities hold on every law", "an inequality fails")


MEASUREMENTS = {"lemma3": lemma3, "lemma5": lemma5, "lemma6": lemma6, "lemma7": lemma7, "lemma10": lemma10,
                "lemma11": lemma11}
