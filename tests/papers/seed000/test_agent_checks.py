"""Seed 000's structural checks of the agents (spec 7 items 8, 9, 12, 18) and the margins its
claims take from the paper's own words."""
from types import SimpleNamespace

import numba
import numpy as np
import pytest

import dpbench
from dpbench.papers.seed000 import agent_checks
from dpbench.papers.seed000.report import SIMILAR, similar_factor
from dpbench.reporting.claims import Claim, Verdict, decide

MEANS = agent_checks.MEANS


def _verdict(name, args=None, **ev):
    claim = Claim("x", "w", "s", "computed", {"measure": name, "args": args or {}})
    out = getattr(agent_checks, name)(claim, SimpleNamespace(**{"quick": True, "runs": {}, **ev}))
    return decide(claim, out, 1e-4).verdict, out


def test_forced_exploration_is_replayed_from_the_agents_own_trace():
    trace = dpbench.simulate("ldp_ucb_l", "bernoulli", 3_000, 1, 1, means=MEANS, eps=1.0, trace=True).trace[0]
    forced, ucb, bad, margin = agent_checks.forced_steps(trace, len(MEANS))
    assert bad == 0 and forced > 0 and ucb > 0 and margin > 0
    # a trace that skips a forced pull breaks the rule, and the check says so
    broken = trace.copy()
    first = next(t for t in range(len(MEANS), len(trace)) if trace[t] == 0 and t > len(MEANS))
    broken[first] = 1
    assert agent_checks.forced_steps(broken, len(MEANS))[2] >= 1
    assert _verdict("forced_exploration", {"policy": "ldp_ucb_l"})[0] is Verdict.REPRODUCED


def test_numerics_and_reproducibility_hold():
    assert _verdict("numerics")[0] is Verdict.REPRODUCED
    verdict, out = _verdict("reproducible")
    assert verdict is Verdict.REPRODUCED and "identical" in out.statistic


def test_reproducibility_is_not_reproduced_where_a_half_cannot_be_tested(monkeypatch):
    """Found by a new user: under `taskset -c 0` numba has one thread, and the check's threads=2 run stopped
    the whole report after its experiments ("threads must be an integer in [1, 1]"); and a smoke build read
    "reproduced" while its runs had fewer than the paper's repetitions ("fewer here: ...")."""
    short = SimpleNamespace(experiment=SimpleNamespace(paper_reps=50), results={"UCB1": SimpleNamespace(reps=4)})
    verdict, out = _verdict("reproducible", runs={"seed000_fig1a": short})
    assert verdict is Verdict.INCONCLUSIVE and "identical" in out.statistic and "smoke build" in out.degenerate
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 1)
    claim = Claim("x", "w", "s", "computed", {"measure": "reproducible", "args": {}})
    out = agent_checks.reproducible(claim, SimpleNamespace(quick=False, runs={"seed000_fig1a": short}))
    assert decide(claim, out, 1e-4).verdict is Verdict.INCONCLUSIVE and "NUMBA_NUM_THREADS = 1" in out.degenerate
    with pytest.raises(agent_checks.NotChecked, match="numba one thread"):
        agent_checks.reproducible(claim, SimpleNamespace(quick=True, runs={"seed000_fig1a": short}))


def test_the_similar_readings_are_the_papers_own_numbers():
    assert similar_factor("close") == pytest.approx(1.7 / 1.6)
    assert similar_factor("not_far") == pytest.approx(441 / 210)
    assert set(SIMILAR) == {"close", "not_far"}


def test_a_construction_audit_catches_a_curator_above_its_claim():
    verdict, out = _verdict("policy_ldp", {"policies": ["ldp_ucb_b"], "policy_eps": 3.0, "control": True})
    assert verdict is Verdict.REPRODUCED and "violated" in out.statistic
    private, out = _verdict("policy_ldp", {"policies": ["ldp_ucb_b"]})
    assert private is not Verdict.CONTRADICTED and "no violation" in out.statistic
    assert np.all([c.reps for c in out.comparisons])
