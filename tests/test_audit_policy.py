"""Algorithm-level audits: bandit policies on fixed reward tables (replay environment)."""
import math

import numpy as np
import pytest

from dpbench import InputError
from dpbench.engine.catalog import Built
from verify.audit.policy_audit import (
    audit_policy,
    first_random_step,
    flip_one,
    gdp_elim_short_phases,
    policy_mechanism,
    run_traces,
)

N = 100_000
ALPHA = 1e-4


def _build(name, **params):
    from dpbench.engine.catalog import ALGORITHMS
    spec = ALGORITHMS.get_spec(name)
    return lambda instance, horizon: spec.build(instance, horizon, **params)


def test_replay_environment_returns_the_table_in_order():
    """UCB1 with raw rewards is deterministic: every run pulls the same arms, and the first
    round visits each arm once, reading column 0 of the table."""
    table = np.array([[1.0, 0.0, 1.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0, 1.0, 1.0]])
    traces = run_traces(_build("ucb1"), table, 6, 64, seed=1)
    assert np.all(traces == traces[0])
    assert list(traces[0, :2]) == [0, 1]
    # by hand: after (1, 0) arm 0 leads; UCB1 ties go to the lowest index
    assert traces[0, 2] == 0


def test_replay_table_exhaustion_is_reported():
    table = np.ones((2, 2))
    with pytest.raises(InputError, match="replay table exhausted"):
        run_traces(_build("ucb1"), table, 6, 8, seed=1)


def test_ldp_ucb_next_arm_is_private_at_its_level_and_caught_above_it():
    table = np.ones((2, 8))
    table[1] = 0.0
    ok = audit_policy("ldp_ucb_b", table, eps=1.0, n=N, alpha=ALPHA, seed=3, policy_params={"eps": 1.0})
    assert ok.info["step"] == 2 and not ok.violated, str(ok)
    # the step-2 arm of LDP-UCB-B reveals arm 0's CTB bit: P[arm 1] ratio is exactly e^eps
    assert ok.eps_lower_bound > 0.9
    leaky = audit_policy("ldp_ucb_b", table, eps=1.0, n=N, alpha=ALPHA, seed=3, policy_params={"eps": 2.0})
    assert leaky.violated and leaky.eps_lower_bound > 1.0


def _without_curator(name, **params):
    """``name``'s policy fed raw rewards: its curator replaced by UCB1's direct mechanism (the
    bug of a privatisation path that is skipped)."""
    from dpbench.engine.catalog import ALGORITHMS
    build, raw = _build(name, **params), ALGORITHMS.get_spec("ucb1")

    def leaky(instance, horizon):
        return Built(build(instance, horizon).policy, raw.build(instance, horizon).mechanism)
    return leaky


def test_ldp_ucb_l_action_sequence_is_private():
    """The whole action sequence up to 3 steps past forced exploration (LDP-UCB-L's first
    random decision is step 28 on this table): private at eps = 1 with the CTL curator, and
    caught without it (the raw reward changes the arms)."""
    table = np.tile([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0], (2, 3))
    assert first_random_step(_build("ldp_ucb_l", eps=1.0), [table, flip_one(table)], 31) == 28
    res = audit_policy("ldp_ucb_l", table, output="actions", horizon=31, eps=1.0, n=N, alpha=ALPHA, seed=4,
                       policy_params={"eps": 1.0})
    assert not res.violated, str(res)
    leak = audit_policy(_without_curator("ldp_ucb_l", eps=1.0), table, output="actions", horizon=31, eps=1.0,
                        n=N, alpha=ALPHA, seed=4)
    assert leak.violated and leak.eps_lower_bound > 1.0, str(leak)


def test_dp_ftpl_gauss_start_phase_is_needed():
    """Per-step DP (Def. 1) at the first random decision: with its start phase of
    ceil(N_G*) = 8 pulls per arm DP-FTPL-Gauss holds (1, 0.01); without it (spec C9)
    the next arm leaks (about eps = 1.1 at delta = 0.01 with 10 arms)."""
    table = np.ones((10, 16))
    params = {"eps": 1.0, "delta": 0.01}
    ok = audit_policy("dp_ftpl_gauss", table, eps=1.0, delta=0.01, n=N, alpha=ALPHA, seed=5,
                      policy_params=params)
    assert ok.info["step"] == 80 and not ok.violated, str(ok)
    bad = audit_policy("dp_ftpl_gauss", table, eps=1.0, delta=0.01, n=4 * N, alpha=ALPHA, seed=5,
                       policy_params={**params, "start_pulls": 1})
    assert bad.info["step"] == 10
    assert bad.violated and bad.eps_lower_bound > 1.0, str(bad)


def test_dp_ftpl_new_next_arm_is_private():
    table = np.ones((3, 4))
    table[2] = 0.0
    res = audit_policy("dp_ftpl_new", table, eps=1.0, delta=0.01, n=N, alpha=ALPHA, seed=6, flip=(2, 0),
                       policy_params={"eps": 1.0, "delta": 0.01})
    assert res.info["step"] == 3 and not res.violated, str(res)


def test_gdp_elim_new_exploitation_decision_is_private():
    rng = np.random.default_rng(0)
    table = (rng.random((2, 40)) < np.array([[0.9], [0.2]])).astype(float)
    res = audit_policy(gdp_elim_short_phases(1.0, 0.1), table, output="exploit", horizon=30, eps=1.0, delta=0.1,
                       n=N, alpha=ALPHA, seed=7)
    assert not res.violated, str(res)
    # negative control: the perturbation built for eps = 4 while the claim stays eps = 1
    leaky = audit_policy(gdp_elim_short_phases(4.0, 0.1), table, output="exploit", horizon=30, eps=1.0, delta=0.1,
                         n=N, alpha=ALPHA, seed=7)
    assert leaky.violated and leaky.eps_lower_bound > 1.0, str(leaky)
    # the "exploit" output is (first step of the final run of equal arms, that arm) of each
    # action sequence, and it is random: when and which arm varies (so the audit compares laws)
    decisions = policy_mechanism(gdp_elim_short_phases(1.0, 0.1), arms=2, pulls=40, horizon=30,
                                 output="exploit")(table, 2000, 1)
    traces = run_traces(gdp_elim_short_phases(1.0, 0.1), table, 30, 2000, 1)
    for trace, (start, arm) in zip(traces, decisions):
        first = len(trace) - 1
        while first > 0 and trace[first - 1] == trace[-1]:
            first -= 1
        assert (start, arm) == (first, trace[-1])
    assert np.unique(decisions[:, 0]).size > 1 and np.unique(decisions[:, 1]).size == 2


def test_policy_audit_input_checks():
    table = np.ones((2, 5))
    with pytest.raises(InputError, match="exactly one reward"):
        audit_policy("ucb1", table, np.zeros((2, 5)), eps=1.0, n=N)
    with pytest.raises(InputError, match="horizon is required"):
        audit_policy("ucb1", table, output="actions", eps=1.0, n=N)
    with pytest.raises(InputError, match="no random decision"):
        audit_policy("ucb1", table, eps=1.0, n=N)
    with pytest.raises(InputError, match="unknown output"):
        policy_mechanism("ucb1", arms=2, pulls=5, horizon=3, output="everything")
    assert flip_one(table, 1, 2)[1, 2] == 0.0 and math.isclose(flip_one(table).sum(), 9.0)
    # a reward outside the table was an IndexError traceback, and -1 silently the last arm
    for flip, match in [((5, 0), r"^flip arm must be an integer in \[0, 1\] \(got 5\)"),
                        ((0, 9), r"^flip pull must be an integer in \[0, 4\] \(got 9\)"),
                        ((-1, 0), r"^flip arm must be an integer in \[0, 1\] \(got -1\)"),
                        ((0,), r"^flip must be \(arm, pull\)")]:
        with pytest.raises(InputError, match=match):
            audit_policy("ucb1", table, eps=1.0, n=N, flip=flip)


def test_a_policy_audit_without_n_is_sequential_and_stops_at_a_violation():
    """Neither n nor a budget: a sequential audit within POLICY_BUDGET runs, whose rounds choose their
    events on the runs before them; LDP-UCB-B at eps = 2 against a claim of 1 is caught with a few
    thousand runs (simulations) in all, the correct one spends its budget without a rejection."""
    from verify.audit.policy_audit import POLICY_BUDGET
    table = np.tile([[1.0], [0.0]], (1, 8))
    leaky = audit_policy("ldp_ucb_b", table, eps=1.0, seed=1, policy_params={"eps": 2.0})
    assert leaky.violated and leaky.sequential.stopped_early and leaky.n_samples < 20_000
    ok = audit_policy("ldp_ucb_b", table, eps=1.0, seed=1, budget=30_000, policy_params={"eps": 1.0})
    assert ok.status == "not rejected" and ok.sequential.budget_exhausted and ok.n_samples <= 30_000
    assert POLICY_BUDGET == 500_000


def test_the_policy_report_puts_fixed_n_beside_sequential(monkeypatch, tmp_path):
    from verify.audit.suites import policies
    table = np.tile([[1.0], [0.0]], (1, 8))
    cases = [policies.PolicyCase("LDP-UCB-B (local), next arm", "ldp_ucb_b", table, 1.0, 0.0, {"eps": 1.0},
                                 ceiling=1.0, local=True),
             policies.PolicyCase("control: LDP-UCB-B at eps = 2", "ldp_ucb_b", table, 1.0, 0.0, {"eps": 2.0},
                                 control=True)]
    monkeypatch.setattr(policies, "cases", lambda: cases)
    monkeypatch.setattr(policies, "POLICY_N", 20_000)
    policies.write(tmp_path / "policies.md", seed=1)
    text = (tmp_path / "policies.md").read_text()
    assert text.startswith("# Policy audits")
    assert "| LDP-UCB-B (local), next arm | (1, 0) | 2 | 1.0000 | holds, 0.9" in text
    assert "control: LDP-UCB-B at eps = 2: the sequential audit caught it with " in text
    assert "Provenance: dpbench" in text
    assert policies.dp_ftpl_gauss_ceiling(1.0, 0.01) == pytest.approx(0.3599, abs=1e-4)


def test_a_bound_above_a_policys_exact_eps_is_named_a_false_positive():
    """A correct policy at its exact eps is VIOLATED in at most alpha of seeds (LDP-UCB-B at seed 0 of the
    report, 1.0222 against its exact 1.0000): the report says what that row is, not only "VIOLATED"."""
    from types import SimpleNamespace

    from verify.audit.suites import policies
    case = policies.PolicyCase("LDP-UCB-B (local), next arm", "ldp_ucb_b", np.ones((2, 8)), 1.0, 0.0, {"eps": 1.0},
                               ceiling=1.0, local=True)

    def result(bound, violated):
        return SimpleNamespace(law=SimpleNamespace(eps_lower_bound=bound, tested=True, violated=violated),
                               violated=violated, info={"step": 2},
                               n_samples=1000, witness={"event": "output == 1"})
    text = policies.report([(case, result(1.0222, True), result(0.966, False), 1.0, 1.0)], seed=0, command="x")
    assert ("LDP-UCB-B (local), next arm: the fixed-n bound 1.0222 is above the policy's exact eps 1.0000, a false "
            "statement, which an audit at alpha = 0.05 makes with probability at most 0.05 per row") in text
    assert "a false positive, not a bug of the policy" in text and "sequential bound 0.9660" not in text


def test_a_new_policy_audited_after_another_loads_the_shared_cached_code_without_aborting(tmp_path):
    """The replay environment's draw calls numba.get_thread_id(), a symbol numba registers with LLVM
    only when its threading layer launches.  A process auditing a second policy compiles a new
    simulation kernel, whose non-parallel callees (``components.report_each``, which inlines the
    draw) come from the cache the first policy's process left: before anything had launched the
    layer, the process aborted ("LLVM ERROR: Symbol not found: get_thread_id", exit 134), as
    ``dpbench audit-suite --policies`` did after the README's tests.  The loop (``engine.kernel._Loop``)
    launches the layer before it compiles.  Two processes, one cache."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = ("import sys, numpy as np\n"
              "from verify.audit.policy_audit import audit_policy\n"
              "r = audit_policy(sys.argv[1], np.ones((5, 8)), eps=1.0, delta=0.01, n=2000, alpha=0.1, seed=2,\n"
              "                 step=5, policy_params={'eps': 1.0, 'delta': 0.01})\n"
              "print('audited', sys.argv[1])\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    for policy in ("dp_ftpl_new", "dp_ftpl_gauss"):
        proc = subprocess.run([sys.executable, "-c", script, policy], capture_output=True, text=True, env=env,
                              cwd=str(tmp_path))
        assert proc.returncode == 0 and f"audited {policy}" in proc.stdout, (policy, proc.returncode,
                                                                            proc.stderr[-500:])
