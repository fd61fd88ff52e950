"""Planted bugs: mechanisms written the way users write them, each with one bug of a known class.

Every case of :func:`planted_bugs` is a mechanism with one bug of a class that black-box audits
are known to miss (floating point, an atom, a rare output, add/remove neighbours, a vector's
sensitivity, a noise scale), the same mechanism fixed, the input pair and the claim.  The
default audit must catch every bug -- in the layer the bug belongs to -- and pass every fixed
version (tests/test_audit.py, tests/test_audit_slow.py; ``dpbench audit-suite --planted-only``
writes the table).  The floating-point fix is the one of Mironov (CCS'12) in its simplest form:
input and noise are rounded to a lattice of 2^-32 before they are added, so the sum is exact
and its granularity no longer depends on the input.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..layers import FLOATING_POINT, LAW

#: the lattice of the fixed (float-safe) mechanisms
LATTICE = 2.0 ** -32


def snap(values):
    """Round to the nearest multiple of LATTICE (exact for |values| < 2^20)."""
    return np.round(np.asarray(values, dtype=np.float64) / LATTICE) * LATTICE


def gaussian_sigma(eps: float, delta: float) -> float:
    """The classic Gaussian mechanism's noise for l2-sensitivity 1 (Dwork & Roth Thm A.1)."""
    return math.sqrt(2.0 * math.log(1.25 / delta)) / eps


def gaussian_eps(mu: float, delta: float) -> float:
    """The exact eps at ``delta`` of a Gaussian mechanism whose inputs are mu standard deviations apart
    (``gauss_delta``: Balle & Wang, ICML'18, Thm 8)."""
    from scipy.optimize import brentq

    from dpbench.mechanisms.perturbations.gaussian import gauss_delta
    return float(brentq(lambda e: gauss_delta(e, mu) - delta, 0.0, 100.0)) if gauss_delta(0.0, mu) > delta else 0.0


def _named(mechanism, name: str):
    mechanism.__name__ = mechanism.__qualname__ = mechanism.name = name
    return mechanism


def _generator(seed, *key) -> np.random.Generator:
    return np.random.default_rng([int(seed), *key])


def _noise_mechanism(name: str, noise, float_safe: bool):
    """x + noise(rng, n, shape of x), in plain floating point or on the lattice."""
    def mechanism(x, n, seed):
        x = np.asarray(x, dtype=np.float64)
        z = noise(_generator(seed), n, x.shape)
        return snap(x) + snap(z) if float_safe else x + z
    return _named(mechanism, name + ("_on_lattice" if float_safe else ""))


def generator_laplace(eps: float, float_safe: bool = False):
    """numpy.random.Generator.laplace(loc=x, scale=1/eps) (the float sampler of NumPy)."""
    if float_safe:
        return _noise_mechanism("generator_laplace", lambda g, n, s: g.laplace(0.0, 1.0 / eps, (n,) + s), True)

    def mechanism(x, n, seed):
        return _generator(seed).laplace(loc=x, scale=1.0 / eps, size=n)
    return _named(mechanism, "generator_laplace")


def generator_gaussian(eps: float, delta: float, float_safe: bool = False, dim: int | None = None,
                       sensitivity: float = 1.0):
    """x + Generator.normal(0, sigma) with the classic sigma for (eps, delta) and this
    l2-sensitivity; ``dim``: a vector of ``dim`` coordinates."""
    sigma = gaussian_sigma(eps, delta) * sensitivity
    shape = () if dim is None else (dim,)
    return _noise_mechanism("generator_gaussian" if dim is None else f"generator_gaussian_{dim}d",
                            lambda g, n, s: sigma * g.standard_normal((n,) + shape), float_safe)


def legacy_laplace(eps: float, float_safe: bool = False):
    """np.random.laplace(x, 1/eps) after np.random.seed (NumPy's legacy global generator)."""
    def noise(_, n, shape):
        return np.random.laplace(0.0, 1.0 / eps, (n,) + shape)

    def mechanism(x, n, seed):
        np.random.seed(int(seed) % 2 ** 32)
        if float_safe:
            return snap(x) + snap(noise(None, n, ()))
        return np.random.laplace(x, 1.0 / eps, n)
    return _named(mechanism, "legacy_laplace" + ("_on_lattice" if float_safe else ""))


def inverse_cdf_laplace(eps: float, float_safe: bool = False):
    """The hand-written inverse CDF: x - b sgn(u) ln(1 - 2|u|), u uniform on [-1/2, 1/2)."""
    def noise(g, n, shape):
        u = g.random((n,) + shape) - 0.5
        return -(1.0 / eps) * np.sign(u) * np.log1p(-2.0 * np.abs(u))
    return _noise_mechanism("inverse_cdf_laplace", noise, float_safe)


def difference_of_exponentials(eps: float, float_safe: bool = False):
    """Laplace noise as the difference of two Generator.exponential draws."""
    return _noise_mechanism("difference_of_exponentials",
                            lambda g, n, s: g.exponential(1.0 / eps, (n,) + s) - g.exponential(1.0 / eps, (n,) + s),
                            float_safe)


def box_muller_gaussian(eps: float, delta: float, float_safe: bool = False):
    """x + sigma sqrt(-2 ln u1) cos(2 pi u2) with the legacy np.random uniforms."""
    sigma = gaussian_sigma(eps, delta)

    def mechanism(x, n, seed):
        np.random.seed(int(seed) % 2 ** 32)
        u1, u2 = 1.0 - np.random.random_sample(n), np.random.random_sample(n)
        z = sigma * np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
        return snap(x) + snap(z) if float_safe else x + z
    return _named(mechanism, "box_muller_gaussian" + ("_on_lattice" if float_safe else ""))


def exponential_mechanism_interval(eps: float, low: float = 0.0, high: float = 10.0, float_safe: bool = False):
    """The exponential mechanism on [low, high] with utility -|y - x| (sensitivity 1): density
    proportional to exp(-eps |y - x| / 2), sampled by inverting its CDF."""
    s = 2.0 / eps

    def mechanism(x, n, seed):
        u = _generator(seed).random(n)
        left, right = -math.expm1(-(x - low) / s), -math.expm1(-(high - x) / s)
        t = u * (left + right)
        on_left = t < left
        z = np.where(on_left, s * np.log1p(-np.minimum(t, left)), -s * np.log1p(-np.maximum(t - left, 0.0)))
        return snap(x) + snap(z) if float_safe else x + z
    return _named(mechanism, "exponential_mechanism_interval" + ("_on_lattice" if float_safe else ""))


def with_leak(base, mass: float, where, name: str):
    """``base`` that releases where(x) instead with probability ``mass`` (an atom)."""
    def mechanism(x, n, seed):
        y = np.array(base(x, n, seed), dtype=np.float64)
        hit = _generator(seed, 77).random(n) < mass
        y[hit] = where(x)
        return y
    return _named(mechanism, name)


def discrete_laplace(rng: np.random.Generator, scale: float, size) -> np.ndarray:
    """Discrete Laplace on the integers, P(k) proportional to exp(-|k| / scale) (difference
    of two geometric variables)."""
    p = -math.expm1(-1.0 / scale)
    return (rng.geometric(p, size) - rng.geometric(p, size)).astype(np.float64)


def thresholded_count(eps: float, threshold: int, bottom: float = -1.0, dim: int | None = None):
    """Release a count c >= 0 as c + DLap(1/eps) when that reaches ``threshold``, else the
    symbol ``bottom`` (a key of a partition selection / thresholded histogram); count 0 (the
    key absent) always gives ``bottom``.  Neighbours 0 and 1: delta must cover
    P(1 + DLap >= threshold) (:func:`release_mass`).  ``dim``: a histogram of ``dim`` keys,
    the first holding the count and the others fixed at 100."""
    def one(g, c, n):
        if c <= 0:
            return np.full(n, bottom)
        v = c + discrete_laplace(g, 1.0 / eps, n)
        return np.where(v >= threshold, v, bottom)

    def mechanism(x, n, seed):
        g = _generator(seed)
        c = np.atleast_1d(np.asarray(x, dtype=np.float64))
        if dim is None:
            return one(g, c[0], n)
        return np.column_stack([one(g, c[0], n)] + [one(g, 100.0, n) for _ in range(dim - 1)])
    return _named(mechanism, f"thresholded_count_T{threshold}" + ("" if dim is None else f"_{dim}d"))


def bottom_or_release(mass: float, bottom: float = -1.0):
    """The symbol ``bottom`` on input 0; on input 1, a value 10 + Geometric(1/2) with
    probability ``mass``, else ``bottom``: a rare discrete output of known mass."""
    def mechanism(x, n, seed):
        g = _generator(seed)
        y = np.full(n, bottom)
        if x == 1:
            hit = g.random(n) < mass
            y[hit] = 10.0 + g.geometric(0.5, int(hit.sum()))
        return y
    return _named(mechanism, "bottom_or_release")


def release_mass(eps: float, threshold: int) -> float:
    """P(1 + DLap(1/eps) >= threshold): what a thresholded count releases for a count of 1."""
    q = math.exp(-eps)                         # P(DLap >= k) = q^k / (1 + q) for k >= 1
    return q ** (threshold - 1) / (1.0 + q) if threshold > 1 else 1.0


def randomized_response(eps: float, k: int = 4, leak: float = 0.0):
    """k-ary randomised response; with ``leak`` > 0 it also outputs the error code k with
    probability ``leak`` when x = 1 (a debug path left in)."""
    keep = math.exp(eps) / (math.exp(eps) + k - 1)

    def mechanism(x, n, seed):
        g = _generator(seed)
        other = g.integers(0, k - 1, n).astype(np.float64)
        other += other >= x                    # uniform over the k - 1 values other than x
        y = np.where(g.random(n) < keep, float(x), other)
        if leak and x == 1:
            y[g.random(n) < leak] = float(k)
        return y
    return _named(mechanism, f"randomized_response_{k}" + ("_with_error_code" if leak else ""))


def noisy_mean(eps: float, add_remove_safe: bool = False):
    """The mean of records in [0, 1] (a list of any length), on the lattice.  The bug: noise
    Lap(1 / (eps len(x))) calibrated to replace-one sensitivity 1/len(x), which does not bound
    adding or removing a record (the noise scale itself depends on the dataset's size).  The
    fix (``add_remove_safe``): a noisy sum and a noisy count, each Lap(2 / eps), divided (a
    post-processing of an eps-DP release under add/remove one)."""
    def mechanism(x, n, seed):
        x = np.asarray(x, dtype=np.float64)
        g = _generator(seed)
        if not add_remove_safe:
            return snap(x.mean()) + snap(g.laplace(0.0, 1.0 / (eps * x.size), n))
        total = snap(x.sum()) + snap(g.laplace(0.0, 2.0 / eps, n))
        count = snap(x.size) + snap(g.laplace(0.0, 2.0 / eps, n))
        return total / np.maximum(count, 1.0)
    return _named(mechanism, "noisy_mean" + ("_sum_over_count" if add_remove_safe else ""))


@dataclass
class PlantedBug:
    """A mechanism with one bug of a known class, the same mechanism fixed, and the claim.

    true_eps  the exact eps of the buggy mechanism on (x, x') at the claimed delta (inf: not DP at
              that delta; a floating-point bug is not DP as implemented)
    mass      when the violation lives on a rare event (an atom, a rare output): its mass under
              the favoured input (the other input never produces it); None otherwise
    """
    name: str
    bug_class: str
    mechanism: object
    fixed: object
    x: object
    x_prime: object
    eps: float
    delta: float
    why: str
    true_eps: float = math.inf
    mass: float | None = None

    @property
    def layer(self) -> str:
        """The layer the bug belongs to: the floating point for the floating-point class, else the law."""
        return FLOATING_POINT if self.bug_class == "floating point" else LAW


def planted_bugs() -> list[PlantedBug]:
    """The cases of each planted bug class (several samplers, input pairs and masses)."""
    d5, one5 = np.zeros(5), np.array([1.0, 0, 0, 0, 0])
    fp = "floating point"
    cases = [
        PlantedBug("generator_laplace", fp, generator_laplace(1.0), generator_laplace(1.0, True), 0.0, 1.0,
                   1.0, 0.0, "Generator.laplace(loc=x, scale=1/eps): granularity of x + noise"),
        PlantedBug("generator_gaussian", fp, generator_gaussian(1.0, 1e-5), generator_gaussian(1.0, 1e-5, True),
                   0.0, 1.0, 1.0, 1e-5, "x + Generator.normal(0, classic sigma)"),
        PlantedBug("legacy_laplace", fp, legacy_laplace(0.5), legacy_laplace(0.5, True), 1.0, 2.0, 0.5, 0.0,
                   "np.random.laplace(x, 1/eps) (legacy global generator)"),
        PlantedBug("inverse_cdf_laplace", fp, inverse_cdf_laplace(1.0), inverse_cdf_laplace(1.0, True), 2.0, 3.0,
                   1.0, 0.0, "hand-written inverse-CDF Laplace"),
        PlantedBug("difference_of_exponentials", fp, difference_of_exponentials(2.0),
                   difference_of_exponentials(2.0, True), -1.0, 0.0, 2.0, 0.0,
                   "Laplace as a difference of two exponential draws"),
        PlantedBug("box_muller_gaussian", fp, box_muller_gaussian(1.0, 1e-5), box_muller_gaussian(1.0, 1e-5, True),
                   0.5, 1.5, 1.0, 1e-5, "hand-written Box-Muller Gaussian on legacy uniforms"),
        PlantedBug("exponential_mechanism_interval", fp, exponential_mechanism_interval(1.0),
                   exponential_mechanism_interval(1.0, float_safe=True), 3.0, 4.0, 1.0, 0.0,
                   "exponential mechanism on [0, 10] by CDF inversion"),
        PlantedBug("generator_gaussian_5d", fp, generator_gaussian(1.0, 1e-5, dim=5),
                   generator_gaussian(1.0, 1e-5, True, dim=5), d5, one5, 1.0, 1e-5,
                   "5-d Gaussian mechanism, one coordinate differs"),
        PlantedBug("laplace_releases_input", "atom",
                   with_leak(generator_laplace(1.0, True), 1e-3, lambda x: x, "laplace_releases_input"),
                   generator_laplace(1.0, True), 0.0, 1.0, 1.0, 0.0,
                   "releases its input itself with probability 1e-3", mass=1e-3),
        PlantedBug("gaussian_leak_1e-4", "atom",
                   with_leak(generator_gaussian(1.0, 1e-5, True), 1e-4, lambda x: x, "gaussian_leak_1e-4"),
                   generator_gaussian(1.0, 1e-5, True), 0.0, 1.0, 1.0, 1e-5,
                   "Gaussian mechanism releasing its input with probability 1e-4 > delta", mass=1e-4),
        PlantedBug("laplace_debug_value", "atom",
                   with_leak(inverse_cdf_laplace(0.5, True), 2e-4, lambda x: 1000.0 * x + 7.0, "laplace_debug_value"),
                   inverse_cdf_laplace(0.5, True), 2.0, 3.0, 0.5, 0.0,
                   "a debug value 1000 x + 7 with probability 2e-4", mass=2e-4),
        PlantedBug("vector_laplace_releases_input", "atom",
                   with_leak(generator_laplace(1.0, True), 3e-4, lambda x: x, "vector_laplace_releases_input"),
                   generator_laplace(1.0, True), np.zeros(3), np.array([1.0, 0, 0]), 1.0, 0.0,
                   "3-d Laplace releasing its input with probability 3e-4", mass=3e-4),
        PlantedBug("thresholded_count_T10", "rare output", thresholded_count(1.0, 10), thresholded_count(1.0, 13),
                   0.0, 1.0, 1.0, 1e-5,
                   f"threshold 10 releases mass {release_mass(1.0, 10):.2g} > delta (bottom = -1)",
                   mass=release_mass(1.0, 10)),
        PlantedBug("thresholded_count_T9_bottom0", "rare output", thresholded_count(1.0, 9, bottom=0.0),
                   thresholded_count(1.0, 13, bottom=0.0), 0.0, 1.0, 1.0, 1e-5,
                   f"threshold 9 releases mass {release_mass(1.0, 9):.2g} (bottom = 0)", mass=release_mass(1.0, 9)),
        PlantedBug("thresholded_histogram_3d", "rare output", thresholded_count(0.5, 17, dim=3),
                   thresholded_count(0.5, 25, dim=3), np.array([0.0, 100, 100]), np.array([1.0, 100, 100]),
                   0.5, 1e-5, f"3-key histogram, threshold 17 releases mass {release_mass(0.5, 17):.2g}",
                   mass=release_mass(0.5, 17)),
        PlantedBug("randomized_response_error_code", "rare output", randomized_response(1.0, 4, leak=2e-4),
                   randomized_response(1.0, 4), 0.0, 1.0, 1.0, 1e-5,
                   "randomised response emitting an error code with probability 2e-4 for x = 1", mass=2e-4),
        PlantedBug("noisy_mean_add_remove", "add/remove", noisy_mean(1.0), noisy_mean(1.0, True), [0.0],
                   [0.0, 1.0], 1.0, 0.0, "mean with noise 1/(eps len(x)): replace-one calibration, datasets of "
                   "different sizes"),
        PlantedBug("gaussian_l2_sensitivity", "vector", generator_gaussian(1.0, 1e-5, True, dim=8),
                   generator_gaussian(1.0, 1e-5, True, dim=8, sensitivity=math.sqrt(8.0)), np.zeros(8), np.ones(8),
                   1.0, 1e-5, "8-d Gaussian with sigma for l2-sensitivity 1; the inputs differ by sqrt(8)",
                   true_eps=gaussian_eps(math.sqrt(8.0) / gaussian_sigma(1.0, 1e-5), 1e-5)),
        PlantedBug("laplace_l1_sensitivity", "vector", generator_laplace(1.0, True),
                   generator_laplace(0.2, True), np.zeros(5), np.ones(5), 1.0, 0.0,
                   "5-d Laplace with scale 1/eps per coordinate; the inputs differ by 5 in l1", true_eps=5.0),
        PlantedBug("laplace_half_scale", "scale", generator_laplace(2.0, True), generator_laplace(1.0, True),
                   0.0, 1.0, 1.0, 0.0, "Laplace scale 1/(2 eps)", true_eps=2.0),
        PlantedBug("gaussian_sigma_eps_squared", "scale", generator_gaussian(2.0, 1e-5, True),
                   generator_gaussian(1.0, 1e-5, True), 0.0, 1.0, 1.0, 1e-5,
                   "Gaussian sigma computed for eps = 2", true_eps=gaussian_eps(1.0 / gaussian_sigma(2.0, 1e-5), 1e-5)),
    ]
    return cases

