"""Special functions the perturbation laws need, compiled: the regularised incomplete beta
function (DP-FTPL-Beta's CDF) and the standard normal quantile (the lattice Gaussian's sampler).

* ``beta_cdf_sf(x, a, b)``: (I_x(a, b), 1 - I_x(a, b)), each on its accurate side, about 1e-14
  relative for shapes up to 1e7: the front factor x^a (1-x)^b / B(a, b) is computed around the
  mode with Stirling-series remainders (no difference of huge log-gammas), the rest by Lentz's
  continued fraction (Numerical Recipes 6.4);
* ``beta_front(x, a, b)``: that front factor (the density is front / (x (1 - x)));
* ``ndtri(p)``: Phi^-1(p) for 0 < p < 1 by Wichura's algorithm AS 241 (Applied Statistics 37(3),
  1988, PPND16: "accurate to about 1 part in 10^16"; tests/test_perturbations.py checks it
  against scipy.special.ndtri to 2^-50 relative over (2^-1000, 1/2]).
"""
from __future__ import annotations

import math

from ..engine.caching import cached_njit

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


# ========================================================= incomplete beta
@cached_njit
def _stirling_correction(z):
    """lgamma(z) - [(z - 1/2) ln z - z + ln(2 pi)/2] (the Stirling-series remainder)."""
    if z >= 15.0:
        iz = 1.0 / z
        iz2 = iz * iz
        return iz * (1.0 / 12.0 - iz2 * (1.0 / 360.0 - iz2 * (1.0 / 1260.0 - iz2 * (
            1.0 / 1680.0 - iz2 / 1188.0))))
    return math.lgamma(z) - ((z - 0.5) * math.log(z) - z + _HALF_LOG_2PI)


@cached_njit
def beta_front(x, a, b):
    """x^a (1-x)^b / B(a, b), computed around the mode p = a/(a+b) so that shapes of
    1e6 and more keep full relative accuracy (no difference of huge lgammas)."""
    n = a + b
    p = a / n
    q = b / n
    # x - p from the side where p (or q = 1 - p) is small, hence exact to a tiny absolute
    # error (a rounding error e in p costs a relative error n * e of the result)
    dx = x - p if p <= 0.5 else q - (1.0 - x)
    # a ln(x/p) + b ln((1-x)/q): log1p near the mode (where the two cancel to first
    # order), plain logs of the ratios far from it (where 1 - dx/q would lose digits)
    lx = math.log1p(dx / p) if abs(dx) < 0.5 * p else math.log(x / p)
    ly = math.log1p(-dx / q) if abs(dx) < 0.5 * q else math.log((1.0 - x) / q)
    log_front = (0.5 * math.log(a * b / (2.0 * math.pi * n))
                 + _stirling_correction(n) - _stirling_correction(a) - _stirling_correction(b)
                 + a * lx + b * ly)
    return math.exp(log_front)


@cached_njit
def _beta_continued_fraction(a, b, x):
    """Lentz evaluation of the continued fraction of I_x(a, b) (Numerical Recipes 6.4)."""
    tiny = 1e-300
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    for m in range(1, 1_000_000):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return h


@cached_njit
def beta_cdf_sf(x, a, b):
    """(I_x(a, b), 1 - I_x(a, b)), each computed on its accurate side."""
    if x <= 0.0:
        return 0.0, 1.0
    if x >= 1.0:
        return 1.0, 0.0
    front = beta_front(x, a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        lower = front * _beta_continued_fraction(a, b, x) / a
        return lower, 1.0 - lower
    upper = front * _beta_continued_fraction(b, a, 1.0 - x) / b
    return 1.0 - upper, upper


# ========================================================= normal quantile
# AS 241 (PPND16) coefficients; the hash sums of the paper (sums of the mantissas) check them
# in tests/test_perturbations.py: 55.8831928806149014439, 49.33206503301610289036 and
# 47.52583317549289671629.
_A = (3.3871328727963666080, 1.3314166789178437745e2, 1.9715909503065514427e3, 1.3731693765509461125e4,
      4.5921953931549871457e4, 6.7265770927008700853e4, 3.3430575583588128105e4, 2.5090809287301226727e3)
_B = (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
      2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4, 5.2264952788528545610e3)
_C = (1.42343711074968357734, 4.63033784615654529590, 5.76949722146069140550, 3.64784832476320460504,
      1.27045825245236838258, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4)
_D = (1.0, 2.05319162663775882187, 1.67638483018380384940, 6.89767334985100004550e-1,
      1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4, 1.05075007164441684324e-9)
_E = (6.65790464350110377720, 5.46378491116411436990, 1.78482653991729133580, 2.96560571828504891230e-1,
      2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7)
_F = (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
      7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15)
#: the coefficient tables, for the transcription check
AS241_TABLES = {"AB": (_A, _B[1:]), "CD": (_C, _D[1:]), "EF": (_E, _F[1:])}


@cached_njit
def _horner(c, r):
    return (((((((c[7] * r + c[6]) * r + c[5]) * r + c[4]) * r + c[3]) * r + c[2]) * r + c[1]) * r + c[0])


@cached_njit
def ndtri(p):
    """Phi^-1(p), the standard normal quantile, for 0 < p < 1 (AS 241)."""
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _horner(_A, r) / _horner(_B, r)
    r = p if q < 0.0 else 1.0 - p
    r = math.sqrt(-math.log(r))
    if r <= 5.0:
        r -= 1.6
        z = _horner(_C, r) / _horner(_D, r)
    else:
        r -= 5.0
        z = _horner(_E, r) / _horner(_F, r)
    return -z if q < 0.0 else z
