"""Fault injection for the result store and the outputs (issue 43).

Each case breaks a run in one way and then checks the same three things: nothing that finished
is lost (every cell stored before the fault is still there, unchanged), nothing is pooled across
definitions (:func:`assert_sound`: every summary row pools exactly the repetitions its
definition asked for, no more, and its mean is the mean of those repetitions' stored arrays), and
the next run either resumes (computing only what is missing, to arrays identical to a clean run)
or refuses in one line.

The faults: Ctrl-C (SIGINT) and SIGTERM at seeded random moments of a real process; Ctrl-C inside
one long repetition (the compiled loop stops within a block of pulls); a full disk (SQLite's own
"database or disk is full", by capping the file's page count) and a full disk while writing the
figure and tables; two processes writing one store at once, with the same definition and with
different ones; a name reused with another definition (grid, policies, repetitions); a Dask
worker killed while it computes a cell (slow: a LocalCluster of two processes).

Default run: every case but the killed worker, about a minute on 2 cores.  The slow case::

    python -m pytest -m slow tests/test_store_faults.py
"""
import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from dpbench.cli import main
from dpbench.experiments import run_experiment
from dpbench.sweeps import ResultStore
from dpbench.sweeps import store as store_module
from tests.test_sweeps import small_experiment
from tests.test_sweeps_dask import _stored_cells

ROOT = Path(__file__).resolve().parents[1]


#: run the command line in a child with Ctrl-C raising KeyboardInterrupt (a child of a pytest-xdist
#: worker may inherit SIGINT ignored), printing its exit status as the process's own
_CHILD = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
          "from dpbench.cli import main; sys.exit(main(sys.argv[1:]))")


def quiet(msg):
    pass


def experiment(tmp_path, horizon=400_000) -> Path:
    """Three runs (UCB1, LDP-UCB-B at two eps) of 6 repetitions in cells of one: 18 cells."""
    return small_experiment(tmp_path, "faults", horizon, cell_reps=1)


def cells(path) -> dict:
    """(config, first rep) -> (created, sha256) of every stored cell (read only)."""
    return _stored_cells(Path(path))


def assert_kept(before: dict, path) -> None:
    """Every cell of ``before`` is still stored, unchanged."""
    after = cells(path)
    lost = [k for k, v in before.items() if after.get(k) != v]
    assert not lost, f"{len(lost)} finished cells lost or rewritten: {lost[:3]}"


def assert_sound(path) -> None:
    """The store reads back whole, and its summary never pools beyond a definition: each row's
    ``reps`` is the number of repetitions 0 .. reps_asked - 1 stored, and its mean is their mean,
    recomputed here from the stored arrays."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = db.execute(
            "SELECT d.experiment, d.horizon, d.seed, d.reps, m.run_key, r.config_id FROM definitions d "
            "JOIN definition_runs m ON m.experiment = d.experiment AND m.horizon = d.horizon AND m.seed = d.seed "
            "AND m.reps = d.reps JOIN runs r ON r.run_key = m.run_key AND r.horizon = d.horizon "
            "AND r.seed = d.seed ORDER BY d.rowid, m.position").fetchall()
        summary = db.execute("SELECT experiment, horizon, seed, reps_asked, reps, mean_final_regret "
                             "FROM summary").fetchall()
    assert len(summary) == len(rows)                    # one row per run of each definition, no more
    with ResultStore.open(path) as store:
        for (exp, horizon, seed, asked, _, cid), row in zip(rows, summary):
            finals = {}
            for cell in store.cells(cid):
                for i in range(cell["reps"]):
                    if cell["first_rep"] + i < asked:
                        finals[cell["first_rep"] + i] = cell["regret"][i, -1]
            assert row[:4] == (exp, horizon, seed, asked)
            assert row[4] == len(finals) <= asked, (row, len(finals))
            if finals:
                assert row[5] == pytest.approx(np.mean(list(finals.values())), rel=1e-12)
        assert not store.damaged


def same_results(a, b) -> None:
    assert list(a.results) == list(b.results)
    for key in a.results:
        assert np.array_equal(a.results[key].regret, b.results[key].regret), key
        assert np.array_equal(a.results[key].pulls, b.results[key].pulls), key


def spawn(args, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", _CHILD, *map(str, args)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **kw)


# ------------------------------------------------------------------ signals
def test_signals_at_random_moments_keep_every_finished_cell_and_resume(tmp_path):
    """Ctrl-C and SIGTERM at seeded random moments (start-up, loading, computing, writing):
    each leaves the store sound and every finished cell in place; Ctrl-C says in its last line
    what is kept; the final rerun computes only the rest, to the arrays of a clean run."""
    toml = experiment(tmp_path)
    clean = run_experiment(toml, out=tmp_path / "clean", progress=False, log=quiet)    # (warms the cache)
    out = tmp_path / "out"
    store = out / "faults" / "results.sqlite"
    rng = np.random.default_rng(43)
    schedule = [(signal.SIGINT, "after", 0.2), (signal.SIGINT, "cells", 2), (signal.SIGTERM, "cells", 5),
                (signal.SIGINT, "cells", 9), (signal.SIGINT, "cells", 12)]
    for sig, how, arg in schedule:
        proc = spawn(["sweep", toml, "--out", out, "--no-progress", "--scheduler", "none"])
        try:
            if how == "after":
                time.sleep(arg)
            else:
                deadline = time.monotonic() + 600
                while len(cells(store)) < arg and proc.poll() is None:
                    assert time.monotonic() < deadline
                    time.sleep(0.01)
                time.sleep(rng.uniform(0.0, 0.3))
            before = cells(store)
            if proc.poll() is None:
                os.killpg(proc.pid, sig)
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        if proc.returncode == 0:                         # it finished before the signal
            break
        if ("Traceback" in stderr or proc.returncode == -signal.SIGINT     # Ctrl-C while Python started up
                or stderr.startswith("Fatal Python error: init_sys_streams")):   # (even before its io)
            assert cells(store) == before, stderr                          # (before its handler): nothing ran
            # Python's own report: a KeyboardInterrupt, last, or first when it landed in a C extension's
            # import that reports its failure after it ("numba._devicearray failed to import")
            assert (proc.returncode == -signal.SIGINT or stderr.strip().endswith("KeyboardInterrupt")
                    or stderr.startswith(("KeyboardInterrupt", "Fatal Python error: init_sys_streams"))), stderr
            continue
        if sig == signal.SIGINT:
            assert proc.returncode == 130 and stderr.strip().endswith("dpbench: interrupted"), (stdout, stderr)
            said = [line for line in stdout.splitlines() if line.startswith("interrupted: ")]
            if said:                                     # stopped while computing: what is kept
                assert re.match(r"interrupted: \d+ of the \d+ cells this command had to compute finished and are "
                                r"stored in .*; of the cell in "
                                r"progress \('.*', repetitions \d+-\d+\), ", said[0]), said
                assert said[0].endswith("rerun the same command to resume (it computes only what is missing)")
        else:
            assert proc.returncode == -signal.SIGTERM
        assert_kept(before, store)
        if store.exists():
            assert_sound(store)
    stored = len(cells(store))
    resumed = run_experiment(toml, out=out, progress=False, log=quiet)
    assert resumed.cells == {"total": 18, "stored": stored, "computed": 18 - stored}
    same_results(clean, resumed)
    assert_sound(store)


_LONG = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from dpbench.cli import main
from dpbench.engine.simulate import compile_plan, prepare
compile_plan(prepare("ucb1", "bernoulli", 2_000_000_000, 1, means=[0.9, 0.8]))
print("compiled", flush=True)
sys.exit(main(["sweep", "--name", "long", "--policy", "ucb1", "--instance", "means=0.9,0.8", "--horizon", "2e9",
               "--reps", "2", "--cell-reps", "1", "--scheduler", "none", "--threads", "1", "--out", sys.argv[1],
               "--no-progress", "--yes"]))
"""


def test_ctrl_c_inside_one_long_repetition_stops_it_and_says_what_is_kept(tmp_path):
    """T = 2e9, one repetition per cell: Ctrl-C a second into the first repetition stops the
    compiled loop (it reads a stop flag every 16,384 pulls) instead of running to the end of it
    (tens of seconds); the message says nothing of that cell is kept and that the unfinished
    repetition was discarded; the store holds no cell and stays sound."""
    proc = subprocess.Popen([sys.executable, "-c", _LONG, str(tmp_path)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        lines = []
        for line in proc.stdout:                        # compiled, then the runner names the first cell
            lines.append(line)
            if line.startswith("[1/1] UCB1"):
                break
        time.sleep(1.5)
        assert proc.poll() is None, "".join(lines) + proc.stderr.read()
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
        stopped = time.monotonic() - t0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    assert stopped < 15, f"{stopped:.1f} s from Ctrl-C to exit"   # a hang guard (about 0.5 s measured)
    said = [line for line in stdout.splitlines() if line.startswith("interrupted:")]
    assert said == [f"interrupted: 0 of the 2 cells this command had to compute finished and are stored in "
                    f"{tmp_path}/long/results.sqlite; of the "
                    "cell in progress ('UCB1', repetitions 0-0), no repetition had finished: nothing of it is kept, "
                    "1 stopped unfinished and discarded; rerun the same command to resume (it computes only what "
                    "is missing)"], stdout
    store = tmp_path / "long" / "results.sqlite"
    assert cells(store) == {}
    assert_sound(store)


def test_a_stopped_chunk_keeps_its_finished_repetitions(monkeypatch):
    """Ctrl-C while a chunk runs in parallel: the repetitions of the chunk that had finished
    are kept (as runs of consecutive repetitions), the stopped ones are not."""
    import dpbench
    from dpbench.engine import simulate as sim
    from dpbench.engine.kernel import STOPPED

    reference = dpbench.simulate("ucb1", "bernoulli", horizon=5000, reps=8, seed=2, means=[0.9, 0.8], threads=2)
    real = sim._call_stoppable

    def stop_some(args):                # the kernel ran; repetitions 1 and 4 of the chunk did not finish
        real(args)
        regret, pulls = args[7], args[8]
        if args[5].shape[0] == 4 and args[5][0] == sim.rep_seeds(2, 4, 1)[0]:
            for r in (1, 3):
                regret[r, -1] = STOPPED
                pulls[r] = 0
            raise KeyboardInterrupt
    monkeypatch.setattr(sim, "_call_stoppable", stop_some)
    with pytest.raises(dpbench.Interrupted) as stop:
        dpbench.simulate("ucb1", "bernoulli", horizon=5000, reps=8, seed=2, means=[0.9, 0.8], threads=2)
    parts = stop.value.parts
    assert [(p.first_rep, p.reps) for p in parts] == [(0, 5), (6, 1)] and stop.value.stopped == 2
    assert stop.value.finished == 6 and stop.value.partial is parts[0]
    for p in parts:
        assert np.array_equal(p.regret, reference.regret[p.first_rep:p.first_rep + p.reps])


# ------------------------------------------------------------------ a full disk
def test_a_full_disk_refuses_in_one_line_and_the_next_run_resumes(tmp_path, monkeypatch, capsys):
    """SQLite's own "database or disk is full" (the file's page count capped after three cells):
    exit 2, one line saying nothing of that write is kept and everything before is; the next run
    computes only the missing cells, to the arrays of a clean run."""
    toml = experiment(tmp_path, horizon=20_000)
    clean = run_experiment(toml, out=tmp_path / "clean", progress=False, log=quiet)
    written = []
    real = store_module.ResultStore.write_cell

    def filling(self, *args, **kw):
        if len(written) == 3:
            pages = self._db.execute("PRAGMA page_count").fetchone()[0]
            self._db.execute(f"PRAGMA max_page_count = {pages}")      # the disk is full from here on
        real(self, *args, **kw)
        written.append(args[:2])

    monkeypatch.setattr(store_module.ResultStore, "write_cell", filling)
    out = tmp_path / "out"
    args = ["run", str(toml), "--out", str(out), "--no-progress"]
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write to the result store" in err[0] and "database or disk is full" in err[0]
    assert "nothing of this write is kept and everything stored before is" in err[0]
    store = out / "faults" / "results.sqlite"
    before = cells(store)
    assert len(before) == 3
    assert_sound(store)
    monkeypatch.setattr(store_module.ResultStore, "write_cell", real)
    resumed = run_experiment(toml, out=out, progress=False, log=quiet)
    assert resumed.cells == {"total": 18, "stored": 3, "computed": 15}
    assert_kept(before, store)
    same_results(clean, resumed)
    assert_sound(store)


def test_a_full_disk_while_writing_the_outputs_keeps_the_previous_set(tmp_path, monkeypatch, capsys):
    """The figure and tables are written as one set: a failing write (ENOSPC) leaves the
    previous table.md and figure as they were, says so in one line, and the rerun writes them
    without computing anything."""
    import errno
    toml = experiment(tmp_path, horizon=5_000)
    out = tmp_path / "out"
    args = ["run", str(toml), "--out", str(out), "--no-progress"]
    assert main(args) == 0
    folder = out / "faults"
    previous = {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix in (".md", ".csv", ".png", ".json")}
    real = Path.write_text

    def full(self, *a, **kw):
        if self.name == "table.csv" or self.name == "experiment.json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, *a, **kw)

    monkeypatch.setattr(Path, "write_text", full)
    capsys.readouterr()
    assert main(args + ["--reps", "3"]) == 2              # a new definition: other outputs to write
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write the figure and tables in" in err[0] and "No space left" in err[0]
    assert "rerun the same command to write them (nothing is recomputed)" in err[0]
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name in previous} == previous
    assert not [p for p in folder.iterdir() if p.name.startswith(".writing-")]
    monkeypatch.setattr(Path, "write_text", real)
    capsys.readouterr()
    assert main(args + ["--reps", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cells"]["computed"] == 0
    assert "3 repetitions per run" in (folder / "table.md").read_text()
    assert_sound(folder / "results.sqlite")


# ------------------------------------------------------------------ concurrent writers
def test_two_processes_writing_one_store(tmp_path):
    """Two copies of one sweep at once: both finish, every cell is stored once, the summary has
    one row per run.  Then two different grids under one name at once: one defines the name,
    the other is refused in one line, and the store holds one definition."""
    toml = experiment(tmp_path, horizon=30_000)
    clean = run_experiment(toml, out=tmp_path / "clean", progress=False, log=quiet)
    out = tmp_path / "out"
    command = ["sweep", toml, "--out", out, "--no-progress", "--scheduler", "none", "--threads", "1"]
    procs = [spawn(command) for _ in range(2)]
    for p in procs:
        _, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, stderr
    store = out / "faults" / "results.sqlite"
    assert len(cells(store)) == 18
    assert_sound(store)
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT COUNT(*) FROM summary").fetchone() == (3,)
        assert db.execute("SELECT COUNT(*) FROM invocations").fetchone() == (2,)
    same_results(clean, run_experiment(toml, out=out, progress=False, log=quiet))

    grid = ["sweep", "--name", "g", "--policy", "ucb1,ldp_ucb_b", "--instance", "means=0.9,0.8", "--horizon",
            "20000", "--reps", "4", "--out", out, "--no-progress", "--scheduler", "none", "--threads", "1"]
    procs = [spawn(grid + ["--grid", eps]) for eps in ("eps=1,2", "eps=3,4")]
    outcomes = [(p.communicate(timeout=600), p.returncode) for p in procs]
    assert sorted(code for _, code in outcomes) == [0, 2], outcomes
    (_, refusal), _ = next(o for o in outcomes if o[1] == 2)
    assert len(refusal.strip().splitlines()) == 1 and "with other runs: 2 new" in refusal
    with contextlib.closing(sqlite3.connect(out / "g" / "results.sqlite")) as db:
        assert db.execute("SELECT COUNT(*) FROM definitions").fetchone() == (1,)
    assert_sound(out / "g" / "results.sqlite")


# ------------------------------------------------------------------ a name reused
def _summary(path):
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT label, reps_asked, reps, mean_final_regret, invocations FROM summary").fetchall()


def test_a_name_reused_with_another_definition(tmp_path, capsys):
    """The issue's sweep: a second grid under the same name was drawn alone over the first and
    pooled beside it.  Now: another grid or fewer policies is refused in one line naming the
    difference and the options, changing nothing; --extend draws the union; other repetitions
    are a definition of their own, whose summary rows pool exactly those repetitions (the mean
    the table printed); --force replaces."""
    out = tmp_path / "out"
    base = ["sweep", "--name", "eps_grid", "--instance", "means=0.9,0.8", "--horizon", "3000", "--seed", "1",
            "--scheduler", "none", "--out", str(out), "--no-progress", "--json"]
    first = base + ["--policy", "ucb1,ldp_ucb_b", "--grid", "eps=0.5,1", "--reps", "12"]
    assert main(first) == 0
    capsys.readouterr()
    folder = out / "eps_grid"
    store = folder / "results.sqlite"
    drawn = {p: (folder / p).read_bytes() for p in ("table.md", "table.csv", "regret.png")}
    stored = (cells(store), _summary(store))

    for args, difference in (
            (base + ["--policy", "ucb1,ldp_ucb_b", "--grid", "eps=2,4", "--reps", "12"],
             "with other runs: 2 new (LDP-UCB-B (eps=2), LDP-UCB-B (eps=4)) and 2 stored ones are not given "
             "(LDP-UCB-B (eps=0.5), LDP-UCB-B (eps=1))"),
            (base + ["--policy", "ucb1", "--reps", "12"],
             "with other runs: 2 stored ones are not given (LDP-UCB-B (eps=0.5), LDP-UCB-B (eps=1))"),
            (base + ["--policy", "ucb1,ldp_ucb_b", "--grid", "eps=0.5", "--reps", "12"],
             "with other runs: 1 stored one is not given (LDP-UCB-B (eps=1))")):
        assert main(args) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and difference in err[0], err
        assert ("use a new name (sweep --name, the experiment file's name, or another --out), --force to replace "
                "the stored results, or --extend") in err[0]
        assert {p: (folder / p).read_bytes() for p in drawn} == drawn        # outputs untouched
        assert (cells(store), _summary(store)) == stored                     # store untouched

    assert main(base + ["--policy", "ucb1,ldp_ucb_b", "--grid", "eps=2,4", "--reps", "12", "--extend"]) == 0
    table = json.loads(capsys.readouterr().out)["table"]
    assert [r["label"] for r in table] == ["UCB1", "LDP-UCB-B (eps=0.5)", "LDP-UCB-B (eps=1)", "LDP-UCB-B (eps=2)",
                                           "LDP-UCB-B (eps=4)"]
    assert "LDP-UCB-B (eps=0.5)" in (folder / "table.md").read_text()

    assert main(base + ["--policy", "ucb1,ldp_ucb_b", "--grid", "eps=0.5,1,2,4", "--reps", "5"]) == 0
    fewer = {r["label"]: r["horizons"]["3000"]["mean"] for r in json.loads(capsys.readouterr().out)["table"]}
    rows = _summary(store)
    at_5 = {label: mean for label, asked, reps, mean, _ in rows if asked == 5}
    assert all(reps == asked for _, asked, reps, _, _ in rows)
    assert at_5 == pytest.approx(fewer, rel=1e-12)        # the summary says what the table said
    assert {asked for _, asked, _, _, _ in rows} == {12, 5}
    text = (folder / "table.md").read_text()
    assert "5 repetitions per run" in text and "also holds this experiment at T = 3,000, seed 1, 12 repetitions" in text
    assert "⚠ intervals from fewer than 10 repetitions (5)" in text
    assert_sound(store)
    with ResultStore.open(store) as ro:                    # Python reads the latest definition too
        assert {r.reps for r in ro.results().values()} == {5}
        assert ro.results()["UCB1"].mean[-1] == pytest.approx(fewer["UCB1"], rel=1e-12)
        assert {r.reps for r in ro.results(reps=12).values()} == {12}

    assert main(base + ["--policy", "ucb1", "--reps", "4", "--force"]) == 0
    capsys.readouterr()
    assert [r[:3] for r in _summary(store)] == [("UCB1", 4, 4)]
    assert_sound(store)


def test_force_replaces_one_horizon_and_seed_and_keeps_the_others(tmp_path, capsys):
    """Found by a new user: `--force` at a new horizon deleted the whole store, the stored runs at other
    horizons with it (hours of T = 1e7 gone, "4 computed, 0 already stored" printed), and `--force
    --extend` was accepted.  --force now replaces the stored results at its horizon and seed only."""
    out = tmp_path / "out"
    base = ["sweep", "--name", "g", "--instance", "means=0.9,0.8", "--set", "eps=1", "--seed", "1",
            "--scheduler", "none", "--out", str(out), "--no-progress", "--json"]
    both, short = ["--policy", "ucb1,ldp_ucb_b"], ["--horizon", "2000", "--reps", "2"]
    store = out / "g" / "results.sqlite"
    assert main(base + both + ["--horizon", "3000", "--reps", "3"]) == 0
    assert main(base + both + short) == 0
    capsys.readouterr()
    kept = [r for r in _summary(store) if r[1] == 3]                 # (label, reps_asked, reps, mean, ...)
    assert main(base + ["--policy", "ldp_ucb_b", *short, "--force"]) == 0
    assert json.loads(capsys.readouterr().out)["cells"]["computed"] == 1
    rows = _summary(store)
    assert [r for r in rows if r[1] == 3] == kept and [r[:3] for r in rows if r[1] != 3] == [("LDP-UCB-B", 2, 2)]
    assert_sound(store)
    assert main(base + both + short + ["--force", "--extend"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "--force and --extend (in Python reuse=False and extend=True) exclude each other" in err[0], err
    store.write_text("not a store")                       # a file no dpbench can add to is still replaced
    assert main(base + both + short + ["--force"]) == 0
    assert "removed (--force), as this dpbench cannot add to it" in capsys.readouterr().err


def test_the_summary_of_a_legacy_store_is_upgraded_without_losing_a_cell(tmp_path):
    """A store of the previous format (2): opened for writing it gains the definition tables in
    place; its cells stay and are reused."""
    toml = experiment(tmp_path, horizon=5_000)
    first = run_experiment(toml, out=tmp_path, progress=False, log=quiet)
    store = first.store
    with contextlib.closing(sqlite3.connect(store)) as db:       # back to format 2
        for table in ("invocations", "definitions", "definition_runs"):
            db.execute(f"DROP TABLE {table}")
        db.execute("DROP VIEW summary")
        for table, column in (("runs", "spec"), ("cells", "invocation"), ("repetitions", "invocation")):
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        db.execute("UPDATE store_info SET value = '2' WHERE key = 'format'")
        db.commit()
    before = cells(store)
    with ResultStore.open(store) as ro:                             # read-only: read as it is
        assert len(ro.results()) == 3
    again = run_experiment(toml, out=tmp_path, progress=False, log=quiet)
    assert again.cells["computed"] == 0
    assert_kept(before, store)
    assert_sound(store)
    same_results(first, again)


# ------------------------------------------------------------------ a killed Dask worker
@pytest.mark.slow
def test_a_killed_dask_worker_loses_nothing(tmp_path):
    """SIGKILL to one worker of a LocalCluster while it computes a cell: Dask reruns that cell
    elsewhere (or, past its retry limit, the run stops and the rerun resumes); either way the
    store keeps every cell written before, and the results equal a clean run's."""
    from distributed import Client, LocalCluster
    toml = experiment(tmp_path, horizon=2_000_000)
    clean = run_experiment(toml, out=tmp_path / "clean", progress=False, log=quiet)
    out = tmp_path / "out"
    store = out / "faults" / "results.sqlite"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        pids = client.run(os.getpid)
        killed = {}

        def kill_one():
            deadline = time.monotonic() + 600
            while len(cells(store)) < 3 and time.monotonic() < deadline:
                time.sleep(0.02)
            killed["before"] = cells(store)
            os.kill(next(iter(pids.values())), signal.SIGKILL)

        killer = threading.Thread(target=kill_one)
        killer.start()
        try:
            run = run_experiment(toml, out=out, progress=False, log=quiet, scheduler=client)
        except Exception as err:                                       # noqa: BLE001  KilledWorker
            run = None
            assert "KilledWorker" in type(err).__name__, err
        killer.join()
    assert_kept(killed["before"], store)
    assert_sound(store)
    resumed = run_experiment(toml, out=out, progress=False, log=quiet)
    assert run is None or resumed.cells["computed"] == 0
    same_results(clean, resumed)
