"""The one simulation loop: every policy, mechanism and environment runs here.

``simulate_kernel`` runs R repetitions in parallel threads (``prange``); each
repetition seeds the thread's generator with its own seed first, so results
are bit-identical for any thread count.  It records the pseudo-regret
(sum of the gaps of the pulled arms, not realised reward) at the checkpoint
grid, the final pull count of every arm and, only when asked, the action
sequence.  Memory is O(R x checkpoints) unless a trace is requested.

numba compiles each verb's implementation (and numba's own ``np.random``
draws) as a separate function and leaves it to LLVM's inliner whether to merge
them into the loop.  At LLVM's default threshold (250) ``select``, ``respond``
and the Mersenne Twister draw stay calls, with their argument passing and
reference counting on every pull (LDP-UCB-B ran at about 60% of the speed
with everything inlined).  So the loop is compiled with a higher inlining
threshold, set only while numba compiles it (``INLINE_THRESHOLD``; a policy class can ask for
another, :func:`inline_threshold`); every other compilation in the process keeps LLVM's default.

A repetition whose mechanism returns a non-finite response stops there and
sets its final regret to NaN (regret is otherwise always finite); one whose policy selects no
arm of 0..k-1 (or a batch of no pulls) stops with BAD_SELECT; the caller raises an error naming
the component (``simulate._run_chunk``).  Without the arm check an out-of-range arm read past
the gaps array: a silent regret of 0 or 1e140.

Ctrl-C: the loop runs its pulls in blocks of STOP_CHECK_PULLS and, between blocks, reads a
one-byte stop flag (an atomic load, so the compiler can neither hoist it out of the loop nor
keep it in a register); the caller (``simulate._run_chunk``) runs the loop in a helper thread
with the GIL released and sets the flag when the main thread receives Ctrl-C.  A stopped
repetition ends with STOPPED as its final regret and is discarded; the ones that finished are
unchanged.  The block adds no work per pull: the inner loop compares ``t`` with the block's
end instead of the horizon, and the flag is read once per block.
"""
from __future__ import annotations

import contextlib
import math

import llvmlite.binding as llvm
import numba
import numpy as np
from numba import prange, types
from numba.core.compiler_lock import global_compiler_lock
from numba.extending import intrinsic, overload

from .caching import cached_njit
from .components import broadcast, init_state, respond_broadcast, select, update

#: the final regret of a repetition stopped because ``select`` returned no arm (regret is >= 0)
BAD_SELECT = -1.0
#: the final regret of a repetition stopped by the stop flag (Ctrl-C): unfinished, discarded
STOPPED = -2.0
#: pulls between two reads of the stop flag: 2^14, a fraction of a second for the slowest
#: policy of the throughput table (5.6e5 pulls/s at 20 arms) and one load in 16,384 pulls
STOP_CHECK_PULLS = 1 << 14


def stop_requested(flag) -> bool:
    """Whether the stop flag (a one-byte array) is set; compiled as an atomic load."""
    return flag[0] != 0


@intrinsic
def _atomic_flag(typingctx, flag):
    """``flag[0] != 0`` read with a monotonic atomic load: another thread sets it while the loop
    runs, and a plain load may be hoisted out of the loop."""
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        value = builder.load_atomic(array.data, "monotonic", 1)
        return builder.icmp_unsigned("!=", value, value.type(0))
    return types.boolean(flag), codegen


@overload(stop_requested)
def _stop_requested_compiled(flag):
    def impl(flag):
        return _atomic_flag(flag)     # type: ignore[call-arg]  # numba supplies the typing context
    return impl

#: LLVM inlining threshold while the simulation loop compiles (LLVM's -O3 default is 250).  At
#: 3000 the lattice draws and the leader look-ahead grew the verbs of HeLDP-UCB-L/B and GDP-Elim-New
#: past it (18-29% slower than inlined); beyond 20000 nothing measured changes.  A policy class
#: may set its own ``INLINE_THRESHOLD`` (:func:`inline_threshold`).
INLINE_THRESHOLD = 20000
#: LLVM's default (-O3) threshold, which every other compilation keeps
LLVM_DEFAULT_INLINE_THRESHOLD = 250


def inline_threshold(policy) -> int:
    """The inlining threshold the loop compiles under for ``policy``: its class's own
    ``INLINE_THRESHOLD`` if it sets one, else :data:`INLINE_THRESHOLD`.  A policy that decides
    once per batch of pulls gains nothing from inlining its verbs into the pull loop, and a large
    one compiles much faster without it (the phased linear policies: 25-30% less compile time)."""
    return int(getattr(type(policy), "INLINE_THRESHOLD", INLINE_THRESHOLD))


#: numba's parallel transformations for the loop: the ``prange`` over repetitions only.  The
#: others rewrite array expressions into parallel loops; the loop has none (its verbs are
#: separate functions), and they cost 8-36% of every compilation (cold, one process, two runs
#: against one: UCB1 12.5 -> 10.9-11.5 s, LDP-UCB-L 9.8 -> 6.7-7.8 s, HeLDP-UCB-L 13.2 -> 8.7-9.9 s)
#: for the same work: the
#: instructions per pull are unchanged (``tests/benchmarks/instruction_counts.py``: UCB1 208.5
#: against 209.3, HeLDP-UCB-L 575.5 against 574.2).  (A serial loop run in Python threads
#: compiled faster still but ran up to 2x slower: numba's gufunc for a prange body gets code the
#: serial loop does not; see the history of this file.)
PARALLEL = {"prange": True, "numpy": False, "reduction": False, "setitem": False, "stencil": False,
            "fusion": False, "comprehension": False, "inplace_binop": False}


#: numba's error model of the whole kernel.  The body of a ``prange`` is compiled as a gufunc
#: under the "numpy" model (a float division by zero gives inf or NaN, no exception) whatever the
#: function's own model, so the loop's verbs always ran under it; a function left at the default
#: "python" model also types them once under "python" first, and numba keys an overload's
#: compiled implementation on the model, so every verb (and every overload below it) was compiled
#: twice, the first copy never run.  One model for the whole kernel compiles each once: 27% less
#: cold compile time (UCB1, HeLDP-UCB-L, DP-FTPL-Gauss, DPRUCB, LDP-UCB-B, DP-UCB, Alg. 2, GDP-Elim-New
#: in one process: 106 -> 78 s), the same traces and regrets bit for bit.
ERROR_MODEL = "numpy"


@cached_njit(parallel=PARALLEL, nogil=True, error_model=ERROR_MODEL)
def _simulate_kernel(policy, mech, env, gaps, horizon, seeds, checkpoints,
                    out_regret, out_pulls, out_trace, stop):
    """Run ``seeds.shape[0]`` repetitions of ``horizon`` pulls.

    out_regret[r, c]  pseudo-regret after ``checkpoints[c]`` pulls (sorted, <= horizon)
    out_pulls[r, a]   pulls of arm a over the horizon
    out_trace[r, t]   arm of pull t (only if ``out_trace.shape[1] == horizon``)

    A batch of ``m`` pulls of one arm that straddles a checkpoint is split
    exactly there: the regret is linear in the number of pulls of that arm.
    A non-finite response stops repetition r with ``out_regret[r, -1] = NaN``; a ``select``
    that returns no arm of 0..k-1 or a batch of m < 1 pulls stops it with BAD_SELECT there
    (regret is otherwise finite and never negative).  The check costs a comparison per decision.
    ``stop`` (uint8[1]) set by another thread stops every running repetition with STOPPED
    within STOP_CHECK_PULLS pulls.
    """
    n_reps = seeds.shape[0]
    k = gaps.shape[0]
    n_check = checkpoints.shape[0]
    record = out_trace.shape[1] == horizon
    for r in prange(n_reps):
        np.random.seed(seeds[r])
        state = init_state(policy, k, horizon)
        pulls = np.zeros(k, dtype=np.int64)
        regret = 0.0
        c = 0
        t = 0
        flagged = False
        while t < horizon and not flagged:          # blocks of pulls, the stop flag read between them
            if stop_requested(stop):
                out_regret[r, n_check - 1] = STOPPED
                break
            block_end = min(horizon, t + STOP_CHECK_PULLS)
            while t < block_end:
                arm, m = select(policy, state, t)
                if arm < 0 or arm >= k or m < 1:    # not an arm, or no pull: stop, flag the repetition
                    out_regret[r, n_check - 1] = BAD_SELECT
                    flagged = True
                    break
                if m > horizon - t:
                    m = horizon - t
                gap = gaps[arm]
                while c < n_check and checkpoints[c] <= t + m:
                    out_regret[r, c] = regret + (checkpoints[c] - t) * gap
                    c += 1
                value, level = respond_broadcast(mech, env, arm, m, broadcast(policy, state))
                if not abs(value) < math.inf:       # NaN or +-inf: stop, flag the repetition
                    out_regret[r, n_check - 1] = math.nan
                    flagged = True
                    break
                update(policy, state, arm, m, value, level, t)
                if record:
                    for j in range(m):
                        out_trace[r, t + j] = arm
                regret += m * gap
                pulls[arm] += m
                t += m
        for a in range(k):
            out_pulls[r, a] = pulls[a]


@contextlib.contextmanager
def _inline_threshold(threshold):
    llvm.set_option("dpbench", f"-inline-threshold={threshold}")
    try:
        yield
    finally:
        llvm.set_option("dpbench", f"-inline-threshold={LLVM_DEFAULT_INLINE_THRESHOLD}")


class _Loop:
    """``simulate_kernel(..., out_trace, stop=None)``: the compiled loop, compiled (or loaded
    from the disk cache) under the policy's :func:`inline_threshold` the first time it meets new argument types;
    without ``stop``, a flag nobody sets.  Attributes (``stats``, ``py_func``, ...) are the
    numba dispatcher's."""

    def __init__(self, dispatcher):
        self._dispatcher = dispatcher

    def __call__(self, *args, stop=None):
        args = args + (np.zeros(1, dtype=np.uint8) if stop is None else stop,)
        self._compile(args)
        return self._dispatcher(*args)

    def compile_for(self, *args, stop=None) -> None:
        """Compile (or load) the loop for these arguments, in the calling thread, without running it."""
        self._compile(args + (np.zeros(1, dtype=np.uint8) if stop is None else stop,))

    def _compile(self, args) -> None:
        dispatcher = self._dispatcher
        if hasattr(dispatcher, "overloads"):            # not under NUMBA_DISABLE_JIT
            signature = tuple(dispatcher.typeof_pyval(a) for a in args)
            if signature not in dispatcher.overloads:
                # numba registers get_thread_id (the replay environment's draw; any user component may
                # call it) with LLVM only when its threading layer launches.  A loop compiled afresh
                # loads its non-parallel callees from the cache first (``components.report_each``
                # inlines the draw): in a process that had launched nothing, it aborted with
                # "LLVM ERROR: Symbol not found: get_thread_id".  get_num_threads() launches it.
                numba.get_num_threads()
                with global_compiler_lock, _inline_threshold(inline_threshold(args[0])):
                    dispatcher.compile(signature)

    def __getattr__(self, name):
        return getattr(self._dispatcher, name)


simulate_kernel = _Loop(_simulate_kernel)
