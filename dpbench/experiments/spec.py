"""What an experiment is: its runs (:class:`RunSpec`) and sizes (:class:`Experiment`).

An experiment comes from a TOML file in ``specs/`` (:func:`dpbench.experiments.runner.load_experiment`)
or from a command-line grid (:func:`dpbench.sweeps.grid.grid_experiment`, ``dpbench sweep --policy
...``); the runner (:mod:`dpbench.experiments.runner`) computes its cells through
:mod:`dpbench.sweeps`.  This module imports neither, so the sweeps can build experiments without
importing the runner.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


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
    ratio_horizons: list[int] = field(default_factory=list)
    notes: str = ""
    yscale: str = "linear"
    sweep_plot: str | None = None     # a swept parameter: also plot final regret against it
    table_info: list[str] = field(default_factory=list)
    path: Path | None = None
    raw: dict = field(default_factory=dict)
