"""Measured speed of every policy, and the run-time estimate given before a long run.

``throughput.json`` (shipped with the package) holds each registered policy's
pulls per CPU second on one compiled thread (CPU time, so that a busy machine does not
make the table slower), measured on its reference instance
(:func:`reference_config`: the README's 20-arm Bernoulli instance, the Pareto
instance for heavy-tailed policies, 10 unit vectors in 2-d for linear ones) at
T = 1e6, R = 2, compile excluded.  Regenerate it on a quiet machine with::

    python -m dpbench.engine.throughput            # every policy, about a minute plus compiles

The estimate of a run is ``sum(reps x horizon x max(1, K / K_ref) / rate) /
threads``: one pull's cost grows at most linearly in the arm count K (an index
policy scans every arm per decision), so scaling by K / K_ref and never below 1
can only lengthen it.  Phased algorithms (successive and phased elimination)
decide once per batch, so their rate grows with T and the rate at 1e6 also errs
on the long side.  A policy with no measured rate (a plugin, or one added since
the table was made) gets the slowest rate of the table, for the same reason: a
measured table rather than a per-family guess, because the rates of one family
differ by 10x (GDP-Elim-New versus DP-FTPL-New), and an estimate that can only
be too long never lets a day-long run start unannounced.
"""
from __future__ import annotations

import functools
import json
import math
import platform
import sys
import time
from pathlib import Path

from ..validation import InputError

RATES_FILE = Path(__file__).with_name("throughput.json")
REFERENCE_HORIZON = 10 ** 6
REFERENCE_REPS = 2
#: an estimate above this is printed before the run starts
ANNOUNCE_SECONDS = 10 * 60
#: an estimate above this is refused unless the user confirms (``--yes``)
REFUSE_SECONDS = 24 * 3600

#: the reference instance of a policy family (families not listed: the 20-arm Bernoulli instance)
FAMILY_ENVIRONMENT = {
    "robust_heavy_tailed": {"name": "pareto", "setting": "S1", "tail_v": 0.9},
    "private_phased_elimination": {"name": "linear_sphere", "k": 10, "d": 2, "instance_seed": 0},
    "linucb": {"name": "linear_sphere", "k": 10, "d": 2, "instance_seed": 0},
}
#: values of required policy parameters (those without a default) in reference runs
REQUIRED_VALUES = {"eps": 1.0, "delta": 0.01, "v": 0.9}
#: parameters a family needs beyond its required ones (HeLDP's eps_dist=fixed needs eps)
FAMILY_PARAMS = {"heldp_ucb": {"eps": 1.0}}


def reference_config(policy: str) -> dict:
    """``{"environment": {...}, "params": {...}}``: the policy's reference instance and its
    required parameters filled in from REQUIRED_VALUES (InputError if one is not there)."""
    from .catalog import ALGORITHMS
    spec = ALGORITHMS.get_spec(policy)
    params = dict(FAMILY_PARAMS.get(spec.family, {}))
    for p in spec.params:
        if p.required:
            if p.name not in REQUIRED_VALUES:
                raise InputError(f"no reference value for the required parameter {p.name!r} of {policy!r}")
            params[p.name] = REQUIRED_VALUES[p.name]
    env = dict(FAMILY_ENVIRONMENT.get(spec.family, {"name": "bernoulli"}))
    return {"environment": env, "params": params}


def measure(policies=None, *, horizon: int = REFERENCE_HORIZON, reps: int = REFERENCE_REPS,
            log=print) -> dict:
    """Measure pulls per second (one thread, compile excluded) and rewrite ``throughput.json``
    (only the given policies' rows when ``policies`` is given)."""
    from ..version import __version__
    from .catalog import ALGORITHMS
    from .result import now_iso
    from .simulate import simulate
    table = _read() if policies else {"rates": {}}
    for name in policies or sorted(ALGORITHMS):
        config = reference_config(name)
        env = dict(config["environment"])
        env_name = env.pop("name")
        simulate(name, env_name, 1000, 1, 1, env_params=env, threads=1, **config["params"])    # compile
        cpu = time.process_time()
        res = simulate(name, env_name, horizon, reps, 1, env_params=env, threads=1, **config["params"])
        rate = reps * horizon / (time.process_time() - cpu)     # CPU time: other processes' load does not count
        table["rates"][name] = {"pulls_per_second": float(f"{rate:.3g}"), "arms": res.pulls.shape[1],
                                "environment": res.environment}
        log(f"{name}: {rate:.3g} pulls/s per CPU second ({res.pulls.shape[1]} arms)")
    table.update(horizon=horizon, reps=reps, threads=1, measured=now_iso(), dpbench=__version__,
                 machine=f"{platform.machine()} {platform.processor() or ''}".strip(),
                 command="python -m dpbench.engine.throughput")
    RATES_FILE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    _read.cache_clear()
    return table


@functools.lru_cache(maxsize=1)
def _read() -> dict:
    return json.loads(RATES_FILE.read_text()) if RATES_FILE.exists() else {"rates": {}}


def seconds_per_pull(policy: str, arms: int) -> float:
    """Estimated single-thread seconds per pull of ``policy`` with ``arms`` arms (see the module
    docstring; the slowest measured rate for an unmeasured policy)."""
    rates = _read()["rates"]
    row = rates.get(policy) or min(rates.values(), key=lambda r: r["pulls_per_second"], default=None)
    if row is None:
        return 0.0
    return max(1.0, arms / row["arms"]) / row["pulls_per_second"]


def estimate_seconds(work, threads: int) -> float:
    """Estimated wall time of ``work``, an iterable of (policy, arms, horizon, reps), on
    ``threads`` threads (repetitions run in parallel, at most one thread each)."""
    total, reps_total = 0.0, 0
    for policy, arms, horizon, reps in work:
        total += reps * horizon * seconds_per_pull(policy, arms)
        reps_total += reps
    return total / max(1, min(threads, reps_total))


def describe_seconds(seconds: float) -> str:
    """'4.59 d', '3.3 h', '12 min', '40 s'."""
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            value = seconds / size
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:,.0f} {unit}"
    return f"{seconds:.3g} s"


def check_duration(seconds: float, *, threads: int, confirmed: bool, log) -> None:
    """Refuse (InputError) an estimate above REFUSE_SECONDS unless ``confirmed``; announce one
    above ANNOUNCE_SECONDS through ``log``."""
    if not math.isfinite(seconds) or seconds <= ANNOUNCE_SECONDS:
        return
    text = (f"estimated run time {describe_seconds(seconds)} on {threads} thread(s), from the measured "
            f"pulls per second of each policy ({RATES_FILE.name})")
    if seconds > REFUSE_SECONDS and not confirmed:
        raise InputError(f"{text}: more than a day; lower --horizon or --reps, or pass --yes to run it anyway")
    log(f"dpbench: {text}")


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description="Measure every policy's pulls per second into "
                                                 f"{RATES_FILE.name} (run on a quiet machine)")
    parser.add_argument("policies", nargs="*", help="only these policies (default: all)")
    args = parser.parse_args(argv)
    measure(args.policies or None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
