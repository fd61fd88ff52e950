"""The README's promises run: every code block of README.md and of the guides (dpbench/guides/), as written.

How blocks are read, marked and run: :mod:`tests.readme_blocks`.  The default run executes
the unmarked blocks (and the slow ones that carry a reduction, reduced as their comment
says) in order in one temporary folder per document; ``python -m pytest -m slow
tests/test_readme.py`` runs every block not skipped, as written, in a folder of its own.
A block that depends on an earlier one finds that block's files; a test selected alone
(``-k``) first runs the blocks before it.  The blocks are collected when the test run
starts, so a block added to the README is run without any change here.
"""
from __future__ import annotations

import pytest

from tests import readme_blocks as rb

_ALL = [b for doc in rb.DOCUMENTS for b in rb.blocks(doc)]


class _Chain:
    """The blocks of one document run in order in one folder (one chain per document and run)."""

    def __init__(self, document: str, slow: bool, folder, bin_dir):
        self.blocks = [b for b in _ALL if b.document == document and b.runs_in(slow)]
        self.slow = slow
        self.folder = folder
        self.bin_dir = bin_dir
        self.env = rb.environment(bin_dir)
        self.done: dict[str, rb.Outcome] = {}

    def run_through(self, block: rb.Block) -> rb.Outcome:
        """Run the blocks before ``block`` not run yet (a failed one does not stop the others:
        blocks rarely depend on each other), then ``block``."""
        for earlier in self.blocks:
            if earlier.id not in self.done:
                self.done[earlier.id] = rb.run_block(earlier, self.folder, self.env, slow=self.slow)
            if earlier is block:
                return self.done[block.id]
        raise AssertionError(f"{block.id} is not run in this mode")

    def failed_before(self, block: rb.Block) -> list[str]:
        ids = [b.id for b in self.blocks]
        return [b.id for b in self.blocks[:ids.index(block.id)] if self.done[b.id].returncode != b.exit_status]


_CHAINS: dict = {}


def _chain(document, slow, tmp_path_factory) -> _Chain:
    """The chain of ``document``; a document that runs after another shares that one's folder and
    first runs all of its blocks (``runs after:``, :func:`tests.readme_blocks.runs_after`)."""
    key = (document, slow)
    if key not in _CHAINS:
        before = rb.runs_after(document)
        if before is not None:
            first = _chain(before, slow, tmp_path_factory)
            for block in first.blocks:
                first.run_through(block)
            folder, bin_dir = first.folder, first.bin_dir
        else:
            name = f"{document.replace('/', '_')}-{'slow' if slow else 'default'}"
            folder, bin_dir = tmp_path_factory.mktemp(name), tmp_path_factory.mktemp("bin")
        _CHAINS[key] = _Chain(document, slow, folder, bin_dir)
    return _CHAINS[key]


def _check(block: rb.Block, slow: bool, tmp_path_factory) -> None:
    chain = _chain(block.document, slow, tmp_path_factory)
    outcome = chain.run_through(block)
    if outcome.returncode != block.exit_status:
        earlier = chain.failed_before(block)
        pytest.fail(f"{block.id}: the {block.language} block exited with status {outcome.returncode}, "
                    f"not {block.exit_status}"
                    + (f" (earlier blocks that failed: {', '.join(earlier)})" if earlier else "")
                    + f" in {chain.folder}\n--- block as run ---\n{block.code_for(slow)}--- output (last 4000 "
                    f"characters) ---\n{outcome.output[-4000:]}", pytrace=False)


@pytest.mark.parametrize("block", [b for b in _ALL if b.runs_in(slow=False)], ids=lambda b: b.id)
def test_block_runs(block, tmp_path_factory):
    """Default run: unmarked blocks as written, slow ones with a reduction reduced."""
    _check(block, False, tmp_path_factory)


@pytest.mark.slow
@pytest.mark.parametrize("block", [b for b in _ALL if b.runs_in(slow=True)], ids=lambda b: b.id)
def test_block_runs_as_written(block, tmp_path_factory):
    """Slow run: every block not skipped, as written."""
    _check(block, True, tmp_path_factory)


# ------------------------------------------------------------ the harness itself
_DOC = """intro
<!-- readme-test: slow: long; run without the install; the default run uses --horizon 1e4 --reps 2 -->
```bash
python3 -m pip install . && python3 -m dpbench run seed000_fig1a
dpbench sweep --name g --policy ucb1 \\
    --horizon 100000 --reps 100 --seed 1   # a comment
echo done
```
<!-- example: mine.py -->
```python
X = 1
```
```python
r = simulate("ucb1", horizon=10**6, reps=50)
```
<!-- readme-test: skip: needs a cluster -->
```bash
dask scheduler
```
<!-- readme-test: exit 1: violated -->
```bash
dpbench audit x
```
```text
a/  b/
```
<!-- example: sub/dir/data.toml -->
```toml
x = 1
```
```json
{"a": 1}
```
"""


def test_blocks_are_read_with_their_marks_and_reductions(tmp_path):
    slow, example, python, skipped, refused, picture, data_file, data = rb.blocks("DOC.md", _DOC)
    assert data_file.mode == "file" and data_file.filename == "sub/dir/data.toml" and data_file.runs_in(slow=False)
    assert data.language == "json" and not data.runs_in(slow=True)
    assert rb.run_block(data_file, tmp_path, {}, slow=False).returncode == 0
    assert (tmp_path / "sub" / "dir" / "data.toml").read_text() == "x = 1\n"
    assert [b.line for b in (slow, example, python, skipped, refused, picture)] == [3, 10, 13, 17, 21, 24]
    assert refused.mode == "run" and refused.exit_status == 1 and skipped.exit_status == 0
    assert slow.mode == "slow" and slow.reduction == ("1e4", "2") and slow.without_install
    assert slow.code_for(slow=True).splitlines()[0] == "python3 -m dpbench run seed000_fig1a"
    assert slow.code_for(slow=False).splitlines() == [
        "python3 -m dpbench run seed000_fig1a --horizon 1e4 --reps 2",
        "dpbench sweep --name g --policy ucb1 --seed 1 --horizon 1e4 --reps 2  # a comment",
        "echo done"]
    assert example.mode == "file" and example.filename == "mine.py" and example.runs_in(slow=False)
    assert python.mode == "run" and python.code_for(slow=False) == python.code
    assert skipped.mode == "skip" and skipped.reason == "needs a cluster"
    assert not skipped.runs_in(slow=True) and not picture.runs_in(slow=True)
    assert slow.runs_in(slow=False)          # reduced in the default run
    slow.reduction = None
    assert not slow.runs_in(slow=False) and slow.runs_in(slow=True)


@pytest.mark.parametrize("text,message", [
    ("```\nls\n```\n", "fence language '' unknown; label every fence python, bash"),
    ("```bash\nls\n", "never closed"),
    ("<!-- readme-test: skip -->\n```bash\nls\n```\n", "'skip: REASON', 'slow: REASON' or"),
    ("<!-- readme-test: later: one day -->\n```bash\nls\n```\n", "'skip: REASON', 'slow: REASON' or"),
    ("<!-- example: ../x.py -->\n```python\nX = 1\n```\n", "a path inside the folder"),
    ("<!-- readme-test: slow: long -->\n```toml\nx = 1\n```\n", "a toml block is never run"),
])
def test_unreadable_markup_is_an_error(text, message):
    with pytest.raises(rb.MarkupError, match=message):
        rb.blocks("DOC.md", text)


def test_the_readme_and_guides_are_read_whole():
    """Every fenced block of the README and the guides is seen (none hidden by a fence the parser
    misreads), and the ones run by default include the Python API, the store read-back, the plugin
    example and the feasibility command."""
    found = []
    for doc in rb.DOCUMENTS:
        text = (rb.ROOT / doc).read_text()
        found += rb.blocks(doc)
        fences = sum(1 for line in text.splitlines() if line.lstrip().startswith("```")) // 2
        assert len([b for b in found if b.document == doc]) == fences, doc
    assert len(rb.DOCUMENTS) > 5 and "dpbench/guides/auditing.md" in rb.DOCUMENTS
    default = "".join(b.code for b in found if b.runs_in(slow=False))
    for promise in ("dpbench.simulate(", "ResultStore.open(", "register_policy(", "dpbench feasibility"):
        assert promise in default, promise


# ------------------------------------------------------------ the README's test timing
def test_the_test_timing_is_written_from_a_measured_run(tmp_path):
    """The README's test time sits between the markers `python -m tests.timing` rewrites, from
    the JUnit report of a measured run (never typed); once reports/test_timing.json exists, the
    README says what it says."""
    import json

    from tests import timing
    xml = tmp_path / "junit.xml"
    xml.write_text('<testsuites><testsuite><testcase classname="tests.test_a" name="test_x[1]" time="12.5"/>'
                   '<testcase classname="tests.test_a" name="test_y" time="0.2"><skipped/></testcase>'
                   '<testcase classname="tests.sub.test_b" name="test_z" time="3"><failure/></testcase>'
                   '</testsuite></testsuites>')
    tests = timing.read_junit(xml)
    assert tests == [{"id": "tests/test_a.py::test_x[1]", "seconds": 12.5, "outcome": "passed"},
                     {"id": "tests/test_a.py::test_y", "seconds": 0.2, "outcome": "skipped"},
                     {"id": "tests/sub/test_b.py::test_z", "seconds": 3.0, "outcome": "failed"}]
    record = {"wall_s": 211.4, "counts": {"passed": 1, "failed": 1, "error": 0, "skipped": 1}, "returncode": 1,
              "command": "python3 -m pytest -n auto --dist loadfile", "date": "2026-11-24", "cores": 2,
              "load_at_start": 0.05, "cold": True, "cached_kernel_files": 0, "commit": "abc", "tests": tests}
    start, end = timing.README_MARKERS
    readme = tmp_path / "README.md"
    readme.write_text(f"run, {start}took 8 min 47 s, typed{end}; done\n")
    timing.write_readme(readme, record)
    assert readme.read_text() == (f"run, {start}took 3 min 31 s (1 passed, 1 failed), cold (no cached kernels), "
                                  "on 2 cores on 2026-11-24 (commit abc, load 0.05 at the start; slowest tests: "
                                  f"[reports/test_timing.md](reports/test_timing.md)){end}; done\n")
    # the CPU the time was taken on, where the record keeps it
    with_machine = timing.sentence({**record, "machine": "AMD EPYC, x86_64, 2 cores"})
    assert "on 2 cores (AMD EPYC, x86_64, 2 cores) on 2026-11-24" in with_machine
    table = timing.markdown(record, slowest=2)
    assert "| 12.5 | `tests/test_a.py::test_x[1]` | passed |\n| 3.0 | `tests/sub/test_b.py::test_z` | failed |" \
        in table and "test_y" not in table

    text = (rb.ROOT / "README.md").read_text()
    assert text.count(start) == 1 and text.count(end) == 1, "the README lost its test-timing markers"
    measured = rb.ROOT / timing.JSON
    if measured.exists():
        written = text[text.index(start) + len(start):text.index(end)]
        assert written == timing.sentence(json.loads(measured.read_text())), \
            "the README's test time differs from reports/test_timing.json: run python -m tests.timing --report-only"
