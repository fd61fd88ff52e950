"""Structural checks of the agents (spec ``seed_000_001.md`` section 7, items 8, 9, 12 and 18):
what the agents see, their forced exploration, their arithmetic at extreme eps, their seeds.

* **LDP by construction** (item 8, Definition 2): an agent that sees only its curator's responses
  picks its next arm eps-LDP in each user's reward.  Audited on neighbouring reward tables (one
  reward flipped) at the first decision the flipped reward can change
  (:func:`verify.audit.policy_audit.audit_policy`), reproduced only with power against a
  mechanism 10% above the claim; the negative control (a curator at 3 eps) must be caught.
* **Forced exploration** (item 9, Agent 2): replayed from LDP-UCB-L's own traces, every decision
  with an arm at N_a <= 4 log(t + 1) pulls such an arm (the lowest-indexed), every other one is
  a UCB decision with N_a > 4 log(t + 1) for every arm, as Lemma 3 needs.
* **Numerics** (item 12): beta and c_eps through tanh at eps in {1e-3, 700, 1000}, CTB's
  probabilities in [0, 1], and short runs of the agents there without NaN or infinity.
* **Reproducibility** (item 18): the same seed gives the same regret on one and on two threads,
  and every run of the paper's figures has the paper's repetitions.

Each function is ``fn(claim, evidence)`` returning an :class:`~dpbench.reporting.claims.Outcome`;
:func:`register` adds them to an ``Evidence`` (seed 001 reuses them for its HeLDP agents).
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from dpbench.reporting.claims import Evidence, Exact, NotChecked, Outcome

#: (policy, reward-table pulls per arm, audit options) of the construction audits: LDP-UCB-L's
#: first data-dependent decision comes after its forced pulls (step 28 on two arms), and its
#: next-arm event is rarer, so it needs more samples for power
AUDITS = {"ldp_ucb_b": (8, {}), "ldp_ucb_l": (40, {"n_factor": 2}),
          "heldp_ucb_b": (8, {}), "heldp_ucb_l": (40, {"n_factor": 2})}
#: policy parameters beyond eps: HeLDP-UCB-L's forced arm is drawn at random by default, a draw
#: no reward changes; the lowest-index choice leaves the first random decision to the data
EXTRA = {"heldp_ucb_l": {"forced_choice": "lowest"}}
EXTREME_EPS = (1e-3, 700.0, 1000.0)
MEANS = [0.9, 0.8, 0.7, 0.6, 0.5]


def policy_ldp(claim, ev) -> Outcome:
    """``args.policies`` audited at eps = 1 (their curators at ``args.policy_eps``, default 1);
    ``args.control``: a planted violation that must be caught."""
    from dpbench.reporting.measures import policy_audit_outcome
    args = claim.require("args")
    control = bool(args.get("control", False))
    quick = getattr(ev, "quick", False)
    parts, comps = [], []
    for policy in args["policies"]:
        if policy not in AUDITS:
            raise NotChecked(f"no construction audit for {policy!r} (known: {', '.join(AUDITS)})")
        pulls, options = AUDITS[policy]
        table = np.ones((2, pulls))
        table[1] = 0.0
        params = {"eps": float(args.get("policy_eps", 1.0)), **EXTRA.get(policy, {})}
        out = policy_audit_outcome(policy, table, params, options, control=control, quick=quick)
        parts.append(f"{policy}: {out.statistic}")
        comps += [replace(c, label=f"{policy}: {c.label}") for c in out.comparisons]
    return Outcome("; ".join(parts), comparisons=tuple(comps))


def forced_steps(trace: np.ndarray, k: int) -> tuple[int, int, int, float]:
    """(forced decisions, UCB decisions, violations, smallest N_a - 4 log(t + 1) over the UCB
    decisions) of one LDP-UCB-L trace (pull each arm once, then Agent 2 with t completed pulls)."""
    counts = np.zeros(k)
    forced = ucb = bad = 0
    margin = math.inf
    for t, arm in enumerate(trace):
        if t >= k:
            threshold = 4.0 * math.log(t + 1.0)
            due = np.nonzero(counts <= threshold)[0]
            if due.size:
                forced += 1
                bad += int(arm != due[0])
            else:
                ucb += 1
                margin = min(margin, float(counts.min() - threshold))
        elif arm != t:
            bad += 1
        counts[arm] += 1
    return forced, ucb, bad, margin


def forced_exploration(claim, ev) -> Outcome:
    """Agent 2's forced exploration replayed from LDP-UCB-L's traces (5 arms, eps = 1)."""
    import dpbench
    horizon, reps = (5_000, 2) if getattr(ev, "quick", False) else (20_000, 4)
    res = dpbench.simulate(claim.require("args").get("policy", "ldp_ucb_l"), "bernoulli", horizon, reps, 3,
                           means=MEANS, eps=1.0, trace=True)
    steps = [forced_steps(tr, len(MEANS)) for tr in res.trace]
    forced, ucb, bad = (sum(s[i] for s in steps) for i in range(3))
    margin = min(s[3] for s in steps)
    ok = bad == 0 and ucb > 0 and margin > 0
    return Outcome(f"{reps} traces of T = {horizon:,}: {forced:,} forced and {ucb:,} UCB decisions, {bad} off the "
                   f"rule; smallest N_a - 4 log(t + 1) at a UCB decision {margin:.3g}",
                   comparisons=(Exact(ok, "every decision follows the forced-exploration rule" if ok
                                      else "a decision breaks the forced-exploration rule"),))


def numerics(claim, ev) -> Outcome:
    """beta, c_eps and CTB's probabilities at extreme eps, and short runs there of ``args.policies``
    (default LDP-UCB-B and -L)."""
    import dpbench
    from dpbench.mechanisms.ldp_curators import ctb_probability

    from .factors import beta, c_eps
    policies = tuple((claim.get("args") or {}).get("policies", ("ldp_ucb_b", "ldp_ucb_l")))
    shown, ok = [], True
    for eps in EXTREME_EPS:
        b, c = beta(eps), c_eps(eps)
        expect_b = 4 / eps ** 2 + 2 / 3 if eps < 0.01 else 1.0
        probs = [ctb_probability(r, eps) for r in (0.0, 0.5, 1.0)]
        fine = (math.isfinite(b) and math.isfinite(c) and math.isclose(b, expect_b, rel_tol=1e-6)
                and all(0.0 <= p <= 1.0 for p in probs))
        for policy in policies:
            res = dpbench.simulate(policy, "bernoulli", 2_000, 2, 5, means=MEANS, eps=eps)
            fine &= bool(np.isfinite(res.regret).all())
        shown.append(f"eps={eps:g}: beta {b:.6g}, c_eps {c:.6g}, P[1 | r = 0, 1/2, 1] = "
                     + ", ".join(f"{p:.3g}" for p in probs))
        ok &= fine
    runs = f"runs of {', '.join(policies)} at each eps: {'finite' if ok else 'NOT finite'}"
    return Outcome("; ".join(shown) + "; " + runs,
                   comparisons=(Exact(ok, "finite and right at every extreme eps" if ok else "not"),))


def reproducible(claim, ev) -> Outcome:
    """The same seed on one and on two threads gives the same regret, bit for bit; and every run
    of this report's paper figures has at least the paper's repetitions (``paper_reps``).

    Inconclusive where a half cannot be tested: on a machine (or CPU affinity) with one thread, and
    in a smoke build, whose runs have fewer repetitions than the paper's by design."""
    import numba

    import dpbench
    shown, same = [], True
    threads = numba.config.NUMBA_NUM_THREADS   # type: ignore[attr-defined]
    for policy in ("ucb1", "ldp_ucb_b", "ldp_ucb_l") if threads >= 2 else ():
        one, two = (dpbench.simulate(policy, "bernoulli", 5_000, 4, 9, means=MEANS, threads=n,
                                     **({} if policy == "ucb1" else {"eps": 1.0})) for n in (1, 2))
        ok = bool(np.array_equal(one.regret, two.regret))
        shown.append(f"{policy}: {'identical' if ok else 'differ'}")
        same &= ok
    short = sorted({f"{name} ({r.reps} < {run.experiment.paper_reps})" for name, run in ev.runs.items()
                    if getattr(run.experiment, "paper_reps", None)
                    for r in run.results.values() if r.reps < run.experiment.paper_reps})
    figures = sum(1 for run in ev.runs.values() if getattr(run.experiment, "paper_reps", None))
    quick = getattr(ev, "quick", False)
    untested = []
    if threads < 2:
        untested.append(f"this machine gives numba one thread (NUMBA_NUM_THREADS = {threads}, from the CPU "
                        f"affinity or the environment): 1 and 2 threads not compared; rerun with NUMBA_NUM_THREADS=2")
    if quick and short:
        untested.append("a smoke build runs fewer repetitions than the paper's by design: the full build decides "
                        "that half")
    text = ((f"seed 9 on 1 and 2 threads: {', '.join(shown)}" if shown else "threads not compared")
            + f"; {figures} experiments state the paper's repetitions"
            + (f"; fewer here: {', '.join(short)}" if short else ", every run has at least as many"))
    comps = [Exact(same, "the same numbers on 1 and 2 threads" if same else "not reproducible")] if shown else []
    if figures and not quick:
        comps.append(Exact(not short and figures > 0, "the paper's repetitions in every run" if not short
                           else "fewer repetitions than the paper's"))
    if untested and not comps:
        raise NotChecked("; ".join(untested))
    if untested and same:                   # a difference seen is decided as it is
        return Outcome(text, comparisons=tuple(comps), degenerate="; ".join(untested))
    return Outcome(text, comparisons=tuple(comps))


def register(ev: Evidence) -> Evidence:
    for fn in (policy_ldp, forced_exploration, numerics, reproducible):
        ev.measure(fn.__name__, fn)
    return ev


__all__ = ["register", "policy_ldp", "forced_exploration", "forced_steps", "numerics", "reproducible", "AUDITS"]
