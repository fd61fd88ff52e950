"""Seed 002 baselines (spec seed_002.md §5.5): DP-UCB, DP-UCB-BOUND, DP-UCB-INT, DP-SE agree
exactly with their plain-Python references; the hybrid counter's error has the stated law."""
import math

import numpy as np
import pytest

import dpbench
from dpbench.engine.simulate import prepare
from dpbench.mechanisms.tree_counter import hybrid_prefix_sums
from dpbench.policies.dp_se import epoch_pulls
from dpbench.randomness import rep_seeds
from dpbench.validation import InputError
from tests.reference import run_reference

MEANS = [0.55, 0.7, 0.4, 0.65]
SEED = 2002
REPS = 3


def _trace(policy, horizon, means=MEANS, **params):
    return dpbench.simulate(policy, "bernoulli", horizon, REPS, SEED, means=means, trace=True, **params).trace


@pytest.mark.parametrize("policy,params,horizon", [
    ("dp_ucb_bound", {"eps": 1.0}, 3000),
    ("dp_ucb", {"eps": 0.5}, 3000),
    ("dp_ucb", {"eps": 0.5, "streams": "pulled"}, 3000),
    ("dp_ucb_int", {"eps": 0.3}, 3000),
    ("dp_ucb_int", {"eps": 0.3, "noise": "sd"}, 3000),
    ("dp_se", {"eps": 1.0}, 30_000),
])
def test_baselines_match_reference(policy, params, horizon):
    ours = _trace(policy, horizon, **params)
    theirs = run_reference(f"seed002.{policy}", rep_seeds(SEED, 0, REPS), means=MEANS, horizon=horizon,
                           **params)
    assert np.array_equal(ours, theirs)


def test_dp_se_eliminates_and_commits():
    """Two arms with gap 0.5: epoch 1 (n_1 pulls each) must eliminate the bad arm."""
    means, horizon = [0.9, 0.4], 20_000
    ours = _trace("dp_se", horizon, means=means, eps=1.0)
    n_1 = epoch_pulls(1, 2, 1.0, 1.0 / horizon)
    assert np.all(ours[:, 2 * n_1:] == 0)
    assert np.array_equal(ours[:, :4], np.tile([0, 1, 0, 1], (REPS, 1)))


def test_dp_ucb_int_round_robin_phase():
    f = math.ceil(1 / 0.3)
    ours = _trace("dp_ucb_int", 3000, eps=0.3)
    assert np.array_equal(ours[0, :len(MEANS) * f], np.tile(np.arange(len(MEANS)), f))


def test_hybrid_counter_error_law():
    """S_hat(t) - S(t) is a sum of Laplace terms: (j+1) logarithmic ones of scale 2/eps and, inside
    block j (2^j < t < 2^(j+1)), popcount(t - 2^j) tree ones of scale 2j/eps."""
    x = np.random.default_rng(1).random(100)
    exact = np.cumsum(x)
    assert np.max(np.abs(hybrid_prefix_sums(x, eps=1e12, seed=0) - exact)) < 1e-9
    eps, reps = 2.0, 4000
    errors = np.array([hybrid_prefix_sums(x, eps=eps, seed=s) - exact for s in range(reps)])
    for t in (1, 2, 3, 7, 8, 13, 64, 100):
        j = t.bit_length() - 1
        var = 2 * (2 / eps) ** 2 * (j + 1) + 2 * (2 * j / eps) ** 2 * bin(t - 2 ** j).count("1")
        sample = errors[:, t - 1]
        assert abs(sample.mean()) < 6 * math.sqrt(var / reps)
        assert sample.var() == pytest.approx(var, rel=0.2)


@pytest.mark.parametrize("policy,params", [
    ("dp_ucb_bound", {"eps": 0.0}), ("dp_ucb", {"eps": -1.0}), ("dp_ucb_int", {"eps": 0.0}),
    ("dp_ucb_int", {"eps": 1.0, "v": 2.0}), ("dp_se", {"eps": 0.0}), ("dp_se", {"eps": 1.0, "beta": 1.5}),
])
def test_baselines_refuse_bad_input(policy, params):
    with pytest.raises(InputError):
        prepare(policy, "bernoulli", 1000, means=MEANS, **params)
