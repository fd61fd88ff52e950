"""Seed 004 policies on the engine: exact agreement with the plain-Python references,
the batch schedule, behaviour the paper states, T = 1e7, and bad input."""
import math

import numpy as np
import pytest

import dpbench
from dpbench import InputError
from dpbench.policies.private_phased_elimination import batch_schedule
from dpbench.randomness import rep_seeds
from tests.reference import run_engine_in_python, run_reference

# 8 unit actions around theta* (angle 0.05, norm 0.9): gaps 0.001-0.6, so noise and the
# widths decide when actions are eliminated within T = 5e4 (a harder test than the
# paper's random K = 10 instances, whose gaps are ~0.1-1).
ANGLES = np.array([-1.2, -0.6, -0.3, -0.1, 0.1, 0.3, 0.6, 1.2])
ACTIONS = np.column_stack([np.cos(ANGLES), np.sin(ANGLES)]).tolist()
THETA = (0.9 * np.array([math.cos(0.05), math.sin(0.05)])).tolist()
T = 50_000
SEED = 5
REPS = 3


def _trace(policy, horizon=T, **params):
    return dpbench.simulate(policy, "linear", horizon, REPS, SEED, actions=ACTIONS, theta=THETA,
                            trace=True, **params).trace


def _reference(horizon=T, **kwargs):
    return run_reference("seed004.phased_elimination", rep_seeds(SEED, 0, REPS), actions=ACTIONS,
                         theta=THETA, horizon=horizon, **kwargs)


CASES = [
    ("linear_central", {"eps": 1.0}, {"model": "central", "eps": 1.0}),
    ("linear_central", {"eps": 0.3, "noise_scale": "paper", "gamma_mode": "paper", "elim_max_over": "all"},
     {"model": "central", "eps": 0.3, "noise_scale": "paper", "gamma_mode": "paper", "elim_max_over": "all"}),
    ("linear_local", {"eps": 10.0, "gamma_mode": "paper"}, {"model": "local", "eps": 10.0, "gamma_mode": "paper"}),
    ("linear_shuffle", {"eps": 10.0, "eps0_mode": "paper"}, {"model": "shuffle", "eps": 10.0, "eps0_mode": "paper"}),
    ("linear_shuffle", {"eps": 10.0, "delta": 1e-3}, {"model": "shuffle", "eps": 10.0, "delta": 1e-3}),
    ("linear_batched", {"design": "uniform"}, {"model": "none", "design": "uniform"}),
]


@pytest.mark.parametrize("policy,params,ref", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_kernel_matches_reference(policy, params, ref):
    assert np.array_equal(_trace(policy, **params), _reference(**ref))


@pytest.mark.parametrize("policy,params,wrong", [
    ("linear_central", {"eps": 1.0}, {"model": "central", "eps": 1.0, "gamma_mode": "paper"}),
    ("linear_central", {"eps": 1.0}, {"model": "central", "eps": 1.0, "noise_scale": "paper"}),
    ("linear_local", {"eps": 10.0}, {"model": "local", "eps": 10.0, "gamma_mode": "paper"}),
    ("linear_shuffle", {"eps": 10.0}, {"model": "shuffle", "eps": 10.0, "eps0_mode": "paper"}),
])
def test_negative_control_a_changed_rule_is_detected(policy, params, wrong):
    """The comparison is sharp: one changed width, noise scale or level changes the arms."""
    assert not np.array_equal(_trace(policy, **params), _reference(**wrong))


# Lattimore & Szepesvari Algorithm 12 (the paper's non-private reference [24, Ch. 22]) against
# tests/reference/seed004.lattimore_phased_elimination, written from the book: the 8-action
# instance above (phases of 2 d pi / eps_l^2 log(k l (l+1) / delta) pulls: about 220, 870, 3.5e3,
# 1.4e4 at delta = 1/T, then a phase cut at T), and the paper's K = 10 sphere instance
# (instance_seed 0) with T = 2e5 (6 phases, the last one cut).  Exact agreement of the arm
# sequences: a phase one pull longer or shorter, or another elimination width, moves every later
# pull (the mutations ls_* of tests/mutations.toml are caught here).
def _sphere(k=10, seed=0):
    from dpbench.environments.linear import unit_sphere
    actions, theta = unit_sphere(k, 2, seed)
    return actions.tolist(), theta.tolist()


LS_CASES = [(ACTIONS, THETA, T, None), (ACTIONS, THETA, T, 0.1), (*_sphere(), 200_000, None),
            (*_sphere(), 200_000, 0.05)]


@pytest.mark.parametrize("actions,theta,horizon,delta", LS_CASES,
                         ids=["8 actions", "8 actions, delta=0.1", "sphere K=10", "sphere K=10, delta=0.05"])
def test_lattimore_phased_elimination_matches_the_books_algorithm(actions, theta, horizon, delta):
    params = {} if delta is None else {"delta": delta}
    ours = dpbench.simulate("linear_phased_elim", "linear", horizon, REPS, SEED, actions=actions, theta=theta,
                            trace=True, **params).trace
    theirs = run_reference("seed004.lattimore_phased_elimination", rep_seeds(SEED, 0, REPS), actions=actions,
                           theta=theta, horizon=horizon, delta=delta)
    assert np.array_equal(ours, theirs)
    for arms in theirs:         # the comparison exercises eliminations: the last tenth plays fewer actions
        assert len(set(arms[-horizon // 10:])) < len(set(arms))


def test_lattimore_negative_control_another_delta_changes_the_arms():
    """The comparison is sharp: the book's algorithm at another confidence (phase lengths
    log(k l (l+1)/delta) with delta = 0.01 instead of 1/T) gives other arm sequences."""
    ours = _trace("linear_phased_elim")
    theirs = run_reference("seed004.lattimore_phased_elimination", rep_seeds(SEED, 0, REPS), actions=ACTIONS,
                           theta=THETA, horizon=T, delta=0.01)
    assert not np.array_equal(ours, theirs)


def test_linucb_matches_reference():
    ours = _trace("linucb", horizon=3000)
    theirs = run_reference("seed004.linucb", rep_seeds(SEED, 0, REPS), actions=ACTIONS, theta=THETA,
                           horizon=3000)
    assert np.array_equal(ours, theirs)


def test_engine_loop_runs_unchanged_as_python():
    params = {"actions": ACTIONS, "theta": THETA, "eps": 1.0}
    python = run_engine_in_python("linear_shuffle", "linear", T, REPS, SEED, **params)
    assert np.array_equal(_trace("linear_shuffle", eps=1.0), python)


@pytest.mark.parametrize("horizon,q,batches,explore", [(10**6, 2.85814, 12, 457_097),
                                                       (10**7, 2.83773, 15, 9_621_758)])
def test_schedule_matches_spec_table(horizon, q, batches, explore):
    s = batch_schedule(horizon)
    assert s["q"] == pytest.approx(q, abs=5e-6)
    assert s["batches"] == batches
    assert s["nominal_explore_rounds"] == pytest.approx(explore, rel=2e-6)
    assert math.e <= s["q"] <= math.e ** 2
    assert s["q"] ** math.log(horizon) == pytest.approx(2 * horizon)


def test_design_exploration_then_commit():
    """Pulls before the commit are design pulls of batch sizes ceil(pi q^i): the first batch of
    T = 1e6 has about q = 2.86 pulls on a core set of 2-3 actions (<= q + 3 pulls)."""
    r = dpbench.simulate("linear_batched", "linear_sphere", 10**6, 1, 1, k=10, d=2, trace=True)
    trace = r.trace[0]
    change = np.flatnonzero(np.diff(trace)) + 1
    assert change[0] <= 3 + 3
    assert len(np.unique(trace[-10**5:])) == 1                 # the commit phase plays one action
    assert r.pulls.sum() == 10**6


def test_core_sets_are_recorded_from_the_run_itself():
    """``core_sets`` reads the batches of the very run the engine computes (same seeds): every
    action the compiled run pulls is in some batch's core set or is the committed one; in d = 2
    a core set has 2-3 actions (G-optimal support <= d(d+1)/2), the no-core-set ablation plays
    every active action."""
    from dpbench.engine.simulate import prepare
    from dpbench.policies.private_phased_elimination import core_sets
    kw = dict(k=200, d=2, instance_seed=0, eps=1.0)
    plan = prepare("linear_central", "linear_sphere", 10**5, SEED, **kw)
    batches = core_sets(plan, 2)
    compiled = dpbench.simulate("linear_central", "linear_sphere", 10**5, 2, SEED, **kw)
    for rep, recorded in enumerate(batches):
        assert recorded and {len(b.core) for b in recorded} <= {2, 3}
        played = set(np.flatnonzero(compiled.pulls[rep]))
        in_cores = set().union(*(set(b.core) for b in recorded))
        assert len(played - in_cores) <= 1                  # at most the committed action
        assert len(in_cores - played) <= 3 and len(in_cores) > 3  # a last batch cut short by T
    full = core_sets(prepare("linear_central", "linear_sphere", 10**5, SEED, design="uniform", **kw))[0]
    assert all(len(b.core) == b.active for b in full) and full[0].active == 200


def test_ten_million_rounds_are_routine():
    """Phased policies decide once per batch, so T = 1e7 costs less than a per-pull policy's
    T = 1e6: each run (2 x 1e7 pulls, compile excluded) takes less time than UCB1's 2 x 1e6
    pulls measured in the same test (20-40x less under load; a policy that pulled one arm per
    decision would take about 10x more)."""
    per_pull = dpbench.simulate("ucb1", "bernoulli", 10**6, 2, 3, means=[0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3,
                                                                         0.2, 0.1, 0.0]).seconds
    for policy, params in (("linear_central", {"eps": 0.1}), ("linear_local", {"eps": 1.0}),
                           ("linear_shuffle", {"eps": 1.0}), ("linear_phased_elim", {})):
        r = dpbench.simulate(policy, "linear_sphere", 10**7, 2, 3, k=10, d=2, **params)
        assert (r.pulls.sum(axis=1) == 10**7).all()
        assert np.isfinite(r.final_regrets).all() and (r.final_regrets >= 0).all()
        assert r.seconds < per_pull, (policy, r.seconds, per_pull)


def test_privacy_for_free_at_large_eps_and_local_is_worst():
    """Spec §8.4 A/B on the paper's K = 10 instance, fixed seed: at eps = 100 Alg. 1 is within
    10% of the non-private batched algorithm; at eps = 0.1 local > shuffle >= central."""
    env = {"k": 10, "d": 2, "instance_seed": 0}
    def run(p, **kw):
        return dpbench.simulate(p, "linear_sphere", 10**6, 8, 2, **env, **kw).mean[-1]
    base = run("linear_batched")
    assert run("linear_central", eps=100.0) <= 1.10 * base
    central, shuffle, local = (run(p, eps=0.1) for p in ("linear_central", "linear_shuffle", "linear_local"))
    assert local > shuffle >= central >= 0.95 * base


def test_corrected_modes_commit_to_the_best_action():
    """On a K = 10 paper-style instance (smallest gap 0.034) every repetition of every model
    ends committed to the optimal action at T = 1e6 (Lemma 3/5: the optimum survives w.p. >= 1 - 1/T)."""
    for policy, params in (("linear_batched", {}), ("linear_central", {"eps": 0.1}),
                           ("linear_shuffle", {"eps": 1.0}), ("linear_local", {"eps": 1.0})):
        r = dpbench.simulate(policy, "linear_sphere", 10**6, 100, 7, k=10, d=2, instance_seed=2, **params)
        assert (r.pulls[:, np.argmax(r.means)] > 5 * 10**5).all(), policy


def test_instances_drawn_per_repetition_come_from_the_repetitions_seeds():
    """instance="per_repetition" (spec 8.3's default): repetition r runs on the instance drawn from
    SeedSequence(its seed, spawn_key=(instance_seed,)), with its rewards from its seed as usual: the
    same numbers as that instance given explicitly and run as repetition r; for any thread count or
    chunking; every policy of an experiment (one master seed) meets the same instances."""
    from dpbench.environments.linear import unit_sphere
    kw = dict(k=10, d=2, instance="per_repetition", instance_seed=3, eps=1.0)
    one = dpbench.simulate("linear_central", "linear_sphere", 10**5, 5, SEED, threads=1, **kw)
    two = dpbench.simulate("linear_central", "linear_sphere", 10**5, 5, SEED, threads=2, **kw)
    tail = dpbench.simulate("linear_central", "linear_sphere", 10**5, 2, SEED, first_rep=3, **kw)
    assert np.array_equal(one.regret, two.regret) and np.array_equal(one.regret[3:], tail.regret)
    for r in (0, 3):
        seq = np.random.SeedSequence(int(rep_seeds(SEED, r, 1)[0]), spawn_key=(3,))
        actions, theta = unit_sphere(10, 2, seq)
        alone = dpbench.simulate("linear_central", "linear", 10**5, 1, SEED, first_rep=r, actions=actions.tolist(),
                                 theta=theta.tolist(), eps=1.0)
        assert np.array_equal(alone.regret[0], one.regret[r]) and np.array_equal(alone.pulls[0], one.pulls[r])
        if r == 0:
            assert np.array_equal(one.means, alone.means)          # the result holds repetition 0's means
    fixed = dpbench.simulate("linear_central", "linear_sphere", 10**5, 5, SEED, k=10, d=2, instance_seed=3, eps=1.0)
    assert len({tuple(p) for p in fixed.pulls}) < len({tuple(p) for p in one.pulls})


def test_a_checked_run_replays_each_repetitions_own_instance():
    r = dpbench.simulate("linear_shuffle", "linear_sphere", 10**5, 2, SEED, first_rep=1, check=True, k=10, d=2,
                         instance="per_repetition", eps=1.0)
    assert r.metadata["check"]["outcome"] == "passed"
    with pytest.raises(InputError, match="instance"):
        dpbench.simulate("linear_central", "linear_sphere", 1000, 1, 0, instance="each", eps=1.0)


def test_gaussian_rewards_draw_one_normal_per_batch_and_warn():
    r = dpbench.simulate("linear_central", "linear_sphere", 10**5, 2, 1, k=5, d=3, noise="gaussian",
                         sigma=0.5, eps=1.0)
    assert any("unbounded" in w for w in r.warnings)


def test_paper_literal_modes_are_flagged():
    plan = dpbench.engine.simulate.prepare("linear_shuffle", "linear_sphere", 10**4, 0, eps=1.0,
                                           noise_scale="paper", gamma_mode="paper",
                                           elim_max_over="all", eps0_mode="paper")
    text = " ".join(plan.warnings)
    for erratum in ("E1", "E2", "E4", "E5"):
        assert erratum in text
    assert plan.built.info["errata_modes"]["eps0_mode"] == "paper"


def test_net_resolution_coarser_than_one_over_t_is_flagged():
    plan = dpbench.engine.simulate.prepare("linear_central", "linear_sphere_net", 10**4, 0, zeta=0.1, eps=1.0)
    assert any("not paper-faithful" in w for w in plan.warnings)
    assert 0 <= plan.instance.info["discretization_gap"] <= 0.1


@pytest.mark.parametrize("env,params,needle", [
    ("linear", {"actions": [1.0, 0.0], "theta": [1.0, 0.0]}, "2-d array"),
    ("linear", {"actions": np.zeros((3, 0)).tolist(), "theta": []}, "d must be >= 1"),
    ("linear", {"actions": [[1.0, 0.0], [float("nan"), 0.0]], "theta": [1.0, 0.0]}, "finite"),
    ("linear", {"actions": [[1.0, 0.0], [0.0, 1.0]], "theta": [float("inf"), 0.0]}, "theta"),
    ("linear", {"actions": [[1.0, 0.0], [0.0, 1.0]], "theta": [1.0, 0.0, 0.0]}, "theta"),
    ("linear", {"actions": [[2.0, 0.0], [0.0, 1.0]], "theta": [1.0, 0.0]}, "norm <= 1"),
    ("linear", {"actions": "1,0;0", "theta": "1,0"}, "same length"),
    ("linear_sphere", {"d": 0}, "d"),
    ("linear_sphere", {"k": 1}, "k"),
])
def test_bad_environment_input(env, params, needle):
    with pytest.raises(InputError, match=needle):
        dpbench.simulate("linear_central", env, 1000, 1, 0, eps=1.0, **params)


@pytest.mark.parametrize("policy,params,needle", [
    ("linear_central", {"eps": 0.0}, "eps"),
    ("linear_central", {"eps": -1.0}, "eps"),
    ("linear_local", {"eps": float("inf")}, "eps"),
    ("linear_shuffle", {"eps": 1.0, "delta": 0.0}, "delta"),
    ("linear_shuffle", {"eps": 1.0, "delta": 1.0}, "delta"),
    ("linear_shuffle", {"eps": 1.0, "delta": 1.5}, "delta"),
    ("linear_central", {"eps": 1.0, "gamma_mode": "loose"}, "gamma_mode"),
    ("linear_central", {"eps": 1.0, "design_tol": 0.0}, "design_tol"),
    ("linear_central", {}, "eps"),
])
def test_bad_policy_input(policy, params, needle):
    with pytest.raises(InputError, match=needle):
        dpbench.simulate(policy, "linear_sphere", 1000, 1, 0, **params)


def test_policy_needs_a_linear_environment():
    with pytest.raises(InputError, match="linear environment"):
        dpbench.simulate("linear_central", "bernoulli", 1000, 1, 0, means=[0.5, 0.6], eps=1.0)
    with pytest.raises(InputError, match="linear environment"):
        dpbench.simulate("linucb", "bernoulli", 1000, 1, 0, means=[0.5, 0.6])


def test_a_run_that_never_eliminates_is_a_fixed_schedule():
    """At eps = 0.01 Alg. 1 makes the same pulls in every repetition up to T = 1e5 (the design's
    schedule, the same regret); the reports treat it like a start phase (unobservable, or exact at
    the paper's own horizon).  At eps = 5 it learns."""
    from dpbench.reporting.schedules import schedule_limit
    stuck = dpbench.simulate("linear_central", "linear_sphere", 10**5, 10, 3, k=10, d=2, instance_seed=0, eps=0.01)
    limit = schedule_limit(stuck)
    assert limit is not None and "fixed schedule" in limit.reason
    learns = dpbench.simulate("linear_central", "linear_sphere", 10**5, 10, 3, k=10, d=2, instance_seed=0, eps=5.0)
    assert schedule_limit(learns) is None


def test_the_phased_policies_compile_at_llvms_default_inlining():
    """The phased linear policies decide once per batch: their loop compiles at LLVM's default
    inlining threshold (25-30% less compile time, the same speed); per-pull policies keep the
    loop's high threshold, which their speed depends on."""
    from dpbench.engine.kernel import INLINE_THRESHOLD, LLVM_DEFAULT_INLINE_THRESHOLD, inline_threshold
    from dpbench.engine.simulate import prepare
    for policy, kw in (("linear_central", {"eps": 1.0}), ("linear_local", {"eps": 1.0}),
                       ("linear_shuffle", {"eps": 1.0}), ("linear_batched", {}), ("linear_phased_elim", {})):
        plan = prepare(policy, "linear_sphere", 10**4, SEED, **kw)
        assert inline_threshold(plan.built.policy) == LLVM_DEFAULT_INLINE_THRESHOLD, policy
    plan = prepare("linucb", "linear_sphere", 10**4, SEED)
    assert inline_threshold(plan.built.policy) == INLINE_THRESHOLD
    plan = prepare("ucb1", "bernoulli", 10**4, SEED, means=[0.5, 0.4])
    assert inline_threshold(plan.built.policy) == INLINE_THRESHOLD
