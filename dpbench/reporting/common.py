"""Shared parts of the bound-validation reports: running experiments, markdown, figures, verdicts.

A report is built by a seed module (``seed000.py`` ...) from a
:class:`ReportContext` (sizes, where results live, where the report goes) into
a :class:`Report` (markdown with PNG figures next to it).  Experiments run
through the experiments runner (``run_experiment``), so saved results of the
same configuration are reused; checks that are not paper figures ship as TOML
files in ``dpbench/reporting/checks/`` and run the same way.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..validation import InputError

CHECKS_DIR = Path(__file__).with_name("checks")
QUICK_HORIZON = 20_000
QUICK_REPS = 4


# ------------------------------------------------------------------ context
#: the result store every report shares, under the results folder: a configuration that two
#: reports (or two experiments) run is computed once, and an interrupted build resumes
SHARED_STORE = Path("reports") / "results.sqlite"


@dataclass
class ReportContext:
    seed: str                         # "000"
    quick: bool = False
    results_dir: Path = Path("dpbench-results")
    out_dir: Path = Path("reports")
    threads: int | None = None
    progress: bool = False
    force: bool = False                # discard stored results and recompute
    log: Callable[[str], None] = print
    missing: list[str] = field(default_factory=list)   # experiments not available (yet)
    started: float = field(default_factory=time.perf_counter)
    cpu_started: float = field(default_factory=time.process_time)
    runs: dict = field(default_factory=dict)            # experiment name -> ExperimentRun
    cells: dict = field(default_factory=lambda: {"computed": 0, "stored": 0})

    @property
    def store(self) -> Path:
        return Path(self.results_dir) / SHARED_STORE

    def sizes(self, exp, horizon=None, reps=None) -> tuple[int, int]:
        horizon = exp.horizon if horizon is None else horizon
        reps = exp.reps if reps is None else reps
        if self.quick:
            return min(horizon, QUICK_HORIZON), min(reps, QUICK_REPS)
        return horizon, reps

    def experiment(self, name, horizon: int | None = None, reps: int | None = None):
        """Run (or reuse) experiment ``name`` (a shipped name, a check in ``checks/``, or an
        :class:`~dpbench.experiments.runner.Experiment` built in code) in the shared result store;
        None if it does not exist yet."""
        from ..experiments.runner import Experiment, experiment_names, load_experiment, run_experiment
        if isinstance(name, Experiment):
            exp = name
        else:
            target = name if name in experiment_names() else CHECKS_DIR / f"{name}.toml"
            if not isinstance(target, str) and not target.exists():
                self.missing.append(name)
                self.log(f"report {self.seed}: experiment {name!r} does not exist yet; skipped")
                return None
            exp = load_experiment(target)
        horizon, reps = self.sizes(exp, horizon, reps)
        self.log(f"report {self.seed}: {exp.name} (T = {horizon:g}, {reps} repetitions)")
        run = run_experiment(exp, horizon=horizon, reps=reps, out=str(self.results_dir), threads=self.threads,
                             progress=self.progress, log=self.log, store=self.store, outputs=False)
        for k in self.cells:
            self.cells[k] += int(run.cells.get(k, 0))
        self.runs[exp.name] = run
        return run


def discard_store(results_dir) -> None:
    """Delete the reports' shared result store (``--force``)."""
    from ..sweeps.store import ResultStore
    ResultStore.remove(Path(results_dir) / SHARED_STORE)


# ------------------------------------------------------------------ report
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


def run_results(run, label: str):
    """The SimulationResult of run ``label`` ('panel / label' or 'label') of an ExperimentRun."""
    if run is None:
        return None
    if label in run.results:
        return run.results[label]
    hits = [k for k in run.results if k.endswith(" / " + label) or k == label]
    return run.results[hits[0]] if len(hits) == 1 else None


def has_checkpoint(result, t: int) -> bool:
    return result is not None and int(t) in set(int(c) for c in result.checkpoints)


def horizons_of(result, wanted=(10 ** 5, 10 ** 6, 10 ** 7)) -> list[int]:
    hs = [t for t in wanted if has_checkpoint(result, t)]
    last = int(result.checkpoints[-1])
    return hs if last in hs else hs + [last]


# ---------------------------------------------------------------- bound checks
def bound_check_rows(experiment: str, label: str, result, *, window=None) -> list[list]:
    """Rows (experiment, run, bound, kind, measured, bound value, verdict) for one result:
    the log-regret slope against every slope bound, and the mean regret against every
    explicit bound (at every checkpoint for anytime bounds)."""
    from verify import regret_fits as rf
    from verify.bounds import get as get_bound
    rows = []
    fit = late_log_fit(result) if window is None else rf.log_regret_fit(result, window=window)
    where = "[{:g}, {:g}]".format(*fit.details["window"]) if fit.applicable else ""
    if not fit.applicable:
        rows.append([experiment, label, "(log-regret fit)", "slope C", "n/a", "", status_cell(fit.verdict)])
    for v in fit.checks:
        b = get_bound(v.bound)
        rows.append([experiment, label, f"{b.key} ({b.theorem})", f"{b.side} {b.form}: ln T coefficient on {where}",
                     fmt_ci(fit), fmt(v.evidence.get("bound_slope")), status_cell(v)])
    for v in rf.check_values(result):
        b = get_bound(v.bound)
        measured = f"{fmt(v.evidence['mean'])} +- {fmt(v.evidence['se'], 2)}" if v.evidence else ""
        rows.append([experiment, label, f"{b.key} ({b.theorem})", f"{b.side} {b.form}: value",
                     measured, fmt(v.evidence.get("bound")), status_cell(v)])
    return rows


def late_log_fit(result, **options):
    """R(t) = a + C ln t on [T/100, T] (spec F1), or on the last decade [T/10, T] when the longer
    window is not logarithmic (each window must pass the local-slope test); the fit records its window,
    and its reason says why the longer one was refused."""
    from verify import regret_fits as rf
    T = float(result.checkpoints[-1])
    fit = rf.log_regret_fit(result, window=(T / 100, T), **options)
    if fit.applicable or "not logarithmic" not in fit.verdict.reason:
        return fit
    late = rf.log_regret_fit(result, window=(T / 10, T), **options)
    if late.applicable:
        late.verdict.reason = f"last decade only: {fit.verdict.reason}"
        return late
    late.verdict.reason = f"{fit.verdict.reason}; and {late.verdict.reason}"
    return late


BOUND_HEADER = ["experiment", "run", "bound", "compared", "measured [95% CI]", "bound", "verdict"]


def registry_table(report: Report, seed: str):
    """Every registered bound of a seed: theorem, side, form, statement, notes."""
    from verify.bounds import bounds_for
    rows = [[b.key, b.theorem, b.side, b.form, b.statement, ", ".join(a for a in b.algorithms if "_" in a)
             or ", ".join(b.algorithms), b.notes] for b in bounds_for(seed=seed)]
    report.table(["key", "theorem", "side", "form", "statement", "policies", "notes"], rows)


# ------------------------------------------------------------------- figures
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
    from verify import bounds
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


# ------------------------------------------------------------------- audits
def audit_rows(mechanisms: Sequence[tuple[str, dict, float, float]], *, n: int) -> tuple[list[list], str]:
    """Audit catalog mechanisms (name, params, x, x') at their claimed level with ``verify.audit``;
    returns table rows and a note (the audit module may not be installed yet)."""
    import inspect

    import verify
    audit_fn = getattr(verify, "audit", None)
    if inspect.ismodule(audit_fn):
        audit_fn = getattr(audit_fn, "audit", None)
    if audit_fn is None:
        return [], "verify.audit (issue 6) is not available in this installation: no audits were run."
    import dpbench
    rows = []
    for name, params, x, x_prime in mechanisms:
        if name not in dpbench.MECHANISMS:
            rows.append([name, params, "", "", "", "mechanism not registered yet"])
            continue
        mech = dpbench.sampler(name, **params)
        try:
            res = audit_fn(mech, x, x_prime, eps=mech.claimed_eps, delta=mech.claimed_delta,
                                     n=n, seed=1)
        except Exception as err:            # an audit failure must show in the report, not abort it
            rows.append([name, params, fmt(mech.claimed_eps), "", "", f"audit error: {err}"])
            continue
        rows.append([name, params, fmt(mech.claimed_eps), fmt(res.eps_lower_bound),
                     "**violated**" if res.violated else "no violation", f"n = {n:,}, (x, x') = ({x:g}, {x_prime:g})"])
    return rows, ""


AUDIT_HEADER = ["mechanism", "parameters", "claimed eps", "certified eps lower bound", "verdict", "notes"]


def audit_section(report: Report, mechanisms, note: str = ""):
    """A 'black-box audits' section for catalog mechanisms (see :func:`audit_rows`)."""
    report.section("Privacy of the mechanisms (black-box audits)")
    rows, missing = audit_rows(mechanisms, n=100_000 if report.ctx.quick else 1_000_000)
    if missing:
        report.text(missing)
        return
    report.text("`verify.audit` at the claimed (eps, delta): a certified lower bound on eps at confidence "
                "1 - alpha; a correct mechanism certifies no eps above its claim. " + note)
    report.table(AUDIT_HEADER, rows)


def command_line(ctx: ReportContext) -> str:
    """The command that rebuilds this report (non-default options included)."""
    parts = ["dpbench report", ctx.seed]
    if ctx.quick:
        parts.append("--quick")
    if Path(ctx.results_dir) != Path("dpbench-results"):
        parts.append(f"--results {ctx.results_dir}")
    if Path(ctx.out_dir) != Path("reports"):
        parts.append(f"--out {ctx.out_dir}")
    return " ".join(parts)


def git_commit() -> str:
    """The git commit of the dpbench sources (marked if they differ from it), or 'not a git checkout'."""
    import subprocess
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                              timeout=10)
        if head.returncode != 0:
            return "not a git checkout"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "."],
                               cwd=here.parent.parent, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def provenance_section(report: Report):
    """Package versions, git commit, result store, cells computed or reused, and the command."""
    from ..engine.result import now_iso, package_versions
    ctx = report.ctx
    v = package_versions()
    report.section("Provenance")
    report.bullets([
        f"dpbench {v['dpbench']}, git commit {git_commit()}; numba {v['numba']}, numpy {v['numpy']}, "
        f"scipy {v['scipy']}, Python {v['python']} on {v['platform']}",
        f"built {now_iso()} by `{command_line(ctx)}`; result store `{ctx.store}` "
        f"({ctx.cells['computed']} cells computed, {ctx.cells['stored']} reused)",
        "seeds, horizons and repetitions: the setup table (per experiment) and the claims table (per row)",
    ])


TIMINGS = "timings.json"


def record_timing(ctx: ReportContext, wall: float, cpu: float) -> Path:
    """Add this build's wall and CPU seconds to ``<out>/timings.json`` and rewrite
    ``<out>/timings.md`` (the per-report time table the README points to)."""
    import json
    import os

    from ..engine.result import now_iso
    path = Path(ctx.out_dir) / TIMINGS
    data = json.loads(path.read_text()) if path.exists() else {}
    name = f"seed{ctx.seed}{' --quick' if ctx.quick else ''}"
    entry = data.get(name, {})
    this = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "cells_computed": ctx.cells["computed"],
            "cells_reused": ctx.cells["stored"], "cores": os.cpu_count(), "date": now_iso(),
            "command": command_line(ctx)}
    if ctx.cells["computed"] or not entry:
        entry = this                     # a build that computed cells: the time to produce the report
    else:
        entry["rebuild_s"] = this["wall_s"]          # every cell reused: the time to rebuild it
    data[name] = entry
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    write_timing_tables(ctx.out_dir, readme=not ctx.quick)
    return path


def write_timing_tables(out_dir, *, readme: bool = True) -> None:
    """Render ``<out>/timings.json`` as ``<out>/timings.md`` and, if ``readme``, into the README
    block (README_TIMINGS markers) of the folder above ``out``."""
    import json
    data = json.loads((Path(out_dir) / TIMINGS).read_text())
    lines = ["# Report build times", "",
             "Written by `dpbench report` after each build: wall and CPU seconds of the last build that "
             "computed cells (from an empty result store: every cell), the cells it computed and reused, and "
             "the wall seconds of the last rebuild from stored cells. CPU time counts every thread of the "
             "process; on a shared machine wall time is inflated by other load.", ""]
    (Path(out_dir) / "timings.md").write_text("\n".join(lines + timing_table(data)) + "\n")
    path = Path(out_dir).resolve().parent / "README.md"
    if readme and path.exists():
        _replace_block(path, timing_table({k: e for k, e in data.items() if "--quick" not in k}))


#: the README block :func:`record_timing` keeps equal to the timing table (full-size builds only)
README_TIMINGS = ("<!-- report timings: written by dpbench report -->", "<!-- end of report timings -->")


def timing_table(data: dict) -> list[str]:
    """Markdown rows of the per-report build times in ``timings.json`` (and their total)."""
    rows = ["| report | wall (s) | CPU (s) | cells computed | cells reused | rebuild from store (s) | cores | "
            "date | command |",
            "|---|---|---|---|---|---|---|---|---|"]
    for key, e in sorted(data.items()):
        rows.append(f"| {key} | {e['wall_s']:.0f} | {e['cpu_s']:.0f} | {e['cells_computed']} | "
                    f"{e['cells_reused']} | {e.get('rebuild_s', '')} | {e['cores']} | {e['date']} | "
                    f"`{e['command']}` |")
    full = [e for key, e in data.items() if "--quick" not in key]
    if len(full) > 1:
        rows.append(f"| total (full size) | {sum(e['wall_s'] for e in full):.0f} | "
                    f"{sum(e['cpu_s'] for e in full):.0f} | "
                    f"{sum(e['cells_computed'] for e in full)} | | | | | |")
    return rows


def _replace_block(path: Path, rows: list[str]) -> None:
    """Replace the lines between the README_TIMINGS markers of ``path`` (if it has them) by ``rows``."""
    text = path.read_text()
    start, end = README_TIMINGS
    if start not in text or end not in text:
        return
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1]
    path.write_text(head + start + "\n" + "\n".join(rows) + "\n" + end + tail)


def finish(report: Report) -> Path:
    ctx = report.ctx
    if ctx.missing:
        report.section("Not yet available")
        report.text("These experiments or checks are not in this installation yet; their sections are "
                    "empty and will fill in when they land: " + ", ".join(sorted(set(ctx.missing))) + ".")
    provenance_section(report)
    wall, cpu = time.perf_counter() - ctx.started, time.process_time() - ctx.cpu_started
    report.text(f"_Built in {wall:.0f} s wall, {cpu:.0f} s CPU by `{command_line(ctx)}`._")
    path = report.write()
    record_timing(ctx, wall, cpu)
    return path


def require_seed(text: str, known: Sequence[str]) -> str:
    s = str(text).strip().lower().removeprefix("seed").removeprefix("_")
    if s.isdigit():
        s = f"{int(s):03d}"
    if s not in known:
        raise InputError(f"unknown seed {text!r}; allowed values: {', '.join(known)}, all")
    return s


# ------------------------------------------------------- figures over runs
def ratio_figure(report: Report, runs: dict, pairs, name: str, caption: str, paper: dict):
    """Ratios R_run / R_baseline against T (bootstrap intervals) for (experiment, run, baseline)."""
    from verify.inference import bootstrap_ci, mean_ratio
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


def ordering_row(run, labels: Sequence[str], claim: str) -> list:
    """Is the mean regret increasing along ``labels`` at every power of ten? 95% bands disjoint?"""
    res = [run_results(run, lab) for lab in labels]
    if run is None or any(r is None for r in res):
        return [claim, "experiment not available", ""]
    cells, ok_all, sep_all = [], True, True
    for t in horizons_of(res[0]):
        idx = [list(r.checkpoints).index(t) for r in res]
        means = [r.mean[i] for r, i in zip(res, idx)]
        lo = [r.ci95[0][i] for r, i in zip(res, idx)]
        hi = [r.ci95[1][i] for r, i in zip(res, idx)]
        ordered = all(means[i] < means[i + 1] for i in range(len(means) - 1))
        ok_all &= ordered
        sep_all &= all(hi[i] < lo[i + 1] for i in range(len(means) - 1))
        cells.append(f"T={fmt_t(t)}: " + " < ".join(fmt(m) for m in means) + ("" if ordered else " (NOT ordered)"))
    status = "**confirmed**" if ok_all else "**refuted**"
    return [claim, "; ".join(cells), status + (" (95% bands disjoint)" if sep_all and ok_all else "")]


# ------------------------------------------------------------ sweeps
def panel_sweep(run, panel: str, policy: str, variable: str) -> dict:
    """{value of ``variable``: result} for the runs of ``policy`` in ``panel`` of an ExperimentRun."""
    from ..experiments.runner import run_key
    out = {}
    if run is None:
        return out
    for spec in run.runs:
        if spec.panel == panel and spec.policy == policy and variable in spec.params:
            res = run.results.get(run_key(spec))
            if res is not None:
                out[float(spec.params[variable])] = res
    return out


def sweep_exponent_row(run, panel: str, policy: str, variable: str, predicted: float, claim: str, *,
                       baseline: str | None = None, lo: float | None = None, hi: float | None = None,
                       tolerance: float = 0.3, subtract_baseline: bool = False, keep=None) -> list:
    """Log-log slope of the final regret against a swept parameter, in the regime where the
    privacy cost dominates: values in [lo, hi] whose mean regret exceeds twice the baseline
    run's (``baseline`` = 'panel / label') and stays below half of T x mean gap (no saturation).
    ``subtract_baseline`` fits the privacy part R - R_baseline instead (an additive cost);
    ``keep(result)`` further restricts the regime (e.g. start phases shorter than T/2)."""
    from verify import regret_fits as rf
    sweep = panel_sweep(run, panel, policy, variable)
    if not sweep:
        return [claim, "experiment not available", "", ""]
    base = run.results.get(baseline) if baseline else None
    base_mean = float(base.final_regrets.mean()) if base is not None else 0.0
    floor = 2.0 * base_mean
    kept = {}
    for x, r in sorted(sweep.items()):
        m = float(r.final_regrets.mean())
        gaps = r.means.max() - r.means
        cap = 0.5 * r.horizon * float(gaps.mean())
        if (lo is None or x >= lo) and (hi is None or x <= hi) and floor < m < cap and (keep is None or keep(r)):
            kept[x] = r.final_regrets - base_mean if subtract_baseline else r.final_regrets
    fit = rf.power_law_fit(list(kept), list(kept.values()), variable=variable, predicted=predicted,
                           tolerance=tolerance)
    regime = ", ".join(f"{x:g}" for x in kept) or "none"
    verdict = status_cell(fit.checks[0]) if fit.applicable and fit.checks else status_cell(fit.verdict)
    what = "R - R_base" if subtract_baseline else "R"
    return [claim, f"{what}; {variable} in regime: {regime}", fmt_ci(fit), verdict]


SWEEP_HEADER = ["scaling law (prediction)", "points used", "fitted exponent [95% CI]", "verdict"]


def all_bound_rows(runs: dict) -> list[list]:
    rows = []
    for name, run in runs.items():
        if run is None:
            continue
        for key, res in run.results.items():
            rows += bound_check_rows(name, key, res)
    return rows


def bound_checks_section(report: Report, title: str, text: str, runs: dict, *, level: int = 2):
    """The per-run bound-check table of ``runs`` (experiment name -> run) under ``title``,
    then every registered bound of the report's seed."""
    report.section(title, level)
    report.text(text)
    report.table(BOUND_HEADER, all_bound_rows(runs))
    report.section(f"Registered bounds of seed {report.ctx.seed}", 3)
    registry_table(report, report.ctx.seed)
