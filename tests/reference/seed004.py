"""Plain-Python references for seed 004 (spec seed_004.md §2-4), written from the pseudo-code.

Oracles reused from dpbench (each tested on its own): the design of Lemma 2
(``g_optimal_design``) and eq. (10)'s per-batch level (``local_eps``).  Everything
else — schedule, truncation, reward and noise sampling, least squares (here by the
pseudo-inverse in the original coordinates), widths, elimination, commit — is
written here again.

``lattimore_phased_elimination`` is the paper's non-private reference [24, Ch. 22] written
from the book's Algorithm 12 alone (it shares no code with ``phased_elimination``): phase
lengths, elimination width, the horizon cut; the design is the same oracle, checked here
against what the algorithm needs of it (a near-G-optimal design, Kiefer–Wolfowitz).

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
                       eps0_mode="safe", design="core_set", design_tol=0.05):
    """Algorithms 1-3 (model central | local | shuffle) and the non-private batched baseline
    (model none); returns the arm sequence."""
    np.random.seed(seed)
    A = np.asarray(actions, dtype=float)
    K, d = A.shape
    mu = A @ np.asarray(theta, dtype=float)
    T = horizon
    delta_r = 2.0 if noise_scale == "calibrated" else 1.0
    M = math.floor(math.log(T)) - 1
    active = list(range(K))
    arms = []
    best = 0
    i = 0
    while len(arms) < T:
        i += 1
        if i > M:
            break
        dsg = g_optimal_design(A[active], tol=design_tol, kind=design)
        qi = math.exp(i * (math.log(2 * T) / math.log(T)))       # q^i
        want = {active[j]: math.ceil(min(w * qi, T)) for j, w in enumerate(dsg.weights) if w > 0}
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


def lattimore_phased_elimination(seed, actions, theta, horizon, delta=None, design_tol=0.05):
    """Lattimore & Szepesvári, *Bandit Algorithms* (2020), Ch. 22, Algorithm 12 ("phased
    elimination with G-optimal exploration"; spec seed_004.md §4.1); returns the arm sequence.

    With k = |A| and delta (default 1/T, the spec's proposed default), for l = 1, 2, ...:

    1. pi_l: a G-optimal design on the active set A_l, support <= d(d+1)/2 (book, line 3);
       here the dpbench oracle at g(pi_l) <= (1 + tol) m (m = dim span A_l), checked below;
    2. eps_l = 2^-l and T_l(a) = ceil(2 d pi_l(a) / eps_l^2 * log(k l (l + 1) / delta)) pulls
       of every a in supp pi_l (line 4); d is the ambient dimension, k the size of the whole set;
    3. play them (line 5): the actions in increasing index, each T_l(a) times in a row (the book
       leaves the order open; the rewards and the estimate do not depend on it);
    4. theta_l = V_l^+ sum_t a_t r_t over this phase's pulls only, V_l = sum_a T_l(a) a a^T (line 6);
    5. A_{l+1} = {a in A_l : max_{b in A_l} <theta_l, b - a> <= 2 eps_l} (line 7).

    The horizon cut (the book stops "at the horizon"): a phase that would overrun T is given the
    R rounds left in proportion to its T_l(a), floor(R T_l(a) / T_l) plus one for the largest
    remainders (lowest index on ties): the design scaled down, not its first actions in full.
    There is no commit phase.  Rewards: the environment's draws in the engine's order (per phase,
    per action: one Bernoulli for one pull, else one Binomial; r in {-1, +1})."""
    np.random.seed(seed)
    A = np.asarray(actions, dtype=float)
    k, d = A.shape
    mu = A @ np.asarray(theta, dtype=float)
    T = int(horizon)
    delta = 1.0 / T if delta is None else float(delta)
    active = list(range(k))
    arms: list[int] = []
    phase = 0
    while len(arms) < T:
        phase += 1
        design = g_optimal_design(A[active], tol=design_tol)
        pi = {a: float(w) for a, w in zip(active, design.weights) if w > 0}
        _check_design(A, active, pi, design_tol)
        eps_l = 2.0 ** -phase
        length = {a: math.ceil(min(2 * d * w / eps_l ** 2 * math.log(k * phase * (phase + 1) / delta), T))
                  for a, w in pi.items()}
        left = T - len(arms)
        if sum(length.values()) > left:                       # the horizon cut
            total = sum(length.values())
            cut = {a: left * n // total for a, n in length.items()}
            extra = left - sum(cut.values())
            for a in sorted(length, key=lambda a: (-(left * length[a] % total), a))[:extra]:
                cut[a] += 1
            length = cut
        xs, ys = [], []
        for a in sorted(length):
            n = length[a]
            if n == 0:
                continue
            p = (1.0 + mu[a]) / 2.0
            reward_sum = (2 * rng.bernoulli(p) - 1) if n == 1 else (2 * rng.binomial(n, p) - n)
            xs.append((a, n))
            ys.append(reward_sum)
            arms.extend([a] * n)
        if len(arms) >= T:
            break
        gram = sum(n * np.outer(A[a], A[a]) for a, n in xs)
        theta_hat = np.linalg.pinv(gram) @ sum(r * A[a] for (a, _), r in zip(xs, ys))
        est = {a: float(A[a] @ theta_hat) for a in active}
        top = max(est.values())
        active = [a for a in active if top - est[a] <= 2 * eps_l]
    return arms


def _check_design(A, active, pi, tol):
    """What Algorithm 12 needs of its design, checked independently (numpy pseudo-inverse): a
    distribution on A_l whose support spans span(A_l) with at most m(m+1)/2 atoms and
    g(pi) = max_a ||a||^2_{V(pi)^+} <= (1 + tol) m (Kiefer–Wolfowitz: g >= m, = m at the optimum)."""
    x = A[active]
    m = np.linalg.matrix_rank(x, tol=1e-9)
    support = sorted(pi)
    v = sum(pi[a] * np.outer(A[a], A[a]) for a in support)
    g = max(float(A[a] @ np.linalg.pinv(v, rcond=1e-10) @ A[a]) for a in active)
    assert abs(sum(pi.values()) - 1) < 1e-9 and min(pi.values()) > 0
    assert len(support) <= m * (m + 1) // 2 and np.linalg.matrix_rank(A[support], tol=1e-9) == m
    assert m - 1e-8 <= g <= (1 + tol) * m + 1e-8, (g, m)
