"""The one interface every library adapter implements, and what the adapters share.

An :class:`Adapter` knows one DP library: it recognises the library's mechanism objects, draws
outputs from them (one call of the library's own sampler per output: nothing reimplemented), and
reads the privacy claim the object carries, with a sentence saying where it came from
(:class:`Claim`).  :class:`LibraryMechanism` is one such object made into the audit's mechanism
``(x, n, seed) -> ndarray``.
"""
from __future__ import annotations

import importlib.metadata
import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from dpbench.validation import InputError, check_real

#: the delta at which a claim that is a curve (zCDP, a privacy profile) is read when the audit is
#: given none: the usual "cryptographically small" choice of the DP auditing literature
DEFAULT_DELTA = 1e-5


class ClaimError(InputError):
    """The object's claim cannot be expressed as (eps, delta): the message says why."""


@dataclass(frozen=True)
class Claim:
    """An (eps, delta)-DP claim read from a library object.

    ``source``: where it came from, one phrase ("eps = 1 from the measurement's privacy map at
    d_in = 1"); ``notes``: what the user should know about it (a pair further apart than the
    object's sensitivity, ...).
    """

    eps: float
    delta: float
    source: str
    notes: tuple[str, ...] = field(default=())


class Adapter:
    """One DP library: recognise its mechanism objects, draw their outputs, read their claims.

    Subclasses set ``name`` (the distribution, as pip knows it), ``module`` (its top-level import
    name) and ``install`` (the line that installs it), and implement the methods below.  No
    method imports the library unless an object of it was passed (it is then imported already).
    """

    name = ""
    module = ""
    install = ""
    #: (submodule, class names): the library's objects are instances of these classes
    objects: tuple = ("", ())
    #: whether :meth:`claim` takes ``measure`` (the output measure of an object that does not expose it)
    takes_measure = False

    def loaded(self, submodule: str = ""):
        """The library's module (``module.submodule``) if the program imported it, else None."""
        return sys.modules.get(self.module + (f".{submodule}" if submodule else ""))

    def version(self) -> str:
        """The installed version of the library ("not installed" if it is not)."""
        try:
            return importlib.metadata.version(self.name)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    def recognises(self, obj) -> bool:
        """Whether ``obj`` is one of the library's mechanism objects (an instance of ``objects``)."""
        submodule, names = self.objects
        mod = self.loaded(submodule)
        classes = tuple(getattr(mod, name) for name in names if hasattr(mod, name)) if mod is not None else ()
        return bool(classes) and isinstance(obj, classes)

    def unsupported(self, obj) -> str:
        """Why ``obj`` cannot be audited as a mechanism ("" if it can)."""
        return ""

    def describe(self, obj) -> str:
        """The object in a few words, e.g. "Laplace(epsilon=1, sensitivity=1)"."""
        return type(obj).__name__

    def sample(self, obj, x, n: int, seed: int) -> np.ndarray:
        """n outputs of ``obj`` on input x: n calls of the library's own sampler."""
        raise NotImplementedError

    def claim(self, obj, x, x_prime, *, d_in=None, delta=None) -> Claim:
        """The (eps, delta) the object claims for the pair (x, x'), or ClaimError saying why none.

        ``d_in``: the input distance to read a privacy map at (default: the pair's distance);
            ``delta``: where the claim is a curve (zCDP, a privacy profile), the delta to read it at.
        """
        raise NotImplementedError

    def seeding(self, obj) -> str:
        """"" if the audit's seed fixes the outputs, else why it cannot (e.g. OS entropy)."""
        return f"{self.name} draws its noise from the operating system's entropy, which no seed can fix"

    def default_pair(self, obj) -> tuple | None:
        """The neighbouring pair audited when none is given (None: the user must give one)."""
        return None


class LibraryMechanism:
    """A library's mechanism object as the audit's mechanism ``(x, n, seed) -> ndarray``, with its claim.

    Made by :func:`verify.audit.libraries.wrap`; ``d_in`` fixes the input distance at which a privacy
    map is read (default: the distance of the audited pair).
    """

    def __init__(self, obj, adapter: Adapter, *, d_in=None, measure=None):
        why = adapter.unsupported(obj)
        if why:
            raise InputError(f"{adapter.name} {type(obj).__name__}: {why}")
        if d_in is not None:                # checked here, not by the library (a 300-digit sensitivity)
            check_real("d_in", d_in, low=0.0, low_open=True)
        if measure is not None and not adapter.takes_measure:
            raise InputError(f"measure: only for OpenDP measurements that do not expose their output measure (before "
                             f"0.6); a {adapter.name} object states its own")
        self.obj, self.adapter, self.d_in, self.measure = obj, adapter, d_in, measure
        self.library, self.version = adapter.name, adapter.version()
        self.name = f"{adapter.describe(obj)} ({self.library} {self.version})"
        self.seeding = adapter.seeding(obj)
        self.default_pair = adapter.default_pair(obj)

    def __call__(self, x, n: int, seed: int) -> np.ndarray:
        """n outputs on input x, each from one call of the library's sampler."""
        return self.adapter.sample(self.obj, x, n, seed)

    def claim(self, x, x_prime, delta=None) -> Claim:
        """The object's claim for the pair (x, x') (:meth:`Adapter.claim`)."""
        extra = {"measure": self.measure} if self.adapter.takes_measure else {}
        return self.adapter.claim(self.obj, x, x_prime, d_in=self.d_in, delta=delta, **extra)

    def __repr__(self) -> str:
        return f"LibraryMechanism({self.name})"


# ------------------------------------------------------------------ shared by the adapters
def draw(call, value, n: int) -> np.ndarray:
    """n outputs of ``call(value)``, one call each, as an array (vectors as rows, labels as text)."""
    out = [call(value) for _ in range(n)]
    if out and isinstance(out[0], str):
        return np.array(out, dtype=object)
    return np.asarray(out)


def scalar(x, what: str) -> float:
    """The number x (an int, a float or a one-entry array), or InputError naming ``what`` needs."""
    arr = np.asarray(x) if not isinstance(x, (str, bytes, dict)) else None
    if arr is None or arr.dtype.kind not in "biuf" or arr.size != 1:
        raise InputError(f"{what} takes one number as input (got {x!r})")
    return float(arr.reshape(-1)[0])


def integral(x, what: str) -> int:
    """The integer x (given as a number with no fractional part), or InputError."""
    value = scalar(x, what)
    if not value.is_integer():
        raise InputError(f"{what} takes integers as input (got {value:g})")
    return int(value)


def number_text(v) -> str:
    """A claim's number in a sentence: 4 significant digits, integers without a point."""
    v = float(v)
    return f"{v:.4g}"


def exact(v) -> Fraction:
    """A number (int, float, Fraction) as an exact fraction."""
    return v if isinstance(v, Fraction) else Fraction(v)


def distance_note(x, x_prime, sensitivity: float, norm: str = "") -> tuple[str, ...]:
    """The note of a pair further apart than the sensitivity the object was built with.

    The object's claim covers inputs at most ``sensitivity`` apart; a pair further apart is audited
    as the user's neighbours, and a violation then means the sensitivity is understated.
    """
    try:
        a = np.asarray(x, dtype=np.float64).reshape(-1)
        b = np.asarray(x_prime, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return ()
    if a.shape != b.shape:
        return ()
    d = float(np.sqrt(np.sum((a - b) ** 2))) if norm == "L2" else float(np.sum(np.abs(a - b)))
    if d <= sensitivity:
        return ()
    return (f"x and x' are {d:g} apart{f' ({norm})' if norm else ''}, more than the sensitivity {sensitivity:g} "
            f"the object was built with: its claim covers only inputs at most {sensitivity:g} apart, so if x and "
            f"x' are neighbours its sensitivity is understated",)


def zcdp_to_eps(rho: float, delta: float) -> float:
    """eps of (eps, delta)-DP implied by rho-zCDP (Bun & Steinke 2016, Prop. 1.3).

    eps = rho + 2 sqrt(rho ln(1/delta)); valid, not tight (a claim read this way is never stricter
    than the object's own).
    """
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def implied_delta(delta, own: float, claim: str) -> float:
    """The delta of a one-point claim (eps, ``own``) audited at the audit's ``delta``.

    None: the object's own; a larger delta gives a weaker claim the object's implies; a smaller one
    is not implied (ClaimError naming the object's claim).
    """
    if delta is None:
        return own
    if float(delta) < own:
        raise ClaimError(f"delta = {float(delta):g} was given, but the object claims only {claim}: give eps as well "
                         f"to audit another claim")
    return float(delta)
