"""Ranked categories: the statistic behind the category, granularity and bits features.

The categories of the output rows (exact rows, rows with every entry that is not an atom
merged, granularity classes, low mantissa bits) are ranked by their likelihood ratio on the fit
outputs, so that prefixes of the ranking are the Neyman-Pearson events; categories not seen
at fit share one last rank ("other").  Events are unions of ranks, described by naming the
categories (a few) or summarising them (many).
"""
from __future__ import annotations

import math

import numpy as np

from .. import fast
from ..fast import CODE, make_spec
from .base import LISTED, Feature, Statistic, number

#: at most this many categories are ranked (rarer ones share the "other" rank)
MAX_CATEGORIES = 4096
#: a value repeating at least this many times among the fit outputs is an atom (a category of
#: its own): exact repeats of a continuous law are improbable, so an atom of mass p shows once
#: p times the fit outputs reaches a few
ATOM_MIN_COUNT = 3
#: fit outputs per input used to find atoms
SUBSAMPLE = 200_000


def codes(rows: np.ndarray, spec) -> np.ndarray:
    """The 64-bit category key of every row (:func:`fast.row_code`)."""
    out = np.empty(rows.shape[0], dtype=np.uint64)
    fast.code_block(spec, rows, out)
    return out


def find_specials(rows1: np.ndarray, rows2: np.ndarray, limit: int = 64) -> np.ndarray:
    """Atoms: values that repeat at least ATOM_MIN_COUNT times among all entries.

    Flags such as 'abort', the labels of a discrete output, or a value a continuous mechanism
    releases with positive probability; most frequent first, at most ``limit``, sorted.
    """
    pooled = np.concatenate([rows1[:SUBSAMPLE].ravel(), rows2[:SUBSAMPLE].ravel()])
    pooled = pooled[np.isfinite(pooled)]
    if pooled.size == 0:
        return np.zeros(0)
    values, counts = np.unique(pooled, return_counts=True)
    keep = counts >= ATOM_MIN_COUNT
    values, counts = values[keep], counts[keep]
    order = np.argsort(-counts, kind="stable")[:limit]
    return np.sort(values[order])


def binade_keys(rows: np.ndarray, atoms=()) -> list:
    """The stratum of each row for the floating-point layer's stratified test, as a hashable key:
    the binade (sign and exponent) of every entry, an atom (a value of ``atoms``) by its value."""
    signs_exponents = np.ascontiguousarray(rows, dtype=np.float64).view(np.uint64) >> np.uint64(52)
    atoms = set(np.asarray(atoms, dtype=np.float64).tolist())
    return [tuple(("atom", v) if v in atoms else e for v, e in zip(r, b))
            for r, b in zip(rows.tolist(), signs_exponents.tolist())]


def ranked_statistic(feature: Feature, rows1, rows2, *, name: str, mode: str, specials=None,
                     low_bits: int = 0, column: int = -1, min_coverage: float = 0.5) -> Statistic | None:
    """Rank the categories of the fit rows (M(x): rows1, M(x'): rows2) by their likelihood ratio.

    ``mode``: "exact" (whole rows), "pattern" (entries not in ``specials`` merged), "grain"
    (granularity classes, ranked by their likelihood ratio *given the binade*: the magnitude
    of the outputs is the law's business) or "bits" (sign, exponent and ``low_bits`` mantissa
    bits); in the last two, atoms (values that repeat: the law's) keep their exact value and are
    strata of their own.  ``column`` >= 0: the categories of that entry only.  None if the
    categories seen repeat in less than ``min_coverage`` of the rows (a continuous output) or
    there are fewer than two.
    """
    keep_all = mode != "pattern"
    floating = mode in ("grain", "bits")
    entries = slice(None) if column < 0 else slice(column, column + 1)
    if floating:
        specials = find_specials(rows1[:, entries], rows2[:, entries])
    mask = np.uint64(0)
    if mode == "bits":
        mask = np.uint64(0xFFF0000000000000) | np.uint64((1 << int(low_bits)) - 1)
    probe = make_spec(CODE, specials=specials if floating or not keep_all else np.zeros(0), keep_all=keep_all,
                      low_bits=low_bits if mode == "bits" else 0, bit_mask=mask, grain=mode == "grain", column=column)
    k1, k2 = codes(rows1, probe), codes(rows2, probe)
    keys, first, inverse = np.unique(np.concatenate([k1, k2]), return_index=True, return_inverse=True)
    c1 = np.bincount(inverse[:k1.size], minlength=keys.size).astype(np.float64)
    c2 = np.bincount(inverse[k1.size:], minlength=keys.size).astype(np.float64)
    total = c1 + c2
    if keys.size > MAX_CATEGORIES:
        top = np.sort(np.argsort(-total, kind="stable")[:MAX_CATEGORIES])
        keys, first, c1, c2, total = keys[top], first[top], c1[top], c2[top], total[top]
    # a category seen once predicts nothing: coverage counts repeated categories only
    # one category is an event too when it is all there is (a constant label: "not rejected", never no power)
    if total[total >= 2].sum() < min_coverage * (k1.size + k2.size) or keys.size < (1 if mode == "exact" else 2):
        return None
    log_ratio = np.log((c1 + 0.5) / (k1.size + 0.5)) - np.log((c2 + 0.5) / (k2.size + 0.5))
    strata = None
    if floating:
        # rank by the granularity *given* the binade: the magnitude is the law's business
        strata = binade_keys(_pooled_rows(rows1, rows2, first)[:, entries], specials)
        log_ratio -= _stratum_log_ratio(strata, c1, c2)
    order = np.argsort(-log_ratio, kind="stable")
    ranks = np.empty(keys.size)
    ranks[order] = np.arange(keys.size, dtype=np.float64)
    spec = probe._replace(keys=keys, ranks=ranks)
    # one output row per category, in rank order, to describe events in output space
    info = {"categories": int(keys.size), "mode": mode, "examples": _pooled_rows(rows1, rows2, first[order]),
            "specials": np.asarray(specials, np.float64) if floating or not keep_all else None,
            "low_bits": int(low_bits), "column": column}
    if strata is not None:
        info["strata"] = [strata[i] for i in order]          # the binades of each rank
    return Statistic(feature, name, spec, discrete=True, info=info)


def _pooled_rows(rows1: np.ndarray, rows2: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Rows ``index`` of the stacked (rows1, rows2), without stacking them (a copy of every fit
    row for each statistic cost more than the ranking)."""
    out = np.empty((index.size, rows1.shape[1]), dtype=np.result_type(rows1, rows2))
    first = index < rows1.shape[0]
    out[first] = rows1[index[first]]
    out[~first] = rows2[index[~first] - rows1.shape[0]]
    return out


def _stratum_log_ratio(strata: list, c1, c2) -> np.ndarray:
    """Per category, the log frequency ratio of its stratum (its binade), from per-category counts."""
    _, inverse = np.unique(np.array([hash(s) for s in strata]), return_inverse=True)
    b1, b2 = np.bincount(inverse, weights=c1), np.bincount(inverse, weights=c2)
    m1, m2 = c1.sum(), c2.sum()
    return (np.log((b1 + 0.5) / (m1 + 0.5)) - np.log((b2 + 0.5) / (m2 + 0.5)))[inverse]


def rank_edges(stat: Statistic) -> np.ndarray:
    """One bin per ranked category and one for every category not seen at fit."""
    return np.arange(stat.info["categories"], dtype=np.float64) + 0.5


def members(stat: Statistic, edges: np.ndarray, bins: np.ndarray) -> tuple[np.ndarray, bool]:
    """(ranks of the categories in the event, whether it holds the categories not seen at fit)."""
    k = stat.info["examples"].shape[0]
    ranks = np.arange(k + 1, dtype=np.float64)            # rank k: categories unseen at fit
    member = bins[np.searchsorted(edges, ranks)]
    return np.flatnonzero(member[:k]), bool(member[k])


def member_rows(event) -> np.ndarray:
    """The example rows (one per category) of the ranked categories inside ``event`` (categories not
    seen at fit have none)."""
    stat = event.statistic
    return stat.info["examples"][members(stat, event.edges, event.bins)[0]]


def describe(stat: Statistic, edges: np.ndarray, bins: np.ndarray, *, what: str, entry, summary,
             single: bool = True, unseen: bool = True) -> str:
    """A union of ranked categories as a set of outputs.

    Categories are named by ``entry(row)`` ("output == yes", "output not in {-1, 0}") when
    there are at most LISTED of them on the shorter side, else summarised by
    ``summary(rows)`` ("one of 60 classes: ..."); ``single``: a lone category reads
    "what == a" / "what != a" (else "what in {a}"); ``unseen=False``: no output can fall in
    a category not seen at fit (every output maps to a ranked one).
    """
    examples = stat.info["examples"]
    inside, other = members(stat, edges, bins)
    other = other and unseen
    outside = np.setdiff1d(np.arange(examples.shape[0]), inside)
    sep = "; " if examples.shape[1] > 1 or what != "output" else ", "

    def named(idx):
        if idx.size > LISTED:
            return summary(examples[idx])
        return "{" + sep.join(entry(examples[r]) for r in idx) + "}"

    if other and outside.size and outside.size < inside.size + 1:
        if outside.size == 1 and single:
            return f"{what} != {entry(examples[outside[0]])}"
        return f"{what} not in {named(outside)}"
    tail = " or a category not seen at selection" if other else ""
    if inside.size == 0:
        return "a category not seen at selection" if other else "never"
    if inside.size == 1 and single:
        return f"{what} == {entry(examples[inside[0]])}{tail}"
    return f"{what} in {named(inside)}{tail}"


def count_text(k: int, noun: str) -> str:
    return f"one of {k:,} {noun}"


def value_range(values: np.ndarray) -> str:
    """[lo, hi] of some numbers, 4 significant digits, or more where those would print lo and hi alike
    (1e15 + 1 and 1e15 + 8 both read 1e+15): whole numbers exactly."""
    lo, hi = float(np.min(values)), float(np.max(values))
    if f"{lo:.4g}" == f"{hi:.4g}" and lo != hi:
        return f"[{number(lo)}, {number(hi)}]" if lo.is_integer() and hi.is_integer() else f"[{lo!r}, {hi!r}]"
    return f"[{lo:.4g}, {hi:.4g}]"


def exponent_range(values: np.ndarray) -> tuple[int, int]:
    """The smallest and largest binary exponent e with |v| in [2^e, 2^(e+1)) (zeros skipped)."""
    nonzero = np.abs(values[values != 0])
    if nonzero.size == 0:
        return 0, 0
    e = [math.frexp(float(v))[1] - 1 for v in (nonzero.min(), nonzero.max())]
    return e[0], e[1]
