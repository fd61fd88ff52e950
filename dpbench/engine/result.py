"""SimulationResult: per-repetition regret curves with their summary and metadata."""
from __future__ import annotations

import datetime as _dt
import json
import math
import platform
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats


def package_versions() -> dict:
    """Return the versions of dpbench, numba, numpy, scipy, Python and the platform."""
    import numba
    import scipy

    from ..version import __version__
    return {"dpbench": __version__, "numba": numba.__version__, "numpy": np.__version__,
            "scipy": scipy.__version__, "python": sys.version.split()[0],
            "platform": platform.platform()}


def machine() -> str:
    """Return the CPU a run's numbers came from, as "AMD EPYC, x86_64, 2 cores, numpy SIMD X86_V3".

    Its model (Linux's /proc/cpuinfo, else the platform's processor), architecture, cores, and the
    SIMD level numpy dispatches to.  Numbers that read an output's low bits (the floating-point
    audits) can differ between CPUs: numpy's vectorised log1p, exp, ... round differently on them.
    """
    import os
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
        simd = [k for k in __cpu_dispatch__ if __cpu_features__.get(k)]
    except ImportError:                          # another numpy layout: say nothing of it
        simd = []
    parts = [model or "unknown CPU", platform.machine(), f"{os.cpu_count()} cores"]
    return ", ".join(p for p in parts if p) + (f", numpy SIMD {' '.join(simd)}" if simd else "")


def code_and_versions() -> str:
    """Return the provenance line of a report or table: code and library versions.

    "dpbench V, git commit C; numba ..., numpy ..., scipy ..., Python ..." (:func:`package_versions`,
    :func:`dpbench.version.git_commit`).
    """
    from ..version import git_commit
    v = package_versions()
    return (f"dpbench {v['dpbench']}, git commit {git_commit()}; numba {v['numba']}, numpy {v['numpy']}, "
            f"scipy {v['scipy']}, Python {v['python']}")


def log_checkpoints(horizon: int, per_decade: int = 20) -> np.ndarray:
    """Return log-spaced pull counts in [1, horizon].

    The grid always contains every power of ten up to ``horizon`` and ``horizon`` itself.
    """
    n = max(2, int(math.ceil(per_decade * math.log10(max(horizon, 10)))) + 1)
    grid = np.unique(np.round(np.logspace(0, math.log10(horizon), n)).astype(np.int64))
    powers = 10 ** np.arange(0, int(math.log10(horizon)) + 1, dtype=np.int64)
    grid = np.union1d(grid, powers[powers <= horizon])
    return np.union1d(grid, [horizon]).astype(np.int64)


#: an interval (a standard error, a band, a bootstrap CI) from fewer repetitions than this is
#: printed with a warning: too few to compare runs by (reports decide nothing from them either)
THIN_REPS = 10
THIN_MARK = "⚠"


def thin_warning(reps) -> str:
    """Return the warning for intervals from fewer than THIN_REPS repetitions ('' when none is).

    Printed under a table or figure, and in a simulation's summary; ``reps``: the repetition
    counts shown.
    """
    thin = sorted({int(r) for r in reps if int(r) < THIN_REPS})
    if not thin:
        return ""
    counts = ", ".join(map(str, thin))
    return (f"{THIN_MARK} intervals from fewer than {THIN_REPS} repetitions ({counts}): too few to compare "
            f"runs by; rerun with --reps {THIN_REPS} or more")


@dataclass
class SimulationResult:
    """Regret of one (policy, environment, parameters) configuration over R repetitions.

    Returned by :func:`dpbench.simulate`; memory is O(reps x checkpoints), never O(T).

    Attributes
    ----------
    policy, label, environment : str
        The policy's catalog name and display label, the environment's name.
    params, env_params : dict
        The policy's and the environment's validated parameters.
    horizon, seed, first_rep : int
        Pulls per repetition, master seed, index of the first repetition held.
    checkpoints : ndarray of int64, shape (C,)
        Pull counts at which the regret is recorded (log-spaced, ``horizon`` included).
    regret : ndarray, shape (reps, C)
        ``regret[r, c]``: pseudo-regret of repetition ``first_rep + r`` after
        ``checkpoints[c]`` pulls.
    pulls : ndarray of int64, shape (reps, K)
        Final pull count of every arm.
    means : ndarray, shape (K,)
        The arms' mean rewards.
    seconds, compile_seconds : float
        Run time of the compiled loop and time spent compiling (or loading the cache).
    threads : int
        Threads the loop ran on.
    trace : ndarray of int64, shape (reps, horizon), optional
        The arm of every pull, when asked for.
    warnings, info, metadata : list, dict, dict
        The policy's warnings and facts, and versions / creation time / seeding rule.

    Examples
    --------
    >>> r = dpbench.simulate("ucb1", "bernoulli", horizon=10_000, reps=4, seed=1)  # doctest: +SKIP
    >>> r.mean[-1], r.ci95[:, -1], r.final_regrets  # doctest: +SKIP
    """

    policy: str
    label: str
    environment: str
    params: dict
    env_params: dict
    horizon: int
    seed: int
    first_rep: int
    checkpoints: np.ndarray
    regret: np.ndarray
    pulls: np.ndarray
    means: np.ndarray
    seconds: float = math.nan
    compile_seconds: float = math.nan
    threads: int = 1
    trace: np.ndarray | None = None
    warnings: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)

    # ------------------------------------------------------------ summary
    @property
    def reps(self) -> int:
        """Number of repetitions held."""
        return int(self.regret.shape[0])

    @property
    def final_regrets(self) -> np.ndarray:
        """Per-repetition regret after ``horizon`` pulls."""
        return self.regret[:, -1]

    @property
    def mean(self) -> np.ndarray:
        """Mean regret over the repetitions at each checkpoint."""
        return self.regret.mean(axis=0)

    @property
    def stderr(self) -> np.ndarray:
        """Standard error of the mean regret at each checkpoint (NaN with one repetition)."""
        if self.reps < 2:
            return np.full(self.regret.shape[1], np.nan)
        return self.regret.std(axis=0, ddof=1) / math.sqrt(self.reps)

    @property
    def ci95(self) -> np.ndarray:
        """(2, C) Student-t 95% confidence band of the mean regret."""
        half = stats.t.ppf(0.975, max(self.reps - 1, 1)) * self.stderr
        return np.vstack([self.mean - half, self.mean + half])

    @property
    def pulls_per_second(self) -> float:
        """Pulls per wall-clock second of the compiled loop (compilation excluded)."""
        return self.reps * self.horizon / self.seconds if self.seconds > 0 else math.nan

    def regret_at(self, t: int) -> np.ndarray:
        """Per-repetition regret after ``t`` pulls (``t`` must be a checkpoint)."""
        idx = np.searchsorted(self.checkpoints, t)
        if idx >= self.checkpoints.size or self.checkpoints[idx] != t:
            raise ValueError(f"{t} is not a checkpoint of this result")
        return self.regret[:, idx]

    def summary(self) -> dict:
        """Return the configuration and the final regret's mean, error and spread as a dict.

        Its ``warnings`` add the thin-interval warning (fewer than THIN_REPS repetitions) to the
        run's own.
        """
        final = self.final_regrets
        thin = thin_warning([self.reps])
        return {
            "policy": self.policy, "label": self.label, "environment": self.environment,
            "params": self.params, "env_params": self.env_params, "horizon": self.horizon,
            "reps": self.reps, "seed": self.seed, "first_rep": self.first_rep,
            "mean_final_regret": float(final.mean()),
            "stderr_final_regret": float(self.stderr[-1]),
            "ci95_final_regret": [float(v) for v in self.ci95[:, -1]],
            "final_regrets": final.tolist(),
            "mean_pulls": self.pulls.mean(axis=0).tolist(),
            "pulls_per_second": self.pulls_per_second,
            "seconds": self.seconds, "compile_seconds": self.compile_seconds,
            "threads": self.threads, "warnings": list(self.warnings) + ([thin] if thin else []), "info": self.info,
            "metadata": self.metadata,
        }

    # -------------------------------------------------------------- I/O
    _ARRAYS = ("checkpoints", "regret", "pulls", "means")

    def save(self, stem) -> Path:
        """Write ``stem.npz`` (arrays) and ``stem.json`` (everything else); return the JSON path."""
        stem = Path(stem)
        stem.parent.mkdir(parents=True, exist_ok=True)
        arrays = {k: getattr(self, k) for k in self._ARRAYS}
        if self.trace is not None:
            arrays["trace"] = self.trace
        tmp = with_ext(stem, ".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(with_ext(stem, ".npz"))
        meta = {k: getattr(self, k) for k in ("policy", "label", "environment", "params", "env_params",
                                               "horizon", "seed", "first_rep", "seconds",
                                               "compile_seconds", "threads", "warnings", "info",
                                               "metadata")}
        meta["summary"] = {k: v for k, v in self.summary().items() if k != "final_regrets"}
        path = with_ext(stem, ".json")
        tmpj = with_ext(stem, ".tmp.json")
        tmpj.write_text(json.dumps(to_json(meta), indent=1))
        tmpj.replace(path)
        return path

    @classmethod
    def load(cls, stem) -> SimulationResult:
        """Read a result written by :meth:`save` (``stem.npz`` and ``stem.json``)."""
        stem = Path(stem)
        meta = json.loads(with_ext(stem, ".json").read_text())
        meta.pop("summary", None)
        with np.load(with_ext(stem, ".npz")) as data:
            arrays = {k: data[k] for k in data.files}
        return cls(**meta, **arrays)

    @classmethod
    def concat(cls, parts: list[SimulationResult]) -> SimulationResult:
        """Join results of consecutive repetition ranges of one configuration."""
        parts = sorted(parts, key=lambda p: p.first_rep)
        head = parts[0]
        for prev, nxt in zip(parts, parts[1:]):
            if nxt.first_rep != prev.first_rep + prev.reps:
                raise ValueError("repetition ranges are not contiguous")
            if (nxt.policy, nxt.params, nxt.env_params, nxt.horizon, nxt.seed) != \
                    (head.policy, head.params, head.env_params, head.horizon, head.seed):
                raise ValueError("cannot join results of different configurations")
        traces = [p.trace for p in parts if p.trace is not None]
        return cls(
            policy=head.policy, label=head.label, environment=head.environment, params=head.params,
            env_params=head.env_params, horizon=head.horizon, seed=head.seed, first_rep=head.first_rep,
            checkpoints=head.checkpoints, regret=np.vstack([p.regret for p in parts]),
            pulls=np.vstack([p.pulls for p in parts]), means=head.means,
            seconds=sum(p.seconds for p in parts), compile_seconds=sum(p.compile_seconds for p in parts),
            threads=head.threads,
            trace=np.vstack(traces) if len(traces) == len(parts) else None,
            warnings=head.warnings, info=head.info, metadata=head.metadata)


def to_json(obj, default=None):
    """Return a copy of ``obj`` that :func:`json.dumps` writes as strict JSON.

    Parameters
    ----------
    obj : object
        Nested dicts, lists, tuples, NumPy arrays and scalars, Python numbers and strings.
    default : callable, optional
        Applied to any other object (e.g. ``repr``); without it such objects are returned
        unchanged, so that :func:`json.dumps` refuses them rather than storing a lossy text.

    Returns
    -------
    object
        Dict keys as strings, tuples and arrays as lists, NumPy scalars as Python numbers,
        NaN as ``None`` and infinities as ``"inf"`` / ``"-inf"``.

    Examples
    --------
    >>> to_json({1: np.array([0.5, np.inf]), "n": np.int64(3)})
    {'1': [0.5, 'inf'], 'n': 3}
    """
    if isinstance(obj, dict):
        return {str(k): to_json(v, default) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json(v, default) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_json(obj.tolist(), default)
    if isinstance(obj, (np.floating, np.integer, np.bool_)):
        return to_json(obj.item(), default)
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if default is None or obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return default(obj)



def with_ext(stem, ext: str) -> Path:
    """``stem`` + ``ext`` (unlike ``Path.with_suffix``, safe for stems containing dots)."""
    stem = Path(stem)
    return stem.parent / (stem.name + ext)


def now_iso() -> str:
    """Return the current UTC time in ISO 8601, to the second."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
