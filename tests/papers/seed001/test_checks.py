"""Seed 001's own checks: the discard logic of Agents 2 and 4, Theorem 4's boundary band."""
import math
from types import SimpleNamespace

import pytest

from dpbench.papers.seed001.report import discard, kl_bernoulli
from dpbench.reporting.claims import Claim, Verdict, decide


def test_discarded_responses_change_nothing_but_the_regret():
    claim = Claim("x", "w", "s", "computed", {"measure": "discard"})
    out = discard(claim, SimpleNamespace(quick=True))
    assert decide(claim, out, 1e-4).verdict is Verdict.REPRODUCED
    assert out.statistic.count("identical") == 2 and "MISCOUNTED" not in out.statistic


def test_the_boundary_band_is_the_geometric_midpoint_to_a_kl_bound():
    r = kl_bernoulli(0.45, 0.55) / kl_bernoulli(0.01, 0.11)
    assert r == pytest.approx(0.2466, abs=1e-3)
    assert 1 / math.sqrt(r) == pytest.approx(2.01, abs=0.01)
