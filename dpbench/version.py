"""The package's version number: pyproject.toml's, read from the installed metadata.

A module of its own at the bottom of the layers, so that the engine (result metadata,
throughput tables) and the command line read it without importing the package's
``__init__`` (which imports the engine back).
"""
from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("dpbench")
except _metadata.PackageNotFoundError:      # a source tree that was never installed
    __version__ = "0+unknown"
