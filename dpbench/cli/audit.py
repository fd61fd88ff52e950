"""``dpbench audit``: a certified black-box privacy audit of one mechanism.

    dpbench audit ctb --eps 1                              # catalog mechanism at its claim
    dpbench audit ctl --eps 1 --param eps=0.5              # negative control: half the noise level
    dpbench audit mymech:laplace --eps 0.1 --x 0 --x-prime 1 --json
    dpbench audit mymech:noisy_count --eps 1 --x '[0]' --x-prime '[0, 1]' --param scale=1
    dpbench audit sniper:NoisyHist2 --eps 0.1 --alpha 0.1  # a DP-Sniper benchmark mechanism
    dpbench audit mylib:laplace --x 0 --x-prime 1          # a DP library's object: its own claim

``module:function`` (or ``path/to/file.py:function``) is imported from the working
directory; the function is called as ``function(x, n, seed, **params)`` with the
``--param`` values (JSON literals, comma-separated numbers, or text); its own ``eps``,
``epsilon`` and ``delta`` keywords, when it has them, default to the claim (as a catalog
mechanism's do), and the headline names the values it ran with.  ``module:object`` may
also name a mechanism object of a DP library (an OpenDP Measurement, a diffprivlib mechanism,
...: :mod:`verify.audit.libraries`); ``--eps`` may then be left out: the object's own claim is
audited and printed with its source.  ``--x`` and
``--x-prime`` are JSON literals (``0``, ``[0, 1]``, ``{"a": 1}``, ``"text"``) or
comma-separated numbers, so datasets of different sizes (add/remove one record) are
written as lists.

Every audit judges two layers from the same samples: the *law* (the mechanism as if its
arithmetic were exact) and the *floating point* (artefacts of floating-point outputs).  Exit
status: 0 neither layer is violated, 1 the law is violated, 3 only the floating point leaks (the
law holds), 4 not tested (no power: not a pass), 2 bad input, the mechanism crashed or it breaks
the sampling contract (one line, no traceback).  ``--json`` prints
the result with a ``"law"`` and a ``"floating_point"`` object (``violated``, ``eps_lower_bound``,
``p_value``, ``witness``, ...); a refusal (status 2) as ``{"status": "error", "error": ...,
"exit_status": 2}`` on stdout, besides its line on stderr.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import re
import sys
from pathlib import Path

from ..validation import InputError, number_arg, unknown_name
from .simulate import parse_assignments

#: exit status of each outcome (bad input and crashes exit 2 through the CLI's error handler)
EXIT_HOLDS, EXIT_LAW, EXIT_FLOATING_POINT, EXIT_NOT_TESTED = 0, 1, 3, 4


#: where ``dpbench --help`` lists the command
ORDER = 60


def register(sub):
    p = sub.add_parser("audit", help="certified black-box DP audit of a mechanism",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Audit a mechanism against an (eps, delta)-DP claim, in two layers from the same "
                                   "samples: the law (the mechanism as if its arithmetic were exact) and the\n"
                                   "floating point (artefacts of floating-point outputs).  Per layer: verdict, "
                                   "certified eps lower bound, p-value, witness and fix; eps(delta) curve,\n"
                                   "trade-off (f-DP) points and Gaussian-DP mu, resolution floor.",
                       epilog=EXIT_TEXT)
    p.add_argument("mechanism", metavar="NAME|module:function",
                   help="a catalog mechanism (see `dpbench list mechanisms`), sniper:NAME (DP-Sniper "
                        "benchmark), or module:function (or file.py:function) from the working directory, "
                        "called as function(x, n, seed, **params) and returning n outputs, or module:object, "
                        "a DP library's mechanism object (OpenDP, diffprivlib, python-dp, PipelineDP, Tumult)")
    p.add_argument("--eps", type=number_arg(low=0.0),
                   help="claimed epsilon (required, except for a DP library's object: default its own claim)")
    p.add_argument("--delta", type=number_arg(low=0.0, high=1.0, high_open=True),
                   help="claimed delta (default 0, or a library object's own; for a zCDP object the delta its "
                        "claim is read at)")
    p.add_argument("--x", help="input x: a JSON literal (0, [0, 1], {\"a\": 1}, \"text\") or comma-separated "
                               "numbers; default: search the standard patterns over the mechanism's input range")
    p.add_argument("--x-prime", dest="x_prime", help="neighbouring input x' (same syntax; e.g. --x '[0]' "
                                                     "--x-prime '[0, 1]' for add/remove one record)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="mechanism parameter (repeatable; JSON literal, comma-separated numbers or text); "
                        "eps/epsilon/delta default to the claim (catalog mechanisms, and functions whose "
                        "signature has them)")
    p.add_argument("--n", type=number_arg(integer=True, low=1), default=None,
                   help="certification samples per input of an audit at once, e.g. 1000000 or 1e6 (default: "
                        "1000000; not with --budget, whose rounds size themselves)")
    p.add_argument("--n-select", type=number_arg(integer=True, low=20), dest="n_select",
                   help="selection samples per input and pair")
    p.add_argument("--alpha", type=number_arg(low=0.0, high=1.0, low_open=True, high_open=True), default=0.05,
                   help="1 - confidence (default: %(default)s)")
    p.add_argument("--seed", type=number_arg(integer=True, low=0), default=0, help="seed (default: %(default)s)")
    p.add_argument("--features", default="auto", help="statistics to try, comma-separated (default: auto, "
                                                      "both layers; law: the law only); each choice is "
                                                      "explained below")
    p.add_argument("--budget", metavar="TIME|SAMPLES",
                   help="audit sequentially: rounds that choose their events on the rounds before them and bet on "
                        "fresh outputs, stopping as soon as a violation is certified or when this budget is spent "
                        "(e.g. 30s, 10min or 1h, or 2e6 samples drawn in all); anytime-valid at alpha; any budget is "
                        "valid")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--yes", action="store_true",
                   help="run even when the audit would take more than a day at the rate selection measures")
    p.set_defaults(func=_run)
    _explain_features(p)


EXIT_TEXT = ("exit status:\n  0  neither layer is violated\n  1  the law is violated\n"
             "  3  only the floating point leaks (the law holds; with a budget: not rejected when the\n"
             "     floating point's violation stopped the audit)\n"
             "  4  not tested: the audit had no power (e.g. outputs that never repeat); not a pass\n"
             "  2  bad input, the mechanism crashed or returned non-finite outputs, or it breaks the\n"
             "     sampling contract (it ignores its seed, or a call's outputs are not independent draws)")


def _explain_features(parser) -> None:
    """Append one line per ``--features`` choice to the help, read from the statistic plug-ins
    when the help is shown (importing them at every start of the CLI would slow it down)."""
    base = parser.format_help

    def format_help():
        from verify.audit.features import choices
        parser.epilog = (EXIT_TEXT + "\n\n--features choices (comma-separated):\n"
                         + "\n".join(f"  {name:<16}{text}" for name, text in choices()))
        return base()
    parser.format_help = format_help


# ------------------------------------------------------------------ values
def _numbers(text: str):
    """Comma-separated numbers as a list (one number as a float), or None."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        return None
    if not values:
        return None
    return values[0] if len(values) == 1 and "," not in text else values


def parse_value(text: str):
    """A ``--param`` value: a JSON literal (``0.5``, ``[1, 2]``, ``true``, ``"a,b"``), else
    comma-separated numbers (a list), else ``True``/``False``, else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    numbers = _numbers(text)
    if numbers is not None:
        return numbers
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def parse_input(flag: str, text: str | None):
    """An ``--x`` / ``--x-prime`` value: a JSON literal or comma-separated numbers."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    numbers = _numbers(text)
    if numbers is None:
        raise InputError(f"{flag} must be a JSON literal (0, [0, 1], {{\"a\": 1}}, \"text\") or comma-separated "
                         f"numbers (got {text!r})")
    return numbers


# ------------------------------------------------------------------ mechanisms
def import_object(spec: str):
    """``module:name`` (or ``file.py:name``, attribute paths allowed) imported with the working
    directory on ``sys.path``."""
    module_name, attr = spec.rsplit(":", 1)
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        if module_name.endswith(".py"):
            path = Path(module_name).resolve()
            if not path.is_file():
                raise InputError(f"{spec!r}: no file {module_name!r}")
            loader = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except InputError:
        raise
    except Exception as err:        # noqa: BLE001 - any failure of user code at import: one line
        raise InputError(f"cannot import module {module_name!r}: {type(err).__name__}: {err}") from None
    obj = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
    if obj is None:
        raise InputError(f"{spec!r}: module {module_name!r} has no callable {attr!r} (nor a DP library's object)")
    return obj


def must_be_callable(obj, spec: str):
    """``obj`` (imported from ``module:function``), which must be callable."""
    if not callable(obj):
        raise InputError(f"{spec!r}: {spec.rsplit(':', 1)[1]!r} is not callable (nor a DP library's mechanism object)")
    return obj


def with_params(func, spec: str, params: dict):
    """``func`` with ``params`` bound as keywords (functools.partial), checked against its
    signature; keeps the attributes the audit reads (``input_range``, ``output_dim``)."""
    if not params:
        return func
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        try:
            signature.bind(None, None, None, **params)
        except TypeError as err:
            kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
            own = [name for name, p in list(signature.parameters.items())[3:] if p.kind in kinds]
            takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
            unknown = [k for k in params if k not in own]
            if unknown and not takes_any:
                raise unknown_name("--param", unknown[0], own, where=f"{spec}{signature}", kind="parameters (after "
                                   "x, n, seed)") from None
            given = ", ".join(sorted(params))
            raise InputError(f"--param {given} {'does' if len(params) == 1 else 'do'} not fit {spec}{signature}: "
                             f"{err}") from None
    from verify.audit.source import bound_to
    bound = bound_to(func, params)
    # named as without parameters (the function's name), with them
    bound.name = f"{getattr(func, '__name__', spec)}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
    return bound


def claim_parameters(func, eps: float, delta: float) -> dict:
    """The claim as the function's own privacy parameters, as catalog mechanisms get it: ``eps`` (or
    ``epsilon``) and ``delta`` keywords of its signature (those with a default; --param wins)."""
    from verify.audit.source import claim_values, run_parameters
    _, defaults = run_parameters(func)
    values = claim_values(eps, delta)
    return {k: values[k] for k in defaults if k in values}


def load_mechanism(spec: str, params: dict, eps: float, delta: float):
    """(mechanism, audit keywords) for a catalog name, ``sniper:NAME`` or ``module:function``."""
    if spec.startswith("sniper:"):
        from verify.audit.suites.sniper import cases
        found = {c.name: c for c in cases()}
        name = spec.split(":", 1)[1]
        if name not in found:
            raise unknown_name("DP-Sniper mechanism", name, found)
        if params:
            raise InputError("--param is not used with sniper: mechanisms")
        case = found[name]
        return case.mechanism(), {"domain": case.domain}
    func = None
    if ":" in spec:
        from verify.audit import libraries
        from verify.audit.source import check_not_a_class
        obj = import_object(spec)
        check_not_a_class(obj, spec)
        libraries.check_not_a_function(obj, spec)
        lib = libraries.as_library(obj)                     # a DP library's object: its sampler and claim
        if lib is not None:
            if params:
                raise InputError(f"--param is not used with {lib.name}: set its parameters where the object is built")
            return lib, {}
        func = must_be_callable(obj, spec)                  # not callable: said before asking for the claim
    if eps is None:
        raise InputError(f"--eps: the claim to audit is required for {spec} (e.g. --eps 1)")
    if func is not None:
        claim = claim_parameters(func, eps, 0.0 if delta is None else delta)
        return with_params(func, spec, {**claim, **params}), {}
    from .. import MECHANISMS, sampler
    mspec = MECHANISMS.get_spec(spec)
    names = {p.name for p in mspec.params}
    if "eps" in names and "eps" not in params:
        params["eps"] = eps
    if "delta" in names and "delta" not in params:
        params["delta"] = 0.0 if delta is None else delta
    try:
        return sampler(spec, **params), {}
    except InputError as err:       # a parameter of the mechanism, not the claim: say which
        given = [f"{k}={v!r}" for k, v in params.items() if k in names]
        what = "" if str(err).startswith("unknown parameter") else "parameter "
        raise InputError(f"mechanism {spec}: {what}{err} (parameters given: {', '.join(given) or 'none'}; set with "
                         f"--param KEY=VALUE, eps and delta default to the claim)") from None


def _run(args) -> int:
    from verify.audit import audit
    from verify.audit.stages.validate import parse_budget
    budget = parse_budget(args.budget)            # checked before the mechanism is loaded or compiled
    params = parse_assignments(args.param, flag="--param", coerce=parse_value)
    x, x_prime = parse_input("--x", args.x), parse_input("--x-prime", args.x_prime)
    mech, extra = load_mechanism(args.mechanism, params, args.eps, args.delta)
    if (x is None and x_prime is None and "domain" not in extra and getattr(mech, "input_range", None) is None
            and getattr(mech, "default_pair", None) is None):
        raise InputError(f"{args.mechanism} has no input range: give a neighbouring pair with --x and --x-prime "
                         f"(in Python, verify.audit(..., domain=verify.audit.Domain(...)) also searches patterns)")
    features = tuple(f.strip() for f in args.features.split(",") if f.strip())
    if features != ("auto",):
        check_features(features)
        extra["features"] = features
    try:
        result = audit(mech, x, x_prime, eps=args.eps, delta=args.delta, alpha=args.alpha, n=args.n,
                       n_select=args.n_select, seed=args.seed, progress=not (args.no_progress or args.json),
                       budget=budget, allow_long=args.yes, **extra)
    except InputError as err:       # messages quoting user code may span lines: the CLI prints one
        raise InputError(" ".join(str(err).split())) from None
    try:
        if args.json:
            print(json.dumps(result.to_dict(), indent=1))
        else:
            print(result)
            pts = list(zip(result.curve_delta, result.curve_eps))
            show = pts[:: max(1, len(pts) // 8)]
            if show:                                      # none when the law was not tested
                where = ("the last round's counts alone, often below the bets' bound above, " if
                         result.sequential is not None else "")
                print(f"  eps(delta) curve ({where}simultaneous, confidence "
                      f"{1 - result.alpha:g}): " + ", ".join(f"{d:.2g}: {e:.3g}" for d, e in show))
    except BrokenPipeError:         # the reader (head, grep -q, ...) closed the pipe: the verdict's status stands
        sys.stderr = open(os.devnull, "w")
        sys.stdout = open(os.devnull, "w")
    return exit_status(result)


def check_features(tokens) -> None:
    """Refuse a ``--features`` token that names no statistic or layer, with the closest one
    (before the mechanism is sampled)."""
    from verify.audit.features import choices
    names = [name for name, _ in choices()]
    for token in tokens:
        if token not in names and not re.fullmatch(r"bits\d+", token):
            raise unknown_name("--features token", token, names, hint="(bitsK: K in 1..52)")


def exit_status(result) -> int:
    """0: neither layer violated; 1: the law is violated; 3: only the floating point leaks; 4: not
    tested (no power)."""
    if result.law.violated:
        return EXIT_LAW
    if result.floating_point.violated:
        return EXIT_FLOATING_POINT
    return EXIT_NOT_TESTED if result.status == "not tested" else EXIT_HOLDS
