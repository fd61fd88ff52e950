"""Seed 004 report: Hanna, Girgis, Fragouli, Diggavi, "DP stochastic linear bandits: (almost) for free".

Claims checked (spec ``seed_004.md`` sections 8.2, 8.4, 9.3): regret
non-increasing in the budget and converging to the non-private batched
algorithm (A), the small-budget ordering local > shuffle >= central >= non-private
and "privacy for free" at eps >= 1 (B), the core-set ablation (C), the additive
1/eps law of the central model and the multiplicative one of the local model,
and the order bounds' T exponents (Theorems 1-3: every bound is order-only).
"""
from __future__ import annotations

from .common import (BOUND_HEADER, SWEEP_HEADER, Report, audit_section, ReportContext, all_bound_rows, finish, fmt,
                     fmt_ci, panel_sweep, quick_banner, registry_table, run_results, setup_lines,
                     status_cell, sweep_exponent_row)

PLAN = {"seed004_fig2": (None, None), "seed004_fig4": (None, None), "seed004_fig3b": (None, None)}
PANELS = {"linear_central": "(a) central (Alg. 1)", "linear_local": "(b) local (Alg. 2)",
          "linear_shuffle": "(c) shuffle (Alg. 3)"}


def claim_rows(runs) -> list[list]:
    rows = []
    for name in ("seed004_fig2", "seed004_fig4"):
        run = runs.get(name)
        if run is None:
            continue
        sweeps = {}
        for policy, panel in PANELS.items():
            sweep = panel_sweep(run, panel, policy, "eps")
            base = run_results(run, f"{panel} / non-private batched")
            if not sweep or base is None:
                continue
            sweeps[policy] = sweep
            xs = sorted(sweep)
            means = [float(sweep[x].final_regrets.mean()) for x in xs]
            se = [float(sweep[x].stderr[-1]) for x in xs]
            mono = all(means[i] + 2 * (se[i] + se[i + 1]) >= means[i + 1] for i in range(len(xs) - 1))
            ref = float(base.final_regrets.mean())
            top = means[-1] / ref
            rows.append([f"{name} {panel}: regret non-increasing in eps (within 2 s.e.)",
                         ", ".join(f"{x:g}: {fmt(m)}" for x, m in zip(xs, means)),
                         "**confirmed**" if mono else "**refuted**"])
            rows.append([f"{name} {panel}: at eps = {xs[-1]:g} within 10% of the non-private batched run (A)",
                         f"ratio {top:.3f}", "**confirmed**" if abs(top - 1) <= 0.1 else "**refuted**"])
            if policy != "linear_local":
                big = [x for x in xs if x >= 1.0]
                worst = max(float(sweep[x].final_regrets.mean()) / ref for x in big) if big else float("nan")
                rows.append([f"{name} {panel}: within 20% of non-private batched for eps >= 1 (B, 'for free')",
                             f"largest ratio {worst:.3f}", "**confirmed**" if worst <= 1.2 else "**refuted**"])
        if len(sweeps) == 3:
            small = sorted(set.intersection(*(set(s) for s in sweeps.values())))
            small = [x for x in small if x <= 0.1]
            ok = [float(sweeps["linear_local"][x].final_regrets.mean()) > float(sweeps["linear_shuffle"][x].final_regrets.mean())
                  >= float(sweeps["linear_central"][x].final_regrets.mean()) for x in small]
            rows.append([f"{name}: local > shuffle >= central at every eps <= 0.1 (B)", f"{sum(ok)}/{len(ok)} values",
                         "**confirmed**" if ok and all(ok) else "**refuted** in part" if ok else "n/a"])
    run = runs.get("seed004_fig3b")
    if run is not None:
        for panel in sorted({s.panel for s in run.runs}):
            specs = [s for s in run.runs if s.panel == panel and s.policy == "linear_central"]
            core = {float(s.params["eps"]): run_results(run, f"{panel} / {s.label}") for s in specs if "no-core" not in s.label}
            no_core = {float(s.params["eps"]): run_results(run, f"{panel} / {s.label}") for s in specs if "no-core" in s.label}
            common = [x for x in sorted(set(core) & set(no_core)) if x <= 1.0]
            ok = [float(no_core[x].final_regrets.mean()) > float(core[x].final_regrets.mean()) for x in common]
            rows.append([f"Fig. 3(b) {panel}: no-core-set > core set at every eps <= 1 (C)", f"{sum(ok)}/{len(ok)} values",
                         "**confirmed**" if ok and all(ok) else "**refuted** in part" if ok else "n/a"])
    return rows


def scaling_rows(runs) -> list[list]:
    run = runs.get("seed004_fig2")
    if run is None:
        return []
    return [
        sweep_exponent_row(run, PANELS["linear_local"], "linear_local", "eps", -1.0,
                           "9.3.3 local: R ~ 1/eps0 for eps0 << 1 (slope -1) below saturation",
                           baseline=f"{PANELS['linear_local']} / non-private batched", hi=0.3),
        sweep_exponent_row(run, PANELS["linear_central"], "linear_central", "eps", -1.0,
                           "9.3.2 central: the privacy part R - R_non-private is additive ~ 1/eps (slope -1)",
                           baseline=f"{PANELS['linear_central']} / non-private batched", hi=1.0,
                           subtract_baseline=True),
    ]


def exponent_rows(runs) -> list[list]:
    from verify import bounds
    from verify import regret_fits as rf
    rows = []
    run = runs.get("seed004_fig2")
    if run is None:
        return rows
    for policy, panel in PANELS.items():
        sweep = panel_sweep(run, panel, policy, "eps")
        for x in (0.1, 1.0):
            res = sweep.get(x)
            if res is None:
                continue
            chosen = [b for b in bounds.bounds_for(policy) if b.form == "order"]
            fit = rf.curve_exponent(res, bounds=chosen, ctx=bounds.context(res))
            for v in [c for c in fit.checks if "states no exponent" not in c.reason] or [fit.verdict]:
                rows.append([f"{panel}, eps = {x:g}", v.bound or "", fmt_ci(fit), status_cell(v)])
    return rows


def d_probe_row(horizon: int = 10 ** 6, reps: int = 20, eps: float = 0.1, dims=(2, 4, 8)) -> list:
    """Erratum E6 (Theorems 1 and 3 state no d; their proofs carry d and d^2): the privacy part
    R(Alg. 1) - R(non-private batched) on the instances A = {+-e_i}, theta* = e_1 / 2 (K = 2d,
    every gap 0.5 or 1, so only d changes).  The phase schedule makes the regret nearly the
    same in every repetition, so the row reports the values and their order, not an exponent."""
    import numpy as np
    from .. import simulate
    parts = {}
    for d in dims:
        actions = ";".join(",".join(f"{v:g}" for v in row) for row in np.vstack([np.eye(d), -np.eye(d)]))
        env = {"actions": actions, "theta": ",".join(["0.5"] + ["0"] * (d - 1))}
        private = simulate("linear_central", "linear", horizon, reps, 4004006, env_params=env, eps=eps)
        plain = simulate("linear_batched", "linear", horizon, reps, 4004006, env_params=env)
        parts[d] = float(private.final_regrets.mean() - plain.final_regrets.mean())
    grows = all(parts[a] < parts[b] for a, b in zip(dims, dims[1:]))
    shown = ", ".join(f"d={d}: {fmt(v)}" for d, v in parts.items())
    return ["E6", "Theorems 1 and 3 drop d; the proofs carry d and d^2",
            f"privacy part of Alg. 1's regret at eps = {eps:g}, T = {horizon:.0e}, A = {{+-e_i}} (K = 2d): {shown}; "
            "the registry keeps the proofs' d-dependence",
            "**confirmed**: the privacy cost grows with d" if grows else "not shown at this T (no strict growth in d)"]


def build(ctx: ReportContext) -> Report:
    report = Report(ctx, "Seed 004: Differentially private stochastic linear bandits: (almost) for free (Hanna et al.)")
    quick_banner(report)
    report.text("Paper: `../shared/seeds/004_*.txt`; spec: `seed_004.md`. The paper's results are qualitative "
                "(regret against the privacy budget); the acceptance criteria A-C are the spec's (8.4). "
                "Fig. 2 runs the corrected modes (errata E1-E5), Fig. 4 the paper-literal ones.")
    runs = {name: ctx.experiment(name, *sizes) for name, sizes in PLAN.items()}
    report.section("Setup")
    setup_lines(report, runs)
    report.section("Claims of the paper beside our measurements")
    report.table(["claim", "measurement", "verdict"], claim_rows(runs))
    report.section("Scaling laws (spec 9.3)", 3)
    report.table(SWEEP_HEADER, scaling_rows(runs))
    audit_section(report, [("laplace_pm1", {"eps": 1.0, "noise_scale": "calibrated"}, -1.0, 1.0),
                           ("laplace_pm1", {"eps": 1.0, "noise_scale": "paper"}, -1.0, 1.0)],
                  note="The second row is the paper-literal Laplace scale 1/eps on rewards in [-1, 1] "
                       "(erratum E1): it should be caught as 2 eps-DP.")
    report.section("Bound checks")
    report.text("Every theorem of this paper is order-only (an unstated constant C), so there are no "
                "explicit values to check; the order bounds are checked as exponents in T below "
                "(fixed instance, finite T: below 0.5 is expected, spec 6.3).")
    rows = all_bound_rows(runs)
    report.table(BOUND_HEADER, rows)
    report.section("Order-only bounds as T exponents", 3)
    report.table(["run", "bound", "T exponent [95% CI]", "verdict"], exponent_rows(runs))
    report.section("Registered bounds of seed 004", 3)
    registry_table(report, "004")
    report.section("Errata")
    report.table(["erratum", "statement", "evidence", "verdict"], [
        ["E1", "Laplace(1/eps) on rewards in [-1, 1] gives 2 eps-DP", "the audit section above (paper-literal row)",
         "see the audit verdict"],
        d_probe_row(),
        ["E12", "Theorem 3's condition eps = O(sqrt(log(1/delta)/T)) cannot be checked (unstated constant)",
         "seed004.thm3 always evaluates to *not applicable*", "**confirmed**"],
    ])
    return report


def write(ctx: ReportContext):
    return finish(build(ctx))
