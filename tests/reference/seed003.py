"""Plain-Python references for seed 003 (spec seed_003.md Sec. 2.1-2.5), Pareto arms.

Written from the pseudo-code, independently of the engine.  Documented choices
shared with the engine (they are not in the paper):

* rounds t = 1..T; argmax ties go to the lowest index; ln(2 t^4) = ln 2 + 4 ln t;
* Pareto reward = scale * (1 - U)^(-1/shape), one uniform per reward;
* tree: L = floor(log2 T) + 1 levels, eps' = eps / L (split "levels");
* SE epochs are played as round-robin sweeps: each active arm, in index order,
  gets min(target, sweep cap) - done consecutive pulls; the sweep cap grows by a
  batch size that starts at 1 and grows by max(1, size // 10) per sweep, up to
  ceil(max target / 64); when T
  ends an epoch the rest is split as round-robin would (first arms one more);
  R_tau is computed in log space and capped at T;
* draw order: per batch of m pulls the m rewards, then (LDP) the sum of the m
  users' Laplace noises by ``laplace_sum``; at an Alg. 3 epoch end one Laplace
  per active arm in index order;
* every Laplace is float-safe (``dpbench.mechanisms.lattice``): the tree's p-sums and
  Alg. 3's means are ``laplace_lattice_release``s, the LDP batch is the m truncated rewards
  rounded to the lattice of ``range_plan(-B, B, eps)`` plus the rounded ``laplace_sum``.
"""
import math

import numpy as np

from dpbench import randomness as rng
from dpbench.mechanisms import lattice

SWEEPS = 64


def _pareto_scales(means, shape):
    return [(shape - 1.0) * mu / shape for mu in means]


def _pareto(shape, scale):
    return scale * (1.0 - rng.uniform()) ** (-1.0 / shape)


def _trunc(x, bound):
    return x if abs(x) <= bound else 0.0


class Tree:
    """Algorithm 2: p-sums alpha_i, noisy p-sums alpha_hat_i, levels floor(log2 T) + 1."""

    def __init__(self, horizon):
        levels = math.floor(math.log2(horizon)) + 1
        self.alpha = [0.0] * levels
        self.alpha_hat = [0.0] * levels
        self.t = 0

    def insert(self, x, bound, eps):
        self.t += 1
        t = self.t
        i = 0
        while not (t >> i) & 1:
            i += 1
        self.alpha[i] = sum(self.alpha[:i]) + x
        for j in range(i):
            self.alpha[j] = 0.0
            self.alpha_hat[j] = 0.0
        self.alpha_hat[i] = lattice.laplace_lattice_release(self.alpha[i], 2.0 * bound, eps)   # + Lap(2B/eps')
        return sum(self.alpha_hat[j] for j in range(len(self.alpha)) if (t >> j) & 1)


def dp_robust_ucb(seed, means, shape, horizon, v, u, eps, c=18.0):
    """Algorithm 1 with the adaptive tree of Algorithm 2 per arm."""
    np.random.seed(seed)
    scales = _pareto_scales(means, shape)
    k = len(means)
    log_t = math.log(horizon)
    eps_level = eps / (math.floor(math.log2(horizon)) + 1)
    trees = [Tree(horizon) for _ in range(k)]
    n = [0] * k
    s_hat = [0.0] * k
    arms = []
    for t in range(1, horizon + 1):
        if t <= k:
            a = t - 1
        else:
            # 18 u^(1/(1+v)) (log(2 t^4) log^(1.5+1/v) T / (n_a eps))^(v/(1+v)), grouped as in the engine:
            # [c u^(1/(1+v)) (log(2 t^4) log^(1.5+1/v) T / eps)^(v/(1+v))] * n_a^(-v/(1+v))
            log_term = (math.log(2.0) + 4.0 * math.log(t)) * (log_t ** (1.5 + 1.0 / v) / eps)
            width = c * u ** (1.0 / (1.0 + v)) * log_term ** (v / (1.0 + v))
            index = [s_hat[i] / n[i] + width * n[i] ** -(v / (1.0 + v)) for i in range(k)]
            a = int(np.argmax(index))
        x = _pareto(shape, scales[a])
        n[a] += 1
        bound = (eps * u / log_t ** 1.5 * n[a]) ** (1.0 / (1.0 + v))      # B_n
        s_hat[a] = trees[a].insert(_trunc(x, bound), bound, eps_level)
        arms.append(a)
    return arms


def robust_ucb(seed, means, shape, horizon, v, u, c=4.0):
    """Bubeck et al. 2013 truncated-mean Robust UCB, delta = t^-2 (spec Sec. 2.5), recomputed every round."""
    np.random.seed(seed)
    scales = _pareto_scales(means, shape)
    k = len(means)
    samples = [[] for _ in range(k)]
    arms = []
    for t in range(1, horizon + 1):
        if t <= k:
            a = t - 1
        else:
            log_delta = 2.0 * math.log(t)
            index = []
            for i in range(k):
                kept = sum(x for j, x in enumerate(samples[i], start=1)
                           if abs(x) <= (u * j / log_delta) ** (1.0 / (1.0 + v)))
                n = len(samples[i])
                width = c * u ** (1.0 / (1.0 + v)) * log_delta ** (v / (1.0 + v))
                index.append(kept / n + width * n ** -(v / (1.0 + v)))
            a = int(np.argmax(index))
        samples[a].append(_pareto(shape, scales[a]))
        arms.append(a)
    return arms


def _epoch(local, sqrt_err, u, v, eps, beta, c, base, tau, s, horizon):
    """R_tau (log space, capped at T), B_tau, err_tau of Algorithms 3 / 4 with constant c."""
    e = (1.0 + v) / v
    if local:
        big_l = math.log(8.0 * s * tau * tau / beta)
        log_r0 = (2.0 / v) * math.log(u) + 2.0 * e * math.log(2.0 * c) + math.log(big_l) \
            - 2.0 * math.log(eps) + 2.0 * e * tau * math.log(base)
        extra = big_l
    else:
        big_l = math.log(4.0 * s * tau * tau / beta)
        log_r0 = (1.0 / v) * math.log(u) + e * math.log(2.0 * c) + math.log(big_l) \
            - math.log(eps) + e * tau * math.log(base)
        extra = 1.0
    r = horizon if log_r0 >= math.log(horizon) else min(math.ceil(math.exp(log_r0) + extra), horizon)
    if local:
        bound = (u * math.sqrt(r) * eps / math.sqrt(big_l)) ** (1.0 / (1.0 + v))
        denom = math.sqrt(r) if sqrt_err else r
        err = u ** (1.0 / (1.0 + v)) * (math.sqrt(big_l) / (denom * eps)) ** (v / (1.0 + v))
    else:
        bound = (u * r * eps / big_l) ** (1.0 / (1.0 + v))
        err = u ** (1.0 / (1.0 + v)) * (big_l / (r * eps)) ** (v / (1.0 + v))
    return r, bound, err


def robust_se(seed, means, shape, horizon, v, u, eps, local, c, beta=None, base=2.0, sqrt_err=True):
    """Algorithm 3 (local=False) / Algorithm 4 (local=True)."""
    np.random.seed(seed)
    scales = _pareto_scales(means, shape)
    k = len(means)
    beta = 1.0 / horizon if beta is None else beta
    active = list(range(k))
    t, tau, arms = 0, 0, []
    while t < horizon:
        if len(active) == 1:
            arms += [active[0]] * (horizon - t)
            break
        tau += 1
        s = len(active)
        r, bound, err = _epoch(local, sqrt_err, u, v, eps, beta, c, base, tau, s, horizon)
        if s * r <= horizon - t:
            target = {a: r for a in active}
        else:
            q, extra = divmod(horizon - t, s)
            target = {a: q + (1 if i < extra else 0) for i, a in enumerate(active)}
        max_chunk = max(1, math.ceil(max(target.values()) / SWEEPS))
        chunk = cap = 1
        done = {a: 0 for a in active}
        total = {a: 0.0 for a in active}
        while any(done[a] < target[a] for a in active):
            for a in active:
                m = min(target[a], cap) - done[a]
                if m <= 0:
                    continue
                batch = 0.0
                if local:                                                   # users truncate at B_tau, on a lattice
                    g, s_steps = lattice.range_plan(-bound, bound, eps)
                    for _ in range(m):
                        batch += np.rint(_trunc(_pareto(shape, scales[a]), bound) / g)
                    m_noise = rng.laplace_sum(m, s_steps) if m > 1 else lattice.laplace_steps(s_steps)
                    batch = (batch + np.rint(m_noise) if m > 1 else batch + m_noise) * g   # the m users' Lap(2B/eps)
                else:
                    for _ in range(m):
                        batch += _trunc(_pareto(shape, scales[a]), bound)   # the agent truncates at B_tau
                total[a] += batch
                done[a] += m
                arms += [a] * m
                t += m
            chunk = min(max_chunk, chunk + max(1, chunk // 10))
            cap += chunk
        if t >= horizon:
            break
        mean = {}
        for a in active:
            mean[a] = total[a] / r
            if not local:                                                   # + Lap(2B/(R eps))
                mean[a] = lattice.laplace_lattice_release(total[a] / r, 2.0 * bound / r, eps)
        best = max(mean.values())
        active = [a for a in active if not best - mean[a] > c * err]
    return arms
