"""Measure the default test run and write its time into the README, with the slowest tests.

Run from the root of a checkout (on a fresh clone for the README's cold figure)::

    python -m tests.timing                 # measures, writes reports/test_timing.{json,md} and the README

It runs the README's test command (``python3 -m pytest -n auto --dist loadfile``, the
default run) with a JUnit XML report, measures its wall time, and writes:

* ``reports/test_timing.json``: the wall time, the counts (passed, failed, skipped), the
  command, the date, the machine's cores and load average when it started, the git commit,
  whether compiled kernels were cached before the run (cold: none were), and every test's
  seconds;
* ``reports/test_timing.md``: the same with the slowest tests (default 30) as a table;
* the README sentence between ``<!-- test timing: written by python -m tests.timing -->`` and
  ``<!-- end of test timing -->``, rendered from that JSON (``--no-readme`` leaves it).

``--report-only`` rewrites the Markdown and the README from the JSON without running.  Extra
arguments after ``--`` go to pytest (e.g. ``-- -n 2`` on a machine shared with other jobs).
The test run's own status is the exit status.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ["python3", "-m", "pytest", "-n", "auto", "--dist", "loadfile"]
JSON = Path("reports") / "test_timing.json"
MARKDOWN = Path("reports") / "test_timing.md"
README_MARKERS = ("<!-- test timing: written by python -m tests.timing -->", "<!-- end of test timing -->")


def kernel_cache_files(root: Path = ROOT) -> int:
    """Compiled-kernel cache files numba would load (0: a cold run)."""
    places = [root / "dpbench", root / "verify", root / "tests"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        places.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    return sum(1 for place in places if place.exists() for _ in place.rglob("*.nbi"))


def measure(pytest_args: list[str], *, root: Path = ROOT) -> dict:
    """Run the default test run once; return the timing record."""
    cached = kernel_cache_files(root)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    command = [*COMMAND, *pytest_args]
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, *command[1:], f"--junitxml={xml}", "-o",
                               "junit_duration_report=total", "-q"], cwd=root)
        wall = time.perf_counter() - t0
        tests = read_junit(xml) if xml.exists() else []
    counts = {k: sum(1 for t in tests if t["outcome"] == k) for k in ("passed", "failed", "error", "skipped")}
    return {"wall_s": round(wall, 1), "counts": counts, "returncode": proc.returncode,
            "command": " ".join(command), "date": dt.date.today().isoformat(), "cores": os.cpu_count(),
            "load_at_start": None if load is None else round(load, 2), "cold": cached == 0,
            "cached_kernel_files": cached, "commit": _git_commit(root), "machine": _machine(), "tests": tests}


def _machine() -> str:
    """The CPU the run took its time on (``dpbench.engine.result.machine``): the same tests took
    11 min 33 s on one 2-core machine and 21 min 53 s on another."""
    from dpbench.engine.result import machine
    return machine()


def read_junit(path: Path) -> list[dict]:
    """Every test case of a JUnit XML report: id, seconds (setup, call and teardown), outcome."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "passed"
        for child, name in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
            if case.find(child) is not None:
                outcome = name
        module = case.get("classname", "").replace(".", "/")
        out.append({"id": f"{module}.py::{case.get('name')}", "seconds": round(float(case.get("time", 0)), 2),
                    "outcome": outcome})
    return out


def _git_commit(root: Path) -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return (head or "not a git checkout") + (" (with uncommitted changes)" if dirty else "")


def describe_wall(seconds: float) -> str:
    """'3 min 31 s' or '48 s'."""
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def _where(record: dict) -> str:
    """'2 cores (AMD EPYC, x86_64, 2 cores, numpy SIMD X86_V3)', or '2 cores' in a record written
    before the machine was kept."""
    return f"{record['cores']} cores" + (f" ({record['machine']})" if record.get("machine") else "")


def sentence(record: dict) -> str:
    """The README's words for a measured run."""
    c = record["counts"]
    state = "cold (no cached kernels)" if record["cold"] else "with cached kernels"
    failed = c["failed"] + c["error"]
    outcome = f"{c['passed']} passed" + (f", {failed} failed" if failed else "")
    return (f"took {describe_wall(record['wall_s'])} ({outcome}), {state}, on {_where(record)} on "
            f"{record['date']} (commit {record['commit']}, load {record['load_at_start']} at the start; "
            f"slowest tests: [reports/test_timing.md](reports/test_timing.md))")


def markdown(record: dict, slowest: int = 30) -> str:
    c = record["counts"]
    rows = sorted(record["tests"], key=lambda t: -t["seconds"])[:slowest]
    total = sum(t["seconds"] for t in record["tests"])
    lines = [
        "# Default test run: time and slowest tests", "",
        f"Written by `python -m tests.timing` from a measured run of `{record['command']}` "
        f"on {record['date']} (commit {record['commit']}): **{describe_wall(record['wall_s'])} wall**, "
        f"{c['passed']} passed, {c['failed']} failed, {c['error']} errors, {c['skipped']} skipped; "
        f"{_where(record)}, load average {record['load_at_start']} at the start; "
        f"{'cold (no cached compiled kernels)' if record['cold'] else 'compiled kernels cached'}.  "
        f"Test seconds summed over workers: {total:.0f} s (setup, call and teardown of each test; a "
        "test that compiles a kernel first pays for it).", "",
        f"The {len(rows)} slowest tests:", "",
        "| seconds | test | outcome |", "|---:|---|---|",
        *(f"| {t['seconds']:.1f} | `{t['id']}` | {t['outcome']} |" for t in rows), ""]
    return "\n".join(lines)


def write_readme(readme: Path, record: dict) -> None:
    """Replace the README's words between the test-timing markers."""
    start, end = README_MARKERS
    text = readme.read_text()
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{readme}: the markers {start} ... {end} are missing")
    readme.write_text(pattern.sub(lambda _: start + sentence(record) + end, text, count=1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report-only", action="store_true", help="rewrite from reports/test_timing.json")
    parser.add_argument("--no-readme", action="store_true", help="leave the README as it is")
    parser.add_argument("--slowest", type=int, default=30, help="tests in the table (default: %(default)s)")
    parser.add_argument("pytest_args", nargs="*", help="after --: extra pytest arguments")
    args = parser.parse_args(argv)
    path = ROOT / JSON
    if args.report_only:
        record = json.loads(path.read_text())
    else:
        record = measure(args.pytest_args)
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(record, indent=1) + "\n")
    (ROOT / MARKDOWN).write_text(markdown(record, args.slowest))
    if not args.no_readme:
        write_readme(ROOT / "README.md", record)
    print(f"default test run: {sentence(record)}")
    return int(record["returncode"])


if __name__ == "__main__":
    sys.exit(main())
