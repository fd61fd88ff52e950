"""Plain-Python references for seed 004 (spec seed_004.md §2-4), written from the pseudo-code.

Oracles reused from dpbench (each tested on its own): the design of Lemma 2
(``g_optimal_design``) and eq. (10)'s per-batch level (``local_eps``).  Everything
else — schedule, truncation, reward and noise sampling, least squares (here by the
pseudo-inverse in the original coordinates), widths, elimination, commit — is
written here again.

Draw order (the engine's): per (batch, action in increasing index) the reward sum
(one Bernoulli if n = 1, else one Binomial: r in {-1, +1}), then that action's
noise: central one Laplace, local / shuffle one Laplace sum of n terms.  Every noise is
float-safe (``dpbench.mechanisms.lattice``): the central one a ``laplace_lattice_release``,
the clients' sum the reward sum rounded to the lattice of ``range_plan(-1, 1, 2/s)`` (s the
clients' Laplace scale) plus the rounded Laplace sum.
"""
import math

import numpy as np

from dpbench import randomness as rng
from dpbench.mechanisms import lattice
from dpbench.mechanisms.shuffle_amplification import local_eps
from dpbench.policies.optimal_design import g_optimal_design


def _reward_sum(mu, n):
    p = (1 + mu) / 2
    if n == 1:
        return 2 * rng.bernoulli(p) - 1
    return 2 * rng.binomial(n, p) - n


def _clients_sum(r, n, scale):
    """r plus the n clients' Laplace(scale) noises, on their lattice (2 = the reward range of [-1, 1])."""
    g, s = lattice.range_plan(-1.0, 1.0, 2.0 / scale)
    noise = lattice.laplace_steps(s) if n == 1 else np.rint(rng.laplace_sum(n, s))
    return (np.rint(r / g) + noise) * g


def _tau(n, big_l):
    return math.sqrt(8 * n * big_l) if big_l <= n else math.sqrt(2) * (n + big_l)


def _split(counts, remaining):
    """Largest-remainder split of `remaining` rounds in proportion to counts (dict a -> n)."""
    total = sum(counts.values())
    out = {a: remaining * n // total for a, n in counts.items()}
    rest = remaining - sum(out.values())
    for a in sorted(counts, key=lambda a: (-(remaining * counts[a] % total), a))[:rest]:
        out[a] += 1
    return out


def phased_elimination(seed, actions, theta, horizon, model="central", eps=1.0, delta=1e-6,
                       noise_scale="calibrated", gamma_mode="corrected", elim_max_over="active",
                       eps0_mode="safe", design="core_set", design_tol=0.05, schedule="geometric",
                       ls_delta=None):
    """Algorithms 1-3 (model central | local | shuffle), the non-private batched baseline
    (model none) and L&S Algorithm 12 (schedule lattimore); returns the arm sequence."""
    np.random.seed(seed)
    A = np.asarray(actions, dtype=float)
    K, d = A.shape
    mu = A @ np.asarray(theta, dtype=float)
    T = horizon
    delta_r = 2.0 if noise_scale == "calibrated" else 1.0
    M = math.floor(math.log(T)) - 1
    if ls_delta is None:
        ls_delta = 1 / T
    active = list(range(K))
    arms = []
    best = 0
    i = 0
    while len(arms) < T:
        i += 1
        if schedule == "geometric" and i > M:
            break
        dsg = g_optimal_design(A[active], tol=design_tol, kind=design)
        if schedule == "geometric":
            qi = math.exp(i * (math.log(2 * T) / math.log(T)))       # q^i
            want = {active[j]: math.ceil(min(w * qi, T)) for j, w in enumerate(dsg.weights) if w > 0}
        else:
            eps_l = 0.5 ** i
            scale = 2 * d / eps_l ** 2 * math.log(K * i * (i + 1) / ls_delta)
            want = {active[j]: math.ceil(min(w * scale, T)) for j, w in enumerate(dsg.weights) if w > 0}
        n_i = sum(want.values())
        if n_i > T - len(arms):
            want = _split(want, T - len(arms))
            n_i = T - len(arms)
        support_size = len(want)
        # privacy level of this batch
        eps0 = eps
        if model == "shuffle":
            eps0 = local_eps(eps, max(n_i, 1), delta, eps0_mode)
        sums = {}
        for a in sorted(want):
            n = want[a]
            if n == 0:
                continue
            r = _reward_sum(mu[a], n)
            if model == "central":
                r = lattice.laplace_lattice_release(r, delta_r, eps)            # + Lap(delta_r / eps)
            elif model == "local":
                r = _clients_sum(r, n, delta_r / eps)
            elif model == "shuffle":
                r = _clients_sum(r, n, delta_r / eps0)
            sums[a] = r
            arms.extend([a] * n)
        if len(arms) >= T:
            break
        # least squares on the private sums (pseudo-inverse: the span of the core set)
        V = sum(want[a] * np.outer(A[a], A[a]) for a in sums)
        theta_hat = np.linalg.pinv(V) @ sum(sums[a] * A[a] for a in sums)
        values = A @ theta_hat
        # width
        big_l = math.log(4.0 * len(active) * T * T)
        if schedule == "lattimore":
            gamma = 0.5 ** i
        else:
            if design == "core_set":
                gval, n_bd = max(2 * d, dsg.g), support_size
            else:
                gval, n_bd = dsg.g, len(active)
            gamma = math.sqrt(2 * gval * big_l / qi)
            if model == "central":
                if gamma_mode == "corrected":
                    gamma += gval / qi * (delta_r / eps) * _tau(support_size, big_l)
                else:
                    gamma += delta_r * gval * (n_bd + big_l) / (eps * qi)
            elif model in ("local", "shuffle"):
                if gamma_mode == "corrected":
                    gamma += gval / qi * (delta_r / eps0) * _tau(n_i, big_l)
                else:
                    gamma += delta_r * (gval / (qi * eps0)) * math.sqrt(n_i * big_l)
        best = max(active, key=lambda a: (values[a], -a))
        top = values.max() if elim_max_over == "all" else values[best]
        active = [a for a in active if values[a] >= top - 2 * gamma] or [best]
    arms.extend([best] * (T - len(arms)))
    return arms


def linucb(seed, actions, theta, horizon, lam=1.0, S=1.0, sigma=1.0, delta=None):
    """OFUL: argmax <a, theta_t> + beta_t ||a||_{V^-1}, V^-1 by Sherman–Morrison."""
    np.random.seed(seed)
    A = np.asarray(actions, dtype=float)
    K, d = A.shape
    mu = A @ np.asarray(theta, dtype=float)
    delta = 1 / horizon if delta is None else delta
    L = float(np.linalg.norm(A, axis=1).max())
    v_inv = [[(1 / lam if i == j else 0.0) for j in range(d)] for i in range(d)]
    b = [0.0] * d
    th = [0.0] * d
    arms = []
    for t in range(horizon):
        beta = math.sqrt(lam) * S + sigma * math.sqrt(2 * math.log(1 / delta) + d * math.log(1 + t * L * L / (lam * d)))
        best, arm = -math.inf, 0
        for a in range(K):
            mean = 0.0
            quad = 0.0
            for i in range(d):
                mean += A[a, i] * th[i]
                row = 0.0
                for j in range(d):
                    row += v_inv[i][j] * A[a, j]
                quad += A[a, i] * row
            u = mean + beta * math.sqrt(max(quad, 0.0))
            if u > best:
                best, arm = u, a
        r = _reward_sum(mu[arm], 1)
        x = A[arm]
        z = [sum(v_inv[i][j] * x[j] for j in range(d)) for i in range(d)]
        quad = 0.0
        for i in range(d):
            quad += x[i] * z[i]
        f = 1 / (1 + quad)
        for i in range(d):
            for j in range(d):
                v_inv[i][j] -= f * z[i] * z[j]
            b[i] += r * x[i]
        th = [sum(v_inv[i][j] * b[j] for j in range(d)) for i in range(d)]
        arms.append(arm)
    return arms
