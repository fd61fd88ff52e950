"""Figures of a report: regret curves with their bounds, and ratios over T."""
from __future__ import annotations

import numpy as np

from verify import bounds
from verify.inference import bootstrap_ci, mean_ratio

from .markdown import Report
from .runs import horizons_of, run_results


def new_figure(ncols: int = 1, width: float = 5.5, height: float = 3.6):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, list(axes.flat)


def plot_curves(ax, results: dict, *, bounds_for_label: dict | None = None, title: str = ""):
    """Mean regret with 95% band on log-log axes; dashed lines for bound values over t."""
    for label, res in results.items():
        if res is None:
            continue
        lo, hi = res.ci95
        line, = ax.plot(res.checkpoints, res.mean, label=label, lw=1.5)
        ax.fill_between(res.checkpoints, np.maximum(lo, 1e-9), hi, color=line.get_color(), alpha=0.2, lw=0)
        for blabel, values in (bounds_for_label or {}).get(label, {}).items():
            ax.plot(res.checkpoints, values, ls="--", lw=1, color=line.get_color(), label=blabel)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=1.0)
    ax.set_xlabel("t (pulls)")
    ax.set_ylabel("pseudo-regret")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title, fontsize=9)


def bound_curve(result, key: str) -> np.ndarray | None:
    """An explicit bound evaluated at every checkpoint of ``result`` (None if not applicable)."""
    b = bounds.get(key)
    ctx = bounds.context(result)
    out = []
    for t in result.checkpoints:
        if t < 2:
            out.append(np.nan)
            continue
        ev = b.evaluate(ctx, T=float(t))
        if not ev.applicable:
            return None
        out.append(ev.value)
    return np.array(out)


def ratio_figure(report: Report, runs: dict, pairs, name: str, caption: str, paper: dict):
    """Ratios R_run / R_baseline against T (bootstrap intervals) for (experiment, run, baseline)."""
    fig, (ax,) = new_figure()
    drawn = False
    for exp, run, base in pairs:
        num, den = run_results(runs.get(exp), run), run_results(runs.get(exp), base)
        if num is None or den is None or num.reps < 2:
            continue
        pts = [(t, bootstrap_ci((num.regret_at(t), den.regret_at(t)), mean_ratio)) for t in horizons_of(num)]
        t = [p[0] for p in pts]
        est = np.array([p[1].estimate for p in pts])
        err = np.array([[p[1].estimate - p[1].low for p in pts], [p[1].high - p[1].estimate for p in pts]])
        ax.errorbar(t, est, yerr=err, marker="o", ms=3, capsize=2, label=f"{run} ({exp.split('_', 1)[1]})")
        drawn = True
    for v in paper.values():
        ax.axhline(v, ls=":", lw=0.8, color="grey")
    if not drawn:
        return
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("T")
    ax.set_ylabel("rho = R_priv(T) / R_base(T)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    report.figure(fig, name, caption)
