"""The mechanism object: one privatiser as a callable for samplers, audits and tests.

Every privacy mechanism of dpbench is an engine component (a flat ``NamedTuple``)
whose ``privatize(mech, r, public)`` verb is its one privatisation function: the
report of one user with reward ``r`` (:mod:`dpbench.engine.components`).  The
engine's ``respond`` pulls the arm and privatises with it (or draws the m users'
summed noise at once, the *batched form*), and a :class:`Mechanism` wraps the same
component for everything outside the simulation loop:

==================  ====================================================================
attribute           meaning
==================  ====================================================================
``name``            catalog name (``dpbench list mechanisms``)
``claimed_eps``     the (eps, delta)-DP claim (local DP: one user's report, neighbouring
``claimed_delta``   rewards anywhere in ``input_range``)
``input_range``     (low, high) of the input x (inclusive; +-inf: unbounded)
``component``       the engine component: ``simulate`` runs it (local mechanisms), or its
                    ``privatize`` is the very draw the policy makes (perturbations, the
                    central Laplace release); the audit's compiled fast path counts its
                    ``emit`` (default: ``privatize``)
``output_dim``      1 (one scalar report per input)
``output_kind``     "bits" (every report is 0 or 1) or "real"; a policy that needs bits
                    refuses a "real" mechanism given as ``mechanism=``
``local``           True if ``privatize`` is one user's report (a local randomiser, usable as
                    ``simulate(..., mechanism=...)``); False for a policy's own draw
                    (perturbations, the central Laplace release)
``arithmetic``      "lattice": input and noise on a power-of-two lattice, the sum exact (DP as
                    implemented, :mod:`dpbench.mechanisms.lattice`); "float": input + noise in
                    floating point, the paper-literal form, not DP as implemented (its
                    ``float_unsafe`` is True); "none": no arithmetic on the input (bits, or a
                    law whose parameters the input sets)
``params``          the parameters it was built with
``source``          paper, algorithm and lemma
==================  ====================================================================

Methods: ``sample(x, n, seed)`` (n i.i.d. reports of x), ``mechanism(x, n, seed)``
(the same: the form every audit calls), ``sample_sum(x, m, n, seed)`` (n draws of the
engine's batched form for m users whose rewards are all x -- the engine's ``respond`` on the
environment :class:`PointMass`; its law is the sum of m reports) and ``check_input(x)``.
``dpbench.sampler(name, **params)`` returns the
catalog mechanism ``name``; the classes (``CTLMechanism(eps=1.0)``, ...) are in the
mechanism modules, built in the style of diffprivlib: keyword-only privacy
parameters, papers cited in the docstrings.  A catalog class (:class:`CatalogMechanism`)
declares its parameters once (``PARAMS``, the catalog's ``Param`` entries) and the settings
it is audited with (``AUDIT``); its parameters are validated once, against those
declarations, whether it is built by ``sampler`` or by its constructor.

This is engine code (the engine composes a policy with a ``Mechanism``,
:mod:`.composition`); the mechanisms themselves live in :mod:`dpbench.mechanisms`.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import randomness as rng
from ..validation import InputError, check_delta, check_int, check_real
from .caching import cached_njit
from .catalog import MECHANISMS, MechanismSpec, Param, validate_params
from .components import (
    ComponentError,
    describe_function,
    draw,
    draw_sum,
    implements,
    privatize,
    registered,
    respond_broadcast,
)

#: what a mechanism's reports are, narrowest first: each kind is also every later one
OUTPUT_KINDS = ("bits", "real")
#: how a mechanism computes its output from its input (the ``arithmetic`` attribute)
ARITHMETIC_KINDS = ("lattice", "float", "none")


@cached_njit
def _reports_kernel(mech, x, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        out[i] = privatize(mech, x, 0.0)


@cached_njit
def _responses_kernel(mech, env, arm, m, seed, out):
    np.random.seed(seed)
    for i in range(out.shape[0]):
        value, level = respond_broadcast(mech, env, arm, m, 0.0)
        out[i] = value


def engine_responses(component, env, arm: int, m: int, n: int, seed: int) -> np.ndarray:
    """Draw the engine mechanism's responses to m pulls of one arm, n times.

    n responses (values) of the engine mechanism ``component`` to m pulls of ``arm`` in the
    environment component ``env``, exactly as the simulation loop makes them (no broadcast).
    """
    out = np.empty(check_int("n", n, low=1))
    _responses_kernel(component, env, check_int("arm", arm, low=0), check_int("m", m, low=1),
                      rng.stream_seed(seed), out)
    return out


class Mechanism:
    """A privacy mechanism (engine component + claim) as a callable ``mechanism(x, n, seed)``.

    See the module docstring for the attributes.  Catalog mechanisms subclass
    :class:`CatalogMechanism`; this base class can also be used directly, e.g. to audit a
    component against a claim it does not make (a negative control): its claim is validated
    here (eps >= 0, possibly inf; delta in [0, 1)).
    """

    output_dim = 1
    #: users one ``respond`` call can serve (None: any m; 1: the component responds for one user)
    max_batch: int | None = None
    #: ``privatize`` is one user's report (False: a draw the policy makes from its own statistics)
    local = True

    def __init__(self, component, *, eps: float, delta: float = 0.0, name: str | None = None,
                 input_range=(0.0, 1.0), output_kind: str = "real", params: dict | None = None,
                 source: str = "", arithmetic: str = "none"):
        self._bind(component, eps=check_real("eps", eps, low=0.0, allow_inf=True), delta=check_delta(delta),
                   name=name, input_range=input_range, output_kind=output_kind, params=params, source=source,
                   arithmetic=arithmetic)

    def _bind(self, component, *, eps: float, delta: float, name, input_range, output_kind: str,
              params, source: str, arithmetic: str) -> None:
        """Attach the component and its (already validated) claim."""
        if not registered("privatize", type(component)):
            raise ComponentError(f"mechanism component {type(component).__name__} ({type(component).__module__}) "
                                 f"has no registered privatize; register one with "
                                 f"@dpbench.extend.implements(privatize, {type(component).__name__})")
        self.component = component
        self.name = str(name or type(component).__name__)
        self.claimed_eps = float(eps)
        self.claimed_delta = float(delta)
        low, high = (float(v) for v in input_range)
        if not low <= high:
            raise InputError(f"input_range must be (low, high) with low <= high (got {input_range!r})")
        self.input_range = (low, high)
        if output_kind not in OUTPUT_KINDS:
            raise InputError(f"output_kind must be one of {', '.join(OUTPUT_KINDS)} (got {output_kind!r})")
        self.output_kind = output_kind
        if arithmetic not in ARITHMETIC_KINDS:
            raise InputError(f"arithmetic must be one of {', '.join(ARITHMETIC_KINDS)} (got {arithmetic!r})")
        self.arithmetic = arithmetic
        self.params = dict(params or {})
        self.source = source

    @property
    def float_unsafe(self) -> bool:
        """Whether the noise is added to the input in plain floating point.

        Then the low bits of an output reveal the input (Mironov, CCS 2012): not DP as implemented.
        """
        return self.arithmetic == "float"

    # ------------------------------------------------------------ inputs
    def check_input(self, x) -> float:
        """x as a float, if it is a finite number inside ``input_range`` (InputError otherwise)."""
        low, high = self.input_range
        try:
            value = float(np.asarray(x, dtype=np.float64).reshape(()))
        except (TypeError, ValueError):
            raise InputError(f"x must be one real number for mechanism {self.name} (got {x!r})") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise InputError(f"x must lie in [{low:g}, {high:g}] for mechanism {self.name} (got {value!r})")
        return value

    # ------------------------------------------------------------ sampling
    def sample(self, x, n: int, seed: int) -> np.ndarray:
        """n i.i.d. private reports of the input x (one user each), reproducible from ``seed``."""
        x = self.check_input(x)
        n = check_int("n", n, low=1)
        out = np.empty(n)
        _reports_kernel(self.component, x, rng.stream_seed(seed), out)
        if not np.all(np.isfinite(out)):            # refused as simulate and the audit refuse it
            raise InputError(f"mechanism {self.name} returned {int(np.sum(~np.isfinite(out)))} non-finite "
                             f"report(s) on input {x:g}; privatize must return finite numbers")
        return out

    def __call__(self, x, n: int, seed: int) -> np.ndarray:
        """``sample(x, n, seed)``: the form ``verify.audit`` calls."""
        return self.sample(x, n, seed)

    def sample_sum(self, x, m: int, n: int, seed: int) -> np.ndarray:
        """Draw the engine's batched form for m users, n times.

        n draws of the engine's batched form: ``respond`` for m users whose rewards are all x
        (O(1) draws for the Laplace mechanisms; m reports in turn for a mechanism that
        registers no ``respond``); in law the sum of m ``sample`` reports.
        """
        x = self.check_input(x)
        m = check_int("m", m, low=1, high=self.max_batch)
        return engine_responses(self.component, PointMass(x), 0, m, n, seed)

    def __repr__(self) -> str:
        """Name, claim, input range and component."""
        claim = f"eps={self.claimed_eps:g}" + (f", delta={self.claimed_delta:g}" if self.claimed_delta else "")
        return f"<{type(self).__name__} {self.name} ({claim}) on {list(self.input_range)}: {self.component!r}>"


class CatalogMechanism(Mechanism):
    """A catalog mechanism: its parameters and audit settings declared once, validated once.

    A subclass sets ``NAME``, ``SUMMARY``, ``SOURCE``, ``PARAMS`` (the catalog's ``Param``
    entries: names, ranges, defaults), ``AUDIT`` (the parameters it is audited with at its
    claim) and implements ``_setup(**params)`` with the validated parameters.  Its constructor
    validates keyword parameters against ``PARAMS``; ``dpbench.sampler`` validates them in the
    same way and builds through ``from_checked``, which does not validate again.  ``register``
    puts the class in the catalog.
    """

    NAME = ""
    SUMMARY = ""
    SOURCE = ""
    PARAMS: tuple[Param, ...] = ()
    AUDIT: dict | None = None

    def __init__(self, **params):
        self._setup(**validate_params(f"mechanism {self.NAME!r}", self.PARAMS, params))

    @classmethod
    def from_checked(cls, **params):
        """Build from parameters that ``validate_params`` has already checked (the catalog's ``build``)."""
        mechanism = cls.__new__(cls)
        mechanism._setup(**params)
        return mechanism

    def _setup(self, **params) -> None:
        raise NotImplementedError

    def _claim(self, component, *, eps: float, delta: float = 0.0, input_range=(0.0, 1.0),
               output_kind: str = "real", params: dict, arithmetic: str = "none") -> None:
        """Bind ``component`` with the claim (eps, delta) under this class's name and source."""
        self._bind(component, eps=eps, delta=delta, name=self.NAME, input_range=input_range,
                   output_kind=output_kind, params=params, source=self.SOURCE, arithmetic=arithmetic)

    @classmethod
    def register(cls) -> MechanismSpec:
        """Add the class to the catalog (``dpbench.MECHANISMS[cls.NAME]``)."""
        return MECHANISMS.add(MechanismSpec(cls.NAME, cls.SUMMARY, cls.SOURCE, cls.PARAMS, cls.from_checked,
                                            module=cls.__module__, audit=cls.AUDIT))


class PointMass(NamedTuple):
    """Every pull returns ``value``."""

    value: float


@implements(draw, PointMass)
def _point_draw(env, arm):
    return env.value


@implements(draw_sum, PointMass)
def _point_draw_sum(env, arm, m):
    return m * env.value


def sampler(name: str, **params) -> Mechanism:
    """Build the catalog mechanism ``name``.

    Parameters
    ----------
    name : str
        A registered mechanism (``dpbench list mechanisms``).
    **params
        Its parameters, validated (``dpbench list mechanisms -v`` names them).

    Returns
    -------
    Mechanism
        With ``name``, ``claimed_eps``, ``claimed_delta``, ``input_range``, ``component``,
        ``params``, ``sample(x, n, seed)`` and ``__call__(x, n, seed)`` (the same),
        ``sample_sum(x, m, n, seed)``: the very ``privatize`` that ``simulate`` runs.

    Raises
    ------
    dpbench.InputError
        An unknown name or a bad parameter (naming it and its allowed range).

    Examples
    --------
    >>> import dpbench
    >>> ctl = dpbench.sampler("ctl", eps=1.0)
    >>> ctl.claimed_eps, ctl.input_range
    (1.0, (0.0, 1.0))
    >>> ctl(0.3, 4, seed=0).shape
    (4,)
    """
    spec = MECHANISMS.get_spec(name)
    checked = validate_params(f"mechanism {name!r}", spec.params, params)
    mechanism = spec.build(**checked)
    if not isinstance(mechanism, Mechanism):
        raise ComponentError(f"mechanism {name!r}: build ({describe_function(spec.build)}) must return a "
                             f"dpbench.extend.Mechanism(component, eps=..., ...), got {type(mechanism).__name__}")
    mechanism.name = spec.name
    mechanism.params = checked
    return mechanism
