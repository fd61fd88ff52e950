"""Apply each mutation of ``tests/mutations.toml`` in a scratch copy and report the test that caught it.

One mutation at a time: the scratch copy's file is restored, the edit applied (every occurrence
of ``find``), and the entry's default-run test files (``law_tests`` unless it names ``tests``)
run with ``pytest -x`` until the first failure.  A mutation that no test catches is reported as
SURVIVED and the exit status is 1.  Nothing in the worktree is modified::

    python -m tests.run_mutations [--only SUBSTRING] [--scratch /tmp/scratch-mutations]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = Path(__file__).with_name("mutations.toml")


def _copy(scratch: Path) -> None:
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(ROOT, scratch, ignore=shutil.ignore_patterns(".venv", ".git", "*.nbi", "*.nbc", ".benchmarks",
                                                                   "dpbench-results", ".pytest_cache"))


def _first_failure(output: str) -> str | None:
    found = re.search(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", output, flags=re.M)
    return found.group(1) if found else None


def _pytest(scratch: Path, tests) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                          cwd=scratch, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(scratch)})


def run(only: str | None, scratch: Path) -> int:
    spec = tomllib.loads(SPEC.read_text())
    entries = [e for e in spec["mutation"] if not only or only in e["name"]]
    _copy(scratch)
    for tests in sorted({tuple(e.get("tests", spec["law_tests"])) for e in entries}):
        if _pytest(scratch, tests).returncode != 0:                # the control: unmutated code passes
            print(f"the unmutated copy fails {list(tests)}: fix that first", flush=True)
            return 2
    survived = 0
    for entry in entries:
        path = scratch / entry["file"]
        original = path.read_text()                                # the copy's, restored after each
        if entry["find"] not in original:
            print(f"STALE  {entry['name']}: {entry['find']!r} not found in {entry['file']}", flush=True)
            survived += 1
            continue
        for f in spec["factors"]:
            path.write_text(original.replace(entry["find"], entry["replace"].replace("{f}", repr(f))))
            proc = _pytest(scratch, entry.get("tests", spec["law_tests"]))
            caught = _first_failure(proc.stdout)
            status = "caught" if proc.returncode != 0 and caught else "SURVIVED"
            survived += status == "SURVIVED"
            print(f"{status:8s} x{f:<4g} {entry['file']}: {entry['name']}  <- {caught}", flush=True)
        path.write_text(original)
    return 1 if survived else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run the entries whose name contains this")
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/scratch-mutations"))
    args = ap.parse_args(argv)
    return run(args.only, args.scratch)


if __name__ == "__main__":
    sys.exit(main())
