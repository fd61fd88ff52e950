"""Engine speed: UCB1 and LDP-UCB-B on the 20-arm instance, T = 1e6 (issue 2 targets:
>= 7e6 pulls/s on one core, >= 1.8x that on 2 threads).

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_engine.py``.
Compile time is excluded (a warm-up round). ``extra_info['pulls_per_second']`` is
R * T / (mean seconds per round).  The "hand-written" entry is a single-policy
kernel without the component registry: the reference the generic engine is measured against.
"""
import math

import numba
import numpy as np
import pytest
from numba import prange

from dpbench import randomness as rng
from dpbench.engine.caching import cached_njit
from dpbench.engine.simulate import numba_threads

T = 1_000_000


@pytest.mark.benchmark(group="engine: UCB1, 20 arms, T=1e6")
@pytest.mark.parametrize("threads", [1, 2])
def test_ucb1(bench_policy, threads):
    bench_policy("ucb1", horizon=T, reps=2 * threads, threads=threads)


@pytest.mark.benchmark(group="engine: LDP-UCB-B eps=2, 20 arms, T=1e6")
@pytest.mark.parametrize("threads", [1, 2])
def test_ldp_ucb_b(bench_policy, threads):
    bench_policy("ldp_ucb_b", horizon=T, reps=2 * threads, threads=threads, eps=2.0)


@pytest.mark.benchmark(group="engine: LDP-UCB-L eps=2, 20 arms, T=1e6")
@pytest.mark.parametrize("threads", [1, 2])
def test_ldp_ucb_l(bench_policy, threads):
    bench_policy("ldp_ucb_l", horizon=T, reps=2 * threads, threads=threads, eps=2.0)


@cached_njit(parallel=True)
def _hand_written_ldp_ucb_b(means, eps, horizon, seeds, out):
    """LDP-UCB-B written out by hand, same draws and arithmetic as the engine."""
    k = means.shape[0]
    best_mean = means.max()
    for r in prange(seeds.shape[0]):
        np.random.seed(seeds[r])
        s = np.zeros(k)
        n = np.zeros(k)
        mean = np.zeros(k)
        regret = 0.0
        for t in range(horizon):
            if t < k:
                arm = t
            else:
                width = 2.0 * math.log(t)
                best = -math.inf
                arm = 0
                for a in range(k):
                    u = mean[a] + math.sqrt(width / n[a])
                    if u > best:
                        best = u
                        arm = a
            x = rng.bernoulli(means[arm])
            y = rng.bernoulli(0.5 + (x - 0.5) * math.tanh(0.5 * eps))
            s[arm] += y
            n[arm] += 1.0
            mean[arm] = s[arm] / n[arm]
            regret += best_mean - means[arm]
        out[r] = regret


@pytest.mark.benchmark(group="engine: LDP-UCB-B eps=2, 20 arms, T=1e6")
@pytest.mark.parametrize("threads", [1, 2])
def test_ldp_ucb_b_hand_written_reference(benchmark, threads):
    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip(f"needs {threads} threads")
    from dpbench.environments import TWENTY_ARM_MEANS
    means = np.array(TWENTY_ARM_MEANS)
    reps = 2 * threads
    seeds = rng.rep_seeds(1, 0, reps)
    out = np.zeros(reps)
    with numba_threads(threads):
        benchmark.pedantic(_hand_written_ldp_ucb_b, args=(means, 2.0, T, seeds, out), rounds=5,
                           warmup_rounds=1)
    benchmark.extra_info["pulls_per_second"] = reps * T / benchmark.stats.stats.mean
    benchmark.extra_info["threads"] = threads
