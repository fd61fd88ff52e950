"""Regret regression: every registered policy's final regret against a stored baseline.

Used by ``tests/test_regret_regression.py`` (the check in the default test run) and by
``dpbench baseline`` (:func:`check` on the command line; ``--regenerate``: :func:`regenerate`,
which rewrites ``verify/data/regret_baseline.json`` after an intended change).

Each policy has one fixed configuration (:data:`CONFIGS`: instance, parameters, horizon,
repetitions), chosen so that its final regret *varies* between repetitions: a
deterministic-schedule algorithm (successive or phased elimination, the DP-FTPL-Beta start
phase) is put on an instance where the random part -- which arm is eliminated or exploited
when -- decides the regret, so that a change of its noise is visible and not only a change of
its schedule.  The baseline holds the per-repetition final regrets of ``BASELINE_SEED``; the
check reruns with ``TEST_SEED`` and compares the two samples with two two-sided tests,
Welch's t (a shift of the mean) and the two-sample Kolmogorov-Smirnov test (any change of the
law, also of a few-valued one such as an elimination time, and exact equality when both
samples are constant), at ALPHA / 2 each.  Both seeds are fixed, so unchanged code gives the
same p-value every run: the only chance of a false alarm (ALPHA per policy) is taken once,
when the baseline is made, and :func:`regenerate` reports it.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

import dpbench
from dpbench.engine.throughput import reference_config

BASELINE = Path(__file__).with_name("data") / "regret_baseline.json"
REGENERATE = "dpbench baseline --regenerate"
BASELINE_SEED = 8001
TEST_SEED = 8002
ALPHA = 1e-4
#: decimals kept of a final regret (stored and compared)
RESOLUTION = 6
HORIZON = 20_000
REPS = 64

_BERNOULLI = {"name": "bernoulli", "means": [0.9, 0.8, 0.7, 0.6, 0.5]}
#: 30 unit actions in 2-d: several actions sit near each batch's elimination width, so the
#: reward noise (and the privacy noise) decides when they go
_LINEAR = {"name": "linear_sphere", "k": 30, "d": 2, "instance_seed": 0}
#: seed 003's instance S3 with Pareto tails (shape 1.95, v = 0.9): eliminations within 2e4 pulls
_PARETO_S3 = {"name": "pareto", "means": [0.9, 0.85, 0.7, 0.45, 0.1], "shape": 1.95}

#: policy -> what differs from the default (5-arm Bernoulli, required parameters from
#: dpbench.engine.throughput.reference_config, HORIZON, REPS), and why
CONFIGS = {
    # start phase N_B* = 1065 pulls per arm, then arms 0.03 apart: the Beta draws decide
    "dp_ftpl_beta": {"environment": {"name": "bernoulli", "means": [0.9, 0.87, 0.84, 0.81, 0.78]}},
    # gaps 0.12-0.2 around the epoch-1 threshold 2(h + c): each elimination is random
    "dp_se": {"environment": {"name": "bernoulli",
                              "means": [0.9, 0.78, 0.77, 0.76, 0.75, 0.74, 0.73, 0.72, 0.71, 0.7]},
              "params": {"eps": 0.5}, "horizon": 40_000},
    # gap 0.5 = Delta(1) and eps = 0.1 (N(1) set by the privacy term): exploiting after phase 1
    # or not is a coin flip decided by the Lemma 15 perturbation
    "gdp_elim_new": {"environment": {"name": "bernoulli", "means": [0.9, 0.4]}, "params": {"eps": 0.1}},
    # eps = 0.2: the start phase ceil(N_G*) = 192 pulls per arm depends on eps (at eps = 1 it is
    # 8 pulls and eps x2 or x0.5 leaves the regret unchanged)
    "dp_ftpl_gauss": {"params": {"eps": 0.2}},
    # eps = 0.25: the index is refreshed every ceil(1/eps) = 4 pulls (at eps >= 1, every pull)
    "dp_ucb_int": {"params": {"eps": 0.25}},
    # bounded rewards (v = 1) and the scaled constants: on Pareto tails with c = 18 it plays
    # nearly round robin, and with c scaled the tails swamp the privacy noise
    "dp_robust_ucb": {"params": {"v": 1.0, "constants": "scaled"}},
    "robust_ucb": {"environment": {"name": "pareto", "setting": "S1", "tail_v": 0.9}},
    "dp_robust_se": {"environment": _PARETO_S3, "params": {"constants": "scaled", "c": 0.5}},
    "ldp_robust_se": {"environment": _PARETO_S3, "params": {"eps": 10.0, "constants": "scaled", "c": 0.6}},
    "linear_central": {"environment": _LINEAR, "horizon": 50_000},
    # eps = 20: at eps <= 10 the local noise keeps every action to T = 5e4 (a pure schedule)
    "linear_local": {"environment": _LINEAR, "params": {"eps": 20.0}, "horizon": 50_000},
    "linear_shuffle": {"environment": _LINEAR, "params": {"eps": 20.0}, "horizon": 50_000},
    "linear_batched": {"environment": _LINEAR, "horizon": 50_000},
    "linear_phased_elim": {"environment": _LINEAR, "horizon": 50_000},
    "linucb": {"environment": _LINEAR, "horizon": 5_000},
}


def config(policy: str) -> dict:
    """The regression configuration of ``policy`` (any registered policy: unlisted ones get the
    default instance and the reference values of their required parameters)."""
    extra = CONFIGS.get(policy, {})
    params = {**reference_config(policy)["params"], **extra.get("params", {})}
    return {"policy": policy, "environment": dict(extra.get("environment", _BERNOULLI)), "params": params,
            "horizon": extra.get("horizon", HORIZON), "reps": extra.get("reps", REPS)}


def final_regrets(cfg: dict, seed: int, **override) -> np.ndarray:
    """Per-repetition final pseudo-regrets of ``cfg`` (parameters replaced by ``override``)."""
    env = dict(cfg["environment"])
    name = env.pop("name")
    res = dpbench.simulate(cfg["policy"], name, cfg["horizon"], cfg["reps"], seed, env_params=env,
                           **{**cfg["params"], **override})
    return res.final_regrets


def p_value(new: np.ndarray, base: np.ndarray) -> float:
    """Two-sided p-value of 'same law': Bonferroni over Welch's t and the two-sample KS test.
    Both samples are rounded to RESOLUTION first (as the baseline is stored), so that equal
    pull counts summed in another order still tie: KS would read the last bits as a shift."""
    new, base = np.round(new, RESOLUTION), np.round(base, RESOLUTION)
    ks = stats.ks_2samp(new, base).pvalue
    if np.ptp(new) == 0 and np.ptp(base) == 0:          # t undefined; KS alone decides
        welch = 1.0 if new[0] == base[0] else 0.0
    else:
        with warnings.catch_warnings():                  # nearly constant samples warn harmlessly
            warnings.simplefilter("ignore", RuntimeWarning)
            welch = float(stats.ttest_ind(new, base, equal_var=False).pvalue)
    return min(1.0, 2.0 * min(welch, float(ks)))


def load(path=BASELINE) -> dict:
    """The stored baseline (``{"policies": {}}`` when there is none yet)."""
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else {"policies": {}}


def spread(regrets) -> dict:
    """Mean, standard deviation and number of distinct values of a sample of final regrets."""
    r = np.asarray(regrets, dtype=float)
    return {"mean": float(r.mean()), "sd": float(r.std(ddof=1)), "distinct": int(np.unique(r).size)}


def compare(policy: str, entry: dict, **override) -> tuple[float, np.ndarray, np.ndarray]:
    """(p-value, new final regrets at TEST_SEED, stored ones) of ``policy`` against its baseline
    ``entry`` (parameters replaced by ``override``: the negative controls).  Raises ValueError
    when the stored configuration is not the current one."""
    cfg = config(policy)
    if {k: entry.get(k) for k in cfg} != cfg:
        raise ValueError(f"the regression configuration of {policy!r} changed; run {REGENERATE} {policy}")
    base = np.asarray(entry["final_regrets"])
    new = final_regrets(cfg, TEST_SEED, **override)
    return p_value(new, base), new, base


def check(policies=None, path=BASELINE, log=print) -> list[str]:
    """Rerun ``policies`` (default: every registered one) at TEST_SEED against the stored
    baseline; log one line each and return the policies that fail (p < ALPHA, no baseline, or a
    changed configuration)."""
    stored = load(path)["policies"]
    failing = []
    for policy in policies or sorted(dpbench.ALGORITHMS):
        if policy not in stored:       # a policy of one's own: its baseline lives in one's project
            where = "--file PATH (a file of your project)" if path == BASELINE else f"--file {path}"
            log(f"{policy}: no baseline (run {REGENERATE} {policy} {where})")
            failing.append(policy)
            continue
        try:
            p, new, base = compare(policy, stored[policy])
        except ValueError as err:
            log(f"{policy}: {err}")
            failing.append(policy)
            continue
        # not "ok": the test resolves about one standard deviation of the final regret, so a
        # smaller change passes; the line says what it found, at what level
        verdict = f"no change detected (p >= {ALPHA:g})" if p >= ALPHA else "CHANGED"
        log(f"{policy}: {verdict}: final regret {new.mean():.2f} against the baseline's {base.mean():.2f}, "
            f"p = {p:.3g}")
        if p < ALPHA:
            failing.append(policy)
    return failing


def regenerate(policies=None, path=BASELINE, log=print) -> dict:
    """Rerun the baselines of ``policies`` (default: every registered policy, dropping policies
    no longer registered) and rewrite the baseline file; log each one's spread and its p-value
    against TEST_SEED (below ALPHA: the new baseline would fail its own check, so say so)."""
    path = Path(path)
    data = load(path) if policies else {"policies": {}}
    data.update(seed=BASELINE_SEED, test_seed=TEST_SEED, alpha=ALPHA, dpbench=dpbench.__version__,
                regenerate=f"{REGENERATE} [POLICY ...]")
    failing = []
    for policy in policies or sorted(dpbench.ALGORITHMS):
        cfg = config(policy)
        base = np.round(final_regrets(cfg, BASELINE_SEED), RESOLUTION)
        p = p_value(final_regrets(cfg, TEST_SEED), base)
        data["policies"][policy] = {**cfg, "final_regrets": [float(x) for x in base]}
        s = spread(base)
        log(f"{policy}: mean {s['mean']:.2f}, sd {s['sd']:.2f}, {s['distinct']} distinct values over "
            f"{base.size} repetitions; p = {p:.3g} against seed {TEST_SEED}")
        if s["distinct"] < 2 or p < ALPHA:
            failing.append(policy)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    if failing:
        log(f"warning: {', '.join(failing)}: no spread or p < {ALPHA:g} already; choose another configuration "
            "in verify/regret_baseline.py (CONFIGS) rather than another seed")
    return data
