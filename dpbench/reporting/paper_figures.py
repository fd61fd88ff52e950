"""The paper's figures, redrawn from a report's runs, with the claims they carry marked.

Every experiment file of a paper's ``experiments/`` folder is one of its figures (or one panel
of it: files titled ``Fig. 1(a)``, ``Fig. 1(b)``, ... are drawn as the panels of one figure).
A panel whose runs sweep a parameter shows the final regret against it (log axes where the
values span a decade; its fixed runs as horizontal bands); any other panel shows the mean
regret over t with its 95% band.  The claims about a figure (those naming its experiment) are
marked where they are tested:

* an ordering (``ordering``, ``argmin``, ``pairs``, ``sweep_dominance``): the tested runs' means
  with their 95% intervals at the tested horizon, on a dotted line labelled with the claims;
* a crossing (``crossing``): the measured crossing time with its interval, and the claimed band;
* an exponent on a sweep panel (``exponent``, ``level_exponent``): the fitted slope and its
  interval (at the report's family level) drawn as a fan through the fitted points' centre;
* any other claim of a panel (a dominance over a sweep, a flattening, a ratio of its runs):
  listed with its verdict in the panel's legend.

Each figure is linked from its claims and lists them, with their verdicts, in its caption.
:func:`ratio_figure` draws every ``ratio`` claim over T against its expected band.
"""
from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..experiments.outputs import band_strip, draw_band, pyplot
from .claims import ClaimResult, Verdict
from .front_page import anchor

#: marks of a verdict inside a figure (the caption spells them out)
SYMBOL = {Verdict.REPRODUCED: "✓", Verdict.CONTRADICTED: "✗", Verdict.INCONCLUSIVE: "?",
          Verdict.UNOBSERVABLE: "…", Verdict.NOT_CHECKED: "–", Verdict.DEPENDS: "±", Verdict.CONSISTENT: "○"}
LEGEND = ("✓ reproduced, ✗ contradicted, ± depends on the reading, ○ consistent (cannot fail), ? inconclusive, "
          "… unobservable at this horizon, – not checked; an ordering is marked once per reading decided on the "
          "figure's runs, with that reading's verdict, at the horizon it tests")
ORDERING = {"ordering", "argmin", "pairs", "sweep_dominance"}
SLOPES = {"exponent", "level_exponent"}
PANEL_SIZE = (3.9, 3.2)                      # inches per panel (at the report's 200 dpi: 780 x 640 px)
_FIG = re.compile(r"\bFig(?:ure)?s?\.?\s*(\d+)(\([a-z]\))?")


def _kind(claim) -> str:
    return claim.params.get("measure", "") if claim.test in ("computed", "value") else claim.test


# ------------------------------------------------------------------ which figures
def paper_figure(exp) -> tuple[str, str]:
    """(``"Fig. 4"``, panel letter or "") the experiment's title names (("", "") if none)."""
    m = _FIG.search(exp.title or "")
    return (f"Fig. {m.group(1)}", (m.group(2) or "").strip("()")) if m else ("", "")


def draw_all(report, paper, plan: dict, runs: dict, results: Sequence[ClaimResult], ev=None) -> None:
    """One figure per figure of the paper: every planned run of an experiment of the paper's
    ``experiments/`` folder (``paper.toml``'s ``[figures.KEY]`` may retitle, skip or set its x
    axis), single-panel files of one paper figure drawn side by side."""
    from .references import run_references
    folder = (paper.folder / "experiments").resolve()
    groups: dict[str, list] = {}
    for key, planned in plan.items():
        exp, run = planned.experiment, runs.get(key)
        if run is None or exp is None or exp.path is None or Path(exp.path).resolve().parent != folder:
            continue
        settings = dict(paper.figures.get(key, {}))
        if settings.get("skip"):
            continue
        fig, letter = paper_figure(exp)
        fig = settings.get("paper_figure", fig)
        group = fig if (fig and letter and "paper_figure" not in settings) else key
        groups.setdefault(group, []).append(Member(key, exp, run, letter, fig, settings))
    by_key: dict[str, dict] = {}
    for r in results:
        for key in dict.fromkeys(ref.experiment for x in r.readings for ref in run_references(x.claim)):
            by_key.setdefault(key, {})[r.claim.id] = _on(r, key)
    for group, members in groups.items():
        linked: dict[str, ClaimResult] = {}
        for m in members:
            linked.update(by_key.get(m.key, {}))
            if m.experiment.name not in plan:
                linked.update(by_key.get(m.experiment.name, {}))
        _draw_group(report, group, members, list(linked.values()), by_key, ev)


@dataclass
class Member:
    """One experiment run drawn in a figure (a whole figure, or one panel of it)."""
    key: str
    experiment: object
    run: object
    letter: str                  # its panel letter in the paper's figure ("a"), if one
    paper_figure: str            # "Fig. 4"
    settings: dict               # paper.toml's [figures.KEY]


def _panels(members) -> list[tuple]:
    """(member, panel name, title) of every panel of a figure group."""
    out = []
    for m in members:
        names = list(dict.fromkeys(s.panel for s in m.run.runs))
        for panel in names:
            title = panel or (f"({m.letter}) " + _title(m.experiment.title) if m.letter else "")
            out.append((m, panel, title))
    return out


def _title(title: str) -> str:
    """An experiment's title without its "Seed NNN Fig. N(x):" prefix."""
    return re.sub(r"^(Seed \d+ )?(App\. [A-Z] )?Figs?\. \d+(\([a-z]\))?( / Fig\. \d+(\([a-z]\))?)?: ?", "",
                  title).strip()


def _draw_group(report, group: str, members, linked: list[ClaimResult], by_key: dict, ev=None) -> None:
    from .markdown import fmt_t
    panels = _panels(members)
    if not panels:
        return
    ncols = min(len(panels), 4 if len(panels) > 6 else (3 if len(panels) in (3, 5, 6) else 2))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = _figure(nrows, ncols)
    colours = _colours([s.label for m, _, _ in panels for s in m.run.runs])
    for ax, (m, panel, title) in zip(axes, panels):
        run, exp = m.run, m.experiment
        specs = [s for s in run.runs if s.panel == panel]
        x = str(m.settings.get("x", "t"))
        mine = [r for r in by_key.get(m.key, {}).values()
                if any(_in_panel(ref, m.key, panel, run) for ref in _refs(r))]
        if x != "t" and any(s.sweep_group and x in s.params for s in specs):
            _sweep_panel(ax, exp, run, specs, x, colours, mine, ev, xlabel=m.settings.get("xlabel"))
            drawn = SLOPES
        else:
            _curve_panel(ax, exp, run, specs, colours, mine, m.key, ev)
            drawn = ORDERING | {"crossing", "flattening"}
        _listed(ax, [r for r in mine if _kind(r.claim) not in drawn])
        ax.set_title("\n".join(textwrap.wrap(title, 62)[:2]), fontsize=7.5)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    first = members[0]
    run0 = first.run
    fig.tight_layout(pad=0.4)
    paper_fig = first.paper_figure
    if len(members) > 1:
        name, title = group.replace("Fig. ", "fig").replace(" ", "_"), group
    else:
        name, title = first.key, first.settings.get("title") or _title(first.experiment.title)
    claims = ", ".join(f"[{r.claim.id}](#{anchor(r.claim.id)}) {r.verdict.value}" for r in linked)
    caption = (f"{paper_fig or first.experiment.name}: {title}. T = {fmt_t(run0.config['horizon'])}, "
               f"{run0.config['reps']} repetitions (seed {run0.config['seed']}); mean pseudo-regret with its 95% "
               "band over t, or final regret against the swept parameter with its 95% interval. "
               f"Marks: {LEGEND}." + (f" Claims: {claims}." if claims else ""))
    report.figure(fig, _file_name(report, name), caption, paper_figure=paper_fig,
                  claims=[r.claim.id for r in linked])


def _file_name(report, name: str) -> str:
    taken = {f.name for f in report.figure_refs}
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", name.removeprefix(f"{report.name}_"))
    out, i = base, 2
    while out in taken:
        out, i = f"{base}_{i}", i + 1
    return out


def _figure(nrows: int, ncols: int):
    plt = pyplot()
    fig, axes = plt.subplots(nrows, ncols, figsize=(PANEL_SIZE[0] * ncols, PANEL_SIZE[1] * nrows), squeeze=False)
    return fig, list(axes.flat)


def _colours(labels) -> dict:
    import matplotlib
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    names = [_family(label) for label in labels]
    return {n: cycle[i % len(cycle)] for i, n in enumerate(dict.fromkeys(names))}


def _family(label: str) -> str:
    """A run's curve family: its label without the swept value (``"DP-FTPL-Gauss, delta=0.01"``
    -> ``"DP-FTPL-Gauss"``)."""
    return re.sub(r"[,(]?\s*\b[A-Za-z_]+\s*=\s*[-+0-9.e]+\)?\s*$", "", label).strip() or label


def _refs(r: ClaimResult):
    from .references import run_references
    return [ref for x in r.readings for ref in run_references(x.claim)] or list(run_references(r.claim))


def _on(r: ClaimResult, key: str) -> ClaimResult:
    """The row as a figure of experiment ``key`` shows it: the readings decided on its runs (a
    reading may name other runs: another horizon, another instance), with their verdict where they
    agree."""
    from dataclasses import replace

    from .references import run_references
    mine = tuple(x for x in r.readings if any(ref.experiment == key for ref in run_references(x.claim)))
    if not mine or len(mine) == len(r.readings):
        return r
    verdicts = {x.verdict for x in mine}
    return replace(r, readings=mine, verdict=verdicts.pop() if len(verdicts) == 1 else r.verdict)


def _in_panel(ref, key: str, panel: str, run) -> bool:
    if ref.experiment != key and ref.experiment != run.experiment.name:
        return False
    if ref.run is None:
        return True
    if ref.run.startswith("panel:"):
        return ref.run[6:] == panel
    return any(s.panel == panel and (ref.run == _key(s) or ref.run == s.label) for s in run.runs)


def _key(spec) -> str:
    return f"{spec.panel} / {spec.label}" if spec.panel else spec.label


# ------------------------------------------------------------------ drawing
def _curve_panel(ax, exp, run, specs, colours, claims, key=None, ev=None):
    bands = []
    shades = _shades(specs, colours)
    for s in specs:
        res = run.results.get(_key(s))
        if res is None:
            continue
        lo, hi = res.ci95
        floor = 1e-9 if exp.yscale == "log" else -np.inf
        colour = shades[_key(s)]
        draw_band(ax, res.checkpoints, res.mean, np.maximum(lo, floor), hi, colour, _legend_label(s.label),
                  reps=res.reps)
        if res.reps > 1:
            bands.append((res.checkpoints, res.mean, lo, hi, colour))
    ax.set_xscale("log")
    if exp.yscale == "log":
        ax.set_yscale("log")
        ax.set_ylim(bottom=1.0)
    _orderings(ax, run, specs, claims, colours, key, ev)
    _flattening(ax, specs, claims)
    cps = [float(c) for s in specs if (res := run.results.get(_key(s))) is not None for c in res.checkpoints]
    if cps:
        _crossings(ax, claims, (min(cps), max(cps)))
    ax.set_xlabel("t (pulls)", fontsize=7)
    ax.set_ylabel("pseudo-regret", fontsize=7)
    _finish(ax)
    if bands:
        band_strip(ax, bands, size="22%", fontsize=6.5).set_xlabel("t (pulls)", fontsize=7)


def _shades(specs, colours) -> dict:
    """A colour per run of a panel: its family's, and for several runs of one family (a sweep)
    shades of it from light to dark in the order of the runs."""
    from matplotlib.colors import to_rgb
    by_family: dict[str, list] = {}
    for s in specs:
        by_family.setdefault(_family(s.label), []).append(s)
    out = {}
    for family, members in by_family.items():
        base = np.array(to_rgb(colours.get(family, "k")))
        n = len(members)
        for i, s in enumerate(members):
            if n == 1:
                out[_key(s)] = tuple(base)
            else:
                f = -0.55 + 0.95 * i / (n - 1)          # light (mixed with white) to dark (with black)
                out[_key(s)] = tuple(base + (1 - base) * -f) if f < 0 else tuple(base * (1 - f))
    return out


def _legend_label(label: str) -> str:
    return label if len(label) <= 38 else label[:36] + "…"


def _plain_ticks(axis):
    """Tick labels of a log axis as plain numbers (0.5, 2); minor ones (2 and 5 of a decade) only
    when the axis, as drawn, spans less than a decade."""
    from matplotlib.ticker import FormatStrFormatter, FuncFormatter

    def minor(value, _pos):
        low, high = axis.get_view_interval()
        lead = f"{value:.0e}"[0]
        return f"{value:g}" if low > 0 and high / low < 10 and lead in "25" else ""
    axis.set_major_formatter(FormatStrFormatter("%g"))
    axis.set_minor_formatter(FuncFormatter(minor))


def _finish(ax):
    ax.tick_params(which="both", labelsize=6.5)
    ax.grid(True, which="both", alpha=0.25, lw=0.5)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=5.5, loc="best", framealpha=0.7, handlelength=1.5)


def _listed(ax, claims):
    """The panel's claims no mark of its kind draws (a dominance over a sweep, a flattening, a
    ratio of two of its runs), listed with their verdicts in the panel's legend (where the legend
    is placed, it keeps clear of the curves)."""
    if claims:
        for r in claims:
            ax.plot([], [], ls="none", label=f"{SYMBOL.get(r.verdict, '?')} {r.claim.id}")
        _finish(ax)


def _tested(claims, kinds):
    """(row, horizon, verdict) of every reading of the ``kinds`` claims: a claim decided under
    several horizon readings is marked at each, with that reading's verdict."""
    for r in claims:
        if _kind(r.claim) not in kinds:
            continue
        for x in r.readings:
            if x.outcome.horizon:
                yield r, int(x.outcome.horizon), x.verdict


def _orderings(ax, run, specs, claims, colours, key=None, ev=None):
    """The ordering claims of this panel: under each reading a claim is decided under (the runs it
    names in this experiment, the horizon it tests; not when the report made another run of the
    experiment to that horizon, which the reading reads instead), the tested runs' means and 95%
    intervals, on a dotted line labelled with the claims and that reading's verdict."""
    from .references import run_references
    at: dict[int, list[str]] = {}
    for r in claims:
        if _kind(r.claim) not in ORDERING:
            continue
        for x in r.readings:
            if not x.outcome.horizon:
                continue
            t = int(x.outcome.horizon)
            names = {ref.run for ref in run_references(x.claim) if ref.run and not ref.run.startswith("panel:")
                     and ref.experiment in (run.experiment.name, key)
                     and (ev is None or ev.run_at(ref.experiment, x.claim.horizon) is run)}
            drawn = False
            for s in specs:
                if _key(s) in names or s.label in names:
                    res = run.results.get(_key(s))
                    if res is None or t not in set(int(c) for c in res.checkpoints):
                        continue
                    v = res.regret_at(t)
                    half = 1.96 * v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else 0.0
                    ax.errorbar([t], [v.mean()], yerr=[[half], [half]], fmt="o", ms=3, capsize=2, lw=0.8,
                                color=colours.get(_family(s.label), "k"), zorder=5)
                    drawn = True
            mark = f"{SYMBOL[x.verdict]} {r.claim.id}"
            if drawn and mark not in at.get(t, []):
                at.setdefault(t, []).append(mark)
    for t, labels in at.items():
        ax.axvline(t, ls=":", lw=0.8, color="0.3")
        ax.text(t, 0.02, "\n".join(labels), transform=ax.get_xaxis_transform(), fontsize=5.5, ha="right",
                va="bottom", color="0.15", bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="0.7", alpha=0.8))


def _flattening(ax, specs, claims):
    """Flattening claims about this panel's runs: the two decades they compare, [T/100, T/10] and
    [T/10, T], shaded at the tested horizon and labelled with the claims and their verdicts."""
    from .references import run_references
    here = {_key(s) for s in specs} | {s.label for s in specs}
    at: dict[int, list[str]] = {}
    for r, t, verdict in _tested(claims, {"flattening"}):
        if any(ref.run in here for ref in run_references(r.claim)) and \
                (label := f"{SYMBOL[verdict]} {r.claim.id}") not in at.get(t, []):
            at.setdefault(t, []).append(label)
    for t, labels in at.items():
        for lo, hi, shade in ((t / 100, t / 10, 0.05), (t / 10, t, 0.1)):
            ax.axvspan(lo, hi, color="0.2", alpha=shade, lw=0)
        ax.text(t / 100, 0.98, "flattening:\n" + "\n".join(labels), transform=ax.get_xaxis_transform(),
                fontsize=5.5, ha="right", va="top", color="0.15",
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="0.7", alpha=0.8))


def _crossings(ax, claims, span: tuple[float, float]):
    """Crossing claims: the measured crossing time (its interval at the family level) and the
    claimed band, on the time axis (clipped to the checkpoints ``span``)."""
    lo_t, hi_t = span

    def clip(a, b):
        a, b = max(a, lo_t), min(b, hi_t)
        return (a, b) if a < b else None
    for r in claims:
        if _kind(r.claim) != "crossing":
            continue
        for d in r.decisions:
            c = d.comparison
            est = getattr(c, "estimate", None)
            if est is None or not math.isfinite(est.value):
                continue
            if math.isfinite(c.low) and math.isfinite(c.high) and (band := clip(math.exp(c.low), math.exp(c.high))):
                ax.axvspan(*band, facecolor="none", edgecolor="0.4", hatch="////", lw=0, label="claimed crossing")
            if not est.degenerate and not est.exact:
                ci = est.interval(r.alpha / max(r.family, 1))
                if band := clip(math.exp(ci.low), math.exp(ci.high)):
                    ax.axvspan(*band, color="tab:red", alpha=0.12, lw=0)
            if lo_t <= math.exp(est.value) <= hi_t:
                ax.axvline(math.exp(est.value), color="tab:red", lw=0.9,
                           label=f"{SYMBOL[r.verdict]} {r.claim.id}: crossing ~ {math.exp(est.value):,.0f}")


def _sweep_panel(ax, exp, run, specs, variable, colours, claims, ev=None, xlabel=None):
    groups: dict[str, list] = {}
    flat = []
    for s in specs:
        res = run.results.get(_key(s))
        if res is None:
            continue
        if s.sweep_group and isinstance(s.params.get(variable), (int, float)):
            groups.setdefault(s.sweep_group, []).append((float(s.params[variable]), res, s))
        else:
            flat.append((s, res))
    xs_all = [x for pts in groups.values() for x, _, _ in pts]
    points = {}
    for pts in groups.values():
        pts.sort(key=lambda p: p[0])
        xs = np.array([x for x, _, _ in pts])
        means = np.array([r.final_regrets.mean() for _, r, _ in pts])
        half = np.array([1.96 * r.final_regrets.std(ddof=1) / math.sqrt(r.reps) if r.reps > 1 else 0.0
                         for _, r, _ in pts])
        name = _family(pts[0][2].label)
        colour = colours.get(name)
        ax.errorbar(xs, means, yerr=half, marker="o", ms=2.5, lw=1.0, capsize=1.5, color=colour,
                    label=_legend_label(name))
        points[pts[0][2].policy] = points.get(pts[0][2].policy, []) + list(zip(xs, means))
    for s, res in flat:
        m = res.final_regrets.mean()
        half = 1.96 * res.final_regrets.std(ddof=1) / math.sqrt(res.reps) if res.reps > 1 else 0.0
        colour = colours.get(_family(s.label))
        ax.axhline(m, ls="--", lw=0.9, color=colour, label=_legend_label(s.label))
        if half > 0:
            ax.axhspan(m - half, m + half, color=colour, alpha=0.15, lw=0)
    positive = xs_all and min(xs_all) > 0
    if positive and max(xs_all) / min(xs_all) >= 10:
        ax.set_xscale("log")
    if exp.yscale == "log":
        ax.set_yscale("log")
    _slopes(ax, claims, points, ev)
    if exp.yscale == "log":
        _plain_ticks(ax.yaxis)
    ax.set_xlabel(xlabel or variable, fontsize=7)
    ax.set_ylabel(f"regret at T = {int(run.config['horizon']):,}", fontsize=7)
    _finish(ax)


def _slopes(ax, claims, points: dict, ev=None):
    """Exponent claims on a sweep panel: the fitted slope and its interval (at the family's
    level) as a fan through the centre (in log-log) of the points the claim fits (the values
    its measurement says it kept, else every swept value in its range): the final regrets, or,
    for a privacy part R - A (``args.level``, the algorithm's privacy-free level A), those
    minus A, drawn as open markers.  A fit against a transformed
    value (``args.x_transform``) or of another quantity (``of``) is not drawn."""
    for r in claims:
        if _kind(r.claim) not in SLOPES:
            continue
        slope = next((d.comparison for d in r.decisions if getattr(d.comparison, "estimate", None) is not None
                      and "slope" in getattr(d.comparison, "label", "")), None)
        args = r.claim.params.get("args") or {}
        if (slope is None or not math.isfinite(slope.estimate.value) or args.get("x_transform")
                or r.claim.params.get("of", "regret") != "regret"):
            continue
        sweep = args.get("sweep") or r.claim.params.get("sweep") or {}
        policy = sweep.get("policy") if isinstance(sweep, dict) else None
        lo, hi = (float(v) for v in r.claim.params.get("limit_range", (args.get("lo", -math.inf),
                                                                        args.get("hi", math.inf))))
        pts = [(x, y) for p, xy in points.items() if policy in (None, p) for x, y in xy if lo <= x <= hi and y > 0]
        kept = fitted_values(r.outcome.statistic)
        if kept:
            pts = [(x, y) for x, y in pts if any(math.isclose(x, k, rel_tol=1e-6) for k in kept)]
        level = _level(ev, r.claim, args)
        if level:
            pts = [(x, y - level) for x, y in pts if y > level]
        if len(pts) < 2:
            continue
        lx, ly = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
        if level:
            ax.plot(np.exp(lx), np.exp(ly), ls="none", marker="o", mfc="none", mec="k", ms=3.5, mew=0.7,
                    label=f"R - A ({r.claim.id})")
        cx, cy = lx.mean(), ly.mean()
        grid = np.linspace(lx.min(), lx.max(), 20)
        est = slope.estimate
        b = est.value
        ax.plot(np.exp(grid), np.exp(cy + b * (grid - cx)), color="k", lw=0.9, ls="-.",
                label=f"{SYMBOL[r.verdict]} {r.claim.id}: slope {b:.2g}")
        if not est.degenerate and not est.exact:
            ci = est.interval(r.alpha / max(r.family, 1))
            lower = np.exp(cy + np.minimum(ci.low * (grid - cx), ci.high * (grid - cx)))
            upper = np.exp(cy + np.maximum(ci.low * (grid - cx), ci.high * (grid - cx)))
            ax.fill_between(np.exp(grid), lower, upper, color="k", alpha=0.12, lw=0)


_FITTED = re.compile(r"\bover (?:\w+ = )?((?:[-+0-9.eE]+, )*[-+0-9.eE]+)")


def fitted_values(statistic: str) -> list[float]:
    """The values an exponent was fitted over, as its measurement states them ("... over delta =
    0.001, 0.002, 0.005 ..."); [] if it does not say."""
    m = _FITTED.search(statistic or "")
    if not m:
        return []
    try:
        return [float(v) for v in m.group(1).split(", ")]
    except ValueError:
        return []


def _level(ev, claim, args) -> float:
    """The mean final regret A of a claim's privacy-free level run (``args.level``, subtracted
    unless ``args.subtract`` is false); 0 if none."""
    from .claims import NotChecked
    ref = args.get("level")
    if ev is None or not isinstance(ref, dict) or args.get("subtract", True) is False:
        return 0.0
    try:
        return float(ev.result(claim, ref).final_regrets.mean())
    except (NotChecked, KeyError):
        return 0.0


# ------------------------------------------------------------------ ratios
def ratio_figure(report, results: Sequence[ClaimResult], ev) -> None:
    """Every ``ratio`` claim: R(run) / R(baseline) over the checkpoints (95% bootstrap intervals)
    against its expected band (shaded; a one-sided claim: a dashed line at its bound), one
    panel per experiment, one series per (run, baseline) pair with every claim about it."""
    import matplotlib

    from verify.inference import bootstrap_ci, mean_ratio

    from .claims import NotChecked
    from .runs import horizons_of
    panels: dict[str, dict] = {}
    for r in results:
        if r.claim.test != "ratio":
            continue
        try:
            num = ev.result(r.claim, r.claim.params["run"])
            den = ev.result(r.claim, r.claim.params["baseline"])
        except (NotChecked, KeyError):
            continue
        if num.reps < 2 or den.reps < 2:
            continue
        exp = num.metadata.get("experiment", "")
        pair = panels.setdefault(exp, {}).setdefault((id(num), id(den)), (num, den, []))
        pair[2].append(r)
    if not panels:
        return
    ncols = min(len(panels), 3)
    fig, axes = _figure(math.ceil(len(panels) / ncols), ncols)
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    linked = []
    for ax, (exp, pairs) in zip(axes, panels.items()):
        for i, (num, den, claims) in enumerate(pairs.values()):
            colour = cycle[i % len(cycle)]
            common = set(int(c) for c in den.checkpoints)
            ts = [t for t in horizons_of(num, wanted=(10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7)) if t in common]
            cis = [bootstrap_ci((num.regret_at(t), den.regret_at(t)), mean_ratio, level=0.95, n_resamples=1000)
                   for t in ts]
            est = np.array([c.estimate for c in cis])
            err = np.array([[max(c.estimate - c.low, 0) for c in cis], [max(c.high - c.estimate, 0) for c in cis]])
            names = ", ".join(f"{SYMBOL[r.verdict]} {r.claim.id}" for r in claims)
            ax.errorbar(ts, est, yerr=err, marker="o", ms=2.5, lw=0.9, capsize=1.5, color=colour, label=names)
            for r in claims:
                linked.append(r)
                check = next((d.comparison for d in r.decisions if hasattr(d.comparison, "band")), None)
                if check is None:
                    continue
                if math.isfinite(check.low) and math.isfinite(check.high):
                    ax.axhspan(check.low, check.high, color=colour, alpha=0.12, lw=0)
                else:
                    ax.axhline(check.high if math.isfinite(check.high) else check.low, color=colour, ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        _plain_ticks(ax.yaxis)
        run = ev.runs.get(exp)
        title = _title(run.experiment.title) if run is not None else exp
        ax.set_title("\n".join(textwrap.wrap(title, 60)[:2]), fontsize=7.5)
        ax.set_xlabel("T", fontsize=7)
        ax.set_ylabel("R(run) / R(baseline)", fontsize=7)
        _finish(ax)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout(pad=0.4)
    caption = ("Privacy-cost ratios R(run) / R(baseline) against T with 95% bootstrap intervals; each claim's "
               "expected band in the same colour (shaded; dashed: the bound of a one-sided claim). Marks: "
               f"{LEGEND}. Claims: " + ", ".join(f"[{r.claim.id}](#{anchor(r.claim.id)}) {r.verdict.value}"
                                                  for r in linked) + ".")
    report.figure(fig, "ratios", caption, paper_figure="ratios", claims=[r.claim.id for r in linked])
