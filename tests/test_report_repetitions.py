"""Every configuration of the five reports runs the repetitions its claims need: at least 50 at
T <= 1e6 and at least 20 beyond (the papers used 50-100), and seed 000's Fig. 1(c, d) reach
T = 1e7 as the paper's figures do.  The sizes are read from the reports themselves: each build
runs with its experiments recorded instead of run, and stops before its first measurement."""
import pytest

from dpbench.experiments.runner import experiment_names, load_experiment
from dpbench.reporting import installed_papers
from dpbench.reporting.context import ReportContext
from dpbench.reporting.paper import _display, load_claims_of, load_paper, plan_of


def minimum_reps(horizon: int) -> int:
    return 50 if horizon <= 10 ** 6 else 20


@pytest.fixture(scope="module")
def plan():
    """(paper, experiment, T, repetitions) of every run a full report plans (nothing runs)."""
    asked = []
    for name in installed_papers():
        paper = load_paper(name)
        ctx = ReportContext(name, log=lambda msg: None)
        for planned in plan_of(paper, ctx, load_claims_of(paper, _display(paper))).values():
            if planned.experiment is not None:
                asked.append((name.removeprefix("seed"), planned.experiment.name,
                              *ctx.sizes(planned.experiment, planned.horizon, planned.reps)))
    return asked


def test_every_report_configuration_has_the_repetitions_its_claims_need(plan):
    assert {seed for seed, *_ in plan} == {name.removeprefix("seed") for name in installed_papers()}
    short = [(seed, name, t, r) for seed, name, t, r in plan if r < minimum_reps(t)]
    assert not short, f"fewer repetitions than the claims need: {short}"


def test_seed000_fig1c_and_fig1d_reach_the_papers_horizon(plan):
    sizes = {name: t for _, name, t, _ in plan}
    assert sizes["seed000_fig1c"] == sizes["seed000_fig1d"] == 10 ** 7


@pytest.mark.parametrize("name", experiment_names())
def test_every_shipped_experiment_file_has_them_too(name):
    exp = load_experiment(name)
    assert exp.reps >= minimum_reps(exp.horizon), (name, exp.horizon, exp.reps)
