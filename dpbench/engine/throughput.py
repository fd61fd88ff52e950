"""Measured speed of every policy: the table the run-time estimate reads.

``throughput.json`` (shipped with the package) holds each registered policy's
pulls per CPU second on one compiled thread (CPU time, so that a busy machine does not
make the table slower), measured on its reference instance
(:func:`reference_config`: the README's 20-arm Bernoulli instance, the Pareto
instance for heavy-tailed policies, 10 unit vectors in 2-d for linear ones) at
T = 1e6, R = 2, compile excluded.  Regenerate it on a quiet machine with::

    python -m dpbench.engine.throughput            # every policy, about a minute plus compiles

The run-time estimate and guard that read this table: :mod:`.guard`.
"""
from __future__ import annotations

import json
import platform
import sys
import time

from ..validation import InputError
from .guard import RATES_FILE, _read

REFERENCE_HORIZON = 10 ** 6
REFERENCE_REPS = 2

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
    from .. import __version__
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
