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
from dpbench.reporting.claims import Claim, Evidence, Verdict, decide, evaluate, family_size
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


def alone(out, alpha=0.01):
    """The rule's verdict on one outcome, its family its own comparisons."""
    m = family_size([out])
    return decide(claim("x"), out, alpha / max(m, 1), family=m).verdict


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
    assert alone(out) is Verdict.REPRODUCED, out.statistic


def test_negative_control_a_foreign_level_bends_the_exponent(privacy_sweep):
    """Subtracting another algorithm's (lower) regret, as the old report did, flattens and bends
    the slope: the points are no power law, its lack-of-fit test rejects the claimed form and the
    slope's interval is widened by the misfit."""
    out = M.measure_level_exponent(exponent_claim("thompson"), privacy_sweep)
    c = out.comparisons[0]
    assert "lack of fit" in c.form_rejected and "widened by the misfit" in c.estimate.method, out.statistic
    # three points leave 1 df: the widened interval (t on 1 df) still reaches -1 +- 0.1
    assert alone(out) is Verdict.INCONCLUSIVE, out.statistic
    # the same points read as an average slope over the range (power_law = false): not rejected as
    # a form, the plain bootstrap interval decides
    avg = M.measure_level_exponent(exponent_claim("thompson", power_law=False), privacy_sweep)
    assert not avg.comparisons[0].form_rejected and "not a power law" in avg.statistic


def test_saturated_values_are_given_the_horizon_a_registered_bound_gives():
    """Every value of a sweep saturated at T (regret above half of uniform play's): the row is
    unobservable with the horizon at which Theorem 16 forces DP-FTPL-New below that share, not
    'no registered bound says which'."""
    from dpbench.reporting.claims import learning_horizon
    uniform = T * float(np.mean(max(MEANS) - np.asarray(MEANS)))
    runs = [("sweep", f"New, eps={e}", {"eps": e, "delta": 0.001},
             result(f"e{e}", 0.8 * uniform, params={"eps": e, "delta": 0.001}, seed=20 + i))
            for i, e in enumerate((1e-5, 3e-5, 1e-4))]
    ev = Evidence({"sweep": experiment(*runs)})
    c = claim("level_exponent", variable="eps", sweep={"experiment": "sweep", "panel": "sweep",
                                                       "policy": "dp_ftpl_new"}, subtract=False, predicted=0.0,
              tolerance=0.1)
    out = M.measure_level_exponent(c, ev)
    want = max(learning_horizon(r, share=0.5) for *_, r in runs)
    assert out.verdict is Verdict.UNOBSERVABLE and out.unobservable.horizon == pytest.approx(want)
    assert want > T


def test_saturated_values_with_only_an_order_bound_get_a_horizon_from_its_rate():
    """The same sweep of a policy whose registered bound is order-only (seed 004's Alg. 2, Theorem
    2: T^1/2): the horizon is where its share of uniform play's regret, falling like T^-1/2 from
    today's level, drops below the saturation share, said to be a lower estimate; never 'no
    registered bound says which'."""
    from dpbench.reporting.claims import uniform_share
    from dpbench.reporting.claims.rule import horizon_cause
    uniform = T * float(np.mean(max(MEANS) - np.asarray(MEANS)))
    runs = [("sweep", f"Alg. 2, eps={e}", {"eps": e},
             result(f"e{e}", 0.8 * uniform, policy="linear_local", params={"eps": e}, seed=30 + i))
            for i, e in enumerate((0.01, 0.02, 0.05))]
    ev = Evidence({"sweep": experiment(*runs)})
    c = claim("level_exponent", variable="eps", sweep={"experiment": "sweep", "panel": "sweep",
                                                       "policy": "linear_local"}, subtract=False, predicted=-1.0,
              tolerance=0.1)
    out = M.measure_level_exponent(c, ev)
    want = max(T * (uniform_share(r, T) / 0.5) ** 2 for *_, r in runs)
    assert out.verdict is Verdict.UNOBSERVABLE and out.unobservable.horizon == pytest.approx(want)
    assert "Theorem 2" in out.unobservable.reason and "lower estimate" in out.unobservable.reason
    assert horizon_cause(out.unobservable).startswith("needs T >= ")


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
    assert verdicts["reversed"].verdict is Verdict.CONTRADICTED
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


def worst_family(peak: float | None, *, uniform=False, policy="ucb1"):
    """A gap family (c in 0.5..8) at T = 1e4, 1e5, 1e6 whose final regret is sqrt(T) f(c), f
    peaked at ``peak`` (None: increasing in c, the worst at the grid's edge); ``uniform``: every
    run is uniform play (t x mean gap), the worst case the gap schedule's."""
    cs = (0.5, 1.0, 2.0, 4.0, 8.0)
    runs = {}
    for i, horizon in enumerate((10 ** 4, 10 ** 5, 10 ** 6)):
        cps = log_checkpoints(horizon)
        family = {}
        for j, c in enumerate(cs):
            gen = np.random.default_rng(100 * i + j)
            gap = min(0.9, c * math.sqrt(2.0 / horizon))
            shape = c if peak is None else math.exp(-(math.log(c / peak)) ** 2)
            curve = cps * gap / 2 if uniform else 0.3 * math.sqrt(horizon) * shape * np.log(cps) / math.log(horizon)
            regret = curve[None, :] * (1 + 0.03 * gen.standard_normal((20, 1)))
            family[f"Alg / c={c:g}"] = dpbench.SimulationResult(
                policy=policy, label=f"c={c:g}", environment="bernoulli", params={}, env_params={},
                horizon=horizon, seed=j, first_rep=0, checkpoints=cps, regret=regret,
                pulls=np.zeros((20, 2), dtype=np.int64), means=np.array([0.5 + gap / 2, 0.5 - gap / 2]))
        runs[f"w{i}"] = SimpleNamespace(results=family, runs=[], experiment=SimpleNamespace(paper_horizon=None))
    ev = Evidence(runs)
    predictions = {"sqrt(T)": math.sqrt}
    ev.measure("worst", lambda c, e: M.measure_worst_case(c, e, predictions))
    return ev


def test_a_worst_case_at_the_edge_of_its_grid_decides_nothing():
    """The slope of the worst regret over a gap family in T: an interior worst case decides (the
    sqrt(T) law reproduced); one at the grid's largest c is inconclusive whatever its slope (the
    maximum may lie beyond the grid); a family at uniform play is inconclusive too, not "unobservable
    at this horizon" (its slope is the gap schedule's, and no horizon decides it: a wider family
    does, which its cause names; a referee read the old label against its own 'not a longer horizon')."""
    args = dict(experiments=["w0", "w1", "w2"], panel="Alg", predicted="sqrt(T)", tolerance=0.05)
    rows = [Claim(name, "x", "x", "computed", {"measure": "worst", "args": args}) for name in ("w",)]
    interior = evaluate(rows, worst_family(2.0))[0]
    edge = evaluate(rows, worst_family(None))[0]
    uniform = evaluate(rows, worst_family(None, uniform=True))[0]
    assert interior.verdict is Verdict.REPRODUCED, interior.detail
    assert edge.verdict is Verdict.INCONCLUSIVE and "edge of the grid" in edge.detail
    assert uniform.verdict is Verdict.INCONCLUSIVE, uniform.detail
    assert uniform.cause.startswith("needs a gap family whose worst run learns by T"), uniform.cause
    # with no registered bound for its policy, what would decide it is a family with larger gaps,
    # not a horizon (at any T the unresolved gaps are uniform play): the cause says so, never
    # "no registered bound says which"
    unbound = evaluate(rows, worst_family(None, uniform=True, policy="users_own_policy"))[0]
    assert unbound.verdict is Verdict.INCONCLUSIVE, unbound.detail
    assert "gap family" in unbound.cause and "c=8" in unbound.cause, unbound.cause
    assert "no registered bound" not in unbound.cause


def test_two_fixed_schedules_at_the_papers_horizon_compare_exactly():
    """Two runs still in their start phase have the same regret in every repetition: at the
    paper's own horizon their order is a computed fact (exact), not a zero-width interval."""
    params = {"eps": 0.01, "delta": 1e-4}
    a = result("a", 2000.0, policy="dp_ftpl_gauss", params=params, seed=7, shape=lambda t: t / T)
    b = result("b", 3000.0, policy="dp_ftpl_gauss", params=params, seed=8, shape=lambda t: t / T)
    for r in (a, b):
        r.regret[:] = r.regret[0]                                     # a schedule: no spread
    run = experiment(("", "a", {}, a), ("", "b", {}, b))
    run.experiment = SimpleNamespace(paper_horizon=T)
    ev = Evidence({"e": run})
    ev.measure("pairs", M.measure_pairs)
    row = Claim("fixed", "x", "x", "computed", {"measure": "pairs", "args": {"experiment": "e", "pairs": [["a", "b"]]}})
    out = evaluate([row], ev)[0]
    assert out.verdict is Verdict.REPRODUCED and "fixed schedules" in out.detail and out.family == 0


# ------------------------------------------------------------------ audit claims, as stated
def test_a_mechanism_audit_claim_is_decided_on_both_layers_unless_it_says_law_only():
    """'CTL computed in plain floating point is 1-LDP as implemented' is contradicted (its floating
    point leaks: the row never states a violation in its measurement and a pass in its verdict);
    the same claim about the law alone (args.layer = "law") is not contradicted."""
    ev = Evidence()
    ev.quick = True                                   # n = 1e5 per input
    ev.measure("mechanism_audit", M.measure_mechanism_audit)
    base = {"mechanism": "ctl", "params": {"eps": 1.0, "arithmetic": "float"}, "x": 0.0, "x_prime": 1.0}
    implemented = evaluate([Claim("impl", "Thm 1", "CTL float is 1-LDP as implemented", "computed",
                                  {"measure": "mechanism_audit", "args": base})], ev)[0]
    assert implemented.verdict is Verdict.CONTRADICTED and "floating point" in implemented.cause
    law = evaluate([Claim("law", "Thm 1", "CTL float is 1-LDP in exact arithmetic", "computed",
                          {"measure": "mechanism_audit", "args": {**base, "layer": "law"}})], ev)[0]
    assert law.verdict is not Verdict.CONTRADICTED and "floating point" not in law.cause
    with pytest.raises(dpbench.InputError, match="args.layer"):
        M.audit_layers({"layer": "flaot"})


def test_references_without_an_experiment_are_in_args_experiment():
    """A sweep or run named without ``experiment`` is in ``args.experiment``, so a claim's reading
    can move every reference of a measurement to another experiment by that one key (seed 004's
    instance reading: seed004_fig2 -> seed004_fig2_fixed); ``at_least`` bounds a ratio from below."""
    def exp(level):
        runs = [("p", f"alg, eps={e}", {"eps": e}, result(f"a{e}", level * (1 + 0.05 * i), seed=10 + i))
                for i, e in enumerate((1.0, 2.0))]
        return experiment(*runs, ("p", "ref", {}, result("ref", 1000.0, seed=20)))
    ev = Evidence({"near": exp(1000.0), "far": exp(3000.0)})
    ev.measure("ratio_over", M.measure_ratio_over)
    def over(where, **bound):
        return Claim(f"{where}.{next(iter(bound))}", "x", "x", "computed", {"measure": "ratio_over", "args": {
            "experiment": where, "sweep": {"panel": "p", "policy": "dp_ftpl_new"}, "variable": "eps",
            "reference": "p / ref", **bound}})
    got = {r.claim.id: r.verdict for r in evaluate([over("near", at_most=1.2), over("far", at_most=1.2),
                                                      over("far", at_least=1.5)], ev)}
    assert got == {"near.at_most": Verdict.REPRODUCED, "far.at_most": Verdict.CONTRADICTED,
                   "far.at_least": Verdict.REPRODUCED}
    from dpbench.reporting.references import run_references

    assert {(r.experiment, r.run) for r in run_references(over("far", at_most=1.2))} >= {
        ("far", "panel:p"), ("far", "p / ref")}


def test_runs_that_met_the_same_instances_are_compared_pair_by_pair():
    """Instances drawn per repetition (seed 004): repetition r of every run of one master seed met
    the same instance, whose difficulty moves both runs together.  The pairs are compared pair by pair
    (paired bootstrap of the ratio, paired t of the difference), which the instance's spread no longer
    swamps; unpaired, the same numbers decide nothing.  Runs of other seeds or instances stay unpaired."""
    from verify.inference import bootstrap_estimate, mean_ratio, paired_difference_estimate
    hardness = np.random.default_rng(3).lognormal(0.0, 1.0, 50)             # the instances' spread
    noise = np.random.default_rng(4).normal(1.0, 0.02, (2, 50))
    def run(label, level, per_rep=True, seed=0):
        r = result(label, 1.0, reps=50, seed=seed)
        r.regret = r.regret * 0 + (level * hardness * noise[int(level > 1.05)])[:, None]
        r.info = {"instance_per_repetition": per_rep}
        return r
    base, up = run("base", 1.0), run("up", 1.1)
    ev = Evidence({"e": experiment(("", "base", {}, base), ("", "up", {}, up),
                                   ("", "fixed", {}, run("fixed", 1.1, per_rep=False)),
                                   ("", "other seed", {}, run("other seed", 1.1, seed=9)))})
    ev.measure("pairs", M.measure_pairs)
    def pair(low, high):
        return Claim(f"{low}<{high}", "x", "x", "computed", {"measure": "pairs",
                                                             "args": {"experiment": "e", "pairs": [[low, high]]}})
    got = {r.claim.id: r.verdict for r in evaluate([pair("base", "up"), pair("base", "fixed"),
                                                     pair("base", "other seed")], ev)}
    assert got == {"base<up": Verdict.REPRODUCED, "base<fixed": Verdict.INCONCLUSIVE,
                   "base<other seed": Verdict.INCONCLUSIVE}
    x, y = up.final_regrets, base.final_regrets
    assert bootstrap_estimate((x, y), mean_ratio, paired=True).se < 0.1 * bootstrap_estimate((x, y), mean_ratio).se
    d = paired_difference_estimate(x, y)
    assert d.value == pytest.approx(np.mean(x - y)) and d.df == 49


def test_every_verdict_has_a_figure_mark():
    """A figure marks each claim it carries with its verdict: every verdict the rule can give has a
    mark and a legend entry (a row that depends on the reading stopped the seed 004 build)."""
    from dpbench.reporting.paper_figures import LEGEND, SYMBOL
    assert set(SYMBOL) == set(Verdict) and all(f"{SYMBOL[v]} {v.value}" in LEGEND for v in Verdict)
