"""Markdown of a report: the :class:`Report` accumulated section by section, number formats
and the common opening sections."""
from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .context import QUICK_HORIZON, QUICK_REPS, ReportContext


class Report:
    """Markdown accumulated section by section; figures saved as PNG next to the file."""

    def __init__(self, ctx: ReportContext, title: str):
        self.ctx = ctx
        self.name = f"seed{ctx.seed}"
        self.lines: list[str] = [f"# {title}", ""]
        self.figures: list[Path] = []

    def section(self, title: str, level: int = 2):
        self.lines += ["", "#" * level + " " + title, ""]

    def text(self, *paragraphs: str):
        for p in paragraphs:
            self.lines += [p, ""]

    def bullets(self, items: Sequence[str]):
        self.lines += [f"* {item}" for item in items] + [""]

    def table(self, header: Sequence[str], rows: Sequence[Sequence]):
        if not rows:
            self.lines += ["(no rows)", ""]
            return
        self.lines.append("| " + " | ".join(header) + " |")
        self.lines.append("|" + "---|" * len(header))
        for row in rows:
            self.lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
        self.lines.append("")

    def figure(self, fig, name: str, caption: str):
        """Save a matplotlib figure as ``<seed>_<name>.png`` next to the report and link it."""
        import matplotlib.pyplot as plt
        self.ctx.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.ctx.out_dir / f"{self.name}_{name}.png"
        fig.savefig(path, dpi=80)
        plt.close(fig)
        self.figures.append(path)
        self.lines += [f"![{caption}]({path.name})", "", f"*{caption}*", ""]

    def write(self) -> Path:
        self.ctx.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.ctx.out_dir / f"{self.name}.md"
        path.write_text("\n".join(self.lines).rstrip() + "\n")
        return path


def _cell(c) -> str:
    if c is None:
        return ""
    if isinstance(c, float):
        return fmt(c)
    return str(c).replace("|", "\\|").replace("\n", " ")


def fmt(x, digits: int = 4) -> str:
    if x is None:
        return ""
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}" if abs(int(x)) >= 10_000 else str(int(x))
    x = float(x)
    if not math.isfinite(x):
        return "n/a" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return f"{x:.{digits}g}"


def fmt_t(t) -> str:
    t = int(t)
    e = math.log10(t)
    return f"1e{int(round(e))}" if abs(e - round(e)) < 1e-12 else f"{t:,}"


def fmt_ci(fit, digits: int = 3) -> str:
    """'est [lo, hi]' of a Fit, or 'n/a (reason)'."""
    if fit is None:
        return "n/a"
    if not fit.applicable:
        return f"not applicable: {fit.verdict.reason}"
    lo, hi = fit.ci
    return f"{fit.estimate:.{digits}g} [{lo:.{digits}g}, {hi:.{digits}g}]"


def status_cell(verdict) -> str:
    """A verdict as a bold status word plus its reason."""
    if verdict is None:
        return "n/a"
    return f"**{verdict.status}**" + (f": {verdict.reason}" if verdict.reason else "")


def quick_banner(report: Report):
    if report.ctx.quick:
        report.text("> **Quick mode** (`--quick`): every experiment ran at T <= "
                    f"{QUICK_HORIZON:,} with at most {QUICK_REPS} repetitions. This checks that the report "
                    "builds; the numbers are far too small for conclusions, and most fits are "
                    "(correctly) *not applicable*. Run `dpbench report SEED` for the real report.")


def setup_lines(report: Report, runs: dict):
    """Where each experiment's numbers come from (name, T, repetitions, seed, runs, cells)."""
    rows = []
    for name, run in runs.items():
        if run is None:
            rows.append([name, "not available yet", "", "", "", ""])
        else:
            c = run.config
            rows.append([name, fmt_t(c["horizon"]), c["reps"], c["seed"], len(run.results),
                         f"{run.cells.get('computed', 0)} computed, {run.cells.get('stored', 0)} reused"])
    report.text(f"Every run's cells live in the shared result store `{report.ctx.store}` (resumable, reused by "
                "every report that needs the same configuration).")
    report.table(["experiment", "T", "repetitions", "seed", "runs", "cells (this build)"], rows)
