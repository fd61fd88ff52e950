"""Plain-Python references for seed 002 (spec seed_002.md §5, Algorithms 1-4; Thompson sampling).

Written from the spec's pseudo-code and formulas, not from ``dpbench.policies``.
Randomness goes through ``dpbench.randomness`` in the engine's documented order:
per step, theta_1..theta_N in arm order, then the pulled arm's reward
(``rng.bernoulli(mu)``).  A start phase of m > 1 pulls of one arm draws its
reward sum as one ``rng.binomial(m, mu)`` (the engine's batch draw; same law as m
Bernoulli pulls), cut at the horizon like every loop here.  GDP-Elim-New draws
its phase-end thetas after the phase's last reward.  The Gaussian and Lemma 15 thetas and
the Laplace releases are the float-safe draws of ``dpbench.mechanisms`` (on a lattice:
``perturbations.gauss_perturbation``, ``perturbations.lemma15_lattice_draw``,
``lattice.laplace_lattice_release``), drawn in the same order.
"""
import math

import numpy as np

from dpbench import randomness as rng
from dpbench.mechanisms.lattice import laplace_lattice_release
from dpbench.mechanisms.perturbations import gauss_perturbation, lemma15_lattice_draw


class _Run:
    """Arm sequence, horizon accounting and Bernoulli rewards of one run."""

    def __init__(self, seed, means, horizon):
        np.random.seed(seed)
        self.means, self.horizon, self.arms = means, horizon, []

    @property
    def t(self):
        return len(self.arms)

    @property
    def done(self):
        return self.t >= self.horizon

    def pull(self, arm, m=1):
        """Pull ``arm`` m times (cut at T); return (reward sum, pulls made)."""
        m = min(m, self.horizon - self.t)
        reward = rng.bernoulli(self.means[arm]) if m == 1 else rng.binomial(m, self.means[arm])
        self.arms += [arm] * m
        return reward, m


def _start_phase(run, ones, pulls, per_arm):
    for i in range(len(run.means)):
        if per_arm > 0 and not run.done:
            x, m = run.pull(i, per_arm)
            ones[i] += x
            pulls[i] += m


def _ftpl(run, ones, pulls, sample):
    while not run.done:
        thetas = [sample(i) for i in range(len(run.means))]
        i = int(np.argmax(thetas))                   # first maximum: lowest index on ties
        x, _ = run.pull(i)
        ones[i] += x
        pulls[i] += 1


def dp_ftpl_gauss(seed, means, horizon, eps, delta, v=2.0, start=None):
    """Algorithm 1: while N_i < N_G* pull arm i; then theta_i ~ N(R_i/N_i, v/N_i)."""
    if start is None:
        n_star = min(1 / (4 * math.pi * delta ** 2),
                     math.log(math.e / (4 * math.pi * delta ** 2)) / eps ** 2 if eps > 0 else math.inf)
        start = max(1, math.ceil(n_star))
    run = _Run(seed, means, horizon)
    k = len(means)
    ones, pulls = [0.0] * k, [0.0] * k
    _start_phase(run, ones, pulls, start)
    _ftpl(run, ones, pulls, lambda i: gauss_perturbation(ones[i] / pulls[i], math.sqrt(v / pulls[i]), 1 / pulls[i]))
    return run.arms


def dp_ftpl_beta(seed, means, horizon, eps, delta, extra_k=True, start=None):
    """Algorithm 2: while N_i < N_B* pull arm i; then theta_i ~ Beta(a_i + k_i, b_i + k_i),
    a_i = R_i + 1, b_i = N_i - R_i + 1, k_i = floor(N_i/8) + 1."""
    if start is None:
        d2 = 9 * math.pi * delta ** 2
        n_star = max(min(40 * math.e / d2,
                         8000 / (81 * eps ** 2) * math.log(50 * math.e / d2) if eps > 0 else math.inf),
                     1000 * math.e / (9 * math.pi))
        start = math.ceil(n_star)
    run = _Run(seed, means, horizon)
    k = len(means)
    ones, pulls = [0.0] * k, [0.0] * k
    _start_phase(run, ones, pulls, start)

    def sample(i):
        kk = (pulls[i] // 8 + 1) if extra_k else 0
        return rng.beta(ones[i] + 1 + kk, pulls[i] - ones[i] + 1 + kk)
    _ftpl(run, ones, pulls, sample)
    return run.arms


def thompson(seed, means, horizon):
    """Beta-Bernoulli Thompson sampling: theta_i ~ Beta(R_i + 1, N_i - R_i + 1)."""
    return dp_ftpl_beta(seed, means, horizon, 1.0, 0.5, extra_k=False, start=0)


def gaussian_thompson(seed, means, horizon):
    """Gaussian Thompson sampling: pull each arm once, then theta_i ~ N(R_i/N_i, 1/N_i)."""
    return dp_ftpl_gauss(seed, means, horizon, 1.0, 0.5, v=1.0, start=1)


def lemma15_sample(x0, n, eps, delta):
    """Spec §4.4's Lemma 15 law centred at x0 with count N, drawn float-safe on a lattice
    (``lemma15_lattice_draw``: the quantile of one signed uniform, or the lattice Laplace at delta = 0)."""
    return lemma15_lattice_draw(x0, n, eps, delta)


def dp_ftpl_new(seed, means, horizon, eps, delta):
    """Algorithm 3: one pull per arm; theta_i ~ Lemma 15 law at x0_i = R_i/N_i + sqrt(ln T/N_i)
    + (1/(N_i eps)) ln((T(e^eps-1) + 2T delta)/(2(e^eps-1) + 2T delta)) ((T-2)/(2 T N_i delta) at eps = 0)."""
    run = _Run(seed, means, horizon)
    k = len(means)
    ones, pulls = [0.0] * k, [0.0] * k
    _start_phase(run, ones, pulls, 1)
    T = horizon

    def centre(i):
        n = pulls[i]
        if eps > 0:
            em1 = math.expm1(eps)
            d = math.log((T * em1 + 2 * T * delta) / (2 * em1 + 2 * T * delta)) / (n * eps)
        else:
            d = (T - 2) / (2 * T * n * delta)
        return ones[i] / n + math.sqrt(math.log(T) / n) + d
    _ftpl(run, ones, pulls, lambda i: lemma15_sample(centre(i), pulls[i], eps, delta))
    return run.arms


def gdp_elim_new(seed, means, horizon, eps, delta, order="round_robin"):
    """Algorithm 4: phase k pulls every arm N(k) times (round robin or arm blocks), then
    theta_i ~ Lemma 15 law at (eps, delta/2), x0 = this phase's mean, N = N(k); exploit i
    forever if theta_i > max_{j != i} theta_j + Delta(k)."""
    run = _Run(seed, means, horizon)
    k = len(means)
    T = horizon
    phase = 0
    while not run.done:
        phase += 1
        gap = 2.0 ** -phase
        if eps > 0:
            em1 = math.expm1(eps)
            priv = 4 / (eps * gap) * math.log((T ** 2 * em1 + T ** 2 * delta) / (2 * em1 + T ** 2 * delta))
        else:
            priv = 4 / gap * (T ** 2 - 2) / (T ** 2 * delta)
        n_k = math.ceil(max(32 * math.log(T) / gap ** 2, priv))
        sums = [0.0] * k
        if order == "round_robin":
            for _ in range(n_k):
                for i in range(k):
                    if not run.done:
                        sums[i] += run.pull(i)[0]
        else:
            for i in range(k):
                if not run.done:
                    sums[i] += run.pull(i, n_k)[0]
        if run.done:
            break
        thetas = [lemma15_sample(sums[i] / n_k, n_k, eps, delta / 2) for i in range(k)]
        best = int(np.argmax(thetas))
        if thetas[best] > max(thetas[j] for j in range(k) if j != best) + gap:
            run.arms += [best] * (T - run.t)
    return run.arms


# ---------------------------------------------------------------- baselines (spec §5.5)
class _Binary:
    """Binary (tree) mechanism of Chan, Shi & Song / Dwork et al. over one block: p-sums
    alpha_i, noisy copies drawn once when formed, release = noisy p-sums at t's set bits."""

    def __init__(self, bits, eps):
        self.alpha, self.alpha_hat = [0.0] * (bits + 1), [0.0] * (bits + 1)
        self.scale, self.t = bits / eps, 0

    def add(self, x):
        self.t += 1
        i = (self.t & -self.t).bit_length() - 1
        self.alpha[i] = sum(self.alpha[:i]) + x
        for j in range(i):
            self.alpha[j] = self.alpha_hat[j] = 0.0
        self.alpha_hat[i] = laplace_lattice_release(self.alpha[i], 1.0, 1.0 / self.scale)   # Lap(scale), |x| <= 1
        return sum(self.alpha_hat[j] for j in range(len(self.alpha)) if (self.t >> j) & 1)


class _Hybrid:
    """Hybrid counter at eps: logarithmic mechanism at eps/2 (fresh Lap(2/eps) added to the
    running sum at t = 2^j) plus a binary mechanism at eps/2 over each block 2^j < t < 2^(j+1)."""

    def __init__(self, eps):
        self.eps, self.t, self.beta, self.last, self.block = eps, 0, 0.0, 0.0, None

    def add(self, x):
        self.t += 1
        self.beta += x
        if self.t & (self.t - 1) == 0:
            self.beta = laplace_lattice_release(self.beta, 1.0, self.eps / 2)     # + Lap(2/eps)
            self.last = self.beta
            j = self.t.bit_length() - 1
            self.block = _Binary(j, self.eps / 2)
            return self.last
        return self.last + self.block.add(x)


def dp_ucb_bound(seed, means, horizon, eps, all_streams=False, bound=True):
    """DP-UCB-BOUND (bound, own streams) and DP-UCB (no bound, every stream fed each step):
    one pull per arm, then argmax S_hat/N + sqrt(2 ln t/N) [+ nu/N], t = completed pulls."""
    run = _Run(seed, means, horizon)
    k = len(means)
    counters = [_Hybrid(eps) for _ in range(k)]
    n, est = [0] * k, [0.0] * k
    while not run.done:
        t = run.t
        if t < k:
            a = t
        else:
            nu = math.sqrt(8) / eps * math.log(4 * t ** 4)
            idx = []
            for i in range(k):
                u = est[i] + math.sqrt(2 * math.log(t) / n[i])
                if bound:
                    u += nu / n[i] if n[i] & (n[i] - 1) == 0 else nu * (math.log(n[i]) + 1) / n[i]
                idx.append(u)
            a = int(np.argmax(idx))
        x, _ = run.pull(a)
        n[a] += 1
        if all_streams:
            for i in range(k):
                s = counters[i].add(x if i == a else 0.0)
                if n[i] > 0:
                    est[i] = s / n[i]
        else:
            est[a] = counters[a].add(x) / n[a]
    return run.arms


def dp_ucb(seed, means, horizon, eps, streams="all"):
    return dp_ucb_bound(seed, means, horizon, eps, all_streams=streams == "all", bound=False)


def dp_ucb_int(seed, means, horizon, eps, v=1.1, noise="scale"):
    """DP-UCB-INT: f = ceil(1/eps) round-robin rounds, then each step refresh the index of every
    arm with N_a % f == 0: mean + Lap(c/N_a^(1-v/2)) + sqrt(2 ln t/N_a), c = 1 or (noise = "sd",
    MATLAB laprnd's reading) 1/sqrt 2; pull the argmax."""
    c = 1.0 if noise == "scale" else 1.0 / math.sqrt(2.0)
    run = _Run(seed, means, horizon)
    k = len(means)
    f = math.ceil(1 / eps)
    s, n, idx = [0.0] * k, [0] * k, [0.0] * k
    while not run.done:
        t = run.t
        if t < k * f:
            a = t % k
        else:
            for i in range(k):
                if n[i] % f == 0:
                    idx[i] = s[i] / n[i] + rng.laplace(c / n[i] ** (1 - v / 2)) + math.sqrt(2 * math.log(t) / n[i])
            a = int(np.argmax(idx))
        x, _ = run.pull(a)
        s[a] += x
        n[a] += 1
    return run.arms


def dp_se(seed, means, horizon, eps, beta=None):
    """DP-SE: epochs e over active set S, n_e = ceil(R_e) fresh pulls per arm (round robin),
    noisy means + Lap(1/(eps n_e)), eliminate a if max - mu_a > 2(h_e + c_e)."""
    run = _Run(seed, means, horizon)
    beta = 1 / horizon if beta is None else beta
    active = list(range(len(means)))
    e = 0
    while not run.done:
        if len(active) == 1:
            run.arms += [active[0]] * (horizon - run.t)
            break
        e += 1
        size = len(active)
        gap = 2.0 ** -e
        r_e = max(32 * math.log(8 * size * e * e / beta) / gap ** 2,
                  8 * math.log(4 * size * e * e / beta) / (eps * gap)) + 1
        n_e = math.ceil(r_e)
        sums = {a: 0.0 for a in active}
        for _ in range(n_e):
            for a in active:
                if not run.done:
                    sums[a] += run.pull(a)[0]
        if run.done:
            break
        h = math.sqrt(math.log(8 * size * e * e / beta) / (2 * n_e))
        c = math.log(4 * size * e * e / beta) / (eps * n_e)
        noisy = {a: laplace_lattice_release(sums[a] / n_e, 1 / n_e, eps) for a in active}   # + Lap(1/(eps n_e))
        top = max(noisy.values())
        active = [a for a in active if top - noisy[a] <= 2 * (h + c)]
    return run.arms
