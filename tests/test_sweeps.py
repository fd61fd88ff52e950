"""Sweep grid and result store: cell ids, resuming, refusals, damaged cells, crash-safe and
concurrent writes, the ``dpbench sweep`` command line and bad scheduler addresses."""
import contextlib
import json
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import dpbench
from dpbench.cli import main
from dpbench.engine.simulate import prepare
from dpbench.experiments import experiment_names, grid_experiment, load_experiment, plan_runs, run_experiment
from dpbench.sweeps import Config, ResultStore, StoreError, missing_ranges
from dpbench.sweeps import store as store_module
from dpbench.sweeps.dask_backend import check_scheduler

ROOT = Path(__file__).resolve().parents[1]

SMALL = """
name = "{name}"
title = "sweep test"
horizon = {horizon}
reps = 6
seed = 7
cell_reps = {cell_reps}
[environment]
name = "bernoulli"
means = [0.9, 0.8, 0.7]
[[runs]]
label = "UCB1"
policy = "ucb1"
[[runs]]
label = "LDP-UCB-B"
policy = "ldp_ucb_b"
sweep = {{ eps = [1.0, 2.0] }}
"""


def small_experiment(tmp_path, name="sweep_small", horizon=3000, cell_reps=2) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(SMALL.format(name=name, horizon=horizon, cell_reps=cell_reps))
    return path


def quiet(msg):
    pass


def _db(path):
    return contextlib.closing(sqlite3.connect(path))


# ------------------------------------------------------------------- grid
def test_missing_ranges_split_at_the_cell_grid():
    have = np.zeros(10, dtype=bool)
    assert missing_ranges(have, 4) == [(0, 4), (4, 4), (8, 2)]
    have[[0, 1, 5]] = True
    assert missing_ranges(have, 4) == [(2, 2), (4, 1), (6, 2), (8, 2)]
    assert missing_ranges(np.ones(7, dtype=bool), 3) == []


@pytest.mark.parametrize("name", experiment_names())
def test_a_worker_rebuilds_the_same_configuration(name, tmp_path):
    """What a Dask worker does: description -> prepare -> same config id and components;
    and every run of every shipped experiment can be registered in a store."""
    exp = load_experiment(name)
    with ResultStore(tmp_path / "r.sqlite", name) as store:
        store.register([(f"{run.panel}/{run.label}", run.panel, run.label, Config.from_run(run, plan), plan)
                        for run, plan in plan_runs(exp, 1000, exp.seed)])
    for run, plan in plan_runs(exp, 1000, exp.seed):
        config = Config.from_run(run, plan)
        again = Config.from_description(json.loads(json.dumps(config.describe())))
        rebuilt = again.prepare()
        assert Config.from_plan(rebuilt, again.environment, again.env_params).config_id == config.config_id
        for a, b in zip(rebuilt.built.policy + rebuilt.built.mechanism + rebuilt.instance.env,
                        plan.built.policy + plan.built.mechanism + plan.instance.env):
            assert np.array_equal(np.asarray(a), np.asarray(b))


def _config(policy="ldp_ucb_b", horizon=1000, seed=1, means=(0.9, 0.8), **params):
    plan = prepare(policy, "bernoulli", horizon, seed, means=list(means), **params)
    return Config.from_plan(plan, "bernoulli", {"means": list(means)})


def test_config_id_depends_on_everything_that_changes_results():
    base = _config(eps=1.0)
    variants = [_config(eps=2.0), _config(seed=2, eps=1.0), _config(horizon=2000, eps=1.0),
                _config(means=(0.9, 0.7), eps=1.0), _config("ldp_ucb_l", eps=1.0),
                _config(eps=1.0, checkpoints=[10])]
    ids = {c.config_id for c in variants}
    assert len(ids) == len(variants) and base.config_id not in ids
    assert _config(eps=1).config_id == base.config_id      # eps=1 and eps=1.0 validate the same


def test_command_line_grid_applies_parameters_to_the_policies_that_have_them():
    exp = grid_experiment("g", ["ucb1", "ldp_ucb_b"], instances=[{"means": "0.9,0.8"}, {"means": "0.6,0.5"}],
                          grid={"eps": [0.5, 1.0]}, horizon=1000, reps=4, seed=3)
    labels = [(r.panel, r.label) for r in exp.runs]
    assert labels == [("means=0.9,0.8", "UCB1"), ("means=0.9,0.8", "LDP-UCB-B (eps=0.5)"),
                      ("means=0.9,0.8", "LDP-UCB-B (eps=1)"), ("means=0.6,0.5", "UCB1"),
                      ("means=0.6,0.5", "LDP-UCB-B (eps=0.5)"), ("means=0.6,0.5", "LDP-UCB-B (eps=1)")]
    assert plan_runs(exp, 1000, 3)                         # every run validates
    env_grid = grid_experiment("g", ["ucb1"], environment="gaussian", fixed={"means": "0.5,0.4"},
                               grid={"sigma": [0.5, 1.0]}, horizon=1000, reps=2)
    assert [r.environment for r in env_grid.runs] == [{"name": "gaussian", "means": "0.5,0.4", "sigma": 0.5},
                                                      {"name": "gaussian", "means": "0.5,0.4", "sigma": 1.0}]
    with pytest.raises(dpbench.InputError, match="unknown parameter 'colour' for the listed policies"):
        grid_experiment("g", ["ucb1"], grid={"colour": [1]}, horizon=100, reps=1)
    with pytest.raises(dpbench.InputError, match="sweep name"):
        grid_experiment("a/b", ["ucb1"], horizon=100, reps=1)


def test_sweep_command_line_errors_exit_2(capsys):
    assert main(["sweep", "--policy", "ucb1", "--horizon", "100", "--reps", "1"]) == 2
    assert "needs --name" in capsys.readouterr().err
    assert main(["sweep", "--name", "x", "--policy", "ucb1", "--grid", "eps", "--horizon", "100",
                 "--reps", "1"]) == 2
    assert "--grid needs KEY=VALUE" in capsys.readouterr().err
    assert main(["sweep", "seed000_fig1a", "--policy", "ucb1"]) == 2
    assert "cannot be combined" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["foo", "tcp://host", "tcp://host:0", "http://h:1", "h:99999"])
def test_bad_scheduler_address_is_refused(value):
    with pytest.raises(dpbench.InputError, match="scheduler must be"):
        check_scheduler(value)


def test_scheduler_addresses_are_normalised():
    assert check_scheduler(None) is None and check_scheduler("none") is None
    assert check_scheduler("local") == "local"
    assert check_scheduler("10.0.0.5:8786") == "tcp://10.0.0.5:8786"
    assert check_scheduler("tls://h.example:8786") == "tls://h.example:8786"


def test_unreachable_scheduler_is_a_clear_error_not_a_hang(tmp_path, capsys):
    with socket.socket() as s:                      # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    status = main(["run", str(small_experiment(tmp_path)), "--scheduler", f"127.0.0.1:{port}",
                   "--connect-timeout", "1", "--out", str(tmp_path / "new" / "out"), "--no-progress"])
    waited = time.monotonic() - t0
    err = capsys.readouterr().err
    assert status == 2 and f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} within 1 s" in err
    assert "Traceback" not in err
    assert waited < 60                              # a hang guard, not a speed assertion
    assert not (tmp_path / "new").exists(), "a first command that stored nothing leaves no store or folder behind"


def test_a_failed_command_keeps_a_store_that_existed_before(tmp_path, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = small_experiment(tmp_path)
    assert main(["run", str(path), "--out", str(tmp_path), "--no-progress"]) == 0
    store = tmp_path / "sweep_small" / "results.sqlite"
    before = ResultStore.open(store).cell_count()
    status = main(["run", str(path), "--horizon", "4000", "--scheduler", f"127.0.0.1:{port}",
                   "--connect-timeout", "1", "--out", str(tmp_path), "--no-progress"])
    assert status == 2 and "cannot reach the Dask scheduler" in capsys.readouterr().err
    assert before > 0 and ResultStore.open(store).cell_count() == before


# ------------------------------------------------------------------ store
def _plan(horizon=1000, **params):
    return prepare("ldp_ucb_b", "bernoulli", horizon, 1, means=[0.9, 0.8, 0.7], eps=1.0, **params)


def _open(path, plan=None, name="s", reps=6):
    plan = plan or _plan()
    store = ResultStore(path, name)
    cfg = Config.from_plan(plan, "bernoulli", {"means": [0.9, 0.8, 0.7]})
    store.register([("run", "", "run", cfg, plan)], experiment=name, reps=reps)
    return store, cfg


def _arrays(cfg, first, count):
    regret = np.arange(first, first + count)[:, None] * 1.5 + np.arange(len(cfg.checkpoints))[None, :]
    pulls = np.arange(3, dtype=np.int64)[None, :] + np.arange(first, first + count)[:, None]
    return regret, pulls


def test_store_merges_cells_in_repetition_order(tmp_path):
    store, cfg = _open(tmp_path / "r.sqlite")
    for first, count in [(4, 2), (0, 2), (2, 2), (1, 3)]:          # out of order, one overlapping
        store.write_cell(cfg.config_id, first, *_arrays(cfg, first, count))
    merged = store.load_result(cfg.config_id, 6)
    expected, pulls = _arrays(cfg, 0, 6)
    assert np.array_equal(merged.regret, expected) and np.array_equal(merged.pulls, pulls)
    assert store.coverage(cfg.config_id, 8).tolist() == [True] * 6 + [False] * 2
    assert store.load_result(cfg.config_id).reps == 6
    with pytest.raises(ValueError, match="lacks 2 of 8"):
        store.load_result(cfg.config_id, 8)
    store.close()
    with ResultStore.open(tmp_path / "r.sqlite") as ro, _db(tmp_path / "r.sqlite") as db:
        assert list(ro.results()) == ["run"]
        assert db.execute("SELECT label, reps, reps_asked, invocations FROM summary").fetchall() == \
            [("run", 6, 6, "1")]


def test_store_refuses_other_format_version_name_and_foreign_files(tmp_path):
    path = tmp_path / "r.sqlite"
    _open(path)[0].close()
    with pytest.raises(StoreError, match="holds results of 's', not 'other'"):
        ResultStore(path, "other")
    with _db(path) as db:
        db.execute("UPDATE store_info SET value = '0.0.1' WHERE key = 'dpbench'")
        db.commit()
    with pytest.raises(StoreError, match="holds results of dpbench 0.0.1, this is dpbench"):
        ResultStore(path, "s")
    with _db(path) as db:
        db.execute("UPDATE store_info SET value = '99' WHERE key = 'format'")
        db.commit()
    with pytest.raises(StoreError, match=f"store format 99; this dpbench .* reads format {store_module.FORMAT}"):
        ResultStore(path, "s")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not a readable dpbench result store"):
        ResultStore(garbage, "s")
    foreign = tmp_path / "foreign.sqlite"
    with _db(foreign) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match="not a dpbench result store"):
        ResultStore(foreign, "s")


def test_store_refuses_a_different_configuration_under_the_same_run(tmp_path):
    store, _ = _open(tmp_path / "r.sqlite")
    other = prepare("ldp_ucb_b", "bernoulli", 1000, 1, means=[0.9, 0.8, 0.6], eps=2.0)
    cfg = Config.from_plan(other, "bernoulli", {"means": [0.9, 0.8, 0.6]})
    with pytest.raises(StoreError, match=r"run 'run' .*\(horizon 1000, seed 1\) with a different configuration "
                                         r"\(params: stored \{\"eps\":1.0\}, now \{\"eps\":2.0\}; env_params: "):
        store.register([("run", "", "run", cfg, other)])
    longer = _plan(horizon=2000)                  # the same run at another horizon: a run of its own
    store.register([("run", "", "run", Config.from_plan(longer, "bernoulli", {"means": [0.9, 0.8, 0.7]}),
                     longer)])
    with pytest.raises(ValueError, match="several sizes"):
        store.run_configs()
    assert len(store.run_configs(horizon=2000)) == 1
    with pytest.raises(ValueError, match=r"holds no run at horizon=12345 seed=None; it holds horizon=1000 seed=1, "
                                         r"horizon=2000 seed=1"):
        store.results(horizon=12345)                # it returned {} without a word


def test_changed_experiment_file_is_refused_until_forced(tmp_path, capsys):
    toml = small_experiment(tmp_path)
    args = ["run", str(toml), "--out", str(tmp_path), "--no-progress", "--reps", "2", "--horizon", "1000"]
    assert main(args) == 0
    assert main(args[:-1] + ["1200"]) == 0                # another horizon lives side by side
    toml.write_text(toml.read_text().replace("means = [0.9, 0.8, 0.7]", "means = [0.9, 0.8, 0.6]"))
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "holds run 'UCB1' of 'sweep_small' (horizon 1000, seed 7) with a different configuration " \
           "(env_params: stored {\"means\":[0.9,0.8,0.7]}, now {\"means\":[0.9,0.8,0.6]}) (and 2 more runs)" in err
    assert "--force" in err and "Traceback" not in err
    assert main(args + ["--force"]) == 0


def test_damaged_cell_is_never_read_as_complete(tmp_path):
    toml = small_experiment(tmp_path)
    clean = run_experiment(toml, out=tmp_path / "a", progress=False, log=quiet)
    path = clean.store
    with _db(path) as db:                   # flip one byte of one stored regret array
        (blob, cid, first) = db.execute("SELECT regret, config_id, first_rep FROM cells LIMIT 1").fetchone()
        bad = bytearray(blob)
        bad[-3] ^= 0xFF
        db.execute("UPDATE cells SET regret = ? WHERE config_id = ? AND first_rep = ?", (bytes(bad), cid, first))
        db.commit()
    with ResultStore(path, "sweep_small") as store:
        assert not store.coverage(cid, 6)[first:first + 2].any()
    messages = []
    again = run_experiment(toml, out=tmp_path / "a", progress=False, log=messages.append)
    assert again.cells["computed"] == 1 and any("failed their checksum" in m for m in messages)
    for key in clean.results:
        assert np.array_equal(clean.results[key].regret, again.results[key].regret)


_KILL_IN_WRITE = """
import os, signal, sys
sys.path.insert(0, {root!r})
import numpy as np
from dpbench.sweeps.store import ResultStore
store = ResultStore({path!r}, "s")
def trace(statement):
    if "INSERT OR REPLACE INTO repetitions" in statement:   # the cell row is in, not committed
        os.kill(os.getpid(), signal.SIGKILL)
store._db.set_trace_callback(trace)
store.write_cell({cid!r}, 2, np.ones((2, {c})), np.ones((2, 3), dtype=np.int64))
"""


def test_writer_killed_inside_a_cell_leaves_no_half_cell(tmp_path):
    path = tmp_path / "r.sqlite"
    store, cfg = _open(path)
    store.write_cell(cfg.config_id, 0, *_arrays(cfg, 0, 2))
    store.close()
    script = _KILL_IN_WRITE.format(root=str(ROOT), path=str(path), cid=cfg.config_id, c=len(cfg.checkpoints))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == -9, proc.stderr                 # really killed mid-transaction
    with ResultStore(path, "s") as store, _db(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT first_rep FROM cells").fetchall() == [(0,)]
        assert store.coverage(cfg.config_id, 4).tolist() == [True, True, False, False]


_WRITER = """
import sys
sys.path.insert(0, {root!r})
import numpy as np
from dpbench.engine.simulate import prepare
from dpbench.sweeps.grid import Config
from dpbench.sweeps.store import ResultStore
plan = prepare("ldp_ucb_b", "bernoulli", 1000, 1, means=[0.9, 0.8, 0.7], eps=1.0)
cfg = Config.from_plan(plan, "bernoulli", {{"means": [0.9, 0.8, 0.7]}})
store = ResultStore({path!r}, "s")
store.register([("run", "", "run", cfg, plan)])
c = len(cfg.checkpoints)
for first in range({start}, {start} + 40):
    regret = np.full((3, c), first * 1.0) + np.arange(c)
    store.write_cell(cfg.config_id, first * 3, regret, np.full((3, 3), first, dtype=np.int64))
"""


def test_concurrent_writers_never_corrupt_the_store(tmp_path):
    path = tmp_path / "r.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER.format(root=str(ROOT), path=str(path), start=s)],
                              stderr=subprocess.PIPE, text=True) for s in (0, 20, 30)]   # overlapping ranges
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    with ResultStore(path, "s") as store, _db(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        cid = store.run_configs()["run"]
        merged = store.load_result(cid, 70 * 3)
        assert not store.damaged and store.cell_count() == 70
        assert np.array_equal(merged.regret[:, 0], np.repeat(np.arange(70.0), 3))
        assert np.array_equal(merged.pulls[:, 0], np.repeat(np.arange(70), 3))


# ------------------------------------------------------------ runner + store
def test_in_process_run_stores_cells_with_metadata_and_reuses_them(tmp_path):
    toml = small_experiment(tmp_path)
    first = run_experiment(toml, out=tmp_path, progress=False, log=quiet)
    assert first.cells == {"total": 9, "stored": 0, "computed": 9}
    reference = dpbench.simulate("ldp_ucb_b", "bernoulli", horizon=3000, reps=6, seed=7,
                                 means=[0.9, 0.8, 0.7], eps=2.0)
    assert np.array_equal(first.results["LDP-UCB-B (eps=2.0)"].regret, reference.regret)
    messages = []
    again = run_experiment(toml, out=tmp_path, progress=False, log=messages.append)
    assert again.cells == {"total": 9, "stored": 9, "computed": 0}
    assert sum("reusing saved result" in m for m in messages) == 3
    more = run_experiment(toml, out=tmp_path, reps=9, progress=False, log=quiet)   # 3 more repetitions
    assert more.cells == {"total": 15, "stored": 9, "computed": 6}
    assert np.array_equal(more.results["UCB1"].regret[:6], first.results["UCB1"].regret)
    with _db(first.store) as db:
        row = db.execute("SELECT host, threads, seconds > 0, code_stamp, versions FROM cells LIMIT 1").fetchone()
    assert row[0] == socket.gethostname() and row[1] >= 1 and row[2] == 1
    assert row[3] == store_module.code_stamp() and json.loads(row[4])["dpbench"] == dpbench.__version__


def test_sweep_command_line_grid_in_process(tmp_path, capsys):
    args = ["sweep", "--name", "cli_grid", "--policy", "ucb1,ldp_ucb_b", "--instance", "means=0.9,0.8",
            "--grid", "eps=1,2", "--horizon", "2000", "--reps", "4", "--cell-reps", "2", "--seed", "5",
            "--scheduler", "none", "--out", str(tmp_path), "--no-progress", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cells"] == {"total": 6, "stored": 0, "computed": 6}
    assert [r["label"] for r in out["table"]] == ["UCB1", "LDP-UCB-B (eps=1)", "LDP-UCB-B (eps=2)"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["cells"]["computed"] == 0
