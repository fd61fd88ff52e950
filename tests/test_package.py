"""Package-level facts: one version number, one JSON conversion, true docstring examples."""
import doctest
import importlib
import json
import tomllib
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

import dpbench

ROOT = Path(__file__).resolve().parents[1]


def test_version_is_single_sourced_from_pyproject():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert dpbench.__version__ == metadata.version("dpbench") == declared


def test_to_json_makes_strict_json():
    obj = {1: np.array([0.5, np.inf, np.nan]), "t": (np.int64(3), np.bool_(True)), "x": -float("inf")}
    out = dpbench.to_json(obj)
    assert out == {"1": [0.5, "inf", None], "t": [3, True], "x": "-inf"}
    json.dumps(out, allow_nan=False)
    assert dpbench.to_json({"p": Path("a")}, default=str) == {"p": "a"}
    assert dpbench.to_json({"p": Path("a")})["p"] == Path("a")      # json.dumps refuses it, nothing lossy


@pytest.mark.parametrize("module", ["dpbench.engine.result", "dpbench.engine.mechanism", "verify.regret_fits"])
def test_docstring_examples_run(module):
    """The Examples sections of the public API are true (the slow ones are marked +SKIP)."""
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0, result
