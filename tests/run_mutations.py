"""Apply each mutation of ``tests/mutations.toml`` in a scratch copy and report the test that caught it.

One mutation at a time per scratch copy: the copy's file is restored, the edit applied (every
occurrence of ``find``), and first the entry's focused tests (``law_tests`` unless it names
``tests``) run with ``pytest -x``; if they all pass, the whole default suite runs (``pytest -x``
with the project's default options), so a mutation reported SURVIVED truly survived the default
run.  An entry whose ``replace`` holds ``{f}`` is applied once per ``factors`` value (ids
``<id>@<f>``).  The unmutated copy must pass every focused test (the control, run beside the
mutations; no verdict or report otherwise).
Each mutation's outcome is stored in ``reports/mutations.json`` (a run with ``--only`` replaces
its entries' rows) and the score table (id, file, killer) regenerated from it into
``reports/mutations.md``; nothing else in the worktree is modified::

    python -m tests.run_mutations [--only SUBSTRING] [--jobs 2] [--scratch /tmp/scratch-mutations]
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = Path(__file__).with_name("mutations.toml")
REPORT = ROOT / "reports" / "mutations.md"
RESULTS = ROOT / "reports" / "mutations.json"
COMMAND = "python -m tests.run_mutations --jobs 2"


@dataclass
class Variant:
    """One literal edit: ``find`` -> ``replace`` (factor substituted) in ``file``."""
    id: str
    name: str
    file: str
    find: str
    replace: str
    tests: tuple


@dataclass
class Outcome:
    variant: Variant
    status: str            # "killed" | "SURVIVED" | "STALE"
    killer: str | None     # first failing test id
    stage: str             # "focused" | "full suite" | ""
    seconds: float


def variants(spec: dict, only: str | None = None) -> list[Variant]:
    """Every entry of ``spec`` expanded over its factors (in file order)."""
    out = []
    for e in spec["mutation"]:
        if only and not any(o in e["id"] or o in e["name"] for o in only.split(",")):
            continue
        tests = tuple(e.get("tests", spec["law_tests"]))
        if "{f}" in e["replace"]:
            for f in spec["factors"]:
                out.append(Variant(f"{e['id']}@{f:g}", e["name"], e["file"], e["find"],
                                   e["replace"].replace("{f}", repr(f)), tests))
        else:
            out.append(Variant(e["id"], e["name"], e["file"], e["find"], e["replace"], tests))
    return out


def _copy(scratch: Path) -> None:
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(ROOT, scratch, ignore=shutil.ignore_patterns(".venv", ".git", "*.nbi", "*.nbc", ".benchmarks",
                                                                   "dpbench-results", ".pytest_cache", "reports"))


def _first_failure(output: str) -> str | None:
    found = re.search(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", output, flags=re.M)
    return found.group(1) if found else None


def _pytest(scratch: Path, tests=()) -> subprocess.CompletedProcess:
    """pytest -x in the scratch copy: ``tests`` (files or ids), or the default suite if empty."""
    return subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                          cwd=scratch, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(scratch)})


def _apply(scratch: Path, v: Variant, full: bool) -> Outcome:
    start = time.perf_counter()
    path = scratch / v.file
    original = path.read_text()
    if v.find not in original:
        return Outcome(v, "STALE", None, "", 0.0)
    try:
        path.write_text(original.replace(v.find, v.replace))
        for stage, tests in (("focused", v.tests), ("full suite", ())):
            if stage == "full suite" and not full:
                break
            proc = _pytest(scratch, tests)
            if proc.returncode != 0:
                killer = _first_failure(proc.stdout) or f"pytest exit {proc.returncode}"
                return Outcome(v, "killed", killer, stage, time.perf_counter() - start)
        return Outcome(v, "SURVIVED", None, "full suite" if full else "focused", time.perf_counter() - start)
    finally:
        path.write_text(original)


def _merge_results(outcomes: list[Outcome], spec: dict, full: bool) -> dict:
    """The last outcome of every mutation id (``reports/mutations.json``), this run's replacing
    earlier ones; ids no longer in the spec are dropped."""
    known = {v.id for v in variants(spec)}
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results = {k: r for k, r in results.items() if k in known}
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for o in outcomes:
        status = o.status if (full or o.status != "SURVIVED") else "survived focused tests"
        results[o.variant.id] = {"status": status, "killer": o.killer, "stage": o.stage,
                                 "seconds": round(o.seconds), "run": stamp}
    RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return results


def write_report(spec: dict, results: dict, control: str) -> str:
    """reports/mutations.md from the stored results: one row per mutation of the spec."""
    vs = variants(spec)
    rows = [results.get(v.id, {"status": "not run", "killer": None, "stage": "", "seconds": 0, "run": ""})
            for v in vs]
    killed = sum(r["status"] == "killed" for r in rows)
    runs = sorted({r["run"] for r in rows if r["run"]})
    lines = ["# Mutation score", "",
             f"Generated by `{COMMAND}` (tests/run_mutations.py over tests/mutations.toml; each row is "
             "the last run of that mutation, "
             f"{' to '.join(dict.fromkeys([runs[0], runs[-1]])) if runs else 'none run'}).  "
             "A mutation is first run against "
             "the tests named for it, then, if they all pass, against the whole default suite.  "
             f"Control (the unmutated copy passes every focused test) in the last run: {control}.", "",
             f"**{killed} of {len(vs)} mutations killed** by the default test run "
             f"({sum(r['stage'] == 'focused' and r['status'] == 'killed' for r in rows)} by their focused tests, "
             f"{sum(r['stage'] == 'full suite' and r['status'] == 'killed' for r in rows)} only by the whole "
             "default suite).", "",
             "| id | file | mutation | killed by | s |", "|---|---|---|---|---|"]
    for v, r in zip(vs, rows):
        killer = f"`{r['killer']}`" if r["status"] == "killed" else f"**{r['status']}**"
        lines.append(f"| {v.id} | {v.file} | {v.name} | {killer} | {r['seconds']} |")
    REPORT.write_text("\n".join(lines) + "\n")
    return f"{killed} of {len(vs)} killed"


def run(only: str | None, scratch: Path, jobs: int = 1, full: bool = True, report: bool = True) -> int:
    spec = tomllib.loads(SPEC.read_text())
    todo = variants(spec, only)
    ids = [v.id for v in variants(spec)]
    if len(ids) != len(set(ids)):
        print("duplicate mutation ids in tests/mutations.toml", flush=True)
        return 2
    t0 = time.perf_counter()
    copies = [scratch / f"copy{i}" for i in range(max(1, jobs))]
    for c in copies:
        _copy(c)
    control = scratch / "control"                           # unmutated: must pass every focused test
    _copy(control)
    focused = sorted({t for v in todo for t in v.tests})
    free: queue.Queue = queue.Queue()
    lock = threading.Lock()
    for c in copies:
        free.put(c)

    def one(v: Variant) -> Outcome:
        copy = free.get()
        try:
            o = _apply(copy, v, full)
        finally:
            free.put(copy)
        print(f"{o.status:8s} {v.id:28s} {o.seconds:5.0f}s {v.file}  <- {o.killer} ({o.stage})", flush=True)
        if report:                                           # saved as it goes: an interrupted run keeps its rows
            with lock:
                write_report(spec, _merge_results([o], spec, full), control="still running")
        return o

    with ThreadPoolExecutor(max_workers=len(copies) + 1) as pool:
        checked = pool.submit(_pytest, control, focused)      # runs beside the mutations
        outcomes = list(pool.map(one, todo))
        proc = checked.result()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"the unmutated copy fails {_first_failure(proc.stdout)}: no verdict, fix that first", flush=True)
        if report:
            write_report(spec, _merge_results([], spec, full), control=f"FAILED ({_first_failure(proc.stdout)})")
        return 2
    bad = [o for o in outcomes if o.status != "killed"]
    print(f"{len(outcomes) - len(bad)} of {len(outcomes)} killed in {wall / 60:.1f} min", flush=True)
    if report:
        score = write_report(spec, _merge_results([], spec, full),
                             control=f"passed ({len(focused)} focused test files/ids, "
                                     f"{wall / 60:.0f} min for the whole run)")
        print(f"score table: {REPORT.relative_to(ROOT)} ({score} over all runs)", flush=True)
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run the entries whose id or name contains this, or any of a "
                                   "comma-separated list (their rows of the report are updated)")
    ap.add_argument("--jobs", type=int, default=1, help="scratch copies run in parallel (default 1)")
    ap.add_argument("--focused-only", action="store_true",
                    help="skip the whole-suite stage for mutations the focused tests miss")
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/scratch-mutations"))
    ap.add_argument("--report-only", action="store_true",
                    help="regenerate reports/mutations.md from reports/mutations.json without running anything")
    args = ap.parse_args(argv)
    if args.report_only:
        spec = tomllib.loads(SPEC.read_text())
        results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        print(write_report(spec, results, control="not re-run (table regenerated from reports/mutations.json)"))
        return 0
    if args.jobs < 1:
        print("--jobs must be an integer >= 1", file=sys.stderr)
        return 2
    return run(args.only, args.scratch, args.jobs, full=not args.focused_only)


if __name__ == "__main__":
    sys.exit(main())
