"""Seed 002 speed: DP-FTPL-New and GDP-Elim-New on the paper's Instance 1 (9 Bernoulli arms,
mu = 0.30, 0.35, ..., 0.70), (eps, delta) = (1, 0.01), T = 1e5 (the paper's horizon).

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_seed002.py``.
Compile time is excluded (a warm-up round); ``extra_info['pulls_per_second']`` is
R * T / (mean seconds per round).  DP-FTPL-New draws one Lemma 15 sample per arm per step
(one uniform and one log1p each), inherent to FTPL; nothing is allocated per step.
GDP-Elim-New draws only at phase ends, so it measures the loop itself.
"""
import numba
import pytest

from dpbench.engine.simulate import _run_chunk, compile_plan, numba_threads, prepare

T = 100_000
INSTANCE_1 = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]


def _bench(benchmark, policy, threads, reps, **params):
    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip(f"needs {threads} threads")
    plan = prepare(policy, "bernoulli", T, 1, means=INSTANCE_1, **params)
    compile_plan(plan)
    with numba_threads(threads):
        benchmark.pedantic(_run_chunk, args=(plan, 0, reps, False), rounds=5, warmup_rounds=1)
    benchmark.extra_info["pulls_per_second"] = reps * T / benchmark.stats.stats.mean
    benchmark.extra_info["threads"] = threads


@pytest.mark.benchmark(group="seed 002: DP-FTPL-New (1, 0.01), Instance 1, T=1e5")
@pytest.mark.parametrize("threads", [1, 2])
def test_dp_ftpl_new(benchmark, threads):
    _bench(benchmark, "dp_ftpl_new", threads, reps=4 * threads, eps=1.0, delta=0.01)


@pytest.mark.benchmark(group="seed 002: GDP-Elim-New (1, 0.01), Instance 1, T=1e5")
@pytest.mark.parametrize("threads", [1, 2])
def test_gdp_elim_new(benchmark, threads):
    _bench(benchmark, "gdp_elim_new", threads, reps=20 * threads, eps=1.0, delta=0.01)


@pytest.mark.benchmark(group="seed 002: DP-FTPL-Gauss (1, 0.01), Instance 1, T=1e5")
def test_dp_ftpl_gauss(benchmark):
    _bench(benchmark, "dp_ftpl_gauss", 1, reps=4, eps=1.0, delta=0.01)
