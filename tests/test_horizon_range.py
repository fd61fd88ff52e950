"""A claim at a horizon the paper does not state (``horizon_range``), on synthetic curves whose
truth is known.

A number read off a figure is matched if it is matched at one checkpoint of the range (and
contradicted only if it is missed at all of them); a shape or an ordering must hold at every
checkpoint to be reproduced and fail at every one to be contradicted.  Decided under the
readings "T = 1e5", "T = 1e7" and "somewhere in [1e5, 1e7]", a ratio that passes through the
paper's number in between *depends on the reading*, never *contradicted*.
"""
from types import SimpleNamespace

import numpy as np
import pytest

import dpbench
from dpbench.engine.result import log_checkpoints
from dpbench.reporting.claims import Choice, Claim, Evidence, Reading, Verdict, evaluate, load_claims
from dpbench.reporting.claims.horizon_range import over_horizons

T = 10 ** 7
MEANS = [0.9, 0.8, 0.7, 0.6]
CPS = log_checkpoints(T)


def run(label, factor, *, reps=50, seed=0, noise=0.01, jitter=0.0):
    """Regret 100 ln t x factor(t), times a per-repetition factor 1 + noise N(0, 1) (and, with
    ``jitter``, a factor 1 + jitter N(0, 1) per checkpoint)."""
    gen = np.random.default_rng(seed)
    regret = (100 * np.log(CPS) * factor(CPS))[None, :] * (1 + noise * gen.standard_normal((reps, 1)))
    regret = regret * (1 + jitter * gen.standard_normal(regret.shape))
    return dpbench.SimulationResult(
        policy="ldp_ucb_b", label=label, environment="bernoulli", params={"eps": 2.0},
        env_params={"means": MEANS}, horizon=T, seed=seed, first_rep=0, checkpoints=CPS, regret=regret,
        pulls=np.zeros((reps, len(MEANS)), dtype=np.int64), means=np.asarray(MEANS))


def evidence(*results):
    return Evidence({"exp": SimpleNamespace(results={r.label: r for r in results}, runs=[],
                                            experiment=SimpleNamespace(paper_horizon=None, paper_reps=50))})


HORIZON = Choice("horizon", "the horizon of the figure (not stated)", "synthetic", (
    Reading("horizon", "T1e5", "T = 1e5", "one end"), Reading("horizon", "T1e7", "T = 1e7", "the other end"),
    Reading("horizon", "unstated", "somewhere in [1e5, 1e7]", "the paper states none")))
READINGS = {"horizon": {"T1e5": {"horizon": 1e5}, "T1e7": {"horizon": 1e7},
                        "unstated": {"horizon_range": [1e5, 1e7]}}}


def decided(ev, test, **params):
    c = Claim("c", "synthetic", "synthetic", test, params, readings=READINGS)
    return evaluate([c], ev, choices={"horizon": HORIZON})[0]


def by_reading(row):
    return {r.claim.reading_key: r.verdict for r in row.readings}


# a ratio 1 + 0.1 log10 t: 1.5 at 1e5, 1.6 at 1e6, 1.7 at 1e7
GROWING = evidence(run("base", lambda t: np.ones_like(t, dtype=float), seed=1),
                   run("priv", lambda t: 1 + 0.1 * np.log10(t), seed=2))


def test_a_number_matched_between_the_stated_ends_depends_on_the_reading():
    row = decided(GROWING, "ratio", experiment="exp", run="priv", baseline="base", expected=1.6)
    assert by_reading(row) == {"horizon=T1e5": Verdict.CONTRADICTED, "horizon=T1e7": Verdict.CONTRADICTED,
                               "horizon=unstated": Verdict.REPRODUCED}
    assert row.verdict is Verdict.DEPENDS and "deepest inside of" in row.detail
    # the checkpoint that matched is near 1e6, and it was chosen among every checkpoint of the range
    matched = row.readings[2].decisions[0].comparison
    assert matched.looks == sum(1 for c in CPS if 1e5 <= c <= 1e7)
    assert "T = 1e6" in matched.label or "T = 1.1e6" in matched.label or "T = 8.9e5" in matched.label


def test_a_number_missed_at_every_checkpoint_is_contradicted_under_every_reading():
    row = decided(GROWING, "ratio", experiment="exp", run="priv", baseline="base", expected=2.5)
    assert set(by_reading(row).values()) == {Verdict.CONTRADICTED} and row.verdict is Verdict.CONTRADICTED


def test_an_upper_bound_must_hold_at_every_checkpoint():
    """rho <= 1.65 holds at 1e5, fails at 1e7: at an unstated horizon in between, undecided."""
    row = decided(GROWING, "ratio", experiment="exp", run="priv", baseline="base", expected=1.65,
                  side="upper_bound", tolerance=0.0)
    assert by_reading(row) == {"horizon=T1e5": Verdict.REPRODUCED, "horizon=T1e7": Verdict.CONTRADICTED,
                               "horizon=unstated": Verdict.INCONCLUSIVE}
    assert "cannot contradict" in row.readings[2].detail
    held = decided(GROWING, "ratio", experiment="exp", run="priv", baseline="base", expected=1.8,
                   side="upper_bound", tolerance=0.0)
    assert held.verdict is Verdict.REPRODUCED


def test_an_ordering_that_flips_inside_the_range_is_neither_reproduced_nor_contradicted():
    ev = evidence(run("a", lambda t: np.ones_like(t, dtype=float), seed=1),
                  run("b", lambda t: 0.8 + 0.2 * (np.log10(t) - 5), seed=2),      # 0.8 at 1e5, 1.2 at 1e7
                  run("c", lambda t: 1.3 + 0 * t, seed=3))
    flips = decided(ev, "ordering", experiment="exp", runs=["a", "b"])
    assert by_reading(flips) == {"horizon=T1e5": Verdict.CONTRADICTED, "horizon=T1e7": Verdict.REPRODUCED,
                                 "horizon=unstated": Verdict.INCONCLUSIVE}
    assert decided(ev, "ordering", experiment="exp", runs=["a", "c"]).verdict is Verdict.REPRODUCED
    assert decided(ev, "ordering", experiment="exp", runs=["c", "a"]).verdict is Verdict.CONTRADICTED
    best = decided(ev, "argmin", experiment="exp", runs=["a", "b", "c"], best="a")
    assert by_reading(best)["horizon=unstated"] is Verdict.INCONCLUSIVE


def test_the_selection_among_checkpoints_is_what_decides():
    """Mutation guard: picking the weakest checkpoint for a number (or the strongest for a shape)
    changes the verdicts above; the helper must pick as documented."""
    from dpbench.reporting.claims import Check
    from verify.inference import Estimate
    checks = {t: Check(Estimate(v, 0.001, 49, 50), 0.95, 1.05, "x") for t, v in ((1, 0.5), (2, 1.0), (3, 1.5))}
    (exists,) = over_horizons(checks.get, [1, 2, 3], exists=True)
    assert exists.estimate.value == 1.0 and exists.looks == 3
    weakest, strongest = over_horizons(checks.get, [1, 2, 3], exists=False)
    assert not weakest.can_contradict and strongest.can_contradict and strongest.estimate.value == 1.0


def test_a_curve_still_accelerating_can_bend_on_log_log_axes():
    """R = t / (1 + t / 1e6): linear early, flattening late.  Its slope against ln t still grows
    over [1e5, 1e6] (not logarithmic), but on log-log axes it bends over: the two readings of
    'tends to converge' differ."""
    bend = evidence(run("r", lambda t: t / (1 + t / 3e5) / (100 * np.log(np.maximum(t, 2))), seed=4, jitter=0.01))
    grows = decided(bend, "flattening", experiment="exp", runs=["r"], horizon=1e6)
    bends = decided(bend, "flattening", experiment="exp", runs=["r"], horizon=1e6, scale="loglog")
    assert by_reading(grows)["horizon=T1e5"] is Verdict.CONTRADICTED
    assert set(by_reading(bends).values()) == {Verdict.REPRODUCED}
    linear = evidence(run("r", lambda t: t / (100 * np.log(np.maximum(t, 2))), seed=5, jitter=0.01))
    assert decided(linear, "flattening", experiment="exp", runs=["r"], scale="loglog").verdict \
        is not Verdict.REPRODUCED


@pytest.mark.parametrize("value", ["[1e5]", "[1e7, 1e5]", "[0, 1e5]", "\"1e5\""])
def test_the_loader_refuses_a_malformed_range(tmp_path, value):
    (tmp_path / "claims.toml").write_text(
        '[[claim]]\nid = "r"\nwhere = "w"\nstatement = "s"\ntest = "ratio"\nrun = "a"\nbaseline = "b"\n'
        f'expected = 1.0\nhorizon_range = {value}\n')
    with pytest.raises(dpbench.InputError, match="horizon_range"):
        load_claims(tmp_path / "claims.toml")
