"""Measured regret against the registered bounds (:mod:`verify.bounds`): log-regret fits and
explicit values, as table rows and report sections."""
from __future__ import annotations

from verify import regret_fits as rf
from verify.bounds import bounds_for
from verify.bounds import get as get_bound

from .markdown import Report, fmt, fmt_ci, status_cell


def bound_check_rows(experiment: str, label: str, result, *, window=None) -> list[list]:
    """Rows (experiment, run, bound, kind, measured, bound value, verdict) for one result:
    the log-regret slope against every slope bound, and the mean regret against every
    explicit bound (at every checkpoint for anytime bounds)."""
    rows = []
    fit = late_log_fit(result) if window is None else rf.log_regret_fit(result, window=window)
    where = "[{:g}, {:g}]".format(*fit.details["window"]) if fit.applicable else ""
    if not fit.applicable:
        rows.append([experiment, label, "(log-regret fit)", "slope C", "n/a", "", status_cell(fit.verdict)])
    for v in fit.checks:
        b = get_bound(v.bound)
        rows.append([experiment, label, f"{b.key} ({b.theorem})", f"{b.side} {b.form}: ln T coefficient on {where}",
                     fmt_ci(fit), fmt(v.evidence.get("bound_slope")), status_cell(v)])
    for v in rf.check_values(result):
        b = get_bound(v.bound)
        measured = f"{fmt(v.evidence['mean'])} +- {fmt(v.evidence['se'], 2)}" if v.evidence else ""
        rows.append([experiment, label, f"{b.key} ({b.theorem})", f"{b.side} {b.form}: value",
                     measured, fmt(v.evidence.get("bound")), status_cell(v)])
    return rows


def late_log_fit(result, **options):
    """R(t) = a + C ln t on [T/100, T] (spec F1), or on the last decade [T/10, T] when the longer
    window is not logarithmic (each window must pass the local-slope test); the fit records its window,
    and its reason says why the longer one was refused."""
    T = float(result.checkpoints[-1])
    fit = rf.log_regret_fit(result, window=(T / 100, T), **options)
    if fit.applicable or "not logarithmic" not in fit.verdict.reason:
        return fit
    late = rf.log_regret_fit(result, window=(T / 10, T), **options)
    if late.applicable:
        late.verdict.reason = f"last decade only: {fit.verdict.reason}"
        return late
    late.verdict.reason = f"{fit.verdict.reason}; and {late.verdict.reason}"
    return late


BOUND_HEADER = ["experiment", "run", "bound", "compared", "measured [95% CI]", "bound", "verdict"]


def registry_table(report: Report, paper: str):
    """Every registered bound of a paper (``"seed000"``, or the ``seed`` a user's bounds give):
    theorem, side, form, statement, notes."""
    rows = [[b.key, b.theorem, b.side, b.form, b.statement, ", ".join(a for a in b.algorithms if "_" in a)
             or ", ".join(b.algorithms), b.notes] for b in bounds_for(seed=paper)]
    report.table(["key", "theorem", "side", "form", "statement", "policies", "notes"], rows)


def all_bound_rows(runs: dict) -> list[list]:
    rows = []
    for name, run in runs.items():
        if run is None:
            continue
        for key, res in run.results.items():
            rows += bound_check_rows(name, key, res)
    return rows


def bound_checks_section(report: Report, title: str, text: str, runs: dict, *, level: int = 2):
    """The per-run bound-check table of ``runs`` (experiment name -> run) under ``title``,
    then every registered bound of the report's seed."""
    report.section(title, level)
    report.text(text)
    report.table(BOUND_HEADER, all_bound_rows(runs))
    report.section(f"Registered bounds of {report.ctx.paper}", 3)
    registry_table(report, report.ctx.paper)
