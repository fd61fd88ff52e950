"""Bring your own algorithm, mechanism or environment.

A run is three *components*, each a ``typing.NamedTuple`` of parameters
(scalars and 1-d/2-d arrays; keep integer fields ``int`` and real ones
``float``): a **policy**, a **mechanism** (what a user reports when an arm is
pulled) and an **environment** (the reward laws).  Their behaviour is plain
functions registered against *verbs* with ``@implements(verb, Class)``; the
parameter names must be exactly these:

* ``init_state(policy, k, horizon) -> state``: fresh state for ``k`` arms, an array or a
  flat tuple of arrays;
* ``select(policy, state, t) -> (arm, m)``: with ``t`` pulls done, pull ``arm``
  (``0 <= arm < k``) ``m >= 1`` times (1 for index policies) -- a *pair of integers*;
* ``update(policy, state, arm, m, value, level, t)``: change ``state``'s arrays *in
  place*; return nothing;
* ``privatize(mech, r, public) -> float``: one user's private report of her reward ``r``
  (``public``: 0.0, or a parameter the policy broadcasts); a mechanism needs only this;
* ``respond(mech, env, arm, m) -> (value, level)`` (optional): pull ``arm`` ``m`` times
  (``draw_sum(env, arm, m)``) and privatise at once (default: ``privatize`` each pull,
  level 0); ``value`` finite, ``level`` the user's privacy level >= 0 (0 if not private);
* ``draw(env, arm) -> float``: one reward (``draw_sum`` is optional: the sum of ``m``
  rewards, in one draw where the law allows).

(``broadcast``/``respond_broadcast`` exist for a public parameter the learner announces,
see :mod:`dpbench.engine.components`.)  The functions are compiled by numba
(``nopython`` mode) and inlined into the one simulation loop.  **Randomness only
through** ``np.random`` or :mod:`dpbench.randomness`: the loop seeds the
generator per repetition, which is what makes a seed reproducible and results
independent of the thread count or the Dask backend.  numba keys compiled code
on the component class, so a verb of a class is registered once; to change
it, redefine the class too (re-run the whole notebook cell).

Then give the policy a name with :func:`register_policy`, whose
``build(instance, horizon, **params)`` pairs a policy component with a
mechanism component for one run (``instance`` is the built environment, an
:class:`Instance` with ``.k``, ``.means``, ``.gaps``; a policy without privacy, or one that
privatises inside itself as central-DP policies do, pairs with ``Direct(sigmoid=False)``: the
raw reward, as UCB1 sees it), a mechanism with
:func:`register_mechanism` (``build(**params)`` returns a :class:`Mechanism`: the
component and its privacy claim; simulated as ``mechanism=NAME`` of any policy that takes
one, sampled by ``dpbench.sampler`` and audited by ``dpbench audit``, all through its one
``privatize``), and an environment with :func:`register_environment`.  Registered names work everywhere a built-in
name does: :func:`dpbench.simulate`, ``dpbench simulate/sweep/run --plugin
MODULE``, experiment TOML files, Dask sweeps (see :mod:`dpbench.plugins`).

Checks: a wrong verb or ``build`` signature, an ``update`` that returns a value,
or a component without its verbs fails with a :class:`ComponentError` naming
the function; numba typing errors are reported naming the component and
verb; ``simulate(..., check=True)`` runs the first repetition as plain Python
with every call checked.  The compiled kernel and every stored sweep cell are
stamped with a fingerprint of the user code they ran (:mod:`dpbench.engine.stamps`),
so an edit recompiles and recomputes.

The guide dpbench/guides/extending.md has a complete example.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from .engine.catalog import (
    ALGORITHMS,
    ENVIRONMENTS,
    MECHANISMS,
    REQUIRED,
    AlgorithmSpec,
    Built,
    EnvironmentSpec,
    Instance,
    MechanismSpec,
    Param,
    choice,
    flag,
    integer,
    real,
    text,
    vector,
)
from .engine.components import (
    ComponentError,
    broadcast,
    draw,
    draw_sum,
    implements,
    init_state,
    privatize,
    respond,
    respond_broadcast,
    select,
    update,
)
from .engine.mechanism import OUTPUT_KINDS, Mechanism
from .mechanisms.ldp_curators import Direct
from .plugins import load_plugins

__all__ = ["register_policy", "register_mechanism", "register_environment", "implements", "init_state",
           "select", "update", "privatize", "respond", "draw", "draw_sum", "broadcast", "respond_broadcast",
           "Built", "Direct", "Instance", "Mechanism", "Param", "REQUIRED", "real", "integer", "vector", "choice",
           "flag", "text",
           "ComponentError", "load_plugins"]

#: keywords of :func:`dpbench.simulate` itself, so not usable as parameter names
RESERVED = frozenset({"policy", "env", "horizon", "reps", "seed", "env_params", "checkpoints", "threads",
                      "progress", "trace", "first_rep", "check", "mechanism", "allow_long"})
REWARDS = ("unit", "any")
PRIVACY = ("none", "local", "central", "shuffle")


def _checked_params(what: str, params) -> tuple:
    params = tuple(params)
    for p in params:
        if not isinstance(p, Param):
            raise ComponentError(f"{what}: params must be dpbench.extend.Param(name, doc, check, default) "
                                 f"objects (got {p!r})")
        if p.name in RESERVED:
            raise ComponentError(f"{what}: parameter name {p.name!r} is reserved by dpbench.simulate; "
                                 "choose another")
    return params


def _caller_module() -> str:
    return sys._getframe(2).f_globals.get("__name__", "")


def register_policy(name: str, build: Callable[..., Built], *, params: Sequence[Param] = (),
                    label: str | None = None, summary: str = "", source: str = "", rewards: str = "unit",
                    privacy: str = "none", reports: str | None = None, replace: bool = False) -> AlgorithmSpec:
    """Register a policy under ``name`` for ``simulate``, the CLI, experiments and sweeps.

    Parameters
    ----------
    name : str
        The name users pass (``simulate(name, ...)``, ``--policy name``).
    build : callable
        ``build(instance, horizon, **params) -> Built(policy, mechanism)``: the policy and
        mechanism components of one run.  ``instance`` is the built environment
        (:class:`Instance`: ``.k``, ``.means``, ``.gaps``, ``.reward_low``, ``.reward_high``),
        ``params`` the validated values of ``params`` by name.  Plain Python, run once per
        configuration (derive constants here, not in the compiled verbs).
    params : sequence of Param
        The parameters, each ``Param(name, doc, check, default=REQUIRED)`` with a checker
        such as ``real(low=0, low_open=True)``, ``integer(1)``, ``choice("a", "b")``.
    label : str, optional
        Name in figures and tables (default ``name``).
    summary, source : str
        One-line description and the paper it comes from, for ``dpbench list``.
    rewards : {"unit", "any"}
        "unit" refuses environments whose rewards leave [0, 1] (bounded mechanisms).
    privacy : {"none", "local", "central", "shuffle"}
        The privacy model, for listings and reports.
    reports : {None, "bits", "real"}
        Set it if the policy's index does not depend on its privatiser: users may then
        replace the mechanism ``build`` returns with ``mechanism=NAME`` (or ``--mechanism``)
        by any local mechanism whose ``output_kind`` fits: "bits" takes only 0/1 reports,
        "real" any real report (:mod:`dpbench.engine.composition`).  None (default): the
        privatiser is part of the algorithm.
    replace : bool
        Replace a policy of the same name registered earlier (e.g. re-running a notebook
        cell).  Built-in names cannot be replaced.

    Returns
    -------
    AlgorithmSpec
        The registered entry.

    Raises
    ------
    ComponentError
        A bad name, a name already taken, a ``build`` that does not accept
        ``(instance, horizon, <params>)``, or a bad ``params``/``rewards``/``privacy``.

    Examples
    --------
    The guide dpbench/guides/extending.md registers a complete
    epsilon-greedy policy on Gaussian-privatised rewards; its registration reads:

    >>> register_policy(                                             # doctest: +SKIP
    ...     "ldp_eps_greedy", build, label="LDP-eps-greedy", privacy="local", reports="real",
    ...     summary="epsilon-greedy on Gaussian-privatised rewards",
    ...     params=(EPS, DELTA, Param("c", "exploration constant", real(0, low_open=True), 5.0)))
    >>> dpbench.simulate("ldp_eps_greedy", "bernoulli", horizon=10**4, reps=2, eps=0.5, check=True)
    """
    what = f"policy {name!r}"
    if rewards not in REWARDS:
        raise ComponentError(f"{what}: rewards must be one of {', '.join(REWARDS)} (got {rewards!r})")
    if privacy not in PRIVACY:
        raise ComponentError(f"{what}: privacy must be one of {', '.join(PRIVACY)} (got {privacy!r})")
    if reports is not None and reports not in OUTPUT_KINDS:
        raise ComponentError(f"{what}: reports must be None or one of {', '.join(OUTPUT_KINDS)} (got {reports!r})")
    module = _caller_module()
    spec = AlgorithmSpec(name=name, label=label or str(name), family=module, summary=summary,
                         source=source or f"plugin {module}", params=_checked_params(what, params),
                         build=build, rewards=rewards, privacy=privacy, module=module, reports=reports)
    return ALGORITHMS.add(spec, replace=replace)


def register_mechanism(name: str, build: Callable[..., Mechanism], *, params: Sequence[Param] = (),
                       summary: str = "", source: str = "", replace: bool = False) -> MechanismSpec:
    """Register a privacy mechanism under ``name``: simulated, sampled and audited from one code.

    The mechanism's component registers one ``privatize(mech, r, public)``: the report of one
    user whose reward is ``r`` (``public`` is 0.0 unless a policy broadcasts a parameter).
    That function is what ``simulate(policy, env, mechanism=name)`` runs for every pull
    (``respond`` defaults to it), what ``dpbench.sampler(name, **params)`` samples and what
    ``dpbench audit name --eps ...`` audits; the code stamp of every run and stored sweep
    cell that uses it covers its code and ``build``, so an edit recompiles and recomputes.

    Parameters
    ----------
    name : str
        The name users pass (``mechanism=name``, ``--mechanism name``, ``dpbench audit name``).
    build : callable
        ``build(**params) -> Mechanism(component, eps=..., delta=..., input_range=(low, high),
        output_kind="real")``: the component with its (eps, delta)-DP claim for one user's
        report, the rewards the claim holds for, and ``output_kind`` "bits" if every report is
        0 or 1.  Plain Python, run once per configuration (calibrate the noise here).
    params : sequence of Param
        The parameters, as for :func:`register_policy`.  In ``simulate`` they are given with the
        policy's; a name both have (e.g. ``eps``) goes to both.
    summary, source : str
        One-line description and the paper it comes from, for ``dpbench list mechanisms``.
    replace : bool
        As for :func:`register_policy`.

    Returns
    -------
    MechanismSpec
        The registered entry (``dpbench.MECHANISMS[name]``).

    Raises
    ------
    ComponentError
        A bad name, a name already taken, or a ``build`` that does not accept ``params``.
        (A ``build`` that returns no :class:`Mechanism`, or one whose component has no
        ``privatize``, fails when it is first built, naming it.)

    Examples
    --------
    Randomised response on a Bernoulli(r) bit (Warner 1965), eps-LDP:

    >>> import math                                                  # doctest: +SKIP
    >>> class RandomisedResponse(NamedTuple):
    ...     keep: float
    >>> @implements(privatize, RandomisedResponse)
    ... def rr_report(mech, r, public):
    ...     bit = 1.0 if np.random.random() < r else 0.0
    ...     return bit if np.random.random() < mech.keep else 1.0 - bit
    >>> def randomised_response(eps):
    ...     keep = math.exp(eps) / (1 + math.exp(eps))
    ...     return Mechanism(RandomisedResponse(keep), eps=eps, input_range=(0, 1), output_kind="bits")
    >>> register_mechanism("rr", randomised_response,
    ...                    params=(Param("eps", "privacy level", real(0, low_open=True)),))
    >>> dpbench.simulate("ldp_ucb_b", "bernoulli", 1000, 2, eps=1.0, mechanism="rr")
    """
    what = f"mechanism {name!r}"
    module = _caller_module()
    spec = MechanismSpec(name=name, summary=summary or f"plugin {module}", source=source or f"plugin {module}",
                         params=_checked_params(what, params), build=build, module=module)
    return MECHANISMS.add(spec, replace=replace)


def register_environment(name: str, build: Callable[..., Instance], *, params: Sequence[Param] = (),
                         summary: str = "", replace: bool = False) -> EnvironmentSpec:
    """Register an environment (reward laws) under ``name``.

    Parameters
    ----------
    name : str
        The name users pass (``simulate(policy, name, ...)``, ``--rewards name``).
    build : callable
        ``build(**params) -> Instance(env, means, reward_low, reward_high)``: the environment
        component (with ``draw`` registered), the true arm means (regret is measured
        on them) and the range of the rewards (``-inf``/``inf`` if unbounded).
    params : sequence of Param
        The parameters (e.g. ``means``), as for :func:`register_policy`.
    summary : str
        One-line description for ``dpbench list``.
    replace : bool
        Replace an environment of the same name registered earlier.

    Returns
    -------
    EnvironmentSpec
        The registered entry.

    Raises
    ------
    ComponentError
        A bad name, a name already taken, or a ``build`` that does not accept the parameters.

    Examples
    --------
    >>> class Coins(NamedTuple):                                     # doctest: +SKIP
    ...     p: np.ndarray
    >>> @implements(draw, Coins)
    ... def coin_draw(env, arm):
    ...     return 1.0 if np.random.random() < env.p[arm] else 0.0
    >>> def coins(means):
    ...     return Instance(Coins(np.asarray(means, dtype=np.float64)), means, 0.0, 1.0)
    >>> register_environment("coins", coins, params=(Param("means", "arm means", vector(0, 1)),))
    >>> dpbench.simulate("ucb1", "coins", 1000, 2, means=[0.9, 0.5])
    """
    what = f"environment {name!r}"
    module = _caller_module()
    spec = EnvironmentSpec(name=name, summary=summary or f"plugin {module}",
                           params=_checked_params(what, params), build=build, module=module)
    return ENVIRONMENTS.add(spec, replace=replace)
