"""Seed 004 speed: private phased elimination at the paper's horizons, and LinUCB.

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_seed004.py``.
Compile time is excluded (warm-up round); ``extra_info['pulls_per_second']`` is
R * T / (mean seconds per round).  The phased algorithms cost O(batches x core set)
engine steps per repetition (one reward draw per (batch, action), one Laplace or
Laplace-sum draw), so pulls per second grow with T; LinUCB is O(K d^2) per pull.
"""
import pytest

SPHERE_10 = {"k": 10, "d": 2, "instance_seed": 0}
SPHERE_1000 = {"k": 1000, "d": 2, "instance_seed": 0}


@pytest.mark.benchmark(group="seed 004: phased elimination, K=10, d=2, T=1e7")
@pytest.mark.parametrize("policy,params", [("linear_central", {"eps": 1.0}), ("linear_local", {"eps": 1.0}),
                                           ("linear_shuffle", {"eps": 1.0}), ("linear_phased_elim", {})])
def test_phased_k10(bench_policy, policy, params):
    bench_policy(policy, "linear_sphere", horizon=10**7, reps=20, env_params=SPHERE_10, **params)


@pytest.mark.benchmark(group="seed 004: Fig. 3(b) K=1000, d=2, T=1e7")
@pytest.mark.parametrize("design", ["core_set", "uniform"])
def test_central_k1000(bench_policy, design):
    bench_policy("linear_central", "linear_sphere", horizon=10**7, reps=4, env_params=SPHERE_1000,
                 eps=0.1, design=design)


@pytest.mark.benchmark(group="seed 004: LinUCB, K=10, d=2, T=1e5")
def test_linucb(bench_policy):
    bench_policy("linucb", "linear_sphere", horizon=10**5, reps=2, rounds=3, env_params=SPHERE_10)
