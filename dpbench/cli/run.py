"""``dpbench run EXPERIMENT``: reproduce a paper figure from its TOML description."""
from __future__ import annotations

import json

from ..engine.result import _jsonable


def register(sub):
    p = sub.add_parser("run", help="run a shipped experiment (a paper figure)",
                       description="Run every configuration of an experiment, save results, "
                                   "a figure (regret.png) and a table (table.md/.csv). "
                                   "Saved runs of the same configuration are reused; an "
                                   "interrupted run resumes from its finished repetitions.")
    p.add_argument("experiment", help="experiment name (see `dpbench list experiments`) or a .toml path")
    p.add_argument("--horizon", type=int, help="horizon T (default: the experiment's)")
    p.add_argument("--reps", type=int, help="repetitions R (default: the experiment's)")
    p.add_argument("--seed", type=int, help="master seed (default: the experiment's)")
    p.add_argument("--threads", type=int, help="numba threads (default: all cores)")
    p.add_argument("--out", default="dpbench-results", help="output directory (default: %(default)s)")
    p.add_argument("--force", action="store_true", help="recompute runs even if saved results exist")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of the table")
    p.set_defaults(func=_run)


def _run(args) -> int:
    import sys

    from ..experiments import run_experiment
    from ..experiments.outputs import markdown_table
    log = (lambda msg: print(msg, file=sys.stderr)) if args.json else print
    run = run_experiment(args.experiment, horizon=args.horizon, reps=args.reps, seed=args.seed,
                         out=args.out, threads=args.threads, progress=not args.no_progress,
                         reuse=not args.force, log=log)
    if args.json:
        print(json.dumps(_jsonable({"experiment": run.experiment.name, "out_dir": str(run.out_dir),
                                    "figure": str(run.figure), "config": run.config,
                                    "table": run.table}), indent=1))
    else:
        print(f"\n{run.experiment.title}\n")
        print(markdown_table(run.experiment, run.table))
        print(f"\nfigure: {run.figure}\ntable:  {run.out_dir / 'table.md'}\nresults: {run.out_dir / 'runs'}")
    return 0
