"""Atomic reference counting left in the compiled simulation loop, per policy.

numba counts references to every array a verb keeps (``NRT_incref`` / ``NRT_decref``, each an
atomic read-modify-write), and llvmlite's pruning pass removes a pair only when it can match
the decrement with the increment: a raise path inside a verb (an explicit ``raise``, a division
under numba's default "python" error model) or a state released at the end of each branch of a
verb keeps the pair, and the loop then pays it on every pull (HeLDP-UCB: about 2x of its time;
DP-RobustUCB 1.3x; DP-UCB three pairs per arm and step).  This counts the increments left in
the loop's ``prange`` body (the gufunc numba compiles it into): what remains there runs once per
repetition or once per pull, and a policy whose per-pull pairs are all pruned has none.  Wall
time cannot show such a regression on a shared machine; the count can (the extending guide
says how to remove one).

    python -m tests.benchmarks.refcounts dp_ucb heldp_ucb_l dp_ftpl_new

Each policy is compiled afresh (not loaded from numba's disk cache, which holds object code
only) on its reference instance (``dpbench.engine.throughput.reference_config``), under the
loop's own options and inlining threshold: 5-30 s each.
"""
from __future__ import annotations

import argparse
import re
from typing import NamedTuple

import numba
import numpy as np
from numba.core.compiler_lock import global_compiler_lock

from dpbench.engine import kernel
from dpbench.engine import simulate as simulate_module
from dpbench.engine.throughput import reference_config


class LoopRefcounts(NamedTuple):
    policy: str
    increfs: int      # NRT_incref calls in the loop's prange body (the gufunc)
    decrefs: int


def _kernel_args(policy: str) -> tuple:
    """The arguments ``dpbench.simulate`` hands the loop for a short run of ``policy`` on its
    reference instance (captured, not run)."""
    cfg = reference_config(policy)
    env = dict(cfg["environment"])
    env_name = env.pop("name")
    captured: list = []
    original = simulate_module._call_stoppable
    simulate_module._call_stoppable = captured.append
    try:
        plan = simulate_module.prepare(policy, env_name, 1000, 1, env_params=env or None, **cfg["params"])
        simulate_module._run_chunk(plan, 0, 1, False)
    finally:
        simulate_module._call_stoppable = original
    return captured[0] + (np.zeros(1, dtype=np.uint8),)


def loop_refcounts(policy: str) -> LoopRefcounts:
    """Count the reference-count calls in the gufunc of ``policy``'s simulation loop."""
    args = _kernel_args(policy)
    fresh = numba.njit(parallel=kernel.PARALLEL, nogil=True, error_model=kernel.ERROR_MODEL)(
        kernel._simulate_kernel.py_func)
    signature = tuple(fresh.typeof_pyval(a) for a in args)
    with global_compiler_lock, kernel._inline_threshold(kernel.inline_threshold(args[0])):
        fresh.compile(signature)
    ir = fresh.overloads[signature].library.get_llvm_str()
    gufuncs = [f for f in re.split(r"\ndefine ", ir) if re.match(r"[^(]*@\"?__gufunc__", f)]
    if len(gufuncs) != 1:
        raise RuntimeError(f"expected one gufunc in the loop's IR, found {len(gufuncs)} (numba changed?)")
    body = gufuncs[0]
    return LoopRefcounts(policy, body.count("call void @NRT_incref"), body.count("call void @NRT_decref"))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policies", nargs="+", help="registered policy names (dpbench algorithms)")
    args = parser.parse_args(argv)
    print("| policy | NRT_incref in the loop | NRT_decref |\n|---|---|---|")
    for name in args.policies:
        counts = loop_refcounts(name)
        print(f"| {counts.policy} | {counts.increfs} | {counts.decrefs} |", flush=True)


if __name__ == "__main__":
    main()
