"""Figures of a report drawn by a paper's own code: regret curves with their bounds (the paper's
figures redrawn from the runs: :mod:`.paper_figures`)."""
from __future__ import annotations

import numpy as np

from verify import bounds


def new_figure(ncols: int = 1, width: float = 5.5, height: float = 3.6):
    from ..experiments.outputs import pyplot
    plt = pyplot()
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, list(axes.flat)


def plot_curves(ax, results: dict, *, bounds_for_label: dict | None = None, title: str = ""):
    """Mean regret with 95% band on log-log axes; dashed lines for bound values over t."""
    from ..experiments.outputs import draw_band
    for label, res in results.items():
        if res is None:
            continue
        lo, hi = res.ci95
        line = draw_band(ax, res.checkpoints, res.mean, np.maximum(lo, 1e-9), hi, None, label, reps=res.reps)
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
