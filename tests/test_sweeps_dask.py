"""Sweeps on Dask: a real LocalCluster of 2 workers gives the same arrays as one process, and a
sweep process killed with SIGKILL resumes to an identical result, recomputing only missing cells."""
import contextlib
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dpbench.experiments import run_experiment

from .test_sweeps import quiet, small_experiment

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cluster():
    """A running 2-worker cluster, reached through its address like a remote one."""
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      worker_dashboard_address=None, silence_logs=logging.ERROR) as c:
        yield c


def _same(a, b):
    assert list(a.results) == list(b.results)
    for key in a.results:
        assert np.array_equal(a.results[key].regret, b.results[key].regret), key
        assert np.array_equal(a.results[key].pulls, b.results[key].pulls), key


def test_cluster_results_equal_one_process(tmp_path, cluster):
    toml = small_experiment(tmp_path)
    here = run_experiment(toml, out=tmp_path / "here", progress=False, log=quiet)
    there = run_experiment(toml, out=tmp_path / "there", progress=False, log=quiet,
                           scheduler=cluster.scheduler_address)
    assert there.cells == {"total": 9, "stored": 0, "computed": 9}
    _same(here, there)
    with contextlib.closing(sqlite3.connect(there.store)) as db:
        workers = {w for (w,) in db.execute("SELECT worker FROM cells")}
    assert workers and workers <= set(cluster.scheduler_info["workers"])
    again = run_experiment(toml, out=tmp_path / "there", progress=False, log=quiet,
                           scheduler=cluster.scheduler_address)
    assert again.cells["computed"] == 0
    _same(here, again)


def test_reports_run_their_cells_on_one_open_client(tmp_path, cluster):
    """`dpbench report --scheduler`: every experiment of the build goes to one open Client (left
    open for the next), with the arrays of the in-process build."""
    from distributed import Client

    from dpbench.experiments.runner import load_experiment
    from dpbench.reporting.context import ReportContext
    exp = load_experiment(small_experiment(tmp_path))
    here = ReportContext("000", results_dir=tmp_path / "here", log=quiet).experiment(exp)
    with Client(cluster.scheduler_address) as client:
        ctx = ReportContext("000", results_dir=tmp_path / "there", log=quiet, scheduler=client,
                            scheduler_name=cluster.scheduler_address)
        there = ctx.experiment(exp)
        assert client.status == "running" and ctx.cells["computed"] == 9
        with contextlib.closing(sqlite3.connect(there.store)) as db:
            workers = {w for (w,) in db.execute("SELECT worker FROM cells")}
        assert workers and workers <= set(cluster.scheduler_info["workers"])
    _same(here, there)


@pytest.mark.parametrize("argv, message", [
    (["--workers", "2"], "workers applies to --scheduler local only"),
    (["--scheduler", "nowhere"], "scheduler must be"),
    (["--scheduler", "local", "--workers", "0"], "argument --workers: must be an integer >= 1 (got '0')"),
])
def test_report_scheduler_options_are_checked_before_anything_runs(tmp_path, argv, message):
    proc = subprocess.run([sys.executable, "-m", "dpbench", "report", "000", "--results", str(tmp_path),
                           *argv], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "reports").exists()


KILL_TOML = """
name = "killed"
title = "killed sweep"
horizon = 500000
reps = 8
seed = 11
cell_reps = 1
[environment]
name = "bernoulli"
means = [0.9, 0.8, 0.8, 0.7]
[[runs]]
label = "UCB1"
policy = "ucb1"
[[runs]]
label = "LDP-UCB-B"
policy = "ldp_ucb_b"
sweep = { eps = [1.0, 2.0] }
"""


def _stored_cells(path):
    if not path.exists():
        return {}
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)) as db:
            return {(c, f): (created, sha) for c, f, created, sha in
                    db.execute("SELECT config_id, first_rep, created, sha256 FROM cells")}
    except sqlite3.OperationalError:                # the schema is being created right now
        return {}


def _group_gone(pgid, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_sweep_killed_with_sigkill_resumes_to_identical_results(tmp_path):
    toml = tmp_path / "killed.toml"
    toml.write_text(KILL_TOML)
    clean = run_experiment(toml, out=tmp_path / "clean", progress=False, log=quiet)   # (also fills the
    out = tmp_path / "out"                                                             # kernel disk cache)
    store = out / "killed" / "results.sqlite"
    command = [sys.executable, "-m", "dpbench", "sweep", str(toml), "--workers", "2", "--out", str(out),
               "--no-progress"]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)          # its own process group: client + workers
    try:
        deadline = time.monotonic() + 600
        while len(_stored_cells(store)) < 3:
            assert proc.poll() is None, "the sweep ended before it could be killed"
            assert time.monotonic() < deadline, "no cell was stored within 10 minutes"
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert _group_gone(proc.pid)
    before = _stored_cells(store)
    assert 3 <= len(before) < 24, len(before)

    rerun = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert rerun.returncode == 0, rerun.stderr
    counts = re.search(r"cells: (\d+) computed, (\d+) already stored, (\d+) in all", rerun.stdout)
    assert counts and tuple(map(int, counts.groups())) == (24 - len(before), len(before), 24)
    after = _stored_cells(store)
    assert len(after) == 24 and all(after[k] == v for k, v in before.items())   # kept, not recomputed

    resumed = run_experiment(toml, out=out, progress=False, log=quiet)          # all 24 cells stored
    assert resumed.cells["computed"] == 0
    _same(clean, resumed)


#: ("after", seconds): kill after that delay whatever the progress; ("cells", k): once k cells are
#: stored; ("finish", None): let it end
_KILLS_EVERYWHERE = [("after", 0.3), ("cells", 2), ("after", 1.5), ("cells", 8), ("after", 3.0), ("cells", 14),
                     ("cells", 20), ("finish", None)]
_KILLS_IN_PROCESS = [("after", 0.3), ("cells", 3), ("cells", 12), ("finish", None)]


@pytest.mark.parametrize("horizon,schedule,schedulers", [
    pytest.param(4_000_000, _KILLS_EVERYWHERE, ("none", "local"), marks=pytest.mark.slow, id="everywhere"),
    pytest.param(2_000_000, _KILLS_IN_PROCESS, ("none",), id="in-process")])
def test_sweep_killed_again_and_again_still_merges_identically(tmp_path, horizon, schedule, schedulers):
    """SIGKILL at many moments (start-up, compilation or cache loading, computing, writing), in-process
    and on a LocalCluster alternately, until every cell is stored; then compare with a clean run.
    Kills during computation are triggered by progress (a number of stored cells plus a seeded
    jitter), not by a wall-clock delay, so the test does not depend on the machine's speed.
    The default run kills an in-process run three times (start-up and twice while computing,
    cells of ~0.15 s; a LocalCluster kill is the test above); ``-m slow`` runs all eight."""
    toml = tmp_path / "killed.toml"
    toml.write_text(KILL_TOML.replace("horizon = 500000", f"horizon = {horizon}"))
    out = tmp_path / "out"
    store = out / "killed" / "results.sqlite"
    jitter = np.random.default_rng(2024).uniform(0.0, 0.3, size=8)
    killed = []
    for i, (how, arg) in enumerate(schedule):
        where = ["--scheduler", "none"] if schedulers[i % len(schedulers)] == "none" else \
            ["--scheduler", "local", "--workers", "2"]
        command = [sys.executable, "-m", "dpbench", "sweep", str(toml), "--out", str(out), "--no-progress",
                   *where]
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 600
            if how == "after":
                time.sleep(arg)
            elif how == "cells":
                while len(_stored_cells(store)) < arg and proc.poll() is None:
                    assert time.monotonic() < deadline, f"fewer than {arg} cells within 10 minutes"
                    time.sleep(0.01)
                time.sleep(jitter[i])
            else:
                assert proc.wait(timeout=900) == 0
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                killed.append((how, arg))
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        assert _group_gone(proc.pid)
    # start-up and every progress-triggered kill must have hit a running sweep
    assert {("after", 0.3)} | {s for s in schedule if s[0] == "cells"} <= set(killed), killed
    assert len(_stored_cells(store)) == 24
    resumed = run_experiment(toml, out=out, progress=False, log=quiet)
    clean = run_experiment(toml, out=tmp_path / "clean", progress=False, log=quiet)
    _same(clean, resumed)
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_local_workers_leave_ctrl_c_to_the_client():
    """Ctrl-C reaches every process of the terminal's group: the embedded cluster's workers ignore
    it (the client prints one line and closes them) instead of printing a traceback each."""
    import signal

    from dpbench.sweeps import dask_backend, quiet_worker
    previous = signal.getsignal(signal.SIGINT)
    try:
        quiet_worker.dask_setup(None)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    source = Path(dask_backend.__file__).read_text()
    assert 'preload=quiet' in source and '"dpbench.sweeps.quiet_worker"' in source
