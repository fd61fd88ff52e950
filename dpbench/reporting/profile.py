"""Where a full report build spends its time: ``python -m dpbench.reporting.profile``.

The reports (``dpbench report all``, or the seeds given) are built at their full horizons with
every configuration capped at ``--reps`` repetitions, into a fresh result store and a scratch
report folder, with timers around each part of the job:

* **run**: the compiled kernel over the repetitions of every cell (per policy, per experiment);
* **compile**: the first run of each kernel signature (numba compiling or loading its disk cache;
  the CPU seconds of ``compile_plan``);
* **store I/O**: the result store's SQLite reads and writes (cells, checksums, merged results);
* **setup**: the rest of running an experiment (loading and validating it, building the plans,
  the code stamps);
* **statistics**: everything of a report that is not running its experiments (claim tests,
  regret fits, bootstrap intervals, bound checks, audits, figures, markdown).

Then the reports are rebuilt twice from the stored cells (every cell reused, no kernel runs), at
the cap and at half of it: that times their statistics alone, and their cost per repetition.
The full-size estimate scales the kernel CPU seconds of each cell and the store I/O by full /
capped repetitions, extrapolates the statistics linearly in the repetitions from the two
rebuilds, and keeps compile and setup as measured (they do not depend on the repetitions); the
first build's extra statistics time over the rebuild's (the audits' kernels compiled, modules
imported) counts as compile.  CPU seconds (every thread of the process) are the measure: on a
shared machine wall seconds are inflated by other load, CPU seconds much less.  The estimated
wall time on a quiet machine runs the kernels on ``threads`` cores (the engine's two-thread
scaling is close to 2) and every other part on one.

The result is a markdown page (default ``reports/report_profile.md``) and its numbers as JSON
beside it; nothing is typed.  At the default cap of 8 the profile costs about a fifth of a full
build.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_OUT = Path("reports") / "report_profile.md"
DEFAULT_REPS = 8


@dataclass
class Clock:
    """Wall and CPU seconds accumulated by one kind of work (outermost calls only)."""
    wall: float = 0.0
    cpu: float = 0.0
    calls: int = 0


@dataclass
class CellTime:
    """One computed cell: what it ran and what it cost."""
    experiment: str
    run: str
    policy: str
    horizon: int
    reps: int                # repetitions of this cell
    scale: float             # full-size repetitions of its configuration / those of the capped run
    wall: float              # kernel wall seconds (compile excluded)
    cpu: float               # kernel CPU seconds, every thread (compile excluded)
    compile_wall: float
    compile_cpu: float


@dataclass
class ExperimentTime:
    report: str
    name: str
    horizon: int
    reps: int
    full_reps: int
    wall: float = 0.0
    cpu: float = 0.0


@dataclass
class Recorder:
    """The timers a profiled build fills in (see :func:`instrumented`)."""
    cells: list[CellTime] = field(default_factory=list)
    experiments: list[ExperimentTime] = field(default_factory=list)
    io: dict[str, Clock] = field(default_factory=lambda: defaultdict(Clock))
    report: str = ""
    _depth: int = 0
    _full: dict = field(default_factory=dict)

    def io_total(self, report: str | None = None) -> Clock:
        out = Clock()
        for key, c in self.io.items():
            if report is None or key[0] == report:
                out.wall += c.wall
                out.cpu += c.cpu
                out.calls += c.calls
        return out


def _now():
    return time.perf_counter(), time.process_time()


@contextlib.contextmanager
def instrumented(rec: Recorder, max_reps: int | None):
    """Install the timers (and the repetition cap) for the duration of the block.

    They wrap, and restore afterwards: ``ReportContext.sizes`` (the cap; the full size is kept),
    ``ReportContext.run`` (per experiment), the runner's ``run_plan`` (per cell: kernel and
    compile) and the result store's methods (I/O; nested calls count once)."""
    from ..engine import simulate
    from ..experiments import runner
    from ..sweeps.store import ResultStore
    from .context import ReportContext

    saved = []

    def patch(owner, name, make):
        original = getattr(owner, name)
        saved.append((owner, name, original))
        setattr(owner, name, functools.wraps(original)(make(original)))

    def sizes(original):
        def wrapper(self, exp, horizon=None, reps=None):
            h, r = original(self, exp, horizon, reps)
            rec._full[exp.name] = (h, r)
            return (h, r if max_reps is None else min(r, max_reps))
        return wrapper

    def experiment(original):
        def wrapper(self, name, horizon=None, reps=None):
            w0, c0 = _now()
            run = original(self, name, horizon, reps)
            w1, c1 = _now()
            if run is not None:
                exp = run.experiment
                h, full = rec._full.get(exp.name, (run.config["horizon"], run.config["reps"]))
                rec.experiments.append(ExperimentTime(rec.report, exp.name, int(run.config["horizon"]),
                                                      int(run.config["reps"]), int(full), w1 - w0, c1 - c0))
            return run
        return wrapper

    compiled: list = []

    def compile_plan(original):
        def wrapper(plan):
            w0, c0 = _now()
            out = original(plan)
            w1, c1 = _now()
            compiled.append((w1 - w0, c1 - c0))
            return out
        return wrapper

    def run_plan(original):
        def wrapper(plan, reps, **kw):
            compiled.clear()
            w0, c0 = _now()
            res = original(plan, reps, **kw)
            w1, c1 = _now()
            key = kw.get("desc") or plan.label
            exp = key.split(" / ", 1)[0]
            full = rec._full.get(exp, (plan.horizon, reps))[1]
            capped = full if max_reps is None else min(full, max_reps)
            c_wall, c_cpu = (sum(x) for x in zip(*compiled)) if compiled else (0.0, 0.0)
            rec.cells.append(CellTime(exp, key, plan.spec.name, int(plan.horizon), int(reps), full / capped,
                                      max(0.0, w1 - w0 - c_wall), max(0.0, c1 - c0 - c_cpu), c_wall, c_cpu))
            return res
        return wrapper

    def store_method(method):
        def make(original):
            def wrapper(*args, **kw):
                if rec._depth:
                    return original(*args, **kw)
                rec._depth += 1
                w0, c0 = _now()
                try:
                    return original(*args, **kw)
                finally:
                    w1, c1 = _now()
                    rec._depth -= 1
                    clock = rec.io[(rec.report, method)]
                    clock.wall += w1 - w0
                    clock.cpu += c1 - c0
                    clock.calls += 1
            return wrapper
        return make

    patch(ReportContext, "sizes", sizes)
    patch(ReportContext, "run", experiment)
    patch(runner, "run_plan", run_plan)
    patch(simulate, "compile_plan", compile_plan)
    for method in ("__init__", "register", "write_cell", "cells", "load_result", "code_stamps",
                   "discard_cells", "close"):
        patch(ResultStore, method, store_method(method))
    try:
        yield rec
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def _build(seeds, rec: Recorder, results: Path, out: Path, max_reps, threads, log) -> dict:
    """Build every report of ``seeds`` under the timers; report -> (wall, CPU) seconds."""
    from . import build_report
    totals = {}
    with instrumented(rec, max_reps):
        for seed in seeds:
            rec.report = f"seed{seed}"
            w0, c0 = _now()
            build_report(seed, results_dir=results, out_dir=out, threads=threads, log=log)
            w1, c1 = _now()
            totals[rec.report] = (w1 - w0, c1 - c0)
    return totals


def profile(seeds=None, *, reps: int = DEFAULT_REPS, threads: int | None = None, workdir=None,
            log=print) -> dict:
    """Build the reports of ``seeds`` (default all) at ``reps`` repetitions per configuration,
    then twice more from the stored cells (at ``reps`` and ``reps // 2``); return the measured and
    estimated profile (the structure :func:`render` turns into markdown)."""
    from ..sweeps.dask_backend import max_threads
    from . import installed_papers
    seeds = tuple(p.removeprefix("seed") for p in installed_papers()) if seeds is None else tuple(seeds)
    if reps < 4:
        raise ValueError("reps must be >= 4 (the statistics are also timed at reps // 2 >= 2)")
    threads_used = threads or max_threads()
    with contextlib.ExitStack() as stack:
        root = Path(workdir) if workdir else \
            Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dpbench-profile-")))
        load0 = os.getloadavg()
        passes = []
        for cap in (reps, reps, reps // 2):          # the build, then two rebuilds from its cells
            rec = Recorder()
            passes.append((rec, _build(seeds, rec, root / "results", root / "reports", cap, threads, log)))
        load1 = os.getloadavg()
    return summarise(seeds, passes, reps=reps, threads=threads_used, load=(load0[0], load1[0]))


def _statistics(rec: Recorder, totals: dict, report: str) -> tuple[float, float]:
    """(CPU seconds of ``report`` outside its experiments, mean repetitions of its experiments)."""
    exps = [e for e in rec.experiments if e.report == report]
    return max(0.0, totals[report][1] - sum(e.cpu for e in exps)), _mean([e.reps for e in exps])


def summarise(seeds, passes, *, reps: int, threads: int, load=(math.nan, math.nan)) -> dict:
    """The measured parts of each report and their full-size estimate (see the module docstring).
    ``passes``: (recorder, report -> (wall, CPU)) of the build and of the rebuilds at the cap and
    at half the cap."""
    from ..engine.result import now_iso, package_versions
    from ..version import git_commit

    (rec, totals), (warm, warm_totals), (half, half_totals) = passes
    reports = []
    for seed in seeds:
        name = f"seed{seed}"
        cells = [c for c in rec.cells if _report_of(rec, c.experiment) == name]
        exps = [e for e in rec.experiments if e.report == name]
        wall, cpu = totals[name]
        run_cpu = sum(c.cpu for c in cells)
        run_wall = sum(c.wall for c in cells)
        compile_s = sum(c.compile_cpu for c in cells)
        io = rec.io_total(name)
        exp_cpu = sum(e.cpu for e in exps)
        setup = max(0.0, exp_cpu - run_cpu - compile_s - io.cpu)
        stats_first = max(0.0, cpu - exp_cpu)
        stats_cap, mean_cap = _statistics(warm, warm_totals, name)
        stats_half, mean_half = _statistics(half, half_totals, name)
        warm_up = max(0.0, stats_first - stats_cap)     # the statistics' own kernels compiled, imports
        mean_full = _mean([e.full_reps for e in exps])
        slope = max(0.0, (stats_cap - stats_half) / (mean_cap - mean_half)) if mean_cap > mean_half else 0.0
        stats_full = stats_cap + slope * max(0.0, mean_full - mean_cap)
        run_full = sum(c.cpu * c.scale for c in cells)
        io_full = io.cpu * (mean_full / mean_cap if mean_cap else 1.0)
        compile_full = compile_s + warm_up
        cpu_full = run_full + compile_full + io_full + setup + stats_full
        reports.append({
            "report": name,
            "measured": {"wall": wall, "cpu": cpu, "run_cpu": run_cpu, "run_wall": run_wall, "compile": compile_s,
                         "warm_up": warm_up, "io": io.cpu, "setup": setup, "statistics": stats_cap,
                         "statistics_half": stats_half, "mean_reps": mean_cap, "mean_reps_half": mean_half,
                         "rebuild_wall": warm_totals[name][0], "cells": len(cells), "experiments": len(exps)},
            "full": {"run_cpu": run_full, "compile": compile_full, "io": io_full, "setup": setup,
                     "statistics": stats_full, "cpu": cpu_full, "mean_reps": mean_full,
                     "wall_quiet": cpu_full - run_full + run_full / threads}})
    policies: dict = defaultdict(lambda: {"cells": 0, "configs": set(), "pulls": 0.0, "cpu": 0.0, "compile": 0.0})
    experiments: dict = defaultdict(lambda: {"report": "", "cpu": 0.0, "pulls": 0.0, "horizon": 0, "reps": 0,
                                             "policies": set()})
    full_of = {e.name: e.full_reps for e in rec.experiments}
    for c in rec.cells:
        p = policies[c.policy]
        p["cells"] += 1
        p["configs"].add(c.run)
        p["pulls"] += c.horizon * c.reps * c.scale
        p["cpu"] += c.cpu * c.scale
        p["compile"] += c.compile_cpu
        e = experiments[c.experiment]
        e["report"] = _report_of(rec, c.experiment)
        e["cpu"] += c.cpu * c.scale
        e["pulls"] += c.horizon * c.reps * c.scale
        e["horizon"] = max(e["horizon"], c.horizon)
        e["reps"] = full_of.get(c.experiment, 0)
        e["policies"].add(c.policy)
    for p in policies.values():
        p["configs"] = len(p["configs"])
    for e in experiments.values():
        e["policies"] = sorted(e["policies"])
    return {"command": f"python -m dpbench.reporting.profile --reps {reps}", "date": now_iso(),
            "commit": git_commit(), "versions": package_versions(), "cores": os.cpu_count(), "threads": threads,
            "reps_cap": reps, "load_average": list(load), "reports": reports,
            "policies": dict(policies), "experiments": dict(experiments)}


def _mean(values) -> float:
    return sum(values) / len(values) if values else 0.0


def _report_of(rec: Recorder, experiment: str) -> str:
    for e in rec.experiments:
        if e.name == experiment:
            return e.report
    return ""


def largest_costs(data: dict, n: int = 3) -> list[tuple[str, float]]:
    """The ``n`` largest items of the full-size CPU estimate: each policy's kernel time, and the
    compile, store I/O, setup and statistics of all reports."""
    items = [(f"kernel time of {name}", p["cpu"]) for name, p in data["policies"].items()]
    for part, what in (("compile", "compiling kernels"), ("io", "result store I/O"),
                       ("setup", "experiment setup"), ("statistics", "the reports' own statistics")):
        items.append((what, sum(r["full"][part] for r in data["reports"])))
    return sorted(items, key=lambda kv: -kv[1])[:n]


def render(data: dict) -> str:
    """The profile as markdown."""
    cap = data["reps_cap"]
    lines = ["# Where the report build spends its time", "",
             f"Generated by `{data['command']}` on {data['date']} (git commit {data['commit']}; "
             f"{data['cores']} cores, kernels on {data['threads']} threads; load average "
             f"{data['load_average'][0]:.2f} at the start, {data['load_average'][1]:.2f} at the end). "
             f"Every report was built at its full horizons with every configuration capped at {cap} "
             "repetitions, into a fresh result store, then rebuilt twice from the stored cells (at "
             f"{cap} and {cap // 2} repetitions) to time its statistics alone. The full-size columns scale "
             "each cell's kernel CPU seconds and the store I/O by full / capped repetitions, extrapolate the "
             "statistics linearly in the repetitions from the two rebuilds, and keep compile and setup as "
             "measured; compile includes the first build's extra statistics time over the rebuild's (kernels "
             "of the audits compiled, modules imported). CPU seconds count every thread; the quiet-machine "
             f"wall estimate runs the kernels on {data['threads']} cores and everything else on one "
             "(`dpbench.reporting.profile`).", ""]
    total = {k: sum(r["full"][k] for r in data["reports"]) for k in
             ("run_cpu", "compile", "io", "setup", "statistics", "cpu", "wall_quiet")}
    lines += ["## The three largest costs (full size, CPU seconds)", ""]
    for i, (what, sec) in enumerate(largest_costs(data), 1):
        lines.append(f"{i}. {what}: {sec:,.0f} s ({100 * sec / total['cpu']:.0f}% of {total['cpu']:,.0f} s)")
    lines += ["", "## Per report (seconds)", "",
              "| report | experiments | cells (capped) | measured wall | measured CPU | full: kernel CPU "
              "| compile | store I/O | setup | statistics | full CPU | full wall, quiet, est. |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in data["reports"]:
        m, f = r["measured"], r["full"]
        lines.append(f"| {r['report']} | {m['experiments']} | {m['cells']} | {m['wall']:.0f} | {m['cpu']:.0f} | "
                     f"{f['run_cpu']:.0f} | {f['compile']:.0f} | {f['io']:.0f} | {f['setup']:.0f} | "
                     f"{f['statistics']:.0f} | {f['cpu']:.0f} | {f['wall_quiet']:.0f} |")
    m_wall = sum(r["measured"]["wall"] for r in data["reports"])
    m_cpu = sum(r["measured"]["cpu"] for r in data["reports"])
    lines.append(f"| all | | | {m_wall:.0f} | {m_cpu:.0f} | {total['run_cpu']:.0f} | {total['compile']:.0f} | "
                 f"{total['io']:.0f} | {total['setup']:.0f} | {total['statistics']:.0f} | {total['cpu']:.0f} | "
                 f"{total['wall_quiet']:.0f} |")
    lines += ["", "Statistics measured from the stored cells (CPU s at mean repetitions): " + "; ".join(
        f"{r['report']} {r['measured']['statistics']:.0f} at {r['measured']['mean_reps']:.1f}, "
        f"{r['measured']['statistics_half']:.0f} at {r['measured']['mean_reps_half']:.1f} "
        f"(full size: {r['full']['mean_reps']:.1f})" for r in data["reports"]) + ".", ""]
    lines += ["## Kernel time per policy (full size)", "",
              "| policy | configurations | pulls (full size) | kernel CPU (s) | share | pulls per CPU second "
              "| compile (s) |", "|---|---|---|---|---|---|---|"]
    for name, p in sorted(data["policies"].items(), key=lambda kv: -kv[1]["cpu"]):
        rate = p["pulls"] / p["cpu"] if p["cpu"] > 0 else math.inf
        lines.append(f"| {name} | {p['configs']} | {p['pulls']:.3g} | {p['cpu']:.0f} | "
                     f"{100 * p['cpu'] / max(total['run_cpu'], 1e-9):.1f}% | {rate:.3g} | {p['compile']:.1f} |")
    lines += ["", "## Kernel time per experiment (full size, the 25 largest)", "",
              "| experiment | report | T | repetitions | kernel CPU (s) | policies |", "|---|---|---|---|---|---|"]
    for name, e in sorted(data["experiments"].items(), key=lambda kv: -kv[1]["cpu"])[:25]:
        lines.append(f"| {name} | {e['report']} | {e['horizon']:.0e} | {e['reps']} | {e['cpu']:.0f} | "
                     f"{', '.join(e['policies'])} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from ..validation import InputError
    from . import installed_papers
    from .paper import find_paper
    p = argparse.ArgumentParser(prog="python -m dpbench.reporting.profile", description=__doc__.split("\n\n")[0])
    p.add_argument("seeds", nargs="*", default=["all"], help="000 ... 004 or all (default)")
    p.add_argument("--reps", type=int, default=DEFAULT_REPS,
                   help=f"repetitions per configuration in the profiled build (default {DEFAULT_REPS}, >= 4)")
    p.add_argument("--threads", type=int, default=None, help="kernel threads (default: all cores)")
    p.add_argument("--out", default=str(DEFAULT_OUT),
                   help=f"markdown page (default {DEFAULT_OUT}); its numbers as JSON beside it")
    p.add_argument("--workdir", default=None,
                   help="keep the profiled result store and reports here (default: a temporary folder)")
    args = p.parse_args(argv)
    if args.reps < 4:
        p.error(f"--reps must be an integer >= 4 (got {args.reps}); the statistics are also timed at reps // 2")
    if args.threads is not None and args.threads < 1:
        p.error(f"--threads must be an integer >= 1 (got {args.threads})")
    try:
        named = installed_papers() if args.seeds == ["all"] else args.seeds
        seeds = tuple(find_paper(s)[0].removeprefix("seed") for s in named)
    except InputError as err:
        p.error(str(err))
    data = profile(seeds, reps=args.reps, threads=args.threads, workdir=args.workdir,
                   log=lambda msg: None)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    data["command"] = "python -m dpbench.reporting.profile " + " ".join(
        ([] if args.seeds == ["all"] else list(args.seeds)) + [f"--reps {args.reps}"])
    out.write_text(render(data))
    out.with_suffix(".json").write_text(json.dumps(data, indent=1, default=str) + "\n")
    print(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
