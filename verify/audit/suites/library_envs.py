"""Audit library versions that cannot share one environment, each in its own: the install matrix.

    python -m verify.audit.suites.library_envs                 # every environment below (long: about an hour)
    python -m verify.audit.suites.library_envs --only opendp-0.5 --root /tmp/envs

For each environment of :data:`ENVIRONMENTS`: a fresh venv under ``--root`` (Python of this
interpreter), ``pip install <this checkout> <requirements>`` (timed: the install matrix), then
``python -m dpbench audit-suite --libraries --library L --rows-out reports/audit_libraries/<name>.json``
inside it, and the install's command, exit status and seconds added to that file.  An install that
fails, or a library that does not import, is recorded too (no rows, the reason), so the matrix says
what installs with what.  ``dpbench audit-suite --libraries`` then merges these rows into
reports/audit_libraries.md for every library version not importable where it runs.
"""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .libraries import RECORDED


@dataclass(frozen=True)
class Environment:
    """One environment: its name, what is installed beside dpbench, the libraries audited, and why it is separate.

    ``report``: the environment of the extras, run last: its audit-suite run audits every library it can
    import and writes reports/audit_libraries.md, merging the rows the others recorded.
    """

    name: str
    requirements: tuple
    libraries: tuple
    why: str
    report: bool = False


#: the library versions that need their own environment, and last the extras (``pip install
#: "dpbench[libraries]"``: the current releases install together), whose run writes the report
ENVIRONMENTS = (
    Environment("tumult-0.20", (".[tumult]",), ("tmlt.core",), "Tumult Core pins numpy < 2"),
    Environment("opendp-0.5", ("opendp==0.5.0", "numpy<2"), ("opendp",),
                "an older OpenDP (measurements without input metric or output measure; np.bool8, gone in numpy 2)"),
    Environment("opendp-0.4", ("opendp==0.4.0", "numpy<2"), ("opendp",),
                "the oldest OpenDP with Python wheels: privacy relations, no privacy maps"),
    Environment("diffprivlib-0.6.0", ("diffprivlib==0.6.0", "scikit-learn<1.2", "numpy<2"), ("diffprivlib",),
                "an older diffprivlib (it imports private scikit-learn functions removed since)"),
    Environment("diffprivlib-0.4.1", ("diffprivlib==0.4.1", "numpy<2"), ("diffprivlib",),
                "diffprivlib 0.4.1 needs scikit-learn < 1.1, which has no wheel for Python 3.11"),
    Environment("python-dp-1.1.4", ("python-dp==1.1.4",), ("python-dp",), "the previous python-dp release"),
    Environment("pipeline-dp-0.2.1", ("pipeline-dp==0.2.1",), ("pipeline-dp",), "an older PipelineDP"),
    Environment("libraries", (".[libraries]",), ("opendp", "diffprivlib", "python-dp", "pipeline-dp"),
                "the extras: the current releases, which install together on numpy 2", report=True),
)


def _tail(text: str, lines: int = 3) -> str:
    return " ".join(" ".join(text.strip().splitlines()[-lines:]).split())[:400]


def run_environment(env: Environment, root: Path, repo: Path, out_dir: Path, log=print) -> dict:
    """Build one environment, audit its libraries, and record the install; returns the recorded file's data."""
    venv = root / env.name
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    spec = list(env.requirements)
    if not any(r.startswith(".") for r in spec):
        spec = ["."] + spec
    reqs = [str(repo) + r[1:] if r.startswith(".") else r for r in spec]
    command = "pip install " + " ".join(shlex.quote(r) for r in spec)
    t0 = time.perf_counter()
    install = subprocess.run([str(python), "-m", "pip", "install", *reqs], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    record = {"command": command, "exit_status": install.returncode, "seconds": round(seconds, 1),
              "why": env.why, "libraries": list(env.libraries)}
    out = out_dir / f"{env.name}.json"
    log(f"{env.name}: install exit {install.returncode} in {seconds:.0f} s")
    if install.returncode != 0:
        record["error"] = _tail(install.stdout + install.stderr)
        data = {"environment": {"name": env.name, "command": "", "python": "", "numpy": "", "libraries": {},
                                "code": "", "date": time.strftime("%Y-%m-%d")}, "rows": []}
    else:
        argv = [str(python), "-m", "dpbench", "audit-suite", "--libraries", "--env-name", env.name,
                "--rows-out", str(out)]
        if env.report:                  # every library it imports, and the report with the others' rows
            argv += ["--out", "reports/audit_libraries.md"]
        else:
            argv += ["--out", str(root / f"{env.name}.md")] + [a for lib in env.libraries for a in ("--library", lib)]
        run = subprocess.run(argv, capture_output=True, text=True, cwd=repo)
        log(run.stdout.strip())
        if run.returncode != 0:
            record["error"] = _tail(run.stderr)
            data = {"environment": {"name": env.name, "command": " ".join(argv[2:]), "python": "", "numpy": "",
                                    "libraries": {}, "code": "", "date": time.strftime("%Y-%m-%d")}, "rows": []}
        else:
            data = json.loads(out.read_text())
    data["environment"]["install"] = record
    out.write_text(json.dumps(data, indent=1) + "\n")
    return data


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify.audit.suites.library_envs",
                                     description="Audit the library versions that need their own environment.")
    parser.add_argument("--root", default="/tmp/dpbench-library-envs", help="where the venvs are made")
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=[e.name for e in ENVIRONMENTS],
                        help="only these environments")
    args = parser.parse_args(argv)
    repo = Path(__file__).resolve().parents[3]
    root = Path(args.root)
    root.mkdir(parents=True, exist_ok=True)
    out_dir = repo / RECORDED
    out_dir.mkdir(parents=True, exist_ok=True)
    for env in ENVIRONMENTS:
        if args.only and env.name not in args.only:
            continue
        run_environment(env, root, repo, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
