"""Experiments are data: TOML files in ``specs/`` describe a paper's figure panel.

A file names a default size (``horizon``, ``reps``, ``seed``), an environment,
and a list of runs (a policy and its parameters, optionally a ``panel``, a
per-run ``environment`` and a ``sweep`` over parameter values).  The runner
validates *every* run before it starts the first, saves each finished run at
once (``runs/<slug>.npz`` + ``.json``), reuses saved runs of the same
configuration, keeps the finished repetitions of an interrupted run and
resumes from them, then writes the figure, the table and ``experiment.json``.
"""
from __future__ import annotations

import copy
import itertools
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engine.result import SimulationResult, _jsonable, with_ext
from ..engine.simulate import Interrupted, Plan, check_threads, prepare, run_plan
from ..validation import InputError, check_int

SPEC_DIR = Path(__file__).with_name("specs")
_RESERVED = {"label", "policy", "panel", "environment", "sweep"}


@dataclass
class RunSpec:
    label: str
    policy: str
    params: dict
    environment: dict
    panel: str = ""

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{self.panel}__{self.label}" if self.panel else self.label)


@dataclass
class Experiment:
    name: str
    title: str
    source: str
    horizon: int
    reps: int
    seed: int
    runs: list[RunSpec]
    baseline: str | None = None
    paper_horizon: int | None = None
    ratio_horizons: list[int] = field(default_factory=list)
    notes: str = ""
    yscale: str = "linear"
    table_info: list[str] = field(default_factory=list)
    path: Path | None = None
    raw: dict = field(default_factory=dict)


def experiment_names() -> list[str]:
    return sorted(p.stem for p in SPEC_DIR.glob("*.toml"))


def load_experiment(name_or_path) -> Experiment:
    """Load a shipped experiment by name, or a TOML file by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml" or not path.exists():
        path = SPEC_DIR / f"{name_or_path}.toml"
    if not path.exists():
        raise InputError(f"unknown experiment {str(name_or_path)!r}; allowed values: "
                         f"{', '.join(experiment_names())} (or a path to a .toml file)")
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"experiment file {path}: {err}") from None
    for key in ("horizon", "reps", "seed", "runs", "environment"):
        if key not in raw:
            raise InputError(f"experiment file {path} lacks {key!r}")
    runs = []
    for i, entry in enumerate(raw["runs"]):
        runs.extend(_expand_run(entry, raw["environment"], f"{path.name} run {i + 1}"))
    labels = [(r.panel, r.label) for r in runs]
    if len(set(labels)) != len(labels):
        raise InputError(f"experiment file {path}: two runs share a (panel, label)")
    return Experiment(
        name=raw.get("name", path.stem), title=raw.get("title", path.stem), source=raw.get("source", ""),
        horizon=check_int("horizon", raw["horizon"], low=2), reps=check_int("reps", raw["reps"], low=1),
        seed=check_int("seed", raw["seed"], low=0), runs=runs, baseline=raw.get("baseline"),
        paper_horizon=raw.get("paper_horizon"),
        ratio_horizons=[int(float(t)) for t in raw.get("ratio_horizons", [])],
        notes=raw.get("notes", ""), yscale=raw.get("yscale", "linear"),
        table_info=list(raw.get("table_info", [])), path=path, raw=raw)


def _expand_run(entry: dict, default_env: dict, where: str) -> list[RunSpec]:
    if "policy" not in entry or "label" not in entry:
        raise InputError(f"{where}: every run needs 'label' and 'policy'")
    env = copy.deepcopy(entry.get("environment", default_env))
    params = {k: v for k, v in entry.items() if k not in _RESERVED}
    sweep = entry.get("sweep", {})
    if not sweep:
        return [RunSpec(entry["label"], entry["policy"], params, env, entry.get("panel", ""))]
    keys = list(sweep)
    out = []
    for values in itertools.product(*(sweep[k] for k in keys)):
        point = dict(zip(keys, values))
        label = entry["label"].format(**point) if "{" in entry["label"] else \
            entry["label"] + " (" + ", ".join(f"{k}={v}" for k, v in point.items()) + ")"
        out.append(RunSpec(label, entry["policy"], {**params, **point}, env,
                           entry.get("panel", "").format(**point)))
    return out


def plan_runs(exp: Experiment, horizon: int, seed: int) -> list[tuple[RunSpec, Plan]]:
    """Validate and build every run (raises InputError before anything runs)."""
    plans = []
    for run in exp.runs:
        env = dict(run.environment)
        env_name = env.pop("name", None)
        if env_name is None:
            raise InputError(f"{exp.name}: run {run.label!r} has an environment without 'name'")
        try:
            plan = prepare(run.policy, env_name, horizon, seed, env_params=env, **run.params)
        except InputError as err:
            raise InputError(f"{exp.name}, run {run.label!r}: {err}") from None
        plans.append((run, plan))
    return plans


@dataclass
class ExperimentRun:
    experiment: Experiment
    config: dict
    out_dir: Path
    results: dict[str, SimulationResult]
    runs: list[RunSpec]
    table: list[dict] = field(default_factory=list)
    figure: Path | None = None


def _load_matching(stem: Path, plan: Plan):
    """The result saved at ``stem`` if it has this plan's configuration, else None."""
    json_path = with_ext(stem, ".json")
    if not json_path.exists() or not with_ext(stem, ".npz").exists():
        return None
    try:
        meta = json.loads(json_path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    same = (meta.get("policy") == plan.spec.name and meta.get("params") == _jsonable(plan.params)
            and meta.get("env_params") == _jsonable(plan.instance.params)
            and meta.get("horizon") == plan.horizon and meta.get("seed") == plan.seed
            and meta.get("first_rep") == 0)
    if not same:
        return None
    result = SimulationResult.load(stem)
    return result if np.array_equal(result.checkpoints, plan.checkpoints) else None


def run_experiment(name, *, horizon=None, reps=None, seed=None, out="dpbench-results", threads=None,
                   progress=True, reuse=True, log=print) -> ExperimentRun:
    """Run (or reuse) every run of experiment ``name``; write results, figure and table."""
    exp = load_experiment(name)
    horizon = exp.horizon if horizon is None else check_int("horizon", horizon, low=2)
    reps = exp.reps if reps is None else check_int("reps", reps, low=1)
    seed = exp.seed if seed is None else check_int("seed", seed, low=0)
    check_threads(threads)
    plans = plan_runs(exp, horizon, seed)               # every run validated before any runs
    out_dir = Path(out) / exp.name
    (out_dir / "runs").mkdir(parents=True, exist_ok=True)
    config = {"experiment": exp.name, "title": exp.title, "source": exp.source, "horizon": horizon,
              "reps": reps, "seed": seed, "paper_horizon": exp.paper_horizon, "notes": exp.notes,
              "file": exp.raw}
    results: dict[str, SimulationResult] = {}
    for i, (run, plan) in enumerate(plans):
        key = f"{run.panel} / {run.label}" if run.panel else run.label
        stem = out_dir / "runs" / run.slug
        done = _load_matching(stem, plan) if reuse else None
        if done is not None and done.reps == reps:
            log(f"[{i + 1}/{len(plans)}] {key}: reusing saved result")
            results[key] = done
            continue
        partial_stem = out_dir / "runs" / (run.slug + ".partial")
        partial = _load_matching(partial_stem, plan) if reuse else None
        first = partial.reps if partial is not None and partial.reps < reps else 0
        if first:
            log(f"[{i + 1}/{len(plans)}] {key}: resuming after {first} saved repetitions")
        else:
            partial = None
            log(f"[{i + 1}/{len(plans)}] {key}")
        try:
            fresh = run_plan(plan, reps - first, first_rep=first, threads=threads, progress=progress,
                             desc=key)
        except Interrupted as stop:
            if stop.partial is not None:
                merged = stop.partial if partial is None else SimulationResult.concat([partial, stop.partial])
                merged.save(partial_stem)
                log(f"interrupted: kept {merged.reps} finished repetitions of {key!r} in {partial_stem}; "
                    "rerun the same command to resume")
            raise
        result = fresh if partial is None else SimulationResult.concat([partial, fresh])
        result.metadata["experiment"] = exp.name
        result.save(stem)
        for ext in (".json", ".npz"):
            with_ext(partial_stem, ext).unlink(missing_ok=True)
        results[key] = result
    from .outputs import ratio_table, write_outputs
    table = ratio_table(exp, results, [r for r, _ in plans], horizon)
    figure = write_outputs(exp, config, results, [r for r, _ in plans], table, out_dir)
    return ExperimentRun(exp, config, out_dir, results, [r for r, _ in plans], table, figure)
