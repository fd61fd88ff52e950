"""The sampling contract, checked before any verdict rather than assumed.

An audit reads ``mechanism(x, n, seed)`` as n independent draws of the mechanism's law on x,
and the draws of different seeds as independent of each other.  Two ways of breaking it make
any verdict luck, and both are common in research code:

* the mechanism ignores its seed (it seeds its own generator): every call returns the same
  outputs, so the audit compares one fixed draw with a shifted copy of itself;
* a call's outputs are not n draws: the noise is drawn once and added to the whole batch, or a
  block of draws is repeated.

:func:`check_batch` tests both on a batch the audit draws anyway and on ``PROBE_CALLS`` small
calls of their own seeds (``PROBE_OUTPUTS`` outputs each; :attr:`SampleSource.contract_samples`
counts them):

1. the probe calls all return the same outputs, and those vary within a call: the seed is
   ignored ("the outputs for seeds a and b are identical");
2. under the contract the batch's m outputs and the first outputs of the r probe calls are
   m + r independent draws of one law, hence exchangeable: which of the pooled outputs are
   *singletons* (equal to no other) is then a uniformly random split, and the number T of
   probe outputs among the U singletons is hypergeometric(m + r, U, r), exactly, whatever the
   law (continuous, discrete or with atoms).  Too many probe singletons: the batch repeats
   values that independent seeds do not (noise drawn once per call, repeated blocks); too few:
   the outputs of different seeds repeat each other (part of the seed is ignored).  Each tail
   is judged at ``LEVEL / 2``;
3. for the same reason every probe output is as likely as any of the batch's to be the smallest
   or the largest of the pool: the number K of probe outputs strictly outside the range of the
   batch's m outputs has, for r probe outputs among m + r exchangeable values, the law
   P(K = j) = (j + 1) C(m + r - j - 2, r - j) / C(m + r, r) (j of them before the batch's first
   and after its last, in a random arrangement; ties only make K smaller), about 2r/m on average.
   Many probe outputs outside: the batch shares a draw that other calls do not (noise drawn once
   per call, with per-output noise on top of it that check 2 does not see); judged per output
   coordinate at ``LEVEL`` divided by their number.

4. the outputs of every call are draws of one law, so each call's outputs on an input and those of
   the calls before it on that input have the same distribution: a two-sample Kolmogorov-Smirnov
   test per output coordinate (conservative on discrete outputs) of a call against the calls
   before it pooled (up to ``COMPARED_ROWS`` outputs of each side, every k-th, whatever their
   order), on the calls that follow 1, 2, 4, 8, ... calls of an input and on any call twice the
   size of the last one compared (a few tests however many calls, so that the check's time stays
   small next to the audit's), the j-th at ``LEVEL * 6 / (pi^2 j^2)`` (the levels sum to
   ``LEVEL``) divided by the number of coordinates.  Noise drawn once per call that is small next
   to the per-output noise (a count plus N(0, 0.3) once per call plus Laplace(1) per output) repeats
   nothing and stays inside the range of other calls, so checks 2 and 3 pass it; yet the audit
   compares whole calls of hundreds of thousands of outputs, on which a shift of that size is a
   certain "violation" (or hides one).  This test's power grows with the calls' sizes as the
   audit's does, and a sequential audit's growing rounds are compared with all before them.

Besides, a second call with the first probe's seed must return its outputs again: one that does
not draws from a generator its seed does not set (``np.random.laplace``, the global state).  The
audit still holds if those draws are independent, but its numbers cannot be reproduced from the
seed: a warning (:func:`unseeded_warning`), not a refusal.

A refusal is an InputError in one line naming what was seen.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpbench.engine.caching import cached_njit
from dpbench.validation import InputError

from .inputs import describe_input

#: calls of their own seeds, outputs per call, and the level of each check (the chance of
#: refusing a mechanism that keeps the contract; an audit checks each input a few times at most)
PROBE_CALLS, PROBE_OUTPUTS, LEVEL = 10, 3, 1e-8
#: check 4: outputs of each side compared (every k-th of a call, and of the calls before it pooled)
COMPARED_ROWS = 1 << 14
#: the key of the probe calls' seeds, after the key of the batch they are compared with (disjoint
#: from every stream of the audit, whose keys end in small stage and chunk numbers)
PROBE_STREAM = 0x7FFFFFF5
#: a batch is checked again once it is this many times larger than the largest checked before
#: (blocks repeated with a period show only in a batch longer than the period)
RECHECK_FACTOR = 4


def multiplicity(rows: np.ndarray) -> np.ndarray:
    """How often each row of ``rows`` (m, d) occurs in ``rows``.  A sort of the rows by their columns
    (``np.unique(axis=0)`` compares rows as opaque bytes and is 20-60x slower on a million rows: it
    was most of the check's cost); values equal as numbers are equal rows (-0.0 and 0.0 too)."""
    if rows.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] > 1 else np.argsort(rows[:, 0])
    ordered = rows[order]
    starts = np.flatnonzero(np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)])
    sizes = np.diff(np.r_[starts, rows.shape[0]])
    out = np.empty(rows.shape[0], dtype=np.int64)
    out[order] = np.repeat(sizes, sizes)
    return out


def row_keys(rows: np.ndarray) -> np.ndarray:
    """One 64-bit hash per row of ``rows`` (m, d), of its bits column by column: equal for rows equal as
    numbers (-0.0 and 0.0 too), and almost never for different rows (:func:`singletons` checks)."""
    bits = np.ascontiguousarray(rows + 0.0, dtype=np.float64).view(np.uint64)       # + 0.0: -0.0 is 0.0
    keys = np.zeros(rows.shape[0], dtype=np.uint64)
    for col in range(rows.shape[1]):
        keys ^= bits[:, col]
        keys *= _MIX                                                                   # wraps modulo 2^64
        keys ^= keys >> np.uint64(31)
    return keys


_MIX = np.uint64(0x9E3779B97F4A7C15)


@cached_njit
def _keys_collide(pool, order, ordered_keys):
    """Whether two different rows of ``pool`` share a key: rows next to each other in the key order
    (``order``, keys ``ordered_keys``) with equal keys, compared as numbers, without copying them."""
    for k in range(order.shape[0] - 1):
        if ordered_keys[k] == ordered_keys[k + 1]:
            a, b = pool[order[k]], pool[order[k + 1]]
            for c in range(a.shape[0]):
                if a[c] != b[c]:
                    return True
    return False


def singletons(batch: np.ndarray, probe_rows: np.ndarray) -> tuple[int, int]:
    """(U, T): how many rows of the pool (``batch`` then ``probe_rows``) occur once in it, and how many
    of those are probe rows.  A plain sort and a binary search for each probe row, on the outputs when
    there is one a row, else on :func:`row_keys` (checked: where two different rows share a key, on
    :func:`multiplicity`).  Half the time of :func:`multiplicity`'s argsort and scatter on 200,000
    outputs of width 1, a fifth on continuous outputs of width 10."""
    if batch.shape[1] == 1:
        ordered, probe = np.sort(np.concatenate([batch[:, 0], probe_rows[:, 0]])), probe_rows[:, 0]
    else:
        pool = np.concatenate([batch, probe_rows])
        keys = row_keys(pool)
        order = np.argsort(keys)
        ordered, probe = keys[order], keys[batch.shape[0]:]
        if _keys_collide(pool, order, ordered):
            single = multiplicity(pool) == 1
            return int(single.sum()), int(single[batch.shape[0]:].sum())
    differs = ordered[1:] != ordered[:-1]
    u = int(np.count_nonzero(np.r_[True, differs] & np.r_[differs, True]))
    once = np.searchsorted(ordered, probe, side="right") - np.searchsorted(ordered, probe, side="left") == 1
    return u, int(np.count_nonzero(once))


def outside_tail(k: int, m: int, r: int) -> float:
    """P(K >= k) for K the number of r exchangeable probe values strictly outside the range of m batch
    values (m >= 2; check 3 of the module docstring), exactly."""
    total = math.comb(m + r, r)
    return sum((j + 1) * math.comb(m + r - j - 2, r - j) for j in range(max(k, 0), r + 1)) / total


def check_batch(batch: np.ndarray, probes: list[np.ndarray], seeds: list[int], name: str, x) -> None:
    """InputError if the batch (m, d) of one call and the probe calls (each (PROBE_OUTPUTS, d),
    of the given ``seeds``) break the sampling contract (see the module docstring)."""
    if len(probes) >= 2 and all(np.array_equal(p, probes[0]) for p in probes[1:]) \
            and np.unique(probes[0], axis=0).shape[0] > 1:
        raise InputError(f"mechanism {name}: the outputs for seeds {seeds[0]} and {seeds[1]} are identical on "
                         f"input {describe_input(x)} (and for {len(probes) - 2} more seeds): the mechanism ignores "
                         f"its seed; draw from a generator seeded by it (np.random.default_rng(seed))")
    m, r = batch.shape[0], len(probes)
    u, t = singletons(batch, np.concatenate([p[:1] for p in probes]))
    if stats.hypergeom.sf(t - 1, m + r, u, r) <= LEVEL / 2:
        distinct = np.unique(batch, axis=0).shape[0]
        raise InputError(f"mechanism {name}: one call's {m:,} outputs on input {describe_input(x)} hold only "
                         f"{distinct:,} distinct value{'s' if distinct != 1 else ''}, while the first outputs of "
                         f"{r} calls with other seeds "
                         f"repeat nothing ({t} of {r} unique): the outputs of a call are not independent draws "
                         f"(noise drawn once per call, or repeated blocks); draw n independent outputs")
    _check_range(batch, np.concatenate(probes), name, x)
    if stats.hypergeom.cdf(t, m + r, u, r) <= LEVEL / 2:
        raise InputError(f"mechanism {name}: the first outputs of {r} calls with different seeds on input "
                         f"{describe_input(x)} repeat each other or one call's outputs ({r - t} of {r}), while "
                         f"that call's {m:,} outputs are mostly distinct ({u - t:,} unique): the mechanism "
                         f"ignores part of its seed; draw from a generator seeded by it (np.random.default_rng(seed))")


def _check_range(batch: np.ndarray, probe_rows: np.ndarray, name: str, x) -> None:
    """Check 3: InputError if too many probe outputs fall outside the batch's range in some coordinate."""
    m, r = batch.shape[0], probe_rows.shape[0]
    if m < 2 or r == 0:
        return
    with np.errstate(invalid="ignore"):
        outside = ((probe_rows < batch.min(axis=0)) | (probe_rows > batch.max(axis=0))).sum(axis=0)
    j = int(np.argmax(outside))
    k = int(outside[j])
    if k == 0 or outside.size * outside_tail(k, m, r) > LEVEL:
        return
    where = f" (output coordinate {j})" if batch.shape[1] > 1 else ""
    raise InputError(f"mechanism {name}: {k} of {r} outputs of {r // PROBE_OUTPUTS} calls with other seeds on input "
                     f"{describe_input(x)} fall outside the range of one call's {m:,} outputs{where} "
                     f"[{batch[:, j].min():g}, {batch[:, j].max():g}], where independent draws put about "
                     f"{2 * r / (m + 1):.2g} there: the outputs of a call share a draw (noise drawn once per call "
                     f"and added to every output); draw n independent outputs")


UNSEEDED = "the seed does not set the mechanism's draws: "


def unseeded_warning(name: str, seed: int, x) -> str:
    """The warning for a mechanism whose two calls with one seed returned different outputs."""
    return (f"{UNSEEDED}mechanism {name}: two calls with seed {seed} on input {describe_input(x)} returned different "
            f"outputs: it draws from a generator its seed does not set (e.g. np.random.laplace, the global "
            f"state), or it keeps state between calls (a counter, a cache, a mutable default); the audit holds "
            f"if those draws are independent and of one law, but its numbers cannot be reproduced from the seed: "
            f"draw from np.random.default_rng(seed), and from nothing a call leaves behind")


def strided(rows: np.ndarray, most: int = COMPARED_ROWS) -> np.ndarray:
    """Every k-th row of ``rows``, at most ``most`` of them (the batch's law, whatever the rows' order)."""
    step = -(-rows.shape[0] // most)
    return rows[::step]


@cached_njit
def _ks_kernel(before, later, out):
    """out[c] = the largest gap between the empirical CDFs of the sorted rows before[c] and later[c],
    at every value of either (a merge: each value is passed once, ties together)."""
    n1, n2 = before.shape[1], later.shape[1]
    for c in range(before.shape[0]):
        a, b = before[c], later[c]
        i = j = 0
        best = 0.0
        while i < n1 and j < n2:
            v = min(a[i], b[j])
            while i < n1 and a[i] <= v:
                i += 1
            while j < n2 and b[j] <= v:
                j += 1
            best = max(best, abs(i / n1 - j / n2))
        out[c] = best                  # past the shorter side's end the gap only shrinks


def ks_statistics(before: np.ndarray, later: np.ndarray) -> np.ndarray:
    """The two-sided two-sample Kolmogorov-Smirnov statistic of each column, as
    ``scipy.stats.ks_2samp`` computes it (the largest gap between the two empirical CDFs at the
    pooled values), in one compiled pass over the sorted columns."""
    out = np.empty(before.shape[1])
    _ks_kernel(np.sort(before.T, axis=1), np.sort(later.T, axis=1), out)
    return out


def check_calls(before: np.ndarray, later: np.ndarray, j: int, name: str, x) -> None:
    """Check 4: InputError if the ``j``-th later call's outputs on input x (1-based) and the outputs of the
    calls before it (``before``, pooled and strided) differ in law, at level LEVEL 6 / (pi^2 j^2) over the
    coordinates.  The KS p-value is a decreasing function of the statistic for the two sizes, which every
    coordinate shares: only the coordinates with the largest statistic are tested (one scipy call, not d)."""
    later = strided(later)
    if before.shape[0] < 2 or later.shape[0] < 2:
        return
    d = before.shape[1]
    level = LEVEL * 6.0 / (math.pi ** 2 * j ** 2) / d
    ks = ks_statistics(before, later) if d > 1 else None
    for col in range(d) if ks is None else np.flatnonzero(ks >= ks.max() - 1e-12):
        res = stats.ks_2samp(before[:, col], later[:, col])     # exact up to 10,000 outputs a side
        if res.pvalue <= level:
            where = f" (output coordinate {col})" if d > 1 else ""
            raise InputError(f"mechanism {name}: one call on input {describe_input(x)} draws from another law than "
                             f"the calls before it{where}: their outputs ({later.shape[0]:,} and {before.shape[0]:,} "
                             f"compared; medians {np.median(later[:, col]):.4g} and {np.median(before[:, col]):.4g}) "
                             f"differ at KS p-value {res.pvalue:.2g}, where independent draws of one law differ that "
                             f"much with probability at most {level:.2g}: a call shares a draw among its outputs "
                             f"(noise or a subsample drawn once per call), or the mechanism keeps state between "
                             f"calls (a counter, a cache, a budget that runs down); draw n independent outputs, "
                             f"every call from the same law")
