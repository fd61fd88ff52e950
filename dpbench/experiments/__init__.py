"""Paper experiments as TOML data, and the runner that reproduces them."""
from .runner import (Experiment, ExperimentRun, RunSpec, experiment_names, load_experiment,
                     plan_runs, run_experiment)

__all__ = ["Experiment", "ExperimentRun", "RunSpec", "experiment_names", "load_experiment",
           "plan_runs", "run_experiment"]
