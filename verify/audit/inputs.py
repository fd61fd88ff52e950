"""Neighbouring input pairs: the standard patterns used when only an input domain is
given (StatDP, Ding et al. CCS'18; DP-Sniper's ``PatternGenerator``), and inputs passed
to the mechanism as they are (datasets of different sizes, dicts, strings).

Base input: all ones.  Neighbours: one above / one below (one entry changed by
1) and, under the component-wise neighbourhood (every entry may change by up to
1, e.g. queries of sensitivity 1), one above rest below, one below rest above,
half-half, all above, all below, and the X shape.  Values are clipped to the
domain.  For a *local* randomiser every two inputs are neighbours, so the
extremes (low vs high; -50 vs 50 on an unbounded line, where sigmoid-type maps
saturate) and the symmetric pair -1 vs 1 (clipped to the domain) are added.  For a
domain of *datasets* under add/remove-one neighbours (unbounded DP, Dwork & Roth 2014,
Def. 2.4 with the symmetric-difference distance), the base dataset plus one record: 0,
2 (one below / above the base records, as above) and the domain's extremes (clipped
to the domain).  The audit tests both directions of every pair, so swapped copies
(and "remove one") are not listed.

A mechanism with a compiled sampler (a catalog mechanism's ``component``) gets numeric inputs
of one shape as a float (one entry) or a flat float array, as its fast path needs them; every
other mechanism gets its inputs exactly as given (wrapped in :class:`Verbatim`): integers stay
integers and a table keeps its shape (a user's function that sums a table's columns would sum
a flattened table's every entry, and index a category with a float), and so do inputs of
different shapes, non-numeric inputs and every input of a dataset domain.
"""
from __future__ import annotations

import copy
import math
import reprlib
from collections import Counter
from dataclasses import dataclass

import numpy as np

from dpbench.validation import InputError, check_int, check_real


@dataclass(frozen=True)
class Domain:
    """``dim`` inputs in [low, high] (``integer``: integers only).  ``componentwise``:
    neighbours may differ in every entry by up to 1 (else in one entry).  ``local``:
    any two inputs are neighbours (local randomisers).  ``add_remove``: inputs are
    datasets of ``dim`` records, handed to the mechanism as 1-d arrays, and neighbours
    may also differ by one added or removed record (unbounded DP)."""
    dim: int = 1
    low: float = -math.inf
    high: float = math.inf
    integer: bool = False
    componentwise: bool = False
    local: bool = False
    add_remove: bool = False

    def __post_init__(self):
        check_int("domain dim", self.dim, low=1)
        low = check_real("domain low", self.low, allow_inf=True)
        high = check_real("domain high", self.high, allow_inf=True)
        if not low < high:
            raise InputError(f"domain low must be < high (got [{low}, {high}])")


@dataclass(frozen=True, eq=False)
class Verbatim:
    """An input handed to the mechanism exactly as given (no float conversion, no
    compiled fast path): datasets of different sizes, dicts, strings, ..."""
    value: object


def _clip(domain: Domain, a) -> np.ndarray:
    a = np.clip(np.asarray(a, dtype=np.float64), domain.low, domain.high)
    return np.round(a).astype(np.int64) if domain.integer else a


def _finite_extremes(domain: Domain) -> tuple[float, float]:
    """The domain's ends, with -50 / 50 for an unbounded side."""
    return (domain.low if math.isfinite(domain.low) else -50.0,
            domain.high if math.isfinite(domain.high) else 50.0)


def pattern_pairs(domain: Domain) -> list[tuple]:
    """The distinct input pairs (x, x') of the standard patterns inside ``domain``
    (flat float arrays, int arrays for an integer domain; :class:`Verbatim` arrays for a dataset
    domain)."""
    d = domain.dim
    h = d // 2
    ones = np.ones(d)
    low, high = _finite_extremes(domain)
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
        raw.append((np.full(d, low), np.full(d, high)))        # extremes
        raw.append((np.full(d, -1.0), np.ones(d)))             # symmetric unit pair
    if domain.add_remove:
        raw += [(ones, np.append(ones, r)) for r in (0.0, 2.0, low, high)]   # add one record
    pairs, seen = [], set()
    for a, b in raw:
        a, b = _clip(domain, a), _clip(domain, b)
        if np.array_equal(a, b):
            continue
        key = (a.tobytes(), b.tobytes())
        if key in seen or (b.tobytes(), a.tobytes()) in seen:
            continue
        seen.add(key)
        pairs.append((Verbatim(a), Verbatim(b)) if domain.add_remove else (a, b))
    if not pairs:
        raise InputError(f"no neighbouring input pair fits in {domain}")
    return pairs


def _numeric(value) -> np.ndarray | None:
    """``value`` as a float64 array if it is a number or a (rectangular) numeric array."""
    if isinstance(value, (str, bytes, dict, Verbatim)):
        return None
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def neighbour_pair(x, x_prime, compiled: bool = False) -> tuple:
    """The pair (x, x') as the audit keeps it.  For a mechanism with a ``compiled`` sampler: two
    0-d float arrays for two numbers, two flat float arrays for numeric arrays (lists) of one
    shape; otherwise (and for add/remove one record, non-numeric inputs) two :class:`Verbatim`
    inputs, handed over as given."""
    a, b = _numeric(x), _numeric(x_prime)
    numeric = a is not None and b is not None and a.shape == b.shape
    _check_neighbouring(x, x_prime, np.array_equal(a, b) if numeric else None)
    if numeric and not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise InputError("x and x_prime must be finite numbers")
    if not (numeric and compiled):
        return Verbatim(x), Verbatim(x_prime)
    # a number stays a number (0-d); a list or array stays one, even of one entry
    return (a, b) if a.ndim == 0 else (a.reshape(-1), b.reshape(-1))


def _check_neighbouring(x, x_prime, same: bool | None) -> None:
    """The two inputs must differ (``same``: whether they are equal as numbers; None: compare them
    as given), and datasets of different sizes by one record: neighbours under add/remove differ
    by exactly one (a pair further apart would report a violation of a claim that never covered it)."""
    if same is None:
        try:
            same = bool(x == x_prime)
        except (TypeError, ValueError):      # arrays of other shapes, objects without ==
            same = False
    if same:
        raise InputError(f"x and x_prime are equal ({describe_input(x)}): an audit compares two neighbouring "
                         "inputs that differ (e.g. x=0, x_prime=1)")
    ra, rb = _records(x), _records(x_prime)
    if ra is not None and rb is not None and abs(len(ra) - len(rb)) > 1:
        raise InputError(f"x and x_prime have {len(ra)} and {len(rb)} records: datasets neighbouring under "
                         "add/remove differ by one record (for a group of k records, claim k times eps)")


def as_input(a):
    """What a mechanism receives: a :class:`Verbatim` input as given, a number for a 0-d array (an
    input given as a number to a compiled sampler, or a pattern of a one-dimensional domain, see
    ``stages.validate``; an integer domain's as an int), else a flat array (an input given as a list
    or array keeps being one, even of one entry).  Always a copy: the caller's input, and every later
    call's, stay as given whatever the mechanism does to what it receives."""
    if isinstance(a, Verbatim):
        try:
            return copy.deepcopy(a.value)  # a mechanism that changes its input in place changes only its copy
        except Exception:                  # noqa: BLE001 - an object that cannot be copied is handed over itself
            return a.value
    arr = np.asarray(a)
    return arr.item() if arr.ndim == 0 else arr.reshape(-1).copy()


def numeric_input(a) -> np.ndarray | None:
    """The flat float array the compiled fast path takes, or None for a :class:`Verbatim` input."""
    return None if isinstance(a, Verbatim) else np.atleast_1d(np.asarray(a, dtype=np.float64)).reshape(-1)


# ------------------------------------------------------------------ descriptions
_SHORT = reprlib.Repr()
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 12
_SHORT.maxstring = _SHORT.maxother = 80


def _records(value) -> list | None:
    """The records of a dataset-like input (list, tuple, 1-d array), else None."""
    if isinstance(value, Verbatim):
        value = value.value
    if isinstance(value, np.ndarray):
        return value.tolist() if value.ndim == 1 else None
    return list(value) if isinstance(value, (list, tuple)) else None


def describe_input(x) -> str:
    """One input for messages: numbers as ``g``-formatted values, anything else by a short repr."""
    value = x.value if isinstance(x, Verbatim) else x
    scalar_like = (isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))) or (
        isinstance(value, np.ndarray) and value.ndim == 0)
    arr = _numeric(value) if scalar_like else None
    if arr is not None:                       # a number (a 0-d array: how the audit keeps one)
        return f"{float(arr):g}"
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return _SHORT.repr(value)


def _added(small: list, large: list) -> list | None:
    """The records ``large`` has beyond ``small`` (as multisets), or None if it is not a superset."""
    try:
        extra = Counter(map(_hashable, large))
        extra.subtract(map(_hashable, small))
    except TypeError:
        return None
    if any(v < 0 for v in extra.values()):
        return None
    return [k for k, v in extra.items() for _ in range(v)]


def _hashable(v):
    return tuple(v) if isinstance(v, list) else v


def describe_pair(x, x_prime) -> str:
    """x and x' for messages.  Long numeric inputs of one shape (e.g. reward tables) by
    their differing entries; datasets that differ by added records by those records."""
    a_num, b_num = _numeric(_unwrap(x)), _numeric(_unwrap(x_prime))
    if a_num is not None and b_num is not None and a_num.size == b_num.size and a_num.size > 12:
        a, b = a_num.reshape(-1), b_num.reshape(-1)
        diff = np.flatnonzero(a != b)
        shown = ", ".join(f"[{i}] {a[i]:g} vs {b[i]:g}" for i in diff[:5])
        return f"x and x' ({a.size} entries) differ at {diff.size} entr{'y' if diff.size == 1 else 'ies'}: {shown}"
    text = f"x={describe_input(x)}, x'={describe_input(x_prime)}"
    ra, rb = _records(x), _records(x_prime)
    if ra is not None and rb is not None and len(ra) != len(rb):
        small, large, who = (ra, rb, "x'") if len(ra) < len(rb) else (rb, ra, "x")
        extra = _added(small, large)
        if extra is not None:
            what = "record" if len(extra) == 1 else f"{len(extra)} records"
            text += f" ({who} adds the {what} {', '.join(_SHORT.repr(e) for e in extra[:5])})"
        else:
            text += f" ({len(ra)} vs {len(rb)} records)"
    return text


def _unwrap(x):
    return x.value if isinstance(x, Verbatim) else x
