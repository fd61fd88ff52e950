"""Instructions per pull of the compiled loop, this checkout against an earlier revision.

Wall-clock ratios need a quiet machine; instruction counts do not: valgrind's callgrind counts
the instructions a process executes, the same on a busy machine as on a quiet one.  For each
case and each tree (this checkout or ``--revision REV``, and ``--baseline REV``, each exported
with ``git archive`` into ``.benchmarks/baseline-<commit>`` as ``test_bench_c_ratio.py`` does)
the kernel is compiled into numba's disk cache by a first run under valgrind (valgrind's
emulated CPU has other features than the host, and numba keys its cache on them), then run
under callgrind with instrumentation switched on only around the compiled loop (a tiny C
library built here issues callgrind's client requests; the interpreter's start, the imports
and the cache load run uninstrumented), at the horizon T and at T0 = T / 100: the difference
of the two counts over the difference of the pulls is the kernel's instructions per pull.
Printed per case: the instructions per pull of both trees, their ratio (earlier / this: the
speedup), and whether the final regrets of the same seed agree bit for bit (the arm sequences
of a speed change must be identical).  One thread (``NUMBA_NUM_THREADS=1``).

    python -m tests.benchmarks.instruction_counts --baseline main heldp_ucb_b dp_robust_ucb
    python -m tests.benchmarks.instruction_counts --baseline HEAD~1 --revision HEAD heldp_ucb_b

Instruction counts are not time: a change that trades instructions for cache misses or
mispredicted branches would look better here than it is, so the wall-clock ratio of
``test_bench_c_ratio.py`` (``DPBENCH_BASELINE_REV``) on a quiet machine remains the measure
of record; these counts are what can be measured while the machine is shared.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import site
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EPS = 2.0
INSTANCE_1 = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70]   # seed 002's Instance 1
PARETO = {"setting": "S1", "tail_v": 0.9}     # seed 003 setting S1, v = 0.9

#: name -> (policy, environment, parameters, horizon T, repetitions); T0 = T / 100
CASES = {
    "ucb1": ("ucb1", "bernoulli", {}, 200_000, 1),
    "ldp_ucb_b": ("ldp_ucb_b", "bernoulli", {"eps": EPS}, 200_000, 1),
    "ldp_ucb_l": ("ldp_ucb_l", "bernoulli", {"eps": EPS}, 200_000, 1),
    "heldp_ucb_b": ("heldp_ucb_b", "bernoulli", {"eps_dist": "discrete", "eps_min": EPS}, 200_000, 1),
    "heldp_ucb_l": ("heldp_ucb_l", "bernoulli", {"eps_dist": "discrete", "eps_min": 0.2}, 200_000, 1),
    "heldp_ucb_b_gauss": ("heldp_ucb_b", "bernoulli", {"eps_dist": "truncated_gaussian", "eps_min": 1.0},
                          200_000, 1),
    "dp_ftpl_gauss": ("dp_ftpl_gauss", "bernoulli", {"eps": 1.0, "delta": 0.01, "means": INSTANCE_1}, 100_000, 1),
    "dp_ftpl_beta": ("dp_ftpl_beta", "bernoulli", {"eps": 1.0, "delta": 0.01, "means": INSTANCE_1}, 100_000, 1),
    "dp_ftpl_new": ("dp_ftpl_new", "bernoulli", {"eps": 1.0, "delta": 0.01, "means": INSTANCE_1}, 100_000, 1),
    "dp_robust_ucb": ("dp_robust_ucb", "pareto", {**PARETO, "v": 0.9, "eps": 1.0, "constants": "scaled"},
                      200_000, 1),
    "dp_robust_se": ("dp_robust_se", "pareto", {**PARETO, "v": 0.9, "eps": 1.0, "constants": "scaled"},
                     1_000_000, 1),
    "ldp_robust_se": ("ldp_robust_se", "pareto", {**PARETO, "v": 0.9, "eps": 1.0, "constants": "scaled"},
                      1_000_000, 1),
    "dp_se": ("dp_se", "bernoulli", {"eps": 1.0}, 1_000_000, 1),
    "gdp_elim_new": ("gdp_elim_new", "bernoulli", {"eps": 1.0}, 1_000_000, 1),
}

_CHILD = """
import ctypes, json, sys
from dpbench.engine.simulate import _run_chunk, compile_plan, prepare
control = ctypes.CDLL(sys.argv[2])
policy, env, params, horizon, reps = json.loads(sys.argv[1])
plan = prepare(policy, env, horizon, 1, **params)
compile_plan(plan)
control.start()
regret, _, _ = _run_chunk(plan, 0, reps, False)
control.stop()
print(json.dumps([float(x).hex() for x in regret[:, -1]]))
"""

#: callgrind's client requests, callable through ctypes (no-ops outside valgrind)
_CONTROL = """
#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
"""


def control_library() -> Path:
    """The shared library of :data:`_CONTROL`, built once into ``.benchmarks/``."""
    out = ROOT / ".benchmarks" / "callgrind_control.so"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        source = out.with_suffix(".c")
        source.write_text(_CONTROL)
        cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc") or "cc"
        proc = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(out), str(source)], capture_output=True,
                              text=True)
        if proc.returncode != 0:
            raise SystemExit(f"cannot build {out} (needs a C compiler and valgrind's headers): {proc.stderr[-500:]}")
    return out


def baseline_tree(rev: str) -> Path:
    """The source tree of git revision ``rev``, exported once into ``.benchmarks/baseline-<commit>``."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", rev], capture_output=True,
                            text=True, check=True).stdout.strip()
    tree = ROOT / ".benchmarks" / f"baseline-{commit}"
    if not (tree / "pyproject.toml").exists():
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
        tree.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


def _env(tree: Path) -> dict:
    """The child's environment: ``tree`` first on the path, then this interpreter's site-packages
    (valgrind starts the interpreter's real binary, which does not see a virtual environment)."""
    path = [str(tree), *site.getsitepackages()]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path), "NUMBA_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


def _run(tree: Path, case, horizon: int, callgrind: bool) -> tuple[list[str], int | None]:
    policy, env, params, _, reps = case
    arg = json.dumps([policy, env, params, horizon, reps])
    cmd = [sys.executable, "-c", _CHILD, arg, str(control_library())]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        if callgrind:
            cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                   "--dump-line=no"] + cmd
        proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(tree), cwd=tree)
        if proc.returncode != 0:
            raise SystemExit(f"{tree}: {policy} failed:\n{proc.stderr[-2000:]}")
        regrets = json.loads(proc.stdout.strip().splitlines()[-1])
        if not callgrind:
            return regrets, None
        totals = re.search(r"^totals:\s+(\d+)", out.read_text(), flags=re.M)
        if totals is None:
            raise SystemExit(f"no instruction total in the callgrind output of {policy}")
        return regrets, int(totals.group(1))


def count(tree: Path, case) -> tuple[float, list[str]]:
    """(instructions per pull of the kernel, final regrets as float.hex) of ``case`` in ``tree``."""
    policy, env, params, horizon, reps = case
    small = max(horizon // 100, 1000)
    _run(tree, case, small, callgrind=True)    # compile into the disk cache: under valgrind, whose CPU
    #                                            (features) keys numba's cache differently from the host's
    regrets, big_ir = _run(tree, case, horizon, callgrind=True)
    _, small_ir = _run(tree, case, small, callgrind=True)
    assert big_ir is not None and small_ir is not None
    return (big_ir - small_ir) / (reps * (horizon - small)), regrets


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help=f"cases (default all): {', '.join(CASES)}")
    ap.add_argument("--baseline", help="git revision to compare with (e.g. main)")
    ap.add_argument("--revision", help="git revision to measure instead of this working tree (e.g. HEAD: a "
                                       "frozen copy, so that editing the sources meanwhile cannot disturb it)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args(argv)
    if args.list:
        for name, case in CASES.items():
            print(f"{name}: {case}")
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH")
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        raise SystemExit(f"unknown cases {unknown}; allowed: {', '.join(CASES)}")
    base = baseline_tree(args.baseline) if args.baseline else None
    this = baseline_tree(args.revision) if args.revision else ROOT
    rows = []
    print("| case | T | instructions/pull (this) | instructions/pull (baseline) | speedup | regrets |")
    print("|---|---|---|---|---|---|")
    for name in args.cases or list(CASES):
        case = CASES[name]
        ours, regrets = count(this, case)
        row = {"case": name, "horizon": case[3], "this": ours}
        if base is not None:
            theirs, base_regrets = count(base, case)
            row.update(baseline=theirs, speedup=theirs / ours, identical=regrets == base_regrets)
        rows.append(row)
        print(f"| {name} | {case[3]:.0e} | {ours:.1f} | {row.get('baseline', float('nan')):.1f} | "
              f"{row.get('speedup', float('nan')):.3f}x | "
              f"{'identical' if row.get('identical') else ('DIFFER' if base is not None else '')} |", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"baseline": args.baseline, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
