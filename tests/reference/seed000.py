"""Plain-Python references for seed 000/001 agents (spec seed_000_001.md §1.3, §2.3).

Draw order per pull (the engine's documented order): the reward, then the
curator's noise.  HeLDP rounds: the forced-set choice (HeLDP-UCB-L, one
uniform), then the user's eps_t, then (if eps_t > 0) reward and noise.  CTL's
Laplace report is the float-safe one of ``dpbench.mechanisms.lattice``: the reward
rounded to the lattice of its plan on [0, 1], plus the lattice Laplace of its scale.
"""
import math

import numpy as np

from dpbench import randomness as rng
from dpbench.mechanisms import lattice


def reward(law, mu):
    """One reward: Bernoulli(mu), N(mu, 1), or the paper's mixed instance (spec §1.5)."""
    if law == "bernoulli":
        return rng.bernoulli(mu)
    if law == "gaussian":
        return rng.normal(mu, 1.0)
    if mu in (0.9, 0.6):
        return rng.bernoulli(mu)
    if mu == 0.8:
        return rng.beta(4.0, 1.0)
    if mu == 0.7:
        return 1.0 if rng.uniform() < 0.5 else 0.4
    return rng.uniform()                                    # mu = 0.5: U[0, 1]


def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _ctl_report(r, eps):
    """r + Laplace(1/eps) on the lattice (g, s) = lattice.range_plan(0, 1, eps)."""
    g, s = lattice.range_plan(0.0, 1.0, eps)
    return (np.rint(r / g) + lattice.laplace_steps(s)) * g


def _ctb_bit(r, eps):
    # (r e^eps + 1 - r)/(1 + e^eps), in the tanh form the spec recommends (§2.3 numerics)
    return rng.bernoulli(0.5 + (r - 0.5) * math.tanh(eps / 2))


def ucb1(seed, means, horizon, curator="none", eps=None, law="bernoulli", sigmoid=False):
    """A0 / A2 / A4: pull each arm once, then argmax mean + sqrt(2 log t / N), t = completed
    pulls.  ``curator``: none (raw rewards) | ctb (LDP-UCB-B); ``sigmoid``: map rewards by s."""
    np.random.seed(seed)
    k = len(means)
    s, n, arms = [0.0] * k, [0] * k, []
    for t in range(horizon):
        if t < k:
            a = t
        else:
            idx = [s[i] / n[i] + math.sqrt(2 * math.log(t) / n[i]) for i in range(k)]
            a = int(np.argmax(idx))
        r = reward(law, means[a])
        if sigmoid:
            r = _sigmoid(r)
        x = r if curator == "none" else _ctb_bit(r, eps)
        s[a] += x
        n[a] += 1
        arms.append(a)
    return arms


def ldp_ucb_l(seed, means, horizon, eps, law="bernoulli", sigmoid=False):
    """Agent 2: forced exploration while N_a <= 4 log(t+1), else the Laplace UCB (R1)."""
    np.random.seed(seed)
    k = len(means)
    s, n, arms = [0.0] * k, [0] * k, []
    for t in range(horizon):
        if t < k:
            a = t
        else:
            forced = [i for i in range(k) if n[i] <= 4 * math.log(t + 1)]
            if forced:
                a = forced[0]
            else:
                idx = [s[i] / n[i] + math.sqrt(2 * math.log(t) / n[i])
                       + math.sqrt(32 * math.log(t) / (eps ** 2 * n[i])) for i in range(k)]
                a = int(np.argmax(idx))
        r = reward(law, means[a])
        if sigmoid:
            r = _sigmoid(r)
        s[a] += _ctl_report(r, eps)
        n[a] += 1
        arms.append(a)
    return arms


def _draw_level(dist, values, mu=1.0, sd=1.0, lo=0.0, hi=100.0):
    if dist == "fixed":
        return values[0]
    if dist == "discrete":
        return values[min(int(rng.uniform() * len(values)), len(values) - 1)]
    return min(max(mu + sd * np.random.standard_normal(), lo), hi)


def heldp_ucb(seed, means, horizon, variant, eps_min, dist, values, forced_choice="random",
              law="bernoulli", sigmoid=False):
    """Agents 2 (variant 'L') and 4 (variant 'B') of seed 001, rounds tau = 1..T."""
    np.random.seed(seed)
    k = len(means)
    n, s, acc = [0] * k, [0.0] * k, [0.0] * k
    arms = []
    for tau in range(1, horizon + 1):
        big_l = 4 * math.log(tau)
        if variant == "L":
            forced = [i for i in range(k) if acc[i] <= big_l / eps_min ** 2]
            if forced:
                a = forced[int(rng.uniform() * len(forced))] if forced_choice == "random" else forced[0]
            else:
                idx = [s[i] / n[i] + math.sqrt(big_l / (2 * n[i])) + math.sqrt(8 * acc[i] * big_l) / n[i]
                       for i in range(k)]
                a = int(np.argmax(idx))
        else:
            unpulled = [i for i in range(k) if n[i] == 0]
            if unpulled:
                a = unpulled[0]
            else:
                idx = [s[i] / n[i] + math.sqrt(acc[i] * big_l / 2) / n[i] for i in range(k)]
                a = int(np.argmax(idx))
        e = _draw_level(dist, values)
        if e > 0:
            r = reward(law, means[a])
            if sigmoid:
                r = _sigmoid(r)
            if variant == "L":
                x = _ctl_report(r, e)
            else:
                x = _ctb_bit(r, e)
            if e >= eps_min:
                n[a] += 1
                if variant == "L":
                    s[a] += x
                    acc[a] += e ** -2
                else:
                    c = math.tanh(e / 2)            # (e^eps - 1)/(e^eps + 1)
                    s[a] += 0.5 + (x - 0.5) / c
                    acc[a] += 1 / (c * c)
        arms.append(a)
    return arms
