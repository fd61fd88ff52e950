"""Experiments are data: TOML files in a paper's ``experiments/`` folder
(``dpbench/papers/seed<NNN>/experiments/``) describe a figure panel.

A file names a default size (``horizon``, ``reps``, ``seed``), an environment,
and a list of runs (a policy and its parameters, optionally a ``panel``, a
per-run ``environment`` and a ``sweep`` over parameter values).  The runner
validates *every* run before it starts the first, splits each run's
repetitions into cells of ``cell_reps`` (file key or argument; default 10) and
computes the cells the result store (``<out>/<name>/results.sqlite``,
:mod:`dpbench.sweeps.store`) does not hold yet -- in this process with compiled
threads, or on Dask (``scheduler='local'`` or an address,
:mod:`dpbench.sweeps.dask_backend`) -- writing each cell as soon as it is
done.  A rerun therefore reuses finished runs, resumes interrupted ones (also
after SIGKILL) and gives the same arrays as an uninterrupted run.  Then it
writes the figure, the table and ``experiment.json``.
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.result import SimulationResult
from ..engine.simulate import Interrupted, Plan, check_threads, prepare, run_plan
from ..validation import InputError, check_count, check_int, check_real, make_output_dir, unknown_name
from .spec import Experiment, RunSpec, check_runs

_RESERVED = {"label", "policy", "panel", "environment", "sweep"}
#: the keys of an experiment file (a misspelt one would otherwise be ignored silently)
EXPERIMENT_KEYS = ("name", "title", "source", "horizon", "reps", "seed", "runs", "environment", "baseline",
                   "paper_horizon", "paper_reps", "ratio_horizons", "notes", "yscale", "table_info", "sweep_plot",
                   "cell_reps")
YSCALES = ("linear", "log", "symlog", "logit")
#: the name recorded in a result store shared by several experiments
SHARED_STORE = "shared"


def experiment_files() -> dict[str, Path]:
    """``{name: path}`` of every shipped experiment: the ``experiments/*.toml`` files of every
    paper of the entry-point group ``dpbench.papers`` (:func:`dpbench.plugins.paper_packages`)."""
    from ..plugins import paper_folders
    found: dict[str, Path] = {}
    for folder in paper_folders().values():
        for path in sorted((folder / "experiments").glob("*.toml")):
            if path.stem in found:
                raise InputError(f"experiment {path.stem!r} is shipped twice: {found[path.stem]} and {path}")
            found[path.stem] = path
    return dict(sorted(found.items()))


def experiment_names() -> list[str]:
    return list(experiment_files())


def load_experiment(name_or_path) -> Experiment:
    """Load a shipped experiment by name, or a TOML file by path."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or len(path.parts) > 1:          # a file, not a shipped name
        if not path.is_file():
            raise InputError(f"experiment file {str(path.absolute())!r} does not exist")
    else:
        shipped = experiment_files().get(str(name_or_path))
        if shipped is None:
            raise unknown_name("experiment", str(name_or_path), experiment_names(), hint="(or a path to a .toml file)")
        path = shipped
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"experiment file {path}: {err}") from None
    return experiment_from_raw(raw, path)


def experiment_from_raw(raw: dict, path: Path | None = None) -> Experiment:
    """An :class:`Experiment` from the parsed content of an experiment file (or the same
    dictionary built in code, e.g. a family of runs computed from an instance; ``name`` required)."""
    where = f"experiment file {path}" if path is not None else f"experiment {raw.get('name')!r}"
    unknown = [k for k in raw if k not in EXPERIMENT_KEYS]
    if unknown:
        raise unknown_name("key", unknown[0], EXPERIMENT_KEYS, where=where, kind="keys")
    for key in ("horizon", "reps", "seed", "runs", "environment") + (() if path is not None else ("name",)):
        if key not in raw:
            raise InputError(f"{where} lacks {key!r}")
    if raw.get("yscale", "linear") not in YSCALES:
        raise unknown_name("yscale", raw["yscale"], YSCALES, where=where)
    runs = []
    for i, entry in enumerate(raw["runs"]):
        runs.extend(_expand_run(entry, raw["environment"], f"{path.name if path else raw['name']} run {i + 1}"))
    check_runs(runs, raw.get("baseline"), where)
    name = raw.get("name", path.stem if path is not None else "")
    try:
        horizon = check_count("horizon", raw["horizon"], low=2)
        reps, seed = check_count("reps", raw["reps"]), check_int("seed", raw["seed"], low=0)
        paper_reps = check_count("paper_reps", raw["paper_reps"]) if "paper_reps" in raw else None
    except InputError as err:
        raise InputError(f"{where}: {err}") from None
    return Experiment(
        name=name, title=raw.get("title", name), source=raw.get("source", ""),
        horizon=horizon, reps=reps, seed=seed, runs=runs, baseline=raw.get("baseline"),
        paper_horizon=raw.get("paper_horizon"), paper_reps=paper_reps,
        ratio_horizons=[int(float(t)) for t in raw.get("ratio_horizons", [])],
        notes=raw.get("notes", ""), yscale=raw.get("yscale", "linear"),
        table_info=list(raw.get("table_info", [])), sweep_plot=raw.get("sweep_plot"), path=path, raw=raw)


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
                           entry.get("panel", "").format(**point), sweep_group=entry["label"]))
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
    store: Path | None = None                             # the SQLite result store
    cells: dict = field(default_factory=dict)             # total / stored / computed cell counts


def run_key(run: RunSpec) -> str:
    return f"{run.panel} / {run.label}" if run.panel else run.label


def _replace_unreadable(store_path: Path, name: str, log) -> None:
    """``--force`` on a store this dpbench cannot extend (another version, format or name, or not a
    store at all): nothing in it can be kept, so it is removed, and the log says so."""
    from ..sweeps.store import ResultStore, UnusableStore
    if not store_path.exists():
        return
    try:
        with ResultStore(store_path, name):
            return
    except UnusableStore as err:            # not a store that is locked or on a full disk: that one stays
        ResultStore.remove(store_path)
        log(f"{store_path}: removed (--force), as this dpbench cannot add to it: {str(err).split('. ')[0]}")


def run_experiment(name, *, horizon=None, reps=None, seed=None, out="dpbench-results", threads=None,
                   progress=True, reuse=True, log=print, scheduler=None, workers=None, cell_reps=None,
                   connect_timeout=10.0, store=None, outputs=True, allow_long=False, fresh=None,
                   store_key=None, extend=False) -> ExperimentRun:
    """Run (or reuse) every run of experiment ``name``; write results, figure and table.

    ``name`` is a shipped experiment, a ``.toml`` path or an :class:`Experiment`.
    ``scheduler``: None/``'none'`` runs the cells here (``threads`` compiled
    threads), ``'local'`` on an embedded Dask LocalCluster of ``workers``
    processes, an address on that Dask cluster.  ``reuse=False`` (``--force``) recomputes every
    run, replacing its stored cells and this horizon's and seed's stored definition (the other
    horizons, seeds and repetition counts stored under the name are kept; a store that cannot
    be read by this dpbench is replaced whole).  ``store``: the path of a result store shared by several experiments
    (their run keys are prefixed with ``store_key``, default the experiment name, and a
    configuration reached from two experiments is one set of cells); default
    ``<out>/<name>/results.sqlite``.  ``outputs=False``
    skips the figure, table and ``experiment.json`` (callers that make their own, e.g. reports).

    A name means one configuration (:mod:`dpbench.sweeps.store`): if ``<out>/<name>`` already
    holds the experiment at this horizon and seed with other runs (a changed grid, other
    policies), the run is refused with :class:`~dpbench.sweeps.store.StoreError` naming the
    difference, unless ``reuse=False`` (``--force``: replace) or ``extend=True`` (``--extend``:
    the stored runs are kept and the new ones added; the figure and table show all of them).
    Another horizon, seed or repetition count is a definition of its own, kept beside the others.

    Before the store is created or anything is computed, the time of the repetitions still to
    compute is estimated from each policy's measured pulls per second
    (:func:`dpbench.engine.guard.guard`): above 10 minutes a ``LongRunWarning`` announces it,
    above a day :class:`InputError` refuses it unless ``allow_long=True`` (the command line's
    ``--yes``).  ``fresh``: a set of configuration ids
    recomputed by the calling command (``dpbench report --force``): every configuration of this
    experiment not in it has its stored cells discarded (and a changed run definition replaces
    the stored one) before anything runs, and joins it, so that two reports of one command
    sharing a configuration compute it once; the other cells of a shared store stay.
    """
    from ..sweeps import dask_backend
    from ..sweeps.grid import DEFAULT_CELL_REPS
    from ..sweeps.store import FILENAME, ResultStore

    exp = name if isinstance(name, Experiment) else load_experiment(name)
    horizon = exp.horizon if horizon is None else check_count("horizon", horizon, low=2)
    reps = exp.reps if reps is None else check_count("reps", reps)
    seed = exp.seed if seed is None else check_int("seed", seed, low=0)
    cell_reps = check_int("cell_reps", exp.raw.get("cell_reps", DEFAULT_CELL_REPS) if cell_reps is None
                          else cell_reps, low=1)
    check_threads(threads)
    scheduler = dask_backend.check_scheduler(scheduler)
    if workers is not None:
        if scheduler != dask_backend.LOCAL:
            raise InputError("workers applies to scheduler 'local' only")
        check_int("workers", workers, low=1)
    check_real("connect_timeout", connect_timeout, low=0.0, low_open=True)
    plans = plan_runs(exp, horizon, seed)               # every run validated before any runs
    out_dir = Path(out) / exp.name
    shared = store is not None
    store_path = Path(store) if shared else out_dir / FILENAME
    if not reuse:
        if shared:
            raise InputError("reuse=False would discard a shared result store; remove it first")
        if extend:
            raise InputError("--force and --extend (in Python reuse=False and extend=True) exclude each other: --force "
                             "replaces the stored runs at this horizon and seed, --extend keeps them and adds the "
                             "new ones")
        _replace_unreadable(store_path, exp.name, log)
        fresh = set() if fresh is None else fresh      # every configuration of this run recomputed
    store_name = SHARED_STORE if shared else exp.name
    key_of = StoreKeys(store_key or exp.name, shared)
    mode = "adopt" if shared else ("extend" if extend else "refuse")
    entries = key_of.entries(plans)
    if store_path.exists():                 # refusals first, and the runs an --extend adds
        with ResultStore(store_path, store_name) as stored:     # (read-write: it rolls back a killed write)
            extra = stored.check(entries, experiment=key_of.experiment, replace=fresh is not None, runs=mode)
            order = stored.definition_runs(key_of.experiment, horizon, seed)
        if extra:                           # --extend: the stored runs in their order, then the new ones
            earlier = plan_runs(dataclasses.replace(exp, runs=[RunSpec(**e["spec"]) for e in extra]), horizon, seed)
            new = sum(k not in order for k, *_ in entries)
            rank = {k: i for i, k in enumerate(order)}
            union = sorted(zip(key_of.entries(earlier) + entries, earlier + plans),
                           key=lambda pair: rank.get(pair[0][0], len(rank)))
            entries, plans = [e for e, _ in union], [p for _, p in union]
            log(f"{exp.name}: --extend: {len(order)} stored runs and {new} new ones")
            exp = _with_runs(exp, [r for r, _ in plans])
    _guard_pending(store_path, store_name, entries, reps, fresh, threads, scheduler, workers, allow_long)
    new_store, new_dirs = not store_path.exists(), [d for d in (out_dir, *out_dir.parents) if not d.exists()]
    if outputs or not shared:
        make_output_dir("out", out_dir)
    config = {"experiment": exp.name, "title": exp.title, "source": exp.source, "horizon": horizon,
              "reps": reps, "seed": seed, "cell_reps": cell_reps, "paper_horizon": exp.paper_horizon,
              "paper_reps": exp.paper_reps,
              "notes": exp.notes, "file": exp.raw}
    with _removed_if_left_empty(store_path if new_store else None, new_dirs), \
            ResultStore(store_path, store_name) as store:
        if not reuse:                       # --force: this horizon and seed anew; the others stay
            dropped = store.discard_definitions(key_of.experiment, horizon, seed)
            if dropped:
                log(f"{exp.name}: {dropped} stored cells at horizon {horizon}, seed {seed} discarded (--force)")
        store.register(entries, experiment=key_of.experiment, reps=reps, replace=fresh is not None, runs=mode,
                       command=_command_line())
        for key, _, _, cfg, _, _ in entries if fresh is not None else ():
            if cfg.config_id not in fresh:
                fresh.add(cfg.config_id)
                if store.discard_config(cfg.config_id):
                    log(f"{key}: stored cells discarded (--force)")
        todo, counts = _missing_cells(store, entries, reps, cell_reps, log)
        if todo:
            bar = _cell_bar(counts, exp.name, progress)
            try:
                if scheduler is None:
                    _run_here(store, todo, threads, bar, log)
                else:
                    _run_on_dask(store, todo, scheduler, workers, connect_timeout, threads, bar, log)
            finally:
                bar.close()
        if store.damaged:
            log(f"warning: {len(store.damaged)} damaged cells in {store_path} failed their checksum "
                "and were recomputed")
        results = {}
        for key, _, _, cfg, _, _ in entries:
            key = key_of.run(key)
            results[key] = store.load_result(cfg.config_id, reps)
            results[key].metadata["experiment"] = exp.name
        config["store"] = {"path": str(store_path), "invocation": store.invocation,
                           "definitions": store.definitions(key_of.experiment)}
    from .outputs import ratio_table, write_outputs
    runs = [r for r, _ in plans]
    if not outputs:
        return ExperimentRun(exp, config, out_dir, results, runs, [], None, store_path, counts)
    table = ratio_table(exp, results, runs, horizon)
    figure = write_outputs(exp, config, results, runs, table, out_dir)
    return ExperimentRun(exp, config, out_dir, results, runs, table, figure, store_path, counts)


@contextlib.contextmanager
def _removed_if_left_empty(store_path: Path | None, new_dirs: list[Path]):
    """On an error (an unreachable scheduler, a worker's crash) before any cell is stored, delete
    the store this command created, and the folders it created (``new_dirs``, innermost first)
    that are left empty: a failed first command leaves nothing that reads as a result.  An
    interrupt keeps them (its message names the store the same command resumes).
    ``store_path`` None: the store existed before."""
    from ..sweeps.store import ResultStore
    try:
        yield
    except Exception:
        if store_path is not None and store_path.exists() and not _holds_cells(store_path):
            ResultStore.remove(store_path)
            for folder in new_dirs:
                if not folder.is_dir() or any(folder.iterdir()):
                    break
                folder.rmdir()
        raise


def _holds_cells(store_path: Path) -> bool:
    """Whether the store at ``store_path`` holds a cell (an unreadable store counts as holding one:
    it is never deleted here)."""
    from ..sweeps.store import ResultStore
    try:
        with ResultStore.open(store_path) as store:
            return store.cell_count() > 0
    except Exception:
        return True


@dataclass
class StoreKeys:
    """How an experiment's runs are named in a result store: as run keys in its own store, with
    ``experiment / `` before them in a shared one."""
    experiment: str
    shared: bool

    def entries(self, plans) -> list[tuple]:
        """(store key, panel, label, config, plan, run specification) of each (run, plan)."""
        from ..sweeps.grid import Config
        prefix = f"{self.experiment} / " if self.shared else ""
        return [(prefix + run_key(run), run.panel, run.label, Config.from_run(run, plan), plan,
                 dataclasses.asdict(run)) for run, plan in plans]

    def run(self, key: str) -> str:
        return key.removeprefix(f"{self.experiment} / ") if self.shared else key


def _with_runs(exp: Experiment, runs: list[RunSpec]) -> Experiment:
    """``exp`` holding ``runs`` (an --extend: the stored runs and the new ones); a command-line
    grid's title names every policy."""
    title = exp.title
    if "sweep" in exp.raw:
        title = f"Sweep {exp.name}: {', '.join(dict.fromkeys(r.policy for r in runs))} on " \
                f"{', '.join(dict.fromkeys(r.environment['name'] for r in runs))}"
    return dataclasses.replace(exp, runs=runs, title=title)


def _command_line() -> str:
    """The command that started this process, as the store's invocation record shows it."""
    import shlex
    import sys
    argv = list(sys.argv)
    if argv and Path(argv[0]).name == "dpbench":
        argv[0] = "dpbench"
    return shlex.join(argv)[:2000]


def pending_work(store_path, store_name: str, entries, reps: int, fresh=None) -> list[tuple]:
    """(policy, arms, horizon, repetitions) still to compute for ``entries`` (see
    :class:`StoreKeys`) at ``reps`` repetitions: the ones the store at ``store_path`` does not
    hold from the code that would compute them now.  Reads the store if it exists (opened
    read-write, so that a write killed half-way is rolled back first) and never creates it.
    ``fresh``: the configuration ids a ``--force`` recomputes (those
    not in it count as missing)."""
    from ..engine.stamps import plan_stamp
    from ..sweeps.store import ResultStore
    have: dict = {}
    path = Path(store_path)
    if path.exists():
        with ResultStore(path, store_name) as stored:
            for _, _, _, cfg, plan, *_ in entries:
                if cfg.config_id not in have and (fresh is None or cfg.config_id in fresh):
                    have[cfg.config_id] = int(stored.coverage(cfg.config_id, reps, plan_stamp(plan),
                                                              verify=False).sum())
    work, seen = [], set()
    for _, _, _, cfg, plan, *_ in entries:
        if cfg.config_id in seen:
            continue
        seen.add(cfg.config_id)
        missing = reps - have.get(cfg.config_id, 0)
        if missing:
            work.append((plan.spec.name, plan.instance.k, plan.horizon, missing))
    return work


def _guard_pending(store_path, store_name, entries, reps, fresh, threads, scheduler, workers, allow_long):
    """The run-time guard on the repetitions still to compute (before the store is written)."""
    from ..engine.guard import guard
    work = pending_work(store_path, store_name, entries, reps, fresh)
    if work:
        guard(work, parallelism(threads, scheduler, workers), allow_long=allow_long)


def parallelism(threads, scheduler, workers) -> int:
    """How many repetitions run at once: compiled threads here, worker processes on Dask."""
    from ..sweeps import dask_backend
    return (threads or dask_backend.max_threads()) if scheduler is None else (workers or dask_backend.max_threads())


def _missing_cells(store, entries, reps, cell_reps, log):
    """The cells still to compute, one log line per run, and the cell counts.  Stored cells
    computed by other code (another stamp: dpbench's compiled sources or a user component
    changed since) are discarded and recomputed."""
    from ..engine.stamps import plan_stamp
    from ..sweeps.grid import Cell, missing_ranges

    todo, seen = [], {}
    counts = {"total": 0, "stored": 0, "computed": 0}
    for i, (key, _, _, cfg, plan, _) in enumerate(entries):
        cid = cfg.config_id
        where = f"[{i + 1}/{len(entries)}] {key}"
        if cid in seen:
            log(f"{where}: same configuration as {seen[cid]!r}")
            continue
        seen[cid] = key
        stamp = plan_stamp(plan)
        stale = [s for s in store.code_stamps(cid) if s != stamp]
        if stale:
            dropped = store.discard_cells(cid, keep_stamp=stamp)
            log(f"{where}: recomputing {dropped} stored cells computed by other code (stamp "
                f"{', '.join(stale)}, now {stamp}: dpbench's or a plugin's source changed)")
        have = store.coverage(cid, reps)
        if have.all():
            log(f"{where}: reusing saved result")
        elif have.any():
            log(f"{where}: resuming after {int(have.sum())} saved repetitions")
        else:
            log(where)
        missing = missing_ranges(have, cell_reps)
        todo.extend((key, Cell(cid, first, count), cfg, plan) for first, count in missing)
        counts["stored"] += sum(bool(have[a:a + cell_reps].all()) for a in range(0, reps, cell_reps))
    counts["computed"] = len(todo)
    counts["total"] = counts["stored"] + counts["computed"]
    return todo, counts


def _cell_bar(counts, desc, enabled):
    from tqdm.auto import tqdm
    return tqdm(total=counts["total"], initial=counts["stored"], desc=desc, unit="cell",
                disable=not enabled, leave=False)


def _run_here(store, todo, threads, bar, log):
    """Compute cells one after another in this process (compiled threads over repetitions)."""
    import socket

    from ..engine.stamps import plan_stamp
    host = socket.gethostname()
    for done, (key, cell, _, plan) in enumerate(todo):
        stamp = plan_stamp(plan)
        try:
            res = run_plan(plan, cell.reps, first_rep=cell.first_rep, threads=threads, progress=False,
                           desc=key)
        except KeyboardInterrupt as stop:                  # Interrupted is one
            parts = getattr(stop, "parts", [])
            for part in parts:
                store.write_cell(cell.config_id, part.first_rep, part.regret, part.pulls,
                                 seconds=part.seconds, compile_seconds=part.compile_seconds,
                                 threads=part.threads, host=host, stamp=stamp)
            finished = sum(part.reps for part in parts)
            unfinished = getattr(stop, "stopped", 0)
            last = cell.first_rep + cell.reps - 1
            in_progress = (f"{finished} finished repetitions are stored too" if finished else
                           "no repetition had finished: nothing of it is kept")
            if unfinished:
                in_progress += f", {unfinished} stopped unfinished and discarded"
            if 0 < finished + unfinished < cell.reps:
                in_progress += f", {cell.reps - finished - unfinished} not started"
            log(f"interrupted: {done} of the {len(todo)} cells this command had to compute finished and are "
                f"stored in {store.path}; of the "
                f"cell in progress ({key!r}, repetitions {cell.first_rep}-{last}), {in_progress}; rerun the "
                "same command to resume (it computes only what is missing)")
            raise
        store.write_cell(cell.config_id, cell.first_rep, res.regret, res.pulls, seconds=res.seconds,
                         compile_seconds=res.compile_seconds, threads=res.threads, host=host, stamp=stamp)
        bar.update(1)


def _run_on_dask(store, todo, scheduler, workers, timeout, threads, bar, log):
    """Compute cells on Dask; the client writes each to the store as it completes."""
    from ..engine.stamps import plan_stamp
    from ..sweeps import dask_backend
    from ..version import __version__

    tasks = [{"config": cfg.describe(), "config_id": cell.config_id, "first_rep": cell.first_rep,
              "reps": cell.reps, "threads": threads, "dpbench": __version__, "run": key,
              "code_stamp": plan_stamp(plan)}
             for key, cell, cfg, plan in todo]
    done = 0

    def write(task, out):
        nonlocal done
        store.write_cell(task["config_id"], task["first_rep"], out["regret"], out["pulls"],
                         seconds=out["seconds"], compile_seconds=out["compile_seconds"],
                         threads=out["threads"], worker=out["worker"], host=out["host"],
                         stamp=out["code_stamp"])
        done += 1
        bar.update(1)

    with dask_backend.connect(scheduler, workers=workers, timeout=timeout) as client:
        try:
            dask_backend.run_cells(client, tasks, write)
        except KeyboardInterrupt:
            log(f"interrupted: {done} of the {len(tasks)} cells this command had to compute finished and are "
                f"stored in {store.path}; the "
                "cells in progress on the workers are discarded (a cell is stored whole or not at all); "
                "rerun the same command to resume (it computes only what is missing)")
            raise Interrupted(None) from None
