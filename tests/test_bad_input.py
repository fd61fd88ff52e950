"""Bad input fails fast with a message naming the parameter; the CLI exits 2 without traceback."""
import subprocess
import sys
from pathlib import Path

import pytest

import dpbench
from dpbench.cli import main
from dpbench.engine import simulate as sim_module

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def no_compilation(monkeypatch):
    """Every error here must be raised before the kernel is compiled or run."""
    def refuse(*args, **kwargs):
        raise AssertionError("the kernel was called before the input was validated")
    monkeypatch.setattr(sim_module, "simulate_kernel", refuse)


@pytest.mark.parametrize("kwargs,match", [
    ({"policy": "ldp_ucb_b", "eps": 0.0}, r"eps must be .*> 0"),
    ({"policy": "ldp_ucb_b", "eps": -1.0}, r"eps must be .*> 0"),
    ({"policy": "ldp_ucb_b", "eps": float("nan")}, r"eps must be a finite"),
    ({"policy": "ldp_ucb_l", "eps": float("inf")}, r"eps must be a finite"),
    ({"policy": "ldp_ucb_b"}, r"needs parameter 'eps'"),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "means": [0.9, 1.2]}, r"means must lie in \[0, 1\]"),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "horizon": 10}, r"horizon must be an integer in \[20, 9007199254740992\]"),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "reps": 0}, r"reps must be an integer in \[1, 9007199254740992\]"),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "seed": -3}, r"seed must be an integer >= 0"),
    ({"policy": "no_such_policy"}, r"unknown policy 'no_such_policy'; allowed values: .*ldp_ucb_b"),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "colour": 3}, r"unknown parameter 'colour'.*allowed parameters: eps"),
    ({"policy": "heldp_ucb_b", "eps_dist": "discrete", "eps_min": 0.0}, r"eps_min must be .*> 0"),
    ({"policy": "heldp_ucb_b", "eps_dist": "discrete"}, r"eps_min must be given"),
    ({"policy": "heldp_ucb_b", "eps_dist": "discrete", "eps_min": 200.0}, r"eps_min=200.0 rejects every user"),
    ({"policy": "ldp_ucb_l", "eps": 1.0, "env": "gaussian"}, r"needs rewards in \[0, 1\].*ldp_ucb_ls"),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "env": "nowhere"}, r"unknown environment 'nowhere'"),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "threads": 0}, r"threads must be an integer"),
])
def test_simulate_rejects(kwargs, match):
    args = {"env": "bernoulli", "horizon": 1000, "reps": 2, "seed": 0, **kwargs}
    with pytest.raises(dpbench.InputError, match=match):
        dpbench.simulate(args.pop("policy"), args.pop("env"), args.pop("horizon"), args.pop("reps"),
                         args.pop("seed"), **args)


def test_cli_exit_status_2(capsys):
    assert main(["simulate", "--policy", "ldp_ucb_b", "--eps", "-1", "--horizon", "100"]) == 2
    err = capsys.readouterr().err
    assert "dpbench: error: eps must be" in err and "Traceback" not in err
    assert main(["run", "no_such_experiment"]) == 2
    assert "unknown experiment 'no_such_experiment'" in capsys.readouterr().err


def test_cli_usage_error_in_a_real_process():
    proc = subprocess.run([sys.executable, "-m", "dpbench", "simulate", "--policy", "ucb1",
                           "--horizon", "5", "--means", "0.9,0.1,0.3,0.2,0.2,0.1"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert "horizon must be an integer in [6, 9007199254740992] (got 5)" in proc.stderr
    assert "Traceback" not in proc.stderr


#: (arguments, what the one stderr line must say); {tmp} is a fresh directory
_REFUSED = [
    (["run", "seed000_fig1a", "--horizon", "1000", "--reps", "2", "--out", "/dev/null/x"],
     "out: cannot create directory '/dev/null/x/seed000_fig1a' (Not a directory)"),
    (["simulate", "--policy", "ucb1", "--horizon", "9223372036854775808"],
     "horizon must be an integer in [20, 9007199254740992] (got 9223372036854775808)"),
    (["simulate", "--policy", "ucb1", "--horizon", "1e29"], "horizon must be an integer in [20, 9007199254740992]"),
    (["run", "seed000_fig1a", "--horizon", "1e29", "--out", "{tmp}"],
     "horizon must be an integer in [2, 9007199254740992]"),
    (["sweep", "--name", "g", "--policy", "ucb1", "--instance", "means=0.9,0.8", "--horizon",
      "9223372036854775808", "--reps", "2", "--out", "{tmp}"], "horizon must be an integer in [2, 9007199254740992]"),
    (["simulate", "--policy", "ucb1", "--horizon", "2.5"], "argument --horizon: invalid integer value: '2.5'"),
    (["simulate", "--policy", "ucb1", "--horizon", "1000000000000"],
     "more than a day; lower --horizon or --reps, or pass --yes"),
    (["run", "seed000_fig1a", "--horizon", "1e12", "--out", "{tmp}"], "more than a day"),
    (["sweep", "--name", "g", "--policy", "ucb1", "--instance", "means=0.9,0.8", "--horizon", "1e12", "--reps",
      "2", "--out", "{tmp}", "--scheduler", "none"], "more than a day"),
    (["run", "{tmp}/missing.toml"], "experiment file '{tmp}/missing.toml' does not exist"),
]


@pytest.mark.parametrize("args,message", _REFUSED, ids=[
    "out-not-a-directory", "horizon-2^63", "horizon-1e29", "run-horizon-1e29", "sweep-horizon-2^63",
    "horizon-2.5", "simulate-a-day", "run-a-day", "sweep-a-day", "missing-experiment-file"])
def test_cli_refuses_with_status_2_and_one_line(args, message, tmp_path):
    """Bad input, and a run estimated at more than a day, stop before anything is compiled or
    run: exit status 2 and one line on stderr that names the parameter (a real process)."""
    args = [a.format(tmp=tmp_path) for a in args]
    proc = subprocess.run([sys.executable, "-m", "dpbench", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("dpbench: error: ") and message.format(tmp=tmp_path) in lines[0], lines[0]


def test_long_run_is_announced_and_a_day_long_one_runs_with_yes(capsys):
    """Above 10 minutes the estimate is printed; above a day --yes lets the run start (here it
    reaches the kernel, which the fixture replaces by an error)."""
    from dpbench.engine import throughput
    rate = throughput.seconds_per_pull("ucb1", 20)
    announced = []
    throughput.check_duration(3600.0, threads=2, confirmed=False, log=announced.append)
    assert len(announced) == 1 and "estimated run time 1 h on 2 thread(s)" in announced[0]
    throughput.check_duration(300.0, threads=2, confirmed=False, log=announced.append)
    assert len(announced) == 1
    horizon = str(int(2 * 86400 / rate))                # two days on one thread
    with pytest.raises(AssertionError, match="kernel was called"):
        main(["simulate", "--policy", "ucb1", "--horizon", horizon, "--reps", "1", "--threads", "1", "--yes",
              "--no-progress"])
    assert "estimated run time 2 d on 1 thread(s)" in capsys.readouterr().err


def test_run_time_estimate_uses_the_measured_rates():
    """A measured policy's estimate is reps x T x max(1, K/K_ref) / rate / threads; an
    unmeasured one gets the slowest measured rate (it can only over-estimate)."""
    from dpbench.engine import throughput
    rates = throughput._read()["rates"]
    assert set(rates) == set(dpbench.ALGORITHMS), "regenerate with python -m dpbench.engine.throughput"
    row = rates["ldp_ucb_b"]
    est = throughput.estimate_seconds([("ldp_ucb_b", 2 * row["arms"], 10**9, 4)], threads=2)
    assert est == pytest.approx(4 * 10**9 * 2 / row["pulls_per_second"] / 2)
    slowest = min(r["pulls_per_second"] for r in rates.values())
    assert throughput.seconds_per_pull("not_a_policy", 2) == pytest.approx(1 / slowest)
