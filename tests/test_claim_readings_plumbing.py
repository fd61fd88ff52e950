"""What a claim's readings reach besides the rule: an ordering of ``pairs`` is compared at the claim's
(read) horizon, every verdict has a mark in a figure, and a paper's own findings open its front page."""
from types import SimpleNamespace

import numpy as np
import pytest

import dpbench
from dpbench.engine.result import log_checkpoints
from dpbench.reporting import front_page, measures
from dpbench.reporting.claims import Claim, Evidence, Verdict, evaluate
from dpbench.reporting.paper_figures import SYMBOL

MEANS = [0.9, 0.5]


def _result(label, level, reps=30, seed=0):
    cps = log_checkpoints(10 ** 4)
    gen = np.random.default_rng(seed)
    regret = level * np.log1p(cps)[None, :] * (1 + 0.01 * gen.standard_normal((reps, 1)))
    return dpbench.SimulationResult(policy="ucb1", label=label, environment="bernoulli", params={},
                                    env_params={"means": MEANS}, horizon=10 ** 4, seed=seed, first_rep=0,
                                    checkpoints=cps, regret=regret, pulls=np.zeros((reps, 2), dtype=np.int64),
                                    means=np.asarray(MEANS))


def test_pairs_are_compared_at_the_claims_horizon():
    low, high = _result("low", 1.0), _result("high", 2.0, seed=1)
    run = SimpleNamespace(results={"low": low, "high": high}, runs=[], experiment=SimpleNamespace(paper_horizon=None))
    ev = Evidence({"exp": run})
    base = {"measure": "pairs", "args": {"experiment": "exp", "pairs": [["low", "high"]]}}
    at = {h: measures.measure_pairs(Claim("c", "w", "s", "computed", base, horizon=h), ev) for h in (1e3, None)}
    assert at[1e3].horizon == 1000 and at[None].horizon == 10 ** 4
    for h, t in ((1e3, 1000), (None, 10 ** 4)):
        shown = float(at[h].statistic.split()[1])
        assert shown == pytest.approx(low.regret_at(t).mean(), rel=1e-3)


def test_a_claim_read_at_t_reads_the_reports_run_to_t():
    long = SimpleNamespace(results={"low": _result("low", 1.0), "high": _result("high", 2.0, seed=1)}, runs=[],
                           experiment=SimpleNamespace(name="exp", paper_horizon=None), config={"horizon": 10 ** 4})
    short = SimpleNamespace(results={"low": _result("low", 5.0), "high": _result("high", 9.0, seed=1)}, runs=[],
                            experiment=long.experiment, config={"horizon": 1000})
    ev = Evidence({"exp": long, "exp_T1e3": short})
    assert ev.run_at("exp", 1000) is short and ev.run_at("exp", None) is long and ev.run_at("exp", 500) is long
    base = {"measure": "pairs", "args": {"experiment": "exp", "pairs": [["low", "high"]]}}
    out = measures.measure_pairs(Claim("c", "w", "s", "computed", base, horizon=1000), ev)
    assert float(out.statistic.split()[1]) == pytest.approx(short.results["low"].regret_at(1000).mean(), rel=1e-3)


def test_every_verdict_has_a_mark_in_the_figures():
    assert set(SYMBOL) == set(Verdict) and len(set(SYMBOL.values())) == len(Verdict)


def test_a_papers_findings_open_its_front_page():
    low, high = _result("low", 1.0), _result("high", 2.0, seed=1)
    run = SimpleNamespace(results={"low": low, "high": high}, runs=[], experiment=SimpleNamespace(paper_horizon=None))
    ordering = Claim("c", "Fig. 1", "low below high", "ordering", {"experiment": "exp", "runs": ["low", "high"]})
    rows = evaluate([ordering], Evidence({"exp": run}))
    lines = front_page.findings(rows, extra=["**Observable:** computed from the runs."])
    assert lines[0].startswith("- **Held:**") and "- **Observable:** computed from the runs." in lines
    assert len(front_page.findings(rows, extra=["x"] * 20)) == front_page.MAX_FINDINGS
