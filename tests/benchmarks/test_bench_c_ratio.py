"""dpbench against anchors measured side by side in the same run (issue 17).

* **The plain C loop.**  ``ucb_ref.c`` (this folder) runs UCB1, LDP-UCB-B, LDP-UCB-L and
  HeLDP-UCB-B on seed 000's 20-arm instance: one core, a xoshiro256+ generator, every arm's
  index recomputed with its square roots each pull.  The benchmark compiles it (``$CC``, gcc,
  cc or clang with ``-O3 -march=native``; skipped with the reason when there is no compiler)
  and runs R = 4 repetitions of T = 1e6 pulls on one thread.  Targets (issue 17): 2.5x for
  UCB1 and LDP-UCB-B, 2.0x for LDP-UCB-L; HeLDP-UCB-B has none (reported for context).
* **An earlier dpbench.**  With ``DPBENCH_BASELINE_REV=<git revision>`` (e.g. ``main``) the
  revision is exported with ``git archive`` (into ``.benchmarks/``) and run in a subprocess on the same configuration:
  the speedup of this checkout over it (issue 17: 1.5x for DP-FTPL-New and HeLDP-UCB-L).
  Skipped, with that reason, when the variable is unset.  Both run repetitions 0..R-1 of the
  same seed, so ``identical_regrets`` says whether the final regrets agree bit for bit.
* **2 threads.**  The same plan on 1 thread (R/2 repetitions, time doubled) and 2 threads
  (R): the scaling is the ratio of pulls per second, wall clock, over 9 interleaved rounds of
  T = 1e7 (issue 17: >= 1.9x; ``ratio_median``, the median of the per-round ratios, is the
  figure a single disturbed round cannot move).  ``ratio_cpu`` near 1 says the two threads do
  not slow each other down (no contended cache lines: each repetition's state and output are
  its own); on a loaded machine the wall-clock scaling means nothing.

Every timed dpbench round is preceded by one anchor run of the same size (pytest-benchmark's
untimed ``setup``), so machine load affects both alike.  ``extra_info``: ``ratio`` = dpbench
pulls/s over the anchor's (wall clock, mean round times), ``ratio_cpu`` (the same from CPU
times, steadier on a busy machine), ``round_ratios`` (per interleaved pair), both absolute
``pulls_per_second``, ``target``.  tests/benchmarks/speed_table.py turns the JSON into the
README's table.  Sanity check against C: the same algorithm with different generators, so the
mean final regrets must agree (Welch t-test, alpha = 1e-6, fresh repetitions each round).

Run: ``python -m pytest -m benchmark --benchmark-only tests/benchmarks/test_bench_c_ratio.py
--benchmark-json=bench.json`` (``DPBENCH_BASELINE_REV=main`` for the comparison with main).
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pytest
from scipy import stats

from dpbench.engine.simulate import _run_chunk, compile_plan, numba_threads, prepare

T = 1_000_000
REPS = 4
ROUNDS = 5
EPS = 2.0
SOURCE = Path(__file__).with_name("ucb_ref.c")
ROOT = Path(__file__).resolve().parents[2]
INSTANCE_1 = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]   # seed 002's Instance 1

# dpbench policy -> (ucb_ref POLICY argument, parameters, target ratio of issue 17)
C_POLICIES = {"ucb1": ("ucb1", {}, 2.5), "ldp_ucb_b": ("b", {"eps": EPS}, 2.5),
              "ldp_ucb_l": ("l", {"eps": EPS}, 2.0),
              "heldp_ucb_b": ("hb", {"eps_dist": "discrete", "eps_min": EPS}, None)}
PARETO_S1 = {"environment": "pareto", "setting": "S1", "tail_v": 0.9}     # seed 003's setting S1, v = 0.9
# name -> (policy, parameters incl. the environment's (``environment``: its name, default
# bernoulli), horizon, repetitions, target speedup)
BASELINE_CASES = {
    "ucb1": ("ucb1", {}, T, REPS, None),
    "ldp_ucb_b": ("ldp_ucb_b", {"eps": EPS}, T, REPS, None),
    "ldp_ucb_l": ("ldp_ucb_l", {"eps": EPS}, T, REPS, None),
    "heldp_ucb_l": ("heldp_ucb_l", {"eps_dist": "discrete", "eps_min": 0.2}, T, 2, 1.5),
    # the slow families of the report build (issue 28): HeLDP-UCB-B, DP Robust UCB on seed 003's S1
    "heldp_ucb_b": ("heldp_ucb_b", {"eps_dist": "discrete", "eps_min": EPS}, T, 2, None),
    "dp_robust_ucb_s1": ("dp_robust_ucb", {**PARETO_S1, "v": 0.9, "eps": 1.0, "constants": "scaled"}, T, 2, None),
    "dp_ftpl_new": ("dp_ftpl_new", {"eps": 1.0, "delta": 0.01, "means": INSTANCE_1}, 100_000, 8, 1.5),
    # families whose state became named tuples (issue 18): must not be slower than before
    "dp_ftpl_gauss": ("dp_ftpl_gauss", {"eps": 1.0, "delta": 0.01}, T, 2, None),
    "gdp_elim_new": ("gdp_elim_new", {"eps": 1.0}, T, REPS, None),
    "dp_robust_ucb": ("dp_robust_ucb", {"v": 1.0, "eps": 1.0, "constants": "scaled"}, T, 2, None),
    "dp_se": ("dp_se", {"eps": 1.0}, T, REPS, None),
    # every arm's hybrid counter fed every step (about 1.5 us a pull): its reference counting went
    "dp_ucb": ("dp_ucb", {"eps": 1.0, "means": INSTANCE_1}, 200_000, 4, None),
}


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _interleaved(benchmark, plan, reps, anchor, first_rep=lambda i: 0, threads=1, rounds=ROUNDS):
    """Time ``reps`` repetitions of ``plan`` in ``rounds`` rounds (+1 warm-up), each after one
    untimed ``anchor(i)`` call returning (wall seconds, CPU seconds, payload).  Returns the
    per-round anchor results and dpbench's (wall, CPU, final regrets), warm-up dropped."""
    compile_plan(plan)
    anchors, ours = [], []
    order = iter(range(rounds + 1))

    def setup():
        i = next(order)
        anchors.append(anchor(i))
        return (i,), {}

    def run(i):
        cpu0, wall0 = time.process_time(), time.perf_counter()
        regret, _, _ = _run_chunk(plan, first_rep(i), reps, False)
        ours.append((time.perf_counter() - wall0, time.process_time() - cpu0, regret[:, -1]))

    with numba_threads(threads):
        benchmark.pedantic(run, setup=setup, rounds=rounds, warmup_rounds=1)
    return anchors[1:], ours[1:]


def _record(benchmark, pulls, anchors, ours, **info):
    a_wall, a_cpu = (np.array([a[i] for a in anchors]) for i in (0, 1))
    d_wall, d_cpu = (np.array([d[i] for d in ours]) for i in (0, 1))
    benchmark.extra_info.update(
        pulls_per_second=pulls / d_wall.mean(), anchor_pulls_per_second=pulls / a_wall.mean(),
        ratio=a_wall.mean() / d_wall.mean(), ratio_cpu=a_cpu.mean() / d_cpu.mean(),
        ratio_median=float(np.median(a_wall / d_wall)),
        round_ratios=(a_wall / d_wall).round(3).tolist(), **info)


# ------------------------------------------------------------------ the plain C loop
@pytest.fixture(scope="session")
def ucb_ref(tmp_path_factory):
    """Path of the compiled C loop (built once per session) and the compile command."""
    names = [os.environ["CC"]] if os.environ.get("CC") else ["gcc", "cc", "clang"]
    compilers = [shutil.which(name) for name in names if shutil.which(name)]
    if not compilers:
        pytest.skip(f"no C compiler ({', '.join(names)}) on PATH: cannot build {SOURCE.name}")
    binary = tmp_path_factory.mktemp("ucb_ref") / "ucb_ref"
    errors = []
    for flags in (["-O3", "-march=native"], ["-O3"]):        # -march=native is not everywhere
        cmd = [compilers[0], *flags, "-o", str(binary), str(SOURCE), "-lm"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            return binary, " ".join([Path(compilers[0]).name, *flags])
        errors.append(f"{' '.join(cmd)}: {proc.stderr.strip()[-300:]}")
    pytest.skip("the C reference loop does not compile: " + " | ".join(errors))


def _pooled(means, ses, n):
    """Mean, standard deviation and count of all repetitions from per-run (mean, SE) of n each."""
    means, ses = np.asarray(means), np.asarray(ses)
    total = means.size * n
    sum_sq = ((n - 1) * (ses ** 2 * n) + n * means ** 2).sum()
    mean = means.mean()
    return mean, np.sqrt((sum_sq - total * mean ** 2) / (total - 1)), total


@pytest.mark.benchmark(group="dpbench / plain C loop: 20 arms, T=1e6, 1 thread")
@pytest.mark.parametrize("policy", list(C_POLICIES))
def test_ratio_to_c_loop(benchmark, ucb_ref, policy):
    binary, compiler = ucb_ref
    code, params, target = C_POLICIES[policy]
    c_regrets = []

    def c_run(i):
        cpu0 = _children_cpu()
        out = subprocess.run([str(binary), code, str(T), str(REPS), str(EPS), str(i + 1)],
                             capture_output=True, text=True, check=True).stdout.split()
        c_regrets.append([float(v) for v in out[:2]])
        return float(out[3]), _children_cpu() - cpu0, None

    plan = prepare(policy, "bernoulli", T, 1, **params)
    anchors, ours = _interleaved(benchmark, plan, REPS, c_run, first_rep=lambda i: i * REPS)
    _record(benchmark, REPS * T, anchors, ours, anchor="plain C loop", c_compiler=compiler,
            threads=1, reps=REPS, horizon=T, target=target)
    c_pool = _pooled(*zip(*c_regrets[1:]), REPS)
    regret = np.concatenate([d[2] for d in ours])
    welch = stats.ttest_ind_from_stats(*c_pool, regret.mean(), regret.std(ddof=1), regret.size,
                                       equal_var=False)
    benchmark.extra_info.update(c_mean_regret=c_pool[0], mean_regret=float(regret.mean()),
                                regret_p_value=welch.pvalue)
    assert welch.pvalue > 1e-6, (f"{policy}: mean final regret {regret.mean():.1f} differs from the C "
                                 f"loop's {c_pool[0]:.1f} (Welch p = {welch.pvalue:.2g})")


# ------------------------------------------------------------------ an earlier dpbench
_CHILD = """
import json, sys, time
import dpbench
policy, env, horizon, reps, params = json.loads(sys.argv[1])
dpbench.simulate(policy, env, horizon, 1, 1, threads=1, **params)      # compile or load
cpu0 = time.process_time()
result = dpbench.simulate(policy, env, horizon, reps, 1, threads=1, **params)
print(json.dumps([result.seconds, time.process_time() - cpu0, result.regret[:, -1].tolist()]))
"""


@pytest.fixture(scope="session")
def baseline_tree():
    """The source tree of ``$DPBENCH_BASELINE_REV``: ``git archive`` of this repository into
    ``.benchmarks/baseline-<commit>`` (kept, so numba's disk cache of it serves later runs)."""
    rev = os.environ.get("DPBENCH_BASELINE_REV")
    if not rev:
        pytest.skip("set DPBENCH_BASELINE_REV=<git revision> (e.g. main) to compare with an earlier dpbench")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip(f"DPBENCH_BASELINE_REV={rev} needs git and a git checkout at {ROOT}")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", rev], capture_output=True,
                            text=True)
    if commit.returncode != 0:
        pytest.fail(f"DPBENCH_BASELINE_REV={rev}: {commit.stderr.strip()}")
    tree = ROOT / ".benchmarks" / f"baseline-{commit.stdout.strip()}"
    if not (tree / "pyproject.toml").exists():
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
        tree.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree, f"{rev} ({commit.stdout.strip()})"


@pytest.mark.benchmark(group="dpbench / an earlier dpbench ($DPBENCH_BASELINE_REV), 1 thread")
@pytest.mark.parametrize("case", list(BASELINE_CASES))
def test_speedup_over_baseline_revision(benchmark, baseline_tree, case):
    tree, rev = baseline_tree
    policy, params, horizon, reps, target = BASELINE_CASES[case]
    params = dict(params)
    environment = params.pop("environment", "bernoulli")
    env = {**os.environ, "PYTHONPATH": str(tree)}

    def baseline_run(i):
        out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps([policy, environment, horizon, reps, params])],
                             capture_output=True, text=True, env=env, cwd=tree)
        if out.returncode != 0:
            pytest.fail(f"{rev} does not run {policy}: {out.stderr.strip()[-500:]}")
        seconds, cpu, final = json.loads(out.stdout.strip().splitlines()[-1])
        return seconds, cpu, np.array(final)

    plan = prepare(policy, environment, horizon, 1, **params)
    anchors, ours = _interleaved(benchmark, plan, reps, baseline_run)
    _record(benchmark, reps * horizon, anchors, ours, anchor=f"dpbench {rev}", threads=1, reps=reps,
            horizon=horizon, target=target,
            identical_regrets=bool(np.array_equal(anchors[0][2], ours[0][2])))


# ------------------------------------------------------------------ 2 threads
#: rounds of the 2-thread scaling: long (T = 1e7: about half a second per round for the fastest
#: loop) and many, so that one round disturbed by another process does not decide the figure
SCALING_T = 10_000_000
SCALING_ROUNDS = 9


@pytest.mark.benchmark(group="dpbench: 2 threads / 1 thread, 20 arms, T=1e7")
@pytest.mark.parametrize("policy", ["ucb1", "ldp_ucb_b", "ldp_ucb_l", "heldp_ucb_b"])
def test_two_thread_scaling(benchmark, policy):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 threads")
    plan = prepare(policy, "bernoulli", SCALING_T, 1, **C_POLICIES[policy][1])

    def one_thread(i):
        with numba_threads(1):
            cpu0, wall0 = time.process_time(), time.perf_counter()
            _run_chunk(plan, 0, REPS // 2, False)
            return 2 * (time.perf_counter() - wall0), 2 * (time.process_time() - cpu0), None

    anchors, ours = _interleaved(benchmark, plan, REPS, one_thread, threads=2, rounds=SCALING_ROUNDS)
    _record(benchmark, REPS * SCALING_T, anchors, ours, anchor="the same plan on 1 thread (half the repetitions)",
            threads=2, reps=REPS, horizon=SCALING_T, target=1.9)
