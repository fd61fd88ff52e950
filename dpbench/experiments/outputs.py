"""Figure, privacy-cost table and metadata of an experiment run."""
from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import numpy as np

from ..engine.catalog import ALGORITHMS
from ..engine.result import THIN_MARK, THIN_REPS, SimulationResult, now_iso, package_versions, thin_warning, to_json
from ..validation import InputError

BOOTSTRAP = 2000
def _fmt_t(t: int) -> str:
    exp = math.log10(t)
    return f"1e{int(exp)}" if exp == int(exp) else f"{t:,}"


def _ratio_ci(num: np.ndarray, den: np.ndarray, seed: int = 0):
    """Bootstrap 95% CI of mean(num)/mean(den), resampling repetitions of each
    (:func:`verify.inference.bootstrap_ci`)."""
    from verify.inference import bootstrap_ci, mean_ratio
    if num.size < 2 or den.size < 2 or den.mean() == 0:
        return math.nan, math.nan
    ci = bootstrap_ci((num, den), mean_ratio, level=0.95, n_resamples=BOOTSTRAP, seed=seed)
    return ci.low, ci.high


def table_horizons(exp, horizon: int, checkpoints: np.ndarray) -> list[int]:
    wanted = [t for t in exp.ratio_horizons if t <= horizon] + [horizon]
    return sorted({t for t in wanted if t in set(checkpoints.tolist())})


def ratio_table(exp, results: dict[str, SimulationResult], runs, horizon: int) -> list[dict]:
    """One row per run: mean regret +- s.e. at each table horizon and, where the experiment
    names a baseline, the privacy-cost ratio rho = R_run / R_baseline with a bootstrap CI."""
    keys = list(results)
    if not keys:
        return []
    horizons = table_horizons(exp, horizon, results[keys[0]].checkpoints)
    baselines = {}
    if exp.baseline:
        for run, key in zip(runs, keys):
            if run.label == exp.baseline:
                baselines[run.panel] = results[key]
        if len(baselines) == 1:
            only = next(iter(baselines.values()))
            baselines = {run.panel: only for run in runs}
    rows = []
    for run, key in zip(runs, keys):
        res = results[key]
        row = {"panel": run.panel, "label": run.label, "policy": run.policy, "params": run.params,
               "reps": res.reps, "horizons": {}}
        base = baselines.get(run.panel)
        for t in horizons:
            vals = res.regret_at(t)
            cell = {"mean": float(vals.mean()),
                    "stderr": float(vals.std(ddof=1) / math.sqrt(vals.size)) if vals.size > 1 else math.nan}
            if base is not None and base is not res:
                bvals = base.regret_at(t)
                cell["ratio"] = float(vals.mean() / bvals.mean()) if bvals.mean() > 0 else math.nan
                cell["ratio_ci95"] = list(_ratio_ci(vals, bvals))
                cell["baseline_reps"] = int(bvals.size)
            row["horizons"][t] = cell
        if res.info:
            row["info"] = res.info
        rows.append(row)
    return rows


def mean_se_text(mean: float, se: float) -> str:
    """"1,832.0 ± 8.1": the standard error to two significant digits and the mean to the same
    decimal place, in fixed notation (a column of means reads alike whatever their size); the mean
    alone to four significant digits when there is no standard error (one repetition)."""
    if not math.isfinite(mean):
        return f"{mean}"
    if not math.isfinite(se) or se <= 0:
        magnitude = math.floor(math.log10(abs(mean))) if mean != 0 else 0
        return f"{mean:,.{max(0, 3 - magnitude)}f}"
    decimals = max(0, 1 - math.floor(math.log10(se)))
    return f"{mean:,.{decimals}f} ± {se:,.{decimals}f}"


def markdown_table(exp, rows: list[dict]) -> str:
    if not rows:
        return ""
    horizons = list(rows[0]["horizons"])
    has_ratio = any("ratio" in c for r in rows for c in r["horizons"].values())
    head = ["panel"] if any(r["panel"] for r in rows) else []
    head += ["run"] + [f"regret T={_fmt_t(t)} (mean ± s.e.)" for t in horizons]
    if has_ratio:
        head += [f"rho T={_fmt_t(t)} [95% CI]" for t in horizons]
    head += list(exp.table_info)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        mark = f" {THIN_MARK}" if r["reps"] < THIN_REPS else ""
        cells = [r["panel"]] if head[0] == "panel" else []
        cells.append(r["label"])
        for t in horizons:
            c = r["horizons"][t]
            cells.append(mean_se_text(c["mean"], c["stderr"]) + (mark if r["reps"] > 1 else ""))
        if has_ratio:
            for t in horizons:
                c = r["horizons"][t]
                if "ratio" in c:
                    lo, hi = c["ratio_ci95"]
                    thin = mark or (f" {THIN_MARK}" if c.get("baseline_reps", THIN_REPS) < THIN_REPS else "")
                    cells.append(f"{c['ratio']:.3g} [{lo:.3g}, {hi:.3g}]{thin}")
                else:
                    cells.append("baseline" if r["label"] == exp.baseline else "")
        for key in exp.table_info:
            value = r.get("info", {}).get(key)
            cells.append("" if value is None else f"{value:.4g}")
        lines.append("| " + " | ".join(cells) + " |")
    warning = thin_warning(r["reps"] for r in rows if r["reps"] > 1 or
                           any("ratio_ci95" in c for c in r["horizons"].values()))
    return "\n".join(lines) + (f"\n\n{warning}" if warning else "")


def pyplot():
    """``matplotlib.pyplot`` on the file backend (Agg), imported with Ctrl-C held: an interrupt
    inside the import of its C extensions would become an ImportError and a crash at exit."""
    from ..engine.interrupts import ctrl_c_held
    with ctrl_c_held():
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    return plt


def _panel_figure(runs, max_cols: int, width: float, height: float):
    """A figure with one subplot per panel of ``runs``; returns (plt, fig, [(ax, panel)])."""
    plt = pyplot()

    panels = list(dict.fromkeys(run.panel for run in runs))
    ncols = min(max_cols, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    return plt, fig, list(zip(axes.flat, panels))


def _finish_panel(ax, panel, xlabel, ylabel):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if panel:
        ax.set_title(panel, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def _save_figure(plt, fig, title, path):
    import textwrap
    width = max(40, int(fig.get_figwidth() * 12))
    fig.suptitle("\n".join(textwrap.fill(line, width) for line in title.split("\n")), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_band(ax, t, mean, lo, hi, colour, label: str, *, reps: int):
    """A mean curve with its 95% band (filled and outlined); the band's relative half-width at the
    last point goes in the label.  Returns the line."""
    line, = ax.plot(t, mean, color=colour, lw=1.1, label=label)
    if reps > 1:
        ax.fill_between(t, lo, hi, color=line.get_color(), alpha=0.3, lw=0)
        for edge in (lo, hi):
            ax.plot(t, edge, color=line.get_color(), lw=0.5, alpha=0.9)
        if mean[-1] > 0:
            line.set_label(f"{label} (±{(hi[-1] - lo[-1]) / 2 / mean[-1]:.1%})")
    return line


def band_strip(ax, bands, *, size: str = "24%", fontsize: float = 7):
    """Below ``ax`` (sharing its t axis), each curve's 95% band as a percentage of its mean, so
    the band is seen at any number of repetitions (on a log regret axis a +-1% band is thinner
    than the line).  ``bands``: (t, mean, lo, hi, colour) per curve.  Returns the strip's axes."""
    from mpl_toolkits.axes_grid1 import make_axes_locatable
    strip = make_axes_locatable(ax).append_axes("bottom", size=size, pad=0.08, sharex=ax)
    top = 0.0
    for t, mean, lo, hi, colour in bands:
        t, mean = np.asarray(t, float), np.asarray(mean, float)
        ok = mean > 0
        if ok.sum() < 2:
            continue
        half = 100.0 * (np.asarray(hi, float)[ok] - np.asarray(lo, float)[ok]) / 2 / mean[ok]
        strip.fill_between(t[ok], -half, half, color=colour, alpha=0.25, lw=0)
        strip.plot(t[ok], half, color=colour, lw=0.6)
        strip.plot(t[ok], -half, color=colour, lw=0.6)
        late = t[ok] >= 10 * t[ok][0]
        top = max(top, float(np.nanmax(half[late] if late.any() else half)))
    top = min(max(top * 1.15, 0.5), 100.0)
    strip.set_ylim(-top, top)
    strip.axhline(0, color="0.4", lw=0.5)
    strip.set_ylabel("95% band,\n% of mean", fontsize=fontsize * 0.85)
    strip.tick_params(labelsize=fontsize * 0.85)
    strip.grid(True, which="both", alpha=0.25, lw=0.5)
    ax.tick_params(labelbottom=False)
    ax.set_xlabel("")
    return strip


def plot_regret(exp, results: dict[str, SimulationResult], runs, path: Path, title: str | None = None):
    """Mean pseudo-regret with its 95% band, log time axis, one subplot per panel."""
    plt, fig, cells = _panel_figure(runs, 3, 5.2, 4.8)
    for ax, panel in cells:
        bands = []
        for run, key in zip(runs, results):
            if run.panel != panel:
                continue
            res = results[key]
            lo, hi = res.ci95
            line = draw_band(ax, res.checkpoints, res.mean, np.maximum(lo, 1e-9 if exp.yscale == "log" else 0), hi,
                             None, run.label, reps=res.reps)
            bands.append((res.checkpoints, res.mean, lo, hi, line.get_color()))
        ax.set_xscale("log")
        if exp.yscale == "log":
            ax.set_yscale("log")
            ax.set_ylim(bottom=1)
        _finish_panel(ax, panel, "t (pulls)", "pseudo-regret")
        if any(res.reps > 1 for res in results.values()):
            band_strip(ax, bands).set_xlabel("t (pulls)")
    counts = sorted({res.reps for res in results.values()})
    reps = "/".join(map(str, counts)) or "0"
    caption = title or f"{exp.title}\nmean over {reps} repetitions, 95% band (its half-width at the horizon in " \
                       "the legend)"
    warning = thin_warning(c for c in counts if c > 1)
    return _save_figure(plt, fig, caption + (f"\n{warning}" if warning else ""), path)


def plot_final_vs_parameter(exp, results: dict[str, SimulationResult], runs, param: str, path: Path):
    """Mean final regret (95% CI) against a swept parameter, one line per swept entry and
    panel; runs without the parameter (baselines) are drawn as horizontal lines."""
    plt, fig, cells = _panel_figure(runs, 2, 5.6, 4.0)
    for ax, panel in cells:
        groups: dict[str, list] = {}
        flat = []
        for run, key in zip(runs, results):
            if run.panel != panel:
                continue
            if run.sweep_group and param in run.params:
                groups.setdefault(run.sweep_group, []).append((float(run.params[param]), results[key]))
            else:
                flat.append((run.label, results[key]))
        all_x = [x for pts in groups.values() for x, _ in pts]
        for template, points in groups.items():
            points.sort(key=lambda p: p[0])
            xs = np.array([x for x, _ in points])
            means = np.array([r.mean[-1] for _, r in points])
            lo = np.array([r.ci95[0, -1] for _, r in points])
            hi = np.array([r.ci95[1, -1] for _, r in points])
            name = re.sub(rf"[\s,(]*\b{re.escape(param)}\s*=\s*\{{{re.escape(param)}\}}\)?", "", template)
            name = name.strip() or ALGORITHMS[points[0][1].policy].label
            ax.errorbar(xs, means, yerr=[means - lo, hi - means], marker="o", ms=3, capsize=2, label=name)
        for label, res in flat:
            ax.axhline(res.mean[-1], ls="--", lw=1, color="grey", label=label)
        if all_x and min(all_x) > 0:
            ax.set_xscale("log")
        if exp.yscale == "log":
            ax.set_yscale("log")
        _finish_panel(ax, panel, param, "final pseudo-regret")
    horizon = next(iter(results.values())).horizon if results else 0
    warning = thin_warning(res.reps for res in results.values() if res.reps > 1)
    return _save_figure(plt, fig, f"{exp.title}\nfinal regret at T = {horizon:,} against {param}, 95% CI"
                        + (f"\n{warning}" if warning else ""), path)


def write_outputs(exp, config, results, runs, rows, out_dir: Path) -> Path:
    """The figure(s), table.md, table.csv and experiment.json of a run, written as one set: into a
    staging folder first, then moved into ``out_dir``, so that a write that fails (a full disk)
    leaves the previous set whole and says so in one line (:class:`InputError`); the results
    are in the store either way.  Returns the figure's path."""
    import os
    import shutil
    import tempfile
    try:
        staging = Path(tempfile.mkdtemp(prefix=".writing-", dir=out_dir))
        try:
            _write_all(exp, config, results, runs, rows, staging)
            for path in sorted(staging.iterdir()):
                os.replace(path, out_dir / path.name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except OSError as err:
        raise InputError(f"cannot write the figure and tables in {out_dir} ({err.strerror or err}); every result "
                         f"is stored in {config.get('store', {}).get('path', 'the result store')}: rerun the same "
                         "command to write them (nothing is recomputed)") from None
    return out_dir / "regret.png"


def _write_all(exp, config, results, runs, rows, out_dir: Path) -> None:
    plot_regret(exp, results, runs, out_dir / "regret.png")
    if exp.sweep_plot:
        plot_final_vs_parameter(exp, results, runs, exp.sweep_plot, out_dir / f"final_regret_vs_{exp.sweep_plot}.png")
    md = markdown_table(exp, rows)
    (out_dir / "table.md").write_text(f"# {exp.title}\n\n{exp.source}\n\n{sizes_line(config)}\n\n{md}\n")
    write_csv(rows, results, out_dir / "table.csv")
    summary = {"config": config, "created": now_iso(), "versions": package_versions(),
               "table": rows,
               "runs": {k: {kk: vv for kk, vv in v.summary().items() if kk != "metadata"}
                        for k, v in results.items()}}
    (out_dir / "experiment.json").write_text(json.dumps(to_json(summary), indent=1))


def sizes_line(config: dict) -> str:
    """What a table shows: horizon, seed and repetitions, and the other definitions of the
    experiment its result store holds (each is drawn by rerunning at its sizes)."""
    line = f"T = {config['horizon']:,}, seed {config['seed']}, {config['reps']} repetitions per run."
    store = config.get("store") or {}
    others = [d for d in store.get("definitions", [])
              if (d["horizon"], d["seed"], d["reps"]) != (config["horizon"], config["seed"], config["reps"])]
    if others:
        shown = "; ".join(f"T = {d['horizon']:,}, seed {d['seed']}, {d['reps']} repetitions ({d['runs']} runs)"
                          for d in others)
        line += (f" Its result store also holds this experiment at {shown}: rerun with those sizes "
                 "(--horizon, --seed, --reps) to draw them.")
    return line


#: the first columns of table.csv; then the parameters (eps, delta, the other policy parameters,
#: then the environment's as env.NAME)
CSV_COLUMNS = ["panel", "label", "policy", "environment", "reps", "horizon", "mean_regret", "stderr", "ratio",
               "ratio_ci_low", "ratio_ci_high"]


def write_csv(rows: list[dict], results: dict[str, SimulationResult], path: Path) -> None:
    """table.csv: one line per run and table horizon, with every parameter of the run as a
    column of its own (the policy's, defaults included, and the environment's), so that tables
    of several runs join without parsing labels.  A parameter a run does not take is empty."""
    runs = list(results.values())
    policy_keys = ["eps", "delta"] + sorted({k for res in runs for k in res.params} - {"eps", "delta"})
    env_keys = sorted({k for res in runs for k in res.env_params})
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(CSV_COLUMNS + policy_keys + [f"env.{k}" for k in env_keys])
        for r, res in zip(rows, runs):
            params = [_cell(res.params.get(k)) for k in policy_keys]
            env = [_cell(res.env_params.get(k)) for k in env_keys]
            for t, c in r["horizons"].items():
                lo, hi = c.get("ratio_ci95", (None, None))
                writer.writerow([r["panel"], r["label"], r["policy"], res.environment, r["reps"], t, c["mean"],
                                 c["stderr"], c.get("ratio"), lo, hi] + params + env)


def _cell(value) -> str:
    """A parameter as one CSV field: numbers as Python prints them, lists joined by ';'."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple, np.ndarray)):
        return ";".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(to_json(value), sort_keys=True)
    return str(value)
