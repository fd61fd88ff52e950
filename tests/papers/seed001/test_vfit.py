"""Seed 001 Fig. 2: the regression of the regret on V (dpbench/papers/seed001/vfit.py)."""
from types import SimpleNamespace

import numpy as np
import pytest

import dpbench
from dpbench.papers.seed001.vfit import heldp_v, r2_estimate, v_regression


def _runs(noise=30.0, seed=4):
    rng = np.random.default_rng(seed)
    runs = []
    for v in [5.4, 12.6, 19.5, 148.8]:
        runs.append(SimpleNamespace(policy="heldp_ucb_l", info={"V_L": v, "V_L_alt": v * 1.1, "V_B": 0.0},
                                    final_regrets=1000 * v + noise * rng.standard_normal(20)))
    for v in [3.4, 4.1, 5.0, 33.8]:
        runs.append(SimpleNamespace(policy="heldp_ucb_b", info={"V_L": 0.0, "V_L_alt": 0.0, "V_B": v},
                                    final_regrets=1000 * v + noise * rng.standard_normal(20)))
    return runs


def test_v_regression_recovers_a_linear_law():
    runs = _runs()
    fit = v_regression(runs)
    assert fit.r_squared > 0.999 and fit.slope == pytest.approx(1000, rel=0.01)
    assert set(fit.per_policy) == {"heldp_ucb_l", "heldp_ucb_b"}
    # V_L' moves only the L points: the pooled fit on it is a different, still linear, fit
    alt = v_regression(runs, alternative=True)
    assert alt.v[0] == pytest.approx(5.94) and alt.r_squared < fit.r_squared
    est = r2_estimate(runs)
    assert est.value == pytest.approx(fit.r_squared) and 0 < est.se < 1e-3


def test_v_regression_of_unrelated_regret_is_poor():
    rng = np.random.default_rng(1)
    noisy = [SimpleNamespace(policy=r.policy, info=r.info, final_regrets=rng.permutation(2000 * rng.random(20)))
             for r in _runs()]
    assert v_regression(noisy).r_squared < 0.5


def test_heldp_v_refuses_a_run_without_v():
    with pytest.raises(dpbench.InputError, match="V_L"):
        heldp_v(SimpleNamespace(policy="ucb1", info={}))
    with pytest.raises(dpbench.InputError, match="3 runs"):
        v_regression(_runs()[:2])
