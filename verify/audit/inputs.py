"""Neighbouring input pairs from the standard patterns (StatDP, Ding et al. CCS'18;
DP-Sniper's ``PatternGenerator``), used when only an input domain is given.

Base input: all ones.  Neighbours: one above / one below (one entry changed by
1) and, under the component-wise neighbourhood (every entry may change by up to
1, e.g. queries of sensitivity 1), one above rest below, one below rest above,
half-half, all above, all below, and the X shape.  Values are clipped to the
domain.  For a *local* randomiser every two inputs are neighbours, so the
extremes (low vs high; -50 vs 50 on an unbounded line, where sigmoid-type maps
saturate) and the symmetric pair -1 vs 1 (clipped to the domain) are added.  The audit tests both
directions of every pair, so swapped copies are not listed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpbench.validation import InputError, check_int, check_real


@dataclass(frozen=True)
class Domain:
    """``dim`` inputs in [low, high] (``integer``: integers only).  ``componentwise``:
    neighbours may differ in every entry by up to 1 (else in one entry).  ``local``:
    any two inputs are neighbours (local randomisers)."""
    dim: int = 1
    low: float = -math.inf
    high: float = math.inf
    integer: bool = False
    componentwise: bool = False
    local: bool = False

    def __post_init__(self):
        check_int("domain dim", self.dim, low=1)
        low = check_real("domain low", self.low, allow_inf=True)
        high = check_real("domain high", self.high, allow_inf=True)
        if not low < high:
            raise InputError(f"domain low must be < high (got [{low}, {high}])")


def _clip(domain: Domain, a) -> np.ndarray:
    a = np.clip(np.asarray(a, dtype=np.float64), domain.low, domain.high)
    return np.round(a) if domain.integer else a


def pattern_pairs(domain: Domain) -> list[tuple[np.ndarray, np.ndarray]]:
    """The distinct input pairs (x, x') of the standard patterns inside ``domain``."""
    d = domain.dim
    h = d // 2
    ones = np.ones(d)
    raw = [(ones, np.array([0.0] + [1.0] * (d - 1))),          # one above
           (ones, np.array([2.0] + [1.0] * (d - 1)))]          # one below
    if domain.componentwise and d > 1:
        raw += [(ones, np.array([2.0] + [0.0] * (d - 1))),     # one above, rest below
                (ones, np.array([0.0] + [2.0] * (d - 1))),     # one below, rest above
                (ones, np.array([2.0] * h + [0.0] * (d - h))),  # half-half
                (ones, np.full(d, 2.0)),                       # all above
                (ones, np.zeros(d)),                           # all below
                (np.array([1.0] * h + [0.0] * (d - h)),        # X shape
                 np.array([0.0] * h + [1.0] * (d - h)))]
    if domain.local:
        low = domain.low if math.isfinite(domain.low) else -50.0
        high = domain.high if math.isfinite(domain.high) else 50.0
        raw.append((np.full(d, low), np.full(d, high)))        # extremes
        raw.append((np.full(d, -1.0), np.ones(d)))             # symmetric unit pair
    pairs, seen = [], set()
    for a, b in raw:
        a, b = _clip(domain, a), _clip(domain, b)
        if np.array_equal(a, b):
            continue
        key = (a.tobytes(), b.tobytes())
        if key in seen or (b.tobytes(), a.tobytes()) in seen:
            continue
        seen.add(key)
        pairs.append((a, b))
    if not pairs:
        raise InputError(f"no neighbouring input pair fits in {domain}")
    return pairs


def as_input(a):
    """What a mechanism receives: a float for one-dimensional inputs, else a 1-d array."""
    arr = np.asarray(a, dtype=np.float64)
    return float(arr.reshape(-1)[0]) if arr.size == 1 else arr.reshape(-1)
