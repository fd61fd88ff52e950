"""Shuffle amplification (eq. 10), its inverse, the local randomiser and the shuffler
(seed 004 Sec. 4-5; spec §2.7-2.8, §9.1 items 2, 6, 8)."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

import dpbench
from dpbench import InputError
from dpbench.mechanisms.shuffle_amplification import (
    amplification_inverse,
    amplified_eps,
    fmt_limit,
    local_eps,
    shuffle_batch,
)

DELTAS = [1e-3, 1e-6, 1e-9]
NS = [2, 5, 50, 1000, 10**5, 10**7]


def test_f_is_zero_at_zero_and_strictly_increasing():
    grid = np.concatenate([[0.0], np.logspace(-6, 1.5, 200)])
    for n in NS:
        for delta in DELTAS:
            f = np.array([amplified_eps(e, n, delta) for e in grid])
            assert f[0] == 0.0
            assert (np.diff(f) > 0).all()


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("n", NS)
def test_inverse_really_inverts(n, delta):
    for eps in [1e-4, 0.01, 0.1, 1.0, 5.0, 30.0, 100.0]:
        eps0 = amplification_inverse(eps, float(n), delta)
        assert abs(amplified_eps(eps0, n, delta) - eps) < 1e-10 * max(1.0, eps)


def test_negative_control_inverse_with_the_wrong_delta_does_not_invert():
    eps0 = amplification_inverse(1.0, 1000.0, 1e-3)
    assert abs(amplified_eps(eps0, 1000, 1e-6) - 1.0) > 1e-3


def test_small_eps0_asymptote():
    for n in (1000, 10**5):
        eps0, delta = 1e-3, 1e-6
        approx = 4 * eps0 * (math.sqrt(math.log(4 / delta) / n) + 1 / n)
        assert amplified_eps(eps0, n, delta) == pytest.approx(approx, rel=0.01)


# spec §2.8 table: eps0^(i) = f^{-1}_{n_i, 1e-6}(eps) on the T = 1e6 schedule; the table's
# n_i are ceil(q^i) + 2 (a 3-atom core set's ceilings), which reproduces every entry.
SPEC_TABLE = {
    0.01: [.001, .002, .003, .005, .009, .015, .025, .042, .070, .116, .189, .304],
    0.1: [.013, .021, .032, .053, .088, .145, .236, .376, .583, .879, 1.292, 1.850],
    1.0: [.199, .292, .433, .655, .981, 1.435, 2.042, 2.813, 3.722, 4.712, 5.739, 6.781],
    10.0: [9.456, 10.24, 11.10, 12.08, 13.11, 14.15, 15.20, 16.25, 17.30, 18.35, 19.40, 20.45],
}


@pytest.mark.parametrize("eps", sorted(SPEC_TABLE))
def test_spec_table_is_reproduced(eps):
    q = (2e6) ** (1 / math.log(1e6))
    for i, want in enumerate(SPEC_TABLE[eps], start=1):
        n = math.ceil(q ** i) + 2
        got = amplification_inverse(eps, float(n), 1e-6)
        assert abs(got - want) <= 0.0051 * max(1.0, want / 10), (i, got, want)


def test_paper_mode_goes_below_plain_ldp_for_small_batches_and_safe_mode_does_not():
    # E5: at n ~ 5 the formula prescribes eps0 = 0.199 < eps = 1 (more noise than plain LDP)
    assert local_eps(1.0, 5, 1e-6, "paper") == pytest.approx(0.199, abs=5e-4)
    assert local_eps(1.0, 5, 1e-6, "safe") == 1.0
    for n in (5, 300, 10**4, 10**6):
        for eps in (0.1, 1.0, 10.0):
            safe = local_eps(eps, n, 1e-6, "safe")
            limit = fmt_limit(float(n), 1e-6)
            assert safe >= eps
            assert safe <= max(eps, limit) + 1e-12
            if limit > 0 and safe > eps:                     # an amplified level is certified
                assert amplified_eps(safe, n, 1e-6) <= eps + 1e-9


def test_calibrated_local_randomiser_has_scale_two_over_eps():
    """E1: Laplace(1/eps) on [-1, 1] is 2 eps-LDP; the calibrated randomiser uses 2/eps.

    The privacy loss is measured on the mechanism's own outputs for the extreme rewards
    r = -1 and r = +1: on the event {y >= 1} the Laplace likelihood ratio is constant and
    maximal, P(y >= 1 | +1) / P(y >= 1 | -1) = e^(2/s), so the log ratio of the two counts
    estimates the loss 2/s (standard error about 0.006 here; tolerance 0.04)."""
    eps, n = 0.5, 200_000
    for mode, scale, loss in (("calibrated", 2 / eps, eps), ("paper", 1 / eps, 2 * eps)):
        mech = dpbench.sampler("laplace_pm1", eps=eps, noise_scale=mode)
        out = mech(0.3, n, 7)
        assert stats.kstest(out - 0.3, "laplace", args=(0, scale)).pvalue > 1e-6
        high = (mech(1.0, n, 8) >= 1.0).sum()
        low = (mech(-1.0, n, 9) >= 1.0).sum()
        assert math.log(high / low) == pytest.approx(loss, abs=0.04), mode


def test_shuffler_output_is_enumeration_order_and_reports_the_right_clients():
    counts = np.array([2, 0, 3, 1])
    n = counts.sum()
    table = np.arange(n * 4, dtype=float).reshape(n, 4)       # client j's reward for action a
    slot_action, report, client = shuffle_batch(counts, table, 1e-9, seed=3)
    assert slot_action.tolist() == [0, 0, 2, 2, 2, 3]
    assert sorted(client.tolist()) == list(range(n))
    assert np.allclose(report, table[client, slot_action], atol=1e-6)


def _permutation_counts(shuffle, n=4, trials=4800):
    """How often each of the n! client orders comes out of ``shuffle(seed)`` over ``trials`` seeds."""
    index = {p: i for i, p in enumerate(itertools.permutations(range(n)))}
    hits = np.zeros(len(index))
    for seed in range(trials):
        hits[index[tuple(int(c) for c in shuffle(seed))]] += 1
    return hits


def _sattolo(seed, n=4):
    """Fisher-Yates with the classic off-by-one (j < i instead of j <= i): only cyclic orders."""
    rng, perm = np.random.default_rng(seed), list(range(n))
    for i in range(n - 1, 0, -1):
        j = int(rng.integers(i))
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _naive_swaps(seed, n=4):
    """Swap every position with a uniform one of all n: n^n paths onto n! orders, so skewed."""
    rng, perm = np.random.default_rng(seed), list(range(n))
    for i in range(n):
        j = int(rng.integers(n))
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def test_shuffler_permutation_is_uniform():
    """All 24 orders of 4 clients are equally likely (chi-square over the whole permutation, not
    one client's slot); the same check rejects two classic broken shufflers (negative controls)."""
    counts = np.ones(4, dtype=np.int64)
    table = np.zeros((4, 4))
    ours = _permutation_counts(lambda seed: shuffle_batch(counts, table, 1.0, seed)[2])
    assert stats.chisquare(ours).pvalue > 1e-6
    for broken in (_sattolo, _naive_swaps):
        assert stats.chisquare(_permutation_counts(broken)).pvalue < 1e-6, broken.__name__


@pytest.mark.parametrize("call,needle", [
    (lambda: local_eps(0.0, 10, 1e-6), "eps"),
    (lambda: local_eps(1.0, 10, 0.0), "delta"),
    (lambda: local_eps(1.0, 10, 1.0), "delta"),
    (lambda: local_eps(1.0, 0, 1e-6), "n"),
    (lambda: local_eps(1.0, 10, 1e-6, "loose"), "eps0_mode"),
    (lambda: amplified_eps(-1.0, 10, 1e-6), "eps0"),
    (lambda: shuffle_batch([1, 2], np.zeros((2, 2)), 1.0, 0), "client_rewards"),
    (lambda: dpbench.sampler("laplace_pm1", eps=1.0)(1.5, 10, 0), "x"),
])
def test_bad_input_is_refused(call, needle):
    with pytest.raises(InputError, match=needle):
        call()


def test_fmt_limit_is_the_strict_reference_bound():
    """eps0 <= log(n / (16 log(4/delta))): the limit of the FMT reference code (module docstring)."""
    for n, delta in ((1e4, 1e-6), (1e6, 1e-3), (300.0, 1e-9)):
        assert fmt_limit(n, delta) == pytest.approx(math.log(n / (16.0 * math.log(4.0 / delta))), rel=1e-12)
