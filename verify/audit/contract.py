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
   is judged at ``LEVEL / 2``.

A refusal is an InputError in one line naming what was seen.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from dpbench.validation import InputError

from .inputs import describe_input

#: calls of their own seeds, outputs per call, and the level of each check (the chance of
#: refusing a mechanism that keeps the contract; an audit checks each input a few times at most)
PROBE_CALLS, PROBE_OUTPUTS, LEVEL = 10, 3, 1e-8
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


def check_batch(batch: np.ndarray, probes: list[np.ndarray], seeds: list[int], name: str, x) -> None:
    """InputError if the batch (m, d) of one call and the probe calls (each (PROBE_OUTPUTS, d),
    of the given ``seeds``) break the sampling contract (see the module docstring)."""
    if len(probes) >= 2 and all(np.array_equal(p, probes[0]) for p in probes[1:]) \
            and np.unique(probes[0], axis=0).shape[0] > 1:
        raise InputError(f"mechanism {name}: the outputs for seeds {seeds[0]} and {seeds[1]} are identical on "
                         f"input {describe_input(x)} (and for {len(probes) - 2} more seeds): the mechanism ignores "
                         f"its seed; draw from a generator seeded by it (np.random.default_rng(seed))")
    m, r = batch.shape[0], len(probes)
    pool = np.concatenate([batch] + [p[:1] for p in probes])
    single = multiplicity(pool) == 1
    u, t = int(single.sum()), int(single[m:].sum())
    if stats.hypergeom.sf(t - 1, m + r, u, r) <= LEVEL / 2:
        distinct = np.unique(batch, axis=0).shape[0]
        raise InputError(f"mechanism {name}: one call's {m:,} outputs on input {describe_input(x)} hold only "
                         f"{distinct:,} distinct value{'s' if distinct != 1 else ''}, while the first outputs of "
                         f"{r} calls with other seeds "
                         f"repeat nothing ({t} of {r} unique): the outputs of a call are not independent draws "
                         f"(noise drawn once per call, or repeated blocks); draw n independent outputs")
    if stats.hypergeom.cdf(t, m + r, u, r) <= LEVEL / 2:
        raise InputError(f"mechanism {name}: the first outputs of {r} calls with different seeds on input "
                         f"{describe_input(x)} repeat each other or one call's outputs ({r - t} of {r}), while "
                         f"that call's {m:,} outputs are mostly distinct ({u - t:,} unique): the mechanism "
                         f"ignores part of its seed; draw from a generator seeded by it (np.random.default_rng(seed))")
