"""Measurements behind the claims of seeds 000/001 that are not regret runs: exact constants,
spec tables, Monte-Carlo checks of the curators and of the concentration lemmas, KL bounds.

Each function is ``fn(claim, evidence)`` and returns a number, an
:class:`~verify.inference.Interval` or an :class:`~dpbench.reporting.claims.Outcome`
(spec ``seed_000_001.md`` sections 1.2, 5 F6, 7 items 2-7 and Appendix A).  Samples come from
the catalog samplers (``dpbench.sampler``), i.e. from the code the simulations run.  A
Monte-Carlo check of an equality (a mean, a variance, a probability) is an equivalence test: the
estimate's interval at the report's family level must lie inside the stated departure
(:data:`DEPARTURE`); a law (Kolmogorov-Smirnov) counts only with its power against a stated
departure; an inequality (a tail frequency below a bound) is a one-sided exact binomial test
each way.  Exact computations are decided as computed.  :func:`register` adds them all to an
``Evidence``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate, optimize, stats

from dpbench.reporting.claims import Check, Evidence, Exact, Hypothesis, Outcome
from verify.inference import Estimate

#: Monte-Carlo sample size of the mechanism checks; a tenth in quick mode
MC_SAMPLES = 1_000_000
#: the departures the equivalence checks rule out: a mean off by 1% of the standard deviation,
#: a variance or a Laplace scale off by 2%, a probability off by 0.005 (far below what would
#: change a regret)
DEPARTURE = {"mean": 0.01, "variance": 0.02, "scale": 0.05, "probability": 0.005}


def samples(ev) -> int:
    return MC_SAMPLES // 10 if getattr(ev, "quick", False) else MC_SAMPLES


def _sampler(name, eps):
    import dpbench
    return dpbench.sampler(name, eps=float(eps))


def _within(diff: float, se: float, n: int, half_width: float, label: str) -> Check:
    """An equality checked by equivalence: diff (s.e. se over n draws) inside +- half_width."""
    return Check(Estimate(float(diff), float(se), float(n - 1), int(n), method="Monte Carlo"),
                 -half_width, half_width, label, unit="n")


def laplace_ks(x, scale: float, label: str) -> Hypothesis:
    """Kolmogorov-Smirnov of x against Laplace(0, scale): rejection contradicts the law; a
    non-rejection counts with its power against a Laplace scale off by DEPARTURE['scale'] (the
    sup-distance of the two CDFs against the test's critical value, DKW bound)."""
    test = stats.kstest(x, "laplace", args=(0.0, scale))
    d = DEPARTURE["scale"]
    grid = np.linspace(0.0, 20.0 * scale, 4001)
    gap = float(np.max(np.abs(stats.laplace.cdf(grid, scale=scale) - stats.laplace.cdf(grid, scale=scale * (1 + d)))))

    def power(level: float, n: int) -> float:
        crit = math.sqrt(-math.log(level / 2) / 2) / math.sqrt(max(n, 1))
        return 0.0 if gap <= crit else max(0.0, 1.0 - 2.0 * math.exp(-2.0 * n * (gap - crit) ** 2))
    return Hypothesis(float(test.pvalue), False, f"{label}: KS D = {test.statistic:.2g}", power=power,
                      departure=f"a Laplace scale {d:.0%} off", reps=int(x.size), unit="n")


def below(hits: int, n: int, bound: float, label: str) -> Hypothesis:
    """A tail frequency below ``bound``: exact one-sided binomial tests each way (H1 p < bound
    supports the claim, H1 p > bound contradicts it)."""
    less = stats.binomtest(hits, n, bound, alternative="less").pvalue
    more = stats.binomtest(hits, n, bound, alternative="greater").pvalue
    return Hypothesis(float(less), True, f"{label}: frequency {hits / n:.3g} vs bound {bound:.3g}",
                      p_against=float(more))


# ------------------------------------------------------------ exact constants
def lemma7_constants() -> dict:
    """E[s'(Z)] for Z ~ N(0,1), and sup_a a(1 - 2 exp(-v_a^2/2)) with v_a = log(1/(2a) - 1 +
    sqrt(1/(4a^2) - 1/a)) (Lemma 7's proof), by quadrature and bounded minimisation."""
    def s(x):
        return 1.0 / (1.0 + np.exp(-x))
    es = integrate.quad(lambda z: s(z) * (1 - s(z)) * stats.norm.pdf(z), -40, 40)[0]

    def g(a):
        v = math.log(1 / (2 * a) - 1 + math.sqrt(1 / (4 * a * a) - 1 / a))
        return a * (1 - 2 * math.exp(-v * v / 2))
    res = optimize.minimize_scalar(lambda a: -g(a), bounds=(0.01, 0.2499), method="bounded")
    return {"E_s_prime": es, "sup": -res.fun, "argmax": float(res.x), "g_0107": g(0.107)}


def expected_sigmoid(mu: float, noise: str = "gaussian") -> float:
    """E[s(mu + Z)] for Z ~ N(0,1), Rademacher, or Uniform[-sqrt 3, sqrt 3] (unit variance)."""
    if noise == "gaussian":
        return integrate.quad(lambda z: stats.norm.pdf(z) / (1 + math.exp(-(mu + z))), -40, 40)[0]
    if noise == "rademacher":
        return 0.5 / (1 + math.exp(-(mu + 1))) + 0.5 / (1 + math.exp(-(mu - 1)))
    if noise == "uniform":
        h = math.sqrt(3.0)
        return integrate.quad(lambda z: 1 / (1 + math.exp(-(mu + z))), -h, h)[0] / (2 * h)
    raise ValueError(noise)


def sigmoid_gaps(means) -> dict:
    """Exact E[s(mu + Z)], Z ~ N(0,1), the sigmoid gaps and sum Delta/(Delta^s)^2 (spec A.4, F6)."""
    means = np.asarray(means, dtype=float)
    es = {float(m): expected_sigmoid(float(m)) for m in np.unique(means)}
    best = es[float(means.max())]
    gaps = means.max() - means
    sg = np.array([best - es[float(m)] for m in means])
    mask = gaps > 0
    var = {m: integrate.quad(lambda z, m=m: stats.norm.pdf(z) / (1 + math.exp(-(m + z))) ** 2, -40, 40)[0] - e * e
           for m, e in es.items()}
    return {"E_s": es, "ratio": sorted({round(float(d / g), 12) for g, d in zip(gaps[mask], sg[mask])}),
            "gap": sorted({round(float(d), 12) for d in sg[mask]}), "var": var,
            "sum": float(np.sum(gaps[mask] / sg[mask] ** 2)), "S1": float(np.sum(1 / gaps[mask]))}


def twenty_arm_means():
    from dpbench.environments import TWENTY_ARM_MEANS
    return TWENTY_ARM_MEANS


# --------------------------------------------------------------- spec tables
def tolerance_of(text: str) -> float:
    """Half a unit of the last significant digit shown: '4.129e6' -> 500, '0.04996' -> 5e-6,
    '1681' -> 0.5, '11260' -> 5 (an integer's trailing zeros are rounding, as in the spec's tables)."""
    text = text.strip()
    mant, _, exp = text.lower().partition("e")
    if "." in mant:
        unit = 10.0 ** -len(mant.split(".")[1])
    else:
        digits = mant.lstrip("-")
        unit = 10.0 ** (len(digits) - len(digits.rstrip("0"))) if digits.strip("0") else 1.0
    return 0.5 * unit * (10.0 ** int(exp) if exp else 1.0)


def shown_beside(value: float, text: str) -> str:
    """``value`` with one digit more than the spec's ``text`` shows, so that a difference beyond its
    rounding is seen (0.41670 beside 0.41667, where 6 significant digits read 0.4167)."""
    mant, _, exp = text.strip().lower().partition("e")
    if "." in mant and not exp:
        return f"{value:.{len(mant.split('.')[1]) + 1}f}"
    return f"{value:#.6g}"


def compare_table(rows) -> Outcome:
    """rows: (label, computed, spec text); reproduced if every entry is within the spec's rounding."""
    bad = [(label, f"{label}: {shown_beside(value, text)} vs {text}") for label, value, text in rows
           if not abs(value - float(text)) <= tolerance_of(text) * (1 + 1e-9)]
    statistic = f"{len(rows)} entries recomputed; {len(bad)} outside the spec's rounding" + (
        ": " + "; ".join(b for _, b in bad[:6]) if bad else "")
    named = ", ".join(label for label, _ in bad[:3]) + (", ..." if len(bad) > 3 else "")
    differ = f"1 entry differs ({named})" if len(bad) == 1 else f"{len(bad)} entries differ ({named})"
    return Outcome(statistic, comparisons=(Exact(not bad, "every entry within the spec's rounding" if not bad
                                                 else differ),))


def table_a1(claim, ev) -> Outcome:
    """Spec Appendix A.1: F_L, beta, c_eps, G, F_L/beta and the upper/lower slope ratios."""
    from .bounds import ratio_upper_to_lower
    from .factors import F_L, G, beta, c_eps
    args = claim.require("args")
    funcs = {"F_L": F_L, "beta": beta, "c_eps": c_eps, "G": G, "F_L/beta": lambda e: F_L(e) / beta(e),
             "UB_B/LB": lambda e: ratio_upper_to_lower(e, "B"), "UB_L/LB": lambda e: ratio_upper_to_lower(e, "L")}
    rows = []
    for i, eps in enumerate(args["eps"]):
        for col, fn in funcs.items():
            rows.append((f"{col}({eps:g})", fn(eps), args[col][i]))
    return compare_table(rows)


def table_a2(claim, ev) -> Outcome:
    """Spec Appendix A.2: bound values on the 20-arm instance from the bounds registry."""
    from verify import bounds

    from .factors import G
    args = claim.require("args")
    keys = {"thm4": "seed000.thm4", "cor8": "seed001.cor8", "thm6": "seed000.thm6", "cor11": "seed001.cor11",
            "ucb1": "auer2002.ucb1"}
    means = twenty_arm_means()
    rows = []
    for i, (eps, T) in enumerate(zip(args["eps"], args["T"])):
        ctx = dict(means=means, eps=eps, eps_min=eps, eps_max=eps, environment="bernoulli", T=float(T),
                   p0=1.0, alpha0=eps ** -2, beta0=None)
        for col, key in keys.items():
            rows.append((f"{col}(eps={eps:g}, T={T:g})", bounds.get(key).evaluate(ctx).value, args[col][i]))
        s1 = float(np.sum(1 / (max(means) - np.asarray(means))[np.asarray(means) < max(means)]))
        rows.append((f"LB(eps={eps:g}, T={T:g})", G(eps) * s1 * math.log(T), args["LB"][i]))
    return compare_table(rows)


def table_a4(claim, ev) -> Outcome:
    """Spec Appendix A.4: E[s(mu + Z)], sigmoid gaps, their ratios, variances and the sum."""
    args = claim.require("args")
    sg = sigmoid_gaps(twenty_arm_means())
    rows = [(f"E[s({m:g} + Z)]", sg["E_s"][m], t) for m, t in zip(args["mu"], args["E_s"])]
    rows += [(f"gap {i}", g, t) for i, (g, t) in enumerate(zip(sg["gap"], args["gaps"]))]
    rows += [(f"ratio {i}", r, t) for i, (r, t) in enumerate(zip(sg["ratio"], args["ratios"]))]
    rows += [("Var s(0.9 + Z)", sg["var"][0.9], args["var_min"]), ("Var s(0.5 + Z)", sg["var"][0.5], args["var_max"]),
             ("sum Delta/(Delta^s)^2", sg["sum"], args["sum"]), ("sum / S1", sg["sum"] / sg["S1"], args["sum_over_S1"])]
    return compare_table(rows)


def lemma7_E_s_prime(claim, ev):
    return lemma7_constants()["E_s_prime"]


def lemma7_at_0107(claim, ev):
    c = lemma7_constants()
    return c["g_0107"], f"sup {c['sup']:.6f} at a = {c['argmax']:.4f}"


def lemma7_sup(claim, ev):
    c = lemma7_constants()
    return c["sup"], f"at a = {c['argmax']:.4f}"


def sigmoid_gap_floor(claim, ev) -> Outcome:
    """Lemma 7 for three unit-variance noises: min over 0 <= mu < lambda <= 1 of
    (E s(lambda + Z) - E s(mu + Z)) / (lambda - mu) against the paper's constant."""
    args = claim.require("args")
    grid = np.linspace(0.0, 1.0, 21)
    shown, bad = [], []
    for noise, floor in zip(args["noises"], args["floors"]):
        es = np.array([expected_sigmoid(m, noise) for m in grid])
        ratios = [(es[j] - es[i]) / (grid[j] - grid[i]) for i in range(grid.size) for j in range(i + 1, grid.size)]
        low = float(min(ratios))
        shown.append(f"{noise}: min {low:.4f} (floor {floor:g})")
        if low < floor:
            bad.append(noise)
    return Outcome("; ".join(shown), comparisons=(Exact(not bad, "every ratio above its floor" if not bad
                                                        else f"below the floor: {', '.join(bad)}"),))


def factor_difference(claim, ev) -> Outcome:
    """Remark iv after Thm 6: beta(eps) < F_L(eps) for every eps, the difference decreasing in eps;
    the ratio F_L/beta is not monotone (spec)."""
    from .factors import F_L, beta
    eps = np.logspace(-3, 3, 400)
    diff = np.array([F_L(e) - beta(e) for e in eps])
    ratio = np.array([F_L(e) / beta(e) for e in eps])
    below, decreasing = bool(np.all(diff > 0)), bool(np.all(np.diff(diff) < 0))
    ratio_monotone = bool(np.all(np.diff(ratio) <= 0) or np.all(np.diff(ratio) >= 0))
    want_ratio_monotone = bool(claim.get("args", {}).get("ratio_monotone", False))
    ok = below and decreasing and ratio_monotone == want_ratio_monotone
    return Outcome(f"min F_L - beta over eps in [1e-3, 1e3] = {diff.min():.3g}; difference decreasing: {decreasing}; "
                   f"ratio F_L/beta from {ratio[0]:.3g} up to {ratio.max():.3g} (at eps = {eps[ratio.argmax()]:.3g}) "
                   f"down to {ratio[-1]:.3g}", comparisons=(Exact(ok, "as stated" if ok else "not as stated"),))


# --------------------------------------------------------- Monte-Carlo checks
def ctl_moments(claim, ev) -> Outcome:
    """CTL: mean r, variance 2/eps^2 and the Laplace law (KS) for inputs on a grid (spec M1 3-4)."""
    comps, shown = [], []
    for k, eps in enumerate((0.5, 2.0)):
        for j, r in enumerate((0.0, 0.3, 1.0)):
            x = _sampler("ctl", eps)(r, samples(ev), 1000 + 10 * k + j)
            var = 2 / eps ** 2
            sd = math.sqrt(var)
            comps += [_within((x.mean() - r) / sd, 1 / math.sqrt(x.size), x.size, DEPARTURE["mean"],
                              f"(mean - r)/sd (eps={eps:g}, r={r:g})"),
                      _within(x.var(ddof=1) / var - 1, math.sqrt(5.0 / x.size), x.size, DEPARTURE["variance"],
                              f"var/(2/eps^2) - 1 (eps={eps:g}, r={r:g})"),        # Laplace: mu4 = 6 sigma^4
                      laplace_ks(x - r, 1.0 / eps, f"Laplace law (eps={eps:g}, r={r:g})")]
            shown.append(f"eps={eps:g}, r={r:g}: mean {x.mean():.4f}, var/(2/eps^2) {x.var(ddof=1) / var:.4f}")
    return Outcome(f"n = {samples(ev):,} per input; " + "; ".join(shown), comparisons=comps)


def ctb_law(claim, ev) -> Outcome:
    """CTB: P[1] = (r e^eps + 1 - r)/(1 + e^eps) (binomial tests) on an r-grid with the endpoints,
    and the mean of p_eps(R) = 1/2 + (2 mu - 1) c_eps / 2 for the mixed instance's reward laws
    (spec M2 1-4): the mean of the output depends on the reward law only through mu."""
    from dpbench.mechanisms.ldp_curators import ctb_probability
    comps, shown = [], []
    for k, eps in enumerate((0.2, 2.0)):
        worst = 0.0
        for j, r in enumerate((0.0, 0.25, 0.5, 0.9, 1.0)):
            x = _sampler("ctb", eps)(r, samples(ev), 2000 + 10 * k + j)
            p = (r * math.exp(eps) + 1 - r) / (1 + math.exp(eps))
            comps.append(_within(x.mean() - p, math.sqrt(p * (1 - p) / x.size), x.size, DEPARTURE["probability"],
                                 f"P[1] - p (eps={eps:g}, r={r:g})"))
            worst = max(worst, abs(x.mean() - p))
        shown.append(f"eps={eps:g}: 5 inputs, largest |P[1] - p| = {worst:.2g}")
    gen = np.random.default_rng(7)
    m = 100_000
    laws = {"Beta(4,1)": gen.beta(4, 1, m), "U{0.4,1}": np.where(gen.random(m) < 0.5, 0.4, 1.0),
            "U[0,1]": gen.random(m)}
    for name, r in laws.items():
        eps = 1.0
        probs = np.array([ctb_probability(float(v), eps) for v in r])
        c = math.tanh(eps / 2)
        target = 0.5 + (2 * r.mean() - 1) * c / 2
        comps.append(_within(probs.mean() - target, probs.std(ddof=1) / math.sqrt(probs.size), probs.size,
                             DEPARTURE["probability"], f"mean of p_eps(R) - target for {name}"))
        shown.append(f"{name}: mean p_eps(R) {probs.mean():.5f} vs 1/2 + (2 mu_hat - 1) c/2 = {target:.5f}")
    return Outcome(f"n = {samples(ev):,} per input; " + "; ".join(shown), comparisons=comps)


def g_ctb_moments(claim, ev) -> Outcome:
    """g(CTB(r; eps); eps) is unbiased for r with variance (beta(eps) - (2r - 1)^2)/4 (spec M6),
    at eps in {0.2, 1, 5} and r in {0, 0.4, 1}."""
    from dpbench.mechanisms.ldp_curators import debias

    from .factors import beta
    comps, shown = [], []
    for k, eps in enumerate((0.2, 1.0, 5.0)):
        g1, g0 = debias(1.0, eps), debias(0.0, eps)
        for j, r in enumerate((0.0, 0.4, 1.0)):
            x = _sampler("ctb", eps)(r, samples(ev), 3000 + 10 * k + j)
            y = np.where(x > 0.5, g1, g0)
            var = (beta(eps) - (2 * r - 1) ** 2) / 4
            kurt = stats.bernoulli((r * math.exp(eps) + 1 - r) / (1 + math.exp(eps))).stats(moments="k")
            comps += [_within((y.mean() - r) / math.sqrt(var), 1 / math.sqrt(y.size), y.size, DEPARTURE["mean"],
                              f"bias/sd (eps={eps:g}, r={r:g})"),
                      _within(y.var(ddof=1) / var - 1, math.sqrt((float(kurt) + 2) / y.size), y.size,
                              DEPARTURE["variance"], f"variance ratio - 1 (eps={eps:g}, r={r:g})")]
            shown.append(f"eps={eps:g}, r={r:g}: mean {y.mean():.4f}, var ratio {y.var(ddof=1) / var:.4f}")
    return Outcome(f"n = {samples(ev):,} per input; " + "; ".join(shown), comparisons=comps)


def laplace_tail(claim, ev) -> Outcome:
    """Lemma 3 (v000) / Lemma 6 (v001): P{sum of k Laplace(b) > lambda} <= exp(-lambda^2/(8 v^2))
    for v >= b sqrt(k), 0 < lambda < 2 sqrt 2 v^2 / b; and LDP-UCB-L's event
    P{sum_{r<=k} L_r >= sqrt(32 k log t)/eps} <= t^-4 for k > 4 log t (spec M1 5).  One-sided
    binomial tests each way (:func:`below`)."""
    eps = 1.0
    b = 1.0 / eps
    noise = _sampler("ctl", eps)
    cases = []
    for k, mult in ((8, 7.0), (16, 6.0), (30, 5.0)):          # lambda = mult * v, inside the region
        v = b * math.sqrt(k)
        lam = mult * v
        assert lam < 2 * math.sqrt(2) * v * v / b
        cases.append((f"Lemma 3: k={k}, lambda={mult:g} v", k, lam, math.exp(-lam ** 2 / (8 * v * v))))
    for t in (2, 3):
        k = int(math.floor(4 * math.log(t))) + 1
        cases.append((f"LDP-UCB-L event: t={t}, k={k}", k, math.sqrt(32 * k * math.log(t)) / eps, t ** -4.0))
    comps, shown = [], []
    n = samples(ev)
    for i, (label, k, lam, bound) in enumerate(cases):
        sums = noise(0.0, n * k, 4000 + i).reshape(n, k).sum(axis=1)
        hits = int((sums >= lam).sum())
        comps.append(below(hits, n, bound, label))
        shown.append(f"{label}: frequency {hits / n:.3g} vs bound {bound:.3g}")
    return Outcome(f"n = {n:,} sums each; " + "; ".join(shown), comparisons=comps)


def laplace_tail_hetero(claim, ev) -> Outcome:
    """Lemma 6 (v001): independent Laplace(b_i), nu >= sqrt(sum b_i^2), 0 < lambda < 2 sqrt 2 nu^2 / b_M:
    P{Y > lambda} <= exp(-lambda^2 / (8 nu^2)); and Agent 2's event P{sum L >= sqrt(8 log t^4
    sum eps_r^-2)} <= t^-4 once sum eps_r^-2 > eps_min^-2 log t^4.  Levels cycle through
    (0.5, 1, 2); the Laplace draws come from the CTL sampler at each level."""
    levels = (0.5, 1.0, 2.0)
    n = samples(ev)
    comps, shown = [], []

    def sums(k, seed):
        eps = [levels[i % len(levels)] for i in range(k)]
        cols = [_sampler("ctl", e)(0.0, n, seed + i) for i, e in enumerate(eps)]
        return np.sum(cols, axis=0), eps
    for i, (k, mult) in enumerate(((9, 5.0), (30, 6.0))):
        y, eps = sums(k, 6000 + 100 * i)
        b = [1 / e for e in eps]
        nu = math.sqrt(sum(x * x for x in b))
        lam = mult * nu
        assert lam < 2 * math.sqrt(2) * nu * nu / max(b)
        bound = math.exp(-lam ** 2 / (8 * nu * nu))
        hits = int((y > lam).sum())
        comps.append(below(hits, n, bound, f"Lemma 6: k={k}, lambda={mult:g} nu"))
        shown.append(f"Lemma 6, k={k}, lambda={mult:g} nu: frequency {hits / n:.3g} vs bound {bound:.3g}")
    eps_min = 0.5
    for i, t in enumerate((2, 3)):
        k = 1
        while sum(levels[j % 3] ** -2 for j in range(k)) <= eps_min ** -2 * 4 * math.log(t):
            k += 1
        y, eps = sums(k, 7000 + 100 * i)
        lam = math.sqrt(8 * 4 * math.log(t) * sum(e ** -2 for e in eps))
        hits = int((y >= lam).sum())
        comps.append(below(hits, n, t ** -4.0, f"Agent 2 event: t={t}, k={k}"))
        shown.append(f"Agent 2 event t={t}, k={k}: frequency {hits / n:.3g} vs t^-4 = {t ** -4.0:.3g}")
    return Outcome(f"n = {n:,} sums each; " + "; ".join(shown), comparisons=comps)


def hoeffding_g(claim, ev) -> Outcome:
    """v001's Hoeffding bound for g-values: P{mu >= mean of t g-values + b} <= t^-4 with
    b = sqrt(sum beta(eps_r) log t^4 / (2 t^2)), at small t (measurable), fixed eps."""
    from dpbench.mechanisms.ldp_curators import debias

    from .factors import beta
    comps, shown = [], []
    n = samples(ev)
    for i, (t, eps, mu) in enumerate(((2, 1.0, 0.5), (3, 2.0, 0.3), (3, 0.5, 0.9))):
        x = _sampler("ctb", eps)(mu, n * t, 5000 + i).reshape(n, t)
        g = np.where(x > 0.5, debias(1.0, eps), debias(0.0, eps)).mean(axis=1)
        b = math.sqrt(t * beta(eps) * 4 * math.log(t) / (2 * t * t))
        hits = int((mu >= g + b).sum())
        comps.append(below(hits, n, t ** -4.0, f"t={t}, eps={eps:g}, mu={mu:g}"))
        shown.append(f"t={t}, eps={eps:g}, mu={mu:g}: frequency {hits / n:.3g} vs t^-4 = {t ** -4.0:.3g}")
    return Outcome(f"n = {n:,} each; " + "; ".join(shown), comparisons=comps)


# ------------------------------------------------------------------ KL and DP
def _kl_ctl(p, q, eps):
    """KL between the CTL outputs of Bernoulli(p) and Bernoulli(q) rewards (numerical integration)."""
    def lap(x):                    # the Laplace(1/eps) density (scipy's frozen pdf costs 100x more per call)
        return 0.5 * eps * math.exp(-eps * abs(x))

    def dens(x, w):
        return w * lap(x - 1) + (1 - w) * lap(x)
    f = lambda x: dens(x, p) * math.log(dens(x, p) / dens(x, q))             # noqa: E731
    lim = 1 + 60 / eps
    return sum(integrate.quad(f, a, c, limit=200)[0] for a, c in ((-lim, 0), (0, 1), (1, lim)))


def _kl_bern(a, b):
    return sum(x * math.log(x / y) for x, y in ((a, b), (1 - a, 1 - b)) if x > 0)


def kl_lemma12(claim, ev) -> Outcome:
    """Lemma 12 / Fact 13 (v000): KL(M(Bern p) || M(Bern q)) <= (e^eps - e^-eps)^2 (p - q)^2 for
    CTB (closed form) and CTL (numerical integration), and Fact 13's bound (R - r)^2/(4 r R) for
    CTB, over a (p, q, eps) grid (spec item 7)."""
    grid_p = (0.01, 0.1, 0.5, 0.9, 0.99)
    worst = {"CTB": 0.0, "CTL": 0.0, "Fact 13": 0.0}
    bad = []
    for eps in (0.1, 0.5, 1.0, 2.0, 5.0):
        def lemma(p, q, eps=eps):
            return (math.exp(eps) - math.exp(-eps)) ** 2 * (p - q) ** 2

        for p in grid_p:
            for q in grid_p:
                if p == q:
                    continue
                a, c = ((pp * math.exp(eps) + 1 - pp) / (1 + math.exp(eps)) for pp in (p, q))
                kl_b = _kl_bern(a, c)
                ratios = (a / c, (1 - a) / (1 - c))
                fact = (max(ratios) - min(ratios)) ** 2 / (4 * min(ratios) * max(ratios))
                kl_l = _kl_ctl(p, q, eps) if eps >= 0.5 else None
                for name, kl, bound in (("CTB", kl_b, lemma(p, q)), ("Fact 13", kl_b, fact),
                                        ("CTL", kl_l, lemma(p, q))):
                    if kl is None:
                        continue
                    worst[name] = max(worst[name], kl / bound)
                    if kl > bound * (1 + 1e-9):
                        bad.append(f"{name} eps={eps:g} p={p:g} q={q:g}")
    statistic = "largest KL / bound: " + ", ".join(f"{k} {v:.3g}" for k, v in worst.items())
    return Outcome(statistic + (f"; violated at {', '.join(bad[:4])}" if bad else ""),
                   comparisons=(Exact(not bad, "every grid point within" if not bad else "bound violated"),))


def kl_looser(claim, ev) -> Outcome:
    """A KL-based lower bound's term Delta / KL(mu_a || mu*) (Basu et al. 2019; Chen et al. 2020) against
    Theorem 1's 1/Delta, for the gap 0.1 as the pair moves towards mean 0: it shrinks, so near 0
    or 1 the KL-based bound is the looser one (v000 Sec. 2, v001 Remark after Theorem 4)."""
    def kl(p, q):
        return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))
    gap = 0.1
    lows = (0.45, 0.2, 0.05, 0.01, 0.001)
    ratios = [(gap / kl(m, m + gap)) / (1 / gap) for m in lows]
    ok = all(np.diff(ratios) < 0) and ratios[-1] < 0.2
    return Outcome("(Delta/KL) / (1/Delta) with Delta = 0.1 at mu_a = "
                   + ", ".join(f"{m:g}: {r:.3g}" for m, r in zip(lows, ratios)),
                   comparisons=(Exact(ok, "shrinks towards 0 as the means approach 0" if ok else "does not shrink"),))


def analytic_dp(claim, ev) -> Outcome:
    """sup_y |log p(y|r)/p(y|r')| over an (r, r') grid: <= eps for CTL/CTB with equality at (0, 1);
    < eps for CTL-S/CTB-S, approaching eps as |r| grows (spec item 2)."""
    from dpbench.mechanisms.ldp_curators import ctb_probability, sigmoid
    eps = 1.0
    grid = np.linspace(0, 1, 11)
    ctl = max(eps * abs(a - b) for a in grid for b in grid)                       # Laplace: eps |r - r'|
    ctb = max(abs(math.log(ctb_probability(a, eps) / ctb_probability(b, eps))) for a in grid for b in grid)
    ctb = max(ctb, max(abs(math.log((1 - ctb_probability(a, eps)) / (1 - ctb_probability(b, eps))))
                       for a in grid for b in grid))
    wide = [2.0, 5.0, 10.0]
    ctl_s = [eps * abs(sigmoid(r) - sigmoid(-r)) for r in wide]
    ctb_s = [abs(math.log(ctb_probability(sigmoid(r), eps) / ctb_probability(sigmoid(-r), eps))) for r in wide]
    ok = (abs(ctl - eps) < 1e-12 and abs(ctb - eps) < 1e-12 and all(v < eps for v in ctl_s + ctb_s)
          and ctl_s == sorted(ctl_s) and ctb_s == sorted(ctb_s) and ctl_s[-1] > 0.999 * eps)
    return Outcome(f"eps = 1: CTL sup {ctl:.6f}, CTB sup {ctb:.6f} (at (0, 1)); CTL-S at r = +-2, 5, 10: "
                   + ", ".join(f"{v:.6f}" for v in ctl_s) + "; CTB-S: " + ", ".join(f"{v:.6f}" for v in ctb_s),
                   comparisons=(Exact(ok, "as stated" if ok else "not as stated"),))


def audit(claim, ev) -> Outcome:
    """A black-box audit (``measures.catalog_audit``) of catalog mechanism ``args.mechanism`` (or
    the negative control ``ctb_towards_reward``) at its claimed eps; ``args.expect`` = 'private'
    or 'violated' (``measures.audit_outcome``); with ``args.tight``, also the audit's test that
    the mechanism is *not* (tight x eps)-DP rejects (the certified level reaches tight x eps)."""
    from dpbench.reporting.measures import audit_layers, audit_outcome, catalog_audit
    from verify.audit import controls
    from verify.audit import statistics as st
    args = claim.require("args")
    name = args["mechanism"]
    mech = controls.ctb_towards_reward(1.0) if name == "ctb_towards_reward" else _sampler(name, 1.0)
    x, xp = args.get("x", [0.0, 1.0])
    n, delta = samples(ev), mech.claimed_delta
    res, statistic = catalog_audit(mech, name, x, xp, eps=mech.claimed_eps, n=n)
    out = audit_outcome(res, args.get("expect", "private") == "violated", statistic,
                        eps=mech.claimed_eps, delta=delta, n=n, layers=audit_layers(args))
    if "tight" in args:
        w, level = res.law.witness, float(args["tight"]) * mech.claimed_eps
        p = st.certifier_for(delta).p_value(w["count_x"], n, w["count_x_prime"], n, level, delta)
        out.comparisons += (Hypothesis(float(p), True, f"tight: not ({level:g}, {delta:g})-DP on the "
                                                       f"audit's event (p = {p:.2g})"),)
    return out


# ----------------------------------------------------------------- errata
def constant_r5(claim, ev):
    """1 + 4 sum_t t^-2 (each tail <= 2 t^-4 over t x t terms) = 1 + 2 pi^2/3 (R5)."""
    return 1 + 4 * math.pi ** 2 / 6, "1 + 4 zeta(2)"


def ctb_literal_formula(claim, ev):
    """R9-R11: the literal ((eps + 1)/(eps - 1))^2 at eps = 2 (9) against the paper's '1.7'."""
    return ((2 + 1) / (2 - 1)) ** 2, "literal v001 formula at eps = 2"


def sigmoid_gap_r3(claim, ev) -> Outcome:
    """R3 (Lemma 9 corrected): the CTB-S response gap is c_eps (E s(mu_a + Z) - E s(mu_b + Z)) >=
    c_s c_eps (mu_a - mu_b), c_s = 0.2066/e, on the 20-arm Gaussian instance, eps in {0.5, 2}."""
    from .bounds import C_S_GAUSSIAN
    from .factors import c_eps
    means = sorted(set(twenty_arm_means()))
    es = {m: expected_sigmoid(m) for m in means}
    worst = min((es[a] - es[b]) / (a - b) for a in means for b in means if a > b)
    ok = worst >= C_S_GAUSSIAN
    text = ", ".join(f"eps={e:g}: smallest gap/(c_eps Delta) {worst:.4f}, c_eps {c_eps(e):.4f}" for e in (0.5, 2.0))
    return Outcome(f"{text}; c_s = {C_S_GAUSSIAN:.4f}", comparisons=(Exact(ok, f"{'>=' if ok else '<'} c_s"),))


def sign_r4(claim, ev) -> Outcome:
    """R4: with lambda >= mu the corrected integrand [s(x + lambda) - s(x + mu)] is >= 0 and equals
    e^-x (e^-mu - e^-lambda)/((1 + e^-x-lambda)(1 + e^-x-mu)); the printed order is <= 0."""
    lam, mu = 0.8, 0.3
    xs = np.linspace(-10, 10, 201)
    s = lambda v: 1 / (1 + np.exp(-v))                                    # noqa: E731
    corrected = s(xs + lam) - s(xs + mu)
    closed = np.exp(-xs) * (np.exp(-mu) - np.exp(-lam)) / ((1 + np.exp(-xs - lam)) * (1 + np.exp(-xs - mu)))
    printed = -corrected
    ok = bool(np.all(corrected >= 0) and np.allclose(corrected, closed) and np.all(printed <= 0))
    return Outcome(f"corrected integrand min {corrected.min():.3g} >= 0, matches the closed form to "
                   f"{np.max(np.abs(corrected - closed)):.2g}; printed order max {printed.max():.3g}",
                   comparisons=(Exact(ok, "sign corrected" if ok else "no"),))


def register(ev: Evidence) -> Evidence:
    """Add every measurement of this module to ``ev`` under its function name."""
    for fn in (table_a1, table_a2, table_a4, lemma7_E_s_prime, lemma7_at_0107, lemma7_sup, sigmoid_gap_floor,
               factor_difference, ctl_moments, ctb_law, g_ctb_moments, laplace_tail, laplace_tail_hetero, hoeffding_g,
               kl_lemma12, kl_looser,
               analytic_dp, audit, constant_r5, ctb_literal_formula, sigmoid_gap_r3, sign_r4):
        ev.measure(fn.__name__, fn)
    return ev


__all__ = ["register", "lemma7_constants", "sigmoid_gaps", "expected_sigmoid", "tolerance_of", "compare_table",
           "MC_SAMPLES", "samples"]
