"""Fingerprints of the engine's random streams: exact final regrets and pull counts of every policy.

A refactoring that must not change what the engine draws (e.g. moving a privatiser into a
shared function) is checked by saving the fingerprints before and comparing after::

    python -m tests.stream_fingerprint --save /tmp/before.json       # on the old code
    python -m tests.stream_fingerprint --compare /tmp/before.json    # on the new code: exit 1 on a change

Every registered policy runs on its regression configuration (``verify/regret_baseline.py``,
T = 20,000, 64 repetitions, seed 8001: so ``verify/data/regret_baseline.json`` is compared as well),
plus the variants that exercise other mechanism paths: heterogeneous levels (discrete and truncated
Gaussian), the sigmoid curators on Gaussian rewards, LDP/DP robust SE in the scaled mode (epochs end,
so the batched Laplace sums are drawn) and the seed 004 local/shuffle/central models with the paper's
noise scale.  Several of these regrets do not depend on the noise at all (round-robin play,
eliminations far from their thresholds), so every mechanism path is also fingerprinted by its
*responses*: a serial copy of the engine loop records (arm, m, response, level) of every step
(``TRACES``).  Equality is exact (the arrays' bytes).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numba
import numpy as np

import dpbench
from dpbench.engine.components import broadcast, init_state, respond_broadcast, select, update
from dpbench.engine.simulate import prepare
from dpbench.validation import InputError
from verify.regret_baseline import BASELINE_SEED
from verify.regret_baseline import config as baseline_config
from verify.regret_baseline import load as load_baseline

GAUSS = {"name": "gaussian", "means": [1.0, 0.5, 0.0], "sigma": 1.0}
PARETO = {"name": "pareto", "setting": "S1", "tail_v": 0.9}
LINEAR = {"name": "linear_sphere", "k": 10, "d": 2, "instance_seed": 0}

#: (label, policy, environment, parameters) beyond the regression configurations
VARIANTS = [
    ("heldp_ucb_l discrete", "heldp_ucb_l", None, {"eps_dist": "discrete", "eps_min": 0.5}),
    ("heldp_ucb_b discrete", "heldp_ucb_b", None, {"eps_dist": "discrete", "eps_min": 0.5}),
    ("heldp_ucb_ls truncated_gaussian", "heldp_ucb_ls", GAUSS, {"eps_dist": "truncated_gaussian", "eps_min": 0.5}),
    ("heldp_ucb_bs truncated_gaussian", "heldp_ucb_bs", GAUSS, {"eps_dist": "truncated_gaussian", "eps_min": 0.5}),
    ("ldp_ucb_ls gaussian", "ldp_ucb_ls", GAUSS, {"eps": 1.0}),
    ("ldp_ucb_bs gaussian", "ldp_ucb_bs", GAUSS, {"eps": 1.0}),
    ("ucb1_sigmoid gaussian", "ucb1_sigmoid", GAUSS, {}),
    ("ldp_robust_se scaled", "ldp_robust_se", PARETO, {"v": 0.9, "eps": 1.0, "constants": "scaled"}),
    ("dp_robust_se scaled", "dp_robust_se", PARETO, {"v": 0.9, "eps": 1.0, "constants": "scaled"}),
    ("dp_robust_ucb scaled", "dp_robust_ucb", PARETO, {"v": 0.9, "eps": 1.0, "constants": "scaled"}),
    ("linear_local paper", "linear_local", LINEAR, {"eps": 1.0, "noise_scale": "paper"}),
    ("linear_shuffle paper", "linear_shuffle", LINEAR, {"eps": 1.0, "eps0_mode": "paper"}),
    ("linear_central paper", "linear_central", LINEAR, {"eps": 1.0, "noise_scale": "paper"}),
    ("linear_local gaussian noise", "linear_local", {**LINEAR, "noise": "gaussian"}, {"eps": 1.0}),
    ("dp_ftpl_gauss bernoulli-trick", "dp_ftpl_gauss", {"name": "beta", "means": [0.9, 0.6]},
     {"eps": 1.0, "delta": 0.01}),
]


#: (label, policy, environment, parameters, horizon) whose every response is recorded
TRACES = [
    ("ldp_ucb_l", "ldp_ucb_l", None, {"eps": 1.0}, 2000),
    ("ldp_ucb_b", "ldp_ucb_b", None, {"eps": 1.0}, 2000),
    ("ldp_ucb_ls", "ldp_ucb_ls", GAUSS, {"eps": 1.0}, 2000),
    ("ldp_ucb_bs", "ldp_ucb_bs", GAUSS, {"eps": 1.0}, 2000),
    ("ucb1_sigmoid", "ucb1_sigmoid", GAUSS, {}, 2000),
    ("heldp_ucb_l discrete", "heldp_ucb_l", None, {"eps_dist": "discrete", "eps_min": 0.5}, 2000),
    ("heldp_ucb_bs truncated_gaussian", "heldp_ucb_bs", GAUSS,
     {"eps_dist": "truncated_gaussian", "eps_min": 0.5}, 2000),
    ("ldp_robust_se", "ldp_robust_se", PARETO, {"v": 0.9, "eps": 1.0}, 200_000),
    ("dp_robust_se", "dp_robust_se", PARETO, {"v": 0.9, "eps": 1.0, "constants": "scaled"}, 200_000),
    ("dp_robust_ucb", "dp_robust_ucb", PARETO, {"v": 0.9, "eps": 1.0}, 5000),
    ("linear_local", "linear_local", LINEAR, {"eps": 1.0}, 200_000),
    ("linear_shuffle", "linear_shuffle", LINEAR, {"eps": 1.0}, 200_000),
    ("linear_central", "linear_central", LINEAR, {"eps": 1.0}, 200_000),
    ("dp_ftpl_beta bernoulli-trick", "dp_ftpl_beta", {"name": "beta", "means": [0.9, 0.6]},
     {"eps": 1.0, "delta": 0.01}, 5000),
    ("dp_se", "dp_se", None, {"eps": 1.0}, 200_000),
    ("gdp_elim_new", "gdp_elim_new", None, {"eps": 1.0}, 200_000),
]


@numba.njit
def _response_trace(policy, mech, env, k, horizon, seed, arms, ms, values, levels):
    """The engine loop of ``simulate_kernel`` for one repetition, recording every step; the
    number of steps recorded (at most the buffers' length)."""
    np.random.seed(seed)
    state = init_state(policy, k, horizon)
    t = 0
    i = 0
    while t < horizon and i < values.shape[0]:
        arm, m = select(policy, state, t)
        if m > horizon - t:
            m = horizon - t
        value, level = respond_broadcast(mech, env, arm, m, broadcast(policy, state))
        update(policy, state, arm, m, value, level, t)
        arms[i] = arm
        ms[i] = m
        values[i] = value
        levels[i] = level
        t += m
        i += 1
    return i


def _trace(policy, env, params, horizon, seed=5, steps=200_000):
    env = dict(env or {"name": "bernoulli", "means": [0.9, 0.8, 0.7, 0.6, 0.5]})
    name = env.pop("name")
    plan = prepare(policy, name, horizon, seed, env_params=env, **params)
    arms, ms = np.zeros(steps, np.int64), np.zeros(steps, np.int64)
    values, levels = np.zeros(steps), np.zeros(steps)
    used = _response_trace(plan.built.policy, plan.built.mechanism, plan.instance.env, plan.instance.k,
                           np.int64(horizon), np.uint32(seed), arms, ms, values, levels)
    return arms[:used], ms[:used], values[:used], levels[:used]


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _run(policy, env, params, horizon, reps, seed):
    env = dict(env)
    name = env.pop("name")
    res = dpbench.simulate(policy, name, horizon, reps, seed, env_params=env, **params)
    return res.final_regrets, res.pulls


def fingerprints(traces_only: bool = False) -> dict:
    out = {}
    baseline = load_baseline()["policies"]
    for policy in [] if traces_only else sorted(dpbench.ALGORITHMS):
        try:
            config = baseline_config(policy)
        except InputError as err:
            out[policy] = f"skipped: {err}"
            continue
        regrets, pulls = _run(policy, config["environment"], config["params"], config["horizon"],
                              config["reps"], BASELINE_SEED)
        stored = baseline.get(policy)
        same = stored is not None and np.array_equal(np.round(regrets, 6), np.asarray(stored["final_regrets"]))
        out[policy] = {"digest": _digest(regrets, pulls), "mean": float(regrets.mean()),
                       "matches_regret_baseline": bool(same)}
        print(f"{policy:22s} {out[policy]['digest'][:16]} mean {regrets.mean():10.3f} baseline {same}",
              flush=True)
    for label, policy, env, params in [] if traces_only else VARIANTS:
        env = env or {"name": "bernoulli", "means": [0.9, 0.8, 0.7, 0.6, 0.5]}
        regrets, pulls = _run(policy, env, params, 20_000, 16, 11)
        out[label] = {"digest": _digest(regrets, pulls), "mean": float(regrets.mean())}
        print(f"{label:34s} {out[label]['digest'][:16]} mean {regrets.mean():10.3f}", flush=True)
    for label, policy, env, params, horizon in TRACES:
        arms, ms, values, levels = _trace(policy, env, params, horizon)
        key = f"responses: {label}"
        out[key] = {"digest": _digest(arms, ms, values, levels), "steps": int(arms.size),
                    "sum_of_responses": float(values.sum())}
        print(f"{key:45s} {out[key]['digest'][:16]} {arms.size} steps", flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", metavar="JSON")
    group.add_argument("--compare", metavar="JSON")
    ap.add_argument("--traces-only", action="store_true", help="only the response traces (TRACES)")
    args = ap.parse_args(argv)
    now = fingerprints(traces_only=args.traces_only)
    if args.save:
        with open(args.save, "w") as fh:
            json.dump(now, fh, indent=1)
        return 0
    with open(args.compare) as fh:
        before = json.load(fh)
    if args.traces_only:
        before = {k: v for k, v in before.items() if k.startswith("responses: ")}
    changed = [k for k in sorted(set(before) | set(now)) if before.get(k) != now.get(k)]
    for k in changed:
        print(f"CHANGED {k}: {before.get(k)} -> {now.get(k)}")
    print(f"{len(now)} configurations, {len(changed)} changed")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
