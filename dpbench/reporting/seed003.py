"""Seed 003 report: Tao, Wu, Zhao, Wang, "Optimal rates of (locally) private heavy-tailed MABs".

Claims checked (spec ``seed_003.md`` sections 5 and 7 F, D, G): the paper's
orderings (DPRSE beats DPRUCB; regret falls with eps and with v; LDP regret
above central; setting hardness S3 > S1 > S2), the literal-constant feasibility
caveat (round-robin regret (T/K) sum of gaps), Theorem 2 and Lemma 4 against the
central runs (the LDP runs use eps in {5, 10, 20}, outside every utility
theorem's eps <= 1: *not applicable*), and the order bounds' T exponents
(paper claim vs the spec's algorithm-implied correction of Theorem 7).
"""
from __future__ import annotations

from .common import (BOUND_HEADER, Report, audit_section, ReportContext, all_bound_rows, finish, fmt, fmt_ci,
                     quick_banner, registry_table, run_results, setup_lines, status_cell)

MODES = ("paper", "scaled")
SETTINGS = {"fig1": "S1", "fig3": "S2", "fig4": "S3"}
SUM_GAPS = {"S1": 2.0, "S2": 2.5, "S3": 1.5}
#: the paper ran 90 repetitions; the full report uses 30 to keep its run time reasonable
PLAN = {f"seed003_{fig}_{mode}": (None, 30) for fig in ("fig1", "fig2", "fig3", "fig4") for mode in MODES}
PANELS = [f"v = {v}, eps = {e}" for v in ("0.5", "0.9") for e in ("0.5", "1.0")]


def _final(run, key):
    r = run_results(run, key)
    return None if r is None else float(r.final_regrets.mean())


def claim_rows(runs) -> list[list]:
    rows = []
    for mode in MODES:
        for fig, setting in SETTINGS.items():
            run = runs.get(f"seed003_{fig}_{mode}")
            if run is None:
                continue
            wins = []
            for p in PANELS:
                se, ucb = _final(run, f"{p} / DPRSE"), _final(run, f"{p} / DPRUCB")
                if se is not None and ucb is not None:
                    wins.append(se < ucb)
            rows.append([f"{setting} ({mode}): DPRSE < DPRUCB", f"{sum(wins)}/{len(wins)} panels",
                         "**confirmed**" if wins and all(wins) else "**refuted**" if wins else "n/a"])
            for alg in ("DPRSE", "DPRUCB"):
                eps_ok = [(_final(run, f"v = {v}, eps = 0.5 / {alg}") or 0) > (_final(run, f"v = {v}, eps = 1.0 / {alg}") or 0)
                          for v in ("0.5", "0.9")]
                v_ok = [(_final(run, f"v = 0.5, eps = {e} / {alg}") or 0) > (_final(run, f"v = 0.9, eps = {e} / {alg}") or 0)
                        for e in ("0.5", "1.0")]
                rows.append([f"{setting} ({mode}) {alg}: regret(eps = 0.5) > regret(eps = 1); regret(v = 0.5) > regret(v = 0.9)",
                             f"eps: {sum(eps_ok)}/2, v: {sum(v_ok)}/2",
                             "**confirmed**" if all(eps_ok + v_ok) else "**refuted** in part"])
        run = runs.get(f"seed003_fig2_{mode}")
        if run is not None:
            for v in ("0.5", "0.9"):
                regs = [_final(run, f"v = {v} / LDPRSE eps = {e}") for e in ("5.0", "10.0", "20.0")]
                central = _final(run, f"v = {v} / DPRSE (central, eps = 1)")
                if None in regs:
                    continue
                dec = regs[0] > regs[1] > regs[2]
                rows.append([f"S3 LDP ({mode}), v = {v}: regret decreasing in eps (5, 10, 20)",
                             ", ".join(fmt(r) for r in regs), "**confirmed**" if dec else "**refuted**"])
                if central is not None:
                    rows.append([f"S3 ({mode}), v = {v}: LDP regret (eps = 5) > central DPRSE (eps = 1)",
                                 f"{fmt(regs[0])} vs {fmt(central)}",
                                 "**confirmed**" if regs[0] > central else "**refuted**"])
        hard = {}
        for fig, setting in SETTINGS.items():
            r = _final(runs.get(f"seed003_{fig}_{mode}"), "v = 0.5, eps = 1.0 / DPRSE")
            if r is not None:
                hard[setting] = r
        if len(hard) == 3:
            ok = hard["S3"] > hard["S1"] > hard["S2"]
            rows.append([f"hardness ({mode}), DPRSE v = 0.5, eps = 1: S3 > S1 > S2",
                         ", ".join(f"{s}: {fmt(x)}" for s, x in hard.items()), "**confirmed**" if ok else "**refuted**"])
    return rows


def feasibility_rows(runs) -> list[list]:
    """Spec 5.5 / F3: with the literal constants the algorithms are (nearly) round-robin: regret
    about (T/K) sum of gaps (0.4 T on S1, 0.5 T on S2, 0.3 T on S3)."""
    rows = []
    for fig, setting in SETTINGS.items():
        run = runs.get(f"seed003_{fig}_paper")
        if run is None:
            continue
        for alg in ("DPRSE", "DPRUCB"):
            for p in PANELS:
                r = run_results(run, f"{p} / {alg}")
                if r is None:
                    continue
                predicted = r.horizon / r.means.size * SUM_GAPS[setting]
                ratio = float(r.final_regrets.mean()) / predicted
                rows.append([f"{setting} {alg} {p}", fmt(predicted), fmt(float(r.final_regrets.mean())),
                             f"{ratio:.3f}", "**round-robin**" if abs(ratio - 1) < 0.05 else "learns"])
    return rows


def exponent_rows(runs) -> list[list]:
    """T-exponents of the scaled-mode curves on [T/100, T] against the order bounds of the registry."""
    from verify import bounds
    from verify import regret_fits as rf
    rows = []
    for name in ("seed003_fig2_scaled", "seed003_fig4_scaled"):
        run = runs.get(name)
        if run is None:
            continue
        for key, res in run.results.items():
            chosen = [b for b in bounds.bounds_for(res.policy) if b.form == "order"]
            if not chosen:
                continue
            fit = rf.curve_exponent(res, bounds=chosen, ctx=bounds.context(res))
            for v in [c for c in fit.checks if "states no exponent" not in c.reason] or [fit.verdict]:
                rows.append([name, key, v.bound or "", fmt_ci(fit), status_cell(v)])
    return rows


def declared_u_row(v: float = 0.9, eps: float = 2.0, horizon: int = 10 ** 7, reps: int = 20,
                   factors=(1, 2, 4, 8, 16)) -> list:
    """Erratum 5 (spec E4): DPRSE (scaled constants) on S1 with only the *declared* moment bound
    u changed (x1..x16 the true one).  The algorithm's pull counts grow as u^(1/v), Lemma 4
    states u^(1/(1+v)); the fitted exponent of the final regret in u tells them apart."""
    from verify import regret_fits as rf
    from verify.bounds.seed003 import exponent_table
    from .. import simulate
    from ..engine.simulate import build_environment
    from ..environments.heavy_tailed import moment_bound
    env = {"setting": "S1", "tail_v": v}
    true_u = moment_bound(build_environment("pareto", env), v, None)[0]
    runs = [simulate("dp_robust_se", "pareto", horizon, reps, 3003090, env_params=env, v=v, u=true_u * f,
                     eps=eps, constants="scaled") for f in factors]
    cap = 0.5 * horizon * float((runs[0].means.max() - runs[0].means).mean())
    kept = [(true_u * f, r) for f, r in zip(factors, runs) if float(r.final_regrets.mean()) < cap]
    paper, algorithm = exponent_table(v)["DPRSE N_a vs u"]
    fit = rf.power_law_fit([x for x, _ in kept], [r for _, r in kept], variable="u", predicted=algorithm,
                           tolerance=0.15)
    lo, hi = fit.ci if fit.ci else (float('nan'), float('nan'))
    verdict = ("**confirmed**: the algorithm's exponent, not Lemma 4's" if lo <= algorithm <= hi and not lo <= paper <= hi
               else "**refuted**" if lo <= paper <= hi else "inconclusive")
    return ["5 (u exponent)", "Alg 3 pulls ~ u^(1/v), Lemma 4 states u^(1/(1+v))",
            f"DPRSE, S1, v = {v:g}, eps = {eps:g}, T = {horizon:.0e}, declared u = true u x "
            f"{', '.join(f'{f:g}' for f in factors)} (unsaturated: {len(kept)}): exponent {fmt_ci(fit)}; "
            f"algorithm {algorithm:.3f}, paper {paper:.3f}", verdict]


def build(ctx: ReportContext) -> Report:
    report = Report(ctx, "Seed 003: Optimal rates of (locally) differentially private heavy-tailed MABs (Tao et al.)")
    quick_banner(report)
    report.text("Paper: `../shared/seeds/003_*.txt`; spec: `seed_003.md`. The paper gives no numbers, only "
                "orderings. With its literal constants every algorithm is near round-robin up to T = 1e7 "
                "(spec 5.5), so each experiment runs in the paper-literal and the constant-scaled mode. "
                "The paper ran 90 repetitions per configuration; this report uses 30.")
    runs = {name: ctx.experiment(name, *sizes) for name, sizes in PLAN.items()}
    report.section("Setup")
    setup_lines(report, runs)
    report.section("Claims of the paper beside our measurements")
    report.table(["claim", "measurement", "verdict"], claim_rows(runs))
    report.section("Literal-constant feasibility (spec 5.5, F3)", 3)
    report.table(["run", "round-robin regret (T/K) sum gaps", "measured", "ratio", "verdict"], feasibility_rows(runs))
    audit_section(report, [("truncated_laplace", {"eps": 1.0, "bound": 1.0}, -1.0, 1.0),
                           ("truncated_laplace", {"eps": 1.0, "bound": 1.0}, 0.0, 50.0)])
    report.section("Bound checks")
    report.text("Explicit bounds (Theorem 2 for DPRUCB, Lemma 4 for DPRSE) need eps <= 1 and the literal "
                "constants: scaled-mode runs and the LDP runs at eps in {5, 10, 20} are reported "
                "*not applicable* with the reason.")
    report.table(BOUND_HEADER, all_bound_rows(runs))
    report.section("Order-only bounds as T exponents (scaled mode)", 3)
    report.text("Per-repetition log-log slope of R(t) on [T/100, T] against the T exponent of each order "
                "bound (an upper bound needs slope <= exponent + 0.1). These are asymptotic statements about "
                "the worst case: a fixed instance at finite T checks consistency, not the rate. The LDP "
                "rows apply Theorem 7 as claimed and the spec's algorithm-implied correction side by side; "
                "at eps > 1 both are outside the theorem's hypotheses.")
    report.table(["experiment", "run", "bound", "T exponent [95% CI]", "verdict"], exponent_rows(runs))
    report.section("Registered bounds of seed 003", 3)
    registry_table(report, "003")
    report.section("Errata: confirmed or refuted")
    from verify.bounds.seed003 import exponent_table
    t = exponent_table(0.9)
    report.table(["erratum", "statement", "evidence", "verdict"], [
        declared_u_row(),
        ["7 (Theorem 7)", "LDPRSE's rate is Delta^(-(2+v)/v), T^((2+v)/(2(1+v))), not the paper's",
         f"at v = 0.9: T exponent {t['LDPRSE worst-case R_T vs T'][0]:.3f} (paper) vs {t['LDPRSE worst-case R_T vs T'][1]:.3f}",
         "needs a minimax (gap ~ T^-a) family; see the exponent table above for fixed instances"],
        ["12 (eps > 1)", "utility theorems assume eps <= 1; the LDP experiments use eps in {5, 10, 20}",
         "every bound check of the LDP runs is *not applicable* (eps <= 1 fails)", "**confirmed**"],
        ["5.5 (literal constants)", "literal constants make every algorithm round-robin at T <= 1e7",
         "see the feasibility table", "see table"],
    ])
    return report


def write(ctx: ReportContext):
    return finish(build(ctx))
