"""Long statistical runs of the audits (``python -m pytest -m slow tests/test_audit_slow.py``).

* false positives: correct mechanisms at tight claims, pooled over enough seeds that a
  one-sided binomial test of "rate <= alpha" at level 1e-3 has 90% power against 2 alpha, for
  each layer (law, floating point) and for the audit's verdict (either layer);
* the same for the sequential audit (a budget: rounds that choose their events on the rounds before
  them and bet on fresh outputs), on the verdict, at the exact eps of each mechanism;
* the printed ``delta_floor``: violating events of twice its mass, planted in several kinds
  of mechanism, are found in at least 95% of the seeds;
* every planted bug of ``suites.planted.planted_bugs`` is caught by the layer it belongs to and
  its fix passes both layers (n = 2e6, alpha = 0.01, defaults otherwise);
* the known-answer suite at a tenth of its sample budget.
"""
import math

import numpy as np
import pytest
from scipy import stats

import verify
from verify.audit import compiled_mechanism
from verify.audit.controls import CATALOG_SETTINGS, FLOAT_UNSAFE, catalog_mechanism
from verify.audit.stages.validate import SELECT_MAX, SELECT_MIN, resolution_floor
from verify.audit.suites import planted as controls
from verify.audit.suites.planted import planted_bugs
from verify.audit.suites.sniper import ALPHA as SNIPER_ALPHA
from verify.audit.suites.sniper import CLAIMED_EPS, SUITE_N, Laplace, ReportNoisyMax, cases, published

pytestmark = pytest.mark.slow

#: the false-positive test: audit level, binomial test level, power against a rate of 2 alpha
FP_ALPHA, FP_LEVEL, FP_POWER = 0.05, 1e-3, 0.9


def binomial_design(alpha: float, level: float, power: float) -> tuple[int, int]:
    """(trials, allowed): the fewest trials for which the one-sided binomial test "rate <=
    alpha", rejecting at more than ``allowed`` successes (P <= level under rate alpha), has at
    least ``power`` against a rate of 2 alpha.  (alpha 0.05, level 1e-3, power 0.9: 501 trials,
    at most 41 rejections, i.e. 8.2%.)"""
    for trials in range(10, 100_000):
        allowed = int(stats.binom.isf(level, trials, alpha))
        while stats.binom.sf(allowed, trials, alpha) > level:
            allowed += 1
        if stats.binom.sf(allowed, trials, 2 * alpha) >= power:
            return trials, allowed
    raise AssertionError("no design")


def _correct_mechanisms():
    """(name, mechanism, x, x', eps, delta, float_safe): correct mechanisms at tight claims; the
    catalog samplers over their input ranges (x = None; float-unsafe ones: their law is correct)."""
    c = controls
    out = [("generator_laplace_on_lattice", c.generator_laplace(1.0, True), 0.0, 1.0, 1.0, 0.0),
           ("generator_gaussian_on_lattice", c.generator_gaussian(1.0, 1e-5, True), 0.0, 1.0, 1.0, 1e-5),
           ("box_muller_on_lattice", c.box_muller_gaussian(1.0, 1e-5, True), 0.5, 1.5, 1.0, 1e-5),
           ("exponential_mechanism_on_lattice", c.exponential_mechanism_interval(1.0, float_safe=True),
            3.0, 4.0, 1.0, 0.0),
           ("thresholded_count_T13", c.thresholded_count(1.0, 13), 0.0, 1.0, 1.0, 1e-5),
           ("randomized_response_4", c.randomized_response(1.0, 4), 0.0, 1.0, 1.0, 0.0),
           ("gaussian_8d_l2", c.generator_gaussian(1.0, 1e-5, True, dim=8, sensitivity=math.sqrt(8.0)),
            np.zeros(8), np.ones(8), 1.0, 1e-5),
           ("laplace_5d_l1", c.generator_laplace(0.2, True), np.zeros(5), np.ones(5), 1.0, 0.0),
           ("compiled_laplace", compiled_mechanism(Laplace(10.0, 1), 1, name="Laplace"), 0.0, 1.0, 0.1, 0.0),
           ("compiled_rnm2", compiled_mechanism(ReportNoisyMax(20.0, True, False), 1, name="RNM2"),
            np.ones(5), np.array([0.0, 2, 2, 2, 2]), 0.1, 0.0)]
    out = [(*row, True) for row in out]
    for name in sorted(CATALOG_SETTINGS):
        m = catalog_mechanism(name)
        out.append((name, m, None, None, m.claimed_eps, m.claimed_delta, name not in FLOAT_UNSAFE))
    return out


def test_false_positive_rate_at_most_alpha_in_each_layer():
    """Pooled over correct mechanisms at tight claims (n = 20,000, alpha = 0.05, the default
    audit), the fraction of certified violations passes the binomial test of binomial_design --
    a true rate of 2 alpha fails it with probability >= 90% -- for the law layer, for the
    floating-point layer (on the float-safe mechanisms whose outputs are floating-point numbers:
    the float-unsafe catalog samplers are not DP as implemented) and for the verdict.
    (About 10 minutes of CPU.)"""
    trials, allowed = binomial_design(FP_ALPHA, FP_LEVEL, FP_POWER)
    mechanisms = _correct_mechanisms()
    seeds = math.ceil(trials / len(mechanisms))
    law, fp, either = {}, {}, {}
    fp_trials = 0
    for name, m, x, xp, eps, delta, float_safe in mechanisms:
        results = [verify.audit(m, x, xp, eps=eps, delta=delta, alpha=FP_ALPHA, n=20_000, seed=s)
                   for s in range(seeds)]
        law[name] = sum(r.law.violated is True for r in results)
        if float_safe:
            fp[name] = sum(r.floating_point.violated is True for r in results)
            either[name] = sum(r.violated is True for r in results)
            fp_trials += sum(r.floating_point.status != "not tested" for r in results)
    print(f"false positives of {seeds * len(mechanisms)} audits: law {sum(law.values())}, either layer "
          f"{sum(either.values())} (allowed {allowed}); floating point {sum(fp.values())} of {fp_trials}")
    assert seeds * len(mechanisms) >= trials
    assert sum(law.values()) <= allowed, (sum(law.values()), allowed, law)
    assert sum(either.values()) <= allowed, (sum(either.values()), allowed, either)
    # the floating-point layer: its own design on the trials where it was tested
    fp_allowed = int(stats.binom.isf(FP_LEVEL, fp_trials, FP_ALPHA))
    assert fp_trials >= 200 and sum(fp.values()) <= fp_allowed, (sum(fp.values()), fp_allowed, fp)


def test_sequential_false_positive_rate_at_most_alpha():
    """The sequential audit (a budget of 3e4 samples: its rounds choose events on the rounds before them
    and bet on fresh outputs) on correct mechanisms of known eps at that eps (each at the boundary of
    its claim: randomised response's outcomes have ratio exactly e^eps, as do Laplace's tails; the
    Gaussian at its exact eps for delta = 1e-5): the fraction of seeds it rejects passes the binomial
    test of binomial_design (a true rate of 2 alpha fails it with probability >= 90%).  (About 15
    minutes of CPU.)"""
    trials, allowed = binomial_design(FP_ALPHA, FP_LEVEL, FP_POWER)
    c = controls
    exact = c.gaussian_eps(1.0 / c.gaussian_sigma(1.0, 1e-5), 1e-5)
    mechanisms = [("generator_laplace_on_lattice", c.generator_laplace(1.0, True), 0.0, 1.0, 1.0, 0.0),
                  ("randomized_response_2", c.randomized_response(1.0, 2), 0.0, 1.0, 1.0, 0.0),
                  ("randomized_response_4", c.randomized_response(1.0, 4), 0.0, 1.0, 1.0, 0.0),
                  ("generator_gaussian_on_lattice", c.generator_gaussian(1.0, 1e-5, True), 0.0, 1.0, exact, 1e-5)]
    seeds = math.ceil(trials / len(mechanisms))
    rejected, bets = {}, []
    for name, m, x, xp, eps, delta in mechanisms:
        results = [verify.audit(m, x, xp, eps=eps, delta=delta, alpha=FP_ALPHA, seed=s, budget=3e4)
                   for s in range(seeds)]
        rejected[name] = sum(r.violated is True for r in results)
        bets += [r.sequential.rounds for r in results if not r.violated]   # a rejection stops early
    print(f"sequential false positives: {sum(rejected.values())} of {seeds * len(mechanisms)} "
          f"(allowed {allowed}): {rejected}")
    assert seeds * len(mechanisms) >= trials and min(bets) >= 5
    assert sum(rejected.values()) <= allowed, (sum(rejected.values()), allowed, rejected)


def test_hedged_certification_false_positive_rate_at_most_alpha():
    """A layer that certifies two events at alpha / 2 each (refinement could not tell them apart)
    keeps its level: k-ary randomised response at its exact eps, whose single outcomes tie (the
    true answer's, favouring x; the other's, favouring x'), hedges in a good share of seeds; the
    fraction of seeds rejected passes the binomial test of binomial_design, over all seeds and
    over the hedged ones at their own count.  (About 2 minutes of CPU.)"""
    trials, allowed = binomial_design(FP_ALPHA, FP_LEVEL, FP_POWER)
    mechanisms = [controls.randomized_response(1.0, k) for k in (4, 16)]
    seeds = math.ceil(trials / len(mechanisms))
    results = [verify.audit(m, 0.0, 1.0, eps=1.0, alpha=FP_ALPHA, n=20_000, seed=s)
               for m in mechanisms for s in range(seeds)]
    hedged = [r for r in results if r.law.witness.get("also_certified")]
    rejected, rejected_hedged = sum(r.violated is True for r in results), sum(r.violated is True for r in hedged)
    allowed_hedged = int(stats.binom.isf(FP_LEVEL, len(hedged), FP_ALPHA))
    print(f"hedged certification: {len(hedged)} of {len(results)} audits hedged; rejected {rejected} "
          f"(allowed {allowed}), of the hedged {rejected_hedged} (allowed {allowed_hedged})")
    assert len(results) >= trials and len(hedged) >= len(results) // 5
    assert rejected <= allowed and rejected_hedged <= allowed_hedged


#: kinds of mechanism with a planted violating event S: P[M(x) in S] = mass, P[M(x') in S] = 0
def _planted(kind: str, mass: float):
    c = controls
    lap = c.generator_laplace(1.0, True)
    if kind == "atom in Laplace":
        return c.with_leak(lap, mass, lambda x: x, "atom"), 0.0, 1.0, 1.0, 0.0
    if kind == "far value in Gaussian":
        return (c.with_leak(c.generator_gaussian(1.0, 1e-5, True), mass, lambda x: 1000.0 * x + 7.0, "far"),
                2.0, 3.0, 1.0, 1e-5)
    if kind == "far region in Laplace":
        def far(x, n, seed):
            y = lap(x, n, seed)
            hit = np.random.default_rng([seed, 5]).random(n) < mass
            y[hit] = 50.0 + 10.0 * x + np.random.default_rng([seed, 6]).random(int(hit.sum()))
            return y
        return far, 0.0, 1.0, 1.0, 0.0
    if kind == "bottom or release":
        return c.bottom_or_release(mass), 1.0, 0.0, 1.0, 1e-5
    if kind == "atom in 3-d Laplace":
        return c.with_leak(lap, mass, lambda x: x, "atom3"), np.zeros(3), np.array([1.0, 0, 0]), 1.0, 0.0
    raise KeyError(kind)


PLANTED_KINDS = ["atom in Laplace", "far value in Gaussian", "far region in Laplace", "bottom or release",
                 "atom in 3-d Laplace"]
#: seeds per kind and the detections required (95%): a detection rate of 99% fails this with
#: probability 0.3%; a rate of 90% passes it with probability 14%, a rate of 85% with 1.5%
PLANTED_SEEDS, PLANTED_FOUND = 60, 57
N_PLANTED, ALPHA_PLANTED = 200_000, 0.01


@pytest.mark.parametrize("kind", PLANTED_KINDS)
def test_violations_of_twice_the_delta_floor_are_found(kind):
    """The printed delta_floor is what selection and certification achieve together: an event
    of twice that mass (never produced under x') is certified in >= 95% of seeds."""
    m, x, xp, eps, delta = _planted(kind, 1e-3)
    res = verify.audit(m, x, xp, eps=eps, delta=delta, n=N_PLANTED, alpha=ALPHA_PLANTED, seed=0)
    floor = res.delta_floor
    n_select = max(20, min(N_PLANTED, SELECT_MAX, max(N_PLANTED // 8, SELECT_MIN)))
    assert floor == resolution_floor(N_PLANTED, n_select, N_PLANTED // 4, res.law.alpha, eps, delta)
    m, x, xp, eps, delta = _planted(kind, 2 * floor)
    found = sum(verify.audit(m, x, xp, eps=eps, delta=delta, n=N_PLANTED, alpha=ALPHA_PLANTED, seed=s).law.violated
                for s in range(PLANTED_SEEDS))
    assert found >= PLANTED_FOUND, (kind, found, 2 * floor)


@pytest.mark.parametrize("case", planted_bugs(), ids=lambda c: c.name)
def test_planted_bug_is_caught_in_its_layer_and_its_fix_passes(case):
    """n = 2e6, alpha = 0.01, every other argument at its default: the bug is caught by the
    layer it belongs to (a floating-point bug: the floating point only, the law holding)."""
    caught = verify.audit(case.mechanism, case.x, case.x_prime, eps=case.eps, delta=case.delta,
                          n=2_000_000, alpha=0.01, seed=1)
    assert caught.layer_failed == case.layer, f"{case.name} ({case.why}) not caught by the {case.layer}:\n{caught}"
    fixed = verify.audit(case.fixed, case.x, case.x_prime, eps=case.eps, delta=case.delta,
                         n=2_000_000, alpha=0.01, seed=1)
    assert not fixed.violated, f"{case.name} fixed is rejected:\n{fixed}"


def test_known_answer_suite_at_a_tenth_of_the_budget():
    """Every DP-Sniper mechanism at SUITE_N / 10 with the default audit: no bound above a
    known exact eps, and every buggy mechanism caught (bounds above the claimed 0.1)."""
    pub = published()
    buggy = {"TruncatedGeometricMechanism", "NoisyHist2", "ReportNoisyMax3", "ReportNoisyMax4",
             "SparseVectorTechnique3", "SparseVectorTechnique4", "SparseVectorTechnique5",
             "SparseVectorTechnique6", "Rappor", "OneTimeRappor", "SVT34Parallel", "PrefixSum",
             "FloatingPointLaplace"}
    for case in cases():
        res = verify.audit(case.mechanism(), eps=CLAIMED_EPS, alpha=SNIPER_ALPHA, n=SUITE_N // 10,
                           domain=case.domain, seed=1)
        if case.true_eps is not None:
            assert res.eps_lower_bound <= case.true_eps, case.name
        if case.name in buggy:
            assert res.violated and res.eps_lower_bound > CLAIMED_EPS, case.name
        assert case.name in pub
        assert math.isfinite(res.eps_lower_bound)


def test_dp_ftpl_beta_next_arm_is_private():
    """Per-step DP of DP-FTPL-Beta after its start phase (ceil(N_B*) = 97 pulls per arm at
    (1, 0.3)), on the edge history of all-zero rewards (spec §3.2: the worst case)."""
    from verify.audit.policy_audit import audit_policy
    table = np.zeros((3, 120))
    res = audit_policy("dp_ftpl_beta", table, eps=1.0, delta=0.3, n=200_000, alpha=1e-4, seed=8,
                       policy_params={"eps": 1.0, "delta": 0.3})
    assert res.info["step"] == 3 * 97 and not res.violated, str(res)
