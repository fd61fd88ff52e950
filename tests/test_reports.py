"""Bound-validation reports: they build, every claim row carries a computed verdict, results are
shared and reused, and each report records its provenance and build time."""
import json
import re

import pytest

import dpbench
from dpbench.cli import main
from dpbench.reporting import build_report, seed000
from dpbench.reporting.claims import CLAIMS_DIR, Verdict, load_claims
from dpbench.reporting.context import require_seed

VERDICTS = {v.value for v in Verdict}
#: the statuses verify.regret_fits computes for the per-run bound checks
BOUND_STATUSES = {"within", "outside", "inconclusive", "not applicable"}


def test_seed_names_are_normalised():
    assert require_seed("0", ["000", "001"]) == "000"
    assert require_seed("seed001", ["000", "001"]) == "001"
    assert require_seed("SEED_000", ["000"]) == "000"
    with pytest.raises(dpbench.InputError, match="unknown seed '7'"):
        require_seed("7", ["000", "001"])


def test_cli_refuses_a_bad_seed(capsys):
    assert main(["report", "9"]) == 2
    assert "unknown seed" in capsys.readouterr().err


def claim_rows(text: str) -> dict[str, str]:
    """id -> verdict cell of the claims table of a rendered report."""
    section = text.split("## Claims of the paper and their verdicts", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith(("| id ", "|---")):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[cells[0]] = cells[-1]
    return rows


def check_verdicts(path, seed):
    """Every claim of the seed's table is a row whose verdict is one of the four, in the
    markdown and in the JSON written beside it."""
    text = path.read_text()
    claims = load_claims(seed)
    rows = claim_rows(text)
    assert set(rows) == {c.id for c in claims}
    for cid, cell in rows.items():
        word = re.match(r"\*\*([a-z ]+)\*\*", cell)
        assert word and word.group(1) in VERDICTS, (cid, cell)
    data = json.loads(path.with_name(f"seed{seed}_claims.json").read_text())
    assert {r["id"] for r in data} == set(rows) and {r["verdict"] for r in data} <= VERDICTS
    for r in data:
        if r["verdict"] in (Verdict.NOT_CHECKED.value, Verdict.UNOBSERVABLE.value):
            assert r["detail"], r                                   # always with the reason
    return text, data


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
    # the run that exists is tested; the missing experiments make their claims 'not checked'
    assert by_id["fig1a.order"]["verdict"] in (Verdict.REPRODUCED.value, Verdict.REFUTED.value,
                                               Verdict.UNOBSERVABLE.value)
    assert by_id["fig1a.order"]["p_values"] and by_id["fig1a.order"]["holm_p_values"]
    assert by_id["fig1c.order"]["verdict"] == Verdict.NOT_CHECKED.value
    assert "not available" in by_id["fig1c.order"]["detail"]
    # exact constants are decided whatever the horizon
    assert by_id["lemma7.E_s_prime"]["verdict"] == Verdict.REPRODUCED.value
    assert by_id["specA1"]["verdict"] == Verdict.REPRODUCED.value
    assert by_id["dp.audit_power"]["verdict"] == Verdict.REPRODUCED.value        # the audit flags the broken CTB
    assert "seed000_fig9z" in text                                               # the missing experiment is named


def test_report_sections_provenance_and_timing(small_report):
    path, _, _ = small_report
    text = path.read_text()
    for heading in ("## Setup", "## Claims of the paper and their verdicts", "## Supporting evidence",
                    "### Bound checks per run", "### Registered bounds of seed 000", "## Provenance",
                    "## Not yet available", "Quick mode"):
        assert heading in text, heading
    assert f"dpbench {dpbench.__version__}, git commit " in text
    assert "`dpbench report 000 --quick --results" in text and "results.sqlite" in text
    bound_table = text.split("### Bound checks per run", 1)[1].split("###", 1)[0]
    statuses = re.findall(r"\*\*([a-z ]+?)\*\*", bound_table)
    assert statuses and set(statuses) <= BOUND_STATUSES
    timings = json.loads((path.parent / "timings.json").read_text())
    entry = timings["seed000 --quick"]
    assert entry["wall_s"] > 0 and entry["cpu_s"] > 0 and entry["command"].startswith("dpbench report 000")
    assert "| seed000 --quick |" in (path.parent / "timings.md").read_text()
    for png in path.parent.glob("seed000_*.png"):
        assert 1_000 < png.stat().st_size < 200_000


def test_readme_timing_block_is_the_generated_table(tmp_path):
    """The README's per-report times are the builder's table (full-size builds and their total),
    rewritten between its markers, never typed."""
    from dpbench.reporting.context import ReportContext
    from dpbench.reporting.provenance import README_TIMINGS, record_timing
    start, end = README_TIMINGS
    (tmp_path / "reports").mkdir()
    (tmp_path / "README.md").write_text(f"intro\n{start}\ntyped 12 minutes\n{end}\noutro\n")
    for seed, quick, wall in (("000", False, 100.0), ("001", False, 50.0), ("002", True, 7.0)):
        ctx = ReportContext(seed, quick=quick, out_dir=tmp_path / "reports")
        ctx.cells = {"computed": 4, "stored": 0}
        record_timing(ctx, wall, wall / 2)
    readme = (tmp_path / "README.md").read_text()
    block = readme.split(start)[1].split(end)[0]
    assert readme.startswith("intro\n") and readme.endswith("outro\n") and "typed" not in block
    assert "| seed000 | 100 | 50 | 4 |" in block and "| seed001 | 50 | 25 | 4 |" in block
    assert "--quick" not in block and "| total (full size) | 150 | 75 | 8 |" in block
    assert "| seed002 --quick | 7 |" in (tmp_path / "reports" / "timings.md").read_text()


def test_report_reuses_saved_results(small_report):
    _, logs, again = small_report
    assert any("UCB1" in line and "reusing" not in line for line in logs)
    runs = [line for line in again if line.startswith("[")]
    assert runs and all("reusing saved result" in line for line in runs)


@pytest.mark.slow
@pytest.mark.parametrize("seed", ["000", "001", "002", "003", "004"])
def test_every_quick_report_builds(tmp_path, seed):
    """Every report rebuilds in --quick mode; where the seed has a claims table, every claim row
    carries a computed verdict."""
    path = build_report(seed, quick=True, results_dir=tmp_path / "results", out_dir=tmp_path / "reports",
                        log=lambda _: None)
    text = path.read_text()
    assert text.startswith(f"# Seed {seed}") and "## Provenance" in text
    if (CLAIMS_DIR / f"seed{seed}.toml").exists():
        check_verdicts(path, seed)
