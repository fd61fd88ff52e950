"""The documented command lines."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dpbench.cli import main
from dpbench.validation import InputError

ROOT = Path(__file__).resolve().parents[1]


def test_simulate_json_fields(capsys):
    assert main(["simulate", "--policy", "ldp_ucb_b", "--rewards", "bernoulli", "--means", "0.9,0.8,0.7",
                 "--eps", "1", "--horizon", "5000", "--reps", "4", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("mean_final_regret", "stderr_final_regret", "final_regrets", "pulls_per_second",
                "seconds", "compile_seconds"):
        assert key in out
    assert len(out["final_regrets"]) == 4 and out["params"] == {"eps": 1.0}
    # the thin-interval warning the human output prints under the interval reaches a script too
    assert out["warnings"] == ["⚠ intervals from fewer than 10 repetitions (4): too few to compare runs by; "
                               "rerun with --reps 10 or more"]


def test_simulate_set_passes_other_parameters(capsys):
    assert main(["simulate", "--policy", "heldp_ucb_l", "--set", "eps_dist=discrete", "--eps-min", "1",
                 "--set", "forced_choice=lowest", "--horizon", "3000", "--reps", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"]["forced_choice"] == "lowest" and out["info"]["p0"] == 0.6


def test_list_names_everything(capsys):
    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = {s: {i["name"] for i in items} for s, items in data.items()}
    assert {"ucb1", "ldp_ucb_l", "ldp_ucb_b", "ldp_ucb_ls", "ldp_ucb_bs", "heldp_ucb_l",
            "heldp_ucb_b", "heldp_ucb_ls", "heldp_ucb_bs", "ucb1_sigmoid"} <= names["policies"]
    assert {"bernoulli", "beta", "two_point", "uniform", "gaussian", "mixed", "mixture"} <= names["environments"]
    assert {"ctl", "ctb", "ctl_s", "ctb_s"} <= names["mechanisms"]
    assert "seed000_fig1a" in names["experiments"]
    assert main(["list", "policies", "-v"]) == 0
    text = capsys.readouterr().out
    assert "ldp_ucb_b" in text and "eps (" in text and "environments:" not in text


@pytest.mark.slow
def test_quick_report_builds_from_the_command_line(tmp_path):
    """`dpbench report 004 --quick` (phased algorithms: about 45 s with warm kernels, 110 s cold,
    most of it compiling the five linear kernels again in a new process, which made it the
    longest default test) writes the report with its audits, bound checks and errata.  Slow; the
    default run builds a report from the command line in tests/test_paper_folder.py (the
    README's paper) and seed 000's quick report in tests/papers/seed000/test_report.py; every
    seed's quick report is `-m slow` in tests/test_reports.py."""
    proc = subprocess.run([sys.executable, "-m", "dpbench", "report", "004", "--quick", "--no-progress",
                           "--results", str(tmp_path / "results"), "--out", str(tmp_path / "reports")],
                          capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = tmp_path / "reports" / "seed004.md"
    assert f"wrote {report}" in proc.stdout
    text = report.read_text()
    assert text.startswith("# Seed 004") and "Smoke build" in text
    # the audits and errata are rows of the claims table since the claims became data
    for heading in ("## At a glance", "## The paper's claims", "## Errata", "## Figures", "## Claims in detail",
                    "## The non-private reference and the instance", "## Bound checks", "## Provenance"):
        assert heading in text, heading
    assert "audit.alg1" in text and "erratum E1" in text
    # a smoke build names only files a user has, says warnings in its own words, decides nothing
    assert "../shared" not in text and not re.search(r"seed_00\d(_001)?\.md", text)
    assert "Warning" not in proc.stderr and "Traceback" not in proc.stderr
    rows = json.loads((tmp_path / "reports" / "seed004_claims.json").read_text())
    random_rows = [r for r in rows if any(c["random"] for x in r["readings"] for c in x["comparisons"])]
    decided = ("reproduced", "contradicted", "depends on the reading", "consistent (cannot fail)")
    assert random_rows and all(r["verdict"] not in decided for r in random_rows)
    assert {p.name for p in (tmp_path / "reports").glob("seed004_*.png")} >= {
        "seed004_fig2.png", "seed004_fig2_fixed.png", "seed004_fig3.png", "seed004_fig4.png", "seed004_instances.png"}


def test_check_reports_what_it_checked_and_the_outcome(capsys):
    """`--check` says what it checked (one repetition as plain Python, every verb call) and
    that the compiled rerun reproduced it; the JSON carries the same under metadata.check."""
    args = ["simulate", "--policy", "ucb1", "--means", "0.9,0.8", "--horizon", "2000", "--reps", "2", "--check"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert ("check passed: repetition 0 ran as plain Python (2000 pulls; 2000 select, 2000 respond, "
            "2000 update, 2000 broadcast calls, each checked: arms in range") in out
    assert "the compiled run reproduced it exactly" in out
    assert main([*args, "--json"]) == 0
    check = json.loads(capsys.readouterr().out)["metadata"]["check"]
    assert check == {"repetition": 0, "pulls": 2000, "calls": {"select": 2000, "respond": 2000, "update": 2000,
                                                              "broadcast": 2000},
                     "reproduced_compiled": True, "outcome": "passed"}


def test_an_error_during_a_run_starts_its_own_line(monkeypatch, capsys):
    """A mechanism error raised while the progress bar is drawn: the bar is cleared first, so
    the error is a line of its own (it used to follow the bar on the same line)."""
    from dpbench.engine import contracts
    from dpbench.engine import simulate as sim

    def non_finite(plan, first, count, trace):
        raise contracts.non_finite_error(plan, first, 17)
    monkeypatch.setattr(sim, "compile_plan", lambda plan: 0.0)
    monkeypatch.setattr(sim, "_run_chunk", non_finite)
    assert main(["simulate", "--policy", "ucb1", "--horizon", "1000", "--reps", "4"]) == 2
    err = capsys.readouterr().err
    assert "0/4" in err                                       # the bar was drawn
    last = err.splitlines()[-1]
    assert last.startswith("dpbench: error: respond") and "returned a non-finite response" in last, err


def test_list_verbose_shows_every_range(capsys):
    """`dpbench list -v`: every parameter line says what it accepts (no empty `(; default ...)`)."""
    assert main(["list", "-v"]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("- ")]
    assert len(lines) > 100
    for line in lines:
        allowed = re.match(r"- \w+ \((.*?); (?:default|required)", line)
        if line.startswith("- mechanism ("):
            continue
        assert allowed and allowed.group(1).strip() and not allowed.group(1).startswith(" "), line
    text = "\n".join(lines)
    assert "- eps_mu (real number; default 1.0)" in text and "- eps (real > 0; required)" in text
    assert "- actions (matrix: rows separated by ';', numbers by ','; required)" in text


def test_a_quick_report_goes_to_its_own_folder_unless_out_is_given():
    """A smoke build never replaces a full report: reports/quick/ by default."""
    from dpbench.cli import build_parser
    from dpbench.cli.report import out_dir

    parser = build_parser()
    assert out_dir(parser.parse_args(["report", "004", "--quick"])) == "reports/quick"
    assert out_dir(parser.parse_args(["report", "004"])) == "reports"
    assert out_dir(parser.parse_args(["report", "004", "--quick", "--out", "mine"])) == "mine"


def test_a_smoke_build_or_a_pilot_does_not_write_over_a_full_report_in_its_out(tmp_path, capsys):
    """Found by a new user: `dpbench report 000 --quick --out DIR` replaced the full report in DIR (the default
    folders keep them apart, a shared --out did not).  Refused before anything runs; a smoke build over a
    smoke build, or a full build over either, goes on."""
    from dpbench.cli import build_parser
    from dpbench.cli.report import PARTIAL_MARKS, keep_full_reports

    (tmp_path / "seed000.md").write_text("# Seed 000: claims and evidence\n\n| claim | verdict |\n")
    assert main(["report", "000", "--quick", "--out", str(tmp_path), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "seed000.md is a full report, which a smoke build does not replace" in err[0], err
    assert "the default, reports/quick, keeps them apart" in err[0]
    parser = build_parser()
    pilot = parser.parse_args(["report", "000", "--pilot", "--out", str(tmp_path)])
    with pytest.raises(InputError, match="a pilot does not replace"):
        keep_full_reports(pilot, [tmp_path / "seed000.md"])
    keep_full_reports(parser.parse_args(["report", "000", "--out", str(tmp_path)]), [tmp_path / "seed000.md"])
    for mark in PARTIAL_MARKS:
        (tmp_path / "seed000.md").write_text(f"# Seed 000\n\n{mark} ...\n")
        keep_full_reports(parser.parse_args(["report", "000", "--quick", "--out", str(tmp_path)]),
                          [tmp_path / "seed000.md"])


def test_an_audit_keeps_its_exit_status_when_the_reader_closes_the_pipe(tmp_path):
    """`dpbench audit ... | head -1` (or `| true`): the verdict's status, not 0 (it was 0 for a VIOLATED one)."""
    (tmp_path / "halfscale.py").write_text(
        "import numpy as np\n"
        "def mech(x, n, seed):\n"
        "    return np.round((x + np.random.default_rng(seed).laplace(0, 0.5, n)) * 2**12) / 2**12\n")
    proc = subprocess.Popen([sys.executable, "-m", "dpbench", "audit", "halfscale:mech", "--eps", "1", "--x", "0",
                             "--x-prime", "1", "--n", "20000", "--no-progress"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=tmp_path, env={**__import__("os").environ,
                                                                         "PYTHONPATH": str(tmp_path)})
    proc.stdout.close()                                   # the reader went away before a line was read
    assert proc.wait(timeout=300) == 1


def test_a_warning_on_the_command_line_is_one_line_without_source_paths(tmp_path, monkeypatch, capsys):
    """An audit's warning (here: a mechanism that draws from NumPy's global generator) is one
    `dpbench: warning: ...` line; it printed a path inside verify/ and the code line that raised it."""
    (tmp_path / "globalrng.py").write_text(
        "import numpy as np\n"
        "def mech(x, n, seed):\n"
        "    return np.round((x + np.random.laplace(0, 1, n)) * 2**12) / 2**12\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    main(["audit", "globalrng:mech", "--eps", "1", "--x", "0", "--x-prime", "1", "--n", "20000", "--no-progress"])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "warning" in line]
    assert lines and all(line.startswith("dpbench: warning: the seed does not set") for line in lines), err
    assert "source.py" not in err and ".py:" not in err


def test_an_option_value_that_starts_with_a_dash_reaches_the_options_own_check(capsys):
    """Found by a new user: `--budget -5s` got argparse's "expected one argument", not the budget's range."""
    from dpbench.cli import join_dashed_values
    assert join_dashed_values(["audit", "ctb", "--budget", "-5s", "--x", "-1,2", "--no-progress", "-h"]) == \
        ["audit", "ctb", "--budget=-5s", "--x=-1,2", "--no-progress", "-h"]
    assert main(["audit", "ctb", "--eps", "1", "--budget", "-5s"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "budget must be a time with its unit" in err[0] and "positive (got '-5s')" in err[0], err
