"""OpenDP: a ``Measurement`` (``dp.m.make_laplace(...)``, a chain ``t >> m``, a user measurement).

Sampler: the measurement itself, ``measurement(x)`` once per output.  Claim: its privacy map at
d_in, the distance of the audited pair under the measurement's input metric (or a given d_in),
by its output measure: MaxDivergence gives eps; ZeroConcentratedDivergence gives rho, converted
to (eps, delta) at the audit's delta by OpenDP's own ``make_zCDP_to_approxDP`` (tight;
Canonne, Kamath & Steinke 2020) where the installed version has it, else Bun & Steinke 2016,
Prop. 1.3; SmoothedMaxDivergence gives a privacy profile, read at the audit's delta;
Approximate(MaxDivergence) (FixedSmoothedMaxDivergence in older versions) gives (eps, delta).
Other measures (Renyi divergence, ...) have no (eps, delta) form here: a one-line error says so.
Seeding: OpenDP samples from the operating system's entropy; the outputs cannot be seeded.
"""
from __future__ import annotations

import importlib
import math
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import numpy as np

from dpbench.validation import InputError

from .base import DEFAULT_DELTA, Adapter, Claim, ClaimError, draw, exact, implied_delta, number_text, zcdp_to_eps

_FLOATS = {"f32", "f64"}
_INTS = {"i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"}


def _converter(carrier: str):
    """The Python conversion of one input element of a carrier type ("f64", "i32", "bool", "String")."""
    if carrier in _FLOATS:
        return float
    if carrier in _INTS:
        def to_int(v):
            value = float(v)
            if not value.is_integer():
                raise InputError(f"the measurement's input is {carrier} (integers); got {v!r}")
            return int(value)
        return to_int
    if carrier == "bool":
        return lambda v: v if isinstance(v, bool) else bool(float(v))
    if carrier == "String":
        return lambda v: v if isinstance(v, str) else (str(int(v)) if float(v).is_integer() else str(v))
    return lambda v: v


def _name(thing) -> str:
    """The name of a metric or measure without its type arguments ("AbsoluteDistance(f64)" -> "AbsoluteDistance")."""
    return str(thing).split("(", 1)[0].split("<", 1)[0].strip()


def _records(v) -> list:
    return list(np.asarray(v).reshape(-1).tolist()) if not isinstance(v, (list, tuple)) else list(v)


def input_distance(metric: str, x, x_prime):
    """The distance of (x, x') under an OpenDP input metric, as an exact number, or None if not known here.

    AbsoluteDistance |x - x'|; L1Distance / L2Distance of vectors of one length; SymmetricDistance
    the size of the multisets' symmetric difference; ChangeOneDistance / HammingDistance the
    positions that differ; DiscreteDistance 1 if the inputs differ.
    """
    if metric == "AbsoluteDistance":
        return abs(exact(float(np.asarray(x).reshape(-1)[0])) - exact(float(np.asarray(x_prime).reshape(-1)[0])))
    if metric == "DiscreteDistance":
        return Fraction(int(not _equal(x, x_prime)))
    a, b = _records(x), _records(x_prime)
    if metric == "SymmetricDistance":
        diff = Counter(a)
        diff.subtract(Counter(b))
        return Fraction(sum(abs(v) for v in diff.values()))
    if len(a) != len(b):
        return None
    if metric in ("ChangeOneDistance", "HammingDistance"):
        return Fraction(sum(u != v for u, v in zip(a, b)))
    if metric == "L1Distance":
        return sum((abs(exact(float(u)) - exact(float(v))) for u, v in zip(a, b)), Fraction(0))
    if metric == "L2Distance":
        square = sum(((exact(float(u)) - exact(float(v))) ** 2 for u, v in zip(a, b)), Fraction(0))
        root = Fraction(math.sqrt(square))
        return root if root * root >= square else Fraction(math.nextafter(float(root), math.inf))
    return None


def _equal(x, x_prime) -> bool:
    try:
        return bool(np.array_equal(np.asarray(x), np.asarray(x_prime)))
    except (TypeError, ValueError):
        return x == x_prime


class OpenDP(Adapter):
    """OpenDP measurements (every version since 0.4)."""

    name = "opendp"
    module = "opendp"
    install = 'pip install "dpbench[libraries]"  (or pip install opendp)'
    takes_measure = True

    objects = ("mod", ("Measurement", "Transformation"))

    def unsupported(self, obj) -> str:
        if isinstance(obj, self.loaded("mod").Transformation):
            return ("a Transformation is deterministic, not a DP mechanism: chain it with a measurement "
                    "(t >> dp.m.then_laplace(scale=...)) and audit the measurement")
        return ""

    def describe(self, obj) -> str:
        try:
            return f"Measurement {self._carrier(obj)} -> {_name(obj.output_measure)}"
        except AttributeError:              # before OpenDP 0.6: no output measure
            return f"Measurement on {self._carrier(obj)}"

    @staticmethod
    def _carrier(obj) -> str:
        try:
            return str(obj.input_carrier_type)
        except Exception:                   # noqa: BLE001 - older versions: the domain's text
            return str(obj.input_domain)

    def _input(self, obj, x):
        """x as the measurement's carrier type (numbers and vectors converted, anything else as given);
        InputError for an element that is not of it (a text for numbers, NaN or an infinity)."""
        carrier = self._carrier(obj)
        element = carrier[4:-1] if carrier.startswith("Vec<") else carrier
        convert = _converter(element)
        try:
            if carrier.startswith("Vec<"):
                values = [convert(v) for v in _records(x)]
            elif isinstance(x, (list, tuple, np.ndarray)) and np.asarray(x).size != 1:
                raise InputError(f"the measurement's input is one {carrier}, not a vector (got {x!r})")
            else:
                values = [convert(np.asarray(x).reshape(-1)[0] if isinstance(x, np.ndarray) else x)]
        except (TypeError, ValueError, OverflowError):
            values = None
        if values is None or (element in _FLOATS | _INTS and not all(math.isfinite(v) for v in values)):
            kind = "integers" if element in _INTS else "finite numbers" if element in _FLOATS else element
            raise InputError(f"the measurement's input is {carrier} ({kind}); got {x!r}")
        return values if carrier.startswith("Vec<") else values[0]

    def sample(self, obj, x, n, seed):
        return draw(obj, self._input(obj, x), n)

    def claim(self, obj, x, x_prime, *, d_in=None, delta=None, measure=None) -> Claim:
        for value in (x, x_prime):         # InputError, not the library's or a conversion's traceback
            self._input(obj, value)
        metric = self._metric(obj)
        if d_in is None:
            d = None if metric is None else input_distance(metric, x, x_prime)
            if d is None:
                why = ("this OpenDP version does not expose the measurement's input metric" if metric is None
                       else f"the distance of x and x' under its input metric {metric} is not known here")
                raise ClaimError(f"{why}: give it, verify.audit.libraries.wrap(measurement, d_in=...)")
            where = f"d_in = {number_text(d)} ({metric} of x and x')"
        else:
            d = exact(d_in)
            where = f"d_in = {number_text(d)} (given)"
        claim = self._claim_at(obj, d, where, delta, measure)
        actual = None if d_in is None or metric is None else input_distance(metric, x, x_prime)
        if actual is not None and actual > d:
            claim = replace(claim, notes=claim.notes + (
                f"x and x' are {number_text(actual)} apart under its input metric {metric}, more than the d_in = "
                f"{number_text(d)} the claim was read at: the claim covers only inputs at most that far apart, so "
                f"if x and x' are neighbours read it at their distance (leave d_in out) or audit a closer pair",))
        return claim

    def _claim_at(self, obj, d, where: str, delta, measure) -> Claim:
        """The claim of the measurement's privacy map (or relation) at input distance ``d``."""
        dist_type = str(obj.input_distance_type)
        d_value = int(math.ceil(d)) if dist_type in _INTS else float(d)
        if dist_type in _INTS and d != d_value:
            where += f", rounded up to {d_value} for its integer metric"
        if not hasattr(obj, "map"):         # OpenDP 0.4: a privacy relation, no map
            return self._relation(obj, d_value, where, delta)
        try:
            d_out = obj.map(d_value)
        except Exception as err:            # noqa: BLE001 - the library's refusal, in one line
            raise ClaimError(f"its privacy map refused d_in = {d_value}: {' '.join(str(err).split())}") from None
        return self._read(self._measure(obj, d_out, measure), obj, d_out, d_value, where, delta)

    @staticmethod
    def _relation(obj, d_in, where: str, delta) -> Claim:
        """OpenDP 0.4's claim: the smallest eps its privacy relation ``check(d_in, d_out)`` accepts (bisection).

        d_out is eps, or (eps, delta) when the output distance is a pair (delta: the audit's, default
        DEFAULT_DELTA).  The bound returned is accepted by the relation (the bracket's upper end).
        """
        pair = str(obj.output_distance_type).startswith("(")
        target = (DEFAULT_DELTA if delta is None else float(delta)) if pair else 0.0
        if not pair and delta is not None and float(delta) > 0:
            target = float(delta)

        def accepts(eps: float) -> bool:
            return bool(obj.check(d_in, (eps, target) if pair else eps))
        low, high = 0.0, 1.0                # bracket upwards: a relation's check is slow at a huge eps
        while not accepts(high):
            low, high = high, 2.0 * high
            if high > 1024:
                raise ClaimError(f"its privacy relation accepts no eps up to 1024 at d_in = {d_in}"
                                 + (f" and delta = {target:g}" if pair else ""))
        while high - low > 1e-6 * high:
            mid = 0.5 * (low + high)
            low, high = (low, mid) if accepts(mid) else (mid, high)
        at = (f"from the measurement's privacy relation at {where} (the smallest eps it accepts"
              + (f" at delta = {target:g}" if pair else "") + ", by bisection to 1e-6)")
        return Claim(high, target, f"eps = {number_text(high)} {at}")

    def _metric(self, obj) -> str | None:
        """The input metric's name; before OpenDP 0.6 (not exposed) inferred for one scalar input."""
        try:
            return _name(obj.input_metric)
        except AttributeError:
            carrier = self._carrier(obj)
            if carrier in _FLOATS | _INTS:
                return "AbsoluteDistance"
            return "DiscreteDistance" if carrier in ("bool", "String") else None

    @staticmethod
    def _measure(obj, d_out, given) -> str:
        """The output measure's text; before OpenDP 0.6 (not exposed) from the map's output or ``given``."""
        try:
            measure = str(obj.output_measure)
        except AttributeError:
            if given is not None:
                return str(given)
            if isinstance(d_out, tuple):
                return "FixedSmoothedMaxDivergence"
            if hasattr(d_out, "epsilon"):
                return "SmoothedMaxDivergence"
            raise ClaimError("this OpenDP version does not expose the measurement's output measure, and its privacy "
                             "map's number may be eps or rho: give it, verify.audit.libraries.wrap(measurement, "
                             "measure='MaxDivergence' or 'ZeroConcentratedDivergence')") from None
        if given is not None and not measure.startswith(str(given)):
            raise ClaimError(f"measure={given!r} was given, but the measurement's output measure is {measure}")
        return measure

    def _read(self, measure: str, obj, d_out, d_in, where: str, delta) -> Claim:
        """The claim of a privacy map's output ``d_out`` under the output measure ``measure``."""
        at = f"from the measurement's privacy map at {where}"
        if measure.startswith("MaxDivergence"):
            return Claim(float(d_out), implied_delta(delta, 0.0, f"eps = {number_text(d_out)}"),
                         f"eps = {number_text(d_out)} {at}")
        if measure.startswith(("Approximate", "FixedSmoothedMaxDivergence")):
            eps, dlt = (float(v) for v in d_out)
            return Claim(eps, implied_delta(delta, dlt, f"(eps, delta) = ({number_text(eps)}, {dlt:g})"),
                         f"(eps, delta) = ({number_text(eps)}, {dlt:g}) {at}")
        target = DEFAULT_DELTA if delta is None else float(delta)
        why = "the default delta for a curve" if delta is None else "the audit's delta"
        if measure.startswith("ZeroConcentratedDivergence"):
            rho = float(d_out)
            eps, how = self._zcdp(obj, d_in, rho, target)
            return Claim(eps, target, f"eps = {number_text(eps)} at delta = {target:g} ({why}) {at}: "
                                      f"rho = {number_text(rho)} (zCDP), converted by {how}")
        if measure.startswith("SmoothedMaxDivergence"):
            eps = float(d_out.epsilon(target))
            return Claim(eps, target, f"eps = {number_text(eps)} at delta = {target:g} ({why}), read off the "
                                      f"privacy profile {at}")
        raise ClaimError(f"its output measure {measure} has no (eps, delta) form here (supported: MaxDivergence, "
                         f"ZeroConcentratedDivergence, SmoothedMaxDivergence, Approximate(MaxDivergence)); "
                         f"convert it with an OpenDP combinator first, or give eps and delta")

    def _zcdp(self, obj, d_in, rho: float, delta: float) -> tuple[float, str]:
        """eps at delta of a zCDP measurement: OpenDP's own conversion where the version has it."""
        convert = None
        for where in ("opendp.combinators", "opendp.comb"):
            try:
                convert = getattr(importlib.import_module(where), "make_zCDP_to_approxDP", None)
            except ImportError:
                continue
            if convert is not None:
                break
        if convert is not None:
            try:
                return float(convert(obj).map(d_in).epsilon(delta)), "OpenDP's make_zCDP_to_approxDP"
            except Exception:               # noqa: BLE001 - a version whose conversion differs: the formula
                pass
        return zcdp_to_eps(rho, delta), "eps = rho + 2 sqrt(rho ln(1/delta)) (Bun & Steinke 2016, Prop. 1.3)"

