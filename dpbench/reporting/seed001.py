"""Seed 001 report: Ren et al. (v001), heterogeneous local privacy (HeLDP-UCB-L/B).

Claims checked (spec ``seed_000_001.md`` sections 2.5, 5 F7, 6.3, 7 items
13-17): the HoLDP ratios of Fig. 1(c,d) on mixed arms (1.6 / 8.6 at eps = 2,
74 / 210 at eps = 0.2) and how they move with T; the eps orderings of
Fig. 1(a,b); the eps_min claims of Fig. 1(e-h) and the V-based minimisers (F7);
the Fig. 2 regression of regret on V_L / V_B (paper R^2 = 0.9977) as a function
of T, with V_L and the alternative V_L'; Theorems 7 and 10 (minimised over
kappa) and Corollaries 8 and 11 against every run; the Appendix A.3 quantities.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .common import (BOUND_HEADER, RATIO_HEADER, SLOPE_RATIO_HEADER, RatioClaim, Report, ReportContext,
                     all_bound_rows, finish, flattening_values, fmt, fmt_ci, fmt_t, new_figure,
                     ordering_row, quick_banner, ratio_claim_rows, ratio_figure, registry_table, run_results,
                     setup_lines, slope_ratio_rows, status_cell)

#: experiment -> (horizon, reps); None keeps the TOML's value.  Fig. 1(c,d) run to 1e7 (20
#: repetitions): the paper's ratios are matched only near T = 1e7 (spec section 6).  Fig. 1(e-h)
#: are the same 16 configurations as Fig. 2, so only seed001_fig2 is run.
PLAN = {
    "seed001_fig1a": (None, None),
    "seed001_fig1b": (None, None),
    "seed001_fig1c": (10_000_000, 20),
    "seed001_fig1d": (10_000_000, 20),
    "seed001_fig2": (None, None),
}

EPS_DESC = ["2.0", "1.0", "0.5", "0.2"]
POOLS = {"F_D": ("discrete", [0.2, 1.0, 2.0, 100.0]), "F_G": ("truncated_gaussian", [0.5, 1.0, 1.5, 2.0])}

#: spec Appendix A.3: (pool, eps_min) -> (p0, alpha0, beta0, V_L, V_L', V_B)
A3 = {
    ("F_D", 0.2): (0.8, 6.5625, 27.019, 148.78, 158.12, 33.773),
    ("F_D", 1.0): (0.6, 0.41667, 2.4689, 19.490, 21.386, 4.1149),
    ("F_D", 2.0): (0.4, 0.12505, 1.3620, 12.602, 14.574, 3.4051),
    ("F_D", 100.0): (0.2, 0.0001, 1.0, 5.408, 5.408, 5.000),
    ("F_G", 0.5): (0.6915, 0.84395, 4.0810, 30.527, 31.603, 5.902),
    ("F_G", 1.0): (0.5000, 0.41276, 2.3673, 25.046, 25.488, 4.7347),
    ("F_G", 1.5): (0.3085, 0.25188, 1.7394, 29.038, 29.316, 5.6375),
    ("F_G", 2.0): (0.1587, 0.16936, 1.4285, 43.895, 44.134, 9.004),
}


def _claims():
    from verify.bounds.seed000_001 import F_L, beta
    return [
        RatioClaim("seed001_fig1c", "HeLDP-UCB-B", "UCB1", beta(2.0), 1.6, "Fig. 1(c), mixed, eps = 2: B/UCB1 = 1.6"),
        RatioClaim("seed001_fig1c", "HeLDP-UCB-L", "UCB1", F_L(2.0), 8.6, "Fig. 1(c), mixed, eps = 2: L/UCB1 = 8.6"),
        RatioClaim("seed001_fig1d", "HeLDP-UCB-B", "UCB1", beta(0.2), 74.0, "Fig. 1(d), mixed, eps = 0.2: B/UCB1 = 74"),
        RatioClaim("seed001_fig1d", "HeLDP-UCB-L", "UCB1", F_L(0.2), 210.0, "Fig. 1(d), mixed, eps = 0.2: L/UCB1 = 210"),
    ]


def _fig2_runs(run) -> dict:
    """(agent 'L'/'B', pool, eps_min) -> SimulationResult of the Fig. 2 experiment."""
    out = {}
    if run is None:
        return out
    for agent in ("L", "B"):
        for pool, (_, grid) in POOLS.items():
            for e in grid:
                res = run_results(run, f"{agent}, {pool}, eps_min={e}")
                if res is not None:
                    out[(agent, pool, e)] = res
    return out


def _at(results, t):
    """Lightweight copies whose final regrets are the regrets at checkpoint t."""
    return [SimpleNamespace(policy=r.policy, info=r.info, final_regrets=r.regret_at(t)) for r in results]


def v_regression_rows(fig2: dict) -> tuple[list[list], object]:
    """R^2 of the pooled and per-agent regressions of regret on V, at each power of ten <= T."""
    from verify import regret_fits as rf
    rows, final = [], None
    if not fig2:
        return rows, final
    results = list(fig2.values())
    horizons = [t for t in (10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7) if all(int(t) in set(r.checkpoints.tolist()) for r in results)]
    T = int(min(r.horizon for r in results))
    if T not in horizons:
        horizons.append(T)
    for t in horizons:
        pts = _at(results, t)
        pooled = rf.v_regression(pts)
        alt = rf.v_regression(pts, alternative=True)
        per = pooled.details.get("per_policy_r_squared", {})
        rows.append([fmt_t(t), fmt_ci(pooled, 4), fmt_ci(alt, 4), fmt(per.get("heldp_ucb_l")),
                     fmt(per.get("heldp_ucb_b")), status_cell(pooled.checks[0]) if pooled.checks else ""])
        final = pooled
    return rows, final


def minimiser_rows(fig2: dict) -> list[list]:
    """F7: the eps_min minimising / maximising mean regret, against the V-based prediction."""
    from verify import regret_fits as rf
    predicted = {("L", "F_D"): (100.0, 0.2), ("B", "F_D"): (2.0, 0.2),
                 ("L", "F_G"): (1.0, 2.0), ("B", "F_G"): (1.0, 2.0)}
    rows = []
    for (agent, pool), (best, worst) in predicted.items():
        runs = {e: r for (a, p, e), r in fig2.items() if a == agent and p == pool}
        if len(runs) < 2:
            continue
        means = {e: r.final_regrets.mean() for e, r in runs.items()}
        vs = {e: rf.heldp_v(r) for e, r in runs.items()}
        arg_min, arg_max = min(means, key=means.get), max(means, key=means.get)
        v_min, v_max = min(vs, key=vs.get), max(vs, key=vs.get)
        ok = arg_min == best and arg_max == worst
        rows.append([f"HeLDP-UCB-{agent}, {pool}",
                     ", ".join(f"{e:g}: {fmt(means[e])} (V = {fmt(vs[e])})" for e in sorted(means)),
                     f"best {best:g}, worst {worst:g} (V: {v_min:g}, {v_max:g})",
                     f"best {arg_min:g}, worst {arg_max:g}",
                     "**confirmed**" if ok else "**refuted**"])
    return rows


def build(ctx: ReportContext) -> Report:
    from dpbench.mechanisms.privacy_levels import level_statistics, make_levels

    report = Report(ctx, "Seed 001: Multi-armed bandits with heterogeneous local differential privacy (Ren et al.; v001)")
    quick_banner(report)
    report.text("Paper: `../shared/seeds/001_*.txt`; spec: `seed_000_001.md` (sections 2, 5 F7, 6.3). "
                "The HoLDP panels run HeLDP-UCB-L/B with eps_t = eps = eps_min.")
    runs = {name: ctx.experiment(name, *sizes) for name, sizes in PLAN.items()}
    report.section("Setup")
    setup_lines(report, runs)
    fig2 = _fig2_runs(runs.get("seed001_fig2"))

    # ------------------------------------------------------------ claims
    report.section("Quantitative claims of the paper beside our measurements")
    claims = _claims()
    rows, series = ratio_claim_rows(runs, claims)
    report.table(RATIO_HEADER, rows)
    ratio_figure(report, series, claims, "ratios", "HoLDP ratios on mixed arms against T (95% bootstrap "
                 "intervals); dotted: the paper's 1.6, 8.6, 74, 210.")

    report.section("Fig. 2: regression of regret on V", 3)
    report.text("Pooled OLS of the mean regret of the 16 configurations (2 agents x 2 privacy-level "
                "pools x 4 eps_min) on V (V_L for L, V_B for B; reconstruction R17: expectations "
                "conditional on eps_t >= eps_min), at each power of ten; 95% bootstrap intervals of R^2 "
                "over repetitions. The paper reports R^2 = 0.9977 (its T is not stated; spec 6.3 found "
                "0.54 at 1e5 and 0.90 at 1e6).")
    vrows, final = v_regression_rows(fig2)
    report.table(["T", "pooled R^2 [95% CI] with V_L", "pooled R^2 with V_L' (alternative)", "L only R^2",
                  "B only R^2", "verdict vs 0.9977"], vrows)
    if final is not None and final.applicable:
        fig, (ax,) = new_figure()
        v = np.array(final.details["V"])
        m = np.array(final.details["mean_regret"])
        keys = list(fig2)
        for agent, marker in (("L", "o"), ("B", "s")):
            idx = [i for i, k in enumerate(keys) if k[0] == agent]
            ax.scatter(v[idx], m[idx], marker=marker, label=f"HeLDP-UCB-{agent}")
        xs = np.linspace(0, v.max() * 1.05, 50)
        ax.plot(xs, final.details["intercept"] + final.details["slope"] * xs, "k--", lw=1,
                label=f"OLS, R^2 = {final.estimate:.4f}")
        ax.set_xlabel("V (V_L for L, V_B for B)")
        ax.set_ylabel("mean regret at T")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        report.figure(fig, "v_regression", "Seed 001 Fig. 2 reproduction: mean final regret of the 16 "
                                           "HeLDP configurations against V, with the pooled fit.")

    report.section("Qualitative claims", 3)
    rows = [
        ordering_row(runs.get("seed001_fig1a"), [f"HeLDP-UCB-L (eps={e})" for e in EPS_DESC],
                     "Fig. 1(a): HeLDP-UCB-L regret increases as eps decreases (HoLDP)"),
        ordering_row(runs.get("seed001_fig1b"), [f"HeLDP-UCB-B (eps={e})" for e in EPS_DESC],
                     "Fig. 1(b): HeLDP-UCB-B regret increases as eps decreases (HoLDP)"),
        ordering_row(runs.get("seed001_fig1c"), ["UCB1", "HeLDP-UCB-B", "HeLDP-UCB-L"],
                     "Fig. 1(c): UCB1 < HeLDP-UCB-B < HeLDP-UCB-L at eps = 2 (mixed)"),
        ordering_row(runs.get("seed001_fig1d"), ["UCB1", "HeLDP-UCB-B", "HeLDP-UCB-L"],
                     "Fig. 1(d): UCB1 < HeLDP-UCB-B < HeLDP-UCB-L at eps = 0.2 (mixed)"),
    ]
    for agent in ("L", "B"):
        for pool, (_, grid) in POOLS.items():
            run = runs.get("seed001_fig2")
            labels = [f"{agent}, {pool}, eps_min={e}" for e in grid]
            vals = flattening_values(run, labels) if run is not None else None
            if vals is None:
                continue
            flat = all(v < 1.5 for _, v in vals)
            rows.append([f"Fig. 1(e-h): HeLDP-UCB-{agent}, {pool}: curves flatten for every eps_min",
                         "late/early log-slope ratio: " + "; ".join(f"{lab.split('=')[-1]}: {v:.2f}" for lab, v in vals),
                         "**confirmed** (all < 1.5)" if flat else "**not yet** at this T (some ratio >= 1.5)"])
    report.table(["claim", "measurement", "verdict"], rows)
    report.section("F7: the eps_min minimising V minimises the regret", 3)
    report.table(["agent, pool", "mean final regret by eps_min", "predicted (by V)", "measured", "verdict"],
                 minimiser_rows(fig2))

    # ---------------------------------------------------- A.3 quantities
    report.section("Appendix A.3 quantities (exact, from the privacy-level distributions)", 3)
    rows = []
    for (pool, e), spec_vals in A3.items():
        kind = POOLS[pool][0]
        st = level_statistics(make_levels(kind), e)
        ours = (st["p0"], st["alpha0"], st["beta0"], st["V_L"], st["V_L_alt"], st["V_B"])
        ok = all(abs(a - b) <= 1e-3 * max(1.0, abs(b)) for a, b in zip(ours, spec_vals))
        rows.append([pool, fmt(e), ", ".join(fmt(x, 5) for x in ours), ", ".join(fmt(x, 5) for x in spec_vals),
                     "**confirmed**" if ok else "**differs**"])
    report.table(["pool", "eps_min", "ours: p0, alpha0, beta0, V_L, V_L', V_B", "spec A.3", "verdict"], rows)

    # ------------------------------------------------------------ bounds
    report.section("Bound checks")
    report.text("As in the seed 000 report: log-regret slopes on [T/100, T] and mean regrets +- 3 s.e. "
                "against every registered bound of each run's policy. Theorems 7 and 10 are minimised "
                "over kappa numerically; for homogeneous levels they equal Corollaries 8 and 11.")
    report.table(BOUND_HEADER, all_bound_rows(runs))
    report.section("Slope ratios against the theory factor (F2)", 3)
    report.table(SLOPE_RATIO_HEADER, slope_ratio_rows(runs, claims))
    report.section("Registered bounds of seed 001", 3)
    registry_table(report, "001")

    # ------------------------------------------------------------ errata
    report.section("Reconstruction log: confirmed or refuted")
    report.table(["id", "statement", "evidence", "verdict"], errata_rows(fig2, series))
    return report


def errata_rows(fig2, series) -> list[list]:
    import math

    from dpbench.mechanisms.privacy_levels import level_statistics, make_levels
    from verify import bounds
    from verify.bounds.seed000_001 import beta, forced_term_threshold
    st = level_statistics(make_levels("fixed", eps=2.0), 2.0)
    ctx = dict(means=[0.9, 0.8, 0.7], environment="bernoulli", T=1e6, eps=2.0, eps_min=2.0, **st)
    thm7, cor8 = bounds.get("seed001.thm7").evaluate(ctx).value, bounds.get("seed001.cor8").evaluate(ctx).value
    rows = [
        ["R9 / R10", "CTB's probability is (r e^eps + 1 - r)/(1 + e^eps), not (r eps + 1 - r)/(1 + eps)",
         f"only the e^eps form gives the paper's '1.7' at eps = 2: beta(2) = {beta(2.0):.3f}", "**confirmed**"],
        ["R11", "'((eps+1)/(eps-1))^2 = 1.7' at eps = 2 means ((e^eps+1)/(e^eps-1))^2",
         f"literal value 9 vs {beta(2.0):.3f}", "**confirmed**"],
        ["R15", "Thm 7's max spans the first two lines; the kappa term is outside",
         f"with this layout Thm 7 reduces to Cor 8 under HoLDP exactly ({thm7:.6g} vs {cor8:.6g} on a 3-arm instance)",
         "**confirmed**" if math.isclose(thm7, cor8, rel_tol=1e-9) else "**refuted**"],
        ["R17", "V_L, V_B are conditional on eps_t >= eps_min (else infinite)",
         "unconditionally E[beta(eps_t)] is infinite since P(eps_t = 0) = 0.2 under F_D; the A.3 table above "
         "matches the conditional definitions", "**confirmed**"],
        ["R18", "Cor 8 drops 10 Delta log T; true only for eps <= 33.9 (Delta <= 1)",
         f"threshold {forced_term_threshold(1.0):.1f}", "**confirmed**"],
        ["R17 (V_L vs V_L')", "the two readings of V_L differ by < 16% on the paper's grids",
         _v_alt_text(fig2), "see the Fig. 2 table (both R^2 reported)"],
        ["spec 2.5", "non-cooperating users under F_G: P(N(1,1) < 0) = 0.1587 (paper: 'about 20%')",
         f"{1 - level_statistics(make_levels('truncated_gaussian'), 1e-9)['p0']:.4f}",
         "**confirmed** (the paper's 20% is a rounding)"],
        ["spec 6.1 / 6.3", "the paper's numbers need T near 1e7 (ratios) and R^2 grows with T",
         _series_text(series), "see the claims and Fig. 2 tables"],
        ["R12-R14, R16, R19-R21", "line numbers, typos, time indices", "not testable by simulation "
         "(R16: the agents use log t with t the current round, as the authors' code)", "textual"],
    ]
    return rows


def _v_alt_text(fig2) -> str:
    from verify import regret_fits as rf
    diffs = [abs(rf.heldp_v(r, True) / rf.heldp_v(r) - 1) for (a, _, _), r in fig2.items() if a == "L"]
    return f"max relative difference over the L runs: {max(diffs):.1%}" if diffs else "Fig. 2 not available"


def _series_text(series) -> str:
    parts = []
    for (exp, lab), pts in series.items():
        parts.append(f"{lab} ({exp.split('_')[1]}): " + ", ".join(f"T={fmt_t(t)}: {e:.3g}" for t, e, _ in pts))
    return "; ".join(parts) or "n/a"


def write(ctx: ReportContext):
    return finish(build(ctx))
