"""Seed 003's claims table and its own measurements: each figure ordering is one claim decided under
both readings of the constants and both horizons, at the paper's repetitions; the estimator lemmas,
the lower-bound instances and Table 1 can fail (each against a broken variant); the front page's
observability finding is computed from the runs."""
import math
import tomllib
from types import SimpleNamespace

import numpy as np
import pytest

import dpbench
from dpbench.papers.seed003 import estimators, observability, report, theory
from dpbench.plugins import paper_folder
from dpbench.reporting.claims import Evidence, load_choices, load_claims

FOLDER = paper_folder("seed003")


def test_each_figure_ordering_is_one_claim_under_both_constants_and_horizons():
    choices = load_choices(FOLDER / "paper.toml")
    assert {r.id for r in choices["constants"].plausible} == {"printed", "scaled"}
    assert {r.id for r in choices["horizon"].plausible} == {"T1e5", "T1e6"}
    claims = {c.id: c for c in load_claims("003")}
    figures = [c for c in claims.values() if c.id.split(".")[0] in ("s1", "s2", "s3", "ldp")]
    assert len(figures) == 12 and not any(".paper." in c or ".scaled." in c for c in claims)
    for c in figures:
        variants = c.under(choices)
        assert len(variants) == 4
        for v in variants:
            keys = {r.choice: r.id for r in v.reading}
            want = "_paper" if keys["constants"] == "printed" else "_scaled"
            assert v.params["args"]["experiment"].endswith(want)
            assert v.horizon == {"T1e5": 1e5, "T1e6": 1e6}[keys["horizon"]]
    short = {key: (name, h) for key, name, h, _ in report.PLAN if key.endswith("_T1e5")}
    assert len(short) == 8 and all(h == 10 ** 5 and key == f"{name}_T1e5" for key, (name, h) in short.items())


def test_every_margin_says_where_it_comes_from():
    for c in load_claims("003"):
        args = c.params.get("args") or {}
        if any(k in c.params or k in args for k in ("tolerance", "within")):
            assert c.margin, c.id


def test_every_run_up_to_1e7_has_the_papers_repetitions():
    from dpbench.experiments.runner import experiment_from_raw
    files = sorted((FOLDER / "experiments").glob("*.toml")) + sorted((FOLDER / "checks").glob("*.toml"))
    raws = [tomllib.loads(p.read_text()) for p in files]
    raws += [report.worst_case_experiment(t) for t in report.WORST_T]
    raws += [report.declared_u_experiment(), report.lower_bound_experiment(), report.lemma4_experiment()]
    for raw in raws:
        exp = experiment_from_raw(raw)
        assert exp.paper_reps == 90, exp.name
        assert exp.reps >= (90 if exp.horizon <= 10 ** 7 else 20), exp.name
    assert all(reps is None for _, _, _, reps in report.PLAN)        # the files' sizes, not fewer


class _Ev(Evidence):
    quick = False


def claim(**args):
    from dpbench.reporting.claims import Claim
    return Claim("x", "w", "s", "computed", {"measure": "m", "args": args})


def test_dprucb_estimator_lemmas_hold_and_a_shrunk_radius_fails():
    """Lemma 11 at the paper's constant 18 has no failure; the same runs against a radius 100x
    smaller fail far more often than 2 delta (the test has teeth)."""
    means = estimators.dprucb_means(400, 100, v=0.9, eps=1.0, seed=7)
    u = estimators._settings_u(0.9)
    err = np.abs(means[:, -1] - 0.9)
    assert np.all(err <= estimators.dprucb_radius(100, 0.01, v=0.9, u=u, eps=1.0))
    assert np.mean(err > estimators.dprucb_radius(100, 0.01, v=0.9, u=u, eps=1.0, c=0.18)) > 0.02
    out = estimators.lemma11(claim(sims=300, ns=[10, 100], deltas=[0.01], cases=[[0.9, 1.0]]), _Ev({}))
    assert all("0/300 failures" in c.label for c in out.comparisons)


def test_exact_lemmas_hold_on_the_papers_laws_and_fail_on_a_broken_bound(monkeypatch):
    for fn in (estimators.lemma7, estimators.lemma10):
        (check,) = fn(claim(), _Ev({})).comparisons
        assert check.holds, fn.__name__
    # Lemma 7's companion with the exponent 1 - v replaced by -v (a wrong bound) fails
    real = estimators._tail_parts
    monkeypatch.setattr(estimators, "_tail_parts", lambda law, b: (real(law, b)[0], real(law, b)[1] * b))
    (check,) = estimators.lemma7(claim(), _Ev({})).comparisons
    assert not check.holds


def test_laplace_tail_and_bernstein():
    out = estimators.lemma5(claim(n=200_000, ts=[1.0, 2.0]), _Ev({}))
    assert all(c.p_value > 1e-4 for c in out.comparisons)
    assert all(c.power(1e-3, 10 ** 6) > 0.9 for c in out.comparisons)
    out = estimators.lemma6(claim(sims=20_000, n=50, bound=10.0, bounds=[0.05]), _Ev({}))
    assert out.comparisons[0].p_value < 1e-6


def test_lower_bound_instances_and_table1(monkeypatch):
    for fn in (theory.thm8_instance, theory.thm11_instance, theory.thm9_rate, theory.table1_tv2):
        assert all(c.holds for c in fn(claim(), _Ev({})).comparisons), fn.__name__
    assert all(c.holds for c in theory.table1(claim(), _Ev({})).comparisons)
    # a table whose LDP upper bound carried the algorithm-implied gap exponent no longer matches its theorem
    real = theory.table1_rows

    def broken(v):
        rows = real(v)
        row, upper, lower, registered, low = rows[1]
        rows[1] = (row, dict(upper, gap=-(2 + v) / v), lower, registered, low)
        return rows
    monkeypatch.setattr(theory, "table1_rows", broken)
    assert not all(c.holds for c in theory.table1(claim(), _Ev({})).comparisons)


def test_the_observability_finding_is_computed_from_the_runs():
    """Printed constants at T = 1e4: DPRSE stays in its first epoch, DPRUCB's index is wider than every
    gap; the finding gives the horizons from which they leave (the schedules' own)."""
    runs = {}
    for policy, label in (("dp_robust_se", "DPRSE"), ("dp_robust_ucb", "DPRUCB")):
        res = dpbench.simulate(policy, "pareto", horizon=10 ** 4, reps=3, seed=1,
                               env_params={"setting": "S1", "tail_v": 0.9}, v=0.9, eps=1.0, constants="paper")
        runs.setdefault("seed003_fig1_paper", SimpleNamespace(results={})).results[f"(d) / {label}"] = res
    rows = observability.phase_ends(runs)
    assert len(rows) == 2 and all(r["stuck"] and r["share"] > 0.95 for r in rows)
    se = next(r for r in rows if r["policy"] == "dp_robust_se")
    assert 1e6 < se["until"] < 1e7                         # spec 5.5: K R_1 < T only from T ~ 3e6 at v = 0.9
    line = observability.findings([], runs)[0]
    assert "2 of the 2 private runs" in line and "DPRSE (its first epoch ends) from T = 3.3e6" in line
    assert math.isfinite(max(r["until"] for r in rows))


@pytest.mark.parametrize("v", [0.5, 0.9])
def test_pareto_draws_have_the_environments_law(v):
    shape, scale = estimators.pareto_law(0.9, v)
    x = estimators.pareto_draws(np.random.RandomState(0), shape, scale, 200_000)
    assert x.min() >= scale and np.median(x) == pytest.approx(scale * 2 ** (1 / shape), rel=0.02)


def test_a_run_still_in_its_first_epoch_says_from_when_it_learns():
    """An exponent over runs still in their first epoch (printed constants, T = 1e4) is unobservable
    with the horizon its schedule ends at, never 'no registered bound says which'."""
    from dpbench.reporting.claims import Claim, evaluate, horizon_to_learn
    results = {}
    for d in (0.75, 0.375, 0.1875):
        res = dpbench.simulate("ldp_robust_se", "pareto", horizon=10 ** 4, reps=3, seed=2, v=0.9, eps=20.0,
                               constants="paper", env_params={"means": [0.9, 0.9 - d], "tail_v": 0.9})
        results[f"Delta={d}"] = res
    first = horizon_to_learn(results["Delta=0.75"], 10 ** 4)
    assert first is not None and first > 10 ** 8                 # LDPRSE's printed first epoch: R_1 ~ 1e8 and more
    run = SimpleNamespace(results=results, runs=[], experiment=SimpleNamespace(name="gaps", paper_horizon=None))
    c = Claim("e", "Theorem 7", "slope", "exponent", {"experiment": "gaps", "runs": list(results),
                                                        "values": [0.75, 0.375, 0.1875], "predicted": -1.11})
    (row,) = evaluate([c], Evidence({"gaps": run}))
    assert row.verdict.value == "unobservable at this horizon" and row.cause.startswith("needs T >= ")
