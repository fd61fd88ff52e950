"""A claim at a horizon the paper does not state: ``horizon_range = [lo, hi]``.

A paper that reads numbers off a figure without saying where the figure ends leaves its horizon
open.  A reading can say so: the claim is about the paper's horizon, somewhere among the
checkpoints of its runs in ``[lo, hi]``, and which one is not known.  What decides then depends on
what the claim is:

* a **number read off the figure** (a two-sided ``ratio`` with ``expected``, a paper's R^2: the
  number itself pins the horizon): it is matched if it is matched at one checkpoint.  The
  checkpoint whose interval lies deepest inside the band (in standard errors) decides, chosen
  among all of them (decided at alpha / (m x checkpoints)); inside there reproduces it, and
  outside there means outside at every checkpoint, which contradicts it.
* a **shape or an ordering** (it must hold at the paper's horizon, whichever it is): it is
  reproduced only if it holds at every checkpoint, so the weakest checkpoint decides for it (and
  cannot contradict on its own: the paper's horizon may be another); it is contradicted only if it
  fails at every checkpoint, so the strongest checkpoint decides against it.

Every checkpoint in the range is a horizon the claim is about: a run still round-robin there is
compared as the paper's figure would show it (the unobservable mark is waived, and shown).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np
from scipy import stats

from ...validation import InputError
from ..markdown import fmt_t
from .comparisons import Check, Exact, Hypothesis
from .model import Claim, NotChecked

#: the claim key (top level, or in ``args`` of a computed claim) of an unstated horizon
KEY = "horizon_range"


def check_range(value, where: str) -> tuple[float, float]:
    """``[lo, hi]`` with 1 <= lo < hi, or :class:`InputError` naming ``where``."""
    ok = (isinstance(value, (list, tuple)) and len(value) == 2
          and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value))
    if not ok or not 1 <= value[0] < value[1]:
        raise InputError(f"{where}: key {KEY!r} must be [lo, hi] with 1 <= lo < hi (the horizons between which the "
                         f"paper's unstated horizon lies; got {value!r})")
    return float(value[0]), float(value[1])


def range_of(claim: Claim) -> tuple[float, float] | None:
    """The claim's ``horizon_range`` (top level or in ``args``), or None."""
    args = claim.params.get("args") if isinstance(claim.params.get("args"), Mapping) else {}
    value = claim.params.get(KEY, args.get(KEY))
    return None if value is None else check_range(value, f"claim {claim.id!r}")


def checkpoints_in(results, low: float, high: float) -> list[int]:
    """The checkpoints every one of ``results`` has in [low, high] (NotChecked if none)."""
    common = None
    for r in results:
        cps = {int(c) for c in r.checkpoints if low <= c <= high}
        common = cps if common is None else common & cps
    if not common:
        raise NotChecked(f"no common checkpoint in [{fmt_t(low)}, {fmt_t(high)}]")
    return sorted(common)


def depth(c) -> float:
    """How far a comparison is on the claim's side, in standard errors (negative: against it)."""
    if isinstance(c, Exact):
        return math.inf if c.holds else -math.inf
    if isinstance(c, Hypothesis):
        p = c.p_value if c.supports else 1.0 - c.p_value
        return float(stats.norm.isf(min(max(p, 1e-300), 1 - 1e-16)))
    est = c.estimate
    if c.degenerate or est.degenerate or not math.isfinite(est.value):
        return math.nan
    room = min(est.value - c.low, c.high - est.value)
    se = math.hypot(est.se, c.reference_se) if math.isfinite(est.se) else math.nan
    if se == 0:
        return math.copysign(math.inf, room) if room else 0.0
    return room / se


def _at(c, t: int, role: str):
    """The comparison labelled with its checkpoint and role; its unobservable mark waived (every
    checkpoint of the range is a horizon the claim is about)."""
    label = f"{c.label} at T = {fmt_t(t)} ({role})"
    u = c.unobservable
    return replace(c, label=label, unobservable=None if u is None else replace(u, waived=True))


def over_horizons(make: Callable[[int], object], horizons: Sequence[int], *, exists: bool) -> tuple:
    """The comparisons that decide a claim at an unstated horizon among ``horizons`` (module
    docstring): ``make(t)`` is the comparison at checkpoint t.  ``exists``: a number read off the
    figure (matched at one checkpoint); else a shape or ordering (must hold at every one)."""
    horizons = list(horizons)
    found = [(t, make(t)) for t in horizons]
    depths = np.array([depth(c) for _, c in found])
    if np.all(np.isnan(depths)):
        t, c = found[-1]
        return (_at(c, t, f"no checkpoint of {len(found)} decides"),)
    filled = np.where(np.isnan(depths), -np.inf, depths)
    best = int(np.argmax(filled))
    n = len(found)
    t, c = found[best]
    if exists:
        out = _at(c, t, f"deepest inside of {n} checkpoints in [{fmt_t(horizons[0])}, {fmt_t(horizons[-1])}]")
        return (replace(out, looks=n) if isinstance(out, Check) else out,)
    worst = int(np.argmin(np.where(np.isnan(depths), np.inf, depths)))
    strongest = _at(c, t, f"the strongest of {n} checkpoints: against the claim only if all are")
    if worst == best or n == 1:
        return (strongest,)
    tw, cw = found[worst]
    weakest = _at(cw, tw, f"the weakest of {n} checkpoints: for the claim only if all are")
    return (replace(weakest, can_contradict=False), strongest)


__all__ = ["KEY", "check_range", "range_of", "checkpoints_in", "depth", "over_horizons"]
