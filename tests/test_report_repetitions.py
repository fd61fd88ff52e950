"""Every configuration of the five reports runs the repetitions its claims need: at least 50 at
T <= 1e6 and at least 20 beyond (the papers used 50-100), and seed 000's Fig. 1(c, d) reach
T = 1e7 as the paper's figures do.  The sizes are read from the reports themselves: each build
runs with its experiments recorded instead of run, and stops before its first measurement."""
import pytest

from dpbench.experiments.runner import Experiment, experiment_names, load_experiment
from dpbench.reporting import SEEDS, build_report, measures
from dpbench.reporting.context import ReportContext
from dpbench.reporting.markdown import Report


def minimum_reps(horizon: int) -> int:
    return 50 if horizon <= 10 ** 6 else 20


class _Planned(Exception):
    pass


@pytest.fixture(scope="module")
def plan():
    """(seed, experiment, T, repetitions) of every experiment a full report asks for."""
    asked = []

    def record(self, name, horizon=None, reps=None):
        if isinstance(name, Experiment):
            exp = name
        else:
            exp = load_experiment(name if name in experiment_names() else self.folder / "checks" / f"{name}.toml")
        asked.append((self.seed, exp.name, *self.sizes(exp, horizon, reps)))

    def stop(*args, **kwargs):
        raise _Planned

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ReportContext, "experiment", record)
        mp.setattr(Report, "section", stop)                # seeds 000, 001: "Setup" follows the runs
        mp.setattr(measures, "evidence_of", stop)          # seeds 002-004: the measurements follow them
        for seed in SEEDS:
            with pytest.raises(_Planned):
                build_report(seed, log=lambda msg: None)
    return asked


def test_every_report_configuration_has_the_repetitions_its_claims_need(plan):
    assert {seed for seed, *_ in plan} == set(SEEDS)
    short = [(seed, name, t, r) for seed, name, t, r in plan if r < minimum_reps(t)]
    assert not short, f"fewer repetitions than the claims need: {short}"


def test_seed000_fig1c_and_fig1d_reach_the_papers_horizon(plan):
    sizes = {name: t for _, name, t, _ in plan}
    assert sizes["seed000_fig1c"] == sizes["seed000_fig1d"] == 10 ** 7


@pytest.mark.parametrize("name", experiment_names())
def test_every_shipped_experiment_file_has_them_too(name):
    exp = load_experiment(name)
    assert exp.reps >= minimum_reps(exp.horizon), (name, exp.horizon, exp.reps)
