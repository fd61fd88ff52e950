"""Seed 000 report: Ren et al., "Multi-armed bandits with local differential privacy" (v000).

Claims checked (spec ``seed_000_001.md`` sections 1.5, 5, 6, 7 items 13-16):
the privacy-cost ratios of Fig. 1(a) (1.6, 8.5 at eps = 2) and App. B Fig. 2(a)
(10, 15 at eps = 0.5) and how they move with T; the orderings of Fig. 1(c,d);
the bounds of Theorems 1, 4, 6 and Corollaries 10, 11 against every run
(log-regret slopes and values); the eps, gap and distribution-free scaling laws (F3-F5); the
Lemma 7 constants and exact sigmoid gaps (F6); the curators' privacy (audits);
and the reconstruction log's testable items.
"""
from __future__ import annotations

import math

import numpy as np

from .common import (AUDIT_HEADER, BOUND_HEADER, RATIO_HEADER, SLOPE_RATIO_HEADER, RatioClaim, Report,
                     ReportContext, audit_rows, bound_check_rows, bound_curve, finish, flattening_row, fmt,
                     fmt_ci, fmt_t, new_figure, ordering_row, plot_curves, quick_banner, ratio_claim_rows,
                     ratio_figure, registry_table, run_results, setup_lines, slope_ratio_rows, status_cell)

#: experiment -> (horizon, reps) for the full report; None keeps the TOML's value.
#: Fig. 1(b) and App. B Fig. 2(a) run to 1e7 (20 repetitions) because the paper's numbers
#: are matched only near T = 1e7 (spec section 6).
PLAN = {
    "seed000_fig1a": (None, None),
    "seed000_fig1b": (10_000_000, 20),
    "seed000_fig1c": (None, None),
    "seed000_fig1d": (None, None),
    "seed000_fig1e": (None, None),
    "seed000_fig1f": (None, None),
    "seed000_appB_fig2a": (10_000_000, 20),
    "seed000_appB_fig2b": (None, None),
    "seed000_appB_fig2c": (None, None),
    "seed000_check_gap_scaling": (None, None),
}

def _claims():
    from verify.bounds.seed000_001 import F_L, beta
    return [
        RatioClaim("seed000_fig1a", "LDP-UCB-B", "UCB1", beta(2.0), 1.6, "Fig. 1(a), Bernoulli, eps = 2: B/UCB1 = 1.6"),
        RatioClaim("seed000_fig1a", "LDP-UCB-L", "UCB1", F_L(2.0), 8.5, "Fig. 1(a), Bernoulli, eps = 2: L/UCB1 = 8.5"),
        RatioClaim("seed000_fig1b", "LDP-UCB-B", "UCB1", beta(0.2), None,
                   "Fig. 1(b), eps = 0.2: 'much larger', theory 101 (v001 reports 74 on mixed arms)"),
        RatioClaim("seed000_fig1b", "LDP-UCB-L", "UCB1", F_L(0.2), None,
                   "Fig. 1(b), eps = 0.2: 'much larger', theory 441 (v001 reports 210 on mixed arms)"),
        RatioClaim("seed000_fig1e", "LDP-UCB-B", "UCB1", beta(2.0), None, "Fig. 1(e), mixed, eps = 2: 'similar to Bernoulli'"),
        RatioClaim("seed000_fig1e", "LDP-UCB-L", "UCB1", F_L(2.0), None, "Fig. 1(e), mixed, eps = 2: 'similar to Bernoulli'"),
        RatioClaim("seed000_fig1f", "LDP-UCB-B", "UCB1", beta(0.2), None, "Fig. 1(f), mixed, eps = 0.2: 'similar to Bernoulli'"),
        RatioClaim("seed000_fig1f", "LDP-UCB-L", "UCB1", F_L(0.2), None, "Fig. 1(f), mixed, eps = 0.2: 'similar to Bernoulli'"),
        RatioClaim("seed000_appB_fig2a", "LDP-UCB-BS", "UCB1", beta(0.5), 10.0, "App. B Fig. 2(a), Gaussian, eps = 0.5: BS/UCB1-S = 10"),
        RatioClaim("seed000_appB_fig2a", "LDP-UCB-LS", "UCB1", F_L(0.5), 15.0, "App. B Fig. 2(a), Gaussian, eps = 0.5: LS/UCB1-S = 15"),
    ]


# --------------------------------------------------------------- constants
def lemma7_constants() -> dict:
    """E[s'(Z)] for Z ~ N(0,1) and sup_a a(1 - 2 exp(-v_a^2/2)) (Lemma 7's proof), by quadrature."""
    from scipy import integrate, optimize, stats

    def s(x):
        return 1.0 / (1.0 + np.exp(-x))
    es = integrate.quad(lambda z: s(z) * (1 - s(z)) * stats.norm.pdf(z), -40, 40)[0]

    def g(a):
        v = math.log(1 / (2 * a) - 1 + math.sqrt(1 / (4 * a * a) - 1 / a))
        return a * (1 - 2 * math.exp(-v * v / 2))
    res = optimize.minimize_scalar(lambda a: -g(a), bounds=(0.01, 0.2499), method="bounded")
    return {"E_s_prime": es, "sup": -res.fun, "argmax": res.x, "g_0107": g(0.107)}


def sigmoid_gaps(means) -> dict:
    """Exact E[s(mu + Z)], Z ~ N(0,1), the sigmoid gaps and sum Delta/(Delta^s)^2 (spec A.4, F6)."""
    from scipy import integrate, stats
    means = np.asarray(means, dtype=float)
    es = {m: integrate.quad(lambda z: stats.norm.pdf(z) / (1 + math.exp(-(m + z))), -40, 40)[0]
          for m in np.unique(means)}
    best = es[means.max()]
    gaps = means.max() - means
    sg = np.array([best - es[m] for m in means])
    mask = gaps > 0
    return {"E_s": es, "ratio": {float(g): float(d / g) for g, d in zip(gaps[mask], sg[mask])},
            "sum": float(np.sum(gaps[mask] / sg[mask] ** 2)), "S1": float(np.sum(1 / gaps[mask]))}


# ------------------------------------------------------------------ report
def build(ctx: ReportContext) -> Report:
    from verify import regret_fits as rf
    from verify.bounds import seed000_001 as s01

    report = Report(ctx, "Seed 000: Multi-armed bandits with local differential privacy (Ren, Liu, Zhou, Shroff; v000)")
    quick_banner(report)
    report.text("Paper: `../shared/seeds/000_*.txt`; implementation spec: `seed_000_001.md`. Every number "
                "below is recomputed by `dpbench report 000`; experiments run through `dpbench run` and "
                "their saved results are reused when the configuration is identical.")
    runs = {name: ctx.experiment(name, *sizes) for name, sizes in PLAN.items()}
    report.section("Setup")
    setup_lines(report, runs)

    # ------------------------------------------------------ quantitative claims
    report.section("Quantitative claims of the paper beside our measurements")
    report.text("Ratios are rho = mean regret of the private agent / mean regret of the non-private "
                "baseline at the same T, with 95% bootstrap intervals over repetitions. The paper does "
                "not state T; spec section 6 finds its numbers near T = 1e7. The verdict compares the "
                "paper's rounded value (+-0.05 below 2, else +-0.5) with the interval at our largest T.")
    claims = _claims()
    rows, series = ratio_claim_rows(runs, claims)
    report.table(RATIO_HEADER, rows)
    consts = lemma7_constants()
    from verify.bounds.seed000_001 import F_L, beta
    report.table(["claim (paper)", "paper value", "recomputed", "verdict"], [
        ["theory factor beta(2) ('upper bound 1.7' of the B ratio)", "1.7", fmt(beta(2.0)), "**confirmed** (1.724)"],
        ["theory factor (1 + 4/2)^2 ('upper bound 9.0' of the L ratio)", "9.0", fmt(F_L(2.0)), "**confirmed**"],
        ["theory factors at eps = 0.2 (441 L, 101 B)", "441 / 101", f"{fmt(F_L(0.2))} / {fmt(beta(0.2))}", "**confirmed**"],
        ["theory factors at eps = 0.5, App. B (81 L, 17 B)", "81 / 17", f"{fmt(F_L(0.5))} / {fmt(beta(0.5))}", "**confirmed**"],
        ["Lemma 7: E[s'(Z)] for standard Gaussian noise", "0.2066", fmt(consts["E_s_prime"], 6),
         "**confirmed**" if abs(consts["E_s_prime"] - 0.2066) < 5e-5 else "**refuted**"],
        ["Lemma 7: sup_a a(1 - 2 e^{-v_a^2/2}) >= 0.0765 (at a = 0.107)", ">= 0.0765",
         f"sup {consts['sup']:.6f} at a = {consts['argmax']:.4f}; {consts['g_0107']:.6f} at a = 0.107",
         "**confirmed**" if consts["g_0107"] >= 0.0765 else "**refuted**"],
        ["Remark after Thm 6: beta(eps) < (1 + 4/eps)^2 for every eps, difference shrinking",
         "qualitative", "F_L - beta: " + ", ".join(f"{F_L(e) - beta(e):.3g}" for e in (0.1, 0.2, 0.5, 1, 2, 5))
         + "; ratio F_L/beta: " + ", ".join(f"{F_L(e) / beta(e):.3g}" for e in (0.1, 0.2, 0.5, 1, 2, 5, 10)),
         "**confirmed** for the difference; the ratio is not monotone (spec Remark iv)"],
        ["Thm 1 'tight in order for eps <= 1': upper/lower slope ratio 128 cosh^4(eps/2) (B)", "O(1)",
         f"{s01.ratio_upper_to_lower(1.0, 'B'):.1f} at eps = 1, {s01.ratio_upper_to_lower(0.1, 'B'):.1f} at 0.1",
         "**confirmed**: bounded by 207 on eps <= 1"],
    ])
    ratio_figure(report, series, claims, "ratios", "Privacy-cost ratios against T with 95% bootstrap "
                 "intervals; dotted: the paper's values (1.6, 8.5, 10, 15).")

    report.section("Qualitative claims", 3)
    c_runs, d_runs = runs.get("seed000_fig1c"), runs.get("seed000_fig1d")
    eps_desc = ["2.0", "1.0", "0.5", "0.2"]
    report.table(["claim", "measurement", "verdict"], [
        ordering_row(runs.get("seed000_fig1a"), ["UCB1", "LDP-UCB-B", "LDP-UCB-L"],
                     "Fig. 1(a): UCB1 < LDP-UCB-B < LDP-UCB-L at eps = 2"),
        ordering_row(runs.get("seed000_fig1b"), ["UCB1", "LDP-UCB-B", "LDP-UCB-L"],
                     "Fig. 1(b): UCB1 < LDP-UCB-B < LDP-UCB-L at eps = 0.2"),
        ordering_row(c_runs, [f"LDP-UCB-L (eps={e})" for e in eps_desc],
                     "Fig. 1(c): LDP-UCB-L regret increases as eps decreases"),
        ordering_row(d_runs, [f"LDP-UCB-B (eps={e})" for e in eps_desc],
                     "Fig. 1(d): LDP-UCB-B regret increases as eps decreases"),
        flattening_row(c_runs, [f"LDP-UCB-L (eps={e})" for e in eps_desc],
                       "Fig. 1(c): convergence (flattening) slows as eps decreases"),
        flattening_row(d_runs, [f"LDP-UCB-B (eps={e})" for e in eps_desc],
                       "Fig. 1(d): convergence (flattening) slows as eps decreases"),
        ordering_row(runs.get("seed000_fig1e"), ["UCB1", "LDP-UCB-B", "LDP-UCB-L"],
                     "Fig. 1(e): same ordering on mixed arms, eps = 2"),
        ordering_row(runs.get("seed000_appB_fig2a"), ["UCB1", "LDP-UCB-BS", "LDP-UCB-LS"],
                     "App. B Fig. 2(a): 'the Bernoulli mechanism performs better than the Laplace mechanism'"),
        _invariance_row(runs),
    ])

    # ------------------------------------------------------------ bound checks
    report.section("Bound checks")
    report.text("For every run: the log-regret slope C of R(t) = a + C ln t on [T/100, T] (interval from "
                "per-repetition fits; *not applicable* when the local slopes of the two halves of the "
                "window differ by more than 20%, spec F1), compared with every registered slope bound "
                "(upper: its ln T coefficient may not lie below the interval; lower: not above it), and "
                "the mean regret +- 3 s.e. against every explicit bound at every checkpoint "
                "(the agents do not know T). Vacuous bounds (>= T x max gap) are marked.")
    rows = []
    for name, run in runs.items():
        if run is None or name.endswith("gap_scaling"):
            continue
        for key, res in run.results.items():
            rows += bound_check_rows(name, key, res)
    report.table(BOUND_HEADER, rows)
    fig1a = runs.get("seed000_fig1a")
    if fig1a is not None:
        fig, (ax,) = new_figure(width=6.0, height=4.0)
        curves = {lab: run_results(fig1a, lab) for lab in ("UCB1", "LDP-UCB-B", "LDP-UCB-L")}
        extra = {}
        for lab, key, name in (("UCB1", "auer2002.ucb1", "UCB1 bound"), ("LDP-UCB-B", "seed000.thm6", "Thm 6"),
                               ("LDP-UCB-L", "seed000.thm4", "Thm 4")):
            if curves[lab] is not None:
                values = bound_curve(curves[lab], key)
                if values is not None:
                    extra[lab] = {name: values}
        plot_curves(ax, curves, bounds_for_label=extra, title="Fig. 1(a), eps = 2, with the explicit bounds")
        report.figure(fig, "fig1a_bounds", "Fig. 1(a) runs (mean, 95% band) with the upper bounds of "
                                           "Auer et al., Theorem 6 and Theorem 4 (dashed).")
    report.section("Registered bounds of seed 000", 3)
    registry_table(report, "000")

    # ------------------------------------------------------------ scaling laws
    report.section("Scaling laws (spec section 5)")
    report.section("F2: slope ratios against the theory factor", 3)
    report.text("The papers compare value ratios with the bound factors; the factor bounds the ratio "
                "of the *upper-bound* slopes, not of the measured ones (spec 6.1: 'a comparison of "
                "bounds, not a theorem'). Reported, not asserted.")
    slope_rows = slope_ratio_rows(runs, claims)
    report.table(SLOPE_RATIO_HEADER, slope_rows)
    report.section("F3: eps scaling (Fig. 1(c), 1(d) sweeps)", 3)
    report.text("Slope of ln C against ln eps over the runs whose window is logarithmic; the "
                "prediction is the local slope of the theory factor over the same eps values "
                "(it tends to -2 as eps -> 0). Fit 2: C = k F(eps) (k and its R^2).")
    rows = []
    for name, prefix, fname in (("seed000_fig1c", "LDP-UCB-L", "F_L"), ("seed000_fig1d", "LDP-UCB-B", "beta")):
        run = runs.get(name)
        if run is None:
            continue
        by_eps = {float(e): r for e in eps_desc if (r := run_results(run, f"{prefix} (eps={e})")) is not None}
        fit, window = _with_last_decade(rf.privacy_scaling, by_eps, factor=fname, predicted=-2.0)
        excluded = fit.details.get("excluded", {})
        rows.append([prefix, window, fmt_ci(fit), fmt(fit.details.get("factor_local_slope")),
                     fmt(fit.details.get("k")), fmt(fit.details.get("k_r_squared")),
                     ", ".join(f"eps={e:g}" for e in excluded) or "none",
                     "; ".join(status_cell(c) for c in fit.checks) if fit.checks else status_cell(fit.verdict)])
    report.table(["agent", "window", "d ln C / d ln eps [95% CI]", "factor's local slope", "k", "R^2 of C = k F",
                  "excluded (not logarithmic)", "verdict"], rows)
    report.section("F4: gap scaling (two arms)", 3)
    gap_run = runs.get("seed000_check_gap_scaling")
    rows = []
    if gap_run is not None:
        for agent in ("UCB1", "LDP-UCB-B"):
            by_gap = {d: r for d in (0.05, 0.1, 0.2, 0.4) if (r := run_results(gap_run, f"{agent}, Delta={d}")) is not None}
            fit, window = _with_last_decade(rf.gap_scaling, by_gap)
            cd = fit.details.get("C_times_gap")
            rows.append([agent, window, fmt_ci(fit), ", ".join(fmt(x) for x in cd) if cd else "",
                         ", ".join(f"{d:g}" for d in fit.details.get("excluded", {})) or "none",
                         status_cell(fit.checks[0]) if fit.checks else status_cell(fit.verdict)])
    report.table(["agent", "window", "d ln C / d ln Delta [95% CI] (predicted -1)", "C x Delta by Delta",
                  "excluded (not logarithmic)", "verdict"], rows)
    report.section("F5: distribution-free scaling (two arms, worst gap)", 3)
    report.text("LDP-UCB-B on two Bernoulli arms 0.5 +- Delta/2 with Delta = c sqrt(2 ln T / (T eps^2)), "
                f"c in {', '.join(f'{c:g}' for c in F5_C)} (20 repetitions each); the worst mean regret over c "
                "against T and against eps. Prediction: the maximum of min(T Delta, 8 beta(eps) ln T / Delta) "
                "over Delta, sqrt(32 beta(eps) T ln T), whose local exponents over the same T and eps are given "
                "(0.5 plus the log factor in T; -1 as eps -> 0). The maximum over c is taken on the same "
                "repetitions as the fit (a small upward bias).")
    report.table(["law", "worst regret (argmax c)", "fitted exponent [95% CI]", "predicted", "verdict"],
                 distribution_free_rows())
    report.section("F6: exact sigmoid gaps (App. B Gaussian instance)", 3)
    from dpbench.environments import TWENTY_ARM_MEANS
    sg = sigmoid_gaps(TWENTY_ARM_MEANS)
    report.table(["quantity", "spec (A.4)", "recomputed", "verdict"], [
        ["E[s(0.9 + Z)]", "0.678683", f"{sg['E_s'][0.9]:.6f}", _close(sg["E_s"][0.9], 0.678683, 2e-6)],
        ["E[s(0.5 + Z)]", "0.602027", f"{sg['E_s'][0.5]:.6f}", _close(sg["E_s"][0.5], 0.602027, 2e-6)],
        ["gap ratios Delta^s/Delta", "0.1854, 0.1876, 0.1897, 0.1916",
         ", ".join(f"{v:.4f}" for _, v in sorted(sg["ratio"].items())), "**confirmed**: all >> c_s = 0.0760"],
        ["sum Delta/(Delta^s)^2", "2900.0 = 28.5 x S1", f"{sg['sum']:.1f} = {sg['sum'] / sg['S1']:.1f} x S1",
         _close(sg["sum"], 2900.0, 1.0)],
    ])

    # ------------------------------------------------------------------ audits
    report.section("Privacy of the curators (black-box audits)")
    rows, note = audit_rows([("ctl", {"eps": 1.0}, 0.0, 1.0), ("ctb", {"eps": 1.0}, 0.0, 1.0),
                             ("ctl_s", {"eps": 1.0}, -30.0, 30.0), ("ctb_s", {"eps": 1.0}, -30.0, 30.0)],
                            n=100_000 if ctx.quick else 1_000_000)
    if note:
        report.text(note)
    else:
        report.text("`verify.audit` at the claimed eps (certified lower bounds at confidence 1 - alpha; "
                    "a correct mechanism certifies no eps above its claim).")
        report.table(AUDIT_HEADER, rows)

    # ------------------------------------------------------------------ errata
    report.section("Reconstruction log and spec findings: confirmed or refuted")
    report.table(["id", "statement", "evidence", "verdict"], errata_rows(runs, series, slope_rows))
    return report


F5_C = (0.5, 1.0, 2.0, 4.0, 8.0)


def distribution_free_rows(horizons=(10 ** 4, 10 ** 5, 10 ** 6), eps_grid=(0.25, 0.5, 1.0)) -> list[list]:
    """Spec F5: worst-case regret over a gap grid scales as sqrt(beta(eps) T ln T)."""
    from verify import regret_fits as rf
    from .. import simulate
    from ..mechanisms.ldp_curators import bernoulli_factor

    def worst(horizon, eps):
        runs = {}
        for c in F5_C:
            gap = c * math.sqrt(2.0 * math.log(horizon) / (horizon * eps ** 2))
            if gap <= 0.9:
                runs[c] = simulate("ldp_ucb_b", "bernoulli", horizon, 20, 2000050, means=[0.5 + gap / 2, 0.5 - gap / 2],
                                   eps=eps)
        c = max(runs, key=lambda k: float(runs[k].final_regrets.mean()))
        return c, runs[c]

    def predicted(xs, f):
        return float(np.polyfit(np.log(xs), np.log([f(x) for x in xs]), 1)[0])

    def row(law, variable, xs, results, pred):
        fit = rf.power_law_fit(list(xs), [r for _, r in results], variable=variable, predicted=pred,
                               tolerance=0.1)
        shown = ", ".join(f"{x:g}: {fmt(float(r.final_regrets.mean()))} (c={c:g})" for x, (c, r) in zip(xs, results))
        return [law, shown, fmt_ci(fit), f"{pred:.3f}",
                status_cell(fit.checks[0]) if fit.checks else status_cell(fit.verdict)]

    rows = []
    eps0 = eps_grid[1]
    rows.append(row(f"R_max against T at eps = {eps0:g}", "T", horizons, [worst(t, eps0) for t in horizons],
                    predicted(horizons, lambda t: math.sqrt(t * math.log(t)))))
    t0 = horizons[-1]
    rows.append(row(f"R_max against eps at T = {t0:.0e}", "eps", eps_grid, [worst(t0, e) for e in eps_grid],
                    predicted(eps_grid, lambda e: math.sqrt(bernoulli_factor(e)))))
    return rows


def _with_last_decade(fitter, results: dict, **options):
    """A scaling fit on [T/100, T]; if too few runs are logarithmic there, on [T/10, T]."""
    if not results:
        return fitter(results, **options), ""
    T = float(next(iter(results.values())).horizon)
    fit = fitter(results, **options)
    if fit.applicable and not fit.details.get("excluded"):
        return fit, "[T/100, T]"
    late = fitter(results, window=(T / 10, T), **options)
    if late.applicable and (not fit.applicable or late.n_points > fit.n_points):
        return late, "[T/10, T]"
    return fit, "[T/100, T]"


def _close(x, y, tol):
    return "**confirmed**" if abs(x - y) <= tol else f"**refuted** (differs by {abs(x - y):.3g})"


def _invariance_row(runs) -> list:
    """Spec check 11: the CTB output law depends on the reward law only through its mean, so
    LDP-UCB-B's regret law is the same on Bernoulli and mixed arms (two-sample KS at t = T)."""
    from scipy import stats
    a = run_results(runs.get("seed000_fig1a"), "LDP-UCB-B")
    b = run_results(runs.get("seed000_fig1e"), "LDP-UCB-B")
    claim = "Spec check 11: LDP-UCB-B has the same regret law on Bernoulli and mixed arms (eps = 2)"
    if a is None or b is None:
        return [claim, "experiments not available", ""]
    t = int(min(a.horizon, b.horizon))
    if t not in set(a.checkpoints.tolist()) or t not in set(b.checkpoints.tolist()):
        return [claim, f"no common checkpoint at {t}", ""]
    x, y = a.regret_at(t), b.regret_at(t)
    p = stats.ks_2samp(x, y).pvalue
    return [claim, f"t = {fmt_t(t)}: means {fmt(x.mean())} (Bernoulli) vs {fmt(y.mean())} (mixed); KS p = {p:.3g}",
            "**confirmed** (no difference detected at 1%)" if p > 0.01 else "**refuted** (KS p < 0.01)"]


def errata_rows(runs, series, slope_rows=()) -> list[list]:
    from verify.bounds.seed000_001 import F_L, beta, forced_term_threshold
    b = series.get(("seed000_fig1a", "LDP-UCB-B"), [])
    lb = series.get(("seed000_fig1a", "LDP-UCB-L"), [])
    big = {t: e for t, e, _ in b}
    bigl = {t: e for t, e, _ in lb}
    ratios = ", ".join(f"T={fmt_t(t)}: {big[t]:.2f} / {bigl.get(t, float('nan')):.2f}" for t in sorted(big))
    hits_b = sorted(t for t, _, ci in b if ci[0] - 0.05 <= 1.6 <= ci[1] + 0.05)
    hits_l = sorted(t for t, _, ci in lb if ci[0] - 0.5 <= 8.5 <= ci[1] + 0.5)
    rows = [
        ["R1", "LDP-UCB-L radius sqrt(2 log t/N) + sqrt(32 log t/(eps^2 N))",
         f"with this radius rho_L(eps=2) = {ratios or 'n/a'} (B / L)",
         "**supported**: the paper's 8.5 is reproduced near T = 1e7" if any(bigl.get(t, 0) >= 8.0 for t in bigl)
         else "not decided at this T"],
        ["R5", "Thm 4 constant 1 + 2 pi^2/3 (each tail <= 2 t^-4)", f"1 + 4 sum t^-2 = 1 + 2 pi^2/3 = {1 + 2 * math.pi ** 2 / 3:.4f}",
         "**confirmed** (arithmetic)"],
        ["R6", "Remark after Thm 6 names LDP-UCB-L; it means LDP-UCB-B", "the factor ((e^eps+1)/(e^eps-1))^2 appears only in Thm 6",
         "**confirmed** (textual)"],
        ["R11", "v001's ((eps+1)/(eps-1))^2 '= 1.7' at eps = 2 must be ((e^eps+1)/(e^eps-1))^2",
         f"literal formula: {((2 + 1) / (2 - 1)) ** 2:g}; with e^eps: {beta(2.0):.3f}", "**confirmed**"],
        ["R18", "Cor 8 drops 10 Delta log T; valid only while 8 (1+4/eps)^2 >= 10 Delta^2",
         f"threshold eps = {forced_term_threshold(1.0):.1f} for Delta = 1", "**confirmed** (the registry keeps the max)"],
        ["spec 1.5 / 6.1", "the paper's ratios are matched only near T = 1e7, not at the code's default 1e5",
         f"rho_B / rho_L at eps = 2: {ratios or 'n/a'}; B within 1.6 +- 0.05 at "
         f"{', '.join(fmt_t(t) for t in hits_b) or 'no T'}, L within 8.5 +- 0.5 at {', '.join(fmt_t(t) for t in hits_l) or 'no T'}",
         "**confirmed** for L (T = 1e7, not 1e5); **refuted** as a joint statement: no single T matches both numbers"
         if hits_l and hits_b and not set(hits_b) & set(hits_l) else
         ("**confirmed**: both matched at T = " + ", ".join(fmt_t(t) for t in sorted(set(hits_b) & set(hits_l)))
          if set(hits_b) & set(hits_l) else "not matched at the horizons run")],
        _slope_erratum(slope_rows),
        ["spec 6.2", "App. B at T = 1e7: rho_BS = 10.0, rho_LS = 19.3 (paper: 10 / 15)",
         _series_text(series, "seed000_appB_fig2a", ("LDP-UCB-BS", "LDP-UCB-LS")), "compare in the claims table"],
        ["R2-R4, R7, R8", "typos and sign slips in the proofs", "not testable by simulation", "textual"],
        ["F_L vs beta", "'beta(eps) < (1+4/eps)^2 for all eps'", f"min over eps in [1e-3, 1e3] of F_L - beta = "
         f"{min(F_L(e) - beta(e) for e in np.logspace(-3, 3, 400)):.3g}", "**confirmed**"],
    ]
    return rows


def _slope_erratum(slope_rows) -> list:
    claim = "at eps = 2 the late slope ratio C_L/C_UCB1 (about 10.8) exceeds F_L(2) = 9"
    for exp, ratio, cell, _, position in slope_rows:
        if exp == "seed000_fig1a" and ratio.startswith("LDP-UCB-L"):
            verdict = ("**confirmed**" if position == ">= factor" else
                       "**refuted**" if position == "<= factor" else "not decided (interval straddles 9 or fit n/a)")
            return ["spec 6.1", claim, f"C_L/C_UCB1 = {cell}", verdict]
    return ["spec 6.1", claim, "Fig. 1(a) not available", ""]


def _series_text(series, exp, labels) -> str:
    parts = []
    for lab in labels:
        pts = series.get((exp, lab), [])
        parts.append(f"{lab}: " + (", ".join(f"T={fmt_t(t)}: {e:.3g}" for t, e, _ in pts) or "n/a"))
    return "; ".join(parts)


def write(ctx: ReportContext):
    return finish(build(ctx))
