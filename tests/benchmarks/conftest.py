"""Shared pytest-benchmark helper: time whole repetitions of a policy on the engine.

``bench_policy(policy, env, horizon=..., reps=..., threads=..., **params)`` builds the plan,
compiles it outside the timing, runs ``rounds`` timed rounds of ``reps`` repetitions after one
warm-up round, and records ``pulls_per_second`` (R x T / mean round time) and ``threads`` in
``benchmark.extra_info`` (shown by ``--benchmark-json``).
"""
import numba
import pytest

from dpbench.engine.simulate import _run_chunk, compile_plan, numba_threads, prepare


@pytest.fixture
def bench_policy(benchmark):
    def run(policy, env="bernoulli", *, horizon, reps, threads=1, rounds=5, env_params=None, **params):
        if threads > numba.config.NUMBA_NUM_THREADS:
            pytest.skip(f"needs {threads} threads")
        plan = prepare(policy, env, horizon, 1, env_params=env_params, **params)
        compile_plan(plan)
        with numba_threads(threads):
            benchmark.pedantic(_run_chunk, args=(plan, 0, reps, False), rounds=rounds, warmup_rounds=1)
        pulls_per_second = reps * horizon / benchmark.stats.stats.mean
        benchmark.extra_info["pulls_per_second"] = pulls_per_second
        benchmark.extra_info["threads"] = threads
        return pulls_per_second
    return run
