"""Mechanism speed: every catalog mechanism as a stand-alone sampler, and the local mechanisms
inside the engine (the policies whose per-pull cost is mostly their mechanism).

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_mechanisms.py``.
Compile time is excluded (one untimed call, then a warm-up round).  ``extra_info`` records
``draws_per_second`` (samplers) or ``pulls_per_second`` (engine, R * T / mean round time).

A newly registered mechanism is benchmarked automatically with eps = 1 and delta = 0.01 for
its required parameters; one with other required parameters needs a row in ``PARAMS``.
"""
import pytest

import dpbench

N = 1_000_000
T = 1_000_000
PARAMS = {"ftpl_gauss": dict(eps=1.0, delta=0.01), "ftpl_beta": dict(eps=1.0, delta=0.01),
          "lemma15": dict(eps=1.0, delta=0.01)}
_GUESS = {"eps": 1.0, "delta": 0.01}


def _params(name):
    if name in PARAMS:
        return PARAMS[name]
    spec = dpbench.MECHANISMS[name]
    required = [p.name for p in spec.params if p.required]
    unknown = [p for p in required if p not in _GUESS]
    if unknown:
        pytest.fail(f"mechanism {name!r} needs {unknown}: add a row to PARAMS in {__file__}")
    return {p: _GUESS[p] for p in required}


@pytest.mark.benchmark(group="mechanisms: stand-alone sampler, n=1e6 draws at x=0.5")
@pytest.mark.parametrize("name", sorted(dpbench.MECHANISMS))
def test_sampler(benchmark, name):
    mech = dpbench.sampler(name, **_params(name))
    mech(0.5, 1000, 1)                                  # compile (or load) outside the timing
    benchmark.pedantic(mech, args=(0.5, N, 1), rounds=5, warmup_rounds=1)
    benchmark.extra_info["draws_per_second"] = N / benchmark.stats.stats.mean


# local mechanisms inside the loop, one thread, 20-arm instance unless the reward law needs another
ENGINE = {
    "CTL-S (LDP-UCB-LS), gaussian": ("ldp_ucb_ls", "gaussian", dict(eps=2.0, means=[0.9, 0.8, 0.7, 0.6, 0.5])),
    "CTB-S (LDP-UCB-BS), gaussian": ("ldp_ucb_bs", "gaussian", dict(eps=2.0, means=[0.9, 0.8, 0.7, 0.6, 0.5])),
    "HeLDP CTB, eps_t ~ truncated Gaussian": ("heldp_ucb_b", "bernoulli",
                                              dict(eps_dist="truncated_gaussian", eps_min=0.2)),
    "HeLDP CTL, eps_t ~ discrete": ("heldp_ucb_l", "bernoulli", dict(eps_dist="discrete", eps_min=0.2)),
}


@pytest.mark.benchmark(group="mechanisms in the engine: local curators, 1 thread, T=1e6")
@pytest.mark.parametrize("case", list(ENGINE))
def test_local_mechanism_in_engine(bench_policy, case):
    policy, env, params = ENGINE[case]
    bench_policy(policy, env, horizon=T, reps=2, threads=1, rounds=3, **params)
