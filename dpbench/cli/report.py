"""``dpbench report PAPER|all|FOLDER [--quick | --pilot [R]]``: build the bound-validation report of a
paper (``--pilot``: a few repetitions first, and what each claim needs, :mod:`dpbench.reporting.pilot`)."""
from __future__ import annotations

import time
from pathlib import Path

from ..validation import InputError, number_arg

#: where ``dpbench --help`` lists the command
ORDER = 50


def register(subparsers):
    p = subparsers.add_parser(
        "report", help="bound-validation report of a paper (installed, or a folder of your own)",
        description="Check a paper's claims table, run (or reuse saved results of) its experiments, decide "
                    "every claim, redraw its figures, and write <out>/<paper>.md: a front page of verdicts, "
                    "the figures, every claim in detail. PAPER is an installed paper (000 ... 004, seed002), "
                    "'all', or a folder holding claims.toml and experiments/ (e.g. ./mypaper; its policies and "
                    "mechanisms come from --plugin as for every command).")
    p.add_argument("paper", metavar="PAPER", help="000, 001, ..., seed002, all, or a paper folder (./mypaper)")
    p.add_argument("--quick", action="store_true",
                   help="smoke build (T <= 20,000, <= 4 repetitions): checks the report builds; decides nothing")
    p.add_argument("--pilot", nargs="?", type=number_arg(integer=True, low=2), const=5, default=None, metavar="R",
                   help="size the full build first: every experiment at its own horizon with R repetitions "
                        "(default 5) into reports/pilot, and a table of what each claim needs (the repetitions "
                        "and horizon that decide it at the effect the pilot observed)")
    p.add_argument("--results", default="dpbench-results", metavar="DIR",
                   help="where experiment results are saved and reused (default: dpbench-results)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="report folder (default: reports; with --quick, reports/quick, so that a smoke build "
                        "never replaces a full report)")
    p.add_argument("--threads", type=number_arg(integer=True, low=1), default=None,
                   help="worker threads (default: all cores)")
    p.add_argument("--force", action="store_true",
                   help="recompute these reports' results (their configurations' stored cells are discarded; "
                        "other reports' results in the shared store stay)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    from ..sweeps.dask_backend import SCHEDULER_HELP
    p.add_argument("--scheduler", default="none",
                   help=f"where the experiments' cells run: {SCHEDULER_HELP} (default: %(default)s); one "
                        "connection serves every report of the command")
    p.add_argument("--workers", type=number_arg(integer=True, low=1),
                   help="worker processes of --scheduler local (default: one per core)")
    p.add_argument("--connect-timeout", type=number_arg(low=0.0, low_open=True), default=10.0,
                   help="seconds to wait for a --scheduler address (default: %(default)s)")
    p.add_argument("--yes", action="store_true",
                   help="build even if the estimated time of the whole build exceeds a day (Python: "
                        "allow_long=True); the estimate is made before any experiment runs")
    p.set_defaults(func=run)


def run(args) -> int:
    import contextlib

    from ..reporting import build_report, installed_papers, report_context
    from ..reporting.paper import check, estimate_build, find_paper
    from ..sweeps import dask_backend
    from ..validation import check_int, check_real
    if args.threads is not None and args.threads < 1:
        raise InputError(f"threads must be an integer >= 1 (got {args.threads})")
    scheduler = dask_backend.check_scheduler(args.scheduler)
    if args.workers is not None:
        if scheduler != dask_backend.LOCAL:
            raise InputError("workers applies to --scheduler local only")
        check_int("workers", args.workers, low=1)
    check_real("connect_timeout", args.connect_timeout, low=0.0, low_open=True)
    if args.pilot is not None:
        if args.quick:
            raise InputError("--pilot and --quick exclude each other (a pilot runs the full horizons)")
        from ..reporting.pilot import check_reps
        check_reps(args.pilot)
    papers = installed_papers() if str(args.paper).lower() == "all" else [args.paper]
    for paper in papers:
        find_paper(paper)                 # an unknown paper fails before anything runs
    fresh = set() if args.force else None     # one set: a configuration two reports share is computed once
    options = dict(quick=args.quick, results_dir=args.results, out_dir=out_dir(args), threads=args.threads,
                   progress=not args.no_progress, scheduler_name=None if scheduler is None else args.scheduler,
                   plugins=getattr(args, "plugin", ()), fresh=fresh, allow_long=args.yes, pilot=args.pilot)
    # the whole command estimated (and refused beyond a day) before any experiment runs
    checked, reports = [], []
    for paper in papers:
        ctx, loaded = report_context(paper, **options, scheduler=scheduler)
        checked.append(check(ctx, loaded))
        reports.append(Path(ctx.out_dir) / f"{ctx.paper}.md")
    keep_full_reports(args, reports)
    estimate_build(checked)
    session = contextlib.nullcontext() if scheduler is None else \
        dask_backend.connect(scheduler, workers=args.workers, timeout=args.connect_timeout)
    with session as client:                   # one cluster for every report of the command
        for paper in papers:
            t0 = time.perf_counter()
            path = build_report(paper, **options, scheduler=client, estimated=True)
            print(f"wrote {path} ({time.perf_counter() - t0:.0f} s)")
    return 0


#: what a smoke build's and a pilot's report says of itself (a report without either is a full one)
PARTIAL_MARKS = ("> **Smoke build** (`--quick`)", "## Pilot: what each claim needs")


def keep_full_reports(args, paths) -> None:
    """InputError before anything runs if a smoke build or a pilot would write over a full report (the
    default folders keep them apart; an --out shared with a full build must not replace it)."""
    if not args.quick and args.pilot is None:
        return
    for path in paths:
        if path.is_file() and not any(mark in path.read_text(errors="replace") for mark in PARTIAL_MARKS):
            kind = "smoke build" if args.quick else "pilot"
            raise InputError(f"--out: {path} is a full report, which a {kind} does not replace; give another --out "
                             f"(the default, {default_out(args)}, keeps them apart) or move it away")


def out_dir(args) -> str:
    """The report folder: ``--out``, else :func:`default_out`."""
    return args.out if args.out is not None else default_out(args)


def default_out(args) -> str:
    """The default report folder: reports/ (reports/quick/ for a smoke build, its own for a pilot)."""
    from ..reporting.context import QUICK_OUT
    from ..reporting.pilot import PILOT_OUT
    return QUICK_OUT if args.quick else PILOT_OUT if args.pilot is not None else "reports"
