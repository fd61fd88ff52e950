"""Sweeps: grids of cells run on Dask (or in this process), stored in a resumable SQLite store.

- :mod:`.grid`: configurations, cells and their ids; command-line values.
- :mod:`.store`: the result store (one SQLite file per experiment or sweep).
- :mod:`.dask_backend`: an embedded LocalCluster or an existing cluster.

The runner (:func:`dpbench.experiments.run_experiment`) drives them; ``dpbench run
EXPERIMENT --scheduler ...`` and ``dpbench sweep ...`` are the command lines.
"""
from .grid import DEFAULT_CELL_REPS, Cell, Config, missing_ranges
from .store import FILENAME, ResultStore, StoreError

__all__ = ["Cell", "Config", "DEFAULT_CELL_REPS", "FILENAME", "ResultStore", "StoreError",
           "missing_ranges"]
