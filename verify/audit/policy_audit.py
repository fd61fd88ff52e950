"""Algorithm-level audits: a bandit policy on a fixed reward history is a mechanism.

The input is a reward table (arm a's j-th pull returns ``table[a, j]``, replayed
by ``dpbench.environments.replay``); neighbouring tables differ in one reward.
The engine's one simulation loop runs the policy for ``horizon`` pulls, one
repetition per output, and the output is

* ``"next_arm"``: the arm pulled at ``step`` (0-based) -- per-step DP, seed 002
  Definition 1.  The history before ``step`` must be the same fixed arm sequence
  under both tables (Def. 1 conditions on it); by default ``step`` is the first
  decision that is random (the end of a start phase or of the initial round);
* ``"actions"``: the whole action sequence of length ``horizon`` -- global DP,
  seed 002 Definition 3, with a deterministic one-step revision rule (a
  fixed-table audit: stronger than Def. 3, which averages over the rewards);
* ``"exploit"``: (first step of the final run of identical actions, its arm) --
  the exploitation decision of an elimination policy such as GDP-Elim-New, a
  post-processing of the action sequence.

LDP policies (LDP-UCB-*) include their curator: each raw reward goes through
CTL/CTB inside the loop, so a policy audit checks the end-to-end guarantee
w.r.t. one user's raw reward.
"""
from __future__ import annotations

import numpy as np

from dpbench.engine.catalog import ALGORITHMS, Built, validate_params
from dpbench.engine.kernel import simulate_kernel
from dpbench.environments import replay as replay_env
from dpbench.validation import InputError, check_int

from .engine import audit
from .result import AuditResult

OUTPUTS = ("next_arm", "actions", "exploit")
#: repetitions per engine call (bounds the trace memory to REPS_PER_CALL x horizon)
REPS_PER_CALL = 1 << 15


def _builder(policy, params):
    """(label, build(instance, horizon) -> Built) for a catalog name or a callable/Built."""
    if isinstance(policy, str):
        spec = ALGORITHMS.get_spec(policy)
        checked = validate_params(f"policy {spec.name!r}", spec.params, params)
        return spec.label, lambda instance, horizon: spec.build(instance, horizon, **checked)
    if params:
        raise InputError(f"policy parameters {sorted(params)} given with a pre-built policy")
    if isinstance(policy, Built):
        return type(policy.policy).__name__, lambda instance, horizon: policy
    if callable(policy):
        return getattr(policy, "__name__", "policy"), policy
    raise InputError(f"policy must be a catalog name, a Built or build(instance, horizon) (got {policy!r})")


def run_traces(build, table: np.ndarray, horizon: int, n: int, seed: int) -> np.ndarray:
    """(n, horizon) action sequences of the policy replaying ``table`` (engine loop)."""
    instance = replay_env.replay(table, horizon)
    built = build(instance, horizon)
    env = instance.env
    gaps = instance.gaps
    checkpoints = np.array([horizon], dtype=np.int64)
    seeds = np.random.SeedSequence(seed).generate_state(n, dtype=np.uint32)
    out = np.empty((n, horizon), dtype=np.int64)
    for first in range(0, n, REPS_PER_CALL):
        count = min(REPS_PER_CALL, n - first)
        replay_env.reset(env)
        simulate_kernel(built.policy, built.mechanism, env, gaps, np.int64(horizon), seeds[first:first + count],
                        checkpoints, np.zeros((count, 1)), np.zeros((count, instance.k), np.int64),
                        out[first:first + count])
        replay_env.check_consumed(env)
    return out


def _exploit(traces: np.ndarray) -> np.ndarray:
    """(start of the final run of identical actions, that action) per trace."""
    last = traces[:, -1:]
    same = traces == last
    # index after the last position that differs from the final action
    differs = ~same
    any_diff = differs.any(axis=1)
    last_diff = traces.shape[1] - 1 - np.argmax(differs[:, ::-1], axis=1)
    start = np.where(any_diff, last_diff + 1, 0)
    return np.column_stack([start, traces[:, -1]]).astype(np.float64)


def policy_mechanism(policy, *, arms: int, pulls: int, horizon: int, output: str = "next_arm",
                     step: int | None = None, **params):
    """Wrap a policy replaying a reward table as an auditable mechanism.

    ``mechanism(table, n, seed)``: outputs of ``policy`` replaying the (arms x pulls) table
    (given flattened or 2-d).  See the module docstring for ``output`` and ``step``.
    """
    if output not in OUTPUTS:
        raise InputError(f"unknown output {output!r}; allowed values: {', '.join(OUTPUTS)}")
    arms = check_int("arms", arms, low=2)
    pulls = check_int("pulls", pulls, low=1)
    horizon = check_int("horizon", horizon, low=1)
    if output == "next_arm":
        step = horizon - 1 if step is None else check_int("step", step, low=0, high=horizon - 1)
    label, build = _builder(policy, params)

    def mechanism(table, n, seed):
        table = np.asarray(table, dtype=np.float64).reshape(arms, pulls)
        traces = run_traces(build, table, horizon, n, seed)
        if output == "next_arm":
            return traces[:, step].astype(np.float64)
        if output == "exploit":
            return _exploit(traces)
        return traces.astype(np.float64)

    mechanism.__name__ = mechanism.name = f"{label} ({output}{'' if step is None else f' at step {step}'})"
    mechanism.output = output
    mechanism.step = step
    mechanism.build = build
    return mechanism


def first_random_step(build, tables, horizon: int, probe: int = 512, seed: int = 0) -> int:
    """Return the first step whose arm is random.

    The first step (< horizon) whose arm is not the same in every probe run, under every
    table; InputError if the arm sequences before it differ between the tables.  The probe
    pads the rows (repeating their last reward) so that no arm runs out: rewards past the
    end of a row are read only after the decision that matters, or the audit itself fails.
    """
    pad = max(0, horizon - tables[0].shape[1])
    runs = [run_traces(build, np.pad(t, ((0, 0), (0, pad)), mode="edge"), horizon, probe, seed)
            for t in tables]
    varies = np.zeros(horizon, dtype=bool)
    for tr in runs:
        varies |= (tr != tr[0]).any(axis=0)
    if not varies.any():
        raise InputError(f"every one of {probe} probe runs pulled the same arms for {horizon} steps: "
                         "no random decision to audit (give a longer table or the step)")
    step = int(np.argmax(varies))
    for tr in runs[1:]:
        if not np.array_equal(tr[0, :step], runs[0][0, :step]):
            raise InputError("the arm sequences before the first random decision differ between the "
                             "two reward tables, so they are not neighbouring histories of Definition 1")
    return step


def flip_one(table, arm: int = 0, pull: int = 0) -> np.ndarray:
    """Return the neighbouring table: reward (arm, pull) replaced by 1 - reward (rewards in [0, 1])."""
    out = np.array(table, dtype=np.float64, copy=True)
    out[arm, pull] = 1.0 - out[arm, pull]
    return out


#: runs of a policy audit given neither n nor a budget: a sequential audit within this many runs
POLICY_BUDGET = 500_000


def audit_policy(policy, table, table_prime=None, *, eps, delta=0.0, output: str = "next_arm",
                 step: int | None = None, horizon: int | None = None, flip=(0, 0), n: int | None = None,
                 alpha: float = 0.05, seed: int = 0, policy_params: dict | None = None, budget=None,
                 **audit_kwargs) -> AuditResult:
    """Audit ``policy`` (catalog name, ``Built`` or build function) on a reward table.

    Parameters
    ----------
    policy : str, Built or callable
        A catalog policy name, a built policy, or ``build(instance, horizon, **params)``.
    table, table_prime : array_like
        Neighbouring (arms x pulls) reward tables: arm a's j-th pull returns ``table[a, j]``.
        ``table_prime`` defaults to ``table`` with the reward at ``flip`` replaced by
        1 - reward.
    eps, delta : float
        The claim, keyword-only (``delta`` default 0).
    output : {"next_arm", "actions", "exploit"}
        What the audit observes (see the module docstring).
    step : int, optional
        With ``output="next_arm"``: the step observed; default the first random decision
        (found by probe runs, with ``horizon`` = that step + 1).
    horizon : int, optional
        Pulls per run; required for the other outputs.
    flip : (int, int)
        (arm, pull) of the reward that differs, when ``table_prime`` is not given.
    n, alpha, seed : int, float, int
        As for :func:`verify.audit.audit`: ``n`` runs per table certify at once, after selection
        and refinement runs of their own.
    budget : str or number, optional
        Audit sequentially within this many runs (both tables, every stage) or seconds
        (:func:`verify.audit.audit`'s ``budget``): every round's runs are evidence first and the
        ground the next events are chosen on afterwards, and the audit stops as soon as a violation
        is certified -- a run is a whole simulation, so it is spent where it buys the most.  Default
        (neither ``n`` nor ``budget``): POLICY_BUDGET runs.
    policy_params : dict, optional
        The policy's parameters (with a catalog name).
    **audit_kwargs
        Other keywords of :func:`verify.audit.audit`.

    Returns
    -------
    AuditResult
        The audit's result, with the policy, step and flip recorded in ``info``.

    Examples
    --------
    >>> import numpy as np
    >>> from verify.audit import audit_policy
    >>> table = np.tile([[1.0], [0.0]], (1, 50))
    >>> res = audit_policy("ldp_ucb_b", table, eps=1.0, policy_params={"eps": 1.0})  # doctest: +SKIP
    >>> res.violated                                                               # doctest: +SKIP
    False
    """
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2:
        raise InputError(f"table must be a 2-d array (arms x pulls) (got shape {table.shape})")
    if table_prime is None:
        if not (isinstance(flip, (tuple, list)) and len(flip) == 2):
            raise InputError(f"flip must be (arm, pull), the reward to flip (got {flip!r})")
        check_int("flip arm", flip[0], low=0, high=table.shape[0] - 1)
        check_int("flip pull", flip[1], low=0, high=table.shape[1] - 1)
        table_prime = flip_one(table, *flip)
    else:
        table_prime = np.asarray(table_prime, np.float64)
    if table_prime.shape != table.shape:
        raise InputError(f"table_prime must have the shape of table {table.shape} (got {table_prime.shape})")
    if np.count_nonzero(table != table_prime) != 1:
        raise InputError("neighbouring reward tables must differ in exactly one reward")
    arms, pulls = table.shape
    _, build = _builder(policy, dict(policy_params or {}))
    if output == "next_arm":
        if step is None:
            probe_h = check_int("horizon", horizon or arms * pulls, low=1)
            step = first_random_step(build, [table, table_prime], probe_h)
        horizon = step + 1 if horizon is None else horizon
    elif horizon is None:
        raise InputError(f"horizon is required for output={output!r}")
    mech = policy_mechanism(policy, arms=arms, pulls=pulls, horizon=horizon, output=output, step=step,
                            **dict(policy_params or {}))
    if budget is None and n is None and not {"n_select", "n_refine"} & set(audit_kwargs):
        budget = POLICY_BUDGET
    result = audit(mech, table.ravel(), table_prime.ravel(), eps=eps, delta=delta, n=n, alpha=alpha,
                   seed=seed, budget=budget, **audit_kwargs)
    changed = np.argwhere(table != table_prime)[0]
    result.info.update(policy=policy if isinstance(policy, str) else mech.__name__, output=output,
                       step=step, horizon=horizon, table_shape=[arms, pulls],
                       changed_reward={"arm": int(changed[0]), "pull": int(changed[1]),
                                       "from": float(table[tuple(changed)]),
                                       "to": float(table_prime[tuple(changed)])})
    return result


def gdp_elim_short_phases(eps: float, delta: float, pulls=(2, 4, 8, 16, 32)):
    """Build GDP-Elim-New with short phases (spec check C13).

    A GDP-Elim-New builder with short phases N(k) (spec check C13's test variant: the
    privacy argument does not depend on the N(k) formula), so that the exploitation decision
    comes within a few dozen pulls; ``eps`` sets the Lemma 15 perturbation's level.
    """
    from dpbench.mechanisms.bernoulli_trick import bernoulli_observations
    from dpbench.policies.gdp_elim import GDPElimNew
    pulls = np.array(pulls, dtype=np.int64)
    gaps = 0.5 ** np.arange(1, pulls.size + 1)

    def build(instance, horizon):
        policy = GDPElimNew(float(eps), 0.5 * delta, pulls, gaps, False)
        return Built(policy, bernoulli_observations(instance))
    build.__name__ = f"GDP-Elim-New (phases {list(pulls)}, law at eps={eps:g})"
    return build
