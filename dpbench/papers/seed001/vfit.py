"""Fig. 2 of seed 001: the regret of the 16 HeLDP configurations against V.

v001 Sec. 4.2 defines ``V_L := E[(1 + 4 sqrt(alpha(eps_t)))^2 / p0]`` and ``V_B := E[beta(eps_t) /
p0]`` (the leading factors of Theorems 7 and 10) and fits the empirical regret linearly on V
(V_L for HeLDP-UCB-L points, V_B for HeLDP-UCB-B points), pooled over both agents and both
eps_t laws: R^2 = 0.9977.  The expectations are conditional on eps_t >= eps_min (spec R17;
unconditionally they are infinite); ``alternative`` reads V_L as (1 + 4 sqrt(alpha0))^2 / p0
(Theorem 7's leading term with kappa -> 0).  Every HeLDP run carries V_L, V_L' and V_B in its
``info`` (:func:`dpbench.mechanisms.privacy_levels.level_statistics`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpbench.validation import InputError


def heldp_v(result, alternative: bool = False) -> float:
    """V of a HeLDP run: V_L (V_L' with ``alternative``) for an L agent, V_B for a B agent."""
    info = getattr(result, "info", {}) or {}
    policy = str(getattr(result, "policy", ""))
    key = "V_B" if policy.endswith(("_b", "_bs")) else ("V_L_alt" if alternative else "V_L")
    if key not in info:
        raise InputError(f"result of {policy!r} carries no {key} in its info (not a HeLDP run?)")
    return float(info[key])


@dataclass(frozen=True)
class VFit:
    """The OLS of the runs' mean regrets on V: R^2, slope, intercept, the points, R^2 per agent."""
    r_squared: float
    slope: float
    intercept: float
    v: np.ndarray
    means: np.ndarray
    per_policy: dict


def r_squared(v: np.ndarray, means) -> np.ndarray:
    """R^2 of the OLS of ``means`` (last axis: the points; leading axes: bootstrap resamples) on ``v``."""
    m = np.asarray(means, dtype=float)
    mc, vc = m - m.mean(axis=-1, keepdims=True), v - v.mean()
    return (mc @ vc) ** 2 / (np.sum(mc * mc, axis=-1) * float(vc @ vc))


def v_regression(results: Sequence, *, alternative: bool = False) -> VFit:
    """The pooled fit of the runs' mean final regrets (``final_regrets``) on V, and per agent."""
    results = list(results)
    if len(results) < 3:
        raise InputError(f"a regression on V needs at least 3 runs (got {len(results)})")
    v = np.array([heldp_v(r, alternative) for r in results])
    means = np.array([float(np.mean(r.final_regrets)) for r in results])
    slope, intercept = np.polyfit(v, means, 1)
    per = {}
    for policy in dict.fromkeys(r.policy for r in results):
        idx = [i for i, r in enumerate(results) if r.policy == policy]
        per[policy] = float(r_squared(v[idx], means[idx])) if len(idx) >= 3 else None
    return VFit(float(r_squared(v, means)), float(slope), float(intercept), v, means, per)


def r2_estimate(points, alternative: bool = False):
    """R^2 of the pooled fit with its bootstrap standard error over each run's repetitions (an
    :class:`~verify.inference.Estimate`)."""
    from dpbench.reporting.measures import estimate
    v = np.array([heldp_v(r, alternative) for r in points])

    def r2(*samples, axis=-1):
        return r_squared(v, np.stack([np.mean(y, axis=axis) for y in samples], axis=-1))
    return estimate([np.asarray(r.final_regrets, dtype=float) for r in points], r2)


__all__ = ["heldp_v", "VFit", "v_regression", "r_squared", "r2_estimate"]
