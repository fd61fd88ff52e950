"""Every privatiser against its exact law, and every batched form against the sum of m single reports.

One report of each mechanism is its component's ``privatize`` (what ``dpbench.sampler`` objects
sample and the audit counts); the engine's ``respond`` draws the sum of m reports at once where
the law allows (``Mechanism.sample_sum`` runs that very ``respond``).  Here:

* the random primitives (``laplace``, ``laplace_sum``, ``gamma``, ``beta``, ``binomial``,
  ``normal``) and the environments' batched draws (``draw_sum``: binomial and Gaussian sums)
  against their exact laws;
* each single report against its exact law (scipy.stats, an exact CDF or pmf), with the scale
  computed here from the paper's formula, not taken from the package;
* each batched form against the law of m single reports: exact first two moments, and a
  two-sample KS test against m summed single reports.

All tests run at ALPHA = 1e-6 on fixed seeds.  Scale tests are z-tests of the second central
moment E[(Y - mu)^2] = k2 (standard error from the law's fourth cumulant k4); each asserts its
own power: a noise scale x0.5 or x1.5 moves the statistic by at least 2 Z standard errors, so
such a bug fails with probability > 1 - 1e-6.  ``tests/mutations.toml`` lists the mutations
these tests were checked to catch.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpbench
from dpbench import randomness as rng
from dpbench.engine.caching import cached_njit
from dpbench.engine.catalog import ENVIRONMENTS
from dpbench.engine.components import draw_sum
from dpbench.engine.mechanism import Mechanism
from dpbench.mechanisms import privacy_levels as pl
from dpbench.mechanisms.bernoulli_trick import BernoulliTrick
from dpbench.mechanisms.central_laplace import LaplaceReleaseMechanism, laplace_release
from dpbench.mechanisms.ldp_curators import (
    CTBMechanism,
    CTBSMechanism,
    CTLMechanism,
    CTLSMechanism,
    HeteroCuratorMechanism,
)
from dpbench.mechanisms.perturbations import (
    BetaPerturbationMechanism,
    GaussPerturbationMechanism,
    Lemma15Law,
    Lemma15Mechanism,
)
from dpbench.mechanisms.shuffle_amplification import LaplaceRandomizerMechanism, shuffle_batch
from dpbench.mechanisms.tree_counter import hybrid_prefix_sums, tree_level_eps, tree_prefix_sums
from dpbench.mechanisms.truncation import TruncatedLaplaceMechanism

ALPHA = 1e-6
Z = stats.norm.isf(ALPHA / 2)          # 4.89: two-sided z threshold
N = 200_000


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


# ------------------------------------------------------------------ test statistics
def laplace_cumulants(b, m=1):
    """(k2, k4) of the sum of m i.i.d. Laplace(0, b): 2 m b^2 and 12 m b^4."""
    return 2.0 * m * b * b, 12.0 * m * b ** 4


def assert_scale(y, mean, k2, k4, what, power=True):
    """z-test (two-sided, ALPHA) of E[(Y - mean)^2] = k2 for a law with fourth cumulant k4, and
    of E[Y] = mean; with ``power``, also that a scale x0.5 or x1.5 of the noise (k2 x0.25 or
    x2.25) would be rejected by at least 2 Z standard errors."""
    n = y.size
    se = math.sqrt((k4 + 2.0 * k2 * k2) / n)             # sd of (Y - mean)^2, over sqrt(n)
    z = (np.mean((y - mean) ** 2) - k2) / se
    assert abs(z) < Z, f"{what}: second moment {np.mean((y - mean) ** 2):.6g} vs {k2:.6g} (z = {z:.1f})"
    z_mean = (y.mean() - mean) / math.sqrt(k2 / n)
    assert abs(z_mean) < Z, f"{what}: mean {y.mean():.6g} vs {mean:.6g} (z = {z_mean:.1f})"
    if power:
        # the smallest shift, x0.5 -> k2 * 0.25 (its own standard error is smaller still)
        assert 0.75 * k2 / se >= 2 * Z, f"{what}: too few samples to see a scale x0.5 / x1.5"


def assert_ks(sample, cdf, what):
    p = stats.kstest(sample, cdf).pvalue
    assert p > ALPHA, f"{what}: KS p-value {p:.3g}"


def assert_same_law(a, b, what):
    p = stats.ks_2samp(a, b).pvalue
    assert p > ALPHA, f"{what}: two-sample KS p-value {p:.3g}"


def assert_pmf(values, support, pmf, what):
    """Chi-square test of integer-valued draws against an exact pmf (bins with expected count
    < 20 pooled with their neighbour; the rest of the mass in one bin)."""
    values = np.asarray(values)
    n = values.size
    counts = np.array([np.count_nonzero(values == s) for s in support], dtype=float)
    expected = n * np.asarray(pmf, dtype=float)
    assert counts.sum() == n or expected.sum() < n, f"{what}: draws outside the support"
    obs, exp, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(counts, expected):
        acc_o += o
        acc_e += e
        if acc_e >= 20:
            obs.append(acc_o)
            exp.append(acc_e)
            acc_o = acc_e = 0.0
    if obs:
        obs[-1] += acc_o
        exp[-1] += acc_e
    rest = n - sum(obs)
    if n - sum(exp) > 1e-9 * n:
        obs.append(rest)
        exp.append(n - sum(exp))
    p = stats.chisquare(obs, exp).pvalue
    assert p > ALPHA, f"{what}: chi-square p-value {p:.3g}"


def assert_bernoulli(bits, p, what, p_alternatives=()):
    k = int(np.sum(bits))
    assert set(np.unique(bits)) <= {0.0, 1.0}
    pv = stats.binomtest(k, bits.size, p).pvalue
    assert pv > ALPHA, f"{what}: {k}/{bits.size} ones vs p = {p:.6g} (p-value {pv:.3g})"
    for q in p_alternatives:                           # power against the mutated laws
        assert abs(q - p) / math.sqrt(p * (1 - p) / bits.size) >= 2 * Z, f"{what}: no power against p = {q}"


# ------------------------------------------------------------------ primitives
LAPLACE, LAPLACE_SUM, GAMMA, BETA, BINOMIAL, NORMAL = range(6)


@cached_njit
def _primitive_draws(kind, a, b, seed, out):
    """out[i] = one draw of primitive ``kind`` with parameters (a, b), after np.random.seed(seed)."""
    np.random.seed(seed)
    for i in range(out.shape[0]):
        if kind == LAPLACE:
            out[i] = rng.laplace(a)
        elif kind == LAPLACE_SUM:
            out[i] = rng.laplace_sum(int(a), b)
        elif kind == GAMMA:
            out[i] = rng.gamma(a, b)
        elif kind == BETA:
            out[i] = rng.beta(a, b)
        elif kind == BINOMIAL:
            out[i] = rng.binomial(int(a), b)
        else:
            out[i] = rng.normal(a, b)


def draws(kind, a, b=0.0, n=N, seed=1):
    out = np.empty(n)
    _primitive_draws(kind, float(a), float(b), seed, out)
    return out


def test_laplace_primitive_is_numpys_legacy_sampler_bit_for_bit():
    """randomness.laplace inverts one uniform exactly as NumPy's legacy ``laplace``; numba's
    Mersenne Twister is seeded like NumPy's, so the two streams agree bit for bit (a change of
    the half chosen, the sign or the scale shows at once, which a KS test at 1e-6 can miss)."""
    ours = draws(LAPLACE, 0.7, n=100_000, seed=12345)
    assert np.array_equal(ours, np.random.RandomState(12345).laplace(0.0, 0.7, 100_000))


def test_laplace_primitive():
    y = draws(LAPLACE, 1.7)
    assert_ks(y, stats.laplace(scale=1.7).cdf, "laplace(1.7)")
    assert_scale(y, 0.0, *laplace_cumulants(1.7), "laplace(1.7)")


@pytest.mark.parametrize("m", [1, 2, 7, 1000])
def test_laplace_sum_is_the_sum_of_m_laplaces(m):
    """Gamma(m, b) - Gamma(m, b): exact moments of a sum of m Lap(b), and its whole law against
    m summed ``laplace`` draws (m <= 7) or the normal limit (m = 1000, excess kurtosis 0.003)."""
    b = 0.6
    y = draws(LAPLACE_SUM, m, b, seed=m)
    assert_scale(y, 0.0, *laplace_cumulants(b, m), f"laplace_sum({m}, {b})")
    if m <= 7:
        singles = draws(LAPLACE, b, n=N * m, seed=100 + m).reshape(N, m).sum(axis=1)
        assert_same_law(y, singles, f"laplace_sum({m}) vs {m} laplace draws")
    else:
        assert_ks(y, stats.norm(scale=math.sqrt(2.0 * m) * b).cdf, f"laplace_sum({m}) vs normal limit")


@pytest.mark.parametrize("shape", [0.3, 1.0, 2.5, 50.0, 1e4])
def test_gamma_primitive(shape):
    y = draws(GAMMA, shape, 1.3)
    assert_ks(y, stats.gamma(shape, scale=1.3).cdf, f"gamma({shape})")


@pytest.mark.parametrize("a,b", [(0.5, 0.5), (2.0, 5.0), (134.0, 934.0)])
def test_beta_primitive(a, b):
    assert_ks(draws(BETA, a, b), stats.beta(a, b).cdf, f"beta({a}, {b})")


@pytest.mark.parametrize("n,p", [(1, 0.3), (13, 0.7), (1000, 0.05), (100_000, 0.5)])
def test_binomial_primitive(n, p):
    y = draws(BINOMIAL, n, p)
    lo, hi = stats.binom(n, p).ppf([1e-12, 1 - 1e-12]).astype(int)
    support = np.arange(lo, hi + 1)
    assert_pmf(y, support, stats.binom(n, p).pmf(support), f"binomial({n}, {p})")


def test_normal_primitive():
    y = draws(NORMAL, 0.4, 2.5)
    assert_ks(y, stats.norm(0.4, 2.5).cdf, "normal(0.4, 2.5)")
    assert_scale(y, 0.4, 2.5 ** 2, 0.0, "normal(0.4, 2.5)")


# ------------------------------------------------------------------ environments' batched draws
@cached_njit
def _draw_sums(env, arm, m, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = draw_sum(env, arm, m)


def sums(env, arm, m, n=N, seed=1):
    out = np.empty(n)
    _draw_sums(env, arm, m, seed, out)
    return out


def _env(name, **params):
    return ENVIRONMENTS.get_spec(name).build(**params)


@pytest.mark.parametrize("m", [1, 13])
def test_bernoulli_draw_sum_is_binomial(m):
    inst = _env("bernoulli", means=[0.3, 0.8])
    y = sums(inst.env, 1, m, seed=m)
    support = np.arange(m + 1)
    assert_pmf(y, support, stats.binom(m, 0.8).pmf(support), f"bernoulli draw_sum m={m}")


def test_gaussian_draw_sum_is_the_sum_of_m_normals():
    inst = _env("gaussian", means=[0.5, -1.0], sigma=2.0)
    m = 13
    y = sums(inst.env, 1, m)
    assert_ks(y, stats.norm(-m, math.sqrt(m) * 2.0).cdf, "gaussian draw_sum")
    assert_scale(y, -m, m * 4.0, 0.0, "gaussian draw_sum")


@pytest.mark.parametrize("noise", ["rademacher", "gaussian"])
def test_linear_draw_sum_is_the_sum_of_m_rewards(noise):
    inst = _env("linear", actions="1,0;0.6,0.8", theta="0.3,0.5", noise=noise, sigma=0.7)
    mu, m = 0.3 * 0.6 + 0.5 * 0.8, 13
    y = sums(inst.env, 1, m)
    if noise == "gaussian":
        assert_ks(y, stats.norm(m * mu, math.sqrt(m) * 0.7).cdf, "linear gaussian draw_sum")
        assert_scale(y, m * mu, m * 0.49, 0.0, "linear gaussian draw_sum")
    else:                                              # 2 Binomial(m, (1 + mu)/2) - m
        support = np.arange(m + 1)
        assert_pmf((y + m) / 2, support, stats.binom(m, 0.5 * (1 + mu)).pmf(support), "linear rademacher")


# ------------------------------------------------------------------ single reports: exact laws
# (mechanism, x, location of the report, Laplace scale from the paper's formula)
LAPLACE_REPORTS = {
    "ctl eps=0.5 x=0.3": (lambda: CTLMechanism(eps=0.5), 0.3, 0.3, 2.0),
    "ctl eps=2 x=1": (lambda: CTLMechanism(eps=2.0), 1.0, 1.0, 0.5),
    "ctl_s eps=1 x=2.5": (lambda: CTLSMechanism(eps=1.0), 2.5, sigmoid(2.5), 1.0),
    "hetero ctl, fixed level 0.8": (lambda: HeteroCuratorMechanism(levels=pl.fixed(0.8), binary=False), 0.4,
                                    0.4, 1.25),
    "truncated_laplace inside B": (lambda: TruncatedLaplaceMechanism(eps=2.0, bound=2.0), 1.5, 1.5, 2.0),
    "truncated_laplace beyond B (zeroed)": (lambda: TruncatedLaplaceMechanism(eps=2.0, bound=2.0), -5.0, 0.0, 2.0),
    "laplace_pm1 calibrated": (lambda: LaplaceRandomizerMechanism(eps=1.0), -0.7, -0.7, 2.0),
    "laplace_pm1 paper": (lambda: LaplaceRandomizerMechanism(eps=1.0, noise_scale="paper"), 0.9, 0.9, 1.0),
    "laplace_release n=10": (lambda: LaplaceReleaseMechanism(eps=0.5, n=10, width=2.0, others=7.0), 1.5,
                             0.85, 0.4),
}


@pytest.mark.parametrize("case", sorted(LAPLACE_REPORTS))
def test_laplace_report_law(case):
    make, x, loc, b = LAPLACE_REPORTS[case]
    y = make()(x, N, 11)
    assert_ks(y, stats.laplace(loc, b).cdf, case)
    assert_scale(y, loc, *laplace_cumulants(b), case)


# the paper-literal floating-point forms (arithmetic="float") keep the paper's law exactly
FLOAT_REPORTS = {
    "ctl float": (lambda: CTLMechanism(eps=0.5, arithmetic="float"), 0.3, 0.3, 2.0),
    "ctl_s float": (lambda: CTLSMechanism(eps=1.0, arithmetic="float"), 2.5, sigmoid(2.5), 1.0),
    "truncated_laplace float": (lambda: TruncatedLaplaceMechanism(eps=2.0, bound=2.0, arithmetic="float"), 1.5, 1.5,
                                2.0),
    "laplace_pm1 float": (lambda: LaplaceRandomizerMechanism(eps=1.0, arithmetic="float"), -0.7, -0.7, 2.0),
    "laplace_release float": (lambda: LaplaceReleaseMechanism(eps=0.5, n=10, width=2.0, others=7.0,
                                                              arithmetic="float"), 1.5, 0.85, 0.4),
}


@pytest.mark.parametrize("case", sorted(FLOAT_REPORTS))
def test_float_forms_keep_the_papers_law(case):
    make, x, loc, b = FLOAT_REPORTS[case]
    mech = make()
    assert mech.float_unsafe
    y = mech(x, N, 11)
    assert_ks(y, stats.laplace(loc, b).cdf, case)
    assert_scale(y, loc, *laplace_cumulants(b), case)


@pytest.mark.parametrize("case", ["truncated_laplace", "laplace_pm1"])
def test_float_batched_forms_keep_the_papers_law(case):
    mech = (TruncatedLaplaceMechanism(eps=1.0, bound=2.0, arithmetic="float") if case == "truncated_laplace"
            else LaplaceRandomizerMechanism(eps=1.0, arithmetic="float"))
    x, m, b = 0.5, 7, (4.0 if case == "truncated_laplace" else 2.0)
    batched = mech.sample_sum(x, m, 100_000, 21)
    assert_scale(batched, m * x, *laplace_cumulants(b, m), f"{case} float: batched")


def test_central_release_is_the_policies_release():
    """The catalog's laplace_release samples the very release DP-SE, DP Robust SE and
    linear_central make (central_laplace.laplace_release), bit for bit."""
    mech = LaplaceReleaseMechanism(eps=0.5, n=10, width=2.0, others=7.0)
    ours = mech(1.5, 1000, 5)
    theirs = _policy_releases(8.5, 10.0, 2.0, 0.5, rng.stream_seed(5), 1000)
    assert np.array_equal(ours, theirs)


@cached_njit
def _release_loop(total, n, width, eps, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = laplace_release(total, n, width, eps)


def _policy_releases(total, n, width, eps, seed, size):
    out = np.empty(size)
    _release_loop(total, n, width, eps, np.uint32(seed), out)
    return out


@pytest.mark.parametrize("eps", [0.5, 3.0])
def test_ctb_report_law(eps):
    for x, sig in ((0.0, False), (0.3, False), (1.0, False), (-1.2, True)):
        r = sigmoid(x) if sig else x
        p = (r * math.exp(eps) + 1 - r) / (1 + math.exp(eps))
        alt = [(r * math.exp(e) + 1 - r) / (1 + math.exp(e)) for e in (0.5 * eps, 1.5 * eps)]
        bits = (CTBSMechanism if sig else CTBMechanism)(eps=eps)(x, N, 3)
        assert_bernoulli(bits, p, f"ctb eps={eps} x={x}", alt if r != 0.5 else ())


def test_hetero_curator_mixes_the_levels():
    """eps_t uniform on {0, 0.5, 2}: a 0.0 report (nothing sent) w.p. 1/3, else CTL / CTB at eps_t."""
    levels = pl.discrete([0.0, 0.5, 2.0])
    x = 0.7
    y = HeteroCuratorMechanism(levels=levels, binary=False)(x, N, 5)
    edges = np.concatenate([[-np.inf], np.linspace(-4.0, 5.0, 41), [np.inf]])
    cdf = np.array([(float(e >= 0.0) + stats.laplace(x, 2.0).cdf(e) + stats.laplace(x, 0.5).cdf(e)) / 3
                    for e in edges])
    counts = np.histogram(y, edges)[0]
    assert stats.chisquare(counts, N * np.diff(cdf)).pvalue > ALPHA
    bits = HeteroCuratorMechanism(levels=levels, binary=True)(x, N, 6)
    p = [(x * math.exp(e) + 1 - x) / (1 + math.exp(e)) for e in (0.5, 2.0)]
    alt = [sum((x * math.exp(c * e) + 1 - x) / (1 + math.exp(c * e)) for e in (0.5, 2.0)) / 3 for c in (0.5, 1.5)]
    assert_bernoulli(bits, sum(p) / 3, "hetero ctb", alt)


def test_perturbation_draws_are_the_policies_laws():
    """One arm's theta as DP-FTPL-Gauss / -Beta / -New draw it (the same compiled draws),
    against the laws of seed 002 Alg. 1-3 computed here."""
    g = GaussPerturbationMechanism(eps=1.0, delta=0.01, pulls=8, others=3.0)
    y = g(0.5, N, 1)
    assert_ks(y, stats.norm(3.5 / 8, math.sqrt(2.0 / 8)).cdf, "ftpl_gauss")
    assert_scale(y, 3.5 / 8, 2.0 / 8, 0.0, "ftpl_gauss")
    b = BetaPerturbationMechanism(eps=1.0, delta=0.01, pulls=40, others=10.0)
    k = 40 // 8 + 1
    assert_ks(b(1.0, N, 2), stats.beta(11 + 1 + k, 40 - 11 + 1 + k).cdf, "ftpl_beta")
    lem = Lemma15Mechanism(eps=1.0, delta=0.01, pulls=10, others=4.0)
    y = lem(1.0, N, 3)
    law = Lemma15Law(0.5, 10, 1.0, 0.01)
    assert_ks(y, law.cdf, "lemma15")
    lam, a = 10.0, law.width                                   # Var = E[S^2], S truncated Exp(lam) on [0, A]
    q = math.exp(-lam * a)
    var = (2 / lam ** 2 - q * (a * a + 2 * a / lam + 2 / lam ** 2)) / (1 - q)
    assert abs(np.mean((y - 0.5) ** 2) - var) < Z * np.std((y - 0.5) ** 2) / math.sqrt(N)
    for c in (0.5, 1.5):                                       # power: the law at scale c/(N eps)
        alt = Lemma15Law(0.5, 10 / c, 1.0, 0.01)
        assert stats.kstest(y, alt.cdf).pvalue < ALPHA


def test_tree_counter_noise():
    """Each p-sum gets Lap(2B/eps') once (seed 003 Alg. 2): S_hat(4) - S(4) is one Laplace,
    S_hat(7) - S(7) three; the hybrid counter's (seed 002 baselines) release at t = 4 carries
    three Lap(2/eps) of the logarithmic mechanism, at t = 6 also one tree p-sum Lap(4/eps)."""
    stream = np.array([0.5, -1.0, 0.25, 1.0, 0.0, -0.5, 1.0, 0.75])
    exact = np.cumsum(stream)
    eps, reps = 2.0, 20_000
    scale = 2.0 * 1.5 / tree_level_eps(eps, 8)                  # B = 1.5; eps' = eps / 4 levels
    err = np.array([tree_prefix_sums(stream, np.full(8, 1.5), eps=eps, seed=s) - exact for s in range(reps)])
    assert_ks(err[:, 3], stats.laplace(scale=scale).cdf, "tree S(4)")
    assert_scale(err[:, 3], 0.0, *laplace_cumulants(scale), "tree S(4)")
    assert_scale(err[:, 6], 0.0, *laplace_cumulants(scale, 3), "tree S(7)")
    err = np.array([hybrid_prefix_sums(stream, eps=eps, seed=s) - exact for s in range(reps)])
    assert_scale(err[:, 3], 0.0, *laplace_cumulants(2.0 / eps, 3), "hybrid S(4)")
    k2, k4 = laplace_cumulants(2.0 / eps, 3)
    t2, t4 = laplace_cumulants(2.0 * 2 / eps)                   # block j = 2: Lap(2j/eps)
    assert_scale(err[:, 5], 0.0, k2 + t2, k4 + t4, "hybrid S(6)")


def test_shuffler_reports_are_laplace_reports():
    """The shuffler (seed 004 Alg. 3) un-permutes nothing: each slot's report is its client's
    reward for the slot's action plus Laplace(s)."""
    n, scale = 100_000, 0.8
    counts = np.array([60_000, 40_000])
    rewards = np.column_stack([np.linspace(-1, 1, n), -np.linspace(-1, 1, n)])
    actions, report, client = shuffle_batch(counts, rewards, scale, seed=4)
    noise = report - rewards[client, actions]
    assert_ks(noise, stats.laplace(scale=scale).cdf, "shuffle reports")
    assert_scale(noise, 0.0, *laplace_cumulants(scale), "shuffle reports")


# ------------------------------------------------------------------ batched forms
# (mechanism, x, m, reward after the pre-map, Laplace scale of one report)
BATCHED = {
    "ctl m=5": (lambda: CTLMechanism(eps=1.0), 0.2, 5, 0.2, 1.0),
    "ctl_s m=3": (lambda: CTLSMechanism(eps=2.0), -1.0, 3, sigmoid(-1.0), 0.5),
    "truncated_laplace m=7 inside": (lambda: TruncatedLaplaceMechanism(eps=1.0, bound=2.0), 1.2, 7, 1.2, 4.0),
    "truncated_laplace m=7 beyond": (lambda: TruncatedLaplaceMechanism(eps=1.0, bound=2.0), 3.0, 7, 0.0, 4.0),
    "truncated_laplace m=1": (lambda: TruncatedLaplaceMechanism(eps=3.0, bound=0.5), 0.4, 1, 0.4, 1.0 / 3.0),
    "laplace_pm1 m=7": (lambda: LaplaceRandomizerMechanism(eps=1.0), 0.5, 7, 0.5, 2.0),
    "laplace_pm1 paper m=40": (lambda: LaplaceRandomizerMechanism(eps=2.0, noise_scale="paper"), -0.25, 40,
                               -0.25, 0.5),
    "hetero ctl m=1": (lambda: HeteroCuratorMechanism(levels=pl.fixed(1.5), binary=False), 0.6, 1, 0.6, 1 / 1.5),
}


@pytest.mark.parametrize("case", sorted(BATCHED))
def test_batched_form_is_the_sum_of_m_reports(case):
    make, x, m, r, b = BATCHED[case]
    mech = make()
    n = 100_000
    batched = mech.sample_sum(x, m, n, 21)
    assert_scale(batched, m * r, *laplace_cumulants(b, m), f"{case}: batched")
    singles = mech.sample(x, n * m, 22).reshape(n, m).sum(axis=1)
    assert_same_law(batched, singles, f"{case}: batched vs {m} single reports")


def test_batched_bits_are_binomial():
    """CTB and the Bernoulli trick answer m users with m bits: Binomial(m, p)."""
    m = 9
    support = np.arange(m + 1)
    ctb = CTBMechanism(eps=1.0)
    p = (0.3 * math.e + 0.7) / (1 + math.e)
    assert_pmf(ctb.sample_sum(0.3, m, N, 1), support, stats.binom(m, p).pmf(support), "ctb batched")
    trick = Mechanism(BernoulliTrick(True), eps=math.inf, name="bernoulli_trick")
    assert_bernoulli(trick(0.35, N, 2), 0.35, "bernoulli trick")
    assert_pmf(trick.sample_sum(0.35, m, N, 3), support, stats.binom(m, 0.35).pmf(support), "bernoulli trick batched")


def test_hetero_curator_answers_one_user_per_response():
    mech = HeteroCuratorMechanism(levels=pl.discrete([0.5, 2.0]), binary=True)
    with pytest.raises(dpbench.InputError, match="m must be"):
        mech.sample_sum(0.5, 2, 10, 0)
    assert_same_law(mech.sample_sum(0.3, 1, N, 1), mech.sample(0.3, N, 2), "hetero respond vs privatize")
