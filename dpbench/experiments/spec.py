"""What an experiment is: its runs (:class:`RunSpec`) and sizes (:class:`Experiment`).

An experiment comes from a TOML file in ``specs/`` (:func:`dpbench.experiments.runner.load_experiment`)
or from a command-line grid (:func:`grid_experiment`, ``dpbench sweep --policy ...``); the runner
(:mod:`dpbench.experiments.runner`) computes its cells through :mod:`dpbench.sweeps`.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.catalog import ALGORITHMS, ENVIRONMENTS
from ..engine.composition import mechanism_param_names
from ..validation import InputError, check_count, check_int, unknown_name


@dataclass
class RunSpec:
    """One run of an experiment: a policy with its parameters on one environment."""

    label: str
    policy: str
    params: dict
    environment: dict
    panel: str = ""
    sweep_group: str = ""      # label template of the [[runs]] entry a swept run came from


@dataclass
class Experiment:
    """A paper figure (or a command-line grid): its runs, default sizes and how to show them."""

    name: str
    title: str
    source: str
    horizon: int
    reps: int
    seed: int
    runs: list[RunSpec]
    baseline: str | None = None
    paper_horizon: int | None = None
    paper_reps: int | None = None                  # the repetitions behind the paper's own figure
    ratio_horizons: list[int] = field(default_factory=list)
    notes: str = ""
    yscale: str = "linear"
    sweep_plot: str | None = None     # a swept parameter: also plot final regret against it
    table_info: list[str] = field(default_factory=list)
    path: Path | None = None
    raw: dict = field(default_factory=dict)


# ------------------------------------------------------------ command-line grids
_NAME = re.compile(r"^[A-Za-z0-9_.=-]+$")


def _policy_param_names(policy: str, mechanisms=()) -> set:
    """The parameters ``policy`` takes; with ``mechanisms`` (names) also ``mechanism`` and
    theirs, if the policy takes a mechanism (:mod:`dpbench.engine.composition`)."""
    spec = ALGORITHMS.get_spec(policy)
    names = {p.name for p in spec.params}
    if spec.reports is not None and mechanisms:
        names |= {"mechanism"}.union(*(mechanism_param_names(m) for m in mechanisms))
    return names


def check_runs(runs, baseline, where: str) -> None:
    """Run labels are unique within a panel, and a baseline names one of them (a baseline that
    matches nothing would drop the ratio column without a word)."""
    seen: set = set()
    for r in runs:
        if (r.panel, r.label) in seen:
            raise InputError(f"{where}: two runs share the label {r.label!r}"
                             + (f" in panel {r.panel!r}" if r.panel else "") + "; give each its own label")
        seen.add((r.panel, r.label))
    if baseline is not None and baseline not in {r.label for r in runs}:
        raise unknown_name("baseline", baseline, {r.label for r in runs}, where=where, kind="run labels")


def grid_experiment(name: str, policies, *, environment="bernoulli", instances=None, grid=None,
                    fixed=None, horizon=None, reps=None, seed=0, baseline=None, cell_reps=None):
    """An :class:`Experiment` for the grid
    policies x instances x grid values, as built by ``dpbench sweep --policy ...``.

    ``instances`` is a list of environment-parameter dicts (one instance each);
    ``grid`` maps a parameter name to the values to sweep and ``fixed`` a
    parameter name to one value.  A policy parameter applies to every policy
    that has it (``--grid eps=0.5,1`` runs UCB1 once; ``mechanism`` and the mechanisms'
    parameters apply to the policies that take a mechanism); an environment parameter
    multiplies the instances (a name both have goes to the environment, as in
    :func:`~dpbench.engine.simulate.prepare`).  A name that no policy and not the environment
    has is an error.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise InputError(f"sweep name must be letters, digits, '_', '.', '=' or '-' (got {name!r})")
    policies = list(policies or [])
    if not policies:
        raise InputError("a sweep needs at least one --policy")
    for p in policies:
        ALGORITHMS.get_spec(p)
    if len(set(policies)) != len(policies):
        raise InputError(f"policies listed twice: {policies}")
    env_spec = ENVIRONMENTS.get_spec(environment)
    env_names = {p.name for p in env_spec.params}
    grid = dict(grid or {})
    fixed = dict(fixed or {})
    for key, values in grid.items():
        if not isinstance(values, (list, tuple)) or not values:
            raise InputError(f"grid {key!r} needs a non-empty list of values (got {values!r})")
    mechanisms = grid.get("mechanism", [fixed["mechanism"]] if "mechanism" in fixed else [])
    for key in list(grid) + list(fixed):
        if key in grid and key in fixed:
            raise InputError(f"parameter {key!r} is both fixed (--set) and swept (--grid)")
        if key not in env_names and not any(key in _policy_param_names(p, mechanisms) for p in policies):
            allowed = env_names.union(*(_policy_param_names(p, mechanisms) for p in policies))
            raise unknown_name("parameter", key, allowed, kind="parameters",
                               where=f"the listed policies ({', '.join(policies)}) or environment {environment!r}")
    instances = [dict(i) for i in (instances or [{}])]
    env_grid = {k: v for k, v in grid.items() if k in env_names}
    env_fixed = {k: v for k, v in fixed.items() if k in env_names}
    points = [dict(zip(env_grid, vals)) for vals in itertools.product(*env_grid.values())]
    envs = [{**inst, **env_fixed, **pt} for inst in instances for pt in points]
    show_panel = len(envs) > 1
    runs = []
    for env in envs:
        panel = ", ".join(f"{k}={_show(v)}" for k, v in env.items()) if show_panel else ""
        for policy in policies:
            spec = ALGORITHMS.get_spec(policy)
            own = _policy_param_names(policy, mechanisms) - env_names   # prepare() routes env names to the env
            pgrid = {k: v for k, v in grid.items() if k in own}
            pfixed = {k: v for k, v in fixed.items() if k in own}
            for vals in itertools.product(*pgrid.values()):
                point = dict(zip(pgrid, vals))
                if "mechanism" in {**pfixed, **point}:      # only the parameters of this run's mechanism
                    takes = _policy_param_names(policy, [{**pfixed, **point}["mechanism"]])
                    point = {k: v for k, v in point.items() if k in takes}
                    pfixed_run = {k: v for k, v in pfixed.items() if k in takes}
                else:
                    pfixed_run = pfixed
                label = spec.label + (" (" + ", ".join(f"{k}={_show(v)}" for k, v in point.items()) + ")"
                                      if point else "")
                runs.append(RunSpec(label, policy, {**pfixed_run, **point},
                                    {"name": environment, **env}, panel))
    raw = {"name": name, "sweep": {"policies": policies, "environment": environment,
                                   "instances": instances, "grid": grid, "fixed": fixed},
           "horizon": horizon, "reps": reps, "seed": seed}
    if cell_reps is not None:
        raw["cell_reps"] = cell_reps
    check_runs(runs, baseline, f"sweep {name!r}")
    return Experiment(
        name=name, title=f"Sweep {name}: {', '.join(policies)} on {environment}",
        source="dpbench sweep (command-line grid)",
        horizon=check_count("horizon", horizon, low=2), reps=check_count("reps", reps),
        seed=check_int("seed", seed, low=0), runs=runs, baseline=baseline, raw=raw)


def _show(value) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(_show(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)
