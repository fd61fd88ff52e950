"""Bound-validation reports: papers are named as the user types them, every report builds in --quick
mode with a computed verdict on every claim row, and the reports guide's timing table is generated.  One
report in detail (sections, provenance, reuse of saved results): tests/papers/seed000/test_report.py;
a user's paper folder: tests/test_paper_folder.py."""

import re

import pytest

import dpbench
from dpbench.cli import main
from dpbench.plugins import paper_folder
from dpbench.reporting import build_report
from dpbench.reporting.paper import find_paper
from tests.papers import check_verdicts


def test_paper_names_are_normalised():
    assert find_paper("0") == ("seed000", None)
    assert find_paper("seed001") == ("seed001", None)
    assert find_paper("SEED_002") == ("seed002", None)
    with pytest.raises(dpbench.InputError, match="unknown paper 'seed07'.*did you mean seed00"):
        find_paper("seed07")


def test_cli_refuses_a_bad_paper(capsys):
    assert main(["report", "9"]) == 2
    assert "unknown paper '9'" in capsys.readouterr().err


def test_guide_timing_block_is_the_generated_table(tmp_path):
    """The reports guide's per-report times are the builder's table (full-size builds and their total),
    rewritten between its markers, never typed."""
    from dpbench.reporting.context import ReportContext
    from dpbench.reporting.provenance import README_TIMINGS, record_timing
    start, end = README_TIMINGS
    (tmp_path / "reports").mkdir()
    guide = tmp_path / "dpbench" / "guides" / "reports.md"
    guide.parent.mkdir(parents=True)
    guide.write_text(f"intro\n{start}\ntyped 12 minutes\n{end}\noutro\n")
    for seed, quick, wall in (("000", False, 100.0), ("001", False, 50.0), ("002", True, 7.0)):
        ctx = ReportContext(f"seed{seed}", quick=quick, out_dir=tmp_path / "reports")
        ctx.cells = {"computed": 4, "stored": 0}
        record_timing(ctx, wall, wall / 2)
    readme = guide.read_text()
    block = readme.split(start)[1].split(end)[0]
    assert readme.startswith("intro\n") and readme.endswith("outro\n") and "typed" not in block
    assert "| seed000 | 100 | 50 | 4 |" in block and "| seed001 | 50 | 25 | 4 |" in block
    assert "--quick" not in block and "| total (full size) | 150 | 75 | 8 |" in block
    assert "| seed002 --quick | 7 |" in (tmp_path / "reports" / "timings.md").read_text()
    later = ReportContext("seed001", out_dir=tmp_path / "reports")      # a later build reusing some cells
    later.cells = {"computed": 3, "stored": 2}
    record_timing(later, 40.0, 20.0)
    block = guide.read_text().split(start)[1].split(end)[0]
    assert "| seed001 | 40 | 20 | 3 | 2 |" in block, block           # never the older build's figure
    later.cells = {"computed": 0, "stored": 5}                          # a rebuild from the store
    record_timing(later, 2.0, 1.0)
    assert "| seed001 | 40 | 20 | 3 | 2 | 2.0 |" in guide.read_text(), guide.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("seed", ["000", "001", "002", "003", "004"])
def test_every_quick_report_builds(tmp_path, seed):
    """Every report rebuilds in --quick mode; where the seed has a claims table, every claim row
    carries a computed verdict."""
    path = build_report(seed, quick=True, results_dir=tmp_path / "results", out_dir=tmp_path / "reports",
                        log=lambda _: None)
    text = path.read_text()
    assert text.startswith(f"# Seed {seed}") and "## Provenance" in text and "Smoke build" in text
    assert "../shared" not in text and not re.search(r"seed_00\d(_001)?\.md", text)
    if (paper_folder(f"seed{seed}") / "claims.toml").exists():
        _, rows = check_verdicts(path, seed)
        decided = ("reproduced", "contradicted", "depends on the reading", "consistent (cannot fail)")
        assert all(r["verdict"] not in decided for r in rows
                   if any(c["random"] for x in r["readings"] for c in x["comparisons"]))
