"""Paper experiments as TOML data, and the runner that reproduces them."""
from .runner import ExperimentRun, experiment_names, load_experiment, plan_runs, run_experiment
from .spec import Experiment, RunSpec, grid_experiment

__all__ = ["Experiment", "ExperimentRun", "RunSpec", "experiment_names", "grid_experiment", "load_experiment",
           "plan_runs", "run_experiment"]
