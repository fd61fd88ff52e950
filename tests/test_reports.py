"""Bound-validation reports: they build, reuse saved results, and say what is missing or not applicable."""
import re

import pytest

import dpbench
from dpbench.cli import main
from dpbench.reporting import build_report, seed000
from dpbench.reporting.common import require_seed

STATUSES = {"within", "outside", "inconclusive", "consistent", "inconsistent", "not applicable", "confirmed",
            "refuted", "supported", "agree", "differ", "violated", "partly", "round-robin", "learns",
            "as the spec expects", "differs from the spec", "not yet", "differs", "refuted** in part"}


def test_seed_names_are_normalised():
    assert require_seed("0", ["000", "001"]) == "000"
    assert require_seed("seed001", ["000", "001"]) == "001"
    assert require_seed("SEED_000", ["000"]) == "000"
    with pytest.raises(dpbench.InputError, match="unknown seed '7'"):
        require_seed("7", ["000", "001"])


def test_cli_refuses_a_bad_seed(capsys):
    assert main(["report", "9"]) == 2
    assert "unknown seed" in capsys.readouterr().err


@pytest.fixture(scope="module")
def small_report(tmp_path_factory, request):
    """The seed 000 report at quick sizes, on one of its experiments plus one that does not exist."""
    tmp = tmp_path_factory.mktemp("report")
    plan = {"seed000_fig1a": (None, None), "seed000_fig9z": (None, None)}
    mp = pytest.MonkeyPatch()
    mp.setattr(seed000, "PLAN", plan)
    logs = []
    path = build_report("0", quick=True, results_dir=tmp / "results", out_dir=tmp / "reports", log=logs.append)
    again = []
    build_report("000", quick=True, results_dir=tmp / "results", out_dir=tmp / "reports", log=again.append)
    mp.undo()
    return path, logs, again


def test_report_has_claims_bounds_and_errata(small_report):
    path, logs, _ = small_report
    text = path.read_text()
    assert path.name == "seed000.md"
    for heading in ("## Quantitative claims of the paper", "## Bound checks", "### Registered bounds of seed 000",
                    "## Reconstruction log", "## Not yet available", "Quick mode"):
        assert heading in text, heading
    assert "B/UCB1 = 1.6" in text and "L/UCB1 = 8.5" in text          # the paper's numbers, with ours
    assert "seed000.thm6 (Theorem 6)" in text and "auer2002.ucb1" in text
    assert "seed000_fig9z" in text                                     # the missing experiment is named
    for status in re.findall(r"\*\*([a-z ]+?)\*\*", text):
        assert status.strip() in STATUSES or status.strip().startswith(("confirmed", "refuted")), status
    assert "not applicable" in text and "is not logarithmic" in text  # quick sizes: honest n/a, with reason
    for png in path.parent.glob("seed000_*.png"):
        assert 1_000 < png.stat().st_size < 200_000
    assert (path.parent / "seed000_ratios.png").exists()


def test_report_reuses_saved_results(small_report):
    _, logs, again = small_report
    assert any("UCB1" in line and "reusing" not in line for line in logs)
    runs = [line for line in again if line.startswith("[")]
    assert runs and all("reusing saved result" in line for line in runs)


@pytest.mark.slow
@pytest.mark.parametrize("seed", ["000", "001", "002", "003", "004"])
def test_every_quick_report_builds(tmp_path, seed):
    path = build_report(seed, quick=True, results_dir=tmp_path / "results", out_dir=tmp_path / "reports",
                        log=lambda _: None)
    text = path.read_text()
    assert text.startswith(f"# Seed {seed}") and "## Bound checks" in text
