"""Result-store speed: writing one cell (a committed SQLite transaction, fsync included) and
merging a 100-repetition result from its cells, at the T = 1e7 checkpoint grid with 20 arms.

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_store.py``.
A cell of 10 repetitions at T = 1e7 computes for seconds, so a write must stay in milliseconds.
"""
import itertools

import numpy as np
import pytest

from dpbench.engine.simulate import prepare
from dpbench.sweeps import Config, ResultStore

T = 10_000_000
MEANS = [0.9] + [0.8] * 19


@pytest.fixture
def store(tmp_path):
    plan = prepare("ucb1", "bernoulli", T, 1, means=MEANS)
    cfg = Config.from_plan(plan, "bernoulli", {"means": MEANS})
    with ResultStore(tmp_path / "bench.sqlite", "bench") as s:
        s.register([("UCB1", "", "UCB1", cfg, plan)])
        yield s, cfg


def _cell(cfg, reps):
    gen = np.random.default_rng(0)
    return gen.random((reps, len(cfg.checkpoints))) * 1e4, gen.integers(0, T, (reps, 20))


@pytest.mark.benchmark(group="sweeps: result store, T=1e7 checkpoints, 20 arms")
def test_write_one_cell_of_10_reps(benchmark, store):
    s, cfg = store
    regret, pulls = _cell(cfg, 10)
    firsts = itertools.count(0, 10)
    benchmark.pedantic(lambda: s.write_cell(cfg.config_id, next(firsts), regret, pulls), rounds=20,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="sweeps: result store, T=1e7 checkpoints, 20 arms")
def test_merge_100_reps_from_10_cells(benchmark, store):
    s, cfg = store
    regret, pulls = _cell(cfg, 10)
    for first in range(0, 100, 10):
        s.write_cell(cfg.config_id, first, regret, pulls)
    result = benchmark.pedantic(s.load_result, args=(cfg.config_id, 100), rounds=20, warmup_rounds=1)
    assert result.reps == 100
