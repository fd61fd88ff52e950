"""Paper experiments as TOML data, and the runner that reproduces them."""
from .runner import ExperimentRun, experiment_names, load_experiment, plan_runs, run_experiment
from .spec import Experiment, RunSpec

__all__ = ["Experiment", "ExperimentRun", "RunSpec", "experiment_names", "load_experiment",
           "plan_runs", "run_experiment"]
