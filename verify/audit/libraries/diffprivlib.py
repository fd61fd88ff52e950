"""diffprivlib (IBM): a mechanism of ``diffprivlib.mechanisms`` (Laplace, Gaussian, Geometric, Snapping, Binary, ...).

Sampler: ``mechanism.randomise(value)`` once per output (integer inputs for the geometric
mechanisms, the two labels for Binary).  Claim: the mechanism's ``epsilon`` and ``delta``, for
inputs at most its ``sensitivity`` apart (Binary: its two values).  A pair further apart is still
audited as the user's neighbours (the user knows the query's sensitivity, the object only what it
was told), and the result says that a violation then means the sensitivity is understated.
Mechanisms whose input is not one value (Exponential and its kin take their utilities at
construction, Vector a function, Bingham a matrix) are refused in one line.
Seeding: a mechanism built with ``random_state=None`` (the default) draws from
``secrets.SystemRandom`` (the operating system's entropy): its outputs cannot be seeded.  One
built with a ``random_state`` draws, per block of outputs, from a copy whose generator is seeded
from the audit's seed (numpy RandomState, as diffprivlib makes it from an int): reproducible.
"""
from __future__ import annotations

import copy
import math

import numpy as np

from .base import Adapter, Claim, distance_note, draw, implied_delta, integral, number_text, scalar

#: mechanisms whose input is not one value: why each is refused
_NOT_ONE_VALUE = {
    "Exponential": "its input (the utilities) is fixed when it is built, so there is no input pair to audit",
    "ExponentialCategorical": "its input (the utility list) is fixed when it is built",
    "ExponentialHierarchical": "its input (the hierarchy's utilities) is fixed when it is built",
    "PermuteAndFlip": "its input (the utilities) is fixed when it is built",
    "Vector": "its input is a function (the objective), not a value",
    "Bingham": "its input is a symmetric matrix, which dpbench does not pair",
}
_INTEGER = ("Geometric", "GeometricTruncated", "GeometricFolded", "GaussianDiscrete")


class Diffprivlib(Adapter):
    """diffprivlib mechanisms (0.4 and later)."""

    name = "diffprivlib"
    module = "diffprivlib"
    install = 'pip install "dpbench[libraries]"  (or pip install diffprivlib "scikit-learn<1.9")'

    objects = ("mechanisms.base", ("DPMechanism",))

    def unsupported(self, obj) -> str:
        for klass in type(obj).__mro__:
            if klass.__name__ in _NOT_ONE_VALUE:
                return _NOT_ONE_VALUE[klass.__name__]
        return ""

    def describe(self, obj) -> str:
        shown = [f"epsilon={obj.epsilon:g}"] + ([f"delta={obj.delta:g}"] if getattr(obj, "delta", 0) else [])
        for key in ("sensitivity", "lower", "upper", "value0", "value1"):
            if getattr(obj, key, None) is not None:
                shown.append(f"{key}={getattr(obj, key)!r}" if isinstance(getattr(obj, key), str)
                             else f"{key}={getattr(obj, key):g}")
        return f"{type(obj).__name__}({', '.join(shown)})"

    def _value(self, obj, x):
        name = type(obj).__name__
        if hasattr(obj, "value0"):                      # Binary: one of its two labels
            if isinstance(x, str):
                return x
            v = scalar(x, f"diffprivlib {name}")
            return str(int(v)) if v.is_integer() else str(v)
        if name in _INTEGER:
            return integral(x, f"diffprivlib {name}")
        return scalar(x, f"diffprivlib {name}")

    def sample(self, obj, x, n, seed):
        mech = obj
        if not self.seeding(obj):                       # seeded from the audit's seed, on a copy
            mech = copy.copy(obj)
            mech._rng = np.random.RandomState(np.random.SeedSequence(seed).generate_state(1)[0])
        return draw(mech.randomise, self._value(obj, x), n)

    def claim(self, obj, x, x_prime, *, d_in=None, delta=None) -> Claim:
        eps, own = float(obj.epsilon), float(getattr(obj, "delta", 0.0) or 0.0)
        dlt = implied_delta(delta, own, f"(eps, delta) = ({number_text(eps)}, {own:g})")
        what = f"eps = {number_text(eps)}" + (f", delta = {own:g}" if own else "")
        if hasattr(obj, "value0"):
            return Claim(eps, dlt, f"{what} from the mechanism's epsilon{' and delta' if own else ''}, for its two "
                                   f"values {obj.value0!r} and {obj.value1!r}")
        sens = float(obj.sensitivity)
        notes = distance_note(x, x_prime, sens)
        return Claim(eps, dlt, f"{what} from the mechanism's epsilon{' and delta' if own else ''}, for inputs at "
                               f"most its sensitivity {sens:g} apart", notes)

    def seeding(self, obj) -> str:
        if getattr(obj, "random_state", None) is not None and hasattr(obj, "_rng"):
            return ""
        return ("diffprivlib draws from secrets.SystemRandom (the operating system's entropy) when built with "
                "random_state=None, so no seed can fix its outputs")

    def default_pair(self, obj) -> tuple | None:
        if hasattr(obj, "value0"):
            return obj.value0, obj.value1
        low = getattr(obj, "lower", None)
        x = float(low) if low is not None and math.isfinite(low) else 0.0
        x_prime = x + float(obj.sensitivity)
        high = getattr(obj, "upper", None)
        if high is not None and x_prime > high:
            return None
        return (int(x), int(x_prime)) if type(obj).__name__ in _INTEGER else (x, x_prime)
