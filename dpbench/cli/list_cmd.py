"""``dpbench list``: every policy, environment, mechanism and experiment."""
from __future__ import annotations

import json

SECTIONS = ("all", "policies", "environments", "mechanisms", "experiments")


def _section(text: str) -> str:
    """argparse ``type`` of the listed section (a misspelt one gets the closest names)."""
    import argparse

    from ..validation import unknown_name
    if text not in SECTIONS:
        raise argparse.ArgumentTypeError(str(unknown_name("section", text, SECTIONS)))
    return text


#: where ``dpbench --help`` lists the command
ORDER = 40


def register(sub):
    p = sub.add_parser("list", help="list policies, environments, mechanisms and experiments")
    p.add_argument("what", nargs="?", default="all", type=_section,
                   help=f"one of {', '.join(SECTIONS)} (default: all)")
    p.add_argument("--json", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="also list each parameter")
    p.set_defaults(func=_run)


def catalog() -> dict:
    from ..engine.catalog import ALGORITHMS, ENVIRONMENTS, MECHANISMS
    from ..experiments import experiment_names, load_experiment

    def params(spec):
        return [p.describe() for p in spec.params]
    return {
        "policies": [{"name": s.name, "label": s.label, "summary": s.summary, "source": s.source,
                      "privacy": s.privacy, "params": params(s) + _mechanism_param(s), "reports": s.reports}
                     for s in ALGORITHMS.values()],
        "environments": [{"name": s.name, "summary": s.summary, "params": params(s)}
                         for s in ENVIRONMENTS.values()],
        "mechanisms": [{"name": s.name, "summary": s.summary, "source": s.source, "params": params(s)}
                       for s in MECHANISMS.values()],
        "experiments": [{"name": n, "summary": load_experiment(n).title} for n in experiment_names()],
    }


def _mechanism_param(spec) -> list[str]:
    if spec.reports is None:
        return []
    return [f"mechanism (a local mechanism with {spec.reports} reports; default: its own): replaces "
            "the privatiser (see `dpbench list mechanisms`)"]


def _run(args) -> int:
    data = catalog()
    if args.what != "all":
        data = {args.what: data[args.what]}
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    for section, items in data.items():
        print(f"{section}:")
        width = max((len(i["name"]) for i in items), default=0)
        for item in items:
            extra = f"  [{item['source']}]" if item.get("source") else ""
            print(f"  {item['name']:<{width}}  {item['summary']}{extra}")
            if args.verbose:
                for p in item.get("params", []):
                    print(f"  {'':<{width}}    - {p}")
        print()
    return 0
