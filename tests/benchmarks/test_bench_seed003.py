"""Seed 003 speed: every policy on the paper's S1 Pareto instance (K = 5, v = 0.9), T = 1e6.

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_seed003.py``.
Compile time is excluded (``bench_policy`` compiles first, then a warm-up round);
``extra_info['pulls_per_second']`` is R * T / (mean seconds per round).

* DPRUCB: per pull one Pareto draw, one tree insertion (one Laplace), three powers (B_n,
  n^(-v/(1+v)), the round's width); index M_a + w n_a^(-v/(1+v)) over K arms.
* Robust UCB: per pull one Pareto draw, two powers; drops from the heap are rare.
* DPRSE / LDPRSE (scaled constants, so that epochs end and arms are eliminated): batched
  pulls, so the cost is the Pareto draw + truncation of every reward (+ O(1) Laplace sums).
"""
import pytest

T = 1_000_000
S1 = dict(setting="S1", tail_v=0.9, v=0.9)


@pytest.mark.benchmark(group="seed 003: DPRUCB, S1, v=0.9, eps=1, T=1e6")
@pytest.mark.parametrize("threads", [1, 2])
def test_dp_robust_ucb(bench_policy, threads):
    bench_policy("dp_robust_ucb", "pareto", horizon=T, reps=2 * threads, threads=threads, rounds=3,
                 eps=1.0, constants="scaled", **S1)


@pytest.mark.benchmark(group="seed 003: Robust UCB (non-private), S1, v=0.9, T=1e6")
@pytest.mark.parametrize("threads", [1, 2])
def test_robust_ucb(bench_policy, threads):
    bench_policy("robust_ucb", "pareto", horizon=T, reps=2 * threads, threads=threads, rounds=3, **S1)


@pytest.mark.benchmark(group="seed 003: DPRSE (scaled), S1, v=0.9, eps=1, T=1e6")
@pytest.mark.parametrize("threads", [1, 2])
def test_dp_robust_se(bench_policy, threads):
    bench_policy("dp_robust_se", "pareto", horizon=T, reps=4 * threads, threads=threads, rounds=3,
                 eps=1.0, constants="scaled", **S1)


@pytest.mark.benchmark(group="seed 003: LDPRSE (scaled), S1, v=0.9, eps=10, T=1e6")
@pytest.mark.parametrize("threads", [1, 2])
def test_ldp_robust_se(bench_policy, threads):
    bench_policy("ldp_robust_se", "pareto", horizon=T, reps=4 * threads, threads=threads, rounds=3,
                 eps=10.0, constants="scaled", **S1)
