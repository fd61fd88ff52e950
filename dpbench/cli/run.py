"""``dpbench run EXPERIMENT``: reproduce a paper figure from its TOML description."""
from __future__ import annotations

from .sweep import add_execution_arguments, execute

#: where ``dpbench --help`` lists the command
ORDER = 10


def register(sub):
    p = sub.add_parser("run", help="run a shipped experiment (a paper figure)",
                       description="Run every configuration of an experiment, save results "
                                   "(results.sqlite), a figure (regret.png) and a table "
                                   "(table.md/.csv). Stored cells of the same configuration are "
                                   "reused; an interrupted run resumes from its finished repetitions. "
                                   "--scheduler local or an address runs the cells on Dask.")
    p.add_argument("experiment", help="experiment name (see `dpbench list experiments`) or a .toml path")
    add_execution_arguments(p, default_scheduler="none")
    p.set_defaults(func=_run)


def _run(args) -> int:
    return execute(args, args.experiment)
