"""The policies whose per-pull reference counting numba prunes keep it pruned.

Each atomic increment and decrement numba leaves in the simulation loop costs tens of cycles;
removing them made HeLDP-UCB about 2x, DP-RobustUCB 1.3x and DP-UCB faster, with the same
draws.  A raise path or an early return added to one of these verbs brings them back silently:
the results stay identical and the slowdown is lost in a shared machine's timing noise.  So the
count is tested (``tests/benchmarks/refcounts.py``; each policy is compiled afresh, 5-30 s).
"""
import pytest

from tests.benchmarks.refcounts import loop_refcounts

pytestmark = pytest.mark.slow

#: every policy whose loop had no NRT_incref left when this test was written
PRUNED = ("ucb1", "ldp_ucb_b", "ldp_ucb_l", "heldp_ucb_b", "heldp_ucb_l", "dp_ucb", "dp_ucb_bound", "dp_ucb_int",
          "dp_robust_ucb", "dp_ftpl_gauss", "dp_ftpl_new", "dp_ftpl_beta", "thompson",
          "gaussian_thompson")


@pytest.mark.parametrize("policy", PRUNED)
def test_no_reference_counting_left_in_the_loop(policy):
    counts = loop_refcounts(policy)
    assert counts.increfs == 0, (
        f"{policy}: {counts.increfs} NRT_incref call(s) in the simulation loop (was 0): a verb gained a "
        "raise path or releases its state in a branch (dpbench/guides/extending.md, 'Speed: few arrays in the state')")
