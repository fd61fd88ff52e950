"""What a component must do, and the checks that say which user function broke it.

(The build signature is checked at registration, beside the registries:
:func:`.catalog.check_build_signature`.)
* :func:`check_built` / :func:`check_instance` (in ``prepare``, before compiling): build
  returned a :class:`~.catalog.Built` / :class:`~.catalog.Instance` whose components have
  their verbs registered.
* :func:`compile_error` (when numba cannot compile the loop): compiles each verb on its own,
  in the loop's order, and names the component and verb that fail, including a ``select``
  that does not return a pair of integers or an ``update`` that returns a value.
* :func:`non_finite_error`: a non-finite response stopped a compiled repetition (the loop
  flags it; see :mod:`.kernel`).
* :func:`run_checked` (``simulate(..., check=True)``): the first repetition runs the loop's
  own code as plain Python with every verb call checked -- ``select`` returns integers
  ``0 <= arm < k`` and ``m >= 1``; responses are finite and privacy levels ``>= 0``;
  ``update`` returns None and changes the state at least once; ``simulate`` then reruns it
  compiled, which must reproduce the compiled run (randomness only from ``np.random``
  or :mod:`dpbench.randomness`, which the loop seeds).
Every error is a :class:`~.components.ComponentError` naming the user's function.
"""
from __future__ import annotations

import copy
import numbers
import re
import types
from dataclasses import dataclass, field

import numba
import numpy as np

from . import components as comp
from .caching import cached_njit
from .catalog import Built, Instance
from .components import ComponentError, describe_function
from .registry import implementations

_ROLE_VERBS = {"policy": ("init_state", "select", "update"), "mechanism": ("respond",),   # or privatize
               "environment": ("draw",)}
#: the verb to suggest registering for a missing one (a mechanism needs only privatize)
_REGISTER_HINT = {"respond": "privatize"}


# ---------------------------------------------------------------- preparing
def _missing_verbs(role: str, component) -> list[str]:
    cls = type(component)
    have = implementations(cls)
    needed = list(_ROLE_VERBS[role])
    # a mechanism's respond defaults to report_each over its privatize (components.py)
    if role == "mechanism" and ("respond_broadcast" in have or "privatize" in have):
        needed = []
    if role == "environment" and "draw_sum" in have:
        needed = []
    return [v for v in needed if v not in have]


def _check_component(owner: str, role: str, component) -> None:
    cls = type(component)
    if not comp.is_component_class(cls):
        hint = ("; a policy without privacy (or one that privatises inside itself) gives "
                "dpbench.extend.Direct(sigmoid=False): the user reports her raw reward" if role == "mechanism" else "")
        raise ComponentError(f"{owner} gave a {role} of type {cls.__name__}, which is not a "
                             f"typing.NamedTuple component{hint}")
    missing = _missing_verbs(role, component)
    if missing:
        raise ComponentError(
            f"{owner}: {role} {cls.__name__} ({cls.__module__}) has no registered {', '.join(missing)}; "
            f"register it with @dpbench.implements({_REGISTER_HINT.get(missing[0], missing[0])}, {cls.__name__}) "
            "(is the module that "
            "does so imported?)")


def check_built(spec, built) -> None:
    owner = f"policy {spec.name!r}"
    if not isinstance(built, Built):
        raise ComponentError(f"{owner}: build ({describe_function(spec.build)}) must return "
                             f"dpbench.extend.Built(policy, mechanism), got {type(built).__name__}")
    _check_component(owner, "policy", built.policy)
    _check_component(owner, "mechanism", built.mechanism)


def check_instance(spec, instance) -> None:
    owner = f"environment {spec.name!r}"
    if not isinstance(instance, Instance):
        raise ComponentError(f"{owner}: build ({describe_function(spec.build)}) must return "
                             f"dpbench.extend.Instance(env, means, reward_low, reward_high), got "
                             f"{type(instance).__name__}")
    means = np.asarray(instance.means)
    if means.ndim != 1 or not np.isfinite(means).all():
        raise ComponentError(f"{owner}: Instance.means must be a 1-d array of finite numbers "
                             f"(got {instance.means!r})")
    _check_component(owner, "environment", instance.env)


# ------------------------------------------------------ compile-time failures
def _who(verb: str, role: str, component) -> str:
    cls = type(component)
    func = implementations(cls).get(verb)
    if verb == "respond_broadcast" and func is None:
        verb, func = "respond", implementations(cls).get("respond")
    if verb == "respond" and func is None:
        verb, func = "privatize", implementations(cls).get("privatize")
    if verb == "draw_sum" and func is None:
        verb, func = "draw", implementations(cls).get("draw")
    where = f" ({describe_function(func)})" if func is not None else ""
    return f"{verb} of {role} {cls.__name__}{where}"


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _summary(err: Exception) -> str:
    """numba's message in one line: what failed (and the signature it tried), plus the innermost
    location outside numba and dpbench's engine."""
    lines = [ln.strip() for ln in _ANSI.sub("", str(err)).splitlines() if ln.strip()]
    what = [ln for ln in lines if not ln.startswith(("Failed in", "During:", "File ", "raised from"))][:1]
    what += [ln for ln in lines if ln.startswith(">>>")][:1]
    spots = [ln.rstrip(":") for ln in lines if ln.startswith("File \"") and "site-packages/numba" not in ln
             and "dpbench/engine/" not in ln]
    return " ".join(what or lines[:1]) + (f" [{spots[-1]}]" if spots else "")


def _is_pair_of_integers(t) -> bool:
    return isinstance(t, numba.types.BaseTuple) and len(t) == 2 and \
        all(isinstance(x, numba.types.Integer) for x in t)  # type: ignore[attr-defined]


def _is_pair_of_numbers(t) -> bool:
    numbers = (numba.types.Integer, numba.types.Float, numba.types.Boolean)
    return isinstance(t, numba.types.BaseTuple) and len(t) == 2 and \
        all(isinstance(x, numbers) for x in t)  # type: ignore[attr-defined]


def compile_error(plan, err: Exception) -> Exception:
    """The error to raise when numba cannot compile ``plan``'s loop: a :class:`ComponentError`
    naming the first verb that fails on its own (or returns the wrong type), else ``err``.
    Each registered function is compiled on its own, in the loop's order, so numba's message
    points into the user's code."""
    policy, mech, env = plan.built.policy, plan.built.mechanism, plan.instance.env
    i64, f64 = numba.types.int64, numba.types.float64
    tp, tm, te = numba.typeof(policy), numba.typeof(mech), numba.typeof(env)

    def return_type(verb, role, component, *argtypes):
        """(type ``verb`` returns, None) or (None, the error naming it)."""
        try:
            disp = numba.njit(implementations(type(component))[verb])
            disp.compile(argtypes)
        except numba.core.errors.NumbaError as inner:
            return None, ComponentError(f"numba cannot compile {_who(verb, role, component)}: {_summary(inner)}")
        return disp.nopython_signatures[-1].return_type, None

    def wrong(verb, role, component, got, want):
        return ComponentError(f"{_who(verb, role, component)} returns {got}; {want}")

    state, bad = return_type("init_state", "policy", policy, tp, i64, i64)
    if bad:
        return bad
    arm_m, bad = return_type("select", "policy", policy, tp, state, i64)
    if bad or not _is_pair_of_integers(arm_m):
        return bad or wrong("select", "policy", policy, arm_m, "select must return a pair (arm, m) of "
                            "integers, e.g. `return arm, 1`")
    public, bad = (f64, None)
    if "broadcast" in implementations(type(policy)):
        public, bad = return_type("broadcast", "policy", policy, tp, state)
    if bad:
        return bad
    draw_verb = "draw_sum" if "draw_sum" in implementations(type(env)) else "draw"
    _, bad = return_type(draw_verb, "environment", env, te, i64, *((i64,) if draw_verb == "draw_sum" else ()))
    if bad:
        return bad
    mech_verbs = implementations(type(mech))
    if "respond_broadcast" not in mech_verbs and "respond" not in mech_verbs:     # the default respond
        report, bad = return_type("privatize", "mechanism", mech, tm, f64, public)
        if bad or not isinstance(report, (numba.types.Integer, numba.types.Float, numba.types.Boolean)):
            return bad or wrong("privatize", "mechanism", mech, report, "privatize must return one number")
        response = numba.types.Tuple((f64, f64))
    elif "respond_broadcast" in mech_verbs:
        response, bad = return_type("respond_broadcast", "mechanism", mech, tm, te, i64, i64, public)
    else:
        response, bad = return_type("respond", "mechanism", mech, tm, te, i64, i64)
    if bad or not _is_pair_of_numbers(response):
        return bad or wrong("respond_broadcast", "mechanism", mech, response, "respond must return a pair "
                            "(response, privacy level) of numbers")
    ret, bad = return_type("update", "policy", policy, tp, state, i64, i64, response[0], response[1], i64)
    if bad or ret != numba.types.none:
        return bad or wrong("update", "policy", policy, ret, "update must change the state arrays in place "
                            "and return nothing")
    return err


def non_finite_error(plan, rep: int, pulls_done: int) -> ComponentError:
    return ComponentError(
        f"{_who('respond_broadcast', 'mechanism', plan.built.mechanism)} returned a non-finite response "
        f"(NaN or infinity) after {pulls_done} pulls of repetition {rep} (seed {plan.seed}); the run was "
        f"stopped. It is at fault, or {_who('draw', 'environment', plan.instance.env)} with a non-finite "
        "reward: simulate(..., check=True) (CLI: --check) checks each as plain Python and names the one")


def bad_select_error(plan, rep: int, pulls_done: int) -> ComponentError:
    k = plan.instance.k
    return ComponentError(
        f"{_who('select', 'policy', plan.built.policy)} returned no arm of 0..{k - 1} (or a batch of fewer than "
        f"1 pull) after {pulls_done} pulls of repetition {rep} (seed {plan.seed}); the run was stopped. "
        "simulate(..., check=True) (CLI: --check) runs it as plain Python and shows the call")


# ----------------------------------------------------------------- check mode
def _integer(x) -> bool:
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def _real(x) -> bool:
    return isinstance(x, (numbers.Real, np.floating, np.integer)) and not isinstance(x, (bool, np.bool_))


#: a lower bound on the speed of the checked plain-Python repetition, for run-time estimates
#: (measured 1.7e4 to 5e4 pulls per CPU second: HeLDP-UCB-L, DP-FTPL-Gauss, UCB1)
CHECKED_PULLS_PER_SECOND = 1e4


@dataclass
class CheckSummary:
    """What the check mode checked: one repetition, its pulls and every verb call."""

    rep: int
    pulls: int
    calls: dict = field(default_factory=dict)       # verb -> number of checked calls

    def passed(self) -> dict:
        """The outcome once the compiled rerun reproduced the repetition (JSON-ready)."""
        return {"repetition": self.rep, "pulls": self.pulls, "calls": dict(self.calls),
                "reproduced_compiled": True, "outcome": "passed"}


def describe_check(check: dict) -> str:
    """One line saying what the check mode checked and its outcome."""
    calls = ", ".join(f"{n} {verb}" for verb, n in check["calls"].items() if n)
    return (f"check {check['outcome']}: repetition {check['repetition']} ran as plain Python ({check['pulls']} "
            f"pulls; {calls} calls, each checked: arms in range, m >= 1, finite responses, privacy "
            "levels >= 0, update returns nothing and changes the state), and the compiled run "
            f"reproduced it exactly; the environment's rewards were drawn alone first ({CHECK_DRAWS:,} per arm, "
            "each finite and within its declared range)")


class _Checked:
    """The loop's verbs, each calling the registered function and checking its contract."""

    def __init__(self, plan, observe=None):
        self.plan = plan
        self.k = plan.instance.k
        self.changed = False
        self.updates = 0
        self.calls = {"select": 0, "respond": 0, "update": 0, "broadcast": 0}
        self.observe = observe

    def fail(self, who, what, t):
        raise ComponentError(f"check: {who} {what} (at t={t}, repetition of seed {self.plan.seed})")

    def init_state(self, policy, k, horizon):
        return comp.init_state(policy, k, horizon)

    def select(self, policy, state, t):
        self.calls["select"] += 1
        out = comp.select(policy, state, t)
        who = _who("select", "policy", policy)
        if not isinstance(out, tuple) or len(out) != 2:
            self.fail(who, f"returned {out!r}; it must return a pair (arm, m)", t)
        arm, m = out
        if not _integer(arm) or not 0 <= arm < self.k:
            self.fail(who, f"returned arm {arm!r}; arms are integers 0..{self.k - 1}", t)
        if not _integer(m) or m < 1:
            self.fail(who, f"returned m = {m!r}; m is the number of pulls, an integer >= 1", t)
        if self.observe is not None:
            self.observe(state, t)
        return int(arm), int(m)

    def broadcast(self, policy, state):
        self.calls["broadcast"] += 1
        public = comp.broadcast(policy, state)
        if not _real(public) or not np.isfinite(public):
            self.fail(_who("broadcast", "policy", policy), f"returned {public!r}, not a finite number", -1)
        return public

    def respond_broadcast(self, mech, env, arm, m, public):
        self.calls["respond"] += 1
        out = comp.respond_broadcast(mech, env, arm, m, public)
        who = _who("respond_broadcast", "mechanism", mech)
        if not isinstance(out, tuple) or len(out) != 2:
            self.fail(who, f"returned {out!r}; it must return a pair (response, privacy level)", -1)
        value, level = out
        if not _real(value) or not np.isfinite(value):
            self.fail(who, f"returned the response {value!r} for arm {arm}; responses must be finite", -1)
        if not _real(level) or not np.isfinite(level) or level < 0:
            self.fail(who, f"returned the privacy level {level!r}; levels are finite and >= 0 "
                           "(0 for a non-private response)", -1)
        return float(value), float(level)

    def update(self, policy, state, arm, m, value, level, t):
        before = None if self.changed else copy.deepcopy(state)
        out = comp.update(policy, state, arm, m, value, level, t)
        if out is not None:
            self.fail(_who("update", "policy", policy), f"returned {out!r}; update must change the state "
                      "arrays in place and return nothing", t)
        self.updates += 1
        if before is not None and not _same_state(before, state):
            self.changed = True


def _same_state(a, b) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same_state(x, y) for x, y in zip(a, b))
    return bool(np.array_equal(a, b, equal_nan=True)) if isinstance(a, np.ndarray) else a == b


@cached_njit
def _seed_compiled_stream(seed):
    np.random.seed(seed)


#: rewards per arm the check mode draws from the environment alone (before the checked repetition)
CHECK_DRAWS = 10_000


def check_draws(plan, rep: int, draws: int = CHECK_DRAWS) -> None:
    """Draw ``draws`` rewards of every arm from the environment alone: each must be finite and
    within the range the environment declares (its Instance's reward_low, reward_high).  Inside a
    run a bad reward shows only through the mechanism's response (a NaN response blames the
    mechanism) or not at all (a comparison with NaN is False, so a randomised response stays
    finite), so the environment is checked on its own."""
    from ..randomness import rep_seeds
    inst = plan.instance
    who = _who("draw", "environment", inst.env)
    _seed_compiled_stream(rep_seeds(plan.seed, rep, 1)[0])
    for arm in range(inst.k):
        for _ in range(draws):
            r = comp.draw(inst.env, arm)
            if not _real(r) or not np.isfinite(r) or not inst.reward_low <= r <= inst.reward_high:
                raise ComponentError(f"check: {who} returned the reward {r!r} for arm {arm}; rewards must be "
                                     f"finite and within the declared [{inst.reward_low:g}, "
                                     f"{inst.reward_high:g}] ({draws:,} draws of each arm checked)")


def run_checked(plan, rep: int, observe=None) -> CheckSummary:
    """Repetition ``rep`` of ``plan`` as plain Python through the loop's own code, every verb
    call checked; raises :class:`ComponentError` naming the function that breaks its contract,
    else returns what was checked.  ``observe(state, t)``, if given, reads the policy's state
    after every ``select`` (to record what a run's results do not keep, e.g. a batch's core set)."""
    from ..randomness import rep_seeds
    from .catalog import repetition_plan
    from .kernel import simulate_kernel

    seeds = rep_seeds(plan.seed, rep, 1)
    plan = repetition_plan(plan, seeds[0])          # an instance drawn per repetition: this one's
    checked = _Checked(plan, observe)
    loop_code = simulate_kernel.py_func
    names = {v: getattr(checked, v) for v in ("init_state", "select", "update", "respond_broadcast",
                                              "broadcast")}
    loop = types.FunctionType(loop_code.__code__, {**loop_code.__globals__, **names}, loop_code.__name__)
    n_check = plan.checkpoints.shape[0]
    regret = np.zeros((1, n_check))
    pulls = np.zeros((1, plan.instance.k), dtype=np.int64)
    saved = np.random.get_state()
    try:
        _seed_compiled_stream(seeds[0])           # helpers called from Python draw from numba's stream
        loop(plan.built.policy, plan.built.mechanism, plan.instance.env, plan.instance.gaps,
             plan.horizon, seeds, plan.checkpoints, regret, pulls, np.zeros((1, 0), dtype=np.int64),
             np.zeros(1, dtype=np.uint8))
    finally:
        np.random.set_state(saved)
    if checked.updates > 1 and not checked.changed:
        raise ComponentError(f"check: {_who('update', 'policy', plan.built.policy)} never changed the state "
                             f"in {checked.updates} calls; state is arrays that update changes in place "
                             "(counts[arm] += m), not names it rebinds (counts = counts + 1)")
    return CheckSummary(rep, int(pulls.sum()), {**checked.calls, "update": checked.updates})


def check_reproducible(plan, first, again, rep: int) -> None:
    """Two compiled runs ``(regret, pulls)`` of repetition ``rep`` with one seed must agree."""
    if not all(np.array_equal(a, b) for a, b in zip(first, again)):
        parts = ", ".join(f"{role} {type(c).__name__}" for role, c in
                          (("policy", plan.built.policy), ("mechanism", plan.built.mechanism),
                           ("environment", plan.instance.env)))
        raise ComponentError(f"check: repetition {rep} gave different results in two runs with the same "
                             f"seed ({parts}): draw randomness only through np.random or "
                             "dpbench.randomness (seeded per repetition), not Python's random, time or "
                             "global state")
