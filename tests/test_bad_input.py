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
    ({"policy": "ldp_ucb_b", "eps": 1.0, "horizon": 10}, r"horizon must be an integer >= 20"),
    ({"policy": "ldp_ucb_b", "eps": 1.0, "reps": 0}, r"reps must be an integer >= 1"),
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
    assert "horizon must be an integer >= 6" in proc.stderr and "Traceback" not in proc.stderr
