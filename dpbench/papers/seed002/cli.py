"""``dpbench feasibility``: exact Lemma 8 / Lemma 9 CDF checks of the seed 002 perturbations.

    dpbench feasibility gauss --eps 1 --delta 0.01 --n 8
    dpbench feasibility beta --eps 1 --delta 0.01 --n 20 --json
    dpbench feasibility lemma15 --eps 1 --delta 0.01 --n 10 --lemma 9
    dpbench feasibility gauss --eps 0 --delta 0.01 --v 1 --start-phase
    dpbench feasibility lemma15 --eps 1 --delta 0.01 --n 10 --shift 1.05 --samples 1000000
    dpbench feasibility --figures --out reports     # Figs. 1-3 of seed 002 and reports/feasibility.md

Exit status: 0 when the inequalities hold, 1 when they are violated, 2 on bad input.
"""
from __future__ import annotations

import json
import math

from dpbench.mechanisms.perturbations import FEASIBILITY_LAWS
from dpbench.validation import InputError, make_output_dir, number_arg

#: the perturbation laws the command checks, by the name the command line gives them
LAWS = {law.NAME: law for law in FEASIBILITY_LAWS}


def register(sub):
    p = sub.add_parser(
        "feasibility", help="check Lemma 8/9 (seed 002) for a perturbation family, exactly",
        description="Check the CDF conditions of Lemma 8 (DP, half-lines, slack delta) or Lemma 9 "
                    "(GDP, intervals and complements, slack delta/2) for the worst neighbouring "
                    "histories of a perturbation family, for every real x. Exit status 0: holds, "
                    "1: violated, 2: bad input.")
    p.add_argument("family", nargs="?", choices=list(LAWS),
                   help="gauss: N(R/N, v/N); beta: Beta(R+1+k, N-R+1+k); lemma15: truncated Laplace "
                        "(required unless --figures)")
    p.add_argument("--figures", action="store_true",
                   help="instead of one check, regenerate Figs. 1-3 of seed 002 and feasibility.md in "
                        "--out (a few minutes on 2 cores)")
    p.add_argument("--out", default="reports", metavar="DIR",
                   help="with --figures: output directory (default: %(default)s)")
    p.add_argument("--eps", type=number_arg(low=0.0), help="privacy level eps >= 0 (required for a check)")
    p.add_argument("--delta", type=number_arg(low=0.0, high=1.0, high_open=True),
                   help="privacy slack delta in [0, 1) (required for a check)")
    p.add_argument("--n", type=number_arg(integer=True, low=1),
                   help="pull count N of the arm (required unless --start-phase)")
    p.add_argument("--lemma", type=number_arg(integer=True, low=8, high=9), choices=[8, 9], default=8,
                   help="8 (DP) or 9 (GDP); default 8")
    p.add_argument("--v", type=number_arg(low=0.0, low_open=True), default=2.0,
                   help="gauss: variance factor v (default 2)")
    p.add_argument("--no-k", action="store_true", help="beta: drop Algorithm 2's k (negative control)")
    p.add_argument("--shift", type=number_arg(low=0.0), default=1.0,
                   help="gauss, lemma15: change of the centre in units of 1/N (default 1)")
    p.add_argument("--start-phase", action="store_true",
                   help="report the smallest N at which the lemma holds for every history")
    p.add_argument("--samples", type=number_arg(integer=True, low=1), metavar="DRAWS",
                   help="also run the sample-based (DKW band) check with DRAWS draws per law")
    p.add_argument("--seed", type=number_arg(integer=True, low=0), default=0, help="seed of the sample-based check")
    p.add_argument("--alpha", type=number_arg(low=0.0, high=1.0, low_open=True, high_open=True), default=1e-6,
                   help="confidence level of the bands (default 1e-6)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)


def _run(args) -> int:
    if args.figures:
        return _figures(args)
    if args.family is None:
        raise InputError("a perturbation family (gauss, beta or lemma15) is required unless --figures is given")
    for flag in ("eps", "delta"):
        if getattr(args, flag) is None:
            raise InputError(f"--{flag} is required for a check of {args.family}")
    from verify.cdf_bands import band_check_family
    from verify.cdf_feasibility import check, minimal_start_phase, validate

    law = LAWS[args.family]
    given = {"v": args.v, "shift": args.shift, "extra_k": not args.no_k}
    options = {k: v for k, v in given.items() if k in law.OPTIONS}
    if args.start_phase:
        validate(law, args.eps, args.delta, 1, args.lemma, **options)
        options.pop("shift", None)                      # the search is over N at the largest change
        res = minimal_start_phase(law, args.eps, args.delta, lemma=args.lemma, **options)
        if args.json:
            print(json.dumps(res.to_dict(), indent=1))
        else:
            paper = "none" if res.paper_start is None else f"{res.paper_start:.6g}"
            scope = "every N >= it" if math.isinf(res.n_checked) else f"N up to {int(res.n_checked)}"
            print(f"Lemma {res.lemma} for {res.family} {res.params} at eps={res.eps:g}, delta={res.delta:g}")
            print(f"  minimal start phase: {res.n_min if res.n_min else 'none found'} "
                  f"(checked: {scope}); paper's: {paper}")
            if res.paper_delta_required is not None:
                print(f"  delta needed at the paper's ceil(N*): {res.paper_delta_required:.6g} "
                      f"({'sufficient' if res.paper_sufficient else 'NOT sufficient'})")
            print(f"  {res.note}")
        return 0 if res.n_min else 1
    if args.n is None:
        raise InputError("--n is required (the arm's pull count N >= 1) unless --start-phase is given")
    res = check(law, args.eps, args.delta, args.n, lemma=args.lemma, **options)
    band = None
    if args.samples is not None:
        band = band_check_family(law, args.eps, args.delta, args.n, lemma=args.lemma,
                                 draws=args.samples, seed=args.seed, alpha=args.alpha, **options)
    if args.json:
        out = res.to_dict()
        if band is not None:
            out["sample_based"] = band.to_dict()
        print(json.dumps(out, indent=1))
    else:
        print(res.summary())
        if band is not None:
            print(band.summary())
    return 0 if res.holds else 1


def _figures(args) -> int:
    """Figs. 1-3 of seed 002 and the minimal-start-phase report, into ``args.out``."""
    if args.family is not None:
        raise InputError("--figures takes no perturbation family (it draws all three)")
    from .feasibility_figures import write_report
    for path in write_report(make_output_dir("--out", args.out)):
        print(path)
    return 0
