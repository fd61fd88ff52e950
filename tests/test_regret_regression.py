"""Regret regression: no policy may become worse than its stored baseline.

``tests/data/regret_baseline.json`` stores, for every registered policy, a fixed
configuration (instance, horizon, parameters) and the per-repetition final
regrets of ``REPS`` repetitions with seed ``BASELINE_SEED``.  The test reruns
the configuration with a *different* fixed seed (``TEST_SEED``) and applies
Welch's one-sided t-test (H1: the new mean regret is larger) at ``ALPHA``.
Both seeds are fixed, so the test is deterministic: unchanged code gives the
same p-value every time, and the two samples are independent draws of the same
law, so unchanged code fails with probability ALPHA only once, when the
baseline is made.  A change that makes a policy worse by about 10% or more is
caught (negative controls below: a smaller eps is caught).

Regenerate after an intended change (or when a new policy lands)::

    python -m tests.test_regret_regression --regenerate            # every policy
    python -m tests.test_regret_regression --regenerate --policy ucb1 ldp_ucb_b

The default test run covers ``FAST`` policies; ``python -m pytest -m slow
tests/test_regret_regression.py`` covers every policy in ``dpbench.ALGORITHMS``.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import dpbench
from dpbench.validation import InputError

BASELINE = Path(__file__).with_name("data") / "regret_baseline.json"
HORIZON = 20_000
REPS = 64
BASELINE_SEED = 8001
TEST_SEED = 8002
ALPHA = 1e-4
FAST = ("ucb1", "ldp_ucb_b", "ldp_ucb_l", "heldp_ucb_b")

BERNOULLI = {"name": "bernoulli", "means": [0.9, 0.8, 0.7, 0.6, 0.5]}
#: instance per policy family (families not listed use BERNOULLI)
FAMILY_ENVIRONMENT = {
    "robust_heavy_tailed": {"name": "pareto", "setting": "S1", "tail_v": 0.9},
    "private_phased_elimination": {"name": "linear_sphere", "k": 10, "d": 2, "instance_seed": 0},
    "linucb": {"name": "linear_sphere", "k": 10, "d": 2, "instance_seed": 0},
}
#: parameters set per family (beyond the required ones)
FAMILY_PARAMS = {"heldp_ucb": {"eps": 1.0}}
#: values for required parameters without a default
REQUIRED_VALUES = {"eps": 1.0, "delta": 0.01, "v": 0.9}


def baseline_config(policy: str) -> dict:
    """The fixed configuration of ``policy``: environment and parameters (required ones filled in)."""
    spec = dpbench.ALGORITHMS.get_spec(policy)
    params = dict(FAMILY_PARAMS.get(spec.family, {}))
    for p in spec.params:
        if p.required:
            if p.name not in REQUIRED_VALUES:
                raise InputError(f"no regression value for required parameter {p.name!r} of {policy!r}; "
                                 "add it to REQUIRED_VALUES")
            params[p.name] = REQUIRED_VALUES[p.name]
    env = dict(FAMILY_ENVIRONMENT.get(spec.family, BERNOULLI))
    return {"policy": policy, "environment": env, "params": params, "horizon": HORIZON, "reps": REPS}


def final_regrets(config: dict, seed: int) -> np.ndarray:
    env = dict(config["environment"])
    name = env.pop("name")
    res = dpbench.simulate(config["policy"], name, config["horizon"], config["reps"], seed,
                           env_params=env, **config["params"])
    return res.final_regrets


def worse_p_value(new: np.ndarray, base: np.ndarray) -> float:
    """Welch's one-sided p-value of 'new mean regret > base mean regret'."""
    if np.all(new == new[0]) and np.all(base == base[0]):        # deterministic regret
        return 0.0 if new[0] > base[0] * (1 + 1e-9) + 1e-9 else 1.0
    with warnings.catch_warnings():        # nearly constant samples (round-robin play) warn harmlessly
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(stats.ttest_ind(new, base, equal_var=False, alternative="greater").pvalue)


def load_baseline() -> dict:
    return json.loads(BASELINE.read_text())


def regenerate(policies=None) -> dict:
    data = load_baseline() if BASELINE.exists() and policies else {"policies": {}, "skipped": {}}
    data.update({"horizon": HORIZON, "reps": REPS, "seed": BASELINE_SEED, "test_seed": TEST_SEED,
                 "alpha": ALPHA, "regenerate": "python -m tests.test_regret_regression --regenerate",
                 "dpbench": dpbench.__version__})
    for policy in policies or sorted(dpbench.ALGORITHMS):
        data["skipped"].pop(policy, None)
        data["policies"].pop(policy, None)
        try:
            config = baseline_config(policy)
            regrets = final_regrets(config, BASELINE_SEED)
        except InputError as err:
            data["skipped"][policy] = str(err)
            print(f"{policy}: skipped ({err})")
            continue
        data["policies"][policy] = {**config, "final_regrets": [round(float(x), 6) for x in regrets]}
        print(f"{policy}: mean final regret {regrets.mean():.2f} over {regrets.size} repetitions")
    BASELINE.parent.mkdir(parents=True, exist_ok=True)
    BASELINE.write_text(json.dumps(data, indent=1) + "\n")
    return data


def _check(policy: str, **override):
    entry = load_baseline()["policies"].get(policy)
    if entry is None:
        pytest.fail(f"{policy!r} has no regret baseline; run: python -m tests.test_regret_regression "
                    f"--regenerate --policy {policy}")
    config = {k: entry[k] for k in ("policy", "environment", "params", "horizon", "reps")}
    assert config == baseline_config(policy), (
        f"the regression configuration of {policy!r} changed; regenerate its baseline")
    config["params"] = {**config["params"], **override}
    new = final_regrets(config, TEST_SEED)
    base = np.asarray(entry["final_regrets"])
    return worse_p_value(new, base), new.mean(), base.mean()


def _assert_not_worse(policy):
    p, new, base = _check(policy)
    assert p >= ALPHA, (f"{policy}: mean final regret {new:.2f} vs baseline {base:.2f} "
                        f"(Welch one-sided p = {p:.2e} < {ALPHA:g}): the change made it worse")


@pytest.mark.parametrize("policy", FAST)
def test_policy_not_worse_than_baseline(policy):
    _assert_not_worse(policy)


@pytest.mark.slow
@pytest.mark.parametrize("policy", sorted(dpbench.ALGORITHMS))
def test_every_policy_not_worse_than_baseline(policy):
    data = load_baseline()
    if policy in data.get("skipped", {}):
        pytest.skip(f"{policy}: no regression configuration ({data['skipped'][policy]})")
    _assert_not_worse(policy)


@pytest.mark.parametrize("policy,worse", [("ldp_ucb_b", {"eps": 0.8}), ("ldp_ucb_l", {"eps": 0.8})])
def test_negative_control_worse_parameter_is_caught(policy, worse):
    """A deliberately worse setting (eps 0.8 instead of 1: ~25% / ~12% more regret) is flagged."""
    p, new, base = _check(policy, **worse)
    assert p < ALPHA, f"{policy} with {worse}: regret {new:.1f} vs {base:.1f} not flagged (p = {p:.3g})"


def test_baseline_covers_registered_policies():
    """Every policy has a baseline or a recorded reason it has none (regenerate when one lands)."""
    data = load_baseline()
    known = set(data["policies"]) | set(data.get("skipped", {}))
    missing = sorted(set(dpbench.ALGORITHMS) - known)
    assert not missing, (f"no regret baseline yet for {missing}: run python -m tests.test_regret_regression "
                         f"--regenerate --policy {' '.join(missing)}")
    assert set(FAST) <= set(data["policies"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate tests/data/regret_baseline.json")
    parser.add_argument("--regenerate", action="store_true", required=True)
    parser.add_argument("--policy", nargs="*", help="only these policies (default: all)")
    args = parser.parse_args(argv)
    regenerate(args.policy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
