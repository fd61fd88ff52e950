"""The sequential audit (``budget``): its budget checked before anything runs, an early stop on a
gross violation, the budget spent on a correct mechanism without a rejection, the alpha spent
per round, and no change at all without a budget."""
import math

import pytest

import verify
from dpbench.cli import main
from dpbench.validation import InputError
from verify.audit.layers import shares
from verify.audit.stages.certify import spent_alpha
from verify.audit.stages.validate import FIRST_ROUND, Budget, parse_budget
from verify.audit.suites import planted

#: a correct float-safe Laplace at its exact eps, and the same with half the scale (true eps 2)
CORRECT = planted.generator_laplace(1.0, True)
HALF_SCALE = planted.generator_laplace(2.0, True)


def never_called(x, n, seed):
    raise AssertionError("the mechanism ran before the budget was checked")


@pytest.mark.parametrize("value, parsed", [
    ("30s", Budget(seconds=30.0)), (" 2.5S ", Budget(seconds=2.5)), (2e6, Budget(samples=2_000_000)),
    ("2e6", Budget(samples=2_000_000)), (150000, Budget(samples=150_000)), (None, None)])
def test_budget_forms(value, parsed):
    assert parse_budget(value) == parsed


@pytest.mark.parametrize("value", ["abc", "-3s", "0s", "nans", "infs", "0", 0, -5, 1.5, "30m", "2e6x", True,
                                   [1], "inf", float("nan")])
def test_bad_budget_is_an_input_error_before_any_sample(value):
    with pytest.raises(InputError, match=r"^budget must be SECONDS with an 's' suffix .* or a number of samples"):
        verify.audit(never_called, 0.0, 1.0, eps=1.0, n=20_000, budget=value)


def test_budget_too_small_for_selection_names_the_need():
    with pytest.raises(InputError, match=r"budget=1e\+04 samples cannot cover selection.*budget >= 5\.2e\+04"):
        verify.audit(never_called, 0.0, 1.0, eps=1.0, n=20_000, budget=10_000)


@pytest.mark.parametrize("budget", ["abc", "0", "-1s"])
def test_cli_bad_budget_exits_2_with_one_line(capsys, budget):
    status = main(["audit", "no_such_module:nothing", "--eps", "1", f"--budget={budget}", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("dpbench: error: budget must be SECONDS"), err


def test_gross_violation_stops_after_the_first_rounds():
    """Half the Laplace scale (true eps 2 against a claim of 1): certified after a round or two,
    with a small fraction of the budget."""
    budget = 50_000_000
    res = verify.audit(HALF_SCALE, 0.0, 1.0, eps=1.0, n=20_000, seed=1, budget=budget)
    seq = res.sequential
    assert res.violated and res.law.violated and res.law.eps_lower_bound > 1.0
    assert seq.stopped_early and not seq.budget_exhausted
    assert seq.rounds <= 3 and seq.n_certify == FIRST_ROUND * (2 ** seq.rounds - 1) == res.n
    assert seq.samples == res.n_samples < budget / 100
    assert "stopped early: a violation was certified" in str(res)


def test_correct_mechanism_spends_the_budget_and_is_not_rejected():
    budget = 400_000
    res = verify.audit(CORRECT, 0.0, 1.0, eps=1.0, n=20_000, seed=2, budget=budget)
    seq = res.sequential
    assert not res.violated and seq.budget_exhausted and not seq.stopped_early
    assert seq.rounds >= 6 and res.n_samples == seq.samples <= budget
    assert budget - seq.samples < 2 * 2 * FIRST_ROUND      # spent up to less than one first round
    # every statement of the stopping round is made at the alpha it spends: alpha * 6 / (pi^2 k^2)
    law_share = shares({res.law.layer, res.floating_point.layer})[res.law.layer]
    assert res.law.alpha == pytest.approx(0.05 * law_share * 6 / (math.pi ** 2 * seq.rounds ** 2))
    assert 0.8 < res.law.eps_lower_bound < 1.0
    assert res.to_dict()["sequential"]["budget_exhausted"] is True
    # the summary names each layer's whole share (not the last round's level), and the resolution
    # is that of the outputs certified, at the last round's level
    text = str(res)
    assert f"law {0.05 * law_share:.3g}, floating point {0.05 * (1 - law_share):.3g}; spent over rounds" in text
    from verify.audit import statistics as st
    assert res.eps_ceiling == pytest.approx(st.eps_ceiling(seq.n_certify, res.law.alpha))


def test_seconds_budget_runs_at_least_one_round():
    res = verify.audit(CORRECT, 0.0, 1.0, eps=1.0, n=20_000, seed=3, budget="0.001s")
    assert res.sequential.rounds == 1 and res.sequential.budget_exhausted and res.n == FIRST_ROUND


def test_alpha_spending_sums_to_one():
    assert sum(spent_alpha(k) for k in range(1, 200_001)) == pytest.approx(1.0, abs=1e-5)
    assert all(spent_alpha(k) > 0 for k in (1, 10, 1000))


def test_without_budget_nothing_changes():
    def fixed(r):
        d = r.to_dict()
        for key in ("seconds", "samples_per_second", "info"):
            d.pop(key)
        return d
    plain = verify.audit(HALF_SCALE, 0.0, 1.0, eps=1.0, n=20_000, seed=4)
    none = verify.audit(HALF_SCALE, 0.0, 1.0, eps=1.0, n=20_000, seed=4, budget=None)
    assert plain.sequential is None and plain.n == 20_000 and "sequential" not in str(plain)
    assert fixed(plain) == fixed(none)


def test_planted_report_gives_the_samples_each_bug_needed(monkeypatch):
    """The planted-bug report's sequential table, on one bug: caught in fewer samples than the
    fixed-n audit drew (its budget)."""
    from verify.audit.suites import report
    case = next(c for c in planted.planted_bugs() if c.name == "laplace_half_scale")
    monkeypatch.setattr(report, "planted_bugs", lambda: [case])
    rows = report.audit_planted(n=100_000)
    seq = report.audit_planted_sequential(rows, n=100_000)
    assert seq[0].violated and seq[0].sequential.samples < rows[0][1].n_samples
    text = "\n".join(report.planted_section(rows, 1.0, 1.0, seq))
    assert "## Planted bugs caught sequentially" in text
    row = next(line for line in text.splitlines() if line.startswith("| laplace_half_scale | law |"))
    assert f"| {seq[0].sequential.n_certify:,} | {seq[0].sequential.samples:,} |" in row
    assert "Caught 1 of 1 bugs sequentially" in text


def test_the_suite_and_the_planted_report_audit_the_planted_bugs_alike(monkeypatch, tmp_path):
    """`dpbench audit-suite` and `--planted-only` audit the planted bugs at the same seed (the
    command's), and the tables say which; a layer that holds with a bound above the claim says why."""
    from types import SimpleNamespace

    from verify.audit.suites import report
    case = next(c for c in planted.planted_bugs() if c.name == "laplace_half_scale")
    monkeypatch.setattr(report, "planted_bugs", lambda: [case])
    monkeypatch.setattr(report, "cases", lambda: [])
    monkeypatch.setattr(report, "audit_catalog", lambda seed: [])
    monkeypatch.setattr(report, "audit_planted_sequential", lambda rows, seed: [])
    seeds = []
    real = report.audit_planted
    monkeypatch.setattr(report, "audit_planted", lambda seed: seeds.append(seed) or real(n=20_000, seed=seed))
    report.write_suite(tmp_path / "suite.md", seed=3)
    report.write_planted(tmp_path / "planted.md", seed=3)
    assert seeds == [3, 3]
    assert all("alpha = 0.01, seed 3," in (tmp_path / f).read_text() for f in ("suite.md", "planted.md"))
    assert all("Provenance: dpbench " in (tmp_path / f).read_text() and ", git commit " in (tmp_path / f).read_text()
               for f in ("suite.md", "planted.md"))
    fp = SimpleNamespace(status="not rejected", violated=False, eps_lower_bound=5.182, layer="floating_point",
                         unbounded=False)
    assert report.layer_cell(fp, 1.0) == "holds (5.182: the law's excess, not the arithmetic's)"
    assert report.layer_cell(SimpleNamespace(**{**vars(fp), "eps_lower_bound": 0.5}), 1.0) == "holds (0.500)"
