"""Heavy-tailed environments of seed 003: samplers, exact moments, settings (spec checks A7, C4)."""
import math

import numpy as np
import pytest
from scipy import stats

import dpbench
from dpbench.engine.caching import cached_njit
from dpbench.engine.simulate import build_environment
from dpbench.environments.heavy_tailed import (
    SETTINGS,
    moment_bound,
    pareto,
    raw_moments,
    student_t,
    student_t_raw_moment,
)
from dpbench.validation import InputError


@cached_njit
def _pareto_samples(shape, scale, n, seed):
    np.random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = pareto(shape, scale)
    return out


@cached_njit
def _t_samples(dof, n, seed):
    np.random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = student_t(dof)
    return out


def test_settings_are_the_papers():
    assert SETTINGS["S1"] == (0.9, 0.7, 0.5, 0.3, 0.1)
    assert SETTINGS["S2"] == (0.9, 0.55, 0.3, 0.15, 0.1)
    assert SETTINGS["S3"] == (0.9, 0.85, 0.7, 0.45, 0.1)


@pytest.mark.parametrize("v,u,scales", [
    (0.5, 5.5946, (0.31935, 0.24839, 0.17742, 0.10645, 0.03548)),
    (0.9, 8.1421, (0.43846, 0.34103, 0.24359, 0.14615, 0.04872))])
def test_pareto_instance_matches_spec_table(v, u, scales):
    """Spec Sec. 5.1: lambda_a and u to 4-5 decimals, for every setting (u depends on v only)."""
    for setting in SETTINGS:
        inst = build_environment("pareto", {"setting": setting, "tail_v": v})
        assert inst.env.shapes[0] == pytest.approx(1.05 + v)
        assert moment_bound(inst, v, None)[0] == pytest.approx(u, abs=5e-5)
        assert np.allclose(inst.means, SETTINGS[setting])
    inst = build_environment("pareto", {"setting": "S1", "tail_v": v})
    assert np.allclose(inst.env.scales, scales, atol=5e-6)


def test_pareto_sampler_is_classic_not_lomax():
    """KS at alpha 1e-6 accepts the classic Pareto(alpha, lambda), rejects numpy's Lomax pitfall;
    the minimum is lambda; the mean converges to mu (alpha = 1.95: finite mean, infinite variance)."""
    shape, scale = 1.95, 0.43846
    x = _pareto_samples(shape, scale, 200_000, 3)
    assert stats.kstest(x, stats.pareto(shape, scale=scale).cdf).pvalue > 1e-6
    assert stats.kstest(x, stats.lomax(shape, scale=scale).cdf).pvalue < 1e-6
    assert x.min() >= scale and x.min() < scale * 1.0001
    assert np.median(x) == pytest.approx(scale * 2 ** (1 / shape), rel=0.01)
    assert x.mean() == pytest.approx(0.9, rel=0.05)


def test_student_t_sampler():
    x = _t_samples(3.0, 100_000, 4)
    assert stats.kstest(x, stats.t(3.0).cdf).pvalue > 1e-6
    assert stats.kstest(x, stats.t(4.0).cdf).pvalue < 1e-6
    assert stats.kstest(x, stats.norm.cdf).pvalue < 1e-6


def test_student_t_moments_exact():
    cases = ((0.0, 1.0, 3.0, 1.5), (0.5, 1.0, 3.0, 1.5), (-0.9, 2.0, 2.5, 1.9), (0.3, 0.5, 10.0, 2.0))
    for mean, scale, dof, p in cases:
        ref = stats.t(dof, loc=mean, scale=scale).expect(lambda x, p=p: abs(x) ** p, epsabs=0, epsrel=1e-12, limit=500)
        assert student_t_raw_moment(mean, scale, dof, p) == pytest.approx(ref, rel=1e-8)
    assert student_t_raw_moment(0.0, 1.0, 3.0, 2.0) == pytest.approx(3.0)       # Var T_3 = 3
    assert math.isinf(student_t_raw_moment(0.2, 1.0, 1.8, 1.9))


def test_raw_moments_of_bounded_and_gaussian_environments():
    inst = build_environment("bernoulli", {"means": [0.9, 0.2]})
    assert np.allclose(raw_moments(inst, 1.7), [0.9, 0.2])
    inst = build_environment("gaussian", {"means": [0.0, 1.0], "sigma": 1.0})
    for mu, m in zip((0.0, 1.0), raw_moments(inst, 1.5)):
        assert m == pytest.approx(stats.norm(mu).expect(lambda x: abs(x) ** 1.5), rel=1e-9)
    inst = build_environment("mixed", {"means": [0.9, 0.8, 0.7, 0.5]})
    expected = [0.9, stats.beta(4, 1).expect(lambda x: x ** 1.5), 0.5 * 0.4 ** 1.5 + 0.5, 1 / 2.5]
    assert np.allclose(raw_moments(inst, 1.5), expected, rtol=1e-9)


def test_lemma_10_on_pareto():
    """E|X - mu|^(1+v) <= 4 E|X|^(1+v) and E|X|^(1+v) <= 2 E|X - mu|^(1+v) + 2|mu|^(1+v) (numerically)."""
    for v in (0.5, 0.9):
        shape = 1.05 + v
        for mu in SETTINGS["S3"]:
            law = stats.pareto(shape, scale=(shape - 1) * mu / shape)
            raw = law.expect(lambda x, v=v: x ** (1 + v))
            central = law.expect(lambda x, v=v, mu=mu: abs(x - mu) ** (1 + v), epsrel=1e-10)
            assert central <= 4 * raw
            assert raw <= 2 * central + 2 * mu ** (1 + v)


@pytest.mark.parametrize("policy", ["dp_robust_ucb", "dp_robust_se", "ldp_robust_se", "robust_ucb"])
def test_bad_input_names_the_parameter(policy):
    eps = {} if policy == "robust_ucb" else {"eps": 1.0}

    def run(**kw):
        params = {"v": 0.9, "tail_v": 0.9, **eps, **kw}
        return dpbench.simulate(policy, "pareto", 1000, 1, 0, **params)

    for bad_v in (0.0, -0.5, 1.5):
        with pytest.raises(InputError, match=r"\bv must"):
            run(v=bad_v)
    for bad_u in (0.0, -1.0):
        with pytest.raises(InputError, match=r"\bu must"):
            run(u=bad_u)
    with pytest.raises(InputError, match=r"\bu must be >= max_a E\|X_a\|\^\(1\+v\) = 8\.142"):
        run(u=8.0)                                   # the distribution does not satisfy the bound
    with pytest.raises(InputError, match=r"\bv must be such that every arm has a finite"):
        run(tail_v=0.5)                              # shape 1.55 <= 1 + v = 1.9: infinite moment
    if eps:
        for bad_eps in (0.0, -1.0, float("nan")):
            with pytest.raises(InputError, match=r"\beps must"):
                run(eps=bad_eps)


def test_bad_environment_input():
    with pytest.raises(InputError, match="shape"):
        build_environment("pareto", {"shape": 1.0})
    with pytest.raises(InputError, match="means of Pareto arms must be > 0"):
        build_environment("pareto", {"means": [0.5, -0.1]})
    with pytest.raises(InputError, match="either shape or tail_v"):
        build_environment("pareto", {"shape": 2.0, "tail_v": 0.5})
    with pytest.raises(InputError, match="setting"):
        build_environment("pareto", {"setting": "S4"})
    with pytest.raises(InputError, match="finite"):
        dpbench.simulate("dp_robust_se", "student_t", 1000, 1, 0, dof=1.5, v=0.9, eps=1.0)


def test_cli_bad_input_exits_2(capsys):
    from dpbench.cli import main
    status = main(["simulate", "--policy", "dp_robust_se", "--rewards", "pareto", "--means", "0.9,0.5",
                   "--eps", "1", "--set", "v=0.9", "--set", "tail_v=0.9", "--set", "u=1", "--horizon", "1000",
                   "--reps", "1", "--no-progress"])
    assert status == 2
    assert "u must be >=" in capsys.readouterr().err
