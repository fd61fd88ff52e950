"""``dpbench audit``: a certified black-box privacy audit of one mechanism.

    dpbench audit ctb --eps 1                              # catalog mechanism at its claim
    dpbench audit ctl --eps 1 --param eps=0.5              # negative control: half the noise level
    dpbench audit mypkg.mech:laplace --eps 0.1 --x 0 --x-prime 1 --json
    dpbench audit sniper:NoisyHist2 --eps 0.1 --alpha 0.1  # a DP-Sniper benchmark mechanism

Exit status 0 when the claim is not rejected, 1 when a violation is certified,
2 on bad input.
"""
from __future__ import annotations

import importlib
import json

from ..validation import InputError, parse_float_list
from .simulate import parse_assignments


def register(sub):
    p = sub.add_parser("audit", help="certified black-box DP audit of a mechanism",
                       description="Audit a mechanism against an (eps, delta)-DP claim: certified eps lower "
                                   "bound, p-value, witness, eps(delta) curve and resolution floor.")
    p.add_argument("mechanism", metavar="NAME|module:function",
                   help="a catalog mechanism (see `dpbench list mechanisms`), sniper:NAME (DP-Sniper "
                        "benchmark), or module:function returning n outputs as function(x, n, seed)")
    p.add_argument("--eps", type=float, required=True, help="claimed epsilon")
    p.add_argument("--delta", type=float, default=0.0, help="claimed delta (default: %(default)s)")
    p.add_argument("--x", help="input x (number or comma-separated vector); default: search the "
                               "standard patterns over the mechanism's input range")
    p.add_argument("--x-prime", dest="x_prime", help="neighbouring input x'")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="mechanism parameter (repeatable); eps/delta default to the claim")
    p.add_argument("--n", type=int, default=1_000_000, help="certification samples per input (default: %(default)s)")
    p.add_argument("--n-select", type=int, dest="n_select", help="selection samples per input and pair")
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed (default: %(default)s)")
    p.add_argument("--features", default="auto", help="statistics to try: auto, or a comma list of "
                                                      "value, category, score, bitsK (default: auto)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=_run)


def load_mechanism(spec: str, params: dict, eps: float, delta: float):
    """(mechanism, audit keywords) for a catalog name, ``sniper:NAME`` or ``module:function``."""
    if spec.startswith("sniper:"):
        from verify.audit.sniper_benchmark import cases
        found = {c.name: c for c in cases()}
        name = spec.split(":", 1)[1]
        if name not in found:
            raise InputError(f"unknown DP-Sniper mechanism {name!r}; allowed values: {', '.join(found)}")
        if params:
            raise InputError("--param is not used with sniper: mechanisms")
        case = found[name]
        return case.mechanism(), {"domain": case.domain, "features": case.features}
    if ":" in spec:
        module_name, attr = spec.split(":", 1)
        try:
            module = importlib.import_module(module_name)
        except ImportError as err:
            raise InputError(f"cannot import module {module_name!r}: {err}") from None
        mech = getattr(module, attr, None)
        if mech is None or not callable(mech):
            raise InputError(f"{spec!r}: module {module_name!r} has no callable {attr!r}")
        if params:
            raise InputError("--param is only for catalog mechanisms")
        return mech, {}
    from .. import MECHANISMS, sampler
    mspec = MECHANISMS.get_spec(spec)
    names = {p.name for p in mspec.params}
    if "eps" in names and "eps" not in params:
        params["eps"] = eps
    if "delta" in names and "delta" not in params:
        params["delta"] = delta
    return sampler(spec, **params), {}


def _vector(name, text):
    if text is None:
        return None
    values = parse_float_list(name, text)
    if not values:
        raise InputError(f"{name} needs at least one number")
    return values[0] if len(values) == 1 else values


def _run(args) -> int:
    from verify.audit import audit
    mech, extra = load_mechanism(args.mechanism, parse_assignments(args.param), args.eps, args.delta)
    features = tuple(f.strip() for f in args.features.split(",") if f.strip())
    if features != ("auto",):
        extra["features"] = features
    result = audit(mech, _vector("--x", args.x), _vector("--x-prime", args.x_prime), eps=args.eps,
                   delta=args.delta, alpha=args.alpha, n=args.n, n_select=args.n_select, seed=args.seed,
                   progress=not (args.no_progress or args.json), **extra)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(result)
        pts = list(zip(result.curve_delta, result.curve_eps))
        show = pts[:: max(1, len(pts) // 8)]
        print("  eps(delta) curve (simultaneous, confidence "
              f"{1 - result.alpha:g}): " + ", ".join(f"{d:.2g}: {e:.3g}" for d, e in show))
        for w in result.warnings:
            print(f"  warning: {w}")
    return 1 if result.violated else 0
