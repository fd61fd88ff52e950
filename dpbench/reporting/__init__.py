"""Bound-validation reports: ``dpbench report PAPER|all|FOLDER [--quick]`` writes ``reports/<paper>.md``.

A paper is a folder (:mod:`.paper`): its claims table, its experiments (the figures), optionally
its bounds, measurements and extra sections.  The installed papers (``dpbench/papers/seed<NNN>/``,
found through the entry-point group ``dpbench.papers``) and a user's folder take the same path:
:func:`build_report` runs its experiments (reusing saved results), decides every claim by the
one rule of :mod:`.claims`, and writes the front page (:mod:`.front_page`), the figures redrawn
from the runs (:mod:`.paper_figures`) and every claim in detail.  This package is the generic
machinery and imports no paper.  By concern: ``context`` (sizes, folders, the shared result
store), ``markdown`` (the report and number formats), ``runs`` (results of a run by label,
checkpoint, sweep), ``measures`` (measurements any paper's claims name), ``bound_checks``
(fits against the registered bounds), ``figures`` and ``provenance`` (versions, commit,
command, build times).
"""
from __future__ import annotations

from pathlib import Path

from .context import ReportContext


def installed_papers() -> list[str]:
    """The installed papers' names (``seed000`` ... ``seed004``)."""
    from .paper import installed_papers as names
    return names()


def build_report(paper, *, quick: bool = False, results_dir="dpbench-results", out_dir="reports",
                 threads=None, progress: bool = False, force: bool = False, log=print, scheduler=None,
                 scheduler_name: str | None = None, plugins=(), fresh: set | None = None,
                 allow_long: bool = False, estimated: bool = False, pilot: int | None = None) -> Path:
    """Build the report of ``paper`` (an installed paper: "002", "2", "seed002"; or a folder with a
    ``claims.toml``, e.g. ``"./mypaper"``); return the markdown path (``<out_dir>/<paper>.md``).
    Bad input (an unknown paper, a claim naming an experiment or run that does not exist, an
    unknown test kind, a tolerance wider than the claim's effect) raises
    :class:`~dpbench.InputError` before anything runs.  ``force`` recomputes this report's
    results: the stored cells of every configuration its experiments run are discarded before
    their first run (other reports' cells in the shared store stay); ``fresh``, the set of
    configurations a command recomputed already (one set for the reports of one command, so that
    a configuration two of them share is computed once; implies ``force``).  ``scheduler``: None computes the cells here
    (``threads`` compiled threads), an open ``distributed.Client`` on its cluster
    (:func:`dpbench.sweeps.dask_backend.connect`; ``scheduler_name`` is what the command line
    called it, for the rebuild command); ``plugins``: the ``--plugin`` modules the command loaded
    (named in the rebuild command: without them it would not find a user's policy); ``pilot``: R
    repetitions at every experiment's own horizon, and what each claim needs (:mod:`.pilot`).

    Before any experiment runs, the time of the whole build is estimated (the repetitions the
    shared store lacks, from each policy's measured pulls per second): above 10 minutes a
    ``LongRunWarning`` announces it, above a day :class:`~dpbench.InputError` refuses it unless
    ``allow_long=True`` (the command line's ``--yes``); ``estimated``: the caller estimated it
    already (:func:`report_context` and :func:`~.paper.estimate_build` for several reports)."""
    from .paper import build
    ctx, loaded = report_context(paper, quick=quick, results_dir=results_dir, out_dir=out_dir, threads=threads,
                                 progress=progress, force=force, log=log, scheduler=scheduler,
                                 scheduler_name=scheduler_name, plugins=plugins, fresh=fresh,
                                 allow_long=allow_long, pilot=pilot)
    return build(ctx, loaded, estimated=estimated)


def report_context(paper, *, quick: bool = False, results_dir="dpbench-results", out_dir="reports",
                   threads=None, progress: bool = False, force: bool = False, log=print, scheduler=None,
                   scheduler_name: str | None = None, plugins=(), fresh: set | None = None,
                   allow_long: bool = False, pilot: int | None = None):
    """(:class:`ReportContext`, loaded paper) of a report build (see :func:`build_report`)."""
    from .paper import find_paper, load_paper
    name, folder = find_paper(paper)
    target = str(paper) if folder is not None else (name.removeprefix("seed") if name.startswith("seed") else name)
    loaded = load_paper(name, folder)
    if force and fresh is None:
        fresh = set()
    if pilot is not None:
        from .pilot import check_reps
        check_reps(pilot)
    ctx = ReportContext(name, quick=quick, pilot=pilot, results_dir=Path(results_dir), out_dir=Path(out_dir),
                        threads=threads, progress=progress, fresh=fresh, log=log, paper_dir=folder, target=target,
                        scheduler=scheduler, scheduler_name=scheduler_name, plugins=tuple(plugins),
                        allow_long=allow_long)
    return ctx, loaded


__all__ = ["build_report", "installed_papers", "ReportContext"]
