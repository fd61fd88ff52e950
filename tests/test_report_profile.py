"""The report-build profiler (``python -m dpbench.reporting.profile``): its timers see every
cell, experiment and store call of a build and leave nothing patched behind; its full-size
estimate scales what depends on the repetitions and keeps what does not."""
import pytest

from dpbench.experiments import runner
from dpbench.experiments.runner import experiment_from_raw
from dpbench.reporting import profile as prof
from dpbench.reporting.context import ReportContext
from dpbench.sweeps.store import ResultStore


def _tiny(reps=6):
    return experiment_from_raw({"name": "tiny", "horizon": 2000, "reps": reps, "seed": 1,
                                "environment": {"name": "bernoulli", "means": [0.9, 0.5]},
                                "runs": [{"label": "UCB1", "policy": "ucb1"}]})


def test_timers_record_cells_experiments_and_io_then_restore(tmp_path):
    originals = (ReportContext.sizes, ReportContext.experiment, runner.run_plan, ResultStore.write_cell)
    rec = prof.Recorder(report="seed000")
    ctx = ReportContext("000", results_dir=tmp_path, out_dir=tmp_path / "reports", log=lambda m: None)
    with prof.instrumented(rec, max_reps=2):
        run = ctx.experiment(_tiny(6))
    assert (ReportContext.sizes, ReportContext.experiment, runner.run_plan, ResultStore.write_cell) == originals
    assert run.results["UCB1"].reps == 2                        # capped
    (cell,) = rec.cells
    assert (cell.experiment, cell.policy, cell.horizon, cell.reps, cell.scale) == ("tiny", "ucb1", 2000, 2, 3.0)
    assert cell.cpu >= 0.0 and cell.compile_cpu >= 0.0
    (exp,) = rec.experiments
    assert (exp.report, exp.name, exp.reps, exp.full_reps) == ("seed000", "tiny", 2, 6)
    assert rec.io[("seed000", "write_cell")].calls == 1 and rec.io_total().cpu > 0.0


def _recorder(report, reps, full, stats_cpu, cells=()):
    rec = prof.Recorder(report=report)
    rec.experiments.append(prof.ExperimentTime(report, "e", 10 ** 6, reps, full, wall=1.0, cpu=100.0))
    rec.cells.extend(cells)
    return rec, {report: (1.0, 100.0 + stats_cpu)}


def test_estimate_scales_kernels_extrapolates_statistics_keeps_compile():
    cell = prof.CellTime("e", "e / A", "ucb1", 10 ** 6, 8, 50 / 8, wall=20.0, cpu=40.0, compile_wall=5.0,
                         compile_cpu=4.0)
    build = _recorder("seed000", 8, 50, 30.0, [cell])          # first build: stats 30 (10 of it warm-up)
    warm = _recorder("seed000", 8, 50, 20.0)                   # rebuild at 8 repetitions: statistics 20
    half = _recorder("seed000", 4, 50, 12.0)                   # rebuild at 4: 12, so 2 s per repetition
    data = prof.summarise(("000",), [build, warm, half], reps=8, threads=2)
    (r,) = data["reports"]
    full = r["full"]
    assert full["run_cpu"] == pytest.approx(40.0 * 50 / 8)
    assert full["statistics"] == pytest.approx(20.0 + 2.0 * (50 - 8))
    assert full["compile"] == pytest.approx(4.0 + 10.0)
    assert full["wall_quiet"] == pytest.approx(full["cpu"] - full["run_cpu"] / 2)
    assert data["policies"]["ucb1"]["pulls"] == pytest.approx(10 ** 6 * 50)
    text = prof.render(data)
    assert "kernel time of ucb1: 250 s" in text and "| seed000 |" in text
    assert [c for c, _ in prof.largest_costs(data)][0] == "kernel time of ucb1"


def test_bad_options_exit_2_with_one_line(capsys):
    for argv in (["--reps", "2"], ["--threads", "0"], ["007"]):
        with pytest.raises(SystemExit) as stop:
            prof.main(argv)
        assert stop.value.code == 2
    assert "--reps must be an integer >= 4" in capsys.readouterr().err
