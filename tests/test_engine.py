"""Engine invariants: seeding, thread-count independence, batching, memory, the disk cache."""
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np
import pytest
from scipy import stats

import dpbench
from dpbench.engine import stamps
from dpbench.engine.catalog import ALGORITHMS, AlgorithmSpec, Built
from dpbench.engine.components import implements, init_state, select, update
from dpbench.engine.result import SimulationResult, log_checkpoints
from dpbench.mechanisms.ldp_curators import Direct

ROOT = Path(__file__).resolve().parents[1]
MEANS = [0.9, 0.8, 0.7, 0.5]


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_same_seed_same_result_for_1_and_2_threads():
    runs = [dpbench.simulate("ldp_ucb_l", "bernoulli", 5000, 6, 42, eps=1.0, threads=n, trace=True)
            for n in (1, 2)]
    assert np.array_equal(runs[0].regret, runs[1].regret)
    assert np.array_equal(runs[0].trace, runs[1].trace)
    assert np.array_equal(runs[0].pulls, runs[1].pulls)


def test_repetitions_depend_only_on_master_seed_and_index():
    whole = dpbench.simulate("ldp_ucb_b", "bernoulli", 3000, 5, 9, eps=1.0)
    head = dpbench.simulate("ldp_ucb_b", "bernoulli", 3000, 2, 9, eps=1.0)
    tail = dpbench.simulate("ldp_ucb_b", "bernoulli", 3000, 3, 9, eps=1.0, first_rep=2)
    joined = SimulationResult.concat([tail, head])
    assert np.array_equal(whole.regret, joined.regret)
    other = dpbench.simulate("ldp_ucb_b", "bernoulli", 3000, 2, 10, eps=1.0)
    assert not np.array_equal(head.regret, other.regret)


def test_regret_is_pseudo_regret_of_the_pulls():
    res = dpbench.simulate("ucb1", "bernoulli", 4000, 3, 1, means=MEANS, trace=True)
    gaps = 0.9 - np.array(MEANS)
    assert np.allclose(res.final_regrets, res.pulls @ gaps)
    assert (res.pulls.sum(axis=1) == 4000).all()
    cum = np.cumsum(gaps[res.trace], axis=1)
    assert np.allclose(res.regret, cum[:, res.checkpoints - 1])


_MEMORY_PROBE = """
import resource, sys, tracemalloc
import dpbench
dpbench.simulate("ucb1", "bernoulli", 1000, 2, 1)               # compile or load, warm up
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
res = dpbench.simulate("ucb1", "bernoulli", {horizon}, 2, 1)
python_peak = tracemalloc.get_traced_memory()[1]
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(python_peak, grown * 1024, res.regret.shape[1], res.trace is None)
"""


def test_memory_is_reps_by_checkpoints():
    """A run of T = 4e6 pulls allocates O(R x checkpoints), not O(T): NumPy's allocations
    (tracemalloc) and the process's peak resident memory (which also sees the compiled loop's
    own allocations) grow by far less than one float per pull (2 x 4e6 x 8 B = 64 MB)."""
    horizon = 4_000_000
    proc = subprocess.run([sys.executable, "-c", _MEMORY_PROBE.format(horizon=horizon)], capture_output=True,
                          text=True, cwd=ROOT)
    python_peak, grown, checkpoints, no_trace = proc.stdout.split()
    assert no_trace == "True" and int(checkpoints) == log_checkpoints(horizon).size < 150
    assert int(python_peak) < 1_000_000, f"{int(python_peak) / 1e6:.1f} MB allocated by NumPy during the run"
    assert int(grown) < 16_000_000, f"peak resident memory grew by {int(grown) / 1e6:.1f} MB during the run"


def test_checkpoint_grid_contains_powers_of_ten():
    grid = log_checkpoints(10**7)
    assert {1, 10, 100, 10**5, 10**6, 10**7} <= set(grid.tolist())
    assert (np.diff(grid) > 0).all() and grid.size < 160


# A test-only phased policy: round-robin in batches of 7 pulls, to check batch splitting.
class _RoundRobinBatches(NamedTuple):
    batch: int


@implements(init_state, _RoundRobinBatches)
def _rr_init(policy, k, horizon):
    return np.zeros(1)


@implements(select, _RoundRobinBatches)
def _rr_select(policy, state, t):
    return (t // policy.batch) % 4, policy.batch


@implements(update, _RoundRobinBatches)
def _rr_update(policy, state, arm, m, value, level, t):
    state[0] += value


@pytest.fixture
def round_robin_policy():
    """A toy batched policy, registered only for the test (other tests check the registry)."""
    ALGORITHMS.add(AlgorithmSpec("_test_round_robin", "RR", "test", "test only", "tests", (),
                                 lambda instance, horizon: Built(_RoundRobinBatches(7), Direct(False))))
    yield "_test_round_robin"
    del ALGORITHMS["_test_round_robin"]


def test_batched_pulls_are_split_exactly_at_checkpoints(round_robin_policy):
    res = dpbench.simulate(round_robin_policy, "bernoulli", 1000, 2, 0, means=MEANS, trace=True)
    gaps = 0.9 - np.array(MEANS)
    expected = np.cumsum(gaps[(np.arange(1000) // 7) % 4])
    assert np.array_equal(res.trace[0], (np.arange(1000) // 7) % 4)
    assert np.allclose(res.regret[0], expected[res.checkpoints - 1])
    assert res.pulls[0].sum() == 1000                      # the last batch is cut at the horizon


def test_second_process_loads_kernels_from_disk_cache():
    code = ("import dpbench; from dpbench.engine.kernel import simulate_kernel as k;"
            "from dpbench.engine.stamps import compiled_sources_hash as h;"
            "dpbench.simulate('ldp_ucb_b', 'bernoulli', 100, 1, 0, eps=1.0);"
            "print(h(), sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))")

    def run():
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                             env=dict(os.environ, NUMBA_DISABLE_JIT="0")).stdout.split()
        return out[0], int(out[1]), int(out[2])

    for _ in range(3):          # a source edit between the two processes (development) restarts
        first, second = run(), run()
        if first[0] == second[0]:
            break
    assert second[1] >= 1 and second[2] == 0, (first, second)


def test_cache_stamp_covers_component_sources(tmp_path, monkeypatch):
    """Editing any compiled source file (not only the kernel's own) changes the stamp."""
    pkg = tmp_path / "dpbench"
    pkg.mkdir()
    (pkg / "a.py").write_text("import numba\nX = 1\n")
    (pkg / "b.py").write_text("Y = 2  # no compiled code: not part of the stamp\n")
    monkeypatch.setattr(stamps, "_ROOTS", (pkg,))
    stamps.compiled_sources_hash.cache_clear()
    h1 = stamps.compiled_sources_hash()
    (pkg / "b.py").write_text("Y = 3\n")
    stamps.compiled_sources_hash.cache_clear()
    assert stamps.compiled_sources_hash() == h1
    (pkg / "a.py").write_text("import numba\nX = 2\n")
    stamps.compiled_sources_hash.cache_clear()
    h2 = stamps.compiled_sources_hash()
    assert h2 != h1
    (pkg / "c.py").write_text("@implements(select, X)\ndef f(policy, state, t): return 0, 1\n")
    stamps.compiled_sources_hash.cache_clear()
    h3 = stamps.compiled_sources_hash()
    assert h3 != h2                         # a component module never imports numba itself
    (pkg / "c.py").write_text("@implements(select, X)\ndef f(policy, state, t): return 1, 1\n")
    stamps.compiled_sources_hash.cache_clear()
    assert stamps.compiled_sources_hash() != h3
    stamps.compiled_sources_hash.cache_clear()


def test_result_round_trip(tmp_path):
    res = dpbench.simulate("heldp_ucb_b", "bernoulli", 2000, 3, 4, eps_dist="discrete", eps_min=1.0)
    res.save(tmp_path / "r.eps=1.0")
    back = SimulationResult.load(tmp_path / "r.eps=1.0")
    assert np.array_equal(back.regret, res.regret) and back.params == res.params
    assert back.info["V_B"] == pytest.approx(4.1149, abs=1e-4)          # seed 001 Appendix A.3
    assert back.metadata["versions"]["numba"] == numba.__version__
    # the 95% band is Student's t interval of the per-repetition regrets, at every checkpoint
    for c in (res.checkpoints.size // 2, -1):
        ci = stats.ttest_1samp(res.regret[:, c], 0.0).confidence_interval(0.95)
        assert np.allclose(res.ci95[:, c], [ci.low, ci.high], rtol=1e-12, atol=1e-12)


_RENAMED_COMPONENT = '''
from typing import NamedTuple
from dpbench.engine.caching import cached_njit

class {name}(NamedTuple):
    x: float

@cached_njit
def twice(p):
    return 2.0 * p.x

def run():
    return twice({name}(1.5))
'''


def test_cache_index_naming_a_renamed_class_is_a_miss_not_an_error(tmp_path):
    """numba unpickles a cache index before checking its stamp; after a component class of an
    importable module is renamed the old index cannot be read back, which must count as a
    cache miss (classes of __main__ are pickled by value, so the component is a module)."""
    def run(name):
        (tmp_path / "renamed_component.py").write_text(_RENAMED_COMPONENT.format(name=name))
        return subprocess.run([sys.executable, "-c", "import renamed_component as c; print(c.run())"],
                              capture_output=True, text=True, cwd=tmp_path,
                              env=dict(os.environ, NUMBA_DISABLE_JIT="0", PYTHONPATH=f"{ROOT}:{tmp_path}"))
    assert run("Before").stdout.strip() == "3.0"
    after = run("After")
    assert after.returncode == 0 and after.stdout.strip() == "3.0", after.stderr[-2000:]
