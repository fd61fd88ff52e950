"""Seed 002 perturbation laws: exact CDFs, samplers and catalog entries (spec seed_002.md §4-5)."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy import special, stats

import dpbench
from dpbench.mechanisms import perturbations as P
from dpbench.validation import InputError

ALPHA = 1e-6           # KS rejection level: a correct sampler fails with probability 1e-6
DRAWS = 200_000


def _ks_pvalue(law, seed=7, draws=DRAWS):
    return stats.kstest(law.sample(draws, seed), law.cdf).pvalue


# ------------------------------------------------------------- samplers vs CDFs
LAWS = {
    "gauss v=2 N=8": P.GaussianLaw(0.4, 8, 2.0),
    "gauss v=1 N=1000": P.GaussianLaw(0.7, 1000, 1.0),
    "beta k R=0 N=1065": P.BetaLaw.from_history(0, 1065),
    "beta k R=400 N=1065": P.BetaLaw.from_history(400, 1065),
    "beta no-k R=0 N=10": P.BetaLaw.from_history(0, 10, extra_k=False),
    "beta big shapes": P.BetaLaw(2.5e5, 7.5e5),
    "lemma15 (1, 0.01) N=10": P.Lemma15Law(0.3, 10, 1.0, 0.01),
    "lemma15 (0.1, 0.01) N=10": P.Lemma15Law(0.3, 10, 0.1, 0.01),
    "lemma15 (2, 0.2) N=1": P.Lemma15Law(0.0, 1, 2.0, 0.2),
    "lemma15 (1e-6, 0.01) N=5": P.Lemma15Law(0.5, 5, 1e-6, 0.01),
    "lemma15 Laplace (1, 0) N=7": P.Lemma15Law(0.5, 7, 1.0, 0.0),
    "lemma15 uniform (0, 0.01) N=3": P.Lemma15Law(0.5, 3, 0.0, 0.01),
}


@pytest.mark.parametrize("name", sorted(LAWS))
def test_sampler_matches_exact_cdf(name):
    assert _ks_pvalue(LAWS[name]) > ALPHA


@pytest.mark.parametrize("sampled,claimed", [
    (P.Lemma15Law(0.3, 10, 1.0, 0.01), P.Lemma15Law(0.3, 10, 1.1, 0.01)),     # wrong scale
    (P.Lemma15Law(0.3, 10, 1.0, 0.01), P.Lemma15Law(0.3, 10, 1.0, 0.03)),     # wrong truncation
    (P.GaussianLaw(0.4, 8, 2.0), P.GaussianLaw(0.4, 8, 1.0)),                 # wrong variance factor
    (P.BetaLaw.from_history(0, 100), P.BetaLaw.from_history(0, 100, False)),  # k missing
])
def test_ks_catches_a_wrong_law(sampled, claimed):
    """Negative controls: the same KS test rejects a sampler checked against a different law."""
    assert stats.kstest(sampled.sample(DRAWS, 7), claimed.cdf).pvalue < ALPHA


def test_lemma15_moments():
    """E[X] = x0 and Var[X] = E[S^2] of the truncated exponential S (spec §4.1)."""
    law = P.Lemma15Law(0.3, 10, 1.0, 0.01)
    lam, a = 10.0, law.width
    q = math.exp(-lam * a)
    var = (2 / lam ** 2 - q * (a * a + 2 * a / lam + 2 / lam ** 2)) / (1 - q)
    assert var == pytest.approx(0.016640, abs=1e-6)              # spec §10.1
    x = law.sample(DRAWS, 3)
    se = math.sqrt(var / DRAWS)
    assert abs(x.mean() - 0.3) < 6 * se
    assert abs(x.var() - var) < 6 * var * math.sqrt(2.0 / DRAWS) * 2


# ------------------------------------------------------------ Lemma 15 exactness
@pytest.mark.parametrize("eps,delta,n,width", [
    (1.0, 0.01, 10, 0.4465), (1.0, 0.01, 50, 0.0893), (0.1, 0.01, 10, 1.8339),
    (0.01, 0.001, 3, 59.86), (2.0, 0.2, 1, 1.4158)])
def test_lemma15_cdf_landmarks(eps, delta, n, width):
    law = P.Lemma15Law(0.25, n, eps, delta)
    a = law.width
    assert a == pytest.approx(width, rel=1e-4)                    # spec §10.1 table
    assert law.cdf(0.25 - a) == pytest.approx(0.0, abs=1e-15)
    assert law.cdf(0.25) == 0.5
    assert law.cdf(0.25 + a) == pytest.approx(1.0, abs=1e-15)
    assert law.cdf(0.25 - a + 1.0 / n) == pytest.approx(delta, rel=1e-9)   # the delta edge mass
    xs = np.union1d(np.linspace(0.25 - 1.2 * a, 0.25 + 1.2 * a, 10_001), law.breakpoints())
    f = law.cdf(xs)
    assert np.all(np.diff(f) >= 0)
    np.testing.assert_allclose(law.cdf(0.5 - xs), 1 - f, atol=1e-14)      # symmetric about x0
    np.testing.assert_allclose(law.sf(xs), 1 - f, atol=1e-15)
    # the density integrates to the CDF increments
    mid = 0.5 * (xs[1:] + xs[:-1])
    np.testing.assert_allclose(np.cumsum(law.pdf(mid) * np.diff(xs)), f[1:] - f[0], atol=2e-5)


def test_lemma15_shift_by_one_over_n_costs_exactly_delta():
    """Half-line sup of F - e^eps F' for the 1/N right shift equals delta (spec §10.1, tight)."""
    eps, delta, n = 1.0, 0.01, 10
    law = P.Lemma15Law(0.3, n, eps, delta)
    shifted = law.neighbour(1.0 / n)
    xs = np.union1d(np.linspace(0.3 - law.width, 0.3 + law.width + 0.1, 400_001), law.breakpoints())
    v = np.max(law.cdf(xs) - math.exp(eps) * shifted.cdf(xs))
    assert v == pytest.approx(delta, rel=1e-9)
    worse = law.neighbour(1.05 / n)
    assert np.max(law.cdf(xs) - math.exp(eps) * worse.cdf(xs)) > 3 * delta      # 0.034977


def test_lemma15_limits():
    x0, n = 0.4, 6
    xs = np.linspace(-3.0, 4.0, 20_001)
    laplace = stats.laplace.cdf(xs, loc=x0, scale=1.0 / (n * 1.0))
    np.testing.assert_allclose(P.Lemma15Law(x0, n, 1.0, 0.0).cdf(xs), laplace, atol=1e-15)
    assert np.max(np.abs(P.Lemma15Law(x0, n, 1.0, 1e-12).cdf(xs) - laplace)) < 1e-6
    a = 1.0 / (2 * n * 0.01)
    uniform = stats.uniform.cdf(xs, loc=x0 - a, scale=2 * a)
    np.testing.assert_allclose(P.Lemma15Law(x0, n, 0.0, 0.01).cdf(xs), uniform, atol=1e-15)
    assert np.max(np.abs(P.Lemma15Law(x0, n, 1e-8, 0.01).cdf(xs) - uniform)) < 1e-6
    assert math.isinf(P.Lemma15Law(x0, n, 1.0, 0.0).width)


@pytest.mark.parametrize("eps,delta", [(1.0, 0.01), (0.1, 0.01), (1.0, 0.0), (0.0, 0.01), (1e-5, 0.001)])
def test_tail_radius_is_fact4(eps, delta):
    """F(x0 - d) = 1/T with d = ln((T(e^eps-1) + 2T delta)/(2(e^eps-1) + 2T delta))/(N eps)."""
    horizon, n = 100_000, 7
    law = P.Lemma15Law(0.0, n, eps, delta)
    d = law.tail_radius(1.0 / horizon)
    assert law.cdf(-d) == pytest.approx(1.0 / horizon, rel=1e-6)
    assert law.sf(d) == pytest.approx(1.0 / horizon, rel=1e-6)
    if eps > 0 and delta > 0:
        em1 = math.expm1(eps)
        paper = math.log((horizon * em1 + 2 * horizon * delta) / (2 * em1 + 2 * horizon * delta)) / (n * eps)
        assert d == pytest.approx(paper, rel=1e-12)
    if (eps, delta) == (1.0, 0.01):
        assert d * n == pytest.approx(4.4632, abs=1e-4)            # spec §10.6


# --------------------------------------------------------------- Gauss and Beta CDFs
def test_gauss_cdf_matches_scipy():
    xs = np.linspace(-2.0, 3.0, 5001)
    for mean, n, v in [(0.5, 8, 2.0), (0.2, 1, 1.0), (0.9, 1e5, 2.0)]:
        law = P.GaussianLaw(mean, n, v)
        ref = stats.norm(mean, math.sqrt(v / n))
        np.testing.assert_allclose(law.cdf(xs), ref.cdf(xs), rtol=1e-12, atol=1e-290)
        np.testing.assert_allclose(law.sf(xs), ref.sf(xs), rtol=1e-12, atol=1e-290)
        np.testing.assert_allclose(law.pdf(xs), ref.pdf(xs), rtol=1e-12, atol=1e-290)


@pytest.mark.parametrize("a,b", [(1.0, 11.0), (1.5, 2.5), (3.0, 7.0), (135.0, 1066.0), (1066.0, 135.0),
                                 (1e4, 3e4), (2.5e5, 7.5e5), (5e5, 5e5 + 3), (0.5, 0.7)])
def test_beta_cdf_matches_scipy(a, b):
    """Regularised incomplete beta: absolute error < 1e-12 and tails relative < 1e-10 for
    every shape pair the algorithms produce (shapes >= N/8)."""
    law = P.BetaLaw(a, b)
    m, s = a / (a + b), math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    xs = np.clip(np.concatenate([np.linspace(m - 10 * s, m + 10 * s, 2001), np.linspace(0, 1, 101)]), 0, 1)
    cdf, sf = special.betainc(a, b, xs), special.betaincc(a, b, xs)
    np.testing.assert_allclose(law.cdf(xs), cdf, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(law.sf(xs), sf, rtol=1e-10, atol=1e-12)
    inside = (xs > 0) & (xs < 1)
    np.testing.assert_allclose(law.pdf(xs[inside]), stats.beta.pdf(xs[inside], a, b), rtol=1e-10,
                               atol=1e-290)


def test_beta_shapes_follow_algorithm_2():
    assert P.beta_shapes(0.0, 10.0, True) == (1 + 2.0, 11 + 2.0)          # k = floor(10/8) + 1 = 2
    assert P.beta_shapes(3.0, 16.0, True) == (4 + 3.0, 14 + 3.0)          # k = 3
    assert P.beta_shapes(3.0, 16.0, False) == (4.0, 14.0)
    law = P.BetaLaw.from_history(5, 40)
    assert law.neighbour(True) == P.BetaLaw(law.a + 1, law.b - 1)


@pytest.mark.parametrize("func,eps,delta,value", [
    (P.gauss_start_phase, 1.0, 0.01, 7.68), (P.gauss_start_phase, 1.0, math.exp(-10), 18.47),
    (P.gauss_start_phase, 1.0, 1e-10, 44.52), (P.gauss_start_phase, 0.1, 0.01, 767.9),
    (P.gauss_start_phase, 0.0, 0.01, 795.8), (P.gauss_start_phase, 0.1, 0.001, 1228.4),
    (P.beta_start_phase, 1.0, 0.01, 1064.7), (P.beta_start_phase, 1.0, math.exp(-10), 2130.4),
    (P.beta_start_phase, 1.0, 1e-10, 4703.4), (P.beta_start_phase, 0.1, 0.01, 38455.8),
    (P.beta_start_phase, 0.1, 0.02, 9614.0)])
def test_start_phase_values(func, eps, delta, value):
    """N_G* and N_B* against the spec's §5.1-5.2 / §10.4 values."""
    assert func(eps, delta) == pytest.approx(value, rel=2e-4)


# ------------------------------------------------- compiled == plain Python streams
def _streams():
    return np.concatenate([
        P.GaussianLaw(0.4, 8, 2.0).sample(50, 5), P.BetaLaw(3.5, 900.0).sample(50, 5),
        P.Lemma15Law(0.3, 10, 1.0, 0.01).sample(50, 5), P.Lemma15Law(0.3, 10, 0.0, 0.01).sample(50, 5),
        [P.lemma15_cdf(0.31, 0.3, 10.0, 1.0, 0.01), P.beta_cdf(0.3, 135.0, 1066.0)]])


def test_compiled_and_python_streams_are_identical():
    code = ("import sys, numpy as np; sys.path.insert(0, '.'); "
            "from tests.test_perturbations import _streams; np.save(sys.argv[1], _streams())")
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"pert_py_{os.getpid()}.npy")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([sys.executable, "-c", code, out], check=True, cwd=root,
                   env=dict(os.environ, NUMBA_DISABLE_JIT="1"))
    python = np.load(out)
    os.remove(out)
    np.testing.assert_array_equal(_streams(), python)


# ------------------------------------------------------------------ catalog samplers
def test_catalog_samplers():
    f = dpbench.sampler("lemma15", eps=1.0, delta=0.01, pulls=10, others=4.0)
    assert (f.claimed_eps, f.claimed_delta) == (1.0, 0.01)
    assert f.input_range == (0.0, 1.0)
    x = f(1.0, 20_000, 3)
    assert np.all(np.abs(x - 0.5) <= P.Lemma15Law(0.5, 10, 1.0, 0.01).width)
    np.testing.assert_array_equal(x, f(1.0, 20_000, 3))                 # seeded
    g = dpbench.sampler("ftpl_gauss", eps=1.0, delta=0.01)
    assert stats.kstest(g(0.0, 20_000, 1), P.GaussianLaw(0.0, 8, 2.0).cdf).pvalue > ALPHA  # pulls = 8
    b = dpbench.sampler("ftpl_beta", eps=1.0, delta=0.01)
    assert stats.kstest(b(1.0, 20_000, 1), P.BetaLaw.from_history(1, 1065).cdf).pvalue > ALPHA


@pytest.mark.parametrize("name,params,x", [
    ("lemma15", {"eps": -1.0, "delta": 0.01}, 0.5),
    ("lemma15", {"eps": 1.0, "delta": 1.0}, 0.5),
    ("lemma15", {"eps": 0.0, "delta": 0.0}, 0.5),
    ("lemma15", {"eps": 1.0, "delta": 0.01}, 1.5),
    ("lemma15", {"eps": 1.0, "delta": 0.01, "pulls": 3, "others": 2.5}, 0.5),
    ("ftpl_gauss", {"eps": 1.0, "delta": 0.0}, 0.5),
    ("ftpl_beta", {"eps": 1.0, "delta": -0.1}, 0.5),
])
def test_bad_input_is_refused(name, params, x):
    with pytest.raises(InputError):
        dpbench.sampler(name, **params)(x, 10, 0)


def test_law_objects_refuse_bad_parameters():
    with pytest.raises(InputError):
        P.Lemma15Law(0.0, 10, 0.0, 0.0)
    with pytest.raises(InputError):
        P.Lemma15Law(0.0, 0, 1.0, 0.01)
    with pytest.raises(InputError):
        P.BetaLaw(0.0, 1.0)
    with pytest.raises(InputError):
        P.GaussianLaw(0.0, 1, -2.0)


def test_audited_perturbations_default_to_the_end_of_the_start_phase():
    """The ftpl_gauss / ftpl_beta mechanisms audit the first history the policy privatises:
    ceil(N*) pulls (8 and 1065 at eps = 1, delta = 0.01), not one inside the start phase."""
    assert P.GaussPerturbationMechanism(eps=1.0, delta=0.01).params["pulls"] == 8
    assert P.BetaPerturbationMechanism(eps=1.0, delta=0.01).params["pulls"] == 1065
