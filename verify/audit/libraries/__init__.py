"""Audit the mechanism objects of Python DP libraries, with the claim each object carries.

>>> import diffprivlib, verify                                              # doctest: +SKIP
>>> verify.audit(diffprivlib.mechanisms.Laplace(epsilon=1, sensitivity=1), 0.0, 1.0)   # doctest: +SKIP

``verify.audit``, ``assert_dp`` and ``dpbench audit module:object`` accept, besides a callable
``mechanism(x, n, seed)``, an object of these libraries (one adapter module each, :class:`.base.Adapter`):

=============  ==================================================================================
opendp         a ``Measurement``: claim from its privacy map at d_in (:mod:`.opendp`)
diffprivlib    a mechanism (Laplace, Gaussian, Geometric, Snapping, Binary, ...): its epsilon,
               delta and sensitivity (:mod:`.diffprivlib`)
python-dp      ``LaplaceMechanism``, ``GaussianMechanism``: epsilon, delta, sensitivity (:mod:`.pydp`)
pipeline-dp    ``dp_computations.LaplaceMechanism`` / ``GaussianMechanism`` (:mod:`.pipelinedp`)
tmlt.core      a Tumult Core ``Measurement``: its privacy function at d_in (:mod:`.tumult`)
=============  ==================================================================================

Every output is one call of the library's own sampler (nothing reimplemented).  The claim rule
(:func:`resolve`): with no ``eps`` the object's claim is audited and printed with its source
("eps = 1 from the measurement's privacy map at d_in = 1"); with ``eps`` given, the given claim
is audited and the object's is shown beside it.  An object whose claim cannot be expressed as
(eps, delta) is a one-line InputError saying why (unless a claim is given).  With no input pair,
the object's default pair is audited (0 and its sensitivity; Binary's two values).  Seeding:
most libraries draw from the operating system's entropy: the result then says that the audit
is not reproducible by seed (``result.info["library"]["seeding"]``).
"""
from __future__ import annotations

import inspect
import math

from dataclasses import dataclass

from dpbench.validation import InputError

from .base import DEFAULT_DELTA, Adapter, Claim, ClaimError, LibraryMechanism, number_text
from .diffprivlib import Diffprivlib
from .opendp import OpenDP
from .pipelinedp import PipelineDP
from .pydp import PythonDP
from .tumult import Tumult

#: one adapter per library, tried in this order (PipelineDP's objects wrap python-dp's: its own first)
ADAPTERS: tuple[Adapter, ...] = (OpenDP(), Diffprivlib(), PipelineDP(), PythonDP(), Tumult())


def adapter_of(obj) -> Adapter | None:
    """The adapter that recognises ``obj`` (None: not a library object)."""
    for adapter in ADAPTERS:
        if adapter.recognises(obj):
            return adapter
    return None


def wrap(obj, *, d_in=None, measure=None) -> LibraryMechanism:
    """A library's mechanism object as an auditable mechanism that carries its claim.

    Parameters
    ----------
    obj : object
        A mechanism object of a supported library (see the module's table).
    d_in : number, optional
        The input distance at which a privacy map is read (OpenDP, Tumult); default: the distance
        of the audited pair under the object's input metric.
    measure : str, optional
        OpenDP before 0.6 only (whose measurements do not expose it): the output measure,
        "MaxDivergence" or "ZeroConcentratedDivergence".

    Returns
    -------
    LibraryMechanism
        Callable ``(x, n, seed) -> ndarray`` (one call of the library's sampler per output) with
        ``claim(x, x_prime, delta)``, ``seeding`` and ``default_pair``.

    Raises
    ------
    dpbench.InputError
        ``obj`` is not a supported library's mechanism, or one that cannot be audited (the
        message says why).
    """
    if isinstance(obj, LibraryMechanism):
        if d_in is None and measure is None:
            return obj
        obj = obj.obj
    adapter = adapter_of(obj)
    if adapter is None:
        raise InputError(f"{type(obj).__module__}.{type(obj).__name__} is not a mechanism object of a supported DP "
                         f"library ({', '.join(a.name for a in ADAPTERS)})")
    return LibraryMechanism(obj, adapter, d_in=d_in, measure=measure)


def as_library(mechanism) -> LibraryMechanism | None:
    """``mechanism`` as a :class:`LibraryMechanism` if it is a library object (or one already), else None."""
    if isinstance(mechanism, LibraryMechanism):
        return mechanism
    return wrap(mechanism) if adapter_of(mechanism) is not None else None


def check_not_a_function(mechanism, shown: str | None = None) -> None:
    """InputError for a function of a DP library (``diffprivlib.tools.mean``, OpenDP's ``make_laplace``)
    given where a mechanism goes: called as mechanism(x, n, seed) it fails obscurely, on its own terms."""
    if not (inspect.isfunction(mechanism) or inspect.isbuiltin(mechanism)):
        return
    module = getattr(mechanism, "__module__", None) or ""
    for adapter in ADAPTERS:
        if module.split(".")[0] == adapter.module:
            name = shown or f"{module}.{getattr(mechanism, '__qualname__', mechanism.__name__)}"
            raise InputError(f"mechanism {name} is a function of {adapter.name}, not one of its mechanism objects "
                             f"({adapter.objects[1][0]}): audit the object it builds (call a constructor "
                             f"with its parameters) or a mechanism object of the library, or wrap the function as "
                             f"mechanism(x, n, seed)")


@dataclass
class Resolved:
    """What an audit runs on: the mechanism, the pair, the claim audited and where it came from.

    ``claim``: the object's own claim (None for a plain callable, or when the object states none);
    ``given``: the audited (eps, delta) was given by the user (the object's is shown beside it);
    ``why_none``: why the object states no claim (when eps was given and it does not).
    """

    mechanism: object
    x: object
    x_prime: object
    eps: float
    delta: float
    claim: Claim | None = None
    given: bool = True
    why_none: str = ""


def resolve(mechanism, x, x_prime, eps, delta) -> Resolved:
    """The audit's one hook: a library object becomes its sampler, and its claim the claim audited.

    A plain callable needs ``eps`` (InputError otherwise); ``delta`` None means 0.  A library
    object (:func:`as_library`): with no pair, its default pair; with ``eps`` None, its own claim
    at the pair (``delta`` reads a curve-type claim at that delta, default DEFAULT_DELTA); with
    ``eps`` given, that claim (the object's shown beside it).
    """
    lib = as_library(mechanism)
    if lib is None:
        if eps is None:
            raise InputError("eps: give the claim to audit (eps=..., --eps), or pass a mechanism object of a DP "
                             f"library, which carries its own ({', '.join(a.name for a in ADAPTERS)})")
        return Resolved(mechanism, x, x_prime, eps, 0.0 if delta is None else delta)
    if x is None and x_prime is None and lib.default_pair is not None:
        x, x_prime = lib.default_pair
    if x is None or x_prime is None:
        raise InputError(f"{lib.name}: give a neighbouring pair x, x_prime (the object has no default pair)")
    try:
        claim, why = lib.claim(x, x_prime, None if eps is not None else delta), ""
    except ClaimError as err:
        if eps is None:
            raise InputError(f"{lib.name}: {err}") from None
        claim, why = None, str(err)
    if eps is None:
        if not math.isfinite(claim.eps):       # e.g. zCDP read at delta = 0: nothing to audit
            raise InputError(f"{lib.name}: its claim at delta = {claim.delta:g} is eps = inf ({claim.source}): "
                             f"audit it at a delta > 0 (delta=..., --delta, e.g. 1e-6)")
        return Resolved(lib, x, x_prime, claim.eps, claim.delta, claim, given=False)
    return Resolved(lib, x, x_prime, eps, 0.0 if delta is None else delta, claim, given=True, why_none=why)


def claim_text(resolved: Resolved) -> str:
    """The claim line of a result: the claim audited and its source, the object's beside a given one."""
    claim = resolved.claim
    if not resolved.given:
        return f"claim: {claim.source}"
    own = (f"the object claims {claim.source}" if claim is not None
           else f"the object states none ({resolved.why_none})")
    return f"claim: ({number_text(resolved.eps)}, {resolved.delta:g}) as given; {own}"


def annotate(result, resolved: Resolved):
    """Record the claim, its source and the library's seeding on an audit's result (``info``, ``warnings``)."""
    lib = resolved.mechanism
    if not isinstance(lib, LibraryMechanism):
        return result
    claim = resolved.claim
    result.info["claim"] = {"eps": resolved.eps, "delta": resolved.delta, "given": resolved.given,
                            "text": claim_text(resolved), "notes": list(claim.notes) if claim is not None else [],
                            "object": None if claim is None else {"eps": claim.eps, "delta": claim.delta,
                                                                  "source": claim.source}}
    result.info["library"] = {"name": lib.library, "version": lib.version, "object": lib.name,
                              "seeded": not lib.seeding,
                              "seeding": lib.seeding or "outputs seeded from the audit's seed"}
    if claim is not None:
        result.warnings.extend(claim.notes)
        if resolved.given and result.law.violated and claim.eps > resolved.eps and claim.delta >= resolved.delta:
            # the plainer reason than a generic calibration fix: the object never claimed the audited eps
            result.law.fix = (f"fix: the object claims only {claim.source}, a weaker guarantee than the eps = "
                              f"{number_text(resolved.eps)} audited, so this violation is expected and says "
                              f"nothing against the object; audit its own claim (leave eps out) or build it at "
                              f"the eps you need")
    if lib.seeding:
        result.warnings.append(f"not reproducible by seed: {lib.seeding}")
    return result


__all__ = ["ADAPTERS", "Adapter", "Claim", "ClaimError", "DEFAULT_DELTA", "LibraryMechanism", "Resolved",
           "adapter_of", "annotate", "as_library", "check_not_a_function", "claim_text", "resolve", "wrap"]
