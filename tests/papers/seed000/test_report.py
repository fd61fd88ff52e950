"""The seed 000 report at quick sizes: every claim row carries a computed verdict, the sections,
provenance and build time are recorded, and a second build reuses the saved results."""
import json
import re

import pytest

import dpbench
from dpbench.papers.seed000 import report as seed000
from dpbench.reporting import build_report
from dpbench.reporting.claims import Verdict
from tests.papers import BOUND_STATUSES, check_verdicts


@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    """The seed 000 report at quick sizes, on one of its experiments plus one that does not exist."""
    tmp = tmp_path_factory.mktemp("report")
    mp = pytest.MonkeyPatch()
    mp.setattr(seed000, "PLAN", {"seed000_fig1a": (None, None), "seed000_fig9z": (None, None)})
    mp.setattr(seed000, "free_plan", lambda: [])
    logs, again = [], []
    path = build_report("0", quick=True, results_dir=tmp / "results", out_dir=tmp / "reports", log=logs.append)
    build_report("000", quick=True, results_dir=tmp / "results", out_dir=tmp / "reports", log=again.append)
    mp.undo()
    return path, logs, again


def test_every_claim_row_has_a_computed_verdict(small_report):
    path, _, _ = small_report
    text, data = check_verdicts(path, "000")
    by_id = {r["id"]: r for r in data}
    # the run that exists is tested (a smoke build decides nothing from it); the experiments left
    # out of the plan make their claims 'not checked'
    assert by_id["fig1a.order"]["verdict"] in (Verdict.INCONCLUSIVE.value, Verdict.UNOBSERVABLE.value)
    assert by_id["fig1a.order"]["readings"][0]["comparisons"] and by_id["fig1a.order"]["family_size"] > 0
    assert by_id["fig1c.order"]["verdict"] == Verdict.NOT_CHECKED.value
    assert "not available" in by_id["fig1c.order"]["detail"]
    # exact constants are decided whatever the horizon
    assert by_id["lemma7.E_s_prime"]["verdict"] == Verdict.REPRODUCED.value
    assert by_id["specA1"]["verdict"] == Verdict.REPRODUCED.value
    # the audit flags the broken CTB; a smoke build says so and decides nothing from it
    assert by_id["dp.audit_power"]["verdict"] == Verdict.INCONCLUSIVE.value
    assert "the evidence read 'reproduced'" in by_id["dp.audit_power"]["detail"]
    assert "seed000_fig9z" in text                                               # the missing experiment is named


def test_report_sections_provenance_and_timing(small_report):
    path, _, _ = small_report
    text = path.read_text()
    for heading in ("## At a glance", "## The paper's claims", "## Figures", "## Setup", "## Claims in detail",
                    "## Bound checks per run", "### Registered bounds of seed000", "## Provenance",
                    "## Not yet available", "Smoke build"):
        assert heading in text, heading
    assert f"dpbench {dpbench.__version__}, git commit " in text
    assert "`dpbench report 000 --quick --results" in text and "results.sqlite" in text
    bound_table = text.split("## Bound checks per run", 1)[1].split("###", 1)[0]
    statuses = re.findall(r"\*\*([a-z ]+?)\*\*", bound_table)
    assert statuses and set(statuses) <= BOUND_STATUSES
    timings = json.loads((path.parent / "timings.json").read_text())
    entry = timings["seed000 --quick"]
    assert entry["wall_s"] > 0 and entry["cpu_s"] > 0 and entry["command"].startswith("dpbench report 000")
    assert "| seed000 --quick |" in (path.parent / "timings.md").read_text()
    pngs = list(path.parent.glob("seed000_*.png"))
    assert {p.name for p in pngs} >= {"seed000_fig1a.png", "seed000_fig1a_bounds.png"}
    for png in pngs:
        assert 1_000 < png.stat().st_size < 200_000
    assert "(#figure-fig1a)" in text.split("## Figures", 1)[0]          # claims link their figure


def test_report_reuses_saved_results(small_report):
    _, logs, again = small_report
    assert any("UCB1" in line and "reusing" not in line for line in logs)
    runs = [line for line in again if line.startswith("[")]
    assert runs and all("reusing saved result" in line for line in runs)


@pytest.mark.parametrize("name", ["seed000", "seed001"])
def test_every_figure_claim_is_decided_under_the_horizon_readings(name):
    """The papers state no horizon: every claim a figure makes (an ordering, a ratio, a minimiser,
    a flattening on the paper's own experiments) depends on the horizon choice, and every margin
    says where it comes from."""
    from pathlib import Path

    from dpbench.reporting.claims.table import TOLERANCE_KEYS
    from dpbench.reporting.paper import load_claims_of, load_paper
    from dpbench.reporting.references import run_references
    paper = load_paper(name)
    figures = {p.stem for p in (paper.folder / "experiments").glob("*.toml")}
    claims = load_claims_of(paper, Path("claims.toml"))
    for c in claims:
        if c.category == "paper" and c.test in ("ratio", "ordering", "argmin", "flattening") and \
                any(ref.experiment in figures for ref in run_references(c)):
            assert "horizon" in c.readings, c.id
        args = c.params.get("args") if isinstance(c.params.get("args"), dict) else {}
        if any(k in c.params or k in args for k in TOLERANCE_KEYS):
            assert c.margin, f"{c.id}: a tolerance without its source"
    assert set(paper.choices["horizon"].readings[i].id for i in range(3)) == {"T1e5", "T1e7", "unstated"}
