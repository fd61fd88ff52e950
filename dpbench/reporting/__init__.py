"""Bound-validation reports: ``dpbench report SEED|all [--quick]`` writes ``reports/seed<NNN>.md``.

Each paper's ``report.py`` (``dpbench/papers/seed<NNN>/``, found through the entry-point
group ``dpbench.papers``) builds its report from its experiments (run through the
experiments runner, reusing saved results), its claims table (decided by the claim kinds of
``claims`` and the measurements of ``measures``), the regret fits and bound checks of
``verify``, and the specs' errata.  This package is the generic machinery and imports no
paper.  By concern: ``context`` (sizes, folders, the shared result store), ``markdown``
(the report and number formats), ``runs`` (results of a run by label, checkpoint, sweep),
``bound_checks`` (fits against the registered bounds), ``figures`` and ``provenance``
(versions, commit, command, build times).
"""
from __future__ import annotations

import importlib
from pathlib import Path

from .context import discard_store, ReportContext, require_seed

SEEDS = ("000", "001", "002", "003", "004")


def build_report(seed: str, *, quick: bool = False, results_dir="dpbench-results", out_dir="reports",
                 threads=None, progress: bool = False, force: bool = False, log=print, scheduler=None,
                 scheduler_name: str | None = None) -> Path:
    """Build the report of ``seed`` ("000" ... "004", "seed002", "2"); return the markdown path.
    ``force`` discards the shared result store first (every report's results).  ``scheduler``:
    None computes the cells here (``threads`` compiled threads), an open ``distributed.Client``
    on its cluster (:func:`dpbench.sweeps.dask_backend.connect`; ``scheduler_name`` is what the
    command line called it, for the rebuild command)."""
    seed = require_seed(seed, SEEDS)
    if force:
        discard_store(results_dir)
    from ..plugins import paper_packages
    module = importlib.import_module(f"{paper_packages()[f'seed{seed}']}.report")
    ctx = ReportContext(seed=seed, quick=quick, results_dir=Path(results_dir), out_dir=Path(out_dir),
                        threads=threads, progress=progress, force=force, log=log, scheduler=scheduler,
                        scheduler_name=scheduler_name)
    return module.write(ctx)


__all__ = ["SEEDS", "build_report", "ReportContext", "discard_store"]
