"""What seed 003's figures can show, and where: the front page's findings and the orderings figures.

With the constants the paper prints, every private run of its Figs 1-4 is still in a
data-independent phase at T = 1e6 (DPRSE and LDPRSE in their first epoch, DPRUCB with an index
wider than every gap, spec 5.5): :func:`findings` computes from the runs when each leaves it
(:func:`dpbench.reporting.schedules.schedule_limit`) and what the figures' orderings come to
under each reading of the constants.  :func:`figures` draws each ordering the paper reports on
one axis: the regret at T against eps (and against the setting, for the hardness ordering) per
algorithm and v, under each reading of the constants, at both horizon readings, with every
claim's verdict under that reading.
"""
from __future__ import annotations

import math

import numpy as np

from dpbench.reporting.markdown import fmt_t

#: the paper's figures: (key, its figure, the settings it draws)
PAPER_FIGURES = (("fig1", "Fig. 1", "S1"), ("fig3", "Fig. 3", "S2"), ("fig4", "Fig. 4", "S3"), ("fig2", "Fig. 2", "S3"))
MODE_TEXT = {"paper": "printed constants", "scaled": "constants / 12"}
MODE_READING = {"paper": "printed", "scaled": "scaled"}
PRIVATE = ("dp_robust_se", "ldp_robust_se", "dp_robust_ucb")
NAMES = {"dp_robust_se": "DPRSE", "ldp_robust_se": "LDPRSE", "dp_robust_ucb": "DPRUCB"}
#: colours of the algorithms (those of the redrawn figures: Robust UCB, DPRUCB, DPRSE in that order)
COLOURS = {"DPRUCB": "tab:orange", "DPRSE": "tab:green", "LDPRSE": "tab:purple",
           "DPRSE (central, eps = 1)": "tab:orange"}


# ------------------------------------------------------------------ findings
def phase_ends(runs, mode: str = "paper") -> list[dict]:
    """Every private run of the paper's figures under the constants ``mode``: its figure and panel,
    its share of uniform play's regret at its horizon and the horizon from which its
    data-independent phase (first epoch, or an index wider than every gap) ends before T (None:
    not before 2^53)."""
    from dpbench.reporting.claims import uniform_share
    from dpbench.reporting.schedules import schedule_limit
    out = []
    for fig, name, _ in PAPER_FIGURES:
        run = runs.get(f"seed003_{fig}_{mode}")
        if run is None:
            continue
        for key, res in run.results.items():
            if res.policy not in PRIVATE:
                continue
            t = int(res.checkpoints[-1])
            limit = schedule_limit(res, t)
            out.append({"figure": name, "panel": key.split(" ", 1)[0], "policy": res.policy, "t": t,
                        "share": uniform_share(res, t), "stuck": limit is not None,
                        "until": None if limit is None else limit.horizon,
                        "v": res.params.get("v"), "eps": res.params.get("eps")})
    return out


def _t(t) -> str:
    """A horizon in two digits: 3.3e6, 2.2e14."""
    return "beyond 2^53" if t is None else f"{float(t):.2g}".replace("e+0", "e").replace("e+", "e")


def _span(rows, *, with_v: bool = True) -> str:
    """The horizons from which ``rows`` leave their phase: 'T = A (v = .., eps = ..) to B (...)'."""
    known = sorted((r for r in rows if r["until"] is not None), key=lambda r: r["until"])

    def who(r):
        v = f"v = {r['v']:g}, " if with_v else ""
        return f"{_t(r['until'])} ({v}eps = {r['eps']:g})"
    if not known:
        return "T = " + _t(None)
    text = who(known[0]) if len(known) == 1 else f"{who(known[0])} to {who(known[-1])}"
    return f"T = {text}" + (" and beyond 2^53 for some" if len(known) < len(rows) else "")


def _figure_claims(results):
    return [r for r in results if r.claim.id.split(".")[0] in ("s1", "s2", "s3", "ldp")]


def _verdicts_under(rows, constants: str, horizon: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        for x in r.readings:
            keys = {c.choice: c.id for c in x.claim.reading}
            if keys.get("constants") == constants and keys.get("horizon") == horizon:
                out[x.verdict.value] = out.get(x.verdict.value, 0) + 1
    return out


def _tally(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda kv: -kv[1])) or "none decided"


def dprse_over_dprucb(runs, mode: str = "scaled") -> list[float]:
    """R(DPRSE) / R(DPRUCB) at the figures' horizon in every panel of Figs 1, 3, 4 (mode ``mode``)."""
    out = []
    for fig in ("fig1", "fig3", "fig4"):
        run = runs.get(f"seed003_{fig}_{mode}")
        if run is None:
            continue
        panels = {k.rsplit(" / ", 1)[0] for k in run.results}
        for p in sorted(panels):
            se, ucb = run.results.get(f"{p} / DPRSE"), run.results.get(f"{p} / DPRUCB")
            if se is not None and ucb is not None:
                out.append(float(se.final_regrets.mean() / ucb.final_regrets.mean()))
    return out


def findings(results, runs) -> list[str]:
    """Two lines for the front page: what the printed constants let the figures show (the
    horizons from which their runs leave round-robin, computed) and what the figures' orderings
    come to under each reading of the constants, with the panels no reading makes observable."""
    rows = phase_ends(runs)
    if not rows:
        return []
    stuck = [r for r in rows if r["stuck"]]
    shares = [r["share"] for r in stuck] or [r["share"] for r in rows]
    t = fmt_t(max(r["t"] for r in rows))
    parts = []
    for policy in PRIVATE:
        mine = [r for r in stuck if r["policy"] == policy]
        if mine:
            what = "its index no longer wider than every gap" if policy == "dp_robust_ucb" else "its first epoch ends"
            parts.append(f"{NAMES[policy]} ({what}) from {_span(mine)}")
    known = [r["until"] for r in stuck if r["until"] is not None]
    need = _t(max(known)) if known and len(known) == len(stuck) else _t(None)
    claims = _figure_claims(results)
    printed = {h: _verdicts_under(claims, "printed", h) for h in ("T1e5", "T1e6")}
    scaled = {h: _verdicts_under(claims, "scaled", h) for h in ("T1e5", "T1e6")}
    ratios = dprse_over_dprucb(runs)
    groups: dict[tuple, list] = {}
    for r in phase_ends(runs, "scaled"):
        if r["stuck"] and r["policy"] != "dp_robust_ucb":
            groups.setdefault((r["figure"], r["panel"], NAMES[r["policy"]]), []).append(r)
    unseen = []
    for (fig, panel, name), rs in groups.items():
        epss = ", ".join(format(r["eps"], "g") for r in rs)
        unseen.append(f"{name} in {fig}{panel} (eps = {epss}) is still in its first epoch at T = {t} and leaves it "
                      f"only from {_span(rs, with_v=False)}")
    line1 = (f"**The printed constants cannot have drawn the figures:** at T = {t}, {len(stuck)} of the {len(rows)} "
             f"private runs of Figs 1-4 are still in a data-independent phase (regret {min(shares):.0%} to "
             f"{max(shares):.0%} of uniform play's; DPRSE and LDPRSE exactly round-robin): "
             + "; ".join(parts) + f". The orderings the paper reports need T >= {need} with these constants (the spec "
             f"recommends T = 1e5 or 1e6). Under them the figures' orderings come out: at T = 1e5 "
             f"{_tally(printed['T1e5'])}; at T = 1e6 {_tally(printed['T1e6'])}.")
    line2 = ("**With every constant divided by 12** (the reading under which the figures are observable): "
             + (f"DPRSE's regret at T = {t} is {min(ratios):.2f} to {max(ratios):.2f} of DPRUCB's in the "
                f"{len(ratios)} panels of Figs 1, 3, 4; " if ratios else "")
             + f"the figures' orderings come out at T = 1e5 {_tally(scaled['T1e5'])}; at T = 1e6 "
             f"{_tally(scaled['T1e6'])} (each row says which reading gives which verdict)"
             + (f". Even so, {'; '.join(unseen)}: no reading here lets that panel show an ordering" if unseen else "")
             + ".")
    return [line1, line2]


# ------------------------------------------------------------------ figures
def _point(run, key: str, t: int | None = None):
    res = run.results.get(key) if run is not None else None
    if res is None:
        return None
    t = int(res.checkpoints[-1]) if t is None else t
    x = np.asarray(res.regret_at(t), dtype=float)
    half = 1.96 * x.std(ddof=1) / math.sqrt(x.size) if x.size > 1 else 0.0
    return float(x.mean()), half


def _marks(ax, results, ids, constants: str) -> list[str]:
    """The verdict of every claim of ``ids`` under ``constants`` at each horizon reading, listed
    under the panel; returns the claim ids marked."""
    from dpbench.reporting.paper_figures import SYMBOL
    lines, marked = [], []
    for r in results:
        if r.claim.id not in ids:
            continue
        for x in r.readings:
            keys = {c.choice: c.id for c in x.claim.reading}
            if keys.get("constants", constants) != constants:
                continue
            at = f" (T = {fmt_t(x.outcome.horizon)})" if x.outcome.horizon else ""
            lines.append(f"{SYMBOL[x.verdict]} {r.claim.id}{at}: {x.verdict.value}")
        marked.append(r.claim.id)
    if lines:
        ax.text(0.0, -0.13, "\n".join(dict.fromkeys(lines)), transform=ax.transAxes, fontsize=6.5, ha="left",
                va="top", color="0.1")
    return marked


def _series(ax, xs, points, colour, marker, label, short: bool):
    keep = [(x, p) for x, p in zip(xs, points) if p is not None]
    if not keep:
        return
    x = [k for k, _ in keep]
    y = [p[0] for _, p in keep]
    err = [p[1] for _, p in keep]
    ax.errorbar(x, y, yerr=err, color=colour, marker=marker, ms=4, lw=1.0, capsize=2,
                ls="--" if short else "-", mfc="white" if short else colour, label=label)


def _central_panel(ax, runs, fig, mode):
    letters = {(0.5, 0.5): "a", (0.5, 1.0): "b", (0.9, 0.5): "c", (0.9, 1.0): "d"}
    epss = (0.5, 1.0)
    for short in (True, False):
        run = runs.get(f"seed003_{fig}_{mode}" + ("_T1e5" if short else ""))
        if run is None:
            continue
        for alg in ("DPRUCB", "DPRSE"):
            for v, marker in ((0.5, "o"), (0.9, "s")):
                pts = [_point(run, f"({letters[(v, e)]}) v = {v}, eps = {e} / {alg}") for e in epss]
                label = f"{alg}, v = {v}, T = {fmt_t(int(run.config['horizon']))}"
                _series(ax, epss, pts, COLOURS[alg], marker, label, short)
    ax.set_xticks(epss)
    ax.set_xlim(0.4, 1.1)
    ax.set_xlabel("eps", fontsize=7)


def _ldp_panel(ax, runs, mode):
    epss = (5.0, 10.0, 20.0)
    for short in (True, False):
        run = runs.get(f"seed003_fig2_{mode}" + ("_T1e5" if short else ""))
        if run is None:
            continue
        horizon = fmt_t(int(run.config["horizon"]))
        for panel, v, marker in (("(a) v = 0.5", 0.5, "o"), ("(b) v = 0.9", 0.9, "s")):
            central = _point(run, f"{panel} / DPRSE (central, eps = 1)")
            if central is not None:
                _series(ax, epss, [central] * 3, COLOURS["DPRSE (central, eps = 1)"], marker,
                        f"DPRSE (central, eps = 1), v = {v}, T = {horizon}", short)
            pts = [_point(run, f"{panel} / LDPRSE eps = {e}") for e in epss]
            _series(ax, epss, pts, COLOURS["LDPRSE"], marker, f"LDPRSE, v = {v}, T = {horizon}", short)
    ax.set_xscale("log")
    ax.set_xticks(epss)
    ax.set_xticklabels([f"{e:g}" for e in epss])
    ax.set_xlabel("eps (LDPRSE)", fontsize=7)


def _hardness_panel(ax, runs, mode):
    settings = (("fig3", "S2"), ("fig1", "S1"), ("fig4", "S3"))            # H_v: S2 < S1 < S3
    xs = (0, 1, 2)
    panels = {"(a)": (0.5, 0.5), "(b)": (0.5, 1.0), "(c)": (0.9, 0.5), "(d)": (0.9, 1.0)}
    styles = {"(a)": ("o", "--"), "(b)": ("o", "-"), "(c)": ("s", "--"), "(d)": ("s", "-")}
    for alg in ("DPRUCB", "DPRSE"):
        for p, (v, e) in panels.items():
            pts = [_point(runs.get(f"seed003_{fig}_{mode}"), f"{p} v = {v}, eps = {e} / {alg}") for fig, _ in settings]
            keep = [(x, q) for x, q in zip(xs, pts) if q is not None]
            if keep:
                marker, ls = styles[p]
                ax.errorbar([x for x, _ in keep], [q[0] for _, q in keep], yerr=[q[1] for _, q in keep],
                            color=COLOURS[alg], marker=marker, ls=ls, ms=4, lw=1.0, capsize=2,
                            label=f"{alg}, v = {v}, eps = {e}")
    ax.set_xticks(xs)
    ax.set_xticklabels([s for _, s in settings])
    ax.set_xlim(-0.3, 2.3)
    ax.set_xlabel("setting (ordered by H_v = sum of Delta^(-1/v): S2 < S1 < S3)", fontsize=7)


def _finish(ax, title: str, horizon_text: str):
    from matplotlib.ticker import NullFormatter
    ax.set_yscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel(f"pseudo-regret R(T) {horizon_text}", fontsize=7)
    ax.set_title(title, fontsize=7.5)
    ax.tick_params(which="both", labelsize=6.5)
    ax.grid(True, which="both", alpha=0.25, lw=0.5)


def _two_panels():
    from dpbench.experiments.outputs import pyplot
    plt = pyplot()
    out, axes = plt.subplots(1, 2, figsize=(10.0, 5.8), squeeze=False)
    return out, list(axes[0])


def _legend_below(out, ax):
    """One legend for both panels, under the claims' marks."""
    handles, labels = ax.get_legend_handles_labels()
    out.legend(handles, labels, loc="lower center", ncol=4, fontsize=6.5, frameon=False, handlelength=2.5)
    out.subplots_adjust(left=0.07, right=0.98, top=0.95, bottom=0.34, wspace=0.22)


def figures(report, runs, results) -> None:
    """One figure per paper figure whose orderings compare runs of different panels, both
    readings of the constants side by side: R(T) against eps per algorithm and v (T = 1e6 solid,
    T = 1e5 dashed with open markers, 95% intervals); and the hardness ordering per setting."""
    from dpbench.reporting.front_page import anchor
    from dpbench.reporting.paper_figures import LEGEND
    for fig, name, setting in PAPER_FIGURES:
        if not any(runs.get(f"seed003_{fig}_{m}") for m in MODE_TEXT):
            continue
        prefix = "ldp" if fig == "fig2" else setting.lower()
        ids = {r.claim.id for r in results if r.claim.id.split(".")[0] == prefix}
        out, axes = _two_panels()
        marked = []
        for ax, mode in zip(axes, MODE_TEXT):
            if fig == "fig2":
                _ldp_panel(ax, runs, mode)
            else:
                _central_panel(ax, runs, fig, mode)
            marked += _marks(ax, results, ids, MODE_READING[mode])
            _finish(ax, f"{name} ({setting}), {MODE_TEXT[mode]}: the regret at T against eps", "at T")
        _legend_below(out, axes[0])
        linked = [r for r in results if r.claim.id in dict.fromkeys(marked)]
        caption = (f"{name}: the orderings the paper reports, each on one axis: mean pseudo-regret at T (T = 1e6 "
                   "solid; T = 1e5, its own runs, dashed with open markers; 95% intervals) against eps, per algorithm "
                   "and v, with the printed constants (left) and every constant divided by 12 (right); under each "
                   "panel every claim with its verdict under that panel's constants at each horizon. Marks: "
                   f"{LEGEND}. Claims: "
                   + ", ".join(f"[{r.claim.id}](#{anchor(r.claim.id)}) {r.verdict.value}" for r in linked) + ".")
        report.figure(out, f"{fig}_orderings", caption, paper_figure=name, claims=[r.claim.id for r in linked])
    ids = {r.claim.id for r in results if r.claim.id in ("hardness.dprse", "hardness.dprucb", "hardness_spec.dprse",
                                                           "hardness_spec.dprucb")}
    if ids and any(runs.get(f"seed003_fig1_{m}") for m in MODE_TEXT):
        out, axes = _two_panels()
        for ax, mode in zip(axes, MODE_TEXT):
            _hardness_panel(ax, runs, mode)
            _marks(ax, results, ids, MODE_READING[mode])
            _finish(ax, f"Sec. 6 hardness, {MODE_TEXT[mode]}: the regret at T = 1e6 per setting", "at T = 1e6")
        _legend_below(out, axes[0])
        linked = [r for r in results if r.claim.id in ids]
        caption = ("Sec. 6, 'S3 will have larger regret than S1 and S2 theoretically': mean pseudo-regret at T = 1e6 "
                   "(95% intervals) per setting, ordered by H_v, for each algorithm and (v, eps) panel of Figs 1, 3, "
                   "4, "
                   "printed constants (left) and constants / 12 (right); under each panel every claim with its verdict "
                   f"under that panel's constants. Marks: {LEGEND}. Claims: "
                   + ", ".join(f"[{r.claim.id}](#{anchor(r.claim.id)}) {r.verdict.value}" for r in linked) + ".")
        report.figure(out, "hardness", caption, paper_figure="Sec. 6", claims=[r.claim.id for r in linked])
