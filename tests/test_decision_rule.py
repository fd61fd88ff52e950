"""The decision rule of the claims tables, on synthetic evidence whose truth is known.

A true ordering at high power is *reproduced*; no difference is *inconclusive*, never
*contradicted*; a reversed ordering is *contradicted*; zero-variance cells give no zero-width
interval and no decisive verdict; an interval straddling the band's edge is *inconclusive*; a
run at round-robin is *unobservable* whichever way its comparison falls (except at the paper's
own horizon); a law claim is reproduced only with a stated power; a fit failing its own
lack-of-fit test, a limit fitted outside its range and a saturated run decide nothing; the
claims loader refuses a tolerance as wide as the claim's effect.  Every case is a synthetic
sample or regret curve: exact, fast, no simulation.
"""
import math
from types import SimpleNamespace

import numpy as np
import pytest

import dpbench
from dpbench.engine.result import log_checkpoints
from dpbench.reporting.claims import (
    Check,
    Choice,
    Claim,
    Evidence,
    Exact,
    Hypothesis,
    Outcome,
    Reading,
    Unobservable,
    Verdict,
    decide,
    evaluate,
    load_claims,
)
from dpbench.reporting.claims.kinds import ks_power
from verify.inference import Estimate, difference_estimate, power_law

MEANS = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5]
T = 100_000


def curve(label, *, slope=100.0, reps=50, seed=0, noise=0.05, round_robin=False, eps=2.0, policy="ldp_ucb_b"):
    """A SimulationResult whose regret is slope * ln t (times a per-repetition factor), or uniform
    play's t x mean gap (round-robin)."""
    cps = log_checkpoints(T)
    gen = np.random.default_rng(seed)
    if round_robin:
        regret = (cps * (max(MEANS) - np.asarray(MEANS)).mean())[None, :] * (1 + 0.002 * gen.standard_normal((reps, 1)))
    else:
        regret = slope * np.log(cps)[None, :] * (1 + noise * gen.standard_normal((reps, 1)))
    return dpbench.SimulationResult(
        policy=policy, label=label, environment="bernoulli", params={"eps": eps}, env_params={"means": MEANS},
        horizon=T, seed=seed, first_rep=0, checkpoints=cps, regret=regret,
        pulls=np.zeros((reps, len(MEANS)), dtype=np.int64), means=np.asarray(MEANS))


def run_of(*results, paper_horizon=None):
    return SimpleNamespace(results={r.label: r for r in results}, runs=[],
                           experiment=SimpleNamespace(paper_horizon=paper_horizon))


def claim(cid, test, **params):
    horizon = params.pop("horizon", None)
    return Claim(cid, "synthetic", f"synthetic {test}", test, params, horizon=horizon)


def one(outcome, level=1e-4):
    return decide(claim("x", "computed", measure="m"), outcome, level)


def verdict_of(ev, c):
    return evaluate([c], ev)[0]


# ------------------------------------------------------------------ orderings
def test_a_true_ordering_at_high_power_is_reproduced_and_a_reversed_one_contradicted():
    ev = Evidence({"exp": run_of(curve("low", slope=100.0, seed=1), curve("high", slope=130.0, seed=2))})
    right = verdict_of(ev, claim("right", "ordering", experiment="exp", runs=["low", "high"]))
    wrong = verdict_of(ev, claim("wrong", "ordering", experiment="exp", runs=["high", "low"]))
    assert right.verdict is Verdict.REPRODUCED
    assert wrong.verdict is Verdict.CONTRADICTED and "outside" in wrong.detail


def test_no_difference_is_inconclusive_never_contradicted():
    """Fifty independent samples with no difference at all: never contradicted, never
    reproduced; the cause says what would decide it."""
    seen = set()
    for seed in range(50):
        gen = np.random.default_rng(seed)
        a, b = gen.normal(100, 10, 30), gen.normal(100, 10, 30)
        r = one(Outcome("", comparisons=(Check(difference_estimate(a, b), high=0.0, label="a < b"),)))
        seen.add(r.verdict)
    assert seen == {Verdict.INCONCLUSIVE}
    gen = np.random.default_rng(0)
    small = one(Outcome("", comparisons=(Check(difference_estimate(gen.normal(99, 10, 30),
                                                                     gen.normal(101, 10, 30)), high=0.0),)))
    assert small.verdict is Verdict.INCONCLUSIVE and "needs R >=" in small.cause


def test_a_p_value_that_does_not_reject_is_inconclusive_and_the_reverse_test_contradicts():
    assert one(Outcome("", comparisons=(Hypothesis(0.2, True, "a < b", p_against=0.8),))).verdict \
        is Verdict.INCONCLUSIVE
    assert one(Outcome("", comparisons=(Hypothesis(1 - 1e-9, True, "a < b", p_against=1e-9),))).verdict \
        is Verdict.CONTRADICTED
    assert one(Outcome("", comparisons=(Hypothesis(1e-9, True, "a < b", p_against=1 - 1e-9),))).verdict \
        is Verdict.REPRODUCED


def test_the_family_size_sets_every_comparisons_level():
    """A comparison decided alone is not decided inside a family of a thousand: the level is
    alpha / m over every comparison of the report, intervals and p-values alike."""
    gen = np.random.default_rng(3)
    a, b = gen.normal(100, 10, 40), gen.normal(108, 10, 40)
    ev = Evidence()
    ev.measure("ab", lambda c, e: Outcome("", comparisons=(Check(difference_estimate(a, b), high=0.0),)))
    ev.measure("filler", lambda c, e: Outcome("", comparisons=(Hypothesis(0.5, True, "filler"),) * 100))
    target = claim("ab", "computed", measure="ab")
    alone = evaluate([target], ev)[0]
    assert alone.verdict is Verdict.REPRODUCED and alone.family == 1
    fillers = [claim(f"f{i}", "computed", measure="filler", args={"i": i}) for i in range(10)]
    crowded = evaluate([target, *fillers], ev)[0]
    assert crowded.family == 1001 and crowded.verdict is Verdict.INCONCLUSIVE


# ------------------------------------------------------------------ degenerate statistics
def test_zero_variance_cells_give_no_zero_width_interval_and_no_decisive_verdict():
    same = np.full(20, 2e4)
    ordering = one(Outcome("", comparisons=(Check(difference_estimate(same, same + 10.0), high=0.0),)))
    assert ordering.verdict is Verdict.INCONCLUSIVE and "zero spread" in ordering.detail
    ratio = one(Outcome("", comparisons=(Check(Estimate(1.0, 0.0, 19, 20), 0.9, 1.1),)))
    assert ratio.verdict is Verdict.INCONCLUSIVE
    # a power law through deterministic cells: no weight is invented, the interval comes from the
    # residual scatter (never zero width); with no scatter to speak of the fit says it is degenerate
    xs = [1.0, 2.0, 4.0, 8.0]
    gen = np.random.default_rng(0)
    curved = [np.full(20, 10.0), 20 * (1 + 0.02 * gen.standard_normal(20)), np.full(20, 70.0),
              np.full(20, 90.0)]
    fit = power_law(xs, curved, level=0.99)
    assert fit.ci[1] - fit.ci[0] > 0.1 and fit.diagnostics["zero_variance"] == [1.0, 4.0, 8.0]
    exact = power_law(xs, [np.full(10, 3.0 * x ** 2) for x in xs], level=0.99)
    assert exact.diagnostics["degenerate"] and "zero-width" in exact.diagnostics["degenerate"]


def test_a_power_law_with_one_deterministic_cell_fits_the_others_honestly():
    """One cell without spread among noisy cells of a true x^-2 law: the interval holds the truth
    and is not degenerate (a 1e-300 variance floor would force the line through that cell and
    fail the lack-of-fit test)."""
    gen = np.random.default_rng(4)
    xs = [0.5, 1.0, 2.0, 4.0]
    samples = [50 / x ** 2 * (1 + 0.05 * gen.standard_normal(30)) for x in xs]
    samples[0] = np.full(30, 50 / 0.5 ** 2 * 1.03)
    fit = power_law(xs, samples, level=0.99)
    assert fit.diagnostics["degenerate"] == "" and fit.ci[0] < -2.0 < fit.ci[1]
    assert fit.ci[1] - fit.ci[0] > 1e-3


def test_a_fit_failing_its_lack_of_fit_test_makes_the_row_inconclusive():
    """Regret that is not a power law of eps (a kink) but whose slope interval would meet the
    prediction: inconclusive, never reproduced."""
    xs = [0.25, 0.5, 1.0, 2.0, 4.0]
    law = [400.0, 100.0, 25.0, 25.0, 25.0 / 16]
    runs = [curve(f"eps {x:g}", slope=v, seed=10 + i, noise=0.01, eps=x) for i, (x, v) in enumerate(zip(xs, law))]
    ev = Evidence({"exp": run_of(*runs)})
    c = claim("kink", "exponent", experiment="exp", runs=[r.label for r in runs], values=xs, predicted=-1.5,
              tolerance=0.9, effect=1.0)
    r = verdict_of(ev, c)
    assert r.verdict is Verdict.INCONCLUSIVE and "claimed form is rejected" in r.detail
    assert "lack of fit" in r.detail and "reaches the band" in r.detail


def test_a_claimed_form_rejected_far_from_its_prediction_leans_against_but_decides_nothing():
    """The same kink against a prediction its misfit-widened interval excludes: the claimed law fails
    its lack-of-fit test, so its slope is no measurement to decide on (seed 002's Fig. 6(b) rate was
    'contradicted' on such a fit); the row says the law does not fit and leans against the claim."""
    xs = [0.25, 0.5, 1.0, 2.0, 4.0]
    law = [400.0, 100.0, 25.0, 25.0, 25.0 / 16]
    runs = [curve(f"eps {x:g}", slope=v, seed=10 + i, noise=0.01, eps=x) for i, (x, v) in enumerate(zip(xs, law))]
    ev = Evidence({"exp": run_of(*runs)})
    c = claim("kink", "exponent", experiment="exp", runs=[r.label for r in runs], values=xs, predicted=-6.0,
              tolerance=0.5, effect=1.0)
    r = verdict_of(ev, c)
    assert r.verdict is Verdict.INCONCLUSIVE and "claimed form is rejected" in r.detail, r.detail
    assert "outside, but the claimed law does not fit" in r.detail and "against the claim" in r.cause, r.cause
    assert r.cause.startswith("the claimed law fails its lack-of-fit test"), r.cause


def test_exact_values_are_decided_as_computed_and_stay_out_of_the_family():
    exact = one(Outcome("", comparisons=(Check(Estimate.exact_value(math.pi), 3.14155, 3.14165),
                                         Exact(True, "schedule"))))
    assert exact.verdict is Verdict.REPRODUCED
    wrong = one(Outcome("", comparisons=(Check(Estimate.exact_value(0.1252), 0.2025, 0.2035),)))
    assert wrong.verdict is Verdict.CONTRADICTED
    ev = Evidence()
    ev.measure("pi", lambda c, e: math.pi)
    assert evaluate([claim("pi", "value", measure="pi", expected=3.1416)], ev)[0].family == 0


def test_no_test_may_type_a_decided_verdict():
    with pytest.raises(ValueError, match="may not set the verdict"):
        Outcome("x", Verdict.REPRODUCED)


# ------------------------------------------------------------------ interval inclusion
def test_an_interval_straddling_the_band_edge_is_inconclusive():
    inside = one(Outcome("", comparisons=(Check(Estimate(1.0, 0.01, 49, 50), 0.9, 1.1),)))
    straddle = one(Outcome("", comparisons=(Check(Estimate(0.88, 0.02, 49, 50), 0.9, 1.1),)))
    outside = one(Outcome("", comparisons=(Check(Estimate(0.5, 0.02, 49, 50), 0.9, 1.1),)))
    assert inside.verdict is Verdict.REPRODUCED
    assert straddle.verdict is Verdict.INCONCLUSIVE and "straddles" in straddle.detail
    assert outside.verdict is Verdict.CONTRADICTED


def test_a_one_sided_claim_is_reproduced_only_below_its_bound():
    ev = Evidence({"exp": run_of(curve("a", slope=100.0, seed=1), curve("b", slope=100.0, seed=2))})
    r = verdict_of(ev, claim("ub", "ratio", experiment="exp", run="a", baseline="b", expected=1.01, side="upper_bound"))
    assert r.verdict is Verdict.INCONCLUSIVE                  # an interval around 1 is not "<= 1"
    far = verdict_of(ev, claim("ub2", "ratio", experiment="exp", run="a", baseline="b", expected=2.0,
                               side="upper_bound"))
    assert far.verdict is Verdict.REPRODUCED


# ------------------------------------------------------------------ observability
def test_a_run_at_round_robin_is_unobservable_both_ways():
    stuck = curve("stuck", round_robin=True, seed=4, eps=0.01)
    fast = curve("fast", slope=100.0, seed=1)
    ev = Evidence({"exp": run_of(stuck, fast)})
    passing = verdict_of(ev, claim("p", "ordering", experiment="exp", runs=["fast", "stuck"]))
    failing = verdict_of(ev, claim("f", "ordering", experiment="exp", runs=["stuck", "fast"]))
    assert passing.verdict is Verdict.UNOBSERVABLE and failing.verdict is Verdict.UNOBSERVABLE
    assert "round-robin" in passing.detail and passing.cause.startswith("needs T >=")
    ratio = verdict_of(ev, claim("r", "ratio", experiment="exp", run="stuck", baseline="fast", expected=1.0,
                                 tolerance=0.1, effect=0.5))
    assert ratio.verdict is Verdict.UNOBSERVABLE


def test_at_the_papers_own_horizon_a_round_robin_comparison_stands():
    stuck = curve("stuck", round_robin=True, seed=4, eps=0.01)
    fast = curve("fast", slope=100.0, seed=1)
    ev = Evidence({"exp": run_of(stuck, fast, paper_horizon=T)})
    r = verdict_of(ev, claim("p", "ordering", experiment="exp", runs=["fast", "stuck"]))
    assert r.verdict is Verdict.REPRODUCED and "the horizon the claim is about" in r.detail


def test_two_runs_tied_in_one_data_independent_phase_are_not_decided_even_at_the_papers_horizon():
    """Both runs still in the same data-independent phase (uniform play on one instance) tie by
    construction: at the horizon the claim is about, a strict ordering of them is not contradicted
    (the paper's figure could show no ordering either), it is unobservable with its horizon; two
    fixed schedules that differ are still decided exactly there."""
    from dpbench.reporting.claims import Outcome, Unobservable
    from dpbench.reporting.claims.kinds import order_check
    from dpbench.reporting.claims.rule import decide
    mark = Unobservable("still round-robin at T = 1e5: A and B in their first epochs", 1e9)
    tie = order_check(np.full(5, 3e4), np.full(5, 3e4), "A < B", mark, fixed=True)
    r = decide(claim("tie", "ordering"), Outcome("A: 3e4; B: 3e4", comparisons=(tie,), horizon=10**5), 1e-3,
               at_horizon=True)
    assert r.verdict is Verdict.UNOBSERVABLE and "tie by construction" in r.detail, r.detail
    apart = order_check(np.full(5, 2e4), np.full(5, 3e4), "A < B", mark, fixed=True)
    r = decide(claim("apart", "ordering"), Outcome("A: 2e4; B: 3e4", comparisons=(apart,), horizon=10**5), 1e-3,
               at_horizon=True)
    assert r.verdict is Verdict.REPRODUCED and "the horizon the claim is about" in r.detail, r.detail


def test_an_unobservable_comparison_does_not_hide_a_contradiction_elsewhere():
    blind = Unobservable("still round-robin", 1e7)
    gen = np.random.default_rng(1)
    rows = one(Outcome("", comparisons=(Check(difference_estimate(gen.normal(0, 1, 50), gen.normal(0, 1, 50)),
                                              high=0.0, unobservable=blind),
                                        Check(Estimate(5.0, 0.1, 49, 50), high=0.0))))
    assert rows.verdict is Verdict.CONTRADICTED


# ------------------------------------------------------------------ laws
def test_a_law_claim_needs_a_stated_power_against_a_stated_departure():
    no_power = one(Outcome("", comparisons=(Hypothesis(0.6, False, "KS"),)))
    assert no_power.verdict is Verdict.INCONCLUSIVE and "absence of evidence" in no_power.detail
    strong = one(Outcome("", comparisons=(Hypothesis(0.6, False, "KS", power=lambda level, r: 0.99,
                                                     departure="a 10% shift", reps=50),)))
    assert strong.verdict is Verdict.REPRODUCED
    weak = one(Outcome("", comparisons=(Hypothesis(0.6, False, "KS", power=lambda level, r: min(1.0, r / 400),
                                                   departure="a 10% shift", reps=50),)))
    assert weak.verdict is Verdict.INCONCLUSIVE and "needs R >=" in weak.cause
    rejected = one(Outcome("", comparisons=(Hypothesis(1e-12, False, "KS"),)))
    assert rejected.verdict is Verdict.CONTRADICTED
    short_of = one(Outcome("", comparisons=(Hypothesis(0.6, False, "KS", power=lambda level, r: 0.8,
                                                       departure="a 10% shift", reps=50),)))
    assert short_of.verdict is Verdict.INCONCLUSIVE              # power 0.8 < 0.9: not reproduced


def test_same_law_on_runs():
    twins = Evidence({"exp": run_of(curve("a", seed=1, reps=400, noise=0.01), curve("b", seed=2, reps=400, noise=0.01),
                                    curve("c", slope=130.0, seed=3, reps=400, noise=0.01))})
    same = verdict_of(twins, claim("s", "same_law", experiment="exp", runs=["a", "b"], departure=0.2))
    blind = verdict_of(twins, claim("s", "same_law", experiment="exp", runs=["a", "b"]))
    other = verdict_of(twins, claim("o", "same_law", experiment="exp", runs=["a", "c"], departure=0.2))
    assert same.verdict is Verdict.REPRODUCED and blind.verdict is Verdict.INCONCLUSIVE
    assert other.verdict is Verdict.CONTRADICTED
    gen = np.random.default_rng(0)
    power = ks_power(gen.normal(0, 1, 50), gen.normal(0, 1, 50), 2.0)
    assert power(1e-4, 50) < power(1e-4, 400) and power(1e-4, 10 ** 4) > 0.99


# ------------------------------------------------------------------ ranges, filters, tolerances
def test_a_limit_is_fitted_only_with_points_in_its_range():
    xs = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0]
    runs = [curve(f"eps {x:g}", slope=1.0 / x ** 2 if x <= 0.2 else 1.0 / (0.2 * x), seed=20 + i, noise=0.02, eps=x)
            for i, x in enumerate(xs)]
    ev = Evidence({"exp": run_of(*runs)})
    base = dict(experiment="exp", runs=[r.label for r in runs], values=xs, predicted=-2.0, tolerance=0.2, effect=0.5)
    limited = verdict_of(ev, claim("lim", "exponent", limit_range=[0, 0.2], **base))
    assert limited.verdict is Verdict.REPRODUCED and "limit's range" in limited.outcome.statistic
    assert "0.5, 1, 2" in limited.outcome.statistic              # listed as outside the range
    few = verdict_of(ev, claim("few", "exponent", limit_range=[0, 0.1], **base))
    assert few.verdict is Verdict.NOT_CHECKED


def test_saturated_runs_are_left_out_of_an_exponent():
    runs = [curve(f"eps {x:g}", slope=100.0 / x, seed=30 + i, eps=x) for i, x in enumerate((0.5, 1.0, 2.0, 4.0))]
    runs.append(curve("eps 0.01", round_robin=True, seed=40, eps=0.01))
    ev = Evidence({"exp": run_of(*runs)})
    r = verdict_of(ev, claim("e", "exponent", experiment="exp", runs=[x.label for x in runs],
                             values=[0.5, 1.0, 2.0, 4.0, 0.01], predicted=-1.0, tolerance=0.1, effect=0.5))
    assert "0.01 (saturated" in r.outcome.statistic and r.verdict is Verdict.REPRODUCED


def test_the_loader_refuses_a_tolerance_as_wide_as_the_effect(tmp_path):
    head = '[[claim]]\nid = "flat"\nwhere = "w"\nstatement = "s"\ntest = "ratio"\nrun = "a"\nbaseline = "b"\n'
    wide = tmp_path / "wide.toml"
    wide.write_text(head + "expected = 1.0\ntolerance = 0.3\neffect = 0.3\n")
    with pytest.raises(dpbench.InputError, match=r"wide.toml claim 'flat'.*'tolerance'.*not smaller than"):
        load_claims(wide)
    bare = tmp_path / "bare.toml"
    bare.write_text(head + "expected = 1.0\ntolerance = 0.1\n")
    with pytest.raises(dpbench.InputError, match="states no 'effect'"):
        load_claims(bare)
    nested = tmp_path / "nested.toml"
    nested.write_text('[[claim]]\nid = "n"\nwhere = "w"\nstatement = "s"\ntest = "computed"\nmeasure = "m"\n'
                      'effect = 0.2\nargs = { tolerance = 0.3 }\n')
    with pytest.raises(dpbench.InputError, match="'args.tolerance'"):
        load_claims(nested)
    good = tmp_path / "good.toml"
    good.write_text(head + 'expected = 1.0\ntolerance = 0.1\neffect = 0.5\ncategory = "spec"\n')
    assert load_claims(good)[0].category == "spec"
    bad_cat = tmp_path / "cat.toml"
    bad_cat.write_text(head + 'expected = 1.0\ncategory = "gossip"\n')
    with pytest.raises(dpbench.InputError, match="category"):
        load_claims(bad_cat)


# ------------------------------------------------------------------ bounds
def test_a_bound_check_is_reproduced_only_clear_of_the_bound():
    """Mean regret at the bound itself (at T) is inconclusive, well below it reproduced, well
    above it contradicted (LDP-UCB-B against Theorem 6, anytime: every checkpoint)."""
    from verify import bounds
    b = bounds.get("seed000.thm6")
    probe = curve("probe", slope=1.0)
    ctx = bounds.context(probe)
    at_t, slope = b.evaluate(ctx).value, b.evaluate(ctx).slope
    outcomes = {}
    for name, c in (("at", at_t / math.log(T)), ("below", 0.5 * slope), ("above", 2.0 * slope)):
        ev = Evidence({"exp": run_of(curve(name, slope=c, seed=3, noise=0.02))})
        outcomes[name] = verdict_of(ev, claim(name, "bound", bound="seed000.thm6"))
    assert outcomes["at"].verdict is Verdict.INCONCLUSIVE
    assert outcomes["below"].verdict is Verdict.REPRODUCED
    assert outcomes["above"].verdict is Verdict.CONTRADICTED


def test_a_slope_bound_is_not_decided_on_a_run_without_spread(monkeypatch):
    """An asymptotic ln-T coefficient checked on a run whose repetitions agree to rounding has no
    standard error, and one still in a data-independent phase (DP-FTPL-Beta's start phase at
    T = 1e5) has not begun the regime the coefficient describes: neither contradicts the bound,
    and each says why, where the same slope with spread does contradict it."""
    from verify import bounds
    from verify.bounds.registry import ASYMPTOTIC, UPPER, Bound
    slope_only = Bound(key="test.slope_only", seed="test", theorem="t", source="s", side=UPPER, form=ASYMPTOTIC,
                       statement="ln T coefficient <= 10", algorithms=("ldp_ucb_b",), privacy="none",
                       slope=lambda ctx: 10.0)
    monkeypatch.setitem(bounds.registry.BOUNDS, slope_only.key, slope_only)
    spread = verdict_of(Evidence({"exp": run_of(curve("spread", slope=100.0, seed=3, noise=0.05))}),
                        claim("spread", "bound", bound=slope_only.key))
    flat = verdict_of(Evidence({"exp": run_of(curve("flat", slope=100.0, seed=3, noise=1e-11))}),   # rounding
                      claim("flat", "bound", bound=slope_only.key))
    assert spread.verdict is Verdict.CONTRADICTED
    assert flat.verdict is Verdict.INCONCLUSIVE and "zero spread" in flat.detail, flat.detail


def test_a_lower_bound_below_the_sum_of_the_gaps_is_vacuous():
    from verify.bounds.registry import EXPLICIT, LOWER, Bound
    tiny = Bound(key="test.tiny", seed="test", theorem="t", source="s", side=LOWER, form=EXPLICIT,
                 statement="R(T) >= 0.4", algorithms=("ucb1",), privacy="none", value=lambda ctx: 0.4)
    assert tiny.evaluate({"gaps": [0.0, 0.5, 0.5], "T": 1000}).vacuous
    big = Bound(key="test.big", seed="test", theorem="t", source="s", side=LOWER, form=EXPLICIT,
                statement="R(T) >= 40", algorithms=("ucb1",), privacy="none", value=lambda ctx: 40.0)
    assert not big.evaluate({"gaps": [0.0, 0.5, 0.5], "T": 1000}).vacuous


def test_the_guide_states_the_rule_the_reports_use():
    """The reports guide's paragraph is the rule every report prints (dpbench.reporting.claims.RULE)."""
    from pathlib import Path

    from dpbench.reporting.claims import RULE
    guide = Path(__file__).resolve().parents[1] / "dpbench" / "guides" / "reports.md"
    assert " ".join(RULE.split()) in " ".join(guide.read_text().split())


# ------------------------------------------------------------------ readings
def _choice(*readings, cid="horizon"):
    return {cid: Choice(cid, "which T", "synthetic", tuple(Reading(cid, rid, rid, "why", ok) for rid, ok in readings))}


def _ratio_by_horizon():
    """Two runs whose ratio is 1.6 up to T/10 and 2.0 at T: a claim 'rho = 1.6' true at one
    horizon and false at the other."""
    cps = log_checkpoints(T)
    gen = np.random.default_rng(5)
    base = 100.0 * np.log(cps)[None, :] * (1 + 0.01 * gen.standard_normal((50, 1)))
    factor = np.where(cps >= T, 2.0, 1.6)[None, :] * (1 + 0.01 * gen.standard_normal((50, 1)))
    runs = []
    for label, regret in (("base", base), ("priv", base * factor)):
        runs.append(dpbench.SimulationResult(
            policy="ldp_ucb_b", label=label, environment="bernoulli", params={"eps": 2.0},
            env_params={"means": MEANS}, horizon=T, seed=0, first_rep=0, checkpoints=cps, regret=regret,
            pulls=np.zeros((50, len(MEANS)), dtype=np.int64), means=np.asarray(MEANS)))
    return Evidence({"exp": run_of(*runs)})


def test_a_claim_true_under_one_reading_and_false_under_another_depends_on_the_reading():
    ev = _ratio_by_horizon()
    choices = _choice(("T1e4", True), ("T1e5", True))
    c = Claim("rho", "Fig. 1", "rho = 1.6", "ratio", {"experiment": "exp", "run": "priv", "baseline": "base",
                                                      "expected": 1.6},
              readings={"horizon": {"T1e4": {"horizon": 1e4}, "T1e5": {"horizon": 1e5}}})
    (r,) = evaluate([c], ev, choices=choices)
    assert [x.verdict for x in r.readings] == [Verdict.REPRODUCED, Verdict.CONTRADICTED]
    assert r.verdict is Verdict.DEPENDS
    assert r.cause == "reproduced under horizon=T1e4; contradicted under horizon=T1e5"
    # every reading agreeing decides the row; a pruned reading is listed, not decided
    agree = _choice(("T1e4", True), ("T1e5", False))
    (only,) = evaluate([c], ev, choices=agree)
    assert only.verdict is Verdict.REPRODUCED and len(only.readings) == 1 and only.pruned[0].id == "T1e5"
    both_false = Claim("rho2", "Fig. 1", "rho = 1.2", "ratio", {"experiment": "exp", "run": "priv",
                                                                "baseline": "base", "expected": 1.2},
                       readings=c.readings)
    (wrong,) = evaluate([both_false], ev, choices=choices)
    assert wrong.verdict is Verdict.CONTRADICTED and len(wrong.readings) == 2


def test_readings_combine_by_the_rule():
    from dpbench.reporting.claims import ReadingResult, combine
    base = claim("x", "computed", measure="m")

    def row(*verdicts):
        return combine(base, [ReadingResult(base, Outcome("s"), v, "d") for v in verdicts], alpha=0.01).verdict
    assert row(Verdict.REPRODUCED, Verdict.REPRODUCED) is Verdict.REPRODUCED
    assert row(Verdict.CONTRADICTED, Verdict.CONTRADICTED) is Verdict.CONTRADICTED
    assert row(Verdict.REPRODUCED, Verdict.INCONCLUSIVE) is Verdict.DEPENDS
    assert row(Verdict.CONTRADICTED, Verdict.UNOBSERVABLE) is Verdict.DEPENDS
    assert row(Verdict.INCONCLUSIVE, Verdict.UNOBSERVABLE) is Verdict.INCONCLUSIVE


def test_the_loader_reads_choices_and_refuses_incomplete_readings(tmp_path):
    (tmp_path / "paper.toml").write_text(
        '[[choice]]\nid = "horizon"\nquestion = "q"\nsource = "s"\n'
        '[[choice.reading]]\nid = "a"\nwhy = "w"\n[[choice.reading]]\nid = "b"\nwhy = "w"\n'
        '[[choice.reading]]\nid = "c"\nwhy = "nobody reads it so"\nplausible = false\n')
    head = ('[[claim]]\nid = "r"\nwhere = "w"\nstatement = "s"\ntest = "ratio"\nrun = "a"\nbaseline = "b"\n'
            'expected = 1.0\n')
    table = tmp_path / "claims.toml"
    table.write_text(head + '[claim.readings.horizon]\na = { horizon = 1e4 }\nb = {}\n')
    (c,) = load_claims(table)
    assert [v.reading_key for v in c.under(dict(__import__("dpbench").reporting.claims.load_choices(
        tmp_path / "paper.toml")))] == ["horizon=a", "horizon=b"]
    table.write_text(head + '[claim.readings.horizon]\na = { horizon = 1e4 }\n')
    with pytest.raises(dpbench.InputError, match="no entry for the plausible reading"):
        load_claims(table)
    table.write_text(head + '[claim.readings.horizn]\na = {}\nb = {}\n')
    with pytest.raises(dpbench.InputError, match="did you mean 'horizon'"):
        load_claims(table)
    table.write_text(head + '[claim.readings.horizon]\na = { basline = "x" }\nb = {}\n')
    with pytest.raises(dpbench.InputError, match="not keys of a ratio claim"):
        load_claims(table)


def test_replace_readings_of_two_choices_compose(tmp_path):
    """Two choices that each change part of the same run names (a panel's delta, a baseline's
    label) compose by substitution, where overrides of one key would not: the product of their
    readings names every combination's runs."""
    (tmp_path / "paper.toml").write_text(
        '[[choice]]\nid = "delta"\nquestion = "q"\nsource = "s"\n'
        '[[choice.reading]]\nid = "e10"\nwhy = "w"\n[[choice.reading]]\nid = "e19"\nwhy = "w"\n'
        '[[choice]]\nid = "baseline"\nquestion = "q"\nsource = "s"\n'
        '[[choice.reading]]\nid = "scale"\nwhy = "w"\n[[choice.reading]]\nid = "sd"\nwhy = "w"\n')
    table = tmp_path / "claims.toml"
    table.write_text('[[claim]]\nid = "r"\nwhere = "w"\nstatement = "s"\ntest = "argmin"\nexperiment = "x"\n'
                     'runs = ["(b) e^-10 / New", "(b) e^-10 / INT"]\nbest = "(b) e^-10 / New"\n'
                     '[claim.readings.delta]\ne10 = {}\ne19 = { replace = { "e^-10" = "e^-19" } }\n'
                     '[claim.readings.baseline]\nscale = {}\nsd = { replace = { "/ INT" = "/ INT (sd)" } }\n')
    (c,) = load_claims(table)
    got = {v.reading_key: (v.params["runs"], v.params["best"]) for v in c.under(
        __import__("dpbench").reporting.claims.load_choices(tmp_path / "paper.toml"))}
    assert got["delta=e19, baseline=sd"] == (["(b) e^-19 / New", "(b) e^-19 / INT (sd)"], "(b) e^-19 / New")
    assert got["delta=e10, baseline=scale"] == (["(b) e^-10 / New", "(b) e^-10 / INT"], "(b) e^-10 / New")
    table.write_text(table.read_text().replace('{ "/ INT" = "/ INT (sd)" }', '{ "/ INT" = 3 }'))
    with pytest.raises(dpbench.InputError, match="must be a table of text -> text"):
        load_claims(table)


def test_a_reading_can_say_why_its_check_cannot_fail(tmp_path):
    """A check that is an identity under one reading only (a reproduction's clamp that makes two
    algorithms one) is consistent under that reading and decided under the others."""
    (tmp_path / "paper.toml").write_text(
        '[[choice]]\nid = "constants"\nquestion = "q"\nsource = "s"\n'
        '[[choice.reading]]\nid = "corrected"\nwhy = "w"\n[[choice.reading]]\nid = "literal"\nwhy = "w"\n')
    table = tmp_path / "claims.toml"
    table.write_text('[[claim]]\nid = "r"\nwhere = "w"\nstatement = "s"\ntest = "ratio"\nrun = "a"\n'
                     'baseline = "b"\nexpected = 1.0\n[claim.readings.constants]\n'
                     'corrected = { cannot_fail = "the clamp makes a and b one algorithm" }\n'
                     'literal = { replace = { "a" = "a (literal)" } }\n')
    (c,) = load_claims(table)
    got = {v.reading_key: v for v in c.under(__import__("dpbench").reporting.claims.load_choices(
        tmp_path / "paper.toml"))}
    assert got["constants=corrected"].cannot_fail == "the clamp makes a and b one algorithm"
    assert got["constants=literal"].cannot_fail == "" and got["constants=literal"].params["run"] == "a (literal)"
    identity = Outcome("", comparisons=(Check(Estimate.exact_value(1.0), 0.9, 1.1, "rho"),))
    decided = decide(got["constants=corrected"], identity, 0.01)
    assert decided.verdict is Verdict.CONSISTENT and "the clamp" in decided.cause
    assert decide(got["constants=literal"], identity, 0.01).verdict is Verdict.REPRODUCED


def test_two_runs_equal_in_every_repetition_have_the_exact_ratio_one():
    """Not a zero-spread estimate (which decides nothing): the same computation twice, on a fixed
    instance (not paired) as on instances drawn per repetition."""
    from dpbench.reporting.claims.kinds import ratio_estimate
    x = np.random.default_rng(3).uniform(10, 20, 50)
    for pair in (True, False):
        same = ratio_estimate(x, x.copy(), paired=pair)
        assert same.exact and same.value == 1.0 and not same.degenerate
    assert not ratio_estimate(x, x[::-1].copy()).exact               # the same values, other repetitions
    other = x.copy()
    other[7] += 1e-9
    assert not ratio_estimate(x, other, paired=True).exact


# ------------------------------------------------------------------ checks that cannot fail
def test_a_check_that_cannot_fail_is_consistent_never_reproduced():
    lower = one(Outcome("", comparisons=(Check(Estimate(300.0, 10.0, 49, 50), low=2.0, can_contradict=False),)))
    assert lower.verdict is Verdict.CONSISTENT and "cannot fail" in lower.cause
    echo = one(Outcome("", comparisons=(Exact(True, "the code's own constant", can_contradict=False),)))
    assert echo.verdict is Verdict.CONSISTENT
    declared = decide(Claim("d", "w", "s", "computed", {"measure": "m"}, cannot_fail="a band of 9 to 6480"),
                      Outcome("", comparisons=(Check(Estimate(100.0, 1.0, 49, 50), 9.0, 6480.0),)), 1e-4)
    assert declared.verdict is Verdict.CONSISTENT and "9 to 6480" in declared.cause
    real = one(Outcome("", comparisons=(Check(Estimate(300.0, 10.0, 49, 50), low=2.0),)))
    assert real.verdict is Verdict.REPRODUCED


# ------------------------------------------------------------------ bands with the paper's own error
def test_a_papers_point_value_is_compared_with_its_own_monte_carlo_error():
    """rho = 1.712 (s.e. 0.014) against the paper's 1.6 +- 0.05: outside the rounding band alone,
    but the paper's own 1.6 is a mean over its repetitions too: within their joint error the row
    is not contradicted; far outside both, it is."""
    est = Estimate(1.66, 0.014, 49, 50)
    bare = one(Outcome("", comparisons=(Check(est, 1.55, 1.65),)), level=1e-4)
    assert bare.verdict is Verdict.INCONCLUSIVE
    far = Estimate(1.712, 0.014, 49, 50)
    assert one(Outcome("", comparisons=(Check(far, 1.55, 1.65),)), level=1e-4).verdict is Verdict.CONTRADICTED
    widened = one(Outcome("", comparisons=(Check(far, 1.55, 1.65, reference_se=0.014),)), level=1e-4)
    assert widened.verdict is Verdict.INCONCLUSIVE
    assert one(Outcome("", comparisons=(Check(Estimate(2.5, 0.014, 49, 50), 1.55, 1.65, reference_se=0.014),)),
               level=1e-4).verdict is Verdict.CONTRADICTED


def test_a_ratio_claim_carries_the_papers_repetitions(tmp_path):
    ev = _ratio_by_horizon()
    run = ev.runs["exp"]
    run.experiment.paper_reps = 200
    c = claim("rho", "ratio", experiment="exp", run="priv", baseline="base", expected=1.6, horizon=1e4)
    r = evaluate([c], ev)[0]
    assert "from its 200 repetitions" in r.detail and r.verdict is Verdict.REPRODUCED


# ------------------------------------------------------------------ families
def test_a_claims_family_is_its_figure_not_the_report():
    """A row's level depends on the comparisons of its own figure or theorem, not on how many other
    rows share the report."""
    gen = np.random.default_rng(3)
    a, b = gen.normal(100, 10, 40), gen.normal(108, 10, 40)
    ev = Evidence()
    ev.measure("ab", lambda c, e: Outcome("", comparisons=(Check(difference_estimate(a, b), high=0.0),)))
    ev.measure("filler", lambda c, e: Outcome("", comparisons=(Hypothesis(0.5, True, "filler"),) * 100))
    target = Claim("ab", "Fig. 1(a)", "a < b", "computed", {"measure": "ab"})
    fillers = [Claim(f"f{i}", "Theorem 3", "filler", "computed", {"measure": "filler", "args": {"i": i}})
               for i in range(10)]
    results = evaluate([target, *fillers], ev)
    assert results[0].family == 1 and results[0].family_name == "paper: Fig. 1"
    assert results[0].verdict is Verdict.REPRODUCED and results[1].family == 1000


def test_a_run_past_its_learning_horizon_names_no_horizon_it_has_already_reached():
    """seed 001's thm7.remark_i read 'needs T >= 4.1e+05' on a run to T = 1e6 whose window was not yet
    logarithmic: a horizon the run passed cannot be what it needs."""
    from dpbench.reporting.claims import not_yet
    from dpbench.reporting.claims.rule import horizon_cause
    ahead = not_yet("not logarithmic", 4.1e6, 10**6)
    assert horizon_cause(ahead) == "needs T >= 4.1e+06" and "observable from T ~ 4.1e+06" in str(ahead)
    passed = not_yet("not logarithmic", 4.1e5, 10**6)
    assert passed.horizon is None and horizon_cause(passed).startswith("needs a run beyond T = 1e6: it already "
                                                                       "passed the 4.1e+05")
