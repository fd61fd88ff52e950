"""Seed 004's report measurements that need no run: Lemmas 1-3 computed (each beside a negative
control that breaks what it checks), and the ratio's distribution over instances on synthetic runs."""
from types import SimpleNamespace

import numpy as np
import pytest

from dpbench.papers.seed004 import report as R


def _holds(outcome) -> bool:
    (check,) = outcome.comparisons
    return check.holds


def test_lemmas_1_to_3_hold_for_what_the_algorithms_use():
    for measure in (R.lemma1_net, R.lemma2_core_set, R.lemma3_good_event):
        out = measure(None, None)
        assert _holds(out), (measure.__name__, out.statistic)
    assert "up to 4.2" in R.lemma3_good_event(None, None).statistic        # eq. (26) understated (E2)


def test_negative_controls_a_net_with_holes_a_design_that_does_not_span_a_fat_tail(monkeypatch):
    import dpbench.environments.linear as linear
    import dpbench.policies.optimal_design as design
    from dpbench.reporting import measures as M
    net = linear.net_sphere_2d
    monkeypatch.setattr(linear, "net_sphere_2d", lambda zeta: net(zeta)[::3])          # every third point
    assert not _holds(R.lemma1_net(None, None))
    real = design.g_optimal_design

    def one_point(x, **kw):
        d = real(x, **kw)
        w = np.zeros_like(d.weights)
        w[int(np.argmax(d.weights))] = 1.0
        return design.Design(w, d.g, d.rank, d.basis, d.steps)
    monkeypatch.setattr(design, "g_optimal_design", one_point)
    assert not _holds(R.lemma2_core_set(None, None))
    monkeypatch.setattr(M, "laplace_sum_tail", lambda n, s, x: 1e-8)                   # 1e-8 per (i, a)
    assert not _holds(R.lemma3_good_event(None, None))


def _run(finals: dict, labels, reps=20, horizon=10**6):
    """An ExperimentRun-like object: run key -> result with the given mean final regret."""
    results = {k: SimpleNamespace(final_regrets=np.full(reps, float(v))) for k, v in finals.items()}
    specs = [SimpleNamespace(params=p) for p in labels]
    return SimpleNamespace(results=results, runs=specs, config={"reps": reps, "horizon": horizon})


def test_instance_ratios_are_per_instance_means_with_instance_0_and_the_figure_runs():
    names = {num for num, _ in R.COMPARISONS} | {den for _, den in R.COMPARISONS}
    base = {R.LS: 100.0, R.LS05: 50.0, R.BATCHED: 200.0}
    finals = {}
    for n, scale in ((0, 1.0), (1, 2.0), (2, 3.0)):
        for name in names:
            value = base.get(name, 210.0) * (scale if name != R.LS else 1.0)
            finals[f"instance {n} / {name}, instance {n}"] = value
    check = _run(finals, [{"instance_seed": n} for n in range(3)])
    fig2 = _run({key: base.get(name, 210.0) for name, key in R._FIG2_KEY.items()}, [], reps=50)
    rows = {(r["num"], r["den"]): r for r in R.instance_ratios({"instances": check, "seed004_fig2": fig2})}
    batched = rows[(R.BATCHED, R.LS)]
    assert batched["ratios"].tolist() == [2.0, 4.0, 6.0] and batched["fixed"] == 2.0
    assert batched["per_repetition"] == pytest.approx(2.0) and batched["fixed_run"] is None
    assert rows[("Alg. 1 central, eps=100", R.BATCHED)]["ratios"].tolist() == pytest.approx([1.05] * 3)
    assert R.instance_ratios({}) == []
