"""Every seed 000/001 agent picks exactly the arms of its plain-Python reference."""
import numpy as np
import pytest

import dpbench
from dpbench.randomness import rep_seeds
from tests.reference import run_engine_in_python, run_reference

MEANS = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5]
T = 3000
SEED = 11
REPS = 3


def _trace(policy, **params):
    return dpbench.simulate(policy, "bernoulli", T, REPS, SEED, means=MEANS, trace=True, **params).trace


@pytest.mark.parametrize("policy,ref,kwargs", [
    ("ucb1", "seed000.ucb1", {}),
    ("ldp_ucb_b", "seed000.ucb1", {"curator": "ctb", "eps": 1.0}),
    ("ldp_ucb_l", "seed000.ldp_ucb_l", {"eps": 1.0}),
])
def test_seed000_agents_match_reference(policy, ref, kwargs):
    params = {k: v for k, v in kwargs.items() if k == "eps"}
    ours = _trace(policy, **params)
    theirs = run_reference(ref, rep_seeds(SEED, 0, REPS), means=MEANS, horizon=T, **kwargs)
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("policy,env,ref,kwargs", [
    ("ucb1_sigmoid", "gaussian", "seed000.ucb1", {"law": "gaussian", "sigmoid": True}),
    ("ldp_ucb_bs", "gaussian", "seed000.ucb1", {"law": "gaussian", "sigmoid": True, "curator": "ctb", "eps": 0.5}),
    ("ldp_ucb_ls", "gaussian", "seed000.ldp_ucb_l", {"law": "gaussian", "sigmoid": True, "eps": 0.5}),
    ("ldp_ucb_l", "mixed", "seed000.ldp_ucb_l", {"law": "mixed", "eps": 2.0}),
])
def test_sigmoid_and_mixed_variants_match_reference(policy, env, ref, kwargs):
    means = [0.9, 0.8, 0.7, 0.6, 0.5]
    params = {k: v for k, v in kwargs.items() if k == "eps"}
    ours = dpbench.simulate(policy, env, T, REPS, SEED, means=means, trace=True, **params).trace
    theirs = run_reference(ref, rep_seeds(SEED, 0, REPS), means=means, horizon=T, **kwargs)
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("policy,variant,params,dist,values", [
    ("heldp_ucb_l", "L", {"eps_dist": "discrete", "eps_min": 1.0}, "discrete", [0.0, 0.2, 1.0, 2.0, 100.0]),
    ("heldp_ucb_l", "L", {"eps": 0.5}, "fixed", [0.5]),
    ("heldp_ucb_b", "B", {"eps_dist": "discrete", "eps_min": 0.2}, "discrete", [0.0, 0.2, 1.0, 2.0, 100.0]),
    ("heldp_ucb_b", "B", {"eps": 2.0}, "fixed", [2.0]),
])
def test_heldp_agents_match_reference(policy, variant, params, dist, values):
    ours = _trace(policy, **params)
    eps_min = params.get("eps_min", params.get("eps"))
    theirs = run_reference("seed000.heldp_ucb", rep_seeds(SEED, 0, REPS), means=MEANS, horizon=T,
                           variant=variant, eps_min=eps_min, dist=dist, values=values)
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("policy,variant,params,dist,values", [
    ("heldp_ucb_bs", "B", {"eps_dist": "discrete", "eps_min": 1.0}, "discrete", [0.0, 0.2, 1.0, 2.0, 100.0]),
    ("heldp_ucb_ls", "L", {"eps_dist": "discrete", "eps_min": 1.0}, "discrete", [0.0, 0.2, 1.0, 2.0, 100.0]),
    ("heldp_ucb_ls", "L", {"eps": 0.5}, "fixed", [0.5]),
])
def test_heldp_sigmoid_variants_match_reference(policy, variant, params, dist, values):
    """Corollary 13's agents: HeLDP-UCB-LS and -BS pick the arms of the reference on Gaussian arms."""
    means = [0.9, 0.8, 0.7, 0.6, 0.5]
    ours = dpbench.simulate(policy, "gaussian", T, REPS, SEED, means=means, trace=True, **params).trace
    eps_min = params.get("eps_min", params.get("eps"))
    theirs = run_reference("seed000.heldp_ucb", rep_seeds(SEED, 0, REPS), means=means, horizon=T,
                           variant=variant, eps_min=eps_min, dist=dist, values=values, law="gaussian",
                           sigmoid=True)
    assert np.array_equal(ours, theirs)


def test_engine_loop_runs_unchanged_as_python():
    """The compiled kernel and the same engine code run as Python agree bit for bit."""
    ours = _trace("ldp_ucb_l", eps=2.0)
    python = run_engine_in_python("ldp_ucb_l", "bernoulli", T, REPS, SEED, means=MEANS, eps=2.0)
    assert np.array_equal(ours, python)
