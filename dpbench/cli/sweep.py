"""``dpbench sweep``: a grid of cells on Dask, stored in a resumable result store.

Either an experiment (a shipped name or a TOML file, the format of ``dpbench
run``) or a grid on the command line::

    dpbench sweep --name eps_grid --policy ucb1,ldp_ucb_b,ldp_ucb_l --env bernoulli \\
        --instance means=0.9,0.8 --instance means=0.6,0.5 --grid eps=0.5,1,2 \\
        --horizon 100000 --reps 100 --seed 1

runs policies x instances x eps x repetition chunks (cells of ``--cell-reps``)
on an embedded LocalCluster (default), in this process (``--scheduler
none``) or on a running cluster (``--scheduler tcp://host:8786``).  Every
finished cell goes straight into ``<out>/<name>/results.sqlite``; rerunning
the same command after a crash computes only the missing cells.
"""
from __future__ import annotations

import json
import sys

from ..engine.result import to_json
from ..validation import MAX_COUNT, InputError, number_arg


def add_execution_arguments(p, default_scheduler: str):
    """Options shared by ``run`` and ``sweep``: where cells run and where results go."""
    from ..sweeps.dask_backend import SCHEDULER_HELP
    p.add_argument("--horizon", type=number_arg(integer=True, low=2, high=MAX_COUNT),
                   help="horizon T, e.g. 100000 or 1e5 (default: the experiment's)")
    p.add_argument("--reps", type=number_arg(integer=True, low=1, high=MAX_COUNT),
                   help="repetitions R (default: the experiment's)")
    p.add_argument("--seed", type=number_arg(integer=True, low=0), help="master seed (default: the experiment's)")
    p.add_argument("--scheduler", default=default_scheduler,
                   help=f"where cells run: {SCHEDULER_HELP} (default: %(default)s)")
    p.add_argument("--workers", type=number_arg(integer=True, low=1),
                   help="worker processes of --scheduler local (default: one per core)")
    p.add_argument("--threads", type=number_arg(integer=True, low=1),
                   help="compiled threads per cell (default: all cores in this process; a Dask "
                        "worker's thread count on Dask)")
    p.add_argument("--cell-reps", type=number_arg(integer=True, low=1),
                   help="repetitions per cell, the unit of scheduling and of resuming (default: the "
                        "file's cell_reps, else 10)")
    p.add_argument("--connect-timeout", type=number_arg(low=0.0, low_open=True), default=10.0,
                   help="seconds to wait for a --scheduler address (default: %(default)s)")
    p.add_argument("--out", default="dpbench-results", help="output directory (default: %(default)s)")
    p.add_argument("--force", action="store_true",
                   help="recompute every run, replacing the stored results at this horizon and seed (other "
                        "horizons, seeds and repetition counts stored under the name are kept)")
    p.add_argument("--extend", action="store_true",
                   help="add runs to the ones stored under this name (a name means one set of runs: "
                        "without --extend or --force, other runs than the stored ones are refused); the "
                        "figure and table show all of them")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of the table")
    p.add_argument("--yes", action="store_true",
                   help="run even if the estimated time exceeds a day (Python: allow_long=True)")


def execute(args, experiment) -> int:
    """Run ``experiment`` (name, path or Experiment) with the shared options; print the outcome."""
    from ..experiments import run_experiment
    from ..experiments.outputs import markdown_table
    log = (lambda msg: print(msg, file=sys.stderr)) if args.json else print
    run = run_experiment(experiment, horizon=args.horizon, reps=args.reps, seed=args.seed, out=args.out,
                         threads=args.threads, progress=not args.no_progress, reuse=not args.force,
                         log=log, scheduler=args.scheduler, workers=args.workers,
                         cell_reps=args.cell_reps, connect_timeout=args.connect_timeout, allow_long=args.yes,
                         extend=args.extend)
    if args.json:
        print(json.dumps(to_json({"experiment": run.experiment.name, "out_dir": str(run.out_dir),
                                    "figure": str(run.figure), "store": str(run.store),
                                    "cells": run.cells, "config": run.config, "table": run.table}),
                         indent=1))
    else:
        print(f"\n{run.experiment.title}\n")
        print(markdown_table(run.experiment, run.table))
        c = run.cells
        print(f"\ncells: {c['computed']} computed, {c['stored']} already stored, {c['total']} in all"
              f"\nfigure: {run.figure}\ntable:  {run.out_dir / 'table.md'}\nresults: {run.store}")
    return 0


#: where ``dpbench --help`` lists the command
ORDER = 20


def register(sub):
    p = sub.add_parser("sweep", help="run a grid of cells on Dask with a resumable result store",
                       description="Run an experiment or a command-line grid (policies x instances x "
                                   "parameter values x repetition chunks) on Dask. Each finished cell "
                                   "is stored at once in <out>/<name>/results.sqlite; the same "
                                   "command after an interruption computes only the missing cells.")
    p.add_argument("experiment", nargs="?",
                   help="experiment name or .toml path (omit to give a grid with --policy ...)")
    p.add_argument("--name", help="sweep name (grid mode): the output folder and the store's name")
    p.add_argument("--policy", action="append", default=[],
                   help="policy (repeat, or comma-separate); see `dpbench list policies`")
    p.add_argument("--env", default="bernoulli", help="environment (default: %(default)s)")
    p.add_argument("--instance", action="append", default=[], metavar="KEY=VALUE[;KEY=VALUE]",
                   help="one environment instance, e.g. means=0.9,0.8 (repeat for several)")
    p.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="sweep a policy or environment parameter over values (separate list-valued "
                        "values with '|', e.g. means=0.9,0.8|0.6,0.5); repeat for a product")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="fix a parameter for every policy (or the environment) that has it")
    p.add_argument("--mechanism", metavar="NAME[,NAME...]",
                   help="run the policies that take a mechanism (e.g. ldp_ucb_l) with each of these "
                        "privatisers (a grid over mechanism); their parameters by --set/--grid")
    p.add_argument("--baseline", help="label of the run privacy-cost ratios are relative to (e.g. UCB1)")
    add_execution_arguments(p, default_scheduler="local")
    p.set_defaults(func=_sweep)


def _pair(text: str, option: str):
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise InputError(f"{option} needs KEY=VALUE (got {text!r})")
    return key.strip(), value.strip()


def grid_from_args(args):
    """The :class:`Experiment` a command-line grid describes."""
    from ..experiments.spec import grid_experiment
    from ..sweeps.grid import parse_value
    if args.name is None:
        raise InputError("a command-line sweep needs --name (or give an experiment name or .toml file)")
    policies = [p.strip() for item in args.policy for p in item.split(",") if p.strip()]
    instances = []
    for text in args.instance:
        instances.append(dict((k, parse_value(v)) for k, v in
                              (_pair(part, "--instance") for part in text.split(";") if part.strip())))
    grid = {}
    for text in args.grid:
        key, values = _pair(text, "--grid")
        sep = "|" if "|" in values else ","
        if key in grid:
            raise InputError(f"--grid {key} given twice")
        grid[key] = [parse_value(v.strip()) for v in values.split(sep) if v.strip()]
    if args.mechanism:
        if "mechanism" in grid:
            raise InputError("give the mechanisms either by --mechanism or by --grid mechanism=..., not both")
        grid["mechanism"] = [m.strip() for m in args.mechanism.split(",") if m.strip()]
    fixed = dict((k, parse_value(v)) for k, v in (_pair(t, "--set") for t in args.set))
    if args.horizon is None or args.reps is None:
        raise InputError("a command-line sweep needs --horizon and --reps")
    return grid_experiment(args.name, policies, environment=args.env, instances=instances, grid=grid,
                           fixed=fixed, horizon=args.horizon, reps=args.reps,
                           seed=0 if args.seed is None else args.seed, baseline=args.baseline,
                           cell_reps=args.cell_reps)


def _sweep(args) -> int:
    grid_options = {"--name": args.name, "--policy": args.policy, "--instance": args.instance,
                    "--grid": args.grid, "--set": args.set, "--baseline": args.baseline,
                    "--mechanism": args.mechanism}
    if args.experiment is not None:
        given = [k for k, v in grid_options.items() if v]
        if given or args.env != "bernoulli":
            raise InputError(f"{', '.join(given) or '--env'} cannot be combined with an experiment file; "
                             "give either an experiment or a command-line grid")
        return execute(args, args.experiment)
    return execute(args, grid_from_args(args))
