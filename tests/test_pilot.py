"""``dpbench report PAPER --pilot [R]``: a few repetitions at every experiment's own horizon, into
reports/pilot/, and what each claim needs.

The new user's case (issue 39): a true "UCB1's regret grows like log T" at T = 1e5 came out
inconclusive after the full build ("needs R >= 101").  A pilot at 5 repetitions says so before
the build, in the report and on the screen, and never replaces the full report.
"""
import json
import math
import sys

import pytest

from dpbench.cli import build_parser, main
from dpbench.cli.report import out_dir
from dpbench.reporting import build_report
from dpbench.reporting.claims import Check, Claim, ClaimResult, Decision, Outcome, ReadingResult, Unobservable, Verdict
from dpbench.reporting.pilot import PILOT_OUT, needs, table
from verify.inference import Estimate

CLAIMS = '''
[[claim]]
id = "ucb.log_T"
where = "Fig. 1"
statement = "UCB1's regret grows like log T"
test = "flattening"
experiment = "pilot_fig"
runs = ["UCB1"]

[[claim]]
id = "ucb.below_uniform"
where = "Fig. 1"
statement = "UCB1 beats an LDP agent at eps = 0.5"
test = "ordering"
experiment = "pilot_fig"
runs = ["UCB1", "LDP-UCB-B"]
'''

EXPERIMENT = '''
name = "pilot_fig"
title = "Fig. 1: UCB1 and LDP-UCB-B"
horizon = 100000
reps = 20
seed = 3
yscale = "log"

[environment]
name = "bernoulli"
means = [0.9, 0.8, 0.7]

[[runs]]
label = "UCB1"
policy = "ucb1"

[[runs]]
label = "LDP-UCB-B"
policy = "ldp_ucb_b"
eps = 0.5
'''


@pytest.fixture
def folder(tmp_path):
    f = tmp_path / "pilotpaper"
    (f / "experiments").mkdir(parents=True)
    (f / "claims.toml").write_text(CLAIMS)
    (f / "experiments" / "pilot_fig.toml").write_text(EXPERIMENT)
    yield f
    for name in [m for m in sys.modules if m.startswith("_dpbench_paper_pilotpaper")]:
        del sys.modules[name]


def test_a_pilot_sizes_every_claim_before_the_full_build(folder, tmp_path):
    lines = []
    path = build_report(folder, pilot=4, results_dir=tmp_path / "res", out_dir=tmp_path / "pilot",
                        log=lines.append)
    text = path.read_text()
    assert "## Pilot: what each claim needs" in text and "4 repetitions" in text
    rows = {r["id"]: r for r in json.loads((tmp_path / "pilot" / "pilotpaper_claims.json").read_text())}
    assert rows["ucb.log_T"]["reps"] == 4                      # the full horizon, 4 repetitions
    printed = "\n".join(lines)
    assert "claim" in printed and "needs R" in printed and "ucb.log_T" in printed
    assert "The full build plans R = 20" in printed
    # the pilot's cells stay in the store: the full build resumes after them
    later = []
    build_report(folder, results_dir=tmp_path / "res", out_dir=tmp_path / "full", log=later.append)
    assert any("resuming after 4 saved repetitions" in line for line in later)


def test_what_a_claim_needs_comes_from_the_rules_decisions():
    est = Estimate(1.0, 0.4, 4, 5)
    check = Check(est, high=0.0, label="a < b")

    def row(cid, verdict, decisions, outcome=None):
        c = Claim(cid, "Fig. 1", "s", "ordering", {})
        reading = ReadingResult(c, outcome or Outcome(""), verdict, "", "", tuple(decisions))
        return ClaimResult(c, (reading,), verdict, 0.01)
    stuck = Unobservable("still round-robin", 3e6)
    found = needs([row("open", Verdict.INCONCLUSIVE, [Decision(check, Verdict.INCONCLUSIVE, "", 37)]),
                   row("done", Verdict.REPRODUCED, [Decision(check, Verdict.REPRODUCED, "")]),
                   row("edge", Verdict.INCONCLUSIVE, [Decision(check, Verdict.INCONCLUSIVE, "", None)]),
                   row("late", Verdict.UNOBSERVABLE, [], Outcome("", Verdict.UNOBSERVABLE, unobservable=stuck))])
    by = {n.claim: n for n in found}
    assert by["open"].reps == 37 and by["done"].reps == 0 and by["edge"].reps is None
    assert by["late"].horizon == 3e6
    text = table(found, 5, planned_reps=20)
    assert ">= 37" in text and "decided" in text and "none decides" in text and "3e+06" in text
    assert "The full build plans R = 20: 1 claim(s) need more (open)" in text
    assert math.isclose(by["late"].horizon, 3e6)


def test_the_pilot_goes_to_its_own_folder_and_refuses_bad_sizes(folder, capsys):
    parser = build_parser()
    assert out_dir(parser.parse_args(["report", "004", "--pilot"])) == PILOT_OUT
    assert parser.parse_args(["report", "004", "--pilot"]).pilot == 5
    assert parser.parse_args(["report", "004", "--pilot", "8"]).pilot == 8
    assert out_dir(parser.parse_args(["report", "004", "--pilot", "--out", "mine"])) == "mine"
    assert main(["report", str(folder), "--pilot", "1"]) == 2
    # one line naming the option and its range, in the format every numeric option's error has
    assert "argument --pilot: must be an integer >= 2 (got '1')" in capsys.readouterr().err
    assert main(["report", str(folder), "--pilot", "3", "--quick"]) == 2
    assert "exclude each other" in capsys.readouterr().err
