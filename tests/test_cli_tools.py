"""The maintenance commands: ``dpbench audit-suite``, ``dpbench feasibility --figures`` and
``dpbench baseline [--regenerate]``.  Their long jobs are replaced by recorders here (the jobs
themselves are the slow audit suite, the feasibility report and the regression test): what is
checked is the dispatch, and that bad input exits 2 with one line before any job starts."""
import subprocess
import sys
from pathlib import Path

import pytest

from dpbench.cli import main
from dpbench.papers.seed002 import feasibility_figures
from verify import regret_baseline
from verify.audit.suites import report as audit_report

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def jobs(monkeypatch):
    """Replace the long jobs by recorders: calls[name] = (args, kwargs)."""
    calls = {}

    def recorder(name, result):
        def record(*args, **kwargs):
            calls[name] = (args, kwargs)
            return result
        return record
    monkeypatch.setattr(audit_report, "write_suite", recorder("suite", (0.0,) * 6))
    monkeypatch.setattr(audit_report, "write_planted", recorder("planted", (0.0, 0.0)))
    monkeypatch.setattr(feasibility_figures, "write_report", recorder("figures", []))
    monkeypatch.setattr(regret_baseline, "regenerate", recorder("regenerate", {}))
    monkeypatch.setattr(regret_baseline, "check", recorder("check", ["ucb1"]))
    return calls


def test_commands_reach_their_jobs(jobs, tmp_path, capsys):
    out = tmp_path / "suite.md"
    assert main(["audit-suite", "--scale", "0.5", "--only", "LaplaceMechanism", "--out", str(out)]) == 0
    assert jobs["suite"] == ((out,), {"scale": 0.5, "only": ["LaplaceMechanism"], "seed": 0, "controls": True})
    assert main(["audit-suite", "--planted-only", "--out", str(tmp_path / "planted.md")]) == 0
    assert jobs["planted"] == ((tmp_path / "planted.md",), {"seed": 0})
    assert "(the audits' own time: start-up, imports" in capsys.readouterr().out    # a user's `time` sees more
    assert main(["feasibility", "--figures", "--out", str(tmp_path / "figs")]) == 0
    assert Path(jobs["figures"][0][0]) == tmp_path / "figs"
    assert main(["baseline", "--regenerate", "ucb1", "--file", str(tmp_path / "b.json")]) == 0
    assert jobs["regenerate"][0] == (["ucb1"],) and jobs["regenerate"][1]["path"] == tmp_path / "b.json"
    assert main(["baseline", "ucb1"]) == 1                    # the recorder reports ucb1 as changed
    assert "1 changed or missing: ucb1" in capsys.readouterr().out


def test_regenerating_the_installed_baseline_needs_a_file(jobs, monkeypatch, capsys):
    """Found by a new user: `dpbench baseline --plugin mine --regenerate mypolicy` without --file wrote into
    site-packages/verify/data, which the next pip install replaces.  Refused there, before the job."""
    installed = Path("/venv/lib/python3.11/site-packages/verify/data/regret_baseline.json")
    monkeypatch.setattr(regret_baseline, "BASELINE", installed)
    assert main(["baseline", "--regenerate", "ucb1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--regenerate needs --file PATH here: the default baseline is inside the installed " \
                               "package (.../verify/data/regret_baseline.json)" in err[0], err
    assert not jobs


@pytest.mark.parametrize("args,message", [
    (["audit-suite", "--scale", "0"], "argument --scale: must be a real number > 0 (got '0')"),
    (["audit-suite", "--seed", "-1"], "argument --seed: must be an integer >= 0 (got '-1')"),
    (["audit-suite", "--only", "NoSuchMechanism"], "unknown mechanism (--only) 'NoSuchMechanism'; allowed values: "),
    (["audit-suite", "--out", "/dev/null/x/suite.md"], "--out: cannot create directory '/dev/null/x'"),
    (["audit-suite", "--planted-only", "--scale", "2"], "--planted-only takes no --scale"),
    (["audit-suite", "--planted-only", "--scale", "-1"], "argument --scale: must be a real number > 0 (got '-1')"),
    (["audit-suite", "--planted-only", "--only", "laplace_half_scale"], "--planted-only takes no --only ("),
    (["audit-suite", "--policies", "--scale", "2"], "--policies takes no --scale"),
    (["audit-suite", "--policies", "--planted-only"], "give --planted-only or --policies, not both"),
    (["feasibility", "--figures", "gauss"], "--figures takes no perturbation family"),
    (["feasibility", "--figures", "--out", "/dev/null/x"], "--out: cannot create directory '/dev/null/x'"),
    (["feasibility", "--eps", "1", "--delta", "0.01", "--n", "8"], "a perturbation family (gauss, beta or lemma15)"),
    (["feasibility", "gauss", "--n", "8", "--delta", "0.01"], "--eps is required for a check of gauss"),
    (["baseline", "no_such_policy"], "unknown policy 'no_such_policy'; allowed values: "),
    (["baseline", "--file", "/nonexistent/b.json"], "--file: no baseline file '/nonexistent/b.json'"),
])
def test_bad_input_exits_2_before_the_job(jobs, args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("dpbench: error: ") and message in err[0], err
    assert not jobs


def test_help_and_usage_errors_in_a_real_process():
    for command in ("audit-suite", "baseline"):
        proc = subprocess.run([sys.executable, "-m", "dpbench", command, "--help"], capture_output=True,
                              text=True, cwd=ROOT, timeout=120)
        assert proc.returncode == 0 and f"usage: dpbench {command}" in proc.stdout, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "dpbench", "audit-suite", "--scale", "x"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "--scale: must be a real number > 0 (got 'x')" in lines[0]


def test_a_policy_without_a_baseline_is_told_the_command_that_makes_one(tmp_path):
    """'no baseline (run dpbench baseline --regenerate mine)' led a new user straight to the refusal
    '--regenerate needs --file PATH here': the hint names --file."""
    from verify import regret_baseline
    lines: list = []
    empty = tmp_path / "mine.json"
    assert regret_baseline.check(["ucb1"], path=empty, log=lines.append) == ["ucb1"]
    assert lines == [f"ucb1: no baseline (run dpbench baseline --regenerate ucb1 --file {empty})"]
    lines.clear()
    regret_baseline.check(["no_such"], log=lines.append)          # the shipped file: the user's own file
    assert lines == ["no_such: no baseline (run dpbench baseline --regenerate no_such --file PATH (a file of your "
                     "project))"]
