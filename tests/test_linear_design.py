"""G-optimal design and zeta-nets (seed 004 Lemmas 1-2; spec §2.1-2.2, §9.2 item 2).

Kiefer–Wolfowitz facts checked with an independent numpy computation (pseudo-inverse):
g(pi) >= m always, g(pi) <= (1 + tol) m for our design (tol = 0.05 by default),
sum_a pi(a) ||a||^2_{V^+} = m, support <= m(m+1)/2 spanning span(A), and D-efficiency:
log det V(pi*) - log det V(pi) <= m log(g/m) against a multiplicative-algorithm optimum.
"""
import math

import numpy as np
import pytest

from dpbench import InputError
from dpbench.environments.linear import greedy_net, net_sphere_2d
from dpbench.policies.optimal_design import g_optimal_design

TOL = 0.05


def _sphere(k, d, seed):
    x = np.random.default_rng(seed).standard_normal((k, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _leverages(x, w):
    v = (x.T * w) @ x
    return np.einsum("ij,jk,ik->i", x, np.linalg.pinv(v, rcond=1e-10), x)


def design_violations(x, w, tol):
    """Every Lemma 2 / KW property that (x, w) breaks (empty list: a valid core set)."""
    bad = []
    m = np.linalg.matrix_rank(x, tol=1e-9)
    lev = _leverages(x, w)
    g = lev.max()
    if (w < 0).any() or abs(w.sum() - 1) > 1e-12:
        bad.append("weights are not a distribution")
    if g < m - 1e-8:
        bad.append(f"g = {g} < m = {m}: V(pi) does not span")
    if g > (1 + tol) * m + 1e-9:
        bad.append(f"g = {g} > (1 + tol) m = {(1 + tol) * m}")
    supp = w > 0
    if supp.sum() > m * (m + 1) // 2:
        bad.append(f"support {supp.sum()} > m(m+1)/2 = {m * (m + 1) // 2}")
    if np.linalg.matrix_rank(x[supp], tol=1e-9) != m:
        bad.append("support does not span span(A)")
    if abs(w @ lev - m) > 1e-8 * m:
        bad.append(f"KW identity sum pi g = {w @ lev} != m = {m}")
    return bad


def _d_optimal_logdet(x, iters=20000):
    """Titterington's multiplicative algorithm pi <- pi g / m (independent of dpbench)."""
    m = x.shape[1]
    w = np.full(x.shape[0], 1.0 / x.shape[0])
    for _ in range(iters):
        w = w * _leverages(x, w) / m
        w /= w.sum()
    return np.linalg.slogdet((x.T * w) @ x)[1]


@pytest.mark.parametrize("k,d,seed", [(10, 2, 0), (1000, 2, 1), (100, 3, 2), (50, 5, 3), (200, 8, 4),
                                      (3, 2, 5), (2, 2, 6)])
def test_core_set_satisfies_kiefer_wolfowitz(k, d, seed):
    x = _sphere(k, d, seed)
    design = g_optimal_design(x, tol=TOL)
    assert design_violations(x, design.weights, TOL) == []
    assert design.rank == d
    assert design.g == pytest.approx(_leverages(x, design.weights).max(), rel=1e-9)


@pytest.mark.parametrize("k,d,seed", [(10, 2, 0), (40, 3, 2), (30, 4, 7)])
def test_core_set_is_nearly_d_optimal(k, d, seed):
    x = _sphere(k, d, seed)
    w = g_optimal_design(x, tol=TOL).weights
    ours = np.linalg.slogdet((x.T * w) @ x)[1]
    best = _d_optimal_logdet(x)
    g = _leverages(x, w).max()
    assert ours <= best + 1e-9
    assert best - ours <= d * math.log(g / d) + 1e-9


def test_negative_control_a_broken_design_is_caught():
    x = _sphere(10, 2, 0)
    w = g_optimal_design(x, tol=TOL).weights.copy()
    supp = np.flatnonzero(w)
    w[supp[0]] += 0.8 * w[supp[1]]
    w[supp[1]] *= 0.2
    assert design_violations(x, w, TOL)
    assert design_violations(x, np.full(10, 0.1), TOL)           # uniform: full support


def test_two_core_atoms_in_d2_as_the_paper_reports():
    sizes = [len(g_optimal_design(_sphere(k, 2, s)).support) for k in (10, 100, 1000) for s in range(5)]
    assert set(sizes) <= {2, 3}


@pytest.mark.parametrize("case", ["plane_in_r4", "collinear", "single", "duplicates", "zero_rows"])
def test_degenerate_action_sets_use_their_span(case):
    rng = np.random.default_rng(9)
    if case == "plane_in_r4":
        basis = np.linalg.qr(rng.standard_normal((4, 2)))[0]
        x = _sphere(12, 2, 1) @ basis.T
        m = 2
    elif case == "collinear":
        x = np.array([[1.0, 0.0], [0.5, 0.0], [-0.8, 0.0]])
        m = 1
    elif case == "single":
        x = np.array([[0.6, 0.8]])
        m = 1
    elif case == "duplicates":
        x = np.vstack([_sphere(5, 3, 2)] * 3)
        m = 3
    else:
        x = np.vstack([np.zeros((2, 3)), _sphere(6, 3, 4)])
        m = 3
    design = g_optimal_design(x, tol=TOL)
    assert design.rank == m
    assert design_violations(x, design.weights, TOL) == []
    assert np.allclose(design.basis.T @ design.basis, np.eye(m), atol=1e-12)


def test_multi_armed_special_case_is_uniform():
    design = g_optimal_design(np.eye(6))
    assert np.allclose(design.weights, 1 / 6) and design.g == pytest.approx(6.0)


def test_ablation_designs():
    x = _sphere(30, 2, 3)
    uni = g_optimal_design(x, kind="uniform")
    assert np.allclose(uni.weights, 1 / 30)
    assert uni.g == pytest.approx(_leverages(x, uni.weights).max(), rel=1e-9)
    full = g_optimal_design(x, kind="fw_full", tol=TOL)
    assert (full.weights > 0).all() and full.g <= (1 + TOL) * 2 + 1e-9


def test_circle_net_covers_the_circle():
    zeta = 0.05
    net = net_sphere_2d(zeta)
    assert net.shape[0] == math.ceil(math.pi / math.asin(zeta / 2))
    angles = np.linspace(0, 2 * np.pi, 20001)
    circle = np.column_stack([np.cos(angles), np.sin(angles)])
    nearest = np.min(np.linalg.norm(circle[:, None, :] - net[None, :, :], axis=2), axis=1)
    assert nearest.max() <= zeta


def test_greedy_net_is_a_spanning_zeta_net():
    zeta, d = 0.4, 3
    pool = _sphere(3000, d, 11)
    keep = greedy_net(pool, zeta)
    net = pool[keep]
    dist = np.linalg.norm(pool[:, None, :] - net[None, :, :], axis=2)
    assert dist.min(axis=1).max() <= zeta                      # covers the pool
    assert np.linalg.matrix_rank(net) == d
    assert len(keep) <= (3 / zeta) ** d + d                    # Lemma 1's size bound
    pair = np.linalg.norm(net[:, None] - net[None], axis=2) + np.eye(len(keep)) * 9
    assert (pair <= zeta).any(axis=1).sum() <= 2 * d          # zeta-separated but for the <= d completions


def test_greedy_net_adds_basis_points_when_the_separated_set_does_not_span():
    pool = np.array([[1.0, 0.0], [0.999, 0.0447], [0.998, 0.0632]])
    keep = greedy_net(pool, 0.5)
    assert np.linalg.matrix_rank(pool[keep]) == 2 and len(keep) == 2


@pytest.mark.parametrize("actions,needle", [
    (np.ones(3), "2-d array"),
    (np.zeros((3, 0)), "d must be >= 1"),
    (np.array([[1.0, np.nan]]), "finite"),
    (np.array([[np.inf, 0.0]]), "finite"),
    ("abc", "K x d array"),
])
def test_bad_action_sets_are_refused(actions, needle):
    with pytest.raises(InputError, match=needle):
        g_optimal_design(actions)


def test_bad_design_parameters_are_refused():
    with pytest.raises(InputError, match="tol"):
        g_optimal_design(np.eye(2), tol=0.0)
    with pytest.raises(InputError, match="kind"):
        g_optimal_design(np.eye(2), kind="dense")
    with pytest.raises(InputError, match="zeta"):
        net_sphere_2d(-1.0)
