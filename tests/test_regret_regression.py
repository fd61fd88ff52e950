"""Regret regression: every registered policy's final regret matches its stored baseline.

The configurations, the seeds and the two-sided test (Welch's t and Kolmogorov-Smirnov at
ALPHA) are in verify/regret_baseline.py; regenerate after an intended change with
``dpbench baseline --regenerate POLICY``.
"""
import pytest

import dpbench
from verify import regret_baseline as reg


@pytest.fixture(scope="module")
def baseline():
    return reg.load()["policies"]


def _compare(policy, entry, **override):
    try:
        return reg.compare(policy, entry, **override)
    except ValueError as err:
        pytest.fail(str(err))


@pytest.mark.parametrize("policy", sorted(dpbench.ALGORITHMS))
def test_regret_matches_baseline(policy, baseline):
    if policy not in baseline:
        pytest.fail(f"{policy!r} has no regret baseline: add its configuration to verify/regret_baseline.py if the "
                    f"default does not suit it, then run {reg.REGENERATE} {policy}")
    p, new, base = _compare(policy, baseline[policy])
    assert p >= reg.ALPHA, (
        f"{policy}: final regret {new.mean():.2f} (sd {new.std(ddof=1):.2f}) against the baseline's "
        f"{base.mean():.2f} (sd {base.std(ddof=1):.2f}), two-sided p = {p:.2e} < {reg.ALPHA:g}: the change "
        f"made it {'worse' if new.mean() > base.mean() else 'better'}. If that is intended, run "
        f"{reg.REGENERATE} {policy}")


def test_every_baseline_can_see_a_change_of_the_random_part(baseline):
    """A baseline without spread compares a schedule only (the regression test of a policy's
    noise needs repetitions that differ), and no baseline is kept for a policy that is gone."""
    flat = [p for p, e in baseline.items() if reg.spread(e["final_regrets"])["distinct"] < 2]
    assert not flat, f"baselines without spread: {flat}; choose configurations where the random part matters"
    assert set(baseline) <= set(dpbench.ALGORITHMS), sorted(set(baseline) - set(dpbench.ALGORITHMS))


@pytest.mark.parametrize("policy,override", [("ldp_ucb_l", {"eps": 0.8}), ("ldp_ucb_b", {"eps": 1.25}),
                                             ("gdp_elim_new", {"eps": 0.2})])
def test_negative_control_a_worse_or_better_policy_is_caught(policy, override, baseline):
    """eps 0.8 instead of 1 (about 12% more regret), eps 1.25 (less regret) and, for an
    elimination algorithm whose regret takes two values, eps 0.2 instead of 0.1 are all flagged."""
    p, new, base = _compare(policy, baseline[policy], **override)
    assert p < reg.ALPHA, f"{policy} with {override}: {new.mean():.1f} vs {base.mean():.1f} not flagged (p = {p:.3g})"
