"""``dpbench simulate``: one ad-hoc configuration."""
from __future__ import annotations

import json
import sys

from ..engine.result import to_json
from ..validation import MAX_COUNT, InputError, check_count, number_arg

#: where ``dpbench --help`` lists the command
ORDER = 30


def register(sub):
    p = sub.add_parser("simulate", help="simulate one policy on one environment",
                       description="Run one configuration and print its regret summary.")
    p.add_argument("--policy", required=True, help="policy name (see `dpbench list policies`)")
    p.add_argument("--rewards", default="bernoulli", help="environment name (default: %(default)s)")
    p.add_argument("--means", help="arm means, comma-separated (default: the 20-arm instance)")
    p.add_argument("--eps", type=number_arg(low=0.0, low_open=True), help="privacy level epsilon")
    p.add_argument("--delta", type=number_arg(low=0.0, high=1.0, high_open=True),
                   help="privacy slack delta (policies that take it)")
    p.add_argument("--eps-min", type=number_arg(low=0.0, low_open=True), dest="eps_min", help="HeLDP threshold eps_min")
    p.add_argument("--mechanism", help="replace the privatiser of a policy that takes one (e.g. ldp_ucb_l) "
                                       "by this mechanism (see `dpbench list mechanisms`); its parameters "
                                       "by --eps/--delta/--set")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="any other policy or environment parameter (repeatable)")
    p.add_argument("--horizon", type=number_arg(integer=True, low=2, high=MAX_COUNT), required=True,
                   help="horizon T (e.g. 100000 or 1e5)")
    p.add_argument("--reps", type=number_arg(integer=True, low=1, high=MAX_COUNT), default=10,
                   help="repetitions (default: %(default)s)")
    p.add_argument("--seed", type=number_arg(integer=True, low=0), default=0, help="master seed (default: %(default)s)")
    p.add_argument("--threads", type=number_arg(integer=True, low=1), help="numba threads (default: all cores)")
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
    from ..engine.result import thin_warning
    from ..engine.simulate import Interrupted, check_threads, simulate
    params = parse_assignments(args.set)
    for key in ("means", "eps", "delta", "eps_min", "mechanism"):
        if getattr(args, key) is not None:
            params[key] = getattr(args, key)
    reps = check_count("reps", args.reps)
    check_threads(args.threads)
    try:
        result = simulate(args.policy, args.rewards, args.horizon, reps, args.seed, threads=args.threads,
                          progress=not (args.no_progress or args.json), check=args.check, allow_long=args.yes,
                          **params)
    except Interrupted as stop:
        finals = [x for part in stop.parts for x in part.final_regrets]
        shown = f" (mean final pseudo-regret {sum(finals) / len(finals):.6g})" if finals else ""
        print(f"dpbench: {len(finals)} of {reps} repetitions had finished{shown}, {stop.stopped} were stopped "
              "unfinished; `dpbench simulate` keeps nothing (`dpbench run` and `dpbench sweep` store every "
              "finished repetition and resume)", file=sys.stderr)
        raise
    summary = result.summary()
    if args.json:
        print(json.dumps(to_json(summary), indent=1))
        return 0
    lo, hi = summary["ci95_final_regret"]
    print(f"{result.label} on {result.environment}, T={result.horizon}, R={result.reps}, seed={result.seed}")
    print(f"  final pseudo-regret: {summary['mean_final_regret']:.6g} ± {summary['stderr_final_regret']:.3g} "
          f"(95% CI [{lo:.6g}, {hi:.6g}])")
    thin = thin_warning([result.reps])
    if thin:
        print(f"  {thin}")
    print(f"  speed: {summary['pulls_per_second']:.3g} pulls/s over {result.threads} thread(s), "
          f"{summary['seconds']:.3g} s (+ {summary['compile_seconds']:.3g} s compile/cache load)")
    if "check" in result.metadata:
        print(f"  {describe_check(result.metadata['check'])}")
    for w in result.warnings:
        if w != thin:                   # printed under the interval it qualifies
            print(f"  warning: {w}")
    return 0
