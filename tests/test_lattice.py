"""The float-safe lattice (dpbench.mechanisms.lattice): the laws of its samplers, the accounting
of its claims, outputs on the lattice, and the refusals of what it cannot keep.

The laws are tested at ALPHA = 1e-6 on fixed seeds, each with its power: the same sample
rejects the law at 0.5x and 1.5x the scale (as tests/test_mechanism_laws.py asserts for every
mechanism's report).
"""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import special, stats

import dpbench
from dpbench import InputError
from dpbench.engine.caching import cached_njit
from dpbench.mechanisms import lattice as L
from dpbench.mechanisms import special as S
from dpbench.mechanisms.perturbations import gaussian as G
from dpbench.mechanisms.perturbations import lemma15 as L15
from verify.audit.controls import CATALOG_SETTINGS, FLOAT_FORMS, catalog_mechanism, float_form

ALPHA = 1e-6
N = 200_000


@cached_njit
def _laplace_steps_draws(s, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = L.laplace_steps(s)


@cached_njit
def _tail_uniform_draws(seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = L.tail_uniform()


def _rounded_laplace_pmf(k, s):
    """P(rint(Laplace(0, s)) = k): the exact law of the lattice Laplace of scale s steps."""
    return stats.laplace(scale=s).cdf(k + 0.5) - stats.laplace(scale=s).cdf(k - 0.5)


def _chisquare_p(values, pmf):
    """Chi-square p-value of integer draws against ``pmf`` (bins of expected count < 20 pooled)."""
    lo, hi = int(values.min()), int(values.max())
    support = np.arange(lo, hi + 1)
    counts = np.bincount((values - lo).astype(np.int64), minlength=support.size).astype(float)
    expected = values.size * pmf(support)
    rest = values.size - expected.sum()
    obs, exp, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(counts, expected):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 20:
            obs.append(acc_o)
            exp.append(acc_e)
            acc_o = acc_e = 0.0
    obs[-1] += acc_o
    exp[-1] += acc_e + rest                    # the mass outside the observed range
    return stats.chisquare(obs, exp).pvalue


@pytest.mark.parametrize("s", [1.0, 3.0, 40.0])
def test_lattice_laplace_is_the_rounded_laplace_law(s):
    """laplace_steps(s) ~ rint(Laplace(s)) exactly, its geometric tail blocks included (s = 1:
    |K| >= 4 in 1.8% of draws), and the same sample rejects the scales 0.5 s and 1.5 s."""
    y = np.empty(N)
    _laplace_steps_draws(s, 17, y)
    assert np.array_equal(y, np.rint(y))
    assert _chisquare_p(y, lambda k: _rounded_laplace_pmf(k, s)) > ALPHA
    for c in (0.5, 1.5):
        assert _chisquare_p(y, lambda k, c=c: _rounded_laplace_pmf(k, c * s)) < ALPHA, f"no power at {c} s"
    assert (np.abs(y) > 12 * s).sum() > 0                      # the tail beyond three blocks is reached


def test_tail_uniform_law():
    """tail_uniform: a fair sign, |t| uniform on (0, 1/2), and uniform again (to the finer grid)
    inside the refined region below 2^-9."""
    t = np.empty(N)
    _tail_uniform_draws(3, t)
    assert stats.binomtest(int((t > 0).sum()), N, 0.5).pvalue > ALPHA
    m = np.abs(t)
    assert m.min() > 0.0 and m.max() < 0.5
    assert stats.kstest(2 * m, "uniform").pvalue > ALPHA
    low = m[m < 2.0 ** -9]
    assert stats.binomtest(low.size, N, 2.0 ** -8).pvalue > ALPHA
    assert stats.kstest(low * 2.0 ** 9, "uniform").pvalue > ALPHA
    assert np.mean(low * 2.0 ** 53 != np.rint(low * 2.0 ** 53)) > 0.99    # refined below the 2^-53 grid


def _tail_uniform_reference(seed: int, n: int) -> np.ndarray:
    """tail_uniform in plain Python on NumPy's legacy generator (numba's np.random.random under
    np.random.seed draws the same stream)."""
    state, out = np.random.RandomState(seed), np.empty(n)
    for i in range(n):
        while True:
            u = state.random_sample()
            m = u - 0.5 if u >= 0.5 else u
            if m < 2.0 ** -9:
                m += state.random_sample() * 2.0 ** -53
            if m > 0.0:
                out[i] = m if u >= 0.5 else -m
                break
    return out


def test_tail_uniform_matches_its_reference_bit_for_bit():
    """The kernel against its plain-Python reference under one seed, every draw: the refinement's
    width (one 2^-53 cell) changes the law by about 2^-53 in total variation, which no test of
    the law at any feasible N can see, but it decides the deepest tails."""
    n = 50_000
    t = np.empty(n)
    _tail_uniform_draws(3, t)
    ref = _tail_uniform_reference(3, n)
    assert np.sum(np.abs(ref) < 2.0 ** -9) > 100              # the refined branch is exercised
    assert np.array_equal(t, ref)


def test_normal_quantile_is_as241():
    """special.ndtri against scipy (2^-48 relative over (2^-1000, 1/2]) and the transcription hash
    sums of AS 241 (sums of the coefficients' mantissas)."""
    gen = np.random.default_rng(1)
    p = np.concatenate([gen.uniform(0, 0.5, 20_000), 2.0 ** -gen.uniform(1, 1000, 20_000), [0.5, 0.075, 2.0 ** -53]])
    ours = np.array([S.ndtri(v) for v in p])
    ref = special.ndtri(p)
    assert np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-300)) < 2.0 ** -48

    def mantissa_sum(values):
        return sum(v / 10.0 ** math.floor(math.log10(abs(v))) for v in values)
    sums = {key: mantissa_sum(a + b) for key, (a, b) in S.AS241_TABLES.items()}
    assert sums["AB"] == pytest.approx(55.8831928806149014439, rel=1e-15)
    assert sums["CD"] == pytest.approx(49.33206503301610289036, rel=1e-15)
    assert sums["EF"] == pytest.approx(47.52583317549289671629, rel=1e-15)


# ------------------------------------------------------------------ accounting
@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 2.0, 10.0, 100.0])
def test_laplace_calibration_keeps_the_claim(eps):
    """D/s + sigma(s) <= eps exactly for the plan of an input range and of a float statistic;
    sigma is a 1e-8 share of eps at eps >= 1/16; the scale is at most 0.1% above the paper's."""
    for d_steps, g in ((L.span_steps(0.0, 1.0, L.lattice_spacing(1 / eps, 1.0)), L.lattice_spacing(1 / eps, 1.0)),
                       (L.sensitivity_steps(1.0, L.lattice_spacing(1 / eps, 1.0)), L.lattice_spacing(1 / eps, 1.0))):
        s = L.laplace_scale_steps(d_steps, eps)
        assert s == math.floor(s) and s >= 2.0 ** 12
        assert d_steps / s + L.laplace_slack(s, d_steps) <= eps
        assert s * g <= (1.0 / eps) * (1 + 2.0 ** -9)
        if eps >= 1 / 16:
            assert L.laplace_slack(s, d_steps) < 3e-8


def test_lemma15_and_gaussian_accounting():
    """The Lemma 15 law's (eps', delta') are below the claim by what the float slack takes;
    the lattice Gaussian's delta as implemented stays below the catalog claim."""
    for eps, delta in ((1.0, 0.01), (0.1, 0.01), (5.0, 1e-6), (0.0, 0.01)):
        eps_law, delta_law, c_law = L15.lemma15_lattice_law(eps, delta)
        assert eps - 1e-6 * max(eps, 1) <= eps_law <= eps and 0.99 * delta <= delta_law < delta
        if eps > 0:
            assert c_law == pytest.approx(delta_law / math.expm1(eps_law))
    assert L15.lemma15_lattice_law(1.0, 0.0) == (1.0, 0.0, 0.0)            # the Laplace law calibrates itself
    assert G.gauss_lattice_delta(1.0, 8, 2.0) < 1e-5 < 0.01
    assert G.gauss_lattice_delta(1.0, 8, 2.0) >= G.gauss_delta(1.0, 1 / math.sqrt(16))


# ------------------------------------------------------------------ outputs on the lattice
def _lattice_of(mech):
    comp = mech.component
    if hasattr(comp, "g") and comp.g > 0:
        return comp.g
    if mech.name == "ftpl_gauss":
        sd = math.sqrt(comp.v / comp.pulls)
        return L.lattice_spacing(sd, 1 / comp.pulls)
    raise AssertionError(f"{mech.name}: no lattice")


@pytest.mark.parametrize("name", sorted(FLOAT_FORMS))
def test_outputs_are_exact_lattice_points(name):
    """Every output of a lattice form is an integer multiple of its lattice (so sums are exact
    and the low bits carry nothing); the float form's outputs are not."""
    mech = catalog_mechanism(name)
    assert mech.arithmetic == "lattice" and not mech.float_unsafe
    g = _lattice_of(mech)
    x = 0.3 if name != "laplace_pm1" else -0.3
    y = mech(x, 10_000, 1)
    assert np.array_equal(y / g, np.rint(y / g))
    z = float_form(name)(x, 10_000, 1)
    assert np.mean(z / g != np.rint(z / g)) > 0.99


# ------------------------------------------------------------------ what the lattice refuses
def test_bad_arithmetic_and_lattice_are_refused_with_the_allowed_values():
    with pytest.raises(InputError, match=r"unknown parameter 'arithmetic' for mechanism 'ctb'"):
        dpbench.sampler("ctb", eps=1.0, arithmetic="float")
    with pytest.raises(InputError, match=r"arithmetic 'exact'; allowed values: float, lattice"):
        dpbench.sampler("ctl", eps=1.0, arithmetic="exact")
    with pytest.raises(InputError, match=r"lattice = 3 .* too coarse for the noise scale 1: allowed lattice "
                                         r"exponents -33\.\.-8"):
        dpbench.sampler("ctl", eps=1.0, lattice=3)
    with pytest.raises(InputError, match=r"too fine for eps = 1"):
        dpbench.sampler("laplace_release", eps=1.0, lattice=-80)
    with pytest.raises(InputError, match=r"eps = 1e-05 is below what arithmetic='lattice' keeps exactly"):
        dpbench.sampler("ctl", eps=1e-5)
    with pytest.raises(InputError, match=r"cannot be kept exactly by arithmetic='lattice'"):
        dpbench.sampler("lemma15", eps=1e-5, delta=1e-5)
    assert dpbench.sampler("ctl", eps=1e-5, arithmetic="float").float_unsafe      # the float form has no floor
    assert dpbench.sampler("ctl", eps=1.0, lattice=-20).component.g == 2.0 ** -20


def test_policies_say_when_the_lattice_cannot_keep_their_level():
    """A policy at a level below the lattice's floor (the paper's Fig. 7 sweeps DP-FTPL-New down
    to eps = 1e-5 at delta = 1e-10; seed 004's no-learning check runs at eps = 1e-6) runs, and
    says what each release is as implemented; the catalog mechanism refuses the same claim."""
    for policy, params in (("dp_se", {"eps": 1e-6}), ("ldp_ucb_l", {"eps": 1e-6}),
                           ("dp_ftpl_new", {"eps": 1e-5, "delta": 1e-10})):
        res = dpbench.simulate(policy, "bernoulli", 100, 1, 1, **params)
        assert any("as implemented" in w for w in res.warnings), (policy, res.warnings)
        assert np.isfinite(res.regret).all()
    for policy, params in (("dp_se", {"eps": 0.01}), ("ldp_ucb_l", {"eps": 0.01}),
                           ("dp_ftpl_new", {"eps": 0.1, "delta": 1e-10})):
        assert not dpbench.simulate(policy, "bernoulli", 100, 1, 1, **params).warnings


def test_cli_refuses_in_one_line_with_exit_2():
    for args in (["ctb", "--param", "arithmetic=float"], ["ctl", "--param", "lattice=3"],
                 ["ctl", "--param", "arithmetic=exact"]):
        proc = subprocess.run([sys.executable, "-m", "dpbench", "audit", *args, "--eps", "1"], capture_output=True,
                              text=True)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
        assert ("allowed" in proc.stderr), proc.stderr


def test_every_catalog_mechanism_declares_its_audit_settings_and_arithmetic():
    for name, settings in CATALOG_SETTINGS.items():
        mech = catalog_mechanism(name)
        assert mech.arithmetic in ("lattice", "none"), name
        assert (name in FLOAT_FORMS) == (mech.arithmetic == "lattice"), name
        assert dpbench.MECHANISMS[name].audit == settings
