"""The statistical floor of a certified bound (verify.audit.suites.floor) and its report column."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from verify.audit.layers import LAW
from verify.audit.result import LayerResult
from verify.audit.suites import floor as fl
from verify.audit.suites.report import floor_section
from verify.audit.suites.sniper import cases


def laplace_law(shift=1.0, scale=10.0):
    d1, d2 = stats.laplace(shift, scale), stats.laplace(0.0, scale)
    return fl.Scalar(d1.cdf, d2.cdf, d1.ppf, d2.ppf)


def by_name(name):
    return next(c for c in cases() if c.name == name)


def conditional_bound(k1, n1, k2, n2, alpha):
    """ln(theta_L / (1 - theta_L)) + ln(n2 / n1), theta_L the one-sided Clopper-Pearson bound of
    k1 successes in k1 + k2 trials, from scipy's beta quantiles (the audit's certifier at delta = 0)."""
    theta = stats.beta.ppf(alpha, k1, k2 + 1)
    return math.log(theta / (1 - theta)) + math.log(n2 / n1)


def test_laplace_floor_matches_the_hand_figure():
    # Laplace at eps = 0.1: the best event is a tail beyond the shift, p = 1/2, p' = e^-0.1 / 2;
    # certifying 0.95 eps at alpha = 0.05 with the conditional test on Poisson counts takes about
    # (z_0.05 / 0.005)^2 (1/p + 1/p') = 4.56e5 per input (split-alpha Clopper-Pearson: 6.8e5)
    f = fl.floor(laplace_law(), 0.095, 0.05)
    assert f.n == pytest.approx(4.56e5, rel=0.03)
    assert f.p == pytest.approx(0.5, abs=1e-4) and f.q == pytest.approx(0.5 * math.exp(-0.1), abs=1e-4)
    assert f.event.startswith("output in (1,")
    # the figure is the smallest n: reached there, not 2 % below (an independent computation)
    n = f.n
    assert conditional_bound(f.p * n, n, f.q * n, n, 0.05) >= 0.095
    m = 0.98 * n
    assert conditional_bound(f.p * m, m, f.q * m, m, 0.05) < 0.095


def test_floor_grows_with_the_target_and_is_infinite_past_the_exact_eps():
    law = laplace_law()
    ns = [fl.floor(law, t, 0.1).n for t in (0.05, 0.08, 0.09, 0.095, 0.098)]
    assert all(a < b for a, b in zip(ns, ns[1:]))
    assert math.isinf(fl.floor(law, 0.1001, 0.1).n)
    geo = by_name("TruncatedGeometricMechanism")
    law = fl.row_law(geo, 2.0, 1.0)
    ns = [fl.floor(law, t, 0.1).n for t in (0.08, 0.10, 0.11, 0.115)]
    assert all(a < b for a, b in zip(ns, ns[1:]))
    assert math.isinf(fl.floor(law, geo.true_eps + 1e-4, 0.1).n)


def test_row_laws_are_exact():
    geo = by_name("TruncatedGeometricMechanism")
    law = fl.row_law(geo, 2.0, 1.0)
    assert law.p.sum() == pytest.approx(1.0) and law.q.sum() == pytest.approx(1.0)
    assert np.max(np.abs(np.log(law.p / law.q))) == pytest.approx(geo.true_eps, rel=1e-9)
    rnm = by_name("ReportNoisyMax2")        # argmax with exponential noise: exact eps 0.1 on this pair
    law = fl.row_law(rnm, [1, 1, 1, 1, 1], [0, 2, 2, 2, 2])
    assert law.p == pytest.approx([0.2] * 5, abs=1e-9)
    assert math.log(law.p[0] / law.q[0]) == pytest.approx(0.1, abs=1e-6)
    for name in ("Rappor", "OneTimeRappor"):   # the exact eps of the pair is the largest log-ratio
        case = by_name(name)
        law = fl.row_law(case, 1.0, 0.0)
        assert law.p.sum() == pytest.approx(1.0) and law.q.sum() == pytest.approx(1.0)
        assert np.max(np.log(law.p / law.q)) == pytest.approx(case.true_eps, rel=1e-9)
    law = fl.row_law(by_name("ReportNoisyMax3"), [0] * 5, [1] * 5)   # the max shifts by 1
    t = np.array([-30.0, 0.0, 7.5, 40.0])
    assert law.cdf_x(t) == pytest.approx(law.cdf_x_prime(t + 1.0), rel=1e-12)
    assert law.cdf_x(t) == pytest.approx(stats.laplace(scale=20.0).cdf(t) ** 5, rel=1e-12)
    svt4 = by_name("SparseVectorTechnique4")      # the sparse vector by an integral over the threshold
    law = fl.row_law(svt4, [1] * 10, [2] * 5 + [0] * 5)
    assert law.p.sum() == pytest.approx(1.0) and np.max(np.log(law.p / law.q)) == pytest.approx(svt4.true_eps, abs=1e-6)
    svt5 = fl.row_law(by_name("SparseVectorTechnique5"), [2] * 5 + [0] * 5, [1] * 10)   # not DP: q = 0
    f = fl.floor(svt5, 13.0, 0.1)
    assert f.q == 0 and f.p > 0 and math.isfinite(f.n) and "answers 1111100000" in f.event
    assert fl.row_law(by_name("SparseVectorTechnique3"), [0] * 10, [1] * 10) is None
    assert fl.row_law(by_name("FloatingPointLaplace"), 1.0, 2.0) is None


def row(case, eps_lb, x, xp, n=3e7):
    layer = LayerResult(layer=LAW, status="not rejected", alpha=0.1)
    return (case, SimpleNamespace(witness={"x": x, "x_prime": xp}, headline_layer=layer,
                                  eps_lower_bound=eps_lb, n=n, delta=0.0), 1.0, 1.0)


def test_report_renders_samples_over_the_floor():
    text = "\n".join(floor_section([row(by_name("LaplaceMechanism"), 0.09727, 1.0, 0.0),
                                    row(by_name("SparseVectorTechnique3"), 0.2, [1] * 10, [2] * 5 + [0] * 5),
                                    row(by_name("NoisyHist2"), 10.01, [0, 1, 1, 1, 1], [1] * 5)]))
    assert "| samples / floor |" in text
    lap = next(line for line in text.splitlines() if line.startswith("| LaplaceMechanism"))
    cells = [c.strip() for c in lap.split("|")]
    floor_n, ratio = float(cells[4]), float(cells[5])
    assert ratio == pytest.approx(3e7 / floor_n, rel=0.01) and 1 < ratio < 100
    assert "| perfect audit no better |" in text
    assert 0 <= float(cells[6].rstrip("%")) <= 100
    assert "law not available" in text
    assert "unreachable" in text          # NoisyHist2's exact eps is 10: no event certifies 10.01
    assert 0 < float(cells[7].rstrip("%")) < 50            # the perfect audit above 3x
    summary = next(line for line in text.splitlines() if line.startswith("A perfect audit stays within 3x"))
    assert "on all 1 rows above" in summary                 # only LaplaceMechanism has a law and a finite floor
    named = summary.split("Rows above 3x here: ")[1]
    assert named.startswith("LaplaceMechanism (") if ratio > 3 else named == "none."


def test_a_shortfall_names_a_weaker_event_only_when_the_counts_show_it():
    """Below the published figure with an observed ratio below it: "a weaker event" only when the
    ratio's upper confidence bound is below the figure too; otherwise sampling error is named."""
    from types import SimpleNamespace

    from verify.audit.suites.report import _shortfall_reason

    def reason(k1, k2, n):
        layer = LayerResult(status="not rejected", alpha=0.09, layer=LAW,
                            witness={"count_x": k1, "count_x_prime": k2, "event": "output > 1", "x": 1.0,
                                     "x_prime": 0.0})
        return _shortfall_reason(by_name("LaplaceMechanism"), SimpleNamespace(headline_layer=layer, n=n,
                                                                              delta=0.0), 0.0998)
    n = 30_000_000
    near = reason(round(0.476 * n), round(0.476 * n * math.exp(-0.09975)), n)     # LaplaceMechanism's counts
    assert "cannot tell" in near and "weaker event than" not in near
    far = reason(round(0.476 * n), round(0.476 * n * math.exp(-0.09)), n)
    assert "weaker event than the published one" in far


def test_reach_chance_is_a_half_at_the_floor_and_follows_n():
    """The chance that the best event certifies a target: about 1/2 at the floor (the expected
    counts reach it there), lower below (towards alpha: a bound at confidence 1 - alpha passes a
    target below the truth at least that often), near 1 far above; 0 past the exact eps."""
    law = laplace_law()
    target, alpha = 0.095, 0.1
    n_floor = fl.floor(law, target, alpha).n
    at = fl.reach_chance(law, target, n_floor, alpha, draws=20_000)[0]
    assert 0.45 < at < 0.55
    assert fl.reach_chance(law, target, n_floor / 8, alpha)[0] < 0.3
    assert fl.reach_chance(law, target, n_floor * 8, alpha)[0] > 0.99
    assert fl.reach_chance(law, 0.1001, 1e9, alpha)[0] == 0.0


def test_an_event_never_seen_under_the_other_input_does_not_crowd_out_the_best():
    """ReportNoisyMax4 on x = [1]*5, x' = [2]*5: every output below 2 is impossible under x', so
    thousands of intervals have p' = 0 and tiny p.  Only the likeliest of them can be the best (at
    every n it certifies the most of them); ranked first all together they filled the shortlist and
    hid the lower tail (-inf, 3.17] (p = 1.2e-5, p' = 6.0e-7): the floor of the row's 1.98938 read
    7.1e7 instead of 3.7e6, and the floor was not monotone in the target."""
    law = fl.row_law(by_name("ReportNoisyMax4"), np.ones(5), 2 * np.ones(5))
    targets = (0.001, 0.005, 0.008, 0.1, 1.0, 1.5, 1.98938, 2.5, 4.0)
    ns = [fl.floor(law, t, 0.1).n for t in targets]
    assert all(a <= b for a, b in zip(ns, ns[1:])), ns
    f = fl.floor(law, 1.98938, 0.1)
    assert f.n < 5e6 and f.event.startswith("output in (-inf, 3.1") and f.q > 0


def test_over_ratio_chance_is_the_share_of_perfect_audits_above_the_ratio():
    """Independent check: simulate the perfect audit's certifications on a two-outcome law, take
    each bound's floor, and count the runs that used more than 3x the floor of what they certified."""
    from verify.audit import statistics as st
    law = fl.Discrete(np.array([0.3, 0.7]), np.array([0.25, 0.75]), ("a", "b"))
    n, alpha = 20_000, 0.1
    bound3, chance = fl.over_ratio_chance(law, 3.0, n, alpha, draws=20_000)
    assert 3 * fl.floor(law, bound3, alpha).n == pytest.approx(n, rel=0.02)
    rng = np.random.default_rng(5)
    m1, m2 = rng.poisson(n, 600), rng.poisson(n, 600)
    best = fl.floor(law, 0.1, alpha)                     # the event {a}: the best at every target here
    bounds = st.certifier_for(0.0).bound(rng.binomial(m1, best.p), m1, rng.binomial(m2, best.q), m2, alpha, 0.0)
    ratios = np.array([n / fl.floor(law, b, alpha).n if b > 0 else np.inf for b in bounds])
    assert 0.05 < chance < 0.5
    assert np.mean(ratios > 3) == pytest.approx(chance, abs=0.06)


def test_a_shortfall_says_what_a_perfect_selection_could_expect():
    """Below the figure, the reason adds the chance that the family's best event, at its exact law,
    reaches the figure at the row's n; a witness pair whose exact eps is below the figure is named."""
    from verify.audit.suites.report import _shortfall_reason

    n = 30_000_000
    layer = LayerResult(status="not rejected", witness={"count_x": round(0.476 * n), "count_x_prime": round(0.431 * n),
                                     "event": "output > 1.5", "x": 1.0, "x_prime": 0.0}, alpha=0.1, layer=LAW)
    text = _shortfall_reason(by_name("LaplaceMechanism"), SimpleNamespace(headline_layer=layer, n=n, delta=0.0),
                             0.09981)
    chance = float(text.split("would certify 0.09981 in ")[1].split("%")[0])
    assert 5 < chance < 35                              # about 15%: the floor of 0.09981 is near 2e8
    svt4 = by_name("SparseVectorTechnique4")
    x, xp = [0] * 5 + [1] * 5, [1] * 5 + [0] * 5        # exact eps 0.17166 on this pair, below 0.17191
    layer = LayerResult(status="not rejected", alpha=0.1, layer=LAW,
                        witness={"count_x": 552_900, "count_x_prime": 465_600, "event": "some set", "x": x,
                                 "x_prime": xp})
    text = _shortfall_reason(svt4, SimpleNamespace(headline_layer=layer, n=n, delta=0.0), 0.17191)
    assert "no event on the witness pair reaches 0.17191" in text


def test_a_row_above_its_exact_eps_is_named_as_a_false_statement():
    from verify.audit.suites.report import above_exact_section

    w = {"x": [0, 1, 1, 1, 1], "x_prime": [1] * 5, "event": "output[0] <= 0", "count_x": 14_693_791,
         "n_x": 30_006_217, "count_x_prime": 610, "n_x_prime": 30_000_446, "eps_estimate": 10.0895}
    layer = LayerResult(layer=LAW, status="violated", alpha=0.09, events_certified=2, witness=w)
    above = SimpleNamespace(headline_layer=layer, eps_lower_bound=10.02055)
    below = SimpleNamespace(headline_layer=layer, eps_lower_bound=9.9)
    text = "\n".join(above_exact_section([(by_name("NoisyHist2"), above, 1.0, 1.0)]))
    assert "## Rows above their exact eps" in text and "a false statement" in text
    assert "**NoisyHist2**: 10.02055 > 10.00000, certified at alpha = 0.045 on output[0] <= 0: 14,693,791 of " in text
    assert above_exact_section([(by_name("NoisyHist2"), below, 1.0, 1.0)]) == []
    assert above_exact_section([(by_name("SparseVectorTechnique5"), above, 1.0, 1.0)]) == []   # not DP: inf


def test_perfect_audit_no_better_separates_luck_from_selection():
    """The column's chance: about 1/2 for a row at the perfect audit's median bound, about 11-13%
    for SparseVectorTechnique6 at seeds 2 and 3 of the suite (3.5x and 3.9x its floor: unlucky
    counts on the best event itself), about 0 for a bound far below what its n buys."""
    from verify.audit.suites.report import floor_row
    svt6 = by_name("SparseVectorTechnique6")
    x, xp = [1] * 5 + [0] * 5, [0] * 5 + [1] * 5

    def chance(eps_lb):
        cells = floor_row(svt6, row(svt6, eps_lb, x, xp)[1]).cells
        return float(cells[2].rstrip("%")) / 100, float(cells[1])
    median, ratio = chance(0.3965)            # the perfect audit's median bound at n = 3e7, alpha 0.1
    assert 0.4 < median < 0.6 and 0.8 < ratio < 1.25
    unlucky, ratio = chance(0.38113)          # seed 2's row
    assert 0.08 < unlucky < 0.18 and 3.3 < ratio < 3.7
    far, ratio = chance(0.34)
    assert far < 0.01 and ratio > 10
