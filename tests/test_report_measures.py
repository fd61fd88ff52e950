"""The claim measurements of dpbench.reporting.measures on synthetic runs (no simulation): privacy-part exponents
over the algorithm's own level, crossing times, orderings, and saturation by a policy's
data-independent phase, each beside a negative control."""
import math
from types import SimpleNamespace

import numpy as np
import pytest

import dpbench
from dpbench.engine.result import log_checkpoints
from dpbench.experiments.runner import RunSpec, run_key
from dpbench.reporting import measures as M
from dpbench.reporting.claims import Claim, Evidence, Verdict, evaluate
from dpbench.reporting.schedules import schedule_limit

T = 100_000
MEANS = [0.7, 0.65, 0.6, 0.55, 0.5]


def result(label, final, *, policy="dp_ftpl_new", params=None, reps=20, seed=0, shape=None):
    """A SimulationResult whose regret grows like ln t up to ``final`` at T (+2% noise), or
    follows ``shape(t)`` (scaled to ``final``)."""
    cps = log_checkpoints(T)
    gen = np.random.default_rng(seed)
    curve = (np.log(cps) / math.log(T)) if shape is None else shape(cps)
    regret = final * curve[None, :] * (1 + 0.02 * gen.standard_normal((reps, 1)))
    return dpbench.SimulationResult(
        policy=policy, label=label, environment="bernoulli", params=params or {"eps": 1.0, "delta": 0.01},
        env_params={"means": MEANS}, horizon=T, seed=seed, first_rep=0, checkpoints=cps, regret=regret,
        pulls=np.zeros((reps, len(MEANS)), dtype=np.int64), means=np.asarray(MEANS))


def experiment(*runs):
    """An ExperimentRun-like object from (panel, label, params, result) tuples."""
    specs = [RunSpec(label, r.policy, params, {}, panel) for panel, label, params, r in runs]
    return SimpleNamespace(runs=specs, results={run_key(s): r for s, (_, _, _, r) in zip(specs, runs)})


def claim(measure, **args):
    return Claim(f"test.{measure}", "synthetic", "synthetic", "computed", {"measure": measure, "args": args})


@pytest.fixture(scope="module")
def privacy_sweep():
    """R(delta) = A + 40/delta with A = 600 (the algorithm's own level) and a much lower
    'Thompson' level 150 (the wrong baseline of the old report)."""
    level, thompson = result("level", 600.0, seed=1), result("thompson", 150.0, seed=2)
    runs = [("sweep", f"New, delta={d}", {"delta": d}, result(f"d{d}", 600.0 + 40.0 / d, seed=3 + i))
            for i, d in enumerate((0.002, 0.005, 0.01, 0.02, 0.05))]
    ev = Evidence({"sweep": experiment(*runs), "levels": experiment(("", "level", {}, level),
                                                                    ("", "thompson", {}, thompson))})
    ev.measure("level_exponent", lambda c, e: M.measure_level_exponent(c, e))
    return ev


def exponent_claim(level_run, **extra):
    return claim("level_exponent", variable="delta", sweep={"experiment": "sweep", "panel": "sweep",
                                                           "policy": "dp_ftpl_new"},
                 level={"experiment": "levels", "run": level_run}, predicted=-1.0, tolerance=0.1, **extra)


def test_privacy_exponent_over_the_own_level(privacy_sweep):
    out = M.measure_level_exponent(exponent_claim("level"), privacy_sweep)
    assert out.verdict is Verdict.REPRODUCED, out.statistic


def test_negative_control_a_foreign_level_bends_the_exponent(privacy_sweep):
    """Subtracting another algorithm's (lower) regret, as the old report did, flattens the slope."""
    out = M.measure_level_exponent(exponent_claim("thompson"), privacy_sweep)
    assert out.verdict is Verdict.REFUTED, out.statistic


def test_crossing_time_is_interpolated_in_log_t():
    cps = np.array([1.0, 10.0, 100.0, 1000.0])
    early = np.array([1.0, 2.0, 3.0, 4.0])
    late = np.array([2.0, 3.0, 2.0, 1.0])       # below early from between 10 and 100 on
    t = M.crossing_time(cps, late, early)
    assert 10 < t < 100 and t == pytest.approx(10 ** 1.5)
    assert M.crossing_time(cps, early + 1, early) == math.inf          # never below
    assert M.crossing_time(cps, early - 1, early) == 1.0              # always below


def test_pairs_ordering_saturation_and_reversal():
    fast, slow = result("fast", 500.0, seed=5), result("slow", 900.0, seed=6)
    gauss_params = {"eps": 0.01, "delta": 1e-4}            # start phase 5 x 169,xxx pulls > T: data-independent
    stuck = result("stuck", 2000.0, policy="dp_ftpl_gauss", params=gauss_params, seed=7,
                   shape=lambda t: t / T)
    ev = Evidence({"e": experiment(("", "fast", {}, fast), ("", "slow", {}, slow), ("", "stuck", {}, stuck))})
    ev.measure("pairs", M.measure_pairs)
    def pairs(*pair):
        return {"measure": "pairs", "args": {"experiment": "e", "pairs": [list(pair)]}}
    claims = [Claim("ok", "x", "x", "computed", pairs("fast", "slow")),
              Claim("reversed", "x", "x", "computed", pairs("slow", "fast")),
              Claim("stuck", "x", "x", "computed", pairs("stuck", "fast"))]
    verdicts = {r.claim.id: r for r in evaluate(claims, ev)}
    assert verdicts["ok"].verdict is Verdict.REPRODUCED
    assert verdicts["reversed"].verdict is Verdict.REFUTED
    stuck_v = verdicts["stuck"]
    assert stuck_v.verdict is Verdict.UNOBSERVABLE and "start phase" in stuck_v.detail
    assert "observable from T ~ 8.4e+05" in stuck_v.detail                # 5 arms x ceil(N_G*) pulls


def test_schedule_limit_of_a_start_phase():
    gauss = result("gauss", 400.0, policy="dp_ftpl_gauss", params={"eps": 0.01, "delta": 1e-4})
    limit = schedule_limit(gauss)
    from dpbench.papers.seed002.bounds import start_phase_gauss
    assert limit is not None and limit.horizon == pytest.approx(5 * math.ceil(start_phase_gauss(0.01, 1e-4)), rel=1e-6)
    short = result("short", 400.0, policy="dp_ftpl_gauss", params={"eps": 1.0, "delta": 0.01})
    assert schedule_limit(short) is None                               # 5 x 8 pulls, long past
