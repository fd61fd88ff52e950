"""A paper is a folder, and every paper's report takes one path.

``dpbench report 002`` (an installed paper of the entry-point group ``dpbench.papers``) and
``dpbench report ./mypaper`` (a folder of your own) both run :func:`build`::

    mypaper/
        claims.toml       the claims, one [[claim]] row each (:mod:`dpbench.reporting.claims`)
        experiments/      the paper's figures as experiment files; each is run and redrawn
        paper.toml        optional: title, citation, intro (shown under the title) and, per
                          experiment, how its figure is drawn: [figures.KEY] with x (the
                          swept parameter the paper's figure has on its x axis; default t),
                          xlabel (that axis's label; default the parameter's name),
                          title, paper_figure ("Fig. 3") and skip
        checks/           optional: experiment files of the report's own check runs
        bounds.py         optional: the paper's theorems, verify.bounds.register(Bound(...))
        report.py         optional: the paper's measurements and extra sections (below)

``report.py`` may define any of

* ``MEASUREMENTS = {name: fn}``: the measurements its ``computed`` and ``value`` claims name,
  ``fn(claim, evidence)`` returning an :class:`~dpbench.reporting.claims.Outcome` (or a number
  or an :class:`~verify.inference.Estimate` for ``value``).  Every ``measure_*`` function of
  :mod:`dpbench.reporting.measures` is available to every paper under its name (``pairs``,
  ``crossing``, ``mechanism_audit``, ...);
* ``measure(evidence, runs)``: registers measurements that need the runs
  (``evidence.measure(name, fn)``);
* ``plan(ctx) -> {key: (experiment, horizon, reps)}``: the runs of the report (an experiment
  name or an :class:`~dpbench.experiments.runner.Experiment` built in code; None sizes: the
  file's).  Default: every file of ``experiments/`` at its own size, and every experiment of
  ``checks/`` a claim names;
* ``figures(report, runs, results)``: figures of its own (``report.figure(...)``), after the
  redrawn ones;
* ``sections(report, runs, results)``: sections after the claims (bound checks, ...);
* ``findings(results, runs) -> [line, ...]``: the paper's own findings for the front page (at
  most two lines, computed from the runs and the decided claims);
* ``ALPHA``: the family-wise error rate of its claims (default 0.01).

Before anything runs, :func:`build` loads every claim and every planned experiment and checks
that each claim's experiments and run labels exist (:func:`check_references`); a bad claims
table fails in one line naming the file, the claim and the key.  The runs go to the shared
result store, the claims are decided by :func:`~dpbench.reporting.claims.evaluate`, and the
report opens with its front page (:mod:`.front_page`), then the figures redrawn from the runs
(:mod:`.paper_figures`), the setup, the claims in detail and the paper's own sections.
"""
from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import re
import sys
import tomllib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from ..validation import InputError
from .context import ReportContext
from .references import run_references

CLAIMS_FILE = "claims.toml"
PAPER_FILE = "paper.toml"
_PAPER_KEYS = {"title", "citation", "intro", "figures", "choice", "builds_on"}
_FIGURE_KEYS = {"title", "paper_figure", "x", "xlabel", "skip"}


@dataclass
class Paper:
    """One paper: its name, folder, what ``paper.toml`` says about it and its ``report.py``."""
    name: str                          # "seed002", or the folder name of a user's paper
    folder: Path
    installed: bool                    # a package of the entry-point group dpbench.papers
    title: str = ""
    citation: str = ""
    intro: str = ""
    figures: dict = field(default_factory=dict)   # [figures.KEY] of paper.toml: how to draw them
    choices: dict = field(default_factory=dict)   # [[choice]] of paper.toml: what the paper leaves open
    module: ModuleType | None = None   # the paper's report.py (its hooks), if it has one

    @property
    def claims_path(self) -> Path:
        return self.folder / CLAIMS_FILE

    def hook(self, name: str, default=None):
        return getattr(self.module, name, default) if self.module is not None else default


# ------------------------------------------------------------------ finding a paper
def installed_papers() -> list[str]:
    """The names of the installed papers (``seed000`` ...)."""
    from ..plugins import paper_packages
    return list(paper_packages())


def find_paper(target) -> tuple[str, Path | None]:
    """(name, folder) of ``target``: an installed paper ("002", "2", "seed002": folder None, found
    through its package) or a folder holding a ``claims.toml`` (name: the folder's name)."""
    text = str(target).strip()
    path = Path(text).expanduser()
    looks_like_path = text.startswith((".", "/", "~")) or "/" in text or "\\" in text
    if path.is_dir() and (looks_like_path or (path / CLAIMS_FILE).is_file()):
        if not (path / CLAIMS_FILE).is_file():
            raise InputError(f"paper folder {text!r} has no {CLAIMS_FILE} (a paper folder holds {CLAIMS_FILE}, "
                             "experiments/ and optionally paper.toml, checks/, bounds.py, report.py)")
        return _safe_name(path.resolve().name), path.resolve()
    if looks_like_path:
        raise InputError(f"no paper folder {text!r}")
    names = installed_papers()
    s = text.lower().removeprefix("seed").removeprefix("_")
    if s.isdigit() and f"seed{int(s):03d}" in names:
        return f"seed{int(s):03d}", None
    if text in names:
        return text, None
    close = difflib.get_close_matches(text, names, n=1)
    raise InputError(f"unknown paper {text!r}" + (f" (did you mean {close[0]}?)" if close else "")
                     + f"; installed papers: {', '.join(names)}, all, or a folder with a {CLAIMS_FILE}")


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "paper"


def load_paper(name: str, folder: Path | None = None) -> Paper:
    """The :class:`Paper` ``name`` (installed) or at ``folder`` (a user's): reads ``paper.toml``
    and imports ``bounds.py`` and ``report.py`` (once per process)."""
    from ..plugins import paper_folder, paper_packages
    installed = folder is None
    folder = paper_folder(name) if installed else Path(folder)
    meta = _read_meta(folder / PAPER_FILE)
    if installed:
        package = paper_packages()[name]
        importlib.import_module(package)               # registers its bounds
        module = (importlib.import_module(f"{package}.report")
                  if importlib.util.find_spec(f"{package}.report") is not None else None)
    else:
        module = _import_folder(name, folder)
    from .claims import load_choices
    choices = load_choices(folder / PAPER_FILE, meta)
    return Paper(name, folder, installed, str(meta.get("title", "")), str(meta.get("citation", "")),
                 str(meta.get("intro", "")), dict(meta.get("figures", {})), choices, module)


def _read_meta(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        meta = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: {err}") from None
    unknown = sorted(set(meta) - _PAPER_KEYS)
    if unknown:
        raise InputError(f"{path}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_PAPER_KEYS))}")
    for key in ("title", "citation", "intro"):
        if key in meta and not isinstance(meta[key], str):
            raise InputError(f"{path}: key {key!r} must be text (write {key} = \"...\"; got {meta[key]!r})")
    if not isinstance(meta.get("figures", {}), dict):
        raise InputError(f"{path}: 'figures' must be a table ([figures.KEY] sections; got {meta['figures']!r})")
    for key, entry in dict(meta.get("figures", {})).items():
        bad = sorted(set(entry) - _FIGURE_KEYS) if isinstance(entry, dict) else ["(not a table)"]
        if bad:
            raise InputError(f"{path}: figures.{key}: unknown key(s) {', '.join(bad)}; allowed: "
                             f"{', '.join(sorted(_FIGURE_KEYS))}")
    return meta


def _import_folder(name: str, folder: Path) -> ModuleType | None:
    """Import a user's paper folder as a package (``bounds.py`` first, then ``report.py``), once
    per process and folder; returns its ``report`` module (None if it has none)."""
    from ..plugins import _located
    package = f"_dpbench_paper_{_safe_name(name).replace('-', '_').replace('.', '_')}_" \
              f"{hashlib.sha1(str(folder).encode()).hexdigest()[:8]}"
    if package not in sys.modules:
        spec = importlib.util.spec_from_file_location(package, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        if (folder / "__init__.py").is_file():
            spec.loader.exec_module(module)
    out = None
    for part in ("bounds", "report"):
        if not (folder / f"{part}.py").is_file():
            continue
        try:
            loaded = importlib.import_module(f"{package}.{part}")
        except InputError:
            raise
        except Exception as err:                  # noqa: BLE001  (any failure: one clear line)
            raise InputError(f"paper folder {folder}: {part}.py failed to import: {_located(err)}") from None
        if part == "report":
            out = loaded
    return out


# ------------------------------------------------------------------ the plan of runs
@dataclass
class Planned:
    """One run of the report: the experiment (None: it does not exist) at its sizes."""
    key: str
    name: str
    experiment: object | None
    horizon: int | None = None
    reps: int | None = None


def plan_of(paper: Paper, ctx: ReportContext, claims) -> dict[str, Planned]:
    """The runs of the report, every experiment loaded (nothing runs)."""
    from ..experiments.runner import Experiment
    hook = paper.hook("plan")
    if hook is not None:
        entries = dict(hook(ctx))
    else:
        entries = {p.stem: (p.stem, None, None) for p in sorted((paper.folder / "experiments").glob("*.toml"))}
        for claim in claims:
            for ref in run_references(claim):
                if ref.experiment not in entries and (paper.folder / "checks" / f"{ref.experiment}.toml").is_file():
                    entries[ref.experiment] = (ref.experiment, None, None)
    out = {}
    for key, entry in entries.items():
        exp, horizon, reps = entry if isinstance(entry, tuple) else (entry, None, None)
        loaded = ctx.resolve(exp)
        name = exp.name if isinstance(exp, Experiment) else str(exp)
        out[key] = Planned(key, name, loaded, horizon, reps)
    return out


# ------------------------------------------------------------------ checking the claims
def run_keys(exp) -> list[str]:
    """The run keys of an experiment (``"panel / label"`` or ``"label"``)."""
    from ..experiments.runner import run_key
    return [run_key(r) for r in exp.runs]


def finds_run(exp, label: str) -> bool:
    """Whether ``label`` names one run of ``exp`` the way claims name runs (its key, or its label
    when one run has it), or one panel (``panel:NAME``)."""
    if label.startswith("panel:"):
        return any(r.panel == label[6:] for r in exp.runs)
    keys = run_keys(exp)
    return label in keys or sum(k.endswith(" / " + label) or k == label for k in keys) == 1


def check_references(claims, plan: dict[str, Planned], path: Path, resolve: Callable) -> None:
    """Raise :class:`InputError` (one line: the file, the claim id, the key) for the first claim
    that names an experiment that exists nowhere or a run label its experiment does not have."""
    def experiment(name):
        if name in plan:
            return plan[name].experiment
        return resolve(name)

    known = sorted(plan)
    for claim in claims:
        for key in ("runs", "pairs"):             # lists of labels: one string would be read letter by letter
            value = claim.params.get(key)
            if isinstance(value, str):
                raise InputError(f"{path}: claim {claim.id!r}: key {key!r} must be a list of run labels "
                                 f"(got the string {value!r}; write {key} = [{value!r}])")
        for ref in run_references(claim):
            exp = experiment(ref.experiment)
            where = f"{path}: claim {claim.id!r}: key {ref.key!r}"
            if exp is None:
                close = difflib.get_close_matches(ref.experiment, known, n=1)
                raise InputError(f"{where}: no experiment {ref.experiment!r}"
                                 + (f" (did you mean {close[0]}?)" if close else "")
                                 + f"; this report's experiments: {', '.join(known) or 'none'}")
            # the T the report runs the experiment to (an experiment outside the plan does not run)
            runs_to = None
            if ref.experiment in plan:
                runs_to = plan[ref.experiment].horizon or getattr(exp, "horizon", None)
            if claim.horizon is not None and runs_to is not None and claim.horizon > runs_to:
                raise InputError(f"{path}: claim {claim.id!r}: key 'horizon': T = {claim.horizon:,.0f} is beyond "
                                 f"the horizon experiment {ref.experiment!r} runs to (T = {runs_to:,.0f}); "
                                 "lower the claim's horizon or raise the experiment's")
            if ref.run is not None and not finds_run(exp, ref.run):
                what = "panel" if ref.run.startswith("panel:") else "run"
                shown = ref.run.removeprefix("panel:")
                names = sorted({r.panel for r in exp.runs}) if what == "panel" else run_keys(exp)
                close = difflib.get_close_matches(shown, names, n=1)
                raise InputError(f"{where}: no {what} {shown!r} in experiment {ref.experiment!r}"
                                 + (f" (did you mean {close[0]!r}?)" if close else "")
                                 + f"; its {what}s: {', '.join(names[:8])}" + (" ..." if len(names) > 8 else ""))


def check_measures(claims, names, path: Path) -> None:
    """Raise :class:`InputError` for the first claim whose ``measure`` no measurement provides."""
    for claim in claims:
        measure = claim.params.get("measure")
        if isinstance(measure, str) and claim.test in ("computed", "value") and measure not in names:
            close = difflib.get_close_matches(measure, sorted(names), n=1)
            raise InputError(f"{path}: claim {claim.id!r}: key 'measure': no measurement {measure!r}"
                             + (f" (did you mean {close[0]}?)" if close else "")
                             + "; define it in the paper's report.py (MEASUREMENTS) or use one of: "
                             + ", ".join(sorted(names)))


def check_audit_arguments(claims, path: Path) -> None:
    """Raise :class:`InputError` (naming the file and the claim) for the first ``mechanism_audit``
    claim whose mechanism or parameters the catalog refuses: before any experiment runs."""
    import dpbench
    for claim in claims:
        if claim.params.get("measure") != "mechanism_audit":
            continue
        a = dict(claim.params.get("args") or {})
        try:
            dpbench.sampler(a.get("mechanism"), **dict(a.get("params") or {}))
        except InputError as err:
            raise InputError(f"{path}: claim {claim.id!r}: key 'args': {err}") from None


def load_claims_of(paper: Paper, display: Path) -> list:
    """The paper's claims (the loader's errors name the file as the user gave it)."""
    from .claims import load_claims
    try:
        return load_claims(paper.claims_path, paper.choices)
    except InputError as err:
        text = str(err)
        raise InputError(text.replace(CLAIMS_FILE, str(display), 1) if text.startswith(CLAIMS_FILE)
                         else text) from None


# ------------------------------------------------------------------ measurements
def shared_measurements() -> dict[str, Callable]:
    """The measurements every paper may name: each ``measure_NAME(claim, evidence)`` of
    :mod:`dpbench.reporting.measures` under ``NAME``."""
    import inspect

    from . import measures
    out = {}
    for attr, fn in vars(measures).items():
        if attr.startswith("measure_") and callable(fn):
            required = [p for p in inspect.signature(fn).parameters.values()
                        if p.default is inspect.Parameter.empty]
            if len(required) == 2:
                out[attr.removeprefix("measure_")] = fn
    return out


# ------------------------------------------------------------------ library warnings
@dataclass
class Caught:
    """Warnings raised by libraries during a build, counted by (kind, message, where)."""
    seen: dict = field(default_factory=dict)

    def add(self, w: warnings.WarningMessage) -> None:
        key = (w.category.__name__, str(w.message).split("\n")[0], _module_of(w.filename))
        self.seen[key] = self.seen.get(key, 0) + 1

    def lines(self) -> list[str]:
        return [f"{_explain(kind, message)} ({kind} from {where}: '{message}', {n}x)"
                for (kind, message, where), n in sorted(self.seen.items(), key=lambda kv: -kv[1])]


def _module_of(filename: str) -> str:
    parts = Path(filename).parts
    for i, part in enumerate(parts):
        if part in ("site-packages", "dist-packages") and i + 1 < len(parts):
            return parts[i + 1]
    for name in ("dpbench", "verify"):
        if name in parts:
            return "/".join(parts[parts.index(name):])
    return Path(filename).name


#: what a library's warning means for a report, by pattern of its message
_MEANINGS = (
    (r"divide by zero|invalid value encountered in (scalar )?divide|true_divide",
     "A statistic divided by a zero spread: some runs had the same value in every repetition (typical at "
     "quick sizes or on a plateau). The rule decides nothing from a zero-width interval; those rows are "
     "inconclusive or say why."),
    (r"invalid value encountered|nan", "A statistic met a missing or undefined value (NaN); the rows built "
     "on it are not decided from it."),
    (r"[Mm]ean of empty slice|empty", "A statistic was asked for on no values (a window or regime with no "
     "checkpoint); the rows built on it say so."),
    (r"overflow", "A number overflowed while computing a statistic; the rows built on it are not decided "
               "from it."),
    (r"converge", "An iterative fit did not converge; the rows built on it are not decided from it."),
)


def _explain(kind: str, message: str) -> str:
    for pattern, meaning in _MEANINGS:
        if re.search(pattern, message):
            return meaning
    return "A library warned during the build."


# ------------------------------------------------------------------ the build
@dataclass
class Checked:
    """A report checked before anything runs: its build context, claims, plan of runs and
    measurements."""
    ctx: ReportContext
    claims: list
    plan: dict
    measurements: dict
    display: Path


def build(ctx: ReportContext, paper: Paper, *, estimated: bool = False) -> Path:
    """Check, estimate, run, decide and write the report of ``paper``; return the markdown path.
    The time of the whole build (every experiment's repetitions the shared store lacks) is
    estimated before anything runs and refused beyond a day unless ``ctx.allow_long``
    (:func:`estimate_build`; ``estimated``: the caller did it already, for several reports).
    Warnings that libraries raise meanwhile are not printed: the report says what they mean."""
    checked = check(ctx, paper)
    if not estimated:
        estimate_build([checked])
    from ..engine.guard import LongRunWarning
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        for quiet in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning,
                      LongRunWarning):                  # the build's estimate was announced above
            warnings.simplefilter("ignore", quiet)      # ignored by Python's default filters too
        return _build(ctx, paper, checked, records)


def build_work(checked: Checked) -> list[tuple]:
    """(policy, arms, horizon, repetitions) of every repetition the build would compute: each
    planned experiment at the report's sizes, less what the shared store holds (read only)."""
    from ..experiments.runner import SHARED_STORE as STORE_NAME
    from ..experiments.runner import StoreKeys, pending_work, plan_runs
    ctx = checked.ctx
    work = []
    for planned in checked.plan.values():
        if planned.experiment is None:
            continue
        exp = planned.experiment
        horizon, reps = ctx.sizes(exp, planned.horizon, planned.reps)
        entries = StoreKeys(ctx.store_key(exp), True).entries(plan_runs(exp, horizon, exp.seed))
        fresh = None if ctx.fresh is None else set()          # --force: nothing stored counts
        work.extend(pending_work(ctx.store, STORE_NAME, entries, reps, fresh))
    return work


def estimate_build(checked: list[Checked]) -> float:
    """Estimate the build of the checked reports (:func:`build_work`) and apply the run-time
    guard (:func:`dpbench.engine.guard.guard`): announced above 10 minutes, refused above a day
    unless their context's ``allow_long`` (``--yes``), before any experiment runs or the store
    is created.  Returns the estimated seconds."""
    from ..engine.guard import guard
    from ..experiments.runner import parallelism
    work = [w for c in checked for w in build_work(c)]
    if not work:
        return 0.0
    ctx = checked[0].ctx
    names = ", ".join(c.ctx.paper for c in checked)
    return guard(work, parallelism(ctx.threads, ctx.scheduler, None), allow_long=ctx.allow_long,
                 what=f"the build of {names} (every repetition its result store lacks)")


def check(ctx: ReportContext, paper: Paper) -> Checked:
    """Everything checked before anything runs: the claims table, the plan of runs and every
    run's policy and parameters, the figures of ``paper.toml``, the measurements."""
    from ..plugins import load_papers
    load_papers()                                 # every paper's bounds: a run may be covered by another's theorem
    display = _display(paper)
    claims = load_claims_of(paper, display)
    variants = [v for c in claims for v in c.under(paper.choices)]   # each reading may name runs of its own
    plan = plan_of(paper, ctx, variants)
    check_references(variants, plan, display, ctx.resolve)
    for key in paper.figures:
        if key not in plan:
            close = difflib.get_close_matches(key, list(plan), n=1)
            raise InputError(f"{paper.folder / PAPER_FILE}: figures.{key}: no experiment {key!r} in this report's plan"
                             + (f" (did you mean {close[0]}?)" if close else "") + "; its experiments: "
                             + ", ".join(plan))
    measurements = {**shared_measurements(), **dict(paper.hook("MEASUREMENTS", {}) or {})}
    if paper.hook("measure") is None:
        check_measures(claims, measurements, display)
    check_audit_arguments(claims, display)
    for planned in plan.values():                 # every run's policy and parameters, before any runs
        if planned.experiment is not None:
            from ..experiments.runner import plan_runs
            horizon, _ = ctx.sizes(planned.experiment, planned.horizon, planned.reps)
            plan_runs(planned.experiment, horizon, planned.experiment.seed)
    return Checked(ctx, claims, plan, measurements, display)


def _build(ctx: ReportContext, paper: Paper, checked: Checked, records: list) -> Path:
    from . import front_page, paper_figures
    from .claims import DEFAULT_ALPHA, Evidence, evaluate, write_json
    from .markdown import Report, quick_banner, setup_lines
    from .provenance import finish

    claims, plan, measurements, display = checked.claims, checked.plan, checked.measurements, checked.display
    runs = {}
    for key, planned in plan.items():
        if planned.experiment is None:
            ctx.missing.append(planned.name)
            ctx.log(f"report {ctx.paper}: experiment {planned.name!r} does not exist; skipped")
            runs[key] = None
        else:
            runs[key] = ctx.run(planned.experiment, planned.horizon, planned.reps)

    alpha = float(paper.hook("ALPHA", DEFAULT_ALPHA))
    named = {run.experiment.name: run for run in runs.values() if run is not None}
    ev = Evidence({**named, **{k: v for k, v in runs.items() if v is not None}}, alpha=alpha)
    ev.quick = ctx.quick
    for name, fn in measurements.items():
        ev.measure(name, fn)
    if paper.hook("measure") is not None:
        paper.module.measure(ev, runs)
    results = evaluate(claims, ev, alpha=alpha, choices=paper.choices)
    if ctx.quick:
        results = front_page.smoke(results)

    report = Report(ctx, paper.title or f"{paper.name}: claims and evidence")
    if paper.citation:
        report.text(f"*{paper.citation}*")
    quick_banner(report)
    front = report.mark()
    report.section("Figures")
    report.text("Redrawn from this report's runs (mean over repetitions with its 95% band; marks: the claims "
                "each figure carries, at the horizon they test). Each caption lists its claims.")
    paper_figures.draw_all(report, paper, plan, runs, results, ev)
    if paper.hook("figures") is not None:
        paper.module.figures(report, runs, results)
    paper_figures.ratio_figure(report, results, ev)
    report.section("Setup")
    if paper.intro:
        report.text(paper.intro)
    setup_lines(report, runs)
    front_page.readings_section(report, paper.choices)
    front_page.details(report, results, display)
    if paper.hook("sections") is not None:
        paper.module.sections(report, runs, results)
    extra = paper.hook("findings")(results, runs) if paper.hook("findings") is not None else []
    if ctx.pilot:                                 # what each claim needs, in the report and on the screen
        from . import pilot
        found = pilot.needs(results)
        pilot.section(report, found, ctx.pilot, pilot.planned(plan))
        ctx.log(pilot.table(found, ctx.pilot, pilot.planned(plan)))
    report.insert(front, front_page.render(report, results, display, sizes=sizes_lines(runs),
                                           choices=paper.choices, extra=extra))
    report.ctx.out_dir.mkdir(parents=True, exist_ok=True)
    write_json(Path(ctx.out_dir) / f"{report.name}_claims.json", results)
    caught = Caught()
    for w in records:
        caught.add(w)
    if caught.seen:
        report.section("Warnings during this build")
        report.text("Raised by the libraries this report uses, in the report's words (what it means for the "
                    "verdicts), with the library's own message:")
        report.bullets(caught.lines())
    return finish(report)


def sizes_lines(runs) -> list[str]:
    """The report's horizons and repetitions against the paper's (its figures' ``paper_horizon``
    and ``paper_reps``), in one line each, for the findings."""
    horizons, reps, paper_h, paper_r = set(), set(), set(), set()
    for run in runs.values():
        if run is None:
            continue
        exp, config = run.experiment, run.config
        horizons.add(int(config.get("horizon", exp.horizon)))
        reps.add(int(config.get("reps", exp.reps)))
        if exp.paper_horizon:
            paper_h.add(int(exp.paper_horizon))
        if exp.paper_reps:
            paper_r.add(int(exp.paper_reps))
    if not horizons:
        return []
    from .markdown import fmt_t

    def span(values, fmt=str):
        lo, hi = min(values), max(values)
        a, b = fmt(lo), fmt(hi)
        if ("e" in a) != ("e" in b):        # one format for both ends: not "1e4 to 20,000"
            a, b = f"{lo:,}", f"{hi:,}"
        return a if lo == hi else f"{a} to {b}"
    fewer = paper_r and min(reps) < min(paper_r)
    return [f"**Sizes:** horizons {span(horizons, fmt_t)}"
            + (f" (the paper's figures: {span(paper_h, fmt_t)})" if paper_h else " (the paper states none)")
            + f"; repetitions {span(reps)}"
            + (f" (the paper's: {span(paper_r)}" + ("; fewer than the paper's)" if fewer else ")") if paper_r
               else " (the paper's not stated)") + "."]


def _display(paper: Paper) -> Path:
    """How the report names the claims table: relative to the package root for an installed paper
    (``dpbench/papers/seed002/claims.toml``), as given for a user's folder."""
    path = paper.claims_path
    if paper.installed:
        parts = path.parts
        if "dpbench" in parts:
            return Path(*parts[len(parts) - 1 - parts[::-1].index("dpbench"):])
        return path
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path
