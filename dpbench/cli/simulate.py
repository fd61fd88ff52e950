"""``dpbench simulate``: one ad-hoc configuration."""
from __future__ import annotations

import json

from ..engine.result import to_json
from ..validation import InputError, check_count, integer_text


def register(sub):
    p = sub.add_parser("simulate", help="simulate one policy on one environment",
                       description="Run one configuration and print its regret summary.")
    p.add_argument("--policy", required=True, help="policy name (see `dpbench list policies`)")
    p.add_argument("--rewards", default="bernoulli", help="environment name (default: %(default)s)")
    p.add_argument("--means", help="arm means, comma-separated (default: the 20-arm instance)")
    p.add_argument("--eps", type=float, help="privacy level epsilon")
    p.add_argument("--delta", type=float, help="privacy slack delta (policies that take it)")
    p.add_argument("--eps-min", type=float, dest="eps_min", help="HeLDP threshold eps_min")
    p.add_argument("--mechanism", help="replace the privatiser of a policy that takes one (e.g. ldp_ucb_l) "
                                       "by this mechanism (see `dpbench list mechanisms`); its parameters "
                                       "by --eps/--delta/--set")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="any other policy or environment parameter (repeatable)")
    p.add_argument("--horizon", type=integer_text, required=True, help="horizon T (e.g. 100000 or 1e5)")
    p.add_argument("--reps", type=integer_text, default=10, help="repetitions (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="master seed (default: %(default)s)")
    p.add_argument("--threads", type=int, help="numba threads (default: all cores)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--check", action="store_true",
                   help="first run repetition 0 as plain Python with every component call checked")
    p.add_argument("--yes", action="store_true",
                   help="run even if the estimated time exceeds a day (Python: allow_long=True)")
    p.set_defaults(func=_run)


def parse_assignments(items, flag: str = "--set", coerce=None) -> dict:
    """``KEY=VALUE`` items to a dict (dashes in keys become underscores); values by
    ``coerce`` (default: int, float, true/false, else the text)."""
    coerce = coerce or _coerce
    out = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"{flag} expects KEY=VALUE (got {item!r})")
        key, value = item.split("=", 1)
        out[key.strip().replace("-", "_")] = coerce(value.strip())
    return out


def _coerce(text):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _run(args) -> int:
    from ..engine.contracts import describe_check
    from ..engine.simulate import check_threads, simulate
    params = parse_assignments(args.set)
    for key in ("means", "eps", "delta", "eps_min", "mechanism"):
        if getattr(args, key) is not None:
            params[key] = getattr(args, key)
    reps = check_count("reps", args.reps)
    check_threads(args.threads)
    result = simulate(args.policy, args.rewards, args.horizon, reps, args.seed, threads=args.threads,
                      progress=not (args.no_progress or args.json), check=args.check, allow_long=args.yes,
                      **params)
    summary = result.summary()
    if args.json:
        print(json.dumps(to_json(summary), indent=1))
        return 0
    lo, hi = summary["ci95_final_regret"]
    print(f"{result.label} on {result.environment}, T={result.horizon}, R={result.reps}, seed={result.seed}")
    print(f"  final pseudo-regret: {summary['mean_final_regret']:.6g} ± {summary['stderr_final_regret']:.3g} "
          f"(95% CI [{lo:.6g}, {hi:.6g}])")
    print(f"  speed: {summary['pulls_per_second']:.3g} pulls/s over {result.threads} thread(s), "
          f"{summary['seconds']:.3g} s (+ {summary['compile_seconds']:.3g} s compile/cache load)")
    if "check" in result.metadata:
        print(f"  {describe_check(result.metadata['check'])}")
    for w in result.warnings:
        print(f"  warning: {w}")
    return 0
