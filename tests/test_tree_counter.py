"""The tree-based counter of seed 003 Algorithm 2 (spec checks A5, B3, C5)."""
import math

import numpy as np
import pytest
from scipy import stats

from dpbench.mechanisms.tree_counter import (
    tree_add,
    tree_error_bound,
    tree_error_bound_paper,
    tree_level_eps,
    tree_levels,
    tree_new,
    tree_prefix_sums,
    tree_privacy_loss,
    tree_release,
)
from dpbench.validation import InputError


def test_levels_cover_the_horizon():
    for T in (1, 2, 3, 4, 7, 8, 1000, 1024, 2**20 - 1, 2**20):
        assert tree_levels(T) == math.floor(math.log2(T)) + 1
        assert 2 ** tree_levels(T) > T


@pytest.mark.parametrize("T", [1, 2, 5, 64, 100, 1023, 1024, 1500])
def test_prefix_sums_exact_without_noise(T):
    """Integer-valued items: every p-sum addition is exact, so S_hat(t) == S(t) bit for bit."""
    x = np.random.default_rng(T).integers(-1000, 1000, T).astype(float)
    assert np.array_equal(tree_prefix_sums(x, eps=None), np.cumsum(x))


def test_prefix_sums_without_noise_real_items():
    x = np.random.default_rng(1).pareto(1.5, 5000)
    assert np.allclose(tree_prefix_sums(x, eps=None), np.cumsum(x), rtol=1e-12, atol=0)


def test_noise_terms_are_popcount_and_drawn_once():
    """On a stream of ones with noise Lap(1) the release is a sum of popcount(t) noisy p-sums;
    the p-sums above the newly closed level keep their noise (drawn once, note N2)."""
    T = 200
    psum, noisy = tree_new(1, T)
    np.random.seed(3)
    before = noisy.copy()
    for t in range(1, T + 1):
        s = tree_add(psum, noisy, 0, t, 1.0, 1.0, 1.0)
        i = (t & -t).bit_length() - 1
        nonzero = [j for j in range(noisy.shape[1]) if noisy[0, j] != 0.0]
        assert nonzero == [j for j in range(noisy.shape[1]) if (t >> j) & 1]
        assert s == tree_release(noisy, 0, t)
        assert noisy[0, i] != before[0, i]
        assert np.array_equal(noisy[0, i + 1:], before[0, i + 1:])
        before = noisy.copy()


def test_each_item_in_at_most_levels_psums():
    """Item k's indicator stream: count the released p-sums (over all t) that contain it."""
    T = 300
    L = tree_levels(T)
    for k in (1, 2, 3, 64, 129, 255, 300):
        psum, noisy = tree_new(1, T)
        containing = set()
        for t in range(1, T + 1):
            tree_add(psum, noisy, 0, t, 1.0 if t == k else 0.0, 1.0, 0.0)
            i = (t & -t).bit_length() - 1
            if psum[0, i] == 1.0:
                containing.add((i, t))
        assert 1 <= len(containing) <= L


def test_noise_has_the_stated_scale():
    """At t = 2^k the release holds exactly one noisy p-sum: S_hat - S ~ Lap(2 B / eps').
    KS at alpha 1e-6 accepts the stated scale and rejects a 10% wrong one."""
    T, eps, B = 8, 1.0, 0.5
    scale = 2 * B / tree_level_eps(eps, T, "levels")
    x = np.full(T, B)
    n = 40000
    errs = np.array([tree_prefix_sums(x, eps=eps, seed=s)[7] - 8 * B for s in range(n)])
    assert stats.kstest(errs, stats.laplace(scale=scale).cdf).pvalue > 1e-6
    assert stats.kstest(errs, stats.laplace(scale=1.1 * scale).cdf).pvalue < 1e-6
    # t = 7 = 0b111: three independent noisy p-sums, variance 3 * 2 scale^2
    errs7 = np.array([tree_prefix_sums(x, eps=eps, seed=s)[6] - 7 * B for s in range(4000)])
    ratio = errs7.var() / (6 * scale ** 2)
    assert 0.85 < ratio < 1.15


def test_adaptive_bounds_scale_noise_by_newest_item():
    """Algorithm 2 line 12: the p-sum closed at t gets Lap(2 B_t / eps')."""
    T = 4
    bounds = np.array([1.0, 1.0, 1.0, 100.0])
    x = np.zeros(T)
    errs = np.array([tree_prefix_sums(x, bounds, eps=1.0, seed=s)[3] for s in range(20000)])
    scale = 2 * 100.0 / tree_level_eps(1.0, T, "levels")
    assert stats.kstest(errs, stats.laplace(scale=scale).cdf).pvalue > 1e-6


def test_privacy_accounting():
    """B3: per-item loss <= eps with the levels split; the paper's eps / ln T overspends."""
    for T in (2**10, 2**16, 10**6, 2**24):
        assert tree_privacy_loss(1.0, T, "levels") <= 1.0 + 1e-12
        assert tree_privacy_loss(1.0, T, "ln") > 1.4
    assert tree_privacy_loss(1.0, 2**10, "ln") == pytest.approx(11 / math.log(2**10))


def test_error_bound_holds():
    """The valid bound is exceeded at most with probability delta (Wilson-free: exact binomial)."""
    T, B, eps, delta = 2**6 - 1, 1.0, 1.0, 0.05          # t = 63: worst popcount 6
    x, bounds = np.zeros(T), np.full(T, B)
    n = 4000
    errs = np.abs([tree_prefix_sums(x, bounds, eps=eps, seed=s)[-1] for s in range(n)])
    assert errs.min() > 0
    bound = tree_error_bound(B, eps, T, delta, t=T)
    fails = int((errs > bound).sum())
    assert stats.binom.sf(fails - 1, n, delta) > 1e-6
    # the paper's eq. (3) with its own eps' = eps/ln T (spec C5): it fails at delta = 0.3
    errs_ln = np.abs([tree_prefix_sums(x, bounds, eps=eps, split="ln", seed=s)[-1] for s in range(n)])
    paper = tree_error_bound_paper(B, eps, T, 0.3)
    assert (errs_ln > paper).mean() > 0.3


def test_rows_are_independent_counters():
    psum, noisy = tree_new(3, 16)
    for t in range(1, 11):
        tree_add(psum, noisy, 1, t, float(t), 1.0, 0.0)
    assert tree_release(noisy, 1, 10) == 55.0
    assert not psum[0].any() and not psum[2].any()


def test_overlong_stream_is_refused():
    """An item past the capacity is refused without a raise (tree_add's docstring says why): NaN,
    and the counter unchanged."""
    psum, noisy = tree_new(1, 3)          # L = 2 levels: items 1..3
    for t in range(1, 4):
        tree_add(psum, noisy, 0, t, 1.0, 1.0, 0.0)
    before = psum.copy(), noisy.copy()
    assert np.isnan(tree_add(psum, noisy, 0, 4, 1.0, 1.0, 0.0))
    assert np.array_equal(psum, before[0]) and np.array_equal(noisy, before[1])


def test_bad_input():
    with pytest.raises(InputError, match="eps"):
        tree_prefix_sums([1.0, 2.0], eps=0.0)
    with pytest.raises(InputError, match="tree_eps_split"):
        tree_level_eps(1.0, 100, "log10")
    with pytest.raises(InputError, match="non-decreasing"):
        tree_prefix_sums([0.0, 0.0], [2.0, 1.0])
    with pytest.raises(InputError, match="exceeds its bound"):
        tree_prefix_sums([3.0, 0.0], [1.0, 1.0])


def test_many_streams_are_the_counter_row_by_row():
    """tree_prefix_sums_many is the stand-alone counter on each row (row r seeded by word r of
    SeedSequence(seed)), built for the horizon it is given: eps' is that horizon's."""
    from dpbench.mechanisms.tree_counter import _prefix_sums_kernel, tree_prefix_sums_many
    gen = np.random.default_rng(5)
    n, horizon = 40, 10 ** 6
    b = np.linspace(1.0, 3.0, n)
    x = gen.uniform(-1, 1, (6, n)) * b
    many = tree_prefix_sums_many(x, b, eps=0.5, seed=11, horizon=horizon)
    seeds = np.random.SeedSequence(11).generate_state(6, dtype=np.uint32)
    for r in range(6):
        one = np.empty(n)
        _prefix_sums_kernel(x[r], b, tree_level_eps(0.5, horizon), int(seeds[r]), one)
        assert np.array_equal(many[r], one)
    assert np.allclose(tree_prefix_sums_many(x, b, eps=None), np.cumsum(x, axis=1), rtol=1e-12, atol=1e-12)
    # a counter built for a longer horizon spends less per level: more noise after the same n items
    short = tree_prefix_sums_many(np.zeros((2000, n)), b, eps=1.0, seed=3)
    long = tree_prefix_sums_many(np.zeros((2000, n)), b, eps=1.0, seed=3, horizon=horizon)
    assert long[:, -1].std() > 2 * short[:, -1].std()
    with pytest.raises(InputError, match="exceeds its bound"):
        tree_prefix_sums_many(x * 2, b)
    with pytest.raises(InputError, match="horizon"):
        tree_prefix_sums_many(x, b, horizon=n - 1)
    assert tree_prefix_sums(x[0], b, eps=None, horizon=horizon).shape == (n,)
