"""The width (the sensitivity of the released quantity) that each central elimination policy
passes to its Laplace release (``central_laplace.laplace_release``, whose law
tests/test_mechanism_laws.py checks).

An elimination decision hinges on the noise only when it beats the confidence term: DP-SE's
release is Lap(1/(eps n_e)) against a threshold 2 ln(4|S|e^2/beta)/(eps n_e), crossed with
probability about (beta/(4|S|e^2))^2.  So a wrong width (noise x0.5 or x1.5) changes neither
the arm sequences nor the regret that the reference and regression tests compare: the
mutation run left DP-SE's, DP Robust SE's and linear_central's widths alive.  These tests run
the policy's own verbs as plain Python (the check mode's ``contracts.run_checked``, nothing
compiled) and record every release.
"""
from __future__ import annotations

import sys

from dpbench.engine.contracts import run_checked
from dpbench.engine.simulate import prepare
from dpbench.policies import dp_se, private_phased_elimination, robust_elimination


def _recorded_calls(monkeypatch, module, name, policy, env, horizon, **params):
    """(arguments, the calling frame's locals) of every call of ``module.name`` in ``policy``'s
    first repetition, run as plain Python (nothing compiled, so the replaced name is seen)."""
    original, calls = getattr(module, name), []

    def recorder(*args):
        calls.append((args, sys._getframe(1).f_locals))
        return original(*args)

    monkeypatch.setattr(module, name, recorder)
    run_checked(prepare(policy, env, horizon, 3, **params), 0)
    assert calls, f"{policy} never called {name} in {horizon} pulls"
    return calls


def _recorded_releases(monkeypatch, module, policy, env, horizon, **params):
    """(width, eps, the releasing frame's locals) of every ``laplace_release`` of ``policy``."""
    return [(width, eps, frame) for (_, _, width, eps), frame in
            _recorded_calls(monkeypatch, module, "laplace_release", policy, env, horizon, **params)]


def test_dp_se_releases_each_epoch_mean_of_unit_rewards_with_width_one(monkeypatch):
    """Rewards in [0, 1]: one reward changes an epoch's sum by at most 1 (Sajed & Sheffet)."""
    calls = _recorded_releases(monkeypatch, dp_se, "dp_se", "bernoulli", 20_000, eps=0.5,
                               means=[0.9, 0.5, 0.4])
    assert {(width, eps) for width, eps, _ in calls} == {(1.0, 0.5)}


def test_dp_robust_se_releases_truncated_sums_with_width_2B(monkeypatch):
    """Rewards truncated to [-B, B] (B: the epoch's truncation level, read from the policy's
    state in the releasing frame): one reward changes a sum by at most 2B (seed 003, DPRSE)."""
    calls = _recorded_releases(monkeypatch, robust_elimination, "dp_robust_se", "bernoulli", 20_000,
                               v=1.0, eps=1.0, constants="scaled", means=[0.9, 0.5])
    assert all(width == 2.0 * frame["state"].bound[0] and eps == 1.0 for width, eps, frame in calls)


def test_linear_central_releases_batch_sums_with_width_of_the_reward_range(monkeypatch):
    """Algorithm 1 (central): one client's reward in [-1, 1] changes a batch sum by at most 2."""
    calls = _recorded_releases(monkeypatch, private_phased_elimination, "linear_central", "linear_sphere",
                               20_000, eps=1.0)
    assert {(width, eps) for width, eps, _ in calls} == {(2.0, 1.0)}


def test_gdp_elim_new_draws_lemma15_at_eps_and_half_delta(monkeypatch):
    """GDP-Elim-New (seed 002, Thm 17) spends delta/2 on its perturbations: every theta is drawn
    from Lemma 15's law at (eps, delta/2) (the lattice draw calibrates its own edge constant
    from these).  Like the widths above, a level off by a factor barely moves its arm sequences."""
    from dpbench.policies import gdp_elim
    calls = _recorded_calls(monkeypatch, gdp_elim, "lemma15_lattice_draw", "gdp_elim_new", "bernoulli", 3000,
                            eps=1.0, delta=0.1, means=[0.9, 0.5])
    levels = {(eps, delta) for (_, _, eps, delta), _ in calls}
    assert levels == {(1.0, 0.05)}, levels
