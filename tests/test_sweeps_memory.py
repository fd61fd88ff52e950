"""Peak memory of a T = 1e7, R = 100 run is O(R x checkpoints), not O(T): measured in fresh
processes (peak RSS above the warmed-up baseline) against a tiny run, for ``simulate`` and for the
runner writing to the result store.  Slow (about a minute of simulation on 2 cores):
``python -m pytest -m slow tests/test_sweeps_memory.py -s`` prints the figures."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_MEASURE = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
import dpbench
from dpbench.experiments import run_experiment
from dpbench.experiments import grid_experiment
mode, T, R = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dpbench.simulate("ucb1", "bernoulli", horizon=1000, reps=2, seed=0)        # compile or load first
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
if mode == "simulate":
    r = dpbench.simulate("ucb1", "bernoulli", horizon=T, reps=R, seed=1)
    checkpoints = r.checkpoints.size
else:
    exp = grid_experiment("memory", ["ucb1"], horizon=T, reps=R, seed=1)
    run = run_experiment(exp, out={out!r}, progress=False, log=lambda m: None, scheduler="none")
    checkpoints = run.results["UCB1"].checkpoints.size
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"mode": mode, "T": T, "R": R, "checkpoints": checkpoints, "base_mb": base / 1024,
                  "extra_mb": (peak - base) / 1024, "seconds": time.perf_counter() - t0}}))
"""


def measure(mode, horizon, reps, out):
    script = _MEASURE.format(root=str(ROOT), out=str(out))
    proc = subprocess.run([sys.executable, "-c", script, mode, str(horizon), str(reps)],
                          capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["simulate", "runner"])
def test_peak_memory_of_a_long_run_does_not_grow_with_t(mode, tmp_path):
    tiny = measure(mode, 1_000, 1, tmp_path / "tiny")
    big = measure(mode, 10_000_000, 100, tmp_path / "big")
    print(f"\n{mode}: tiny {tiny}\n{mode}: big  {big}")
    # one float64 per pull of ONE repetition would already be 80 MB; R x checkpoints is ~0.1 MB
    assert big["extra_mb"] - tiny["extra_mb"] < 32
