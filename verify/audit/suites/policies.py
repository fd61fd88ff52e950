"""Whole bandit policies audited as mechanisms (:func:`verify.audit_policy`): reports/audit_policies.md.

A run of a policy is a whole simulation, so the table puts side by side what a fixed number of
runs certifies (selection, refinement and certification runs of their own, ``n`` per table) and
what the sequential audit certifies within the same runs (every round's runs are evidence first and
the ground the next events are chosen on afterwards; a violation stops it at once).  Each policy is
audited at its own claim on one pair of neighbouring reward tables; the negative controls must be
caught.  ``ceiling`` is the policy's exact eps at the claimed delta where it is computed: no valid
lower bound exceeds it (DP-FTPL-Gauss's next arm is a post-processing of one Gaussian draw per arm,
``theta ~ N(R/N, v/N)`` on a lattice, of which the flipped reward moves one by 1/N: the exact delta
of that lattice draw, ``gauss_lattice_delta``, bounds the step's privacy; LDP-UCB-B's next arm at
its first random step is a CTB bit, of ratio exactly e^eps).

``dpbench audit-suite --policies`` writes the report.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..policy_audit import audit_policy, gdp_elim_short_phases

#: runs per table that certify in the fixed-n audits, and their level
POLICY_N, POLICY_ALPHA = 100_000, 0.05


@dataclass
class PolicyCase:
    """One policy audit: the policy (catalog name or builder), its parameters, the tables and what is
    observed, the claim, whether it is a negative control (its claim must be rejected), the exact eps
    at the claimed delta where known (None: not computed), and whether it is local DP."""

    name: str
    policy: object
    table: np.ndarray
    eps: float
    delta: float
    params: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    control: bool = False
    ceiling: float | None = None
    local: bool = False


def dp_ftpl_gauss_ceiling(eps: float, delta: float, v: float = 2.0) -> float:
    """The exact per-step eps at ``delta`` of DP-FTPL-Gauss after its start phase: that of one lattice
    draw N(R/N, v/N) whose mean a flipped reward moves by 1/N, N the start phase's pulls per arm."""
    from scipy.optimize import brentq

    from dpbench.mechanisms.perturbations import gauss_start_phase
    from dpbench.mechanisms.perturbations.gaussian import gauss_lattice_delta
    pulls = math.ceil(gauss_start_phase(eps, delta))
    return float(brentq(lambda e: gauss_lattice_delta(e, pulls, v) - delta, 0.0, 50.0))


def cases() -> list[PolicyCase]:
    """The policies of the report: central-DP (DP-FTPL-Gauss, DP-FTPL-New, GDP-Elim-New), local DP
    (LDP-UCB-B) and two negative controls."""
    mixed = np.ones((3, 4))
    mixed[2] = 0.0
    bits = np.tile([[1.0], [0.0]], (1, 8))
    elim = (np.random.default_rng(0).random((2, 40)) < np.array([[0.9], [0.2]])).astype(float)
    gauss = {"eps": 1.0, "delta": 0.01}
    return [
        PolicyCase("DP-FTPL-Gauss, next arm", "dp_ftpl_gauss", np.ones((10, 16)), 1.0, 0.01, gauss,
                   ceiling=dp_ftpl_gauss_ceiling(1.0, 0.01)),
        PolicyCase("DP-FTPL-New, next arm", "dp_ftpl_new", mixed, 1.0, 0.01, gauss, {"flip": (2, 0)}),
        PolicyCase("GDP-Elim-New (short phases), exploitation decision", gdp_elim_short_phases(1.0, 0.1), elim,
                   1.0, 0.1, options={"output": "exploit", "horizon": 30}),
        PolicyCase("LDP-UCB-B (local), next arm", "ldp_ucb_b", bits, 1.0, 0.0, {"eps": 1.0}, ceiling=1.0, local=True),
        PolicyCase("control: DP-FTPL-Gauss without its start phase", "dp_ftpl_gauss", np.ones((10, 16)), 1.0, 0.01,
                   {**gauss, "start_pulls": 1}, control=True),
        PolicyCase("control: GDP-Elim-New, perturbation at eps = 4", gdp_elim_short_phases(4.0, 0.1), elim, 1.0, 0.1,
                   options={"output": "exploit", "horizon": 30}, control=True),
    ]


def run(case: PolicyCase, seed: int = 0) -> tuple:
    """(fixed-n result, sequential result within the runs the fixed-n audit drew, their seconds)."""
    kw = dict(eps=case.eps, delta=case.delta, alpha=POLICY_ALPHA, seed=seed, policy_params=case.params or None,
              **case.options)
    t0 = time.perf_counter()
    fixed = audit_policy(case.policy, case.table, n=POLICY_N, **kw)
    t1 = time.perf_counter()
    sequential = audit_policy(case.policy, case.table, budget=fixed.n_samples, **kw)
    return fixed, sequential, t1 - t0, time.perf_counter() - t1


def _bound(res, case: PolicyCase) -> str:
    if not res.law.tested:
        return "not tested"
    text = f"{res.law.eps_lower_bound:.4f} ({res.law.eps_lower_bound / case.eps:.2f} of the claim)"
    return ("**VIOLATED** " if res.law.violated else "holds, ") + text


def report(rows, seed: int, command: str) -> str:
    """The markdown report of :func:`run`'s rows [(case, fixed, sequential, seconds, seconds)]."""
    lines = ["# Policy audits: whole bandit policies as mechanisms", "",
             f"Regenerate with `{command}`.", "",
             "Each policy replays a fixed reward table (`verify.audit_policy`; arm a's j-th pull returns "
             "table[a, j]) and its neighbour (one reward flipped), at its own claim; the output is the arm at "
             "the first random decision (per-step DP, seed 002 Def. 1) or GDP-Elim-New's exploitation decision "
             f"(global DP, Def. 3). alpha = {POLICY_ALPHA}, seed {seed}. `fixed n`: n = {POLICY_N:,} runs per "
             "table certify, after selection and refinement runs of their own; `sequential`: a budget of the same "
             "runs, in rounds that choose their events on the runs before them and bet on fresh ones (stopping "
             "at the first certified violation). `runs`: simulations drawn in all (both tables, every stage). "
             "`ceiling`: the policy's exact eps at the claimed delta on its worst table, where computed (no "
             "valid lower bound exceeds it; `verify.audit.suites.policies`). Seconds were measured on a "
             "shared 2-core machine.", "",
             "| policy | claim | step | ceiling | fixed n: eps_LB | runs | s | sequential: eps_LB | runs | s | "
             "event (fixed n) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for case, fixed, seq, t_fixed, t_seq in rows:
        step = fixed.info.get("step")
        ceiling = "" if case.ceiling is None else f"{case.ceiling:.4f}"
        lines.append(f"| {case.name} | ({case.eps:g}, {case.delta:g}) | {'' if step is None else step} | {ceiling} | "
                     f"{_bound(fixed, case)} | {fixed.n_samples:,} | {t_fixed:.0f} | {_bound(seq, case)} | "
                     f"{seq.n_samples:,} | {t_seq:.0f} | {(fixed.witness or {}).get('event', '')} |")
    central = [(case, fixed) for case, fixed, *_ in rows if not case.control and not case.local]
    best = max(central, key=lambda r: r[1].law.eps_lower_bound / r[0].eps, default=None)
    lines += [""]
    if best is not None:
        case, fixed = best
        lines.append(f"Best central-DP bound at its claim: {case.name}, eps_LB = {fixed.law.eps_lower_bound:.4f}, "
                     f"{fixed.law.eps_lower_bound / case.eps:.2f} of the claim, with {fixed.n_samples:,} runs.")
    for case, fixed, seq, *_ in rows:
        if case.ceiling is not None and not case.control and case.ceiling < 0.5 * case.eps:
            lines.append(f"{case.name}: its exact eps at the claim is {case.ceiling:.4f} "
                         f"({case.ceiling / case.eps:.2f} of the claim), so no audit certifies half the claim; "
                         f"the fixed-n bound reaches {fixed.law.eps_lower_bound / case.ceiling:.2f} of that "
                         f"ceiling, the sequential one {seq.law.eps_lower_bound / case.ceiling:.2f}.")
    for case, fixed, seq, *_ in rows:
        for how, res in (("fixed-n", fixed), ("sequential", seq)):
            if case.ceiling is not None and not case.control and res.law.eps_lower_bound > case.ceiling:
                then = ("hence VIOLATED at its claim: a false positive, not a bug of the policy" if res.violated
                        else "its claim still holds")
                lines.append(f"{case.name}: the {how} bound {res.law.eps_lower_bound:.4f} is above the policy's "
                             f"exact eps {case.ceiling:.4f}, a false statement, which an audit at alpha = "
                             f"{POLICY_ALPHA} makes with probability at most {POLICY_ALPHA} per row (about that often "
                             f"on a policy whose best event attains its exact eps, as this one's does); "
                             f"{then}.")
    caught = [(case, seq) for case, _, seq, *_ in rows if case.control]
    for case, seq in caught:
        lines.append(f"{case.name}: the sequential audit {'caught it' if seq.violated else 'did not catch it'} "
                     f"with {seq.n_samples:,} runs.")
    return "\n".join(lines) + "\n"


def write(out, seed: int = 0, command: str = "dpbench audit-suite --policies") -> tuple[float, float]:
    """Audit every case and write the report to ``out``; (wall, CPU) seconds."""
    from pathlib import Path

    from .report import provenance_line
    t0, c0 = time.perf_counter(), time.process_time()
    rows = []
    for case in cases():
        fixed, seq, t_fixed, t_seq = run(case, seed)
        print(f"{case.name:55s} fixed {fixed.law.eps_lower_bound:.4f} ({fixed.n_samples:,} runs)  sequential "
              f"{seq.law.eps_lower_bound:.4f} ({seq.n_samples:,} runs, {seq.status})", flush=True)
        rows.append((case, fixed, seq, t_fixed, t_seq))
    Path(out).write_text(report(rows, seed, command) + "\n" + provenance_line(command) + "\n")
    return time.perf_counter() - t0, time.process_time() - c0
