"""``dpbench audit-suite``: the known-answer audit suite (DP-Sniper's 20 mechanisms and the
floating-point case, :mod:`verify.audit.suites`), written to ``reports/audit_benchmark.md``,
and the planted-bug tables ``reports/audit_planted.md`` (which layer caught each bug, and the
samples the sequential audit needed to catch it).

    dpbench audit-suite                               # the report's settings (about 9 minutes on 2 cores)
    dpbench audit-suite --scale 0.01 --only LaplaceMechanism --out /tmp/suite.md
    dpbench audit-suite --planted-only                # only the planted bugs, into reports/audit_planted.md
    dpbench audit-suite --libraries                   # DP libraries' own objects, into reports/audit_libraries.md
    dpbench audit-suite --policies                    # whole bandit policies, into reports/audit_policies.md
"""
from __future__ import annotations

from pathlib import Path

from ..validation import InputError, check_choice, check_int, check_real, make_output_dir, number_arg

#: what the printed seconds leave out (a user timing the command sees more)
EXCLUDED = "the audits' own time: start-up, imports and the sequential table's audits are not counted"


#: where ``dpbench --help`` lists the command
ORDER = 70


def register(sub):
    p = sub.add_parser("audit-suite", help="the known-answer audit suite (DP-Sniper mechanisms)",
                       description="Audit the 20 mechanisms of the DP-Sniper benchmark and the "
                                   "floating-point Laplace case against their published eps lower "
                                   "bounds, plus the dpbench catalog and negative controls, and write "
                                   "the markdown report.")
    p.add_argument("--scale", type=number_arg(low=0.0, low_open=True), default=1.0,
                   help="multiply every sample count (default 1)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these mechanisms (no controls table)")
    p.add_argument("--seed", type=number_arg(integer=True, low=0), default=0, help="seed of every audit (default 0)")
    p.add_argument("--no-controls", action="store_true", help="skip the dpbench catalog/controls table")
    p.add_argument("--planted-only", action="store_true",
                   help="only the planted-bug tables (every bug of verify.audit.suites.planted and its fix; "
                        "the samples the sequential audit needed to catch each bug), into "
                        "reports/audit_planted.md unless --out is given")
    p.add_argument("--libraries", action="store_true",
                   help="audit the mechanism objects of the DP libraries installed here (OpenDP, diffprivlib, "
                        "python-dp, PipelineDP, Tumult Core) at their own claims, with the rows recorded in other "
                        "environments (reports/audit_libraries/*.json), into reports/audit_libraries.md unless "
                        "--out is given")
    p.add_argument("--library", action="append", metavar="NAME",
                   help="with --libraries: run only this library's cases (repeatable; e.g. opendp)")
    p.add_argument("--rows-out", dest="rows_out", metavar="FILE.json",
                   help="with --libraries: also record the rows run here, with this environment, for another "
                        "environment's report (python -m verify.audit.suites.library_envs writes them)")
    p.add_argument("--env-name", dest="env_name", default="this environment",
                   help="with --libraries: the name of this environment in the report (default: %(default)s)")
    p.add_argument("--policies", action="store_true",
                   help="only the policy audits (whole bandit policies at their claims, fixed n and sequential "
                        "within the same runs; negative controls), into reports/audit_policies.md unless --out "
                        "is given")
    p.add_argument("--out", help="report file (default: reports/audit_benchmark.md, or "
                                 "reports/audit_planted.md with --planted-only, reports/audit_policies.md with "
                                 "--policies)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    if args.libraries:
        return _run_libraries(args)
    for flag, given in (("--library", args.library), ("--rows-out", args.rows_out)):
        if given:
            raise InputError(f"{flag} goes with --libraries")
    from verify.audit.suites import report as suite
    if args.planted_only and args.policies:
        raise InputError("give --planted-only or --policies, not both (each writes its own report)")
    if args.planted_only or args.policies:  # first: the other options do not apply to these tables
        flag = "--planted-only" if args.planted_only else "--policies"
        extra = [flag for flag, given in (("--only", args.only), ("--scale", args.scale != 1.0),
                                          ("--no-controls", args.no_controls)) if given]
        if extra:
            raise InputError(f"{flag} takes no {' or '.join(extra)} (its audits run at fixed settings; only "
                             f"--seed and --out apply)")
    check_real("--scale", args.scale, low=0.0, low_open=True)
    check_int("--seed", args.seed, low=0)
    names = [c.name for c in suite.cases()]
    for name in args.only or ():
        check_choice("mechanism (--only)", name, names)
    out = Path(args.out or ("reports/audit_planted.md" if args.planted_only else
                            "reports/audit_policies.md" if args.policies else "reports/audit_benchmark.md"))
    make_output_dir("--out", out.parent)
    if args.policies:
        from verify.audit.suites import policies
        wall, cpu = policies.write(out, seed=args.seed, command="dpbench audit-suite --policies"
                                   + (f" --seed {args.seed}" if args.seed else ""))
        print(f"wrote {out}: audits {wall:.0f} s wall / {cpu:.0f} s cpu")
        return 0
    if args.planted_only:
        wall, cpu = suite.write_planted(out, seed=args.seed)
        print(f"wrote {out}: audits {wall:.0f} s wall / {cpu:.0f} s cpu ({EXCLUDED})")
        return 0
    seconds = suite.write_suite(out, scale=args.scale, only=args.only, seed=args.seed,
                                controls=not args.no_controls)
    print(f"wrote {out}: suite {seconds[0]:.0f} s wall / {seconds[1]:.0f} s cpu"
          + ("" if args.no_controls or args.only else
             f", controls {seconds[2]:.0f} / {seconds[3]:.0f}, planted {seconds[4]:.0f} / {seconds[5]:.0f}")
          + f" ({EXCLUDED})")
    return 0


def _run_libraries(args) -> int:
    """``--libraries``: the DP libraries' own objects (:mod:`verify.audit.suites.libraries`)."""
    import time

    from verify.audit.suites import libraries as suite
    from verify.audit.suites.report import provenance_line
    extra = [flag for flag, given in (("--only", args.only), ("--scale", args.scale != 1.0),
                                      ("--no-controls", args.no_controls), ("--planted-only", args.planted_only),
                                      ("--policies", args.policies))
             if given]
    if extra:
        raise InputError(f"--libraries takes no {' or '.join(extra)} (every row runs at n = {suite.SUITE_N:,}; "
                         f"--library, --seed, --rows-out, --env-name and --out apply)")
    check_int("--seed", args.seed, low=0)
    names = [a.name for a in suite.libraries.ADAPTERS]
    for name in args.library or ():
        check_choice("library (--library)", name, names)
    out = Path(args.out or "reports/audit_libraries.md")
    make_output_dir("--out", out.parent)
    if args.rows_out:
        make_output_dir("--rows-out", Path(args.rows_out).parent)
    recorded = suite.read_recorded()                    # checked before anything runs
    command = "dpbench audit-suite --libraries" + "".join(f" --library {n}" for n in args.library or ())
    t0 = time.perf_counter()
    rows, skipped = suite.run_live(args.library, seed=args.seed)
    wall = time.perf_counter() - t0
    if args.rows_out:
        suite.write_rows(args.rows_out, rows, suite.environment(args.env_name, command), skipped)
        print(f"recorded {len(rows)} rows in {args.rows_out}")
        recorded = suite.read_recorded()                # the report names the environment just recorded
    out.write_text(suite.report(rows, skipped, recorded, command, args.env_name, wall)
                   + "\n" + provenance_line(command) + "\n")
    print(f"wrote {out}: {len(rows)} rows run here in {wall:.0f} s wall")
    return 0
