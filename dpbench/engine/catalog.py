"""Named algorithms, environments and mechanisms, with their validated parameters.

Each family module registers what it provides, e.g.::

    register_algorithm(AlgorithmSpec(
        name="ldp_ucb_b", label="LDP-UCB-B", family="ldp_ucb",
        summary="UCB1 on CTB(eps) bits", source="seed 000, Agent 4, Thm 6",
        params=(Param("eps", "privacy level", real(low=0, low_open=True)),),
        build=lambda instance, horizon, eps: Built(UCB1Index(2.0), CTB.at(eps, False))))

``build(instance, horizon, **params)`` receives the built environment
(:class:`Instance`), the horizon and the validated parameters by name; an
environment's ``build(**params)`` returns an :class:`Instance`.  Registration
checks these signatures.  Users register through :mod:`dpbench.extend`
(``register_policy``, ``register_mechanism``, ``register_environment``), which builds
these specs.

The catalog validates user parameters (unknown names, ranges, types) in plain
Python, so bad input is refused before anything is compiled.
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from dataclasses import replace as replace_field
from typing import Any

import numpy as np

from ..validation import InputError, check_choice, check_int, check_real, check_vector, describe_interval, unknown_name
from .components import ComponentError, describe_function


class _Required:
    def __repr__(self):
        return "<required>"


REQUIRED = _Required()


# ----------------------------------------------------- parameter checkers
class Checker:
    """A parameter checker: ``checker(name, value)`` returns the validated value or raises
    :class:`InputError`; ``describe`` says what is allowed (for listings and errors);
    ``options`` are the allowed values of a choice (empty otherwise)."""

    def __init__(self, check: Callable[[str, Any], Any], describe: str, options: tuple = ()):
        self._check = check
        self.describe = describe
        self.options = tuple(options)

    def __call__(self, name: str, value):
        return self._check(name, value)


def real(low=None, high=None, *, low_open=False, high_open=False, allow_inf=False):
    def check(name, value):
        return check_real(name, value, low=low, high=high, low_open=low_open,
                          high_open=high_open, allow_inf=allow_inf)
    return Checker(check, "real" + (describe_interval(low, high, low_open, high_open) or " number"))


def integer(low=None, high=None):
    def check(name, value):
        return check_int(name, value, low=low, high=high)
    return Checker(check, "integer" + describe_interval(low, high, False, False))


def vector(low=None, high=None, min_len=1):
    def check(name, value):
        if isinstance(value, str):
            from ..validation import parse_float_list
            value = parse_float_list(name, value)
        return check_vector(name, value, low=low, high=high, min_len=min_len)
    return Checker(check, "list of numbers" + describe_interval(low, high, False, False))


def text(describe: str = "text", parse: Callable[[str, Any], Any] | None = None):
    """A parameter given as text (``parse(name, value)``, if given, checks and converts it);
    ``describe`` says what the text must be."""
    return Checker(parse or (lambda name, value: value), describe)


def choice(*options):
    def check(name, value):
        return check_choice(name, value, options)
    return Checker(check, "one of " + ", ".join(options), options)


def flag():
    def check(name, value):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        raise InputError(f"{name} must be true or false (got {value!r})")
    return Checker(check, "true/false")


@dataclass(frozen=True)
class Param:
    name: str
    doc: str
    check: Callable[[str, Any], Any]
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def describe(self) -> str:
        """``name (allowed values; default or required): doc``, as ``dpbench list -v`` shows it."""
        dflt = "required" if self.required else f"default {self.default!r}"
        return f"{self.name} ({self.allowed()}; {dflt}): {self.doc}"

    def allowed(self) -> str:
        """What the checker accepts: its ``describe`` (the checkers of this module and
        :mod:`dpbench.extend`), else the first line of its docstring, else its name."""
        described = getattr(self.check, "describe", None)
        if described:
            return str(described).strip()
        doc = (getattr(self.check, "__doc__", None) or "").strip().splitlines()
        return doc[0].rstrip(".") if doc else f"a value {getattr(self.check, '__name__', 'its check')} accepts"


def validate_params(owner: str, params: tuple[Param, ...], given: dict) -> dict:
    """Checked, defaulted parameter dict; unknown or missing names are errors."""
    known = {p.name: p for p in params}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise unknown_name("parameter", unknown[0], known, where=owner, kind="parameters")
    out = {}
    for p in params:
        if p.name in given and given[p.name] is not None:
            out[p.name] = p.check(p.name, given[p.name])
        elif p.required:
            raise InputError(f"{owner} needs parameter {p.name!r}: {p.describe()}")
        else:
            out[p.name] = p.default
    return out


# ----------------------------------------------------------------- specs
@dataclass
class Built:
    """What an algorithm's ``build`` returns: the two engine components."""
    policy: tuple
    mechanism: tuple
    warnings: list[str] = field(default_factory=list)
    info: dict = field(default_factory=dict)   # derived quantities worth recording (start phases, ...)


@dataclass
class Instance:
    """A built environment: the engine component, true means and the reward range.

    ``redraw``: for an environment drawn afresh for every repetition (e.g. ``linear_sphere`` with
    ``instance="per_repetition"``), ``redraw(seed)`` returns the instance of the repetition whose
    seed (``rep_seeds``, uint32) is ``seed``, itself with the same ``redraw``; the engine rebuilds
    the policy on it (:func:`repetition_plan`).  None: one instance for
    every repetition."""
    env: tuple
    means: np.ndarray
    reward_low: float
    reward_high: float
    name: str = ""
    params: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    redraw: Callable[[int], Instance] | None = None

    @property
    def k(self) -> int:
        return int(self.means.shape[0])

    @property
    def gaps(self) -> np.ndarray:
        return float(self.means.max()) - self.means


def repetition_plan(plan, rep_seed):
    """The plan (:class:`~dpbench.engine.simulate.Plan`) of the repetition seeded ``rep_seed``:
    ``plan`` itself, or, for an environment drawn per repetition (``plan.instance.redraw``), that
    repetition's instance with the policy built on it (the same parameters; a ``mechanism=``
    composed as in ``prepare``)."""
    if plan.instance.redraw is None:
        return plan
    instance = plan.instance.redraw(int(rep_seed))
    built = plan.spec.build(instance, plan.horizon, **plan.params)
    if plan.composition is not None:
        built.mechanism = plan.composition.mechanism.component
    return replace_field(plan, instance=instance, built=built)


@dataclass(frozen=True)
class AlgorithmSpec:
    name: str
    label: str
    family: str
    summary: str
    source: str
    params: tuple[Param, ...]
    build: Callable[..., Built]          # build(instance, horizon, **params) -> Built
    rewards: str = "unit"                 # "unit": rewards must lie in [0, 1]; "any"
    privacy: str = "none"                # "none" | "local" | "central" | "shuffle"
    module: str = ""                     # the module that registered it (default: build's)
    reports: str | None = None           # mechanism= reports its index takes ("bits", "real"); None:
                                         # the privatiser is part of the algorithm (composition.py)


@dataclass(frozen=True)
class EnvironmentSpec:
    name: str
    summary: str
    params: tuple[Param, ...]
    build: Callable[..., Instance]       # build(**params) -> Instance
    module: str = ""


@dataclass(frozen=True)
class MechanismSpec:
    """A catalog privacy mechanism: ``build(**params)`` returns its mechanism object
    (:class:`dpbench.engine.mechanism.Mechanism`: claim, input range, engine component, sampler).
    ``audit``: the parameters it is audited with at its claim (``verify.audit.controls``)."""
    name: str
    summary: str
    source: str
    params: tuple[Param, ...]
    build: Callable[..., Any]            # build(**params) -> Mechanism
    module: str = ""
    audit: dict | None = None

    def options(self, param: str) -> tuple:
        """The allowed values of choice parameter ``param`` (empty if it has none)."""
        for p in self.params:
            if p.name == param:
                return getattr(p.check, "options", ())
        return ()


def check_build_signature(what: str, build, positional: tuple, params) -> None:
    """``build`` must accept ``*positional`` then every name of ``params`` as a keyword."""
    if not callable(build):
        raise ComponentError(f"{what}: build must be a function (got {build!r})")
    names = [p.name for p in params]
    shown = ", ".join([*positional, *names])
    try:
        sig = inspect.signature(build)
    except (TypeError, ValueError):
        return                                   # a builtin or C callable: cannot check
    first = [p.name for p in sig.parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][:len(positional)]
    try:
        sig.bind(*positional, **{n: None for n in names})
        problem = "" if first == list(positional) else f"its first parameters must be {', '.join(positional)}"
    except TypeError as err:
        problem = str(err)
    if problem:
        got = ", ".join(sig.parameters)
        raise ComponentError(f"{what}: build must have the signature build({shown}), got "
                             f"build({got}) in {describe_function(build)} ({problem})")


class _Registry(dict):
    def __init__(self, what: str, build_positional: tuple):
        super().__init__()
        self.what = what
        self.build_positional = build_positional      # build's leading positional parameters

    def add(self, spec, *, replace: bool = False):
        """Register ``spec``; a name already taken is an error unless ``replace`` (never for a
        built-in).  The build signature is checked here, so a wrong one fails at registration."""
        if not isinstance(spec.name, str) or not _NAME.match(spec.name):
            raise ComponentError(f"{self.what} name must start with a letter or '_' and contain only letters, "
                                 f"digits, '_', '-' or '.' (got {spec.name!r})")
        old = self.get(spec.name)
        if old is not None:
            if _is_builtin(old):
                raise ComponentError(f"{self.what} {spec.name!r} is built into dpbench; choose another name")
            if not replace:
                raise ComponentError(f"{self.what} {spec.name!r} is already registered (by {old.module}); "
                                     "pass replace=True to replace it (e.g. when re-running a notebook cell)")
        names = [p.name for p in spec.params]
        if len(set(names)) != len(names):
            raise ComponentError(f"{self.what} {spec.name!r}: two parameters share a name ({names})")
        check_build_signature(f"{self.what} {spec.name!r}", spec.build, self.build_positional, spec.params)
        if hasattr(spec, "module") and not spec.module:
            spec = replace_field(spec, module=getattr(getattr(spec, "build", None), "__module__", "") or "")
        self[spec.name] = spec
        return spec

    def get_spec(self, name):
        if isinstance(name, str) and name not in self:
            from ..plugins import autoload
            autoload()                       # DPBENCH_PLUGINS and installed plugin packages
        if not isinstance(name, str) or name not in self:
            raise unknown_name(self.what, name, self, hint="(one of your own is known once the module that "
                               "registers it is imported: --plugin MODULE or DPBENCH_PLUGINS)")
        return self[name]


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def _is_builtin(spec) -> bool:
    code = getattr(spec, "build", None) or getattr(spec, "sampler", None)
    module = getattr(spec, "module", "") or getattr(code, "__module__", "") or ""
    return module.split(".")[0] in ("dpbench", "verify")


ALGORITHMS = _Registry("policy", ("instance", "horizon"))
ENVIRONMENTS = _Registry("environment", ())
MECHANISMS = _Registry("mechanism", ())

register_algorithm = ALGORITHMS.add
register_environment = ENVIRONMENTS.add
register_mechanism = MECHANISMS.add
