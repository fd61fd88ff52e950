"""The code blocks of the README and of the guides (dpbench/guides/*.md), and how the README test runs them.

A fenced block's language says what it is: ``python`` (run by this interpreter in a fresh
process, as ``python -c``: the folder is importable, as in an interactive session started
there), ``bash`` (run by ``bash -e -o pipefail``: every command must exit 0), ``text`` (not
code: a file tree, a diagram) or a data format (``toml``, ``json``: not run; written into the
folder when it is an example file).  An unlabelled fence is an error: the test cannot tell a
command from a picture.

An HTML comment on the line before a fence says how the test treats it, in words a reader
of the source understands (it does not show on the rendered page)::

    <!-- example: myalgo.py -->                     the block is that file's content: written
                                                    into the folder (a relative path, its folders
                                                    made), not run
    <!-- readme-test: skip: REASON -->              never run (the reason is required)
    <!-- readme-test: exit 1: REASON -->            run; it must exit with that status (a command
                                                    whose point is a refusal or a violation)
    <!-- readme-test: slow: REASON -->              run only in the slow run (-m slow)
    <!-- readme-test: slow: REASON; the default run uses --horizon H --reps R -->
                                                    the slow run runs it as written, the default
                                                    run with that horizon and those repetitions
                                                    (every dpbench run/sweep/simulate command of a
                                                    bash block, every horizon=/reps= keyword of a
                                                    python block)

``without the install`` anywhere in a readme-test comment drops a leading
``python3 -m pip install ... &&`` of each command (the test runs the checkout it is
installed from).  Unmarked blocks run in the default run as written.  All blocks of one
document run in order in one temporary folder, so a block may use the files an earlier one
wrote (``dpbench-results/``, ``myalgo.py``); the slow run runs every block not skipped, in a
folder of its own.  A guide that builds on another's files says so on a line of its own::

    <!-- readme-test: runs after: dpbench/guides/extending.md -->

its blocks then run in that document's folder, after all of that document's blocks.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the documents whose blocks are run
#: the README and every guide (dpbench/guides/*.md), each run in a folder of its own
DOCUMENTS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "dpbench" / "guides").glob("*.md"))]
#: fence languages: the ones run, and the ones that are never run (pictures, data files)
RUN_LANGUAGES = ("python", "bash")
LANGUAGES = (*RUN_LANGUAGES, "text", "toml", "json")

_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[^`\s]*)\s*$")
_AFTER = re.compile(r"^\s*<!--\s*readme-test:\s*runs after:\s*(?P<document>\S+)\s*-->\s*$", re.M)
_MARK = re.compile(r"^\s*<!--\s*(?P<kind>readme-test|example):\s*(?P<text>.*?)\s*-->\s*$")
_REDUCTION = re.compile(r"the default run uses --horizon (?P<horizon>\S+) --reps (?P<reps>\S+)")
_INSTALL = re.compile(r"^\s*python3? -m pip install [^&;]*&&\s*")
_SIZED = re.compile(r"(?:\bdpbench|-m dpbench)\s+(?:run|sweep|simulate)\b")


@dataclass
class Block:
    """One fenced block: where it is, its language, its code and how the test treats it."""

    document: str
    line: int                      # line of the opening fence (1-based)
    language: str                  # "python", "bash" or "text"
    code: str
    mode: str = "run"              # "run", "slow", "skip", "file"
    reason: str = ""
    filename: str | None = None    # mode "file": the file it is written to
    reduction: tuple[str, str] | None = None      # (horizon, reps) in the default run
    without_install: bool = False
    exit_status: int = 0           # the status the block must exit with

    @property
    def id(self) -> str:
        return f"{self.document}:{self.line}"

    def runs_in(self, slow: bool) -> bool:
        """Whether the default run (slow=False) or the slow run executes it (a file is written in both)."""
        if self.mode == "skip" or (self.language not in RUN_LANGUAGES and self.mode != "file"):
            return False
        return slow or self.mode in ("run", "file") or self.reduction is not None

    def code_for(self, slow: bool) -> str:
        """The code as the run executes it: as written, or with the marked reduction."""
        code = self.code
        if self.without_install:
            code = "\n".join(_INSTALL.sub("", line) for line in code.splitlines()) + "\n"
        if slow or self.reduction is None:
            return code
        horizon, reps = self.reduction
        if self.language == "python":
            code = re.sub(r"\bhorizon=[\w.*]+", f"horizon={horizon}", code)
            return re.sub(r"\breps=[\w.*]+", f"reps={reps}", code)
        return "\n".join(_reduce_command(c, horizon, reps) for c in _join_continuations(code)) + "\n"


class MarkupError(ValueError):
    """A document's block or marker the test cannot interpret."""


def runs_after(document: str, text: str | None = None) -> str | None:
    """The document whose folder and blocks ``document`` builds on (its ``runs after:`` line), or None."""
    found = _AFTER.search(text if text is not None else (ROOT / document).read_text())
    if found and found.group("document") not in DOCUMENTS:
        raise MarkupError(f"{document}: 'runs after: {found.group('document')}' names no document of the test")
    return found.group("document") if found else None


def blocks(document: str, text: str | None = None) -> list[Block]:
    """Every fenced block of ``document`` (a path relative to the repository root)."""
    lines = (text if text is not None else (ROOT / document).read_text()).splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang, indent = i, m.group("lang"), len(m.group("indent"))
        end = next((j for j in range(i + 1, len(lines)) if re.match(r"^\s*```\s*$", lines[j])), None)
        if end is None:
            raise MarkupError(f"{document}:{start + 1}: the fence is never closed")
        if lang not in LANGUAGES:
            raise MarkupError(f"{document}:{start + 1}: fence language {lang!r} unknown; label every "
                              "fence python, bash (run by the README test), text (not code) or toml, json "
                              "(data; an example file when marked <!-- example: PATH -->)")
        code = textwrap.dedent("\n".join(line[indent:] if line[:indent].isspace() else line
                                         for line in lines[start + 1:end])) + "\n"
        block = Block(document, start + 1, lang, code)
        _apply_marks(block, _marks_before(lines, start))
        out.append(block)
        i = end + 1
    return out


def _marks_before(lines, start) -> list[tuple[str, str]]:
    marks = []
    j = start - 1
    while j >= 0 and (m := _MARK.match(lines[j])):
        marks.append((m.group("kind"), m.group("text")))
        j -= 1
    return marks


def _apply_marks(block: Block, marks) -> None:
    for kind, text in marks:
        if kind == "example":
            name = text.strip()
            if not name or Path(name).is_absolute() or ".." in Path(name).parts:
                raise MarkupError(f"{block.id}: an example file is a path inside the folder (got {name!r})")
            block.mode, block.filename = "file", name
            continue
        head, _, reason = text.partition(":")
        head = head.strip()
        status = re.fullmatch(r"exit (\d+)", head)
        if not (head in ("skip", "slow") or status) or not reason.strip():
            raise MarkupError(f"{block.id}: readme-test comments read 'skip: REASON', 'slow: REASON' or "
                              f"'exit N: REASON' (got {text!r})")
        if status:
            block.exit_status = int(status.group(1))
        else:
            block.mode = head
        block.reason = reason.strip()
        block.without_install = "without the install" in reason
        found = _REDUCTION.search(reason)
        if found:
            block.reduction = (found.group("horizon"), found.group("reps"))
        if block.language not in RUN_LANGUAGES:
            raise MarkupError(f"{block.id}: a {block.language} block is never run; it needs no readme-test comment")


def _join_continuations(code: str) -> list[str]:
    """The block's commands, a backslash-continued command on one line (comments kept)."""
    out, current = [], ""
    for line in code.splitlines():
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        out.append(current + line)
        current = ""
    if current:
        out.append(current)
    return out


def _reduce_command(command: str, horizon: str, reps: str) -> str:
    """A dpbench run/sweep/simulate command with --horizon and --reps set (replaced or added
    before any comment); other commands unchanged."""
    if not _SIZED.search(command):
        return command
    body, hash_, comment = command.partition(" #")
    body = re.sub(r"\s--(?:horizon|reps)[ =]\S+", "", body)
    return f"{' '.join(body.split())} --horizon {horizon} --reps {reps}" + (f"  # {comment.strip()}" if hash_ else "")


# -------------------------------------------------------------------- running
@dataclass
class Outcome:
    block: Block
    returncode: int
    output: str
    seconds: float


def environment(bin_dir: Path) -> dict:
    """The environment blocks run in: ``python3``, ``python`` and ``dpbench`` on the PATH are
    this interpreter (whatever the PATH of the test run), plotting off-screen, no plugins."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    python = shlex.quote(sys.executable)      # scripts, not links: a link to a venv's python leaves the venv
    for name, line in (("python3", f"exec {python} \"$@\""), ("python", f"exec {python} \"$@\""),
                       ("dpbench", f"exec {python} -m dpbench \"$@\"")):
        (bin_dir / name).write_text(f"#!/bin/sh\n{line}\n")
        (bin_dir / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "DPBENCH_PLUGINS"}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p))
    return env


#: the longest a block may run: in the default run (blocks reduced to a test's size: a block that
#: runs longer is waiting for something, e.g. a server that never exits) and in the slow run
DEFAULT_TIMEOUT, SLOW_TIMEOUT = 300.0, 1800.0


def run_block(block: Block, folder: Path, env: dict, *, slow: bool, timeout: float | None = None) -> Outcome:
    """Run (or write) one block in ``folder`` (``timeout``: DEFAULT_TIMEOUT or SLOW_TIMEOUT)."""
    timeout = (SLOW_TIMEOUT if slow else DEFAULT_TIMEOUT) if timeout is None else timeout
    code = block.code_for(slow)
    t0 = time.perf_counter()
    if block.mode == "file":
        target = folder / block.filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code)
        return Outcome(block, 0, "", 0.0)
    if block.language == "python":
        argv = [sys.executable, "-c", code]
    else:
        argv = ["bash", "-e", "-o", "pipefail", "-c", code]
    try:
        proc = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=timeout)
        rc, output = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as err:
        rc, output = -1, f"timed out after {timeout:g} s\n{err.stdout or ''}{err.stderr or ''}"
    return Outcome(block, rc, output, time.perf_counter() - t0)
