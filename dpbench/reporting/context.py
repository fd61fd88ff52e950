"""Where a report's numbers come from: the build context (sizes, folders) and the shared
result store every report runs its experiments in."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..validation import InputError

QUICK_HORIZON = 20_000


QUICK_REPS = 4


#: the result store every report shares, under the results folder: a configuration that two
#: reports (or two experiments) run is computed once, and an interrupted build resumes
SHARED_STORE = Path("reports") / "results.sqlite"


@dataclass
class ReportContext:
    seed: str                         # "000"
    quick: bool = False
    results_dir: Path = Path("dpbench-results")
    out_dir: Path = Path("reports")
    threads: int | None = None
    progress: bool = False
    force: bool = False                # discard stored results and recompute
    scheduler: object = None           # where cells run: None (here), or an open Dask Client
    scheduler_name: str | None = None  # as given on the command line ('local', an address)
    log: Callable[[str], None] = print
    missing: list[str] = field(default_factory=list)   # experiments not available (yet)
    started: float = field(default_factory=time.perf_counter)
    cpu_started: float = field(default_factory=time.process_time)
    runs: dict = field(default_factory=dict)            # experiment name -> ExperimentRun
    cells: dict = field(default_factory=lambda: {"computed": 0, "stored": 0})

    @property
    def folder(self) -> Path:
        """The paper's folder (``dpbench/papers/seed<NNN>/``): claims table, experiments, checks."""
        from ..plugins import paper_folder
        return paper_folder(f"seed{self.seed}")

    @property
    def store(self) -> Path:
        return Path(self.results_dir) / SHARED_STORE

    def sizes(self, exp, horizon=None, reps=None) -> tuple[int, int]:
        horizon = exp.horizon if horizon is None else horizon
        reps = exp.reps if reps is None else reps
        if self.quick:
            return min(horizon, QUICK_HORIZON), min(reps, QUICK_REPS)
        return horizon, reps

    def experiment(self, name, horizon: int | None = None, reps: int | None = None):
        """Run (or reuse) experiment ``name`` (a shipped name, a check in the paper's ``checks/``, or an
        :class:`~dpbench.experiments.runner.Experiment` built in code) in the shared result store;
        None if it does not exist yet."""
        from ..experiments.runner import Experiment, experiment_names, load_experiment, run_experiment
        if isinstance(name, Experiment):
            exp = name
        else:
            target = name if name in experiment_names() else self.folder / "checks" / f"{name}.toml"
            if not isinstance(target, str) and not target.exists():
                self.missing.append(name)
                self.log(f"report {self.seed}: experiment {name!r} does not exist yet; skipped")
                return None
            exp = load_experiment(target)
        horizon, reps = self.sizes(exp, horizon, reps)
        self.log(f"report {self.seed}: {exp.name} (T = {horizon:g}, {reps} repetitions)")
        run = run_experiment(exp, horizon=horizon, reps=reps, out=str(self.results_dir), threads=self.threads,
                             progress=self.progress, log=self.log, store=self.store, outputs=False,
                             scheduler=self.scheduler)
        for k in self.cells:
            self.cells[k] += int(run.cells.get(k, 0))
        self.runs[exp.name] = run
        return run


def discard_store(results_dir) -> None:
    """Delete the reports' shared result store (``--force``)."""
    from ..sweeps.store import ResultStore
    ResultStore.remove(Path(results_dir) / SHARED_STORE)


def require_seed(text: str, known: Sequence[str]) -> str:
    s = str(text).strip().lower().removeprefix("seed").removeprefix("_")
    if s.isdigit():
        s = f"{int(s):03d}"
    if s not in known:
        raise InputError(f"unknown seed {text!r}; allowed values: {', '.join(known)}, all")
    return s
