"""``simulate``: validate, build the components, run the compiled loop, wrap the result.

Everything a user can get wrong is checked in :func:`prepare` (plain Python)
before numba compiles or runs anything.  Repetitions run in chunks so that a
progress bar advances, and a run can be split across processes: repetition r always uses seed
``rep_seeds(seed, r, 1)``, whatever the chunking.  Ctrl-C stops the compiled loop within a
block of pulls (:mod:`.kernel`), even inside one long repetition, and keeps every finished
repetition (:class:`Interrupted` carries them).

An environment drawn afresh for every repetition (an :class:`Instance` with ``redraw``) is
drawn from that seed too (:func:`~.catalog.repetition_plan`): the plan holds repetition 0's instance, and
each repetition runs its own instance and policy, one repetition per call of the loop.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import queue
import threading
import time
import warnings as python_warnings
from dataclasses import dataclass, field

import numba
import numpy as np

from ..randomness import rep_seeds
from ..validation import MAX_COUNT, InputError, check_count, check_int, unknown_name
from . import contracts
from .catalog import (
    ALGORITHMS,
    ENVIRONMENTS,
    AlgorithmSpec,
    Built,
    EnvironmentSpec,
    Instance,
    repetition_plan,
    validate_params,
)
from .composition import Composition, compose
from .interrupts import ctrl_c_held
from .kernel import BAD_SELECT, simulate_kernel
from .result import SimulationResult, log_checkpoints, now_iso, package_versions


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run, with the repetitions that finished.

    ``parts``: the finished repetitions as results of consecutive repetitions (repetitions run
    in parallel, so the ones finished when Ctrl-C came need not be consecutive); ``partial``: the
    first of them (or None); ``stopped``: how many repetitions were stopped unfinished (discarded).
    """

    def __init__(self, partial, parts=None, stopped: int = 0):
        super().__init__("interrupted")
        self.parts = list(parts) if parts is not None else ([] if partial is None else [partial])
        self.partial = self.parts[0] if self.parts else None
        self.stopped = stopped

    @property
    def finished(self) -> int:
        """How many repetitions finished (and are in ``parts``)."""
        return sum(p.reps for p in self.parts)


class _ChunkStopped(KeyboardInterrupt):
    """Ctrl-C inside a chunk: its arrays and which of its repetitions finished."""

    def __init__(self, regret, pulls, trace, finished):
        super().__init__("interrupted")
        self.arrays = (regret, pulls, trace)
        self.finished = finished


@dataclass
class Plan:
    """A validated, built configuration, ready to run."""

    spec: AlgorithmSpec
    instance: Instance
    built: Built
    params: dict
    horizon: int
    seed: int
    checkpoints: np.ndarray
    warnings: list = field(default_factory=list)
    env_spec: EnvironmentSpec | None = None      # None for an environment given already built
    composition: Composition | None = None       # the privatiser given as mechanism=, if any

    @property
    def label(self) -> str:
        """The policy's label, with the mechanism it is composed with."""
        return self.spec.label + (f" + {self.composition.name}" if self.composition else "")

    @property
    def run_params(self) -> dict:
        """The parameters that rebuild this plan (with ``mechanism`` and its own, if given)."""
        return self.composition.run_params(self.params) if self.composition else self.params


def build_environment(env, env_params: dict | None = None) -> Instance:
    """Build the environment ``env`` (a name, or an :class:`Instance` returned as given)."""
    return _environment(env, env_params)[0]


def _environment(env, env_params):
    """(instance, its spec or None): ``env`` built from its name and parameters, or as given."""
    if isinstance(env, Instance):
        if env_params:
            raise InputError(f"environment parameters {sorted(env_params)} given with an already built environment")
        return env, None
    spec = ENVIRONMENTS.get_spec(env)
    instance = spec.build(**validate_params(f"environment {spec.name!r}", spec.params, env_params or {}))
    contracts.check_instance(spec, instance)
    if not instance.name:
        instance.name = spec.name
    return instance, spec


def prepare(policy: str, env="bernoulli", horizon=None, seed=0, *, env_params=None,
            checkpoints=None, mechanism=None, **params) -> Plan:
    """Validate and build everything a run needs, before any compile.

    Validate and build everything; raises :class:`InputError` on bad input (and on a
    ``mechanism`` that does not fit the policy, :mod:`.composition`).
    """
    spec = ALGORITHMS.get_spec(policy)
    params = dict(params)
    env_params = dict(env_params or {})
    if isinstance(env, str):
        env_spec = ENVIRONMENTS.get_spec(env)
        for p in env_spec.params:
            if p.name in params:
                env_params[p.name] = params.pop(p.name)
    instance, env_spec = _environment(env, env_params)
    seed = check_int("seed", seed, low=0)
    if instance.redraw is not None:             # drawn per repetition: the plan holds repetition 0's
        instance = instance.redraw(int(rep_seeds(seed, 0, 1)[0]))
        instance.info["instance_per_repetition"] = True     # results record it (paired comparisons)
    if instance.k < 2:
        raise InputError(f"a bandit needs at least 2 arms (got {instance.k})")
    try:
        horizon = check_count("horizon", horizon, low=instance.k)
    except InputError as err:           # the lower end is the arm count: say so
        raise InputError(f"{err}: at least one pull of each of the {instance.k} arms") from None
    composition = None if mechanism is None else compose(spec, mechanism, params, instance)
    own = {p.name for p in spec.params}
    unknown = sorted(set(params) - own)
    if unknown and isinstance(env, str):         # neither the policy's nor the environment's: say both
        raise unknown_name("parameter", unknown[0], own | {p.name for p in env_spec.params},
                           where=f"policy {spec.name!r} or environment {env!r}", kind="parameters")
    checked = validate_params(f"policy {spec.name!r}", spec.params, params)
    if composition is None and spec.rewards == "unit" and (instance.reward_low < 0.0 or instance.reward_high > 1.0):
        raise InputError(
            f"policy {spec.name!r} needs rewards in [0, 1] (its mechanism is bounded), but environment "
            f"{instance.name!r} has rewards in [{instance.reward_low:g}, {instance.reward_high:g}]; "
            f"use a sigmoid variant (e.g. ldp_ucb_ls/ldp_ucb_bs) or a bounded environment")
    built = spec.build(instance, horizon, **checked)
    contracts.check_built(spec, built)
    if composition is not None:
        built.mechanism = composition.mechanism.component
    if checkpoints is None:
        grid = log_checkpoints(horizon)
    else:
        grid = np.unique(np.asarray(checkpoints, dtype=np.int64))
        if grid.size == 0 or grid[0] < 1 or grid[-1] > horizon:
            raise InputError(f"checkpoints must lie in [1, horizon={horizon}]")
        grid = np.union1d(grid, [horizon]).astype(np.int64)
    notes = list(built.warnings)
    claimed = None if composition is None else composition.mechanism.claimed_eps
    if composition is not None and checked.get("eps", claimed) != claimed:
        # allowed (a misspecified policy can be the experiment), but never silent: a Python warning, and
        # the label and parameters of the result name the mechanism's eps beside the policy's
        text = (f"mechanism {composition.name} claims eps = {claimed:g}, policy {spec.name} runs with eps = "
                f"{checked['eps']:g}: the policy's confidence bounds assume its own eps; give both the same eps "
                f"unless the mismatch is the experiment")
        notes.append(text)
        python_warnings.warn(text, UserWarning, stacklevel=3)
        composition = dataclasses.replace(composition, name=f"{composition.name}(eps={claimed:g})",
                                          params={**composition.params, "mechanism_eps": claimed})
    return Plan(spec, instance, built, checked, horizon, seed, grid, notes, env_spec, composition)


_WARMED: set = set()


def _types_key(plan: Plan):
    return numba.typeof((plan.built.policy, plan.built.mechanism, plan.instance.env))


_LOOP_THREAD: dict = {}     # pid -> the jobs queue of this process's loop thread


def _loop_jobs() -> queue.SimpleQueue:
    """Return the jobs queue of the process's one loop thread, started on first use.

    One thread for the life of the process, not one per call: a new thread per call also got a
    new OpenMP team for the loop's ``prange`` (the team belongs to the thread that launches
    it), and that cost 0.5-3 ms per call, more than the loop itself for short runs (seed 004's
    experiments run one repetition per call: their five experiments took 82 s with a thread
    per call, 38 s with this one, 27 s called without a helper thread).  Keyed by process id,
    so a forked child starts its own.
    """
    pid = os.getpid()
    jobs = _LOOP_THREAD.get(pid)
    if jobs is None:
        jobs = queue.SimpleQueue()

        def serve():
            while True:
                jobs.get()()            # each job catches its own errors (_call_stoppable)

        threading.Thread(target=serve, name="dpbench-loop", daemon=True).start()
        _LOOP_THREAD.clear()
        _LOOP_THREAD[pid] = jobs
    return jobs


def _call_stoppable(args) -> None:
    """``simulate_kernel(*args)``, such that Ctrl-C stops it.

    From the main thread the loop runs in the process's loop thread (with the GIL released, on
    as many compiled threads as the caller's) while this thread waits; Ctrl-C sets the loop's
    stop flag, waits for the loop to stop (within a block of pulls) and raises
    :class:`KeyboardInterrupt`.  Other threads (a Dask worker's) call it directly: signals
    reach the main thread only.
    """
    stop = np.zeros(1, dtype=np.uint8)
    if threading.current_thread() is not threading.main_thread():
        simulate_kernel(*args, stop=stop)
        return
    simulate_kernel.compile_for(*args, stop=stop)     # here: Ctrl-C interrupts a compilation at once
    threads = numba.get_num_threads()
    failed: list = []
    done = threading.Event()        # not Thread.join: Python 3.11 marks a thread whose join() was
                                    # interrupted by Ctrl-C as stopped while it still runs

    def work():
        try:
            numba.set_num_threads(threads)           # the count is per thread
            simulate_kernel(*args, stop=stop)
        except BaseException as err:                 # noqa: BLE001  (re-raised in the caller)
            failed.append(err)
        finally:
            done.set()

    jobs = _loop_jobs()
    try:
        with ctrl_c_held():                 # once started, the loop is always waited for
            jobs.put(work)
        while not done.wait(0.25):
            pass
    except KeyboardInterrupt:
        stop[0] = 1
        with ctrl_c_held():                 # a second Ctrl-C too waits for the loop to stop,
            while not done.wait(0.25):      # within a block of pulls
                pass
        raise
    if failed:
        raise failed[0]


def _run_chunk(plan: Plan, first: int, count: int, trace: bool):
    seeds = rep_seeds(plan.seed, first, count)
    n_check = plan.checkpoints.shape[0]
    regret = np.zeros((count, n_check))
    pulls = np.zeros((count, plan.instance.k), dtype=np.int64)
    out_trace = np.zeros((count, plan.horizon if trace else 0), dtype=np.int64)
    try:
        if plan.instance.redraw is None:
            _call_stoppable((plan.built.policy, plan.built.mechanism, plan.instance.env,
                             plan.instance.gaps, np.int64(plan.horizon), seeds, plan.checkpoints,
                             regret, pulls, out_trace))
        else:                                             # one instance (and policy) per repetition
            for r in range(count):
                own = repetition_plan(plan, seeds[r])
                _call_stoppable((own.built.policy, own.built.mechanism, own.instance.env, own.instance.gaps,
                                 np.int64(plan.horizon), seeds[r:r + 1], plan.checkpoints, regret[r:r + 1],
                                 pulls[r:r + 1], out_trace[r:r + 1]))
    except KeyboardInterrupt:
        final = regret[:, -1]
        finished = (final >= 0) & np.isfinite(final) & (pulls.sum(axis=1) == plan.horizon)
        raise _ChunkStopped(regret, pulls, out_trace if trace else None, finished) from None
    stopped = np.flatnonzero(np.isnan(regret[:, -1]))     # the loop's flag for a non-finite response
    if stopped.size:
        r = int(stopped[0])
        raise contracts.non_finite_error(plan, first + r, int(pulls[r].sum()))
    bad = np.flatnonzero(regret[:, -1] == BAD_SELECT)      # its flag for a select that names no arm
    if bad.size:
        r = int(bad[0])
        raise contracts.bad_select_error(plan, first + r, int(pulls[r].sum()))
    return regret, pulls, (out_trace if trace else None)


def compile_plan(plan: Plan) -> float:
    """Compile (or load from the disk cache) the kernel for this plan; return seconds spent."""
    key = _types_key(plan)
    if key in _WARMED:
        return 0.0
    t0 = time.perf_counter()
    tiny = dataclasses.replace(plan, horizon=plan.instance.k, checkpoints=np.array([plan.instance.k], dtype=np.int64))
    try:
        _run_chunk(tiny, 0, 1, False)
    except numba.core.errors.NumbaError as err:
        raise contracts.compile_error(plan, err) from None
    _WARMED.add(key)
    return time.perf_counter() - t0


@contextlib.contextmanager
def numba_threads(threads):
    """Run the block on ``threads`` numba threads (None: all) and yield the count used."""
    if threads is None:
        yield numba.get_num_threads()
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        numba.set_num_threads(previous)


def check_threads(threads):
    """Return ``threads`` checked to lie in [1, NUMBA_NUM_THREADS] (None stays None)."""
    if threads is None:
        return None
    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    try:
        return check_int("threads", threads, low=1, high=most)
    except InputError as err:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise
        raise InputError(f"{err}: numba has {most} thread{'s' if most > 1 else ''} here (NUMBA_NUM_THREADS: the cores "
                         f"this process may use, or the environment variable)") from None


def run_plan(plan: Plan, reps: int, *, first_rep: int = 0, threads=None, progress=False,
             trace=False, desc=None) -> SimulationResult:
    """Run ``reps`` repetitions of a prepared :class:`Plan` (see :func:`simulate`)."""
    reps = check_int("reps", reps, low=1)
    first_rep = check_int("first_rep", first_rep, low=0)
    threads = check_threads(threads)
    with numba_threads(threads) as n_threads:
        compile_seconds = compile_plan(plan)
        chunk = max(1, 2 * n_threads)
        regrets, pulls, traces = [], [], []
        done = 0
        seconds = 0.0
        bar = _progress_bar(reps, desc or plan.label, progress)
        try:                    # the bar is cleared whatever stops the run: an error starts its own line
            while done < reps:
                count = min(chunk, reps - done)
                t0 = time.perf_counter()
                r, p, tr = _run_chunk(plan, first_rep + done, count, trace)
                seconds += time.perf_counter() - t0
                regrets.append(r)
                pulls.append(p)
                traces.append(tr)
                done += count
                bar.update(count)
        except KeyboardInterrupt as stop:
            bar.close()
            parts = [_result(plan, regrets, pulls, traces, first_rep, seconds, compile_seconds,
                             n_threads, trace)] if done else []
            stopped = 0
            if isinstance(stop, _ChunkStopped):         # the chunk in progress: keep what finished
                r, p, tr = stop.arrays
                for lo, hi in _runs_of(stop.finished):
                    parts.append(_result(plan, [r[lo:hi]], [p[lo:hi]], [None if tr is None else tr[lo:hi]],
                                         first_rep + done + lo, 0.0, 0.0, n_threads, trace))
                stopped = int((~stop.finished).sum())
                if len(parts) > 1 and parts[0].first_rep + parts[0].reps == parts[1].first_rep:
                    parts[:2] = [_merge(plan, parts[0], parts[1], trace)]
            raise Interrupted(None, parts, stopped=stopped) from None
        finally:
            bar.close()
    return _result(plan, regrets, pulls, traces, first_rep, seconds, compile_seconds, n_threads, trace)


def _runs_of(mask: np.ndarray) -> list[tuple[int, int]]:
    """[lo, hi) ranges of consecutive True in ``mask``."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


def _merge(plan, a: SimulationResult, b: SimulationResult, trace: bool) -> SimulationResult:
    """Two results of consecutive repetitions as one."""
    return _result(plan, [a.regret, b.regret], [a.pulls, b.pulls], [a.trace, b.trace], a.first_rep,
                   a.seconds + b.seconds, a.compile_seconds, a.threads, trace)


def _progress_bar(total, desc, enabled):
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="rep", disable=not enabled, leave=False)


def _result(plan, regrets, pulls, traces, first_rep, seconds, compile_seconds, threads, trace):
    return SimulationResult(
        policy=plan.spec.name, label=plan.label, environment=plan.instance.name,
        params=plan.run_params, env_params=plan.instance.params, horizon=plan.horizon, seed=plan.seed,
        first_rep=first_rep, checkpoints=plan.checkpoints.copy(), regret=np.vstack(regrets),
        pulls=np.vstack(pulls), means=plan.instance.means.copy(), seconds=seconds,
        compile_seconds=compile_seconds, threads=threads,
        trace=np.vstack(traces) if trace else None, warnings=list(plan.warnings),
        info={**plan.built.info, **plan.instance.info},
        metadata={"versions": package_versions(), "created": now_iso(),
                  "seeding": "repetition r uses SeedSequence(seed, spawn_key=(r,)) -> uint32",
                  "regret": "pseudo-regret: sum of gaps of the pulled arms"})


def simulate(policy: str, env="bernoulli", horizon=None, reps=None, seed=0, *, env_params=None,
             checkpoints=None, threads=None, progress=False, trace=False, first_rep=0, check=False,
             mechanism=None, allow_long=False, **params) -> SimulationResult:
    """Run ``reps`` repetitions of ``policy`` on ``env`` for ``horizon`` pulls.

    Parameters
    ----------
    policy : str
        A registered policy (``dpbench list policies``).
    env : str or Instance
        An environment name (its parameters, e.g. ``means``, may be passed among
        ``params`` or in ``env_params``) or a built :class:`Instance`.
    horizon : int
        Pulls per repetition, >= 2.
    reps : int
        Repetitions, >= 1.
    seed : int
        Master seed: repetition r is seeded from (seed, r) only, so results do not depend
        on the thread count.
    env_params : dict, optional
        The environment's parameters.
    checkpoints : array_like of int, optional
        Pull counts at which regret is recorded (default: a log grid ending at horizon).
    threads : int, optional
        Worker threads (default: numba's).
    progress : bool
        Show a progress bar.
    trace : bool
        Also record every repetition's arm sequence.
    first_rep : int
        Index of the first repetition (to extend a run).
    check : bool
        First run repetition ``first_rep`` as plain Python with every component call checked
        against its contract (:mod:`dpbench.engine.contracts`; 1e4 to 1e5 pulls per second),
        then rerun it compiled, which must reproduce it; a violation raises
        :class:`~dpbench.extend.ComponentError` naming the function.
    mechanism : str or Mechanism, optional
        Replaces the privatiser of a policy that takes one (``dpbench list policies``;
        :mod:`.composition`); a named mechanism's parameters are given among ``params``
        (``eps`` serves both).
    allow_long : bool
        Run even if the estimated time exceeds a day (the command line's ``--yes``).  Before
        anything compiles, the run time is estimated from each policy's measured pulls per
        second (:mod:`dpbench.engine.guard`): above 10 minutes a
        :class:`~dpbench.engine.guard.LongRunWarning` announces it, above a day the run is
        refused with :class:`InputError` unless ``allow_long=True``.
    **params
        The policy's parameters (``dpbench list`` names them).

    Returns
    -------
    SimulationResult
        Regret at the checkpoints (reps x checkpoints), pulls per arm, timing, metadata.

    Raises
    ------
    InputError
        On bad input, or a run estimated at more than a day without ``allow_long``, before
        compiling anything.

    Examples
    --------
    >>> r = simulate("ldp_ucb_b", "bernoulli", horizon=10_000, reps=4, seed=1, eps=2.0)   # doctest: +SKIP
    >>> r.regret.shape[0]                                                                # doctest: +SKIP
    4
    >>> simulate("ldp_ucb_l", "bernoulli", 10_000, 4, eps=1.0, mechanism="ctb")        # doctest: +SKIP
    """
    if reps is None:
        raise InputError(f"reps must be an integer in [1, {MAX_COUNT}] (got None)")
    check_count("reps", reps)
    check_threads(threads)
    first_rep = check_int("first_rep", first_rep, low=0)
    plan = prepare(policy, env, horizon, seed, env_params=env_params, checkpoints=checkpoints,
                   mechanism=mechanism, **params)
    guard_run(plan, reps, threads, allow_long=allow_long, check=check)
    if check:
        contracts.check_draws(plan, first_rep)
    checked = contracts.run_checked(plan, first_rep) if check else None
    result = run_plan(plan, reps, first_rep=first_rep, threads=threads, progress=progress, trace=trace)
    if checked is not None:
        again = _run_chunk(plan, first_rep, 1, False)
        contracts.check_reproducible(plan, (result.regret[:1], result.pulls[:1]), again[:2], first_rep)
        result.metadata["check"] = checked.passed()
    return result


def guard_run(plan: Plan, reps: int, threads=None, *, allow_long: bool = False, check: bool = False) -> float:
    """Estimate the run time of one plan and apply the guard (:func:`.guard.guard`).

    The estimate is of ``reps`` repetitions on ``threads`` threads (default: numba's), plus the
    plain-Python checked repetition when ``check``; above 10 minutes it is announced, above a
    day refused unless ``allow_long``.  Returns the estimated seconds.
    """
    from .guard import guard
    n_threads = check_threads(threads) or numba.get_num_threads()
    serial = plan.horizon / contracts.CHECKED_PULLS_PER_SECOND if check else 0.0
    return guard([(plan.spec.name, plan.instance.k, plan.horizon, reps)], n_threads,
                 allow_long=allow_long, serial_seconds=serial)
