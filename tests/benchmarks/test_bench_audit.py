"""Audit throughput: outputs drawn and counted per second.

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_audit.py``.
Compile time is excluded (one untimed audit, then a warm-up round).  ``extra_info``
records ``samples_per_second`` of the whole audit (selection + certification, both
inputs) and ``certify_samples_per_second`` (the counting phase alone).

* fast path: a compiled mechanism (``fast.compiled_mechanism``, or a dpbench catalog
  mechanism: its ``.component``), outputs counted inside the kernel, never stored;
* block path: a plain callable (a function calling a catalog mechanism), outputs drawn in
  blocks of 2^18 and binned in NumPy;
* policy: DP-FTPL-New's next arm on a replayed reward table (one engine repetition per output).
"""
import time

import numpy as np
import pytest

import dpbench
import verify
from verify.audit import compiled_mechanism
from verify.audit.policy_audit import audit_policy
from verify.audit.suites.sniper import SVT1, Laplace, ReportNoisyMax, SparseVector

CASES = {
    "fast path: Laplace (1-d), n=2e7": (lambda: compiled_mechanism(Laplace(10.0, 1), 1), 0.0, 1.0, 20_000_000),
    "fast path: ReportNoisyMax (5 Laplace), n=1e7": (
        lambda: compiled_mechanism(ReportNoisyMax(20.0, False, True), 1), np.ones(5), np.full(5, 2.0), 10_000_000),
    "fast path: SVT1 (10-d, category), n=1e7": (
        lambda: compiled_mechanism(SparseVector(SVT1, 0.1, 1, 0.5), 10), np.ones(10),
        np.array([2.0] * 5 + [0.0] * 5), 10_000_000),
    "fast path: CTL catalog mechanism, n=1e7": (lambda: dpbench.sampler("ctl", eps=1.0), 0.0, 1.0, 10_000_000),
    "block path: CTL called as a plain function, n=1e7": (lambda: _plain(dpbench.sampler("ctl", eps=1.0)), 0.0,
                                                          1.0, 10_000_000),
}


def _plain(mechanism):
    """``mechanism`` as a plain function (no ``.component``: the audit takes the block path)."""
    def sample(x, n, seed):
        return mechanism(x, n, seed)
    return sample


def _run(mech, x, xp, n):
    return verify.audit(mech, x, xp, eps=0.1, alpha=0.1, n=n, n_select=200_000, seed=1)


@pytest.mark.benchmark(group="audit throughput (outputs drawn and counted per second)")
@pytest.mark.parametrize("case", sorted(CASES))
def test_audit_throughput(benchmark, case):
    make, x, xp, n = CASES[case]
    mech = make()
    _run(mech, x, xp, 200_000)                      # compile (or load) outside the timing
    result = benchmark.pedantic(_run, args=(mech, x, xp, n), rounds=3, warmup_rounds=1)
    benchmark.extra_info["samples_per_second"] = result.n_samples / benchmark.stats.stats.mean
    benchmark.extra_info["certify_samples_per_second"] = result.info["certify_samples_per_second"]
    benchmark.extra_info["fast_path"] = result.info["fast_path"]


@pytest.mark.benchmark(group="audit throughput (outputs drawn and counted per second)")
def test_policy_audit_throughput(benchmark):
    table = np.ones((5, 8))
    params = {"eps": 1.0, "delta": 0.01}

    def run(n):
        return audit_policy("dp_ftpl_new", table, eps=1.0, delta=0.01, n=n, alpha=0.1, seed=2, step=5,
                            policy_params=params)
    run(20_000)
    result = benchmark.pedantic(run, args=(400_000,), rounds=3, warmup_rounds=1)
    benchmark.extra_info["samples_per_second"] = result.n_samples / benchmark.stats.stats.mean


def _numpy_laplace(x, n, seed):
    return float(np.sum(x)) + np.random.default_rng(seed).laplace(0.0, 1.0, n)


def _numpy_randomised_response(x, n, seed):
    rng = np.random.default_rng(seed)
    return np.where(rng.random(n) < 0.75, x, 1 - x)


CONTRACT_CASES = {
    "numpy Laplace, default n": (_numpy_laplace, [0.0], [1.0], 1.0, {}),
    "numpy randomised response, default n": (_numpy_randomised_response, 0, 1, float(np.log(3)), {}),
    "numpy Laplace, budget 1e4": (_numpy_laplace, [0.0], [1.0], 1.0, {"budget": 1e4}),
}


@pytest.mark.benchmark(group="sampling-contract check (its share of an audit of a Python mechanism)")
@pytest.mark.parametrize("case", sorted(CONTRACT_CASES))
def test_contract_check_share(benchmark, case, monkeypatch):
    """The audit's time with the sampling-contract check (``verify.audit.contract``, run by
    ``SampleSource._check_contract`` and ``_compare_calls``) and ``extra_info['contract_share']``: the
    fraction of that time spent inside the check, and ``contract_sample_share``: of the outputs drawn."""
    from verify.audit.source import SampleSource

    mech, x, xp, eps, kwargs = CONTRACT_CASES[case]
    inside = [0.0]

    def timed(method):
        def wrapper(self, *args):
            t0 = time.perf_counter()
            try:
                return method(self, *args)
            finally:
                inside[0] += time.perf_counter() - t0
        return wrapper

    for name in ("_check_contract", "_compare_calls"):
        monkeypatch.setattr(SampleSource, name, timed(getattr(SampleSource, name)))

    def run():
        inside[0] = 0.0
        t0 = time.perf_counter()
        result = verify.audit(mech, x, xp, eps=eps, seed=1, **kwargs)
        shares.append(inside[0] / (time.perf_counter() - t0))
        return result

    shares: list = []
    run()
    result = benchmark.pedantic(run, rounds=3, warmup_rounds=0)
    benchmark.extra_info["contract_share"] = float(np.median(shares[1:]))
    benchmark.extra_info["contract_sample_share"] = result.info["contract_check_samples"] / result.n_samples
    assert result.info["contract_check_samples"] > 0
