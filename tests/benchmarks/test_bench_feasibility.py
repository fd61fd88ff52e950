"""Speed of the seed 002 CDF feasibility checks (issue 7).

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_feasibility.py``.
Compile time is excluded (one warm-up round).
"""
import pytest

from dpbench.mechanisms import perturbations as P
from verify import cdf_bands as B
from verify import cdf_feasibility as C

#: the laws by the names the parametrisations give them
LAW = {law.NAME: law for law in P.FEASIBILITY_LAWS}


def _profile(n, eps, extra_k=True):
    return P.BetaLaw.history_deltas(n, eps, {"extra_k": extra_k})


@pytest.mark.benchmark(group="feasibility: one exact check, every real x")
@pytest.mark.parametrize("family,lemma,n", [("gauss", 8, 8), ("gauss", 9, 8), ("lemma15", 8, 10),
                                            ("lemma15", 9, 10), ("beta", 8, 1065)])
def test_exact_check(benchmark, family, lemma, n):
    res = benchmark.pedantic(C.check, (LAW[family], 1.0, 0.01, n), {"lemma": lemma}, rounds=10, warmup_rounds=1)
    assert res.holds and res.certified


@pytest.mark.benchmark(group="feasibility: Beta worst history, closed form over all R")
@pytest.mark.parametrize("n", [1065, 38456])
def test_beta_histories(benchmark, n):
    d, _, _ = benchmark.pedantic(_profile, (n, 1.0), rounds=5, warmup_rounds=1)
    benchmark.extra_info["histories_per_second"] = n / benchmark.stats.stats.mean
    assert d.max() < 1e-15


@pytest.mark.benchmark(group="feasibility: minimal start phase")
@pytest.mark.parametrize("family", ["gauss", "beta"])
def test_minimal_start_phase(benchmark, family):
    res = benchmark.pedantic(C.minimal_start_phase, (LAW[family], 1.0, 0.01), rounds=3, warmup_rounds=1)
    assert res.n_min == {"gauss": 2, "beta": 32}[family]


@pytest.mark.benchmark(group="feasibility: DKW band check, 1e6 + 1e6 draws")
@pytest.mark.parametrize("lemma", [8, 9])
def test_band_check(benchmark, lemma):
    law = P.GaussianLaw(0.0, 8, 2.0)
    x, y = law.sample(1_000_000, 1), law.neighbour(1 / 8).sample(1_000_000, 2)
    res = benchmark.pedantic(B.band_check, (x, y, 1.0, 0.01), {"lemma": lemma}, rounds=3, warmup_rounds=1)
    assert res.verdict in ("holds", "inconclusive")
