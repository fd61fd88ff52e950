"""``dpbench baseline``: the regret regression baseline of every policy (:mod:`verify.regret_baseline`).

    dpbench baseline                                # check every policy against the stored baseline
    dpbench baseline ldp_ucb_l dp_se                # check these
    dpbench baseline --regenerate ldp_ucb_l         # rewrite their entries after an intended change

Exit status: 0 when every checked policy matches, 1 when one does not, 2 on bad input.
Regenerating a policy's entry is for an intended change of its regret (or a new policy):
commit the file with the change that caused it and say why.
"""
from __future__ import annotations

from pathlib import Path

from ..validation import InputError, check_choice

#: where ``dpbench --help`` lists the command
ORDER = 80


def register(sub):
    p = sub.add_parser("baseline", help="check (or --regenerate) the regret regression baseline",
                       description="Rerun each policy's regression configuration (T = 2e4, 64 "
                                   "repetitions, fixed seeds) and compare its final regrets with the "
                                   "stored baseline by a two-sided test, or rewrite the baseline.")
    p.add_argument("policies", nargs="*", metavar="POLICY", help="only these policies (default: all)")
    p.add_argument("--regenerate", action="store_true",
                   help="rewrite the baseline of these policies (without names: of every policy, "
                        "dropping the ones no longer registered)")
    p.add_argument("--file", metavar="PATH", help="baseline file (default: the one shipped in verify/data)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from verify import regret_baseline

    from .. import ALGORITHMS
    for name in args.policies:
        check_choice("policy", name, ALGORITHMS)
    path = Path(args.file) if args.file else regret_baseline.BASELINE
    if args.file and not args.regenerate and not path.is_file():
        raise InputError(f"--file: no baseline file {str(path)!r}")
    if args.regenerate and not args.file and {"site-packages", "dist-packages"} & set(path.parts):
        raise InputError(f"--regenerate needs --file PATH here: the default baseline is inside the installed "
                         f"package (.../{'/'.join(path.parts[-3:])}), which the next pip install replaces; keep "
                         f"your policies' baseline in a file of your project")

    def log(line):
        print(line, flush=True)
    if args.regenerate:
        regret_baseline.regenerate(args.policies or None, path=path, log=log)
        print(f"wrote {path}")
        return 0
    failing = regret_baseline.check(args.policies or None, path=path, log=log)
    if failing:
        print(f"{len(failing)} changed or missing: {', '.join(failing)}")
    return 1 if failing else 0
