"""Pluggable parts of the simulation loop, resolved at compile time.

A *component* is a ``typing.NamedTuple`` class holding its parameters
(scalars and arrays).  Its behaviour is a handful of plain Python functions
registered against *verbs*:

=====================  ========================================================  =========
verb                   signature                                                 component
=====================  ========================================================  =========
``init_state``         ``init_state(policy, k, horizon) -> state``               policy
``select``             ``select(policy, state, t) -> (arm, m)``                  policy
``update``             ``update(policy, state, arm, m, value, level, t)``        policy
``broadcast``          ``broadcast(policy, state) -> float`` (optional)          policy
``respond``            ``respond(mech, env, arm, m) -> (value, level)``          mechanism
``respond_broadcast``  ``respond_broadcast(mech, env, arm, m, public)`` (opt.)   mechanism
``privatize``          ``privatize(mech, r, public) -> float``                   mechanism
``emit``               ``emit(mech, x, out)`` (optional)                          mechanism
``draw``               ``draw(env, arm) -> float``                               environment
``draw_sum``           ``draw_sum(env, arm, m) -> float``                        environment
=====================  ========================================================  =========

``t`` is the number of pulls completed before this decision.  ``select``
returns an arm and how many consecutive pulls ``m >= 1`` of it to make (1 for
index policies; phase-based policies pull in batches).  ``respond`` is the
curator of the LDP papers: it pulls the arm ``m`` times in ``env``, privatises
and returns the (summed) private response plus the privacy level of the user
(``level``; the fixed epsilon, a per-user epsilon for HeLDP, or 0 for
non-private mechanisms).  A policy only ever sees ``respond``'s output.

``broadcast`` is the public parameter the learner announces to the users of
the next pulls before they respond, e.g. the truncation bound B_tau that LDP
users apply before adding noise (seed 003 Alg. 4).  The loop calls
``respond_broadcast(mech, env, arm, m, broadcast(policy, state))``; by default
a policy broadcasts 0.0 and a mechanism ignores it and calls ``respond``, so
components that need neither define neither (no cost: both inline away).

``privatize`` is the mechanism's one privatisation function: the private
report of ONE user whose reward is ``r`` (``public`` as above, 0.0 when the
policy broadcasts nothing; a mechanism that needs such a parameter holds its
stand-alone value as a field and takes the broadcast one when it is positive).
Everything else derives from it: ``respond`` pulls the arm and privatises each
reward with it (or, where the law allows, draws the sum of the m users' noises
at once: the *batched form*, whose law the tests check against the sum of m
single reports), the stand-alone samplers (``dpbench.sampler``) draw reports
of a fixed input with it, and the audits' compiled fast path calls ``emit``,
whose default writes ``privatize(mech, x[0], 0.0)`` into ``out[0]`` (a
mechanism with vector outputs registers its own ``emit``: write one output of
M(x) into ``out[:d]``).  A mechanism needs only ``privatize``: ``respond``
defaults to :func:`report_each` with level 0.0 (register ``respond`` to batch the
noise or to return a privacy level).

The verbs below are ``numba.extending.overload`` stubs: inside compiled code
``select(policy, ...)`` resolves to the function registered for
``type(policy)`` at compile time (static dispatch, full inlining, one
specialisation per combination used).  Called from plain Python (or with
``NUMBA_DISABLE_JIT=1``) the same stubs dispatch through the registry, so the
engine loop runs unchanged as a Python reference.

Components must be flat: a field may be a scalar or an array, but not a
nested tuple that holds an array (numba cannot pass one into a ``prange``
loop).  Keep integer fields ``int`` and real fields ``float`` so that one
compiled specialisation serves every parameter value.

Register an implementation with ``@implements(select, MyPolicy)``; its
parameter names must equal the stub's (checked here), which lets numba use
the function directly without a wrapper (a wrapper cost ~40% in measurements).

Contracts (checked at registration where possible, by ``simulate(..., check=True)``
otherwise; :mod:`dpbench.extend` states them for users):

* a component is a ``typing.NamedTuple`` class; numba keys compiled code on the
  class, so a (verb, class) pair is registered once: to change a function,
  redefine its class too;
* ``select`` returns a pair ``(arm, m)`` of integers, ``0 <= arm < k``, ``m >= 1``;
* the state is arrays that ``update`` mutates in place; ``update`` returns nothing;
* ``respond`` returns (finite response, privacy level >= 0);
* randomness comes only from ``np.random`` / :mod:`dpbench.randomness`, which the
  loop seeds per repetition, so results do not depend on the thread count.
"""
from __future__ import annotations

import ast
import inspect
import textwrap

from numba.extending import overload

from ..validation import InputError
from .caching import cached_njit
from .registry import register, registered_function
from .stamps import fingerprint


class ComponentError(InputError, TypeError):
    """A component that breaks its contract; the message names the component, the verb and
    the user's function (also a ``TypeError``: it is a programming error in that function)."""


def describe_function(func) -> str:
    """``module.qualname (file.py:line)`` of a (possibly jitted) function, for error messages."""
    py = getattr(func, "py_func", func)
    where = ""
    code = getattr(py, "__code__", None)
    if code is not None:
        where = f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})"
    return f"{getattr(py, '__module__', '?')}.{getattr(py, '__qualname__', repr(py))}{where}"


def _returns_value(func) -> bool:
    """True if ``func``'s own body (not nested functions) has ``return <expr>`` other than None."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return False                     # no source (e.g. built by exec): check mode still checks
    body = tree.body[0] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else None
    if body is None:
        return False
    nodes: list[ast.AST] = list(body.body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.Return):
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                return True
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            nodes.extend(ast.iter_child_nodes(node))
    return False


def is_component_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def implements(verb, cls):
    """Decorator: register ``func`` as ``verb`` for component class ``cls``.

    Raises :class:`ComponentError` if ``cls`` is not a ``typing.NamedTuple`` class, if the
    parameter names differ from the verb's, if an ``update`` returns a value, or if
    ``(verb, cls)`` already has a different function (numba keys compiled code on the
    class: redefine the class to change its functions).
    """
    def decorate(func):
        py = getattr(func, "py_func", func)
        name = getattr(verb, "__name__", repr(verb))
        if not is_component_class(cls):
            raise ComponentError(f"{describe_function(py)} implements {name} for {cls!r}, which is not a "
                                 "typing.NamedTuple class; components are NamedTuples of parameters")
        expected = list(inspect.signature(verb).parameters)
        got = list(inspect.signature(py).parameters)
        if got != expected:
            raise ComponentError(f"{describe_function(py)} implements {name} for {cls.__name__}: "
                                 f"parameters must be {expected}, got {got}")
        if name == "update" and _returns_value(py):
            raise ComponentError(f"{describe_function(py)} implements update for {cls.__name__} and returns "
                                 "a value, which the loop would discard: update must change the state "
                                 "arrays in place (e.g. counts[arm] += m) and return nothing")
        old = registered_function(name, cls)
        if old is not None and old is not py and not _same_code(old, py):
            raise ComponentError(f"{name} for {cls.__name__} is already {describe_function(old)}; numba "
                                 f"keys compiled code on the class, so to change {name} redefine the "
                                 f"class {cls.__name__} as well (e.g. re-run the cell that defines it)")
        register(name, cls, py)
        return func
    return decorate


def _same_code(a, b) -> bool:
    return fingerprint(a) == fingerprint(b)


def implementation(verb_name: str, cls: type):
    """The Python function registered for (verb, component class)."""
    func = registered_function(verb_name, cls)
    if func is None:
        func = _DEFAULTS.get(verb_name)
    if func is None:
        raise TypeError(f"{cls.__name__} does not implement {verb_name!r}")
    return func


def registered(verb_name: str, cls: type) -> bool:
    """Whether ``cls`` registers its own ``verb_name`` (not the verb's default)."""
    return registered_function(verb_name, cls) is not None


def _resolve(verb_name, numba_type):
    cls = getattr(numba_type, "instance_class", None)
    if cls is None:
        return None
    return implementation(verb_name, cls)


# ------------------------------------------------------------------ verbs
def init_state(policy, k, horizon):
    """Fresh per-repetition state of ``policy`` for ``k`` arms."""
    return implementation("init_state", type(policy))(policy, k, horizon)


def select(policy, state, t):
    """Next arm and the number of consecutive pulls of it."""
    return implementation("select", type(policy))(policy, state, t)


def update(policy, state, arm, m, value, level, t):
    """Incorporate the private response ``value`` of ``m`` pulls of ``arm``."""
    return implementation("update", type(policy))(policy, state, arm, m, value, level, t)


def respond(mech, env, arm, m):
    """Pull ``arm`` ``m`` times in ``env`` and return (private response, privacy level)."""
    return implementation("respond", type(mech))(mech, env, arm, m)


def broadcast(policy, state):
    """Public parameter announced to the users of the next pulls (default 0.0)."""
    return implementation("broadcast", type(policy))(policy, state)


def respond_broadcast(mech, env, arm, m, public):
    """``respond`` given the learner's broadcast ``public`` (default: ignore it)."""
    return implementation("respond_broadcast", type(mech))(mech, env, arm, m, public)


def privatize(mech, r, public):
    """One user's private report of reward ``r`` (``public``: the learner's broadcast, or 0.0)."""
    return implementation("privatize", type(mech))(mech, r, public)


def emit(mech, x, out):
    """Write one output of mechanism ``mech`` on input ``x`` (a 1-d float array) into ``out[:d]``."""
    return implementation("emit", type(mech))(mech, x, out)


def draw(env, arm):
    """One reward of ``arm``."""
    return implementation("draw", type(env))(env, arm)


def draw_sum(env, arm, m):
    """Sum of ``m`` i.i.d. rewards of ``arm`` (one draw where the law allows)."""
    return implementation("draw_sum", type(env))(env, arm, m)


@cached_njit
def broadcast_or(public, own):
    """The learner's broadcast if it made one (``public`` > 0), else the mechanism's ``own``
    stand-alone value (see ``privatize`` above)."""
    return public if public > 0.0 else own


def _default_draw_sum(env, arm, m):
    total = 0.0
    for _ in range(m):
        total += draw(env, arm)
    return total


@cached_njit
def report_each(mech, env, arm, m):
    """Sum of the reports of m users: each pull of ``arm`` privatised by ``mech`` in turn
    (reward, then its report): the ``respond`` of a mechanism without a batched form."""
    total = 0.0
    for _ in range(m):
        total += privatize(mech, draw(env, arm), 0.0)
    return total


def _default_respond(mech, env, arm, m):
    return report_each(mech, env, arm, m), 0.0


def _default_broadcast(policy, state):
    return 0.0


def _default_respond_broadcast(mech, env, arm, m, public):
    return respond(mech, env, arm, m)


def _default_emit(mech, x, out):
    out[0] = privatize(mech, x[0], 0.0)


_DEFAULTS = {"draw_sum": _default_draw_sum, "broadcast": _default_broadcast, "respond": _default_respond,
             "respond_broadcast": _default_respond_broadcast, "emit": _default_emit}


# The verbs are overloads numba compiles as functions of their own (LLVM may inline them later).
# Not ``inline="always"``: numba 0.68.1's IR inlining of an overload drops writes made through
# a NamedTuple's array fields (``state.ones[arm] += value`` leaves ``state.ones`` unchanged;
# ``state[0][arm] += value`` works), which would silently break every NamedTuple state.  The
# cost of a separate function: numba increfs and decrefs each array of the state tuple on
# entry and exit, atomically, and its pruning keeps the pairs in a function that calls another
# compiled function (and in some that do not): up to 3/4 of a loop's time under perf.  Keep the
# state in few arrays (DP-FTPL-New, -Gauss) and small helpers ``cached_njit(inline="always")``
# (mechanisms/ldp_curators.py).
@overload(init_state)
def _ol_init_state(policy, k, horizon):
    return _resolve("init_state", policy)


@overload(select)
def _ol_select(policy, state, t):
    return _resolve("select", policy)


@overload(update)
def _ol_update(policy, state, arm, m, value, level, t):
    return _resolve("update", policy)


@overload(respond)
def _ol_respond(mech, env, arm, m):
    return _resolve("respond", mech)


@overload(broadcast)
def _ol_broadcast(policy, state):
    return _resolve("broadcast", policy)


@overload(respond_broadcast)
def _ol_respond_broadcast(mech, env, arm, m, public):
    return _resolve("respond_broadcast", mech)


@overload(privatize)
def _ol_privatize(mech, r, public):
    return _resolve("privatize", mech)


@overload(emit)
def _ol_emit(mech, x, out):
    return _resolve("emit", mech)


@overload(draw)
def _ol_draw(env, arm):
    return _resolve("draw", env)


@overload(draw_sum)
def _ol_draw_sum(env, arm, m):
    return _resolve("draw_sum", env)
