"""Bad input fails fast with a message naming the parameter; the CLI exits 2 without traceback."""
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import dpbench
from dpbench.cli import main
from dpbench.engine import simulate as sim_module

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def no_compilation(monkeypatch):
    """Every error here must be raised before the kernel is compiled or run."""
    class Refuse:
        def __call__(self, *args, **kwargs):
            raise AssertionError("the kernel was called before the input was validated")
        compile_for = __call__
    monkeypatch.setattr(sim_module, "simulate_kernel", Refuse())


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
    ({"policy": "ldp_ucb_bb", "eps": 1.0}, r"unknown policy 'ldp_ucb_bb'; did you mean ldp_ucb_b"),
    ({"policy": "ldp_ucb_b", "epss": 1.0},
     r"unknown parameter 'epss' for policy 'ldp_ucb_b' or environment 'bernoulli'; did you mean eps\? "),
    ({"policy": "ldp_ucb_b", "epsilon": 1.0}, r"unknown parameter 'epsilon' .*; did you mean eps\? "),
    ({"policy": "ucb1", "mean": [0.5, 0.4]},       # an environment's parameter, misspelt: not "allowed: none"
     r"unknown parameter 'mean' for policy 'ucb1' or environment 'bernoulli'; did you mean means\? "),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "env": "bernouli"},
     r"unknown environment 'bernouli'; did you mean bernoulli\? "),
    ({"policy": "ldp_ucb_l", "eps": 1.0, "mechanism": "ctll"}, r"unknown mechanism 'ctll'; did you mean ctl"),
    ({"policy": "ucb1", "horizon": 10**15}, r"more than a day; .*allow_long=True"),
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
    err = capsys.readouterr().err                       # the option's own range, when it is parsed
    assert "dpbench: error: argument --eps: must be a real number > 0 (got '-1')" in err
    assert "Traceback" not in err
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
     "argument --horizon: must be an integer in [2, 9007199254740992] (got '9223372036854775808')"),
    (["simulate", "--policy", "ucb1", "--horizon", "1e29"],
     "argument --horizon: must be an integer in [2, 9007199254740992] (got '1e29')"),
    (["run", "seed000_fig1a", "--horizon", "1e29", "--out", "{tmp}"],
     "argument --horizon: must be an integer in [2, 9007199254740992]"),
    (["sweep", "--name", "g", "--policy", "ucb1", "--instance", "means=0.9,0.8", "--horizon",
      "9223372036854775808", "--reps", "2", "--out", "{tmp}"], "must be an integer in [2, 9007199254740992]"),
    (["simulate", "--policy", "ucb1", "--horizon", "2.5"],
     "argument --horizon: must be an integer in [2, 9007199254740992] (got '2.5')"),
    (["simulate", "--policy", "ucb1", "--horizon", "1000000000000000"],
     "more than a day; lower the horizon or the repetitions, or opt in to run it anyway (--yes; "),
    (["run", "seed000_fig1a", "--horizon", "1e15", "--out", "{tmp}"], "more than a day"),
    (["sweep", "--name", "g", "--policy", "ucb1", "--instance", "means=0.9,0.8", "--horizon", "1e15", "--reps",
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
    """Above 10 minutes the estimate is printed (one `dpbench:` line); above a day --yes lets
    the run start (here it reaches the kernel, which the fixture replaces by an error)."""
    from dpbench.engine import guard
    rate = guard.seconds_per_pull("ucb1", 20)
    with pytest.warns(guard.LongRunWarning, match=r"estimated run time 1 h on 2 thread\(s\)"):
        guard.check_duration(3600.0, threads=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        guard.check_duration(300.0, threads=2)                 # below 10 minutes: silent
    horizon = str(int(2 * 86400 / rate))                # two days on one thread
    with pytest.raises(AssertionError, match="kernel was called"):
        main(["simulate", "--policy", "ucb1", "--horizon", horizon, "--reps", "1", "--threads", "1", "--yes",
              "--no-progress"])
    assert capsys.readouterr().err.splitlines() == ["dpbench: estimated run time 2 d on 1 thread(s), from the "
                                                    "measured pulls per second of each policy (throughput.json)"]


def _two_days(policy="ucb1"):
    """A horizon estimated at two days on one thread (the shipped rate of ``policy``)."""
    from dpbench.engine import guard
    return int(2 * 86400 / guard.seconds_per_pull(policy, 20))


def test_python_refuses_a_day_long_run_unless_allow_long():
    """dpbench.simulate guards as the CLI does, before anything compiles: more than a day is an
    InputError of one line naming the opt-in; allow_long=True announces the estimate and runs."""
    with pytest.raises(dpbench.InputError) as err:
        dpbench.simulate("ucb1", "bernoulli", horizon=10**15, reps=2)
    message = str(err.value)
    assert "\n" not in message and message.startswith("estimated run time ") and "allow_long=True" in message
    with pytest.warns(dpbench.LongRunWarning, match="estimated run time 2 d on 1 thread"), \
            pytest.raises(AssertionError, match="kernel was called"):
        dpbench.simulate("ucb1", "bernoulli", horizon=_two_days(), reps=1, threads=1, allow_long=True)


def test_python_announces_a_long_run_with_a_warning_at_the_callers_line():
    with pytest.warns(dpbench.LongRunWarning, match="estimated run time 2 h on 1 thread") as record, \
            pytest.raises(AssertionError, match="kernel was called"):
        dpbench.simulate("ucb1", "bernoulli", horizon=_two_days() // 24, reps=1, threads=1)
    assert record[0].filename == __file__


def test_check_mode_counts_in_the_estimate(monkeypatch):
    """The checked plain-Python repetition (at least 1e4 pulls/s) is part of the estimate:
    T = 1e7 with check=True is announced (1e3 s) though its compiled run takes a second."""
    from dpbench.engine import contracts

    def stop(*args):
        raise RuntimeError("check started")
    monkeypatch.setattr(contracts, "run_checked", stop)
    with pytest.warns(dpbench.LongRunWarning, match=r"estimated run time 16\.\d min"), \
            pytest.raises(RuntimeError, match="check started"):
        dpbench.simulate("ucb1", "bernoulli", horizon=10**7, reps=1, threads=1, check=True)


@pytest.mark.parametrize("scheduler", [None, "local"])
def test_python_runs_and_sweeps_refuse_a_day_long_grid(tmp_path, scheduler):
    """run_experiment (experiments and sweeps from Python) refuses before any cell runs or any
    Dask worker starts; allow_long=True runs it (here: reaches the kernel)."""
    from dpbench.experiments import grid_experiment, run_experiment
    exp = grid_experiment("g", ["ucb1", "ldp_ucb_b"], instances=[{"means": [0.9, 0.8]}], grid={"eps": [1.0]},
                          horizon=10**15, reps=4)
    with pytest.raises(dpbench.InputError, match="more than a day; .*allow_long=True"):
        run_experiment(exp, out=tmp_path, progress=False, log=lambda m: None, scheduler=scheduler)
    exp = grid_experiment("g2", ["ucb1"], instances=[{"means": [0.9, 0.8]}], horizon=_two_days(), reps=1)
    with pytest.warns(dpbench.LongRunWarning), pytest.raises(AssertionError, match="kernel was called"):
        run_experiment(exp, out=tmp_path, progress=False, log=lambda m: None, threads=1, allow_long=True)


def test_closest_names():
    from dpbench.validation import closest_names
    policies = list(dpbench.ALGORITHMS)
    assert closest_names("ldp_ucb_bb", policies) == ["ldp_ucb_b", "ldp_ucb_bs"]      # near-ties both
    assert closest_names("LDP_UCB_L", policies) == ["ldp_ucb_l", "ldp_ucb_ls"]        # case ignored, prefix
    assert closest_names("ucb2", policies) == ["ucb1"]
    assert closest_names("NoSuchMechanism", ["LaplaceMechanism", "NoisyMax"]) == []   # a shared word is no match
    assert closest_names("zzz", policies) == []
    assert closest_names("epsilon", ["eps", "means"]) == ["eps"]                     # a name it begins with
    assert closest_names("espilon", ["eps", "means"]) == ["eps"]                     # ... with two letters swapped
    assert closest_names("xpsilon", ["eps", "means"]) == ["eps"]                     # ... or one changed
    assert closest_names("elephant", ["eps", "means"]) == []


@pytest.mark.parametrize("args,message", [
    (["simulate", "--policy", "ldp_ucb_bb", "--eps", "1", "--horizon", "1000"],
     "unknown policy 'ldp_ucb_bb'; did you mean ldp_ucb_b or ldp_ucb_bs?"),
    (["simulate", "--policy", "ucb1", "--rewards", "bernouli", "--horizon", "1000"],
     "unknown environment 'bernouli'; did you mean bernoulli?"),
    (["run", "seed000_fig1", "--horizon", "1000"],
     "unknown experiment 'seed000_fig1'; did you mean seed000_fig1a, seed000_fig1b, seed000_fig1c, seed000_fig1d, "
     "seed000_fig1e or seed000_fig1f?"),
    (["audit", "ctbb", "--eps", "1"], "unknown mechanism 'ctbb'; did you mean ctb"),
    (["list", "polices"], "unknown section 'polices'; did you mean policies?"),
    (["sweep", "--name", "g", "--policy", "ucb1,ldp_ucb_b", "--set", "espilon=3", "--horizon", "100", "--reps", "2"],
     "unknown parameter 'espilon' for the listed policies (ucb1, ldp_ucb_b) or environment 'bernoulli'; "
     "did you mean eps?"),
    (["sweep", "--name", "g", "--policy", "ldp_ucb_b", "--grid", "epz=1,2", "--horizon", "100", "--reps", "2"],
     "unknown parameter 'epz' for the listed policies (ldp_ucb_b) or environment 'bernoulli'; did you mean eps?"),
    (["sweep", "--name", "g", "--policy", "ucb1", "--scheduler", "locl", "--horizon", "100", "--reps", "2"],
     "(got 'locl'; did you mean 'local'?)"),
    (["audit", "laplace_release", "--eps", "1", "--features", "law,lawz"],
     "unknown --features token 'lawz'; did you mean law?"),
    (["audit", "sniper:LaplaceMechanizm", "--eps", "1"],
     "unknown DP-Sniper mechanism 'LaplaceMechanizm'; did you mean LaplaceMechanism?"),
    (["simulate", "--policy", "ldp_ucb_b", "--set", "espilon=3", "--horizon", "100"],
     "unknown parameter 'espilon' for policy 'ldp_ucb_b' or environment 'bernoulli'; did you mean eps?"),
])
def test_misspelt_names_get_the_closest_allowed_names(args, message, capsys):
    """A misspelt policy, environment, experiment, mechanism or list section: exit 2, one line,
    naming the closest allowed names."""
    try:
        status = main(args)
    except SystemExit as stop:                  # argparse's own errors
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("dpbench: error: ") and message in err, err


def test_run_time_estimate_uses_the_measured_rates():
    """A measured policy's estimate is reps x T x max(1, K/K_ref) / rate / threads; an
    unmeasured one gets the slowest measured rate (it can only over-estimate)."""
    from dpbench.engine import guard
    rates = guard._read()["rates"]
    assert set(rates) == set(dpbench.ALGORITHMS), "regenerate with python -m dpbench.engine.throughput"
    row = rates["ldp_ucb_b"]
    est = guard.estimate_seconds([("ldp_ucb_b", 2 * row["arms"], 10**9, 4)], threads=2)
    assert est == pytest.approx(4 * 10**9 * 2 / row["pulls_per_second"] / 2)
    slowest = min(r["pulls_per_second"] for r in rates.values())
    assert guard.seconds_per_pull("not_a_policy", 2) == pytest.approx(1 / slowest)


@pytest.mark.parametrize("args, message", [
    (["simulat"], "invalid choice: 'simulat' (choose from 'run', "),
    (["simulat"], "; did you mean simulate? (see `dpbench --help`)"),
    (["simulate", "--polcy", "ucb1", "--horizon", "100"],     # argparse alone named only the missing --policy
     "unrecognized option --polcy (did you mean --policy?); the following arguments are required: --policy"),
    # an option of another command (simulate's --means) is reported by the top-level parser: it pointed
    # to `dpbench --help`, which does not list sweep's options
    (["sweep", "--name", "x", "--policy", "ucb1", "--means", "0.9,0.5"],
     "unrecognized arguments: --means (see `dpbench sweep --help`)"),
])
def test_a_misspelt_command_or_option_is_named_with_the_closest(args, message, capsys):
    assert main(args) == 2                      # argparse's usage errors: returned like any bad input
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def _numeric_options():
    """(command, option, its type) of every option of every subcommand whose value is a number."""
    import argparse

    from dpbench.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, p in sub.choices.items():
        for action in p._actions:
            if action.type in (int, float) or getattr(action.type, "allowed", None):
                yield command, action.option_strings[0] if action.option_strings else action.dest, action.type


def test_every_numeric_option_states_its_range_whatever_is_wrong(capsys):
    """--eps two was argparse's "invalid float value" without the range: every numeric option of
    every command now parses and checks its value in one place, so a word, a fraction for a
    count and a value out of range all get one line with the allowed range."""
    from dpbench.validation import NumberArg
    options = list(_numeric_options())
    assert len(options) >= 30
    plain = [(c, o) for c, o, t in options if not isinstance(t, NumberArg)]
    assert not plain, f"numeric options parsed by int/float (argparse's message has no range): {plain}"
    for command, option, kind in options:
        for bad in ("two", "-1e400"):
            assert main([command, f"{option}={bad}"]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1, (command, option, err)
            allowed = kind.allowed if bad == "two" or kind.integer else "a finite " + kind.allowed.removeprefix("a ")
            assert f"argument {option}: must be {allowed} (got '{bad}')" in err, err
