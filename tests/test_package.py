"""Package-level facts: one version number, one JSON conversion, true docstring examples."""
import doctest
import importlib
import importlib.util
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


def test_provenance_names_dpbench_commit_never_an_enclosing_repositorys(tmp_path):
    """A copy of the sources that no repository tracks (an installed copy in site-packages) is not
    a git checkout, even inside another repository: pyenv's checkout around site-packages once
    stamped reports with pyenv's commit.  A checkout that tracks them gives its commit."""
    import shutil
    import subprocess

    def git(*args, cwd):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                       capture_output=True)

    git("init", "-q", cwd=tmp_path)
    (tmp_path / "README").write_text("another project")
    git("add", "README", cwd=tmp_path)
    git("commit", "-q", "-m", "other", cwd=tmp_path)
    copy = tmp_path / "lib" / "site-packages" / "dpbench"
    copy.mkdir(parents=True)
    shutil.copy(ROOT / "dpbench" / "version.py", copy / "version.py")

    def stamp():
        spec = importlib.util.spec_from_file_location("version_copy", copy / "version.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.git_commit()
    assert stamp() == "not a git checkout"
    git("add", "lib", cwd=tmp_path)
    git("commit", "-q", "-m", "vendored", cwd=tmp_path)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    assert stamp().startswith(head)


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
