"""The trade-off (f-DP) view on the analytic Gaussian mechanism (Balle & Wang 2018), whose
exact eps(delta) is known in closed form: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
import json
import math

import numpy as np
import pytest
from scipy.stats import norm

import verify
from verify.audit import statistics as st
from verify.audit import tradeoff as tr

MU = 1.0                        # Delta / sigma
DELTAS = np.logspace(-9, math.log10(0.9), 200)


def gaussian(x, n, seed):
    """x + N(0, 1/MU^2), rounded to 1e-6 (a post-processing: the exact curve is at most
    the Gaussian's, and no floating-point artefact of x + noise can leak)."""
    rng = np.random.default_rng(seed)
    return np.round(x + rng.standard_normal(n) / MU, 6)


# ------------------------------------------------------------------ closed forms
def test_closed_forms_agree():
    eps = tr.gdp_eps(MU, 1e-3)
    assert tr.gdp_delta(MU, eps) == pytest.approx(1e-3, rel=1e-9)
    assert tr.gdp_eps(MU, 0.9) == 0.0
    a = np.linspace(1e-4, 1 - 1e-4, 50)
    assert tr.gdp_mu_lower_bound(a, tr.gdp_tradeoff(MU, a)) == pytest.approx(MU, abs=1e-9)


def test_points_to_eps_delta_conversion_is_exact_on_the_gdp_curve():
    """Points on G_mu imply eps(delta) never above the truth, and the truth in the limit of
    dense points: the f-DP -> (eps, delta) conversion of Dong et al. Prop. 2.5."""
    a = np.logspace(-12, math.log10(0.5), 4000)
    implied = tr.eps_lower_bounds(a, tr.gdp_tradeoff(MU, a), DELTAS)
    truth = np.array([tr.gdp_eps(MU, d) for d in DELTAS])
    assert np.all(implied <= truth + 1e-9)
    assert np.max(truth - implied) < 2e-3


def test_pareto_points():
    fpr, fnr = tr.pareto_points([0.1, 0.2, 0.1, 0.3, 0.05], [0.5, 0.4, 0.6, 0.45, 0.9])
    assert fpr.tolist() == [0.05, 0.1, 0.2] and fnr.tolist() == [0.9, 0.5, 0.4]


class _Event:
    """A stand-in for an audit event: a key and (favoured, other) counts."""
    def __init__(self, key, k1, k2):
        self._key, self._counts = key, (k1, k2)

    def key(self):
        return self._key

    def counts(self, hist_x, hist_x_prime):
        return self._counts


def test_certified_points_are_simultaneous_clopper_pearson_bounds():
    n, alpha = 10_000, 0.05
    # 3 distinct events; the last certifies most through its complement (FNR tiny)
    events = [_Event("a", 5000, 300), _Event("b", 9000, 4000), _Event("a", 5000, 300), _Event("c", 9990, 5000)]
    got = tr.certify(events, None, None, n, alpha, [0.0, 0.01])
    assert got.events == 3 and got.alpha_per_event == alpha / 3
    fpr = st.cp_upper(np.array([300, 4000, 5000]), n, alpha / 6)          # alpha / (2 m) per side
    fnr = 1 - st.cp_lower(np.array([5000, 9000, 9990]), n, alpha / 6)
    assert np.allclose(got.fpr, fpr) and np.allclose(got.fnr, fnr)
    assert got.mu_lower_bound == pytest.approx(max(norm.isf(fpr) - norm.ppf(fnr)))
    assert got.eps[0] == pytest.approx(max(np.log((1 - fnr) / fpr).max(), np.log((1 - fpr) / fnr).max()))
    assert got.eps[0] == pytest.approx(np.log((1 - fpr[2]) / fnr[2]))


# ------------------------------------------------------------------ the audit
def check_gaussian_audit(n, seed, tolerance):
    res = verify.audit(gaussian, 0.0, 1.0, eps=0.5, delta=1e-3, n=n, seed=seed)
    truth = np.array([tr.gdp_eps(MU, d) for d in DELTAS])
    # the certified points imply eps(delta) at every delta: never above the truth, and the
    # curve of the audit (the same simultaneous statements) on its own grid neither
    implied = tr.eps_lower_bounds(res.tradeoff_fpr, res.tradeoff_fnr, DELTAS)
    assert np.all(implied <= truth)
    grid_truth = np.array([tr.gdp_eps(MU, d) for d in res.curve_delta])
    assert np.all(np.array(res.curve_eps) <= grid_truth)
    # close to the truth at delta = 1e-3, from the points and from the headline event
    at = tr.gdp_eps(MU, 1e-3)
    assert tr.eps_lower_bounds(res.tradeoff_fpr, res.tradeoff_fnr, [1e-3])[0] >= (1 - tolerance) * at
    assert (1 - tolerance) * at <= res.eps_lower_bound <= at
    # the headline event is a Neyman-Pearson (threshold) event: its frequencies lie on G_mu, up to
    # the sampling error of both (the error of p_x' enters through the curve's slope,
    # |G_mu'(a)| = exp(mu z - mu^2 / 2) at z = Phi^-1(1 - a): about 20 where a tail event of
    # p_x' = 2.4e-4 sits, so it outweighs the error of p_x four to one)
    p_x, p_xp = res.witness["p_x"], res.witness["p_x_prime"]
    slope = math.exp(MU * -norm.ppf(p_xp) - MU ** 2 / 2)
    assert abs((1 - p_x) - tr.gdp_tradeoff(MU, p_xp)) < 5 * math.sqrt((p_x + slope ** 2 * p_xp) / n) + 1e-4
    # every certified point lies above the true trade-off curve, so mu is certified from below
    assert np.all(np.array(res.tradeoff_fnr) >= tr.gdp_tradeoff(MU, res.tradeoff_fpr))
    assert 0.9 * MU <= res.gdp_mu_lower_bound <= MU
    return res


def test_gaussian_mechanism_fast():
    res = check_gaussian_audit(10 ** 6, seed=0, tolerance=0.15)
    data = json.loads(res.to_json())
    assert len(data["tradeoff_fpr"]) == len(data["tradeoff_fnr"]) >= 3
    assert data["gdp_mu_lower_bound"] == res.gdp_mu_lower_bound
    assert "not mu-GDP for any mu <" in str(res) and "certified (FPR, FNR) points" in str(res)


def test_gaussian_mechanism_n_1e7():
    check_gaussian_audit(10 ** 7, seed=1, tolerance=0.15)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2, 6))
def test_gaussian_mechanism_n_1e7_more_seeds(seed):
    check_gaussian_audit(10 ** 7, seed=seed, tolerance=0.15)
