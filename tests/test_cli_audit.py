"""``dpbench audit module:function``: imported from the working directory, ``--param``
passed to the function, JSON inputs of any size, exit status 0 / 1 / 2 with one line."""
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dpbench.cli import main
from dpbench.cli.audit import parse_input, parse_value

ROOT = Path(__file__).resolve().parents[1]

MECHS = textwrap.dedent("""
    import numpy as np

    def snap(v):                       # the 2^-32 lattice: float addition exact (Mironov 2012)
        return np.round(np.asarray(v, dtype=float) * 2.0 ** 32) / 2.0 ** 32

    def laplace(x, n, seed, scale=1.0, shift=0.0):
        return snap(x + shift) + snap(np.random.default_rng(seed).laplace(0.0, scale, n))

    def noisy_count(x, n, seed, scale=1.0):
        return len(x) + snap(np.random.default_rng(seed).laplace(0.0, scale, n))

    def crashes(x, n, seed):
        raise RuntimeError("boom\\nsecond line")

    def labels(x, n, seed):
        return np.zeros(n) if x == 0 else np.full(n, "text")

    def rr3(x, n, seed, eps=1.0):      # 3-ary randomised response with its own eps
        g = np.random.default_rng(seed)
        other = g.integers(0, 2, n)
        other = other + (other >= x)
        return np.where(g.random(n) < np.exp(eps) / (np.exp(eps) + 2), x, other)
""")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A working directory holding ``mechs_<test>.py``, not on sys.path (the CLI adds it)."""
    name = f"mechs_{abs(hash(str(tmp_path))) % 10 ** 8}"
    (tmp_path / f"{name}.py").write_text(MECHS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield name
    sys.modules.pop(name, None)


def run(capsys, *argv):
    status = main(["audit", *argv, "--n", "50000", "--no-progress"])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_values():
    assert parse_value("0.5") == 0.5 and parse_value("3") == 3 and parse_value("1e-3") == 1e-3
    assert parse_value("true") is True and parse_value("False") is False
    assert parse_value("[1, 2]") == [1, 2] and parse_value("0.9,0.8") == [0.9, 0.8]
    assert parse_value(".5") == 0.5 and parse_value("fast") == "fast" and parse_value('"a,b"') == "a,b"
    assert parse_input("--x", "[0]") == [0] and parse_input("--x", "0,1") == [0.0, 1.0]
    assert parse_input("--x", '{"a": 1}') == {"a": 1} and parse_input("--x", None) is None


def test_module_function_params_and_exit_codes(workdir, capsys):
    status, out, _ = run(capsys, f"{workdir}:laplace", "--eps", "1", "--x", "0", "--x-prime", "1")
    assert status == 0 and "not rejected" in out
    status, out, _ = run(capsys, f"{workdir}:laplace", "--eps", "1", "--x", "0", "--x-prime", "1",
                         "--param", "scale=0.4", "--param", "shift=0")
    assert status == 1 and "VIOLATED" in out and "scale=0.4" in out


def test_a_function_s_own_eps_gets_the_claim_and_the_headline_says_so(workdir, capsys):
    """rr3(x, n, seed, eps=1.0) audited against eps = 0.5 runs at eps = 0.5 (as catalog mechanisms do):
    not a false alarm at its default 1.0; --param still wins, and the headline names what ran."""
    status, out, _ = run(capsys, f"{workdir}:rr3", "--eps", "0.5", "--x", "0", "--x-prime", "1")
    assert status == 0 and out.startswith("audit of rr3(eps=0.5) against (0.5, 0)-DP: not rejected"), out
    status, out, _ = run(capsys, f"{workdir}:rr3", "--eps", "0.5", "--x", "0", "--x-prime", "1", "--param", "eps=1")
    assert status == 1 and out.startswith("audit of rr3(eps=1) against (0.5, 0)-DP: VIOLATED by the law"), out


def test_add_remove_datasets_and_json(workdir, capsys):
    status, out, _ = run(capsys, f"{workdir}:noisy_count", "--eps", "1", "--x", "[0]", "--x-prime", "[0, 1]",
                         "--param", "scale=0.4", "--json")
    data = json.loads(out)
    assert status == 1 and data["violated"]
    assert sorted([data["witness"]["x"], data["witness"]["x_prime"]], key=len) == [[0], [0, 1]]
    for key in ("tradeoff_fpr", "tradeoff_fnr", "gdp_mu_lower_bound"):
        assert key in data
    assert data["gdp_mu_lower_bound"] > 0 and len(data["tradeoff_fpr"]) == len(data["tradeoff_fnr"]) > 0


def test_file_path_form(workdir, capsys):
    status, _, _ = run(capsys, f"{workdir}.py:laplace", "--eps", "1", "--x", "0", "--x-prime", "1")
    assert status == 0


@pytest.mark.parametrize("args,match", [
    (["{m}:crashes", "--x", "0", "--x-prime", "1"],
     "mechanism crashes raised RuntimeError on input 0: boom second line"),
    (["{m}:labels", "--x", "0", "--x-prime", "1"], "returned only labels on input 1 but only numbers on input 0"),
    (["{m}:laplace", "--param", "scal=1", "--x", "0", "--x-prime", "1"],
     r"unknown --param 'scal' for .*:laplace\(x, n, seed, scale=1.0, shift=0.0\); did you mean scale\? "
     r"allowed parameters \(after x, n, seed\): scale, shift"),
    (["{m}:nothing", "--x", "0", "--x-prime", "1"], "has no callable 'nothing'"),
    (["no_such_module_xyz:f"], "cannot import module 'no_such_module_xyz'"),
    (["{m}:laplace", "--x", "[0", "--x-prime", "1"], "--x must be a JSON literal"),
    (["{m}:laplace", "--x", "0"], "give both x and x_prime"),
    (["{m}:laplace"], "has no input range: give a neighbouring pair with --x and --x-prime"),
    (["{m}:laplace", "--x", "0", "--x-prime", "1", "--eps", "9", "--alpha", "1e-6"],
     "cannot certify anything.*use n >="),
    (["ctl", "--eps", "1", "--param", "eps=-1"], "mechanism ctl: parameter eps must be > 0 .*--param"),
    (["ctb", "--eps", "1", "--param", "epz=2"],
     r"mechanism ctb: unknown parameter 'epz' for mechanism 'ctb'; did you mean eps\? .*parameters given: eps=1.0;"),
])
def test_bad_input_exits_2_with_one_line(workdir, capsys, args, match):
    argv = [a.format(m=workdir) for a in args]
    if "--eps" not in argv:
        argv += ["--eps", "1"]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("dpbench: error: ")
    assert re.search(match.format(m=workdir), err), err


@pytest.mark.parametrize("n,match", [
    ("1e13", r"n: refinement and certification would draw 2.5e\+13 outputs.*--yes"),
    ("1.5", r"argument --n: must be an integer >= 1 \(got '1.5'\)"),
])
def test_n_is_a_count_and_a_day_long_audit_is_refused(capsys, n, match):
    """--n takes 1e6 as the other counts do; an audit longer than a day at the rate selection
    measured is refused in one line (exit 2) unless --yes."""
    try:
        status = main(["audit", "ctl", "--eps", "1", "--n", n, "--no-progress"])
    except SystemExit as stop:                # argparse's own errors
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert re.search(match, err), err


def test_real_process_imports_from_the_working_directory(tmp_path):
    """A crashing mechanism imported from the working directory (not on sys.path): exit 2,
    one line naming the mechanism and the input, no traceback."""
    (tmp_path / "usermech.py").write_text(MECHS)
    proc = subprocess.run([sys.executable, "-c", "import sys; from dpbench.cli import main; "
                           "sys.path[:] = [p for p in sys.path if p not in ('', '.')]; sys.exit(main())",
                           "audit", "usermech:crashes", "--eps", "1", "--x", "[0]", "--x-prime", "[0, 1]",
                           "--n", "20000"],
                          capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and proc.stdout == ""
    assert re.fullmatch(r"dpbench: error: mechanism crashes raised RuntimeError on input \[0\]: boom second line "
                        r"\(in the call with n=\d+, seed=\d+\)\n", proc.stderr), proc.stderr


def test_a_refusal_with_json_is_json_on_stdout_and_one_line_on_stderr(capsys):
    """A script that parses ``--json`` got a plain line and had to check the exit status first."""
    import json

    for argv in (["audit", "ctl", "--eps", "-1", "--json"],                        # argparse's check
                 ["audit", "ctl", "--eps", "1", "--x", "[0", "--x-prime", "1", "--json"]):     # the command's
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == 2 and len(err.strip().splitlines()) == 1 and err.startswith("dpbench: error: "), err
        refusal = json.loads(out)
        assert refusal == {"status": "error", "error": err[len("dpbench: error: "):].strip(), "exit_status": 2}


def test_a_partial_mechanism_is_named_by_its_function_and_parameters():
    """functools.partial has no __name__: messages said 'partial is not (1, 0)-DP'."""
    import functools

    from verify.audit.source import mechanism_name

    def laplace(x, n, seed, scale=1.0, shift=0.0):
        return [x] * n
    assert mechanism_name(functools.partial(laplace, scale=0.5)) == "laplace(scale=0.5)"
    assert mechanism_name(functools.partial(functools.partial(laplace, 0.0), shift=1)) == "laplace(0.0, shift=1)"
