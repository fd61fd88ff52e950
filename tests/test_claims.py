"""Claims as data: the test kinds on synthetic runs, with negative controls.

A reversed ordering must come out *contradicted*, a saturated (round-robin) run
*unobservable*, a missing experiment *not checked*.  Synthetic regret curves make every case
exact and fast (no simulation).  The decision rule itself: tests/test_decision_rule.py.
"""
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

import dpbench
from dpbench.engine.result import log_checkpoints
from dpbench.reporting.claims import Claim, Evidence, Verdict, evaluate, learning_horizon, load_claims, uniform_share
from dpbench.reporting.claims.kinds import rounding

MEANS = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5]
T = 100_000


def curve(label, policy="ldp_ucb_b", *, slope=100.0, reps=20, seed=0, round_robin=False, eps=2.0):
    """A SimulationResult whose regret is slope * ln t (+ noise), or uniform play's t x mean gap."""
    cps = log_checkpoints(T)
    gen = np.random.default_rng(seed)
    gaps = max(MEANS) - np.asarray(MEANS)
    if round_robin:
        base = cps * gaps.mean()
        regret = base[None, :] * (1 + 0.002 * gen.standard_normal((reps, 1)))
    else:
        regret = slope * np.log(cps)[None, :] * (1 + 0.05 * gen.standard_normal((reps, 1)))
    return dpbench.SimulationResult(
        policy=policy, label=label, environment="bernoulli", params={"eps": eps}, env_params={"means": MEANS},
        horizon=T, seed=seed, first_rep=0, checkpoints=cps, regret=regret,
        pulls=np.zeros((reps, len(MEANS)), dtype=np.int64), means=np.asarray(MEANS))


def run_of(*results):
    return SimpleNamespace(results={r.label: r for r in results}, runs=[])


def claim(cid, test, **params):
    horizon = params.pop("horizon", None)
    return Claim(cid, "synthetic", f"synthetic {test}", test, params, horizon=horizon)


@pytest.fixture(scope="module")
def evidence():
    fast = curve("fast", slope=100.0, seed=1)
    slow = curve("slow", slope=300.0, seed=2)
    same = curve("fast twin", slope=100.0, seed=3)
    stuck_a = curve("stuck A", round_robin=True, seed=4, eps=0.01)
    stuck_b = curve("stuck B", round_robin=True, seed=5, eps=0.01)
    ev = Evidence({"exp": run_of(fast, slow, same, stuck_a, stuck_b)})
    ev.measure("pi", lambda c, e: math.pi)
    return ev


def verdicts(ev, *claims):
    return {r.claim.id: r for r in evaluate(claims, ev)}


def test_ordering_reproduced_and_reversed_contradicted(evidence):
    out = verdicts(evidence, claim("right", "ordering", experiment="exp", runs=["fast", "slow"]),
                   claim("reversed", "ordering", experiment="exp", runs=["slow", "fast"]),
                   claim("mw", "ordering", experiment="exp", runs=["fast", "slow"], method="mannwhitney"))
    assert out["right"].verdict is Verdict.REPRODUCED and out["mw"].verdict is Verdict.REPRODUCED
    assert out["reversed"].verdict is Verdict.CONTRADICTED                  # negative control
    assert "outside" in out["reversed"].detail and out["right"].outcome.horizon == T


def test_saturated_round_robin_is_unobservable_with_a_horizon(evidence):
    ev = evidence
    stuck = ev.runs["exp"].results["stuck A"]
    assert uniform_share(stuck, T) > 0.99
    horizon = learning_horizon(stuck)                 # Theorem 6 forces learning later than T
    assert horizon is not None and horizon > T
    out = verdicts(ev, claim("stuck", "ordering", experiment="exp", runs=["stuck A", "stuck B"]))
    assert out["stuck"].verdict is Verdict.UNOBSERVABLE
    assert "round-robin" in out["stuck"].detail and "observable from T" in out["stuck"].detail


def test_missing_experiment_and_declared_reasons_are_not_checked(evidence):
    out = verdicts(evidence, claim("gone", "ordering", experiment="nope", runs=["a", "b"]),
                   claim("typo", "not_checked", reason="a typo in a proof"))
    assert out["gone"].verdict is Verdict.NOT_CHECKED and "not available" in out["gone"].detail
    assert out["typo"].verdict is Verdict.NOT_CHECKED and out["typo"].detail == "a typo in a proof"


def test_ratio_against_the_paper_value_and_its_rounding(evidence):
    out = verdicts(evidence,
                   claim("r3", "ratio", experiment="exp", run="slow", baseline="fast", expected=3.0),
                   claim("r5", "ratio", experiment="exp", run="slow", baseline="fast", expected=5.0),
                   claim("ub", "ratio", experiment="exp", run="slow", baseline="fast", expected=2.0,
                         side="upper_bound"))
    assert out["r3"].verdict is Verdict.REPRODUCED
    assert out["r5"].verdict is Verdict.CONTRADICTED and "outside" in out["r5"].detail
    assert out["ub"].verdict is Verdict.CONTRADICTED                        # 3 is above an upper bound of 2
    assert rounding(1.6) == pytest.approx(0.05) and rounding(74) == 0.5 and rounding(0.9977) == pytest.approx(5e-5)


def test_values_and_laws(evidence):
    out = verdicts(evidence, claim("pi", "value", measure="pi", expected=3.1416),
                   claim("pi_bad", "value", measure="pi", expected=3.2),
                   claim("twins", "same_law", experiment="exp", runs=["fast", "fast twin"], departure=0.5),
                   claim("not_twins", "same_law", experiment="exp", runs=["fast", "slow"], departure=0.5))
    assert out["pi"].verdict is Verdict.REPRODUCED and out["pi_bad"].verdict is Verdict.CONTRADICTED
    # KS does not tell 20 twins apart, but 20 repetitions are too few for power against a 50% shift
    assert out["twins"].verdict is Verdict.INCONCLUSIVE and out["twins"].cause.startswith("needs R >=")
    assert out["not_twins"].verdict is Verdict.CONTRADICTED


def test_flattening_and_argmin(evidence):
    out = verdicts(evidence, claim("flat", "flattening", experiment="exp", runs=["fast", "slow"]),
                   claim("stuck_flat", "flattening", experiment="exp", runs=["stuck A"]),
                   claim("best", "argmin", experiment="exp", runs=["fast", "slow"], best="fast", worst="slow"),
                   claim("stuck_worst", "argmin", experiment="exp", runs=["fast", "slow", "stuck A"], best="fast",
                         worst="stuck A"),
                   claim("wrong_best", "argmin", experiment="exp", runs=["fast", "slow"], best="slow"))
    assert out["flat"].verdict is Verdict.REPRODUCED
    assert out["stuck_flat"].verdict is Verdict.UNOBSERVABLE       # linear growth, but before learning
    assert out["best"].verdict is Verdict.REPRODUCED and out["wrong_best"].verdict is Verdict.CONTRADICTED
    assert out["stuck_worst"].verdict is Verdict.UNOBSERVABLE      # worst only because it has not learnt yet


def test_claims_tables_load_and_name_bad_keys(tmp_path):
    from dpbench.plugins import paper_folder, paper_packages
    assert len(paper_packages()) >= 5
    for paper in paper_packages():                            # every shipped table is valid
        claims = load_claims(paper_folder(paper) / "claims.toml")
        assert len({c.id for c in claims}) == len(claims) > 0
    bad = tmp_path / "bad.toml"
    bad.write_text('[[claim]]\nid = "x"\nwhere = "w"\nstatement = "s"\ntest = "ordering"\nruns = []\nfoo = 1\n')
    with pytest.raises(dpbench.InputError, match="claim 'x' .*unknown key.*foo"):
        load_claims(bad)


ORDERING = 'test = "ordering"\nruns = ["a", "b"]'
RATIO = 'test = "ratio"\nrun = "a"\nbaseline = "b"\nexpected = 1.0'


@pytest.mark.parametrize("kind, extra, message", [
    # an option's value must be one the test knows: not another test than the report names
    (ORDERING, 'method = "wilcoxon"', "(ordering): key 'method' must be one of welch, mannwhitney (got 'wilcoxon')"),
    (ORDERING, 'per_rep = "regrett"', "(ordering): key 'per_rep' must be one of regret, late_exponent "
                                      "(got 'regrett'); did you mean regret?"),
    (RATIO, 'side = "upper"', "(ratio): key 'side' must be one of upper_bound, two_sided (got 'upper'); "
                              "did you mean upper_bound?"),
    # numbers are numbers, named before any other complaint about them
    (RATIO, 'tolerance = "2"', ": key 'tolerance' must be a number (got the string '2')"),
    (RATIO, 'effect = 10\ntolerance = "2"', ": key 'tolerance' must be a number (got the string '2')"),
    (ORDERING, 'experimnt = "e"', "(ordering): unknown key(s) experimnt; allowed: runs, experiment, method, "
                                  "per_rep, horizon_range; did you mean experiment?"),
])
def test_a_claims_bad_value_is_named_when_the_table_loads(tmp_path, kind, extra, message):
    bad = tmp_path / "claims.toml"
    bad.write_text(f'[[claim]]\nid = "x"\nwhere = "w"\nstatement = "s"\n{kind}\n{extra}\n')
    with pytest.raises(dpbench.InputError) as err:
        load_claims(bad)
    assert str(err.value) == f"claims.toml claim 'x'{' ' if message[0] == '(' else ''}{message}"


def test_claims_render_and_write_json(evidence, tmp_path):
    from pathlib import Path

    from dpbench.reporting import front_page
    from dpbench.reporting.claims import write_json
    from dpbench.reporting.context import ReportContext
    from dpbench.reporting.markdown import Report
    report = Report(ReportContext("seed000", out_dir=tmp_path), "test")
    claims = [claim("right", "ordering", experiment="exp", runs=["fast", "slow"]),
              claim("typo", "not_checked", reason="typo")]
    results = evaluate(claims, evidence)
    front_page.details(report, results, Path("claims.toml"))
    text = "\n".join(front_page.render(report, results, Path("claims.toml")) + report.lines)
    assert "## The paper's claims (2: 1 reproduced, 1 not checked)" in text
    assert "Decision rule." in text and "paper: Other: m = 1" in text and "## Findings" in text
    assert "[right](#claim-right)" in text and '<a id="claim-right"></a>' in text
    write_json(tmp_path / "seed000_claims.json", results)
    rows = json.loads((tmp_path / "seed000_claims.json").read_text())
    assert rows[0]["category"] == "paper" and rows[0]["family_size"] == 1 and rows[0]["family"] == "paper: Other"
    assert rows[0]["can_contradict"] is True and rows[1]["can_contradict"] is False
    assert rows[0]["readings"][0]["reading"] == "as stated" and rows[0]["readings"][0]["verdict"] == "reproduced"
