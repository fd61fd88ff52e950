"""Tumult Core: a ``tmlt.core`` Measurement (AddLaplaceNoise, AddGeometricNoise, AddDiscreteGaussianNoise, ...).

Sampler: ``measurement(value)`` once per output (numpy integers for an integer domain, floats for a
float domain).  Claim: its ``privacy_function`` at d_in, the pair's AbsoluteDifference (or a
given d_in), by its output measure: PureDP gives eps; ApproxDP (eps, delta); RhoZCDP gives rho,
converted to (eps, delta) at the audit's delta by eps = rho + 2 sqrt(rho ln(1/delta)) (Bun &
Steinke 2016, Prop. 1.3; Tumult Core has no conversion of its own).  Other input metrics (data
frames under symmetric difference, ...) need a given d_in.
Seeding: Tumult Core draws from RDRAND or ``os.urandom``: the outputs cannot be seeded.
Tumult Core pins numpy < 2: install it in its own environment (``pip install "dpbench[tumult]"``),
or with the other libraries at numpy 1.26.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .base import (
    DEFAULT_DELTA,
    Adapter,
    Claim,
    ClaimError,
    draw,
    exact,
    implied_delta,
    integral,
    number_text,
    scalar,
    zcdp_to_eps,
)


def _float(v) -> float:
    """A Tumult ExactNumber (or number) as a float, rounded up (a claim is never read smaller than stated)."""
    return float(v.to_float(round_up=True)) if hasattr(v, "to_float") else float(v)


class Tumult(Adapter):
    """Tumult Core measurements (0.x)."""

    name = "tmlt.core"
    module = "tmlt"
    install = 'pip install "dpbench[tumult]"  (numpy < 2: in its own environment)'

    objects = ("core.measurements.base", ("Measurement",))

    def unsupported(self, obj) -> str:
        return "an interactive measurement (a queryable) is not one mechanism" if obj.is_interactive else ""

    def describe(self, obj) -> str:
        shown = [f"{k}={getattr(obj, k)}" for k in ("scale", "alpha", "sigma_squared") if hasattr(obj, k)]
        return f"{type(obj).__name__}({', '.join(shown)})"

    def sample(self, obj, x, n, seed):
        domain = type(obj.input_domain).__name__
        if domain == "NumpyIntegerDomain":
            value = np.int64(integral(x, f"Tumult {type(obj).__name__}"))
        elif domain == "NumpyFloatDomain":
            value = scalar(x, f"Tumult {type(obj).__name__}")
        else:
            value = x
        return draw(obj, value, n)

    def claim(self, obj, x, x_prime, *, d_in=None, delta=None) -> Claim:
        metric = type(obj.input_metric).__name__
        if d_in is not None:
            d, where = exact(d_in), f"d_in = {number_text(d_in)} (given)"
        elif metric == "AbsoluteDifference":
            d = abs(exact(scalar(x, "x")) - exact(scalar(x_prime, "x_prime")))
            where = f"d_in = {number_text(d)} (AbsoluteDifference of x and x')"
        else:
            raise ClaimError(f"the distance of x and x' under its input metric {metric} is not known here: give it, "
                             f"verify.audit.libraries.wrap(measurement, d_in=...)")
        d_value = int(d) if d.denominator == 1 else Fraction(d)
        try:
            d_out = obj.privacy_function(d_value)
        except Exception as err:            # noqa: BLE001 - the library's refusal, in one line
            raise ClaimError(f"its privacy function refused d_in = {d_value}: {' '.join(str(err).split())}") from None
        measure = type(obj.output_measure).__name__
        at = f"from the measurement's privacy function at {where}"
        if measure == "PureDP":
            eps = _float(d_out)
            return Claim(eps, implied_delta(delta, 0.0, f"eps = {number_text(eps)}"), f"eps = {number_text(eps)} {at}")
        if measure == "ApproxDP":
            eps, own = (_float(v) for v in d_out)
            return Claim(eps, implied_delta(delta, own, f"(eps, delta) = ({number_text(eps)}, {own:g})"),
                         f"(eps, delta) = ({number_text(eps)}, {own:g}) {at}")
        if measure == "RhoZCDP":
            rho = _float(d_out)
            target = DEFAULT_DELTA if delta is None else float(delta)
            why = "the default delta for a curve" if delta is None else "the audit's delta"
            eps = zcdp_to_eps(rho, target)
            return Claim(eps, target, f"eps = {number_text(eps)} at delta = {target:g} ({why}) {at}: rho = "
                                      f"{number_text(rho)} (zCDP), converted by eps = rho + 2 sqrt(rho ln(1/delta)) "
                                      f"(Bun & Steinke 2016, Prop. 1.3)")
        raise ClaimError(f"its output measure {measure} has no (eps, delta) form here (supported: PureDP, ApproxDP, "
                         f"RhoZCDP); give eps and delta")

    def seeding(self, obj) -> str:
        return "Tumult Core draws from RDRAND or os.urandom (the operating system's entropy), which no seed can fix"

    def default_pair(self, obj) -> tuple | None:
        if type(obj.input_metric).__name__ != "AbsoluteDifference":
            return None
        return (0, 1) if type(obj.input_domain).__name__ == "NumpyIntegerDomain" else (0.0, 1.0)
