"""The experiments and runs a claim names (``experiment``, ``runs``, ``{experiment, run}`` tables,
``args.pairs``, sweeps): what a report checks before it runs and what links a claim to its figure."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RunRef:
    """A claim's reference to an experiment (``run`` None) or to one of its runs, and the key of
    the claim it sits under (``runs``, ``args.pairs``, ...)."""
    key: str
    experiment: str
    run: str | None = None


_RUN_KEYS = ("runs", "run", "baseline", "best", "worst")
_ARG_RUN_KEYS = ("runs", "run", "baseline", "pairs", "best", "worst", "reference", "level", "saturation")


def run_references(claim) -> Iterator[RunRef]:
    """Every experiment and run label a claim names: ``experiment`` with ``runs``/``run``/
    ``baseline``/``best``/``worst`` labels, ``{experiment, run}`` tables anywhere, ``args.experiment``
    with ``args.runs``/``run``/``baseline``/``pairs``/``reference``/``level``/``saturation`` labels,
    ``{experiment, panel, ...}`` sweeps and ``args.experiments``; a table inside ``args`` that names no
    experiment is in ``args.experiment``."""
    params = claim.params
    top = params.get("experiment")
    if isinstance(top, str):
        yield RunRef("experiment", top)
    for key in _RUN_KEYS:
        if key in params:
            yield from _labels(params[key], top, key)
    sweep = params.get("sweep")
    if isinstance(sweep, Mapping) and isinstance(top, str) and sweep.get("panel"):
        yield RunRef("sweep.panel", top, f"panel:{sweep['panel']}")
    args = params.get("args")
    if isinstance(args, Mapping):
        inner = args.get("experiment")
        if isinstance(inner, str):
            yield RunRef("args.experiment", inner)
        for name in args.get("experiments", []) if isinstance(args.get("experiments"), list) else []:
            yield RunRef("args.experiments", str(name))
        for key, value in args.items():
            if key in _ARG_RUN_KEYS:
                yield from _labels(value, inner, f"args.{key}")
            else:
                yield from _tables(value, f"args.{key}", inner)


def _labels(value, experiment, key) -> Iterator[RunRef]:
    if isinstance(value, str):
        if isinstance(experiment, str):
            yield RunRef(key, experiment, value)
    elif isinstance(value, Mapping):
        yield from _tables(value, key, experiment)
    elif isinstance(value, list):
        for item in value:
            yield from _labels(item, experiment, key)


def _tables(value, key, default=None) -> Iterator[RunRef]:
    """``{experiment, run}`` and ``{experiment, panel}`` tables inside ``value`` (``experiment``
    omitted: ``default``)."""
    if isinstance(value, Mapping):
        exp = value.get("experiment", default)
        if isinstance(exp, str) and isinstance(value.get("run"), str):
            yield RunRef(key, exp, value["run"])
        elif isinstance(exp, str) and isinstance(value.get("panel"), str):
            yield RunRef(key, exp, f"panel:{value['panel']}")
        elif isinstance(exp, str):
            yield RunRef(key, exp)
    elif isinstance(value, list):
        for item in value:
            yield from _tables(item, key, default)
