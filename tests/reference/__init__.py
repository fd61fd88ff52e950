"""Plain-Python references of the policies, and the harness that runs them.

Each reference is written straight from its paper's pseudo-code (see the spec
section named in its docstring), independently of the engine, and draws its
randomness through ``dpbench.randomness`` in the documented order.
``run_reference`` executes it in a subprocess with ``NUMBA_DISABLE_JIT=1``, so
every dpbench helper is plain Python there and NumPy's legacy generator
reproduces the compiled stream: the arm sequences must agree exactly.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = """
import json, sys, importlib, numpy as np
sys.path.insert(0, {root!r})
spec = json.loads(open({args!r}).read())
module = importlib.import_module(spec["module"])
func = getattr(module, spec["func"])
out = [np.asarray(func(seed=s, **spec["kwargs"]), dtype=np.int64) for s in spec["seeds"]]
np.save({out!r}, np.vstack(out))
"""


def run_reference(func: str, seeds, **kwargs) -> np.ndarray:
    """Run ``tests.reference.<module>.<function>`` (``func="module.function"``) for each
    seed under ``NUMBA_DISABLE_JIT=1``; return the stacked arm sequences."""
    module, name = func.rsplit(".", 1)
    with tempfile.TemporaryDirectory() as tmp:
        args = Path(tmp) / "args.json"
        out = Path(tmp) / "out.npy"
        args.write_text(json.dumps({"module": f"tests.reference.{module}", "func": name,
                                    "seeds": [int(s) for s in seeds], "kwargs": kwargs}))
        env = dict(os.environ, NUMBA_DISABLE_JIT="1")
        code = _SCRIPT.format(root=str(ROOT), args=str(args), out=str(out))
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              cwd=str(ROOT))
        if proc.returncode != 0:
            raise RuntimeError(f"reference {func} failed:\n{proc.stderr[-3000:]}")
        return np.load(out)


def run_engine_in_python(policy: str, env: str, horizon: int, reps: int, seed: int, **params) -> np.ndarray:
    """The engine's own loop executed as plain Python (``NUMBA_DISABLE_JIT=1``): trace array."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.npy"
        code = (f"import sys, numpy as np; sys.path.insert(0, {str(ROOT)!r}); import dpbench\n"
                f"r = dpbench.simulate({policy!r}, {env!r}, {horizon}, {reps}, {seed}, trace=True, **{params!r})\n"
                f"np.save({str(out)!r}, r.trace)")
        proc = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
                              capture_output=True, text=True, cwd=str(ROOT))
        if proc.returncode != 0:
            raise RuntimeError(f"python engine run failed:\n{proc.stderr[-3000:]}")
        return np.load(out)
