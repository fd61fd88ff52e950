"""Markdown of a report: the :class:`Report` accumulated section by section, number formats
and the common opening sections."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .context import QUICK_HORIZON, QUICK_REPS, ReportContext

#: resolution of a report's PNG figures: a 3.9 x 3.2 inch panel is 780 x 640 pixels, its 6.5-point
#: legend text 18 pixels high, legible on a screen and in print (at 100 dpi, 390 x 320, it was not)
FIGURE_DPI = 200


@dataclass
class FigureRef:
    """A figure of a report: its PNG, its anchor in the markdown, the paper's figure it redraws
    (``"Fig. 4"``, if any) and the claims it shows (ids)."""
    name: str
    path: Path
    caption: str
    paper_figure: str = ""
    claims: tuple[str, ...] = ()

    @property
    def anchor(self) -> str:
        return f"figure-{self.name}"


def save_png(fig, path: Path, dpi: int = FIGURE_DPI) -> Path:
    """Write a matplotlib figure as a small PNG: rendered at ``dpi``, then reduced to a 256-colour
    palette (a line plot loses nothing visible; the file is 3-4 times smaller)."""
    import io

    from PIL import Image
    buf = io.BytesIO()
    fig.savefig(buf, dpi=dpi, format="png")
    buf.seek(0)
    with Image.open(buf) as image:
        image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
    return path


class Report:
    """Markdown accumulated section by section; figures saved as PNG next to the file."""

    def __init__(self, ctx: ReportContext, title: str):
        self.ctx = ctx
        self.name = ctx.paper
        self.title = title
        self.lines: list[str] = [f"# {title}", ""]
        self.figures: list[Path] = []
        self.figure_refs: list[FigureRef] = []

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

    def figure(self, fig, name: str, caption: str, *, paper_figure: str = "", claims=()) -> FigureRef:
        """Save a matplotlib figure as ``<paper>_<name>.png`` next to the report, embed it under an
        anchor (``#figure-<name>``) claims can link to, and return its :class:`FigureRef`."""
        import matplotlib.pyplot as plt
        self.ctx.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.ctx.out_dir / f"{self.name}_{name}.png"
        save_png(fig, path)
        plt.close(fig)
        self.figures.append(path)
        ref = FigureRef(name, path, caption, paper_figure, tuple(claims))
        self.figure_refs.append(ref)
        alt = (paper_figure or name) + " (redrawn)"
        self.lines += [f'<a id="{ref.anchor}"></a>', "", f"![{alt}]({path.name})", "", f"*{caption}*", ""]
        return ref

    def mark(self) -> int:
        """The current end of the markdown (where :meth:`insert` can put lines later)."""
        return len(self.lines)

    def insert(self, at: int, lines: Sequence[str]) -> None:
        """Put ``lines`` at position ``at`` (from :meth:`mark`), e.g. a front page written last."""
        self.lines[at:at] = list(lines)

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
        report.text("> **Smoke build** (`--quick`): every experiment ran at T <= "
                    f"{QUICK_HORIZON:,} with at most {QUICK_REPS} repetitions. This checks that the report "
                    "builds, nothing more: no verdict is decided from numbers this small, so every row that "
                    "the full report would decide from its runs reads *inconclusive* here (exact "
                    "computations keep their verdict). For the real report run "
                    f"`{report.ctx.command(quick=False)}`.")


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
    report.text(f"Every run's cells live in the shared result store `{report.ctx.shown_store}` (resumable, "
                "reused by every report that needs the same configuration).")
    report.table(["experiment", "T", "repetitions", "seed", "runs", "cells (this build)"], rows)
