"""Seed 002's readings (paper.toml [[choice]]) and its exact rows: every reading of every claim
names runs that exist, the choices the referee named are declared, and the remarks' computations
hold as the paper states them."""
from pathlib import Path

import pytest

from dpbench.papers.seed002 import report as R
from dpbench.reporting.claims import Verdict, decide
from dpbench.reporting.context import ReportContext
from dpbench.reporting.paper import check_references, load_claims_of, load_paper, plan_of


@pytest.fixture(scope="module")
def paper():
    return load_paper("seed002")


def test_every_reading_names_runs_that_exist(paper):
    claims = load_claims_of(paper, Path("claims.toml"))
    variants = [v for c in claims for v in c.under(paper.choices)]
    ctx = ReportContext("seed002")
    check_references(variants, plan_of(paper, ctx, variants), Path("claims.toml"), ctx.resolve)
    by_id = {c.id: c for c in claims}
    # the claims the referee named are decided under their readings, not one choice of ours
    assert set(by_id["fig4d.int_worst"].readings) >= {"small_delta", "arm_order", "int_constants", "start_phase_runs"}
    assert set(by_id["fig6a.new_below_gauss"].readings) >= {"horizon"}
    assert set(by_id["fig7b.new_below_gauss"].readings) >= {"horizon"}
    assert set(by_id["fig4a.new_best"].readings) >= {"gauss_variance_fig4"}     # v = 1 is DP at Fig. 4's settings
    assert len(by_id["fig4d.int_worst"].under(paper.choices)) == 16
    assert not any(c.id.endswith((".T1e5", ".T1e6")) for c in claims)      # one row per claim, horizons as readings


def test_every_choice_prunes_with_a_reason(paper):
    for choice in paper.choices.values():
        assert choice.plausible and all(r.why for r in choice.readings)
    assert [r.id for r in paper.choices["horizon"].plausible] == ["T1e5", "T1e6"]
    assert paper.choices["gauss_variance"].reading("v1").plausible is False
    assert paper.choices["gauss_variance_fig4"].reading("v1").plausible


@pytest.mark.parametrize("measure", [R.new_matches_lower_bound, R.gauss_excess, R.int_excess,
                                     R.beta_start_constant, R.new_limits])
def test_the_remarks_computations_hold(measure):
    out = measure(None, None)
    assert out.comparisons and all(c.holds for c in out.comparisons), out.statistic
    claim = load_claims_of(load_paper("seed002"), Path("claims.toml"))[0]
    assert decide(claim, out, 1e-4).verdict is Verdict.REPRODUCED


def test_remark7_ratio_stays_within_theorem_16s_constant():
    """Negative control: with Theorem 16's 4/eps dropped to 1/eps the ratio leaves [1, 4] (the
    check can fail)."""
    ratios = [R._new_term(e, d, t) / 4.0 / R._lower_bound_term(e, d, t)
              for e in R.GRID_EPS for d in R.GRID_DELTA for t in R.GRID_T if e > 0 or d > 0]
    assert min(ratios) < 1.0
