"""Where a report's numbers come from: the build context (sizes, folders) and the shared
result store every report runs its experiments in."""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

QUICK_HORIZON = 20_000


QUICK_REPS = 4
#: where ``dpbench report --quick`` writes by default, so that a smoke build never replaces a full report
QUICK_OUT = "reports/quick"


def shown_path(path) -> str:
    """``path`` as a report prints it: as given when relative, relative to the folder the build
    ran in when inside it, else ``.../<its name>``.  A report is read on other machines and
    committed: it never names a folder of the machine that built it."""
    p = Path(path)
    if not p.is_absolute():
        return str(p)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return f".../{p.name}"


def shown_command(command: str) -> str:
    """A recorded rebuild command with its ``--results`` and ``--out`` folders as
    :func:`shown_path` prints them (timings recorded before the rule existed)."""
    return re.sub(r"(--results|--out) (\S+)", lambda m: f"{m.group(1)} {shown_path(m.group(2))}", command)


#: the result store every report shares, under the results folder: a configuration that two
#: reports (or two experiments) run is computed once, and an interrupted build resumes
SHARED_STORE = Path("reports") / "results.sqlite"


@dataclass
class ReportContext:
    """One report build: which paper (its name and folder), the sizes, where results and the
    report go, and what the build ran so far."""
    paper: str                         # "seed002", or the folder name of a user's paper
    quick: bool = False
    pilot: int | None = None           # --pilot R: every experiment at its horizon, R repetitions
    results_dir: Path = Path("dpbench-results")
    out_dir: Path = Path("reports")
    threads: int | None = None
    progress: bool = False
    fresh: set | None = None           # --force: configuration ids recomputed by this command
    scheduler: object = None           # where cells run: None (here), or an open Dask Client
    scheduler_name: str | None = None  # as given on the command line ('local', an address)
    log: Callable[[str], None] = print
    paper_dir: Path | None = None      # the paper's folder (default: the installed paper's)
    target: str = ""                   # the paper as the command named it ("002", "./mypaper")
    plugins: tuple = ()                # the --plugin modules of the command (for the rebuild command)
    allow_long: bool = False           # --yes: build even if the estimate exceeds a day
    missing: list[str] = field(default_factory=list)   # experiments not available (yet)
    started: float = field(default_factory=time.perf_counter)
    cpu_started: float = field(default_factory=time.process_time)
    runs: dict = field(default_factory=dict)            # experiment name -> ExperimentRun
    cells: dict = field(default_factory=lambda: {"computed": 0, "stored": 0})
    _installed_folder: Path | None = field(default=None, repr=False)   # paper_folder's answer, once

    @property
    def folder(self) -> Path:
        """The paper's folder: claims table, experiments, checks (``dpbench/papers/seed<NNN>/`` or a
        user's folder).  An installed paper's is looked up once per build (each lookup reads every
        installed package's entry points: 30 s of seed 000's quick build, asked 1,400 times)."""
        if self.paper_dir is not None:
            return Path(self.paper_dir)
        if self._installed_folder is None:
            from ..plugins import paper_folder
            self._installed_folder = paper_folder(self.paper)
        return self._installed_folder

    def command(self, *, quick: bool | None = None) -> str:
        """The command that rebuilds this report (non-default options included)."""
        quick = self.quick if quick is None else quick
        parts = ["dpbench report", self.target or self.paper] + [f"--plugin {m}" for m in self.plugins]
        if quick:
            parts.append("--quick")
        if self.pilot:
            parts.append(f"--pilot {self.pilot}")
        if Path(self.results_dir) != Path("dpbench-results"):
            parts.append(f"--results {shown_path(self.results_dir)}")
        default = QUICK_OUT if self.quick else "reports/pilot" if self.pilot else "reports"
        if Path(self.out_dir) != Path(default):                                 # not this build's default
            parts.append(f"--out {shown_path(self.out_dir)}")
        if self.scheduler_name:
            parts.append(f"--scheduler {self.scheduler_name}")
        return " ".join(parts)

    @property
    def store(self) -> Path:
        return Path(self.results_dir) / SHARED_STORE

    @property
    def shown_store(self) -> str:
        """The store as a report names it (its results folder by :func:`shown_path`)."""
        return str(Path(shown_path(self.results_dir)) / SHARED_STORE)

    def sizes(self, exp, horizon=None, reps=None) -> tuple[int, int]:
        horizon = exp.horizon if horizon is None else horizon
        reps = exp.reps if reps is None else reps
        if self.quick:
            return min(horizon, QUICK_HORIZON), min(reps, QUICK_REPS)
        if self.pilot:
            return int(horizon), min(int(reps), int(self.pilot))
        return int(horizon), int(reps)

    def resolve(self, name):
        """The :class:`~dpbench.experiments.runner.Experiment` ``name`` names: an Experiment built in
        code, a file of this paper's ``experiments/`` or ``checks/`` folder, or another installed
        paper's experiment; None if there is none (loads files only: nothing runs)."""
        from ..experiments.runner import Experiment, experiment_files, load_experiment
        if isinstance(name, Experiment):
            return name
        for sub in ("experiments", "checks"):
            path = self.folder / sub / f"{name}.toml"
            if path.is_file():
                return load_experiment(path)
        shipped = experiment_files().get(str(name))
        return None if shipped is None else load_experiment(shipped)

    def experiment(self, name, horizon: int | None = None, reps: int | None = None):
        """Run (or reuse) experiment ``name`` (see :meth:`resolve`) in the shared result store;
        None if it does not exist."""
        exp = self.resolve(name)
        if exp is None:
            self.missing.append(str(name))
            self.log(f"report {self.paper}: experiment {name!r} does not exist; skipped")
            return None
        return self.run(exp, horizon, reps)

    def store_key(self, exp) -> str:
        """The experiment's name in the shared store: a user's own experiment is qualified by its
        paper's folder, so that two papers with an experiment of one name (a copied folder) keep
        their results apart instead of refusing each other's; installed ones keep their names."""
        if self.paper_dir is None or exp.path is None:
            return exp.name
        folder = Path(self.paper_dir).resolve()
        return f"{folder}:{exp.name}" if folder in Path(exp.path).resolve().parents else exp.name

    def run(self, exp, horizon: int | None = None, reps: int | None = None):
        """Run (or reuse) the :class:`~dpbench.experiments.runner.Experiment` ``exp`` at the
        report's sizes in the shared result store."""
        from ..experiments.runner import run_experiment
        horizon, reps = self.sizes(exp, horizon, reps)
        self.log(f"report {self.paper}: {exp.name} (T = {horizon:,}, {reps} repetitions)")
        run = run_experiment(exp, horizon=horizon, reps=reps, out=str(self.results_dir), threads=self.threads,
                             progress=self.progress, log=self.log, store=self.store, outputs=False,
                             scheduler=self.scheduler, fresh=self.fresh, store_key=self.store_key(exp),
                             allow_long=self.allow_long)
        for k in self.cells:
            self.cells[k] += int(run.cells.get(k, 0))
        self.runs[exp.name] = run
        return run
