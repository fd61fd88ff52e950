"""Running sweep cells on Dask distributed: an embedded LocalCluster or an existing cluster.

Both take the same path: :func:`connect` yields a ``distributed.Client`` (to a
LocalCluster started here, or to ``--scheduler ADDRESS``), :func:`run_cells`
submits one task per missing cell and hands each result to a callback as soon
as it completes (the runner writes it to the result store at once).

A worker first imports the plugin modules the client sends with the cell
(:func:`dpbench.plugins.for_workers`: the loaded plugins and the modules that
registered the cell's policy and environment), rebuilds the cell's
configuration from its JSON description and checks that it got the same
config id, runs the same dpbench version and the same code (the cell's code
stamp, :func:`dpbench.engine.stamps.plan_stamp`, covers dpbench's compiled
sources and every user component) as the client, so a remote installation that
differs fails loudly instead of producing different numbers; the store records
the stamp with the cell.  Each worker process runs one kernel at a time
(a lock), with as many compiled threads as the worker has Dask threads, so
``dask worker --nthreads 1 --nworkers N`` and ``--nthreads N`` both use N cores.

From a Python script, call ``run_experiment(..., scheduler="local")`` under
``if __name__ == "__main__":`` (LocalCluster workers are spawned processes that
import the main module); the command line needs no such script (``--plugin``).

A cluster by hand (dpbench installed on every machine)::

    dask scheduler                                   # prints tcp://HOST:8786
    dask worker tcp://HOST:8786 --nthreads 1 --nworkers 2
    dpbench sweep ... --scheduler tcp://HOST:8786
"""
from __future__ import annotations

import collections
import contextlib
import logging
import os
import re
import socket
import threading

from ..validation import InputError, check_int, check_real, closest_names

LOCAL = "local"
IN_PROCESS = "none"
_ADDRESS = re.compile(r"^(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")
SCHEDULER_HELP = ("'local' (a LocalCluster started here), 'none' (no Dask: this process, compiled "
                  "threads) or the address of a running Dask scheduler, e.g. tcp://host:8786")


def check_scheduler(value):
    """None for in-process, ``'local'``, a normalised ``proto://host:port`` address, or an open
    ``distributed.Client`` as given (several runs on one cluster, e.g. every experiment of a report)."""
    if value is None or value == IN_PROCESS:
        return None
    if _is_client(value):
        return value
    if value == LOCAL:
        return LOCAL
    match = _ADDRESS.match(value) if isinstance(value, str) else None
    if match is None or not 0 < int(match.group(3)) < 65536:
        near = closest_names(value, [LOCAL, IN_PROCESS], 1) if isinstance(value, str) and ":" not in value else []
        raise InputError(f"scheduler must be {SCHEDULER_HELP} (got {value!r}"
                         + (f"; did you mean {near[0]!r}?)" if near else ")"))
    return value if match.group(1) else f"tcp://{value}"


def _is_client(value) -> bool:
    """True for a ``distributed.Client`` (without importing distributed when it is not loaded)."""
    import sys
    module = sys.modules.get("distributed")
    return module is not None and isinstance(value, module.Client)


@contextlib.contextmanager
def connect(scheduler, *, workers=None, timeout=10.0):
    """A Client on an embedded LocalCluster (``'local'``, ``workers`` processes of one thread,
    default one per core) or on the scheduler at ``scheduler``; an open Client is yielded as
    given (and left open).

    An unreachable scheduler, or one without workers, raises :class:`InputError`
    after ``timeout`` seconds.
    """
    from distributed import Client, LocalCluster

    if _is_client(scheduler):
        yield scheduler
        return
    timeout = check_real("connect_timeout", timeout, low=0.0, low_open=True)
    if scheduler == LOCAL:
        n = max_threads() if workers is None else check_int("workers", workers, low=1)
        quiet = ["dpbench.sweeps.quiet_worker"]      # Ctrl-C: the client's one line, not a traceback per worker
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                          worker_dashboard_address=None, silence_logs=logging.CRITICAL,
                          preload=quiet) as cluster, \
                Client(cluster) as client:
            yield client
        return
    if workers is not None:
        raise InputError("workers applies to --scheduler local only (an existing cluster has its own)")
    try:
        client = Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError) as err:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler} within {timeout:g} s ({err}); "
                         "check the address, or use --scheduler local") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError):
            raise InputError(f"the Dask scheduler at {scheduler} has no workers (waited {timeout:g} s); "
                             "start some with `dask worker ADDRESS`") from None
        yield client


def run_cells(client, tasks: list[dict], on_done) -> None:
    """Compute every task (see :func:`compute_cell`) on the cluster; call ``on_done(task, out)``
    in this thread as each finishes.  Any failure or Ctrl-C cancels the rest."""
    from distributed import as_completed

    from ..engine.catalog import ALGORITHMS, ENVIRONMENTS, MECHANISMS
    from ..plugins import for_workers

    for task in tasks:
        config = task["config"]
        task["plugins"] = for_workers([ALGORITHMS.get(config["policy"]), ENVIRONMENTS.get(config["environment"]),
                                       MECHANISMS.get(config["params"].get("mechanism"))])
    futures = {}
    for task in tasks:
        key = f"dpbench-cell-{task['config_id']}-{task['first_rep']}-{task['reps']}"
        futures[client.submit(compute_cell, task, key=key, pure=False)] = task
    try:
        for future in as_completed(futures):
            try:
                out = future.result()
            except ModuleNotFoundError as err:
                raise InputError(f"a Dask worker cannot import dpbench ({err}); install the same "
                                 "dpbench on every worker") from None
            on_done(futures[future], out)
    except BaseException:
        client.cancel(list(futures), force=True)
        raise


def max_threads() -> int:
    """This machine's limit on compiled threads per process (the JIT reads the same variable;
    it defaults to the number of CPUs)."""
    return int(os.environ.get("NUMBA_NUM_THREADS") or os.cpu_count() or 1)


# ------------------------------------------------------------------ worker side
_PLANS: collections.OrderedDict = collections.OrderedDict()
_KERNEL_LOCK = threading.Lock()


def _plan(task):
    from .grid import Config
    cid = task["config_id"]
    if cid not in _PLANS:
        config = Config.from_description(task["config"])
        if config.config_id != cid:
            raise InputError(f"worker {socket.gethostname()} rebuilt configuration {cid} as "
                             f"{config.config_id}: the worker's dpbench differs from the client's")
        _PLANS[cid] = config.prepare()
        while len(_PLANS) > 64:
            _PLANS.popitem(last=False)
    return _PLANS[cid]


def compute_cell(task: dict) -> dict:
    """Run one cell on a Dask worker; returns its arrays and timing."""
    from ..engine.simulate import run_plan
    from ..engine.stamps import plan_stamp
    from ..plugins import import_on_worker
    from ..version import __version__

    host = socket.gethostname()
    if task["dpbench"] != __version__:
        raise InputError(f"worker on {host} runs dpbench {__version__}, the client dpbench "
                         f"{task['dpbench']}; install the same dpbench on every worker")
    import_on_worker(task.get("plugins", ()), host)
    worker = ""
    threads = task.get("threads")
    try:
        from distributed import get_worker
        w = get_worker()
        worker = w.address
        threads = threads or w.state.nthreads
    except ValueError:                          # not inside a worker (a direct call)
        pass
    threads = min(max(1, int(threads or 1)), max_threads())
    try:
        plan = _plan(task)
    except InputError as err:
        raise InputError(f"Dask worker on {host}: {err}") from None
    stamp = plan_stamp(plan)
    if task.get("code_stamp", stamp) != stamp:
        raise InputError(f"worker on {host} would run {task['run']!r} with other code than the client "
                         f"(code stamp {stamp}, client {task['code_stamp']}): its dpbench sources or a "
                         "plugin module differ; install the same code on every worker")
    with _KERNEL_LOCK:
        result = run_plan(plan, task["reps"], first_rep=task["first_rep"], threads=threads)
    return {"regret": result.regret, "pulls": result.pulls, "seconds": result.seconds,
            "compile_seconds": result.compile_seconds, "threads": threads, "worker": worker, "host": host,
            "code_stamp": stamp}
