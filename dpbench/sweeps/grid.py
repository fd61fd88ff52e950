"""Sweep cells: configurations, their ids, and the repetition ranges still to compute.

A sweep is a grid of *cells*.  A cell is one :class:`Config` (policy,
environment, parameters, horizon, master seed, checkpoints) times one range of
repetitions ``[first_rep, first_rep + reps)``.  Repetition r of a config is
seeded with ``rep_seeds(seed, r, 1)`` (:mod:`dpbench.randomness`), so a cell's
randomness depends only on (master seed, cell id) and never on where, when or
in which order the cells run: merging the cells of a config gives the same
arrays on one process, a LocalCluster or a remote cluster.  All configs of one
experiment share its master seed (common random numbers across policies, as
in the papers' comparisons).

A config's id is a hash of its canonical JSON description, so the same
configuration reached from two experiment runs (or two sweeps) is one set of
cells, and a worker that rebuilds a config from its description can check it
built the same thing.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np

from ..engine.catalog import ENVIRONMENTS, validate_params
from ..engine.result import to_json
from ..validation import InputError, check_int

#: cells hold this many repetitions unless the experiment or the command line says otherwise
DEFAULT_CELL_REPS = 10


def canonical_json(obj) -> str:
    """Key-sorted, whitespace-free JSON; floats keep their exact (shortest round-trip) repr."""
    return json.dumps(to_json(obj), sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class Config:
    """Everything that determines a configuration's results, except the repetition range."""
    policy: str
    environment: str
    params: dict
    env_params: dict
    horizon: int
    seed: int
    checkpoints: tuple

    @classmethod
    def from_plan(cls, plan, environment: str, env_params: dict) -> Config:
        """The config of a plan built from environment ``environment`` with the (unvalidated)
        parameters ``env_params``; they are recorded validated and defaulted, i.e. as the
        user gave them, not as the built instance expanded them."""
        spec = ENVIRONMENTS.get_spec(environment)
        env = validate_params(f"environment {environment!r}", spec.params, env_params)
        if plan.composition is not None and plan.composition.spec is None:
            raise InputError(f"a stored run needs a registered mechanism name, not the object "
                             f"{plan.composition.name!r} (dpbench.register_mechanism)")
        return cls(plan.spec.name, environment, to_json(plan.run_params), to_json(env),
                   int(plan.horizon), int(plan.seed), tuple(int(c) for c in plan.checkpoints))

    @classmethod
    def from_run(cls, run, plan) -> Config:
        """The config of experiment run ``run`` (a RunSpec) and its plan."""
        env = dict(run.environment)
        name = env.pop("name")
        names = {p.name for p in ENVIRONMENTS.get_spec(name).params}
        env.update({k: v for k, v in run.params.items() if k in names})    # as prepare() routes them
        return cls.from_plan(plan, name, env)

    def describe(self) -> dict:
        return {"policy": self.policy, "environment": self.environment, "params": self.params,
                "env_params": self.env_params, "horizon": self.horizon, "seed": self.seed,
                "checkpoints": list(self.checkpoints)}

    @classmethod
    def from_description(cls, desc: dict) -> Config:
        return cls(desc["policy"], desc["environment"], desc["params"], desc["env_params"],
                   int(desc["horizon"]), int(desc["seed"]), tuple(int(c) for c in desc["checkpoints"]))

    @property
    def config_id(self) -> str:
        return hashlib.sha256(canonical_json(self.describe()).encode()).hexdigest()[:20]

    def prepare(self):
        """Rebuild the runnable :class:`~dpbench.engine.simulate.Plan` (e.g. on a Dask worker)."""
        from ..engine.simulate import prepare
        return prepare(self.policy, self.environment, self.horizon, self.seed,
                       env_params=dict(self.env_params), checkpoints=np.asarray(self.checkpoints),
                       **self.params)


@dataclass(frozen=True)
class Cell:
    """Repetitions ``first_rep .. first_rep + reps - 1`` of config ``config_id``."""
    config_id: str
    first_rep: int
    reps: int

    @property
    def cell_id(self) -> str:
        return f"{self.config_id}:{self.first_rep}+{self.reps}"


def missing_ranges(have: np.ndarray, cell_reps: int) -> list[tuple[int, int]]:
    """(first, count) ranges of the repetitions not in ``have`` (a bool array over 0..R-1),
    split at multiples of ``cell_reps`` so fresh cells line up with the grid."""
    cell_reps = check_int("cell_reps", cell_reps, low=1)
    out = []
    reps = int(have.shape[0])
    r = 0
    while r < reps:
        if have[r]:
            r += 1
            continue
        end = min(reps, (r // cell_reps + 1) * cell_reps)
        stop = r
        while stop < end and not have[stop]:
            stop += 1
        out.append((r, stop - r))
        r = stop
    return out


# ------------------------------------------------------------ command-line values
def parse_value(text: str):
    """A command-line value: int, then float, else the string (lists stay strings: the
    catalog's vector checker parses ``0.9,0.8``)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
