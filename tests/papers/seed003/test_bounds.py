"""Seed 003's bounds against seed_003.md section 3.8 and their preconditions."""
import pytest

from dpbench.papers.seed003 import bounds as s3
from verify import bounds

SPEC_38 = {  # quantity: {v: (paper, algorithm-implied)} from seed_003.md section 3.8
    "DPRSE N_a vs Delta": {0.5: (-3, -3), 0.9: (-2.111, -2.111), 1.0: (-2, -2)},
    "DPRSE N_a vs u": {0.5: (0.667, 2), 0.9: (0.526, 1.111), 1.0: (0.5, 1)},
    "DPRSE worst-case R_T vs T": {0.5: (0.667, 0.667), 0.9: (0.526, 0.526), 1.0: (0.5, 0.5)},
    "DPRSE worst-case R_T vs u": {0.5: (0.222, 0.667), 0.9: (0.249, 0.526), 1.0: (0.25, 0.5)},
    "DPRUCB bound vs ln T": {0.5: (4.5, 4.5), 0.9: (3.611, 3.611), 1.0: (3.5, 3.5)},
    "LDPRSE N_a vs Delta": {0.5: (-3, -6), 0.9: (-2.111, -4.222), 1.0: (-2, -4)},
    "LDPRSE regret share vs Delta": {0.5: (-2, -5), 0.9: (-1.111, -3.222), 1.0: (-1, -3)},
    "LDPRSE worst-case R_T vs T": {0.5: (0.667, 0.833), 0.9: (0.526, 0.763), 1.0: (0.5, 0.75)},
    "LDPRSE worst-case R_T vs K": {0.5: (0.333, 0.167), 0.9: (0.474, 0.237), 1.0: (0.5, 0.25)},
    "LDPRSE worst-case R_T vs eps": {0.5: (-0.667, -0.333), 0.9: (-0.947, -0.474), 1.0: (-1, -0.5)},
}


@pytest.mark.parametrize("v", [0.5, 0.9, 1.0])
def test_seed003_exponent_table(v):
    table = s3.exponent_table(v)
    for quantity, by_v in SPEC_38.items():
        assert table[quantity] == pytest.approx(by_v[v], abs=1e-3), quantity


def test_seed003_bounds_need_eps_at_most_one():
    ctx = dict(means=[0.9, 0.7, 0.5, 0.3, 0.1], environment="pareto", v=0.9, u=8.1421, T=1e6)
    ok = bounds.get("seed003.thm2").evaluate(ctx, eps=1.0)
    assert ok.applicable and ok.value > 0
    for key in ("seed003.thm2", "seed003.lemma4", "seed003.thm7", "seed003.thm7_alg"):
        ev = bounds.get(key).evaluate(ctx, eps=5.0)
        assert not ev.applicable and "eps <= 1" in ev.reason, key
    exps = {e.variable: e.value for e in bounds.get("seed003.thm7_alg").evaluate(ctx, eps=0.5).exponents}
    assert exps["T"] == pytest.approx(0.763, abs=1e-3) and exps["gap"] == pytest.approx(-3.222, abs=1e-3)
    scaled = bounds.get("seed003.thm2").evaluate(ctx, eps=1.0, constants="scaled")
    assert not scaled.applicable and "literal" in scaled.reason


def test_seed003_central_lower_bound_preconditions_are_out_of_reach():
    ctx = dict(means=[1 / 6, 1 / 6 - 0.05], eps=1.0, v=1.0, T=1e7)
    ev = bounds.get("seed003.thm10").evaluate(ctx)
    assert not ev.applicable and "T^0.13" in ev.reason
    assert bounds.get("seed003.thm10").evaluate(ctx, T=1e15).applicable
