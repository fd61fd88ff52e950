"""The fast path: compiled mechanisms whose outputs are counted, never stored.

A *compiled mechanism* is a flat ``typing.NamedTuple`` of parameters with one
verb registered through :func:`dpbench.engine.components.implements`::

    emit(mech, x, out)     # write one output of M(x) into the float64 buffer out[:d]

(``x`` is always a 1-d float64 array).  Every dpbench privacy mechanism is one
already: ``emit`` defaults to its ``privatize`` (one user's report of x[0]), so
``dpbench.sampler(...)`` objects, whose ``.component`` is the engine component,
are audited here on the code the simulations run.  :func:`compiled_mechanism` wraps such a
component into the usual callable ``mechanism(x, n, seed) -> ndarray``; the
audit recognises it by its ``.component`` attribute and then counts events
with :func:`draw_kernel` and :func:`count_kernel`: the samples are drawn a chunk
at a time, each mapped to its scalar statistic (:mod:`verify.audit.events`) and
dropped into a histogram bin, in parallel blocks, in O(blocks x bins + chunk)
memory whatever n is.  Only the drawing kernel is compiled per mechanism type.

Seeding: the samples are cut into blocks of ``BLOCK`` outputs and block b
starts with ``np.random.seed(seeds[b])`` inside compiled code, so results do
not depend on the thread count, and stored and counted outputs are the same draws.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np
from numba import prange

from dpbench.engine.caching import cached_njit
from dpbench.engine.components import emit, implementation, registered
from dpbench.engine.kernel import ERROR_MODEL
from dpbench.randomness import stream_seed
from dpbench.validation import check_int

#: outputs per seeded block (one np.random.seed per block)
BLOCK = 1 << 14
#: blocks a thread takes at a time (dynamic scheduling: on a shared machine a thread that is
#: descheduled does not hold the others up at the end of a kernel call, as an even split would)
CHUNK_BLOCKS = 2


# --------------------------------------------------------------- statistics
# Every event of an audit is a union of bins of one scalar *statistic* of the output
# row, described by a flat ``StatSpec`` and evaluated here, in compiled code, by
# both the counting path and the block path (so both count the same events).
VALUE, LINEAR, ADDITIVE, CODE = 0, 1, 2, 3
#: what an ADDITIVE feature reads from its entry: the value, or its difference from the previous entry
FEATURE_VALUE, FEATURE_DIFF = 0, 1
_SENTINEL = np.uint64(0x7FF8DEADBEEF0001)
_MANTISSA = np.uint64((1 << 52) - 1)
_FNV_OFFSET = np.uint64(1469598103934665603)
_FNV_PRIME = np.uint64(1099511628211)


class StatSpec(NamedTuple):
    """A scalar statistic of an output row, in flat compiled form (see ``events.py``).

    VALUE     row[column]
    LINEAR    bias + weights . row
    ADDITIVE  sum_f feat_w[f, bin_f(v_f)], v_f = row[feat_col[f]] or its difference from the
              previous entry (feat_kind[f]: FEATURE_*), bin_f from the sorted
              feat_edges[f, :feat_nedges[f]]
    CODE      the rank of the category of the row (of its entry ``column`` if column >= 0)
              among those seen at selection (unseen categories share the rank len(keys), one
              past the last); entries not in ``specials`` (unless keep_all) are merged into one
              "other" value; with low_bits > 0 only sign, exponent and the low mantissa bits of
              each entry are kept (``bit_mask``), with ``grain`` only sign, exponent and the
              number of trailing zero mantissa bits (:func:`grain_key`) -- except for the
              entries in ``specials`` (atoms), which keep their exact value
    """
    kind: int
    column: int
    bias: float
    weights: np.ndarray
    feat_col: np.ndarray
    feat_kind: np.ndarray
    feat_nedges: np.ndarray
    feat_edges: np.ndarray
    feat_w: np.ndarray
    specials: np.ndarray
    keep_all: bool
    low_bits: int
    bit_mask: np.uint64
    grain: bool
    keys: np.ndarray
    ranks: np.ndarray


#: the type of each StatSpec field (the kernel takes several specs as one homogeneous tuple, so
#: every spec must have exactly these types: arrays C-contiguous of this dtype and dimension)
_FIELD_TYPES = dict(kind=int, column=int, bias=float, weights=(np.float64, 1), feat_col=(np.int64, 1),
                    feat_kind=(np.int64, 1), feat_nedges=(np.int64, 1), feat_edges=(np.float64, 2),
                    feat_w=(np.float64, 2), specials=(np.float64, 1), keep_all=bool, low_bits=int,
                    bit_mask=np.uint64, grain=bool, keys=(np.uint64, 1), ranks=(np.float64, 1))


def make_spec(kind: int, **fields) -> StatSpec:
    """A StatSpec with every unused field filled by an empty array of the right type (every field
    converted to its one type, :data:`_FIELD_TYPES`)."""
    base = dict(kind=kind, column=0, bias=0.0, weights=np.zeros(1),
                feat_col=np.zeros(1, np.int64), feat_kind=np.zeros(1, np.int64),
                feat_nedges=np.zeros(1, np.int64), feat_edges=np.zeros((1, 1)),
                feat_w=np.zeros((1, 2)), specials=np.zeros(0), keep_all=True, low_bits=0,
                bit_mask=np.uint64(0), grain=False, keys=np.zeros(0, np.uint64), ranks=np.zeros(0))
    base.update(fields)
    if kind != ADDITIVE:
        base["feat_col"] = np.zeros(0, np.int64)
    for name, kind_of in _FIELD_TYPES.items():
        if isinstance(kind_of, tuple):
            dtype, ndim = kind_of
            arr = np.ascontiguousarray(base[name], dtype=dtype)
            base[name] = arr.reshape(arr.shape + (1,) * (ndim - arr.ndim)) if arr.ndim < ndim else arr
        else:
            base[name] = kind_of(base[name])
    return StatSpec(**base)


@cached_njit
def bin_index(edges, s):
    """np.searchsorted(edges, s) (side 'left': the number of entries below s) for one scalar s
    of the sorted array's type, by a branch-free binary search (numba's scalar searchsorted
    costs more than a Laplace draw)."""
    first = 0
    length = edges.shape[0]
    while length > 0:
        half = length >> 1
        first += (length - half) if edges[first + half] < s else 0
        length = half
    return first


@cached_njit
def grid_cell(s, lo, scale, cells):
    """The cell of s on the uniform grid of ``cells`` cells from lo (clamped; monotone in s)."""
    t = (s - lo) * scale
    if t < 0.0:
        return 0
    if t >= cells - 1:
        return cells - 1
    return int(t)


@cached_njit
def grid_starts(edges, lo, scale, cells):
    """starts[g] = number of edges in grid cells below g (cells + 1 entries)."""
    starts = np.zeros(cells + 1, np.int64)
    for k in range(edges.shape[0]):
        starts[grid_cell(edges[k], lo, scale, cells) + 1] += 1
    for g in range(cells):
        starts[g + 1] += starts[g]
    return starts


@cached_njit
def grid_bin_index(edges, starts, lo, scale, s):
    """bin_index(edges, s) through the grid of :func:`bin_grid`: since the cell is monotone in
    s, the edges below s are those of the lower cells plus those of s's own cell below s."""
    cells = starts.shape[0] - 1
    g = grid_cell(s, lo, scale, cells)
    j = starts[g]
    end = starts[g + 1]
    if end - j > 8:
        return j + bin_index(edges[j:end], s)
    while j < end and edges[j] < s:
        j += 1
    return j


@cached_njit(inline="always")
def bin_index_in(edges, first, length, s):
    """bin_index(edges[first:first + length], s), without making the slice (a view costs more
    than the search in the kernel's inner loop)."""
    base = first
    while length > 0:
        half = length >> 1
        base += (length - half) if edges[base + half] < s else 0
        length = half
    return base - first


@cached_njit(inline="always")
def grid_bin_index_in(edges, first, starts, start_first, cells, lo, scale, s):
    """grid_bin_index(edges[first:], starts[start_first:start_first + cells + 1], lo, scale, s),
    without making the slices."""
    g = grid_cell(s, lo, scale, cells)
    j = starts[start_first + g]
    end = starts[start_first + g + 1]
    if end - j > 8:
        return j + bin_index_in(edges, first + j, end - j, s)
    while j < end and edges[first + j] < s:
        j += 1
    return j


@cached_njit(inline="always")
def _histogram_block(values, edges, lo, scale, starts, counts, b, size):
    """Count block b (values b * size .. (b + 1) * size - 1) into counts[b] (see histogram_kernel)."""
    cells = starts.shape[0] - 1
    for i in range(b * size, min(values.shape[0], (b + 1) * size)):
        s = values[i]
        if s - s == 0.0:                          # finite
            if cells > 0:
                j = grid_bin_index(edges, starts, lo, scale, s)
            else:
                j = bin_index(edges, s)
            counts[b, j] += 1


@cached_njit(parallel=True)
def histogram_kernel(values, edges, lo, scale, starts, counts):
    """counts[b, j] += number of the finite values of block b (of counts.shape[0] equal blocks)
    in bin j = (edges[j-1], edges[j]]: np.searchsorted(edges, v) per value, looked up on the grid
    (lo, scale, starts) of :func:`bin_grid` unless ``starts`` is empty."""
    size = (values.shape[0] + counts.shape[0] - 1) // counts.shape[0]
    for b in prange(counts.shape[0]):
        _histogram_block(values, edges, lo, scale, starts, counts, b, size)


@cached_njit
def histogram_one_block(values, edges, lo, scale, starts, counts):
    """histogram_kernel for one block, on the calling thread (one block has nothing to share out, and
    see :data:`SERIAL_BELOW` on what a parallel region costs after it)."""
    _histogram_block(values, edges, lo, scale, starts, counts, 0, values.shape[0])


#: values per block of :func:`histogram` (blocks are counted in parallel)
HISTOGRAM_BLOCK = 1 << 15
#: rows below which the block kernels run on the calling thread.  A parallel region of a few
#: rows gains nothing, and after it numba's OpenMP threads spin-wait for the next one: an audit
#: of a mechanism's own function calls these kernels on every call's outputs, so the spinning
#: took a whole second core (CPU time 1.7x the wall time on 2 cores, for the same wall time),
#: which on a shared machine (two test workers, or any other job) is a core taken from it.
SERIAL_BELOW = 1 << 14


def histogram(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Counts of the finite ``values`` in the len(edges) + 1 bins (edges[j-1], edges[j]] (the
    same as ``np.bincount(np.searchsorted(edges, finite values))``, compiled and in parallel)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    edges = np.ascontiguousarray(edges, dtype=np.float64)
    lo, scale, starts = bin_grid(edges)
    counts = np.zeros((max(1, -(-values.size // HISTOGRAM_BLOCK)), edges.size + 1), dtype=np.int64)
    if counts.shape[0] == 1:                  # one block: nothing to share out
        histogram_one_block(values, edges, lo, scale, starts, counts)
    else:
        histogram_kernel(values, edges, lo, scale, starts, counts)
    return counts.sum(axis=0)


#: edges beyond which the counting kernel looks bins up on a grid (binary search below)
GRID_MIN_EDGES = 16


def bin_grid(edges: np.ndarray):
    """(lo, scale, starts) of a uniform lookup grid over the finite edges (8 cells per edge),
    or (0.0, 0.0, empty) when a plain binary search is as fast or the edges are not finite."""
    if edges.size < GRID_MIN_EDGES or not np.all(np.isfinite(edges)) or not edges[-1] > edges[0]:
        return 0.0, 0.0, np.zeros(0, np.int64)
    cells = int(min(1 << 16, 8 * edges.size))
    lo = float(edges[0])
    scale = cells / (float(edges[-1]) - lo)
    if not np.isfinite(scale):
        return 0.0, 0.0, np.zeros(0, np.int64)
    return lo, scale, grid_starts(edges, lo, scale, cells)


@cached_njit
def grain_key(bits):
    """The granularity of a float64 (given as its bits): sign and exponent, and the number
    of trailing zero bits of the mantissa (52 for a power of two or zero), as one integer
    below 2**18.  Outputs with the same key lie in the same binade and are odd multiples of
    the same power of two; ``x + noise`` computed in floating point has a granularity that
    depends on x (Mironov, CCS'12), which no exact-arithmetic mechanism has."""
    mant = bits & _MANTISSA
    zeros = 52
    if mant != 0:
        zeros = math.frexp(float(mant & (~mant + np.uint64(1))))[1] - 1
    return ((bits >> np.uint64(52)) << np.uint64(6)) | np.uint64(zeros)


@cached_njit
def code_key(specials, keep_all, low_bits, bit_mask, grain, column, row, bits):
    """The 64-bit category key of an output row (of its entry ``column`` if >= 0; ``bits``: the
    row viewed as uint64); see StatSpec's CODE."""
    h = _FNV_OFFSET
    first, last = (0, row.shape[0]) if column < 0 else (column, column + 1)
    for j in range(first, last):
        v = row[j]
        key = bits[j]
        if v == 0.0 and not grain and low_bits == 0:
            key = np.uint64(0)      # the law's categories: -0.0 is 0.0 (its sign is the floating point's)
        if v != v:
            key = _SENTINEL + np.uint64(1)
        else:
            special = False
            if specials.shape[0] > 0:
                i = bin_index(specials, v)
                special = i < specials.shape[0] and specials[i] == v
            if not keep_all and not special:
                key = _SENTINEL
            elif not special:
                if low_bits > 0:
                    key = key & bit_mask
                elif grain:
                    key = grain_key(key)
        h = (h ^ key) * _FNV_PRIME + np.uint64(j)
    return h


@cached_njit
def code_rank(keys, ranks, h):
    """The rank of category key h (len(keys), one past the last rank, if not among the
    ranked keys: every unseen category falls in one "other" bin)."""
    i = bin_index(keys, h)
    if i < keys.shape[0] and keys[i] == h:
        return ranks[i]
    return float(keys.shape[0])


@cached_njit
def linear_value(bias, weights, row):
    s = bias
    for j in range(row.shape[0]):
        s += weights[j] * row[j]
    return s


@cached_njit
def additive_value(feat_col, feat_kind, feat_nedges, feat_edges, feat_w, row):
    s = 0.0
    for f in range(feat_col.shape[0]):
        c = feat_col[f]
        v = row[c]
        kind = feat_kind[f]
        if kind == FEATURE_DIFF and c > 0:
            v = v - row[c - 1]
        ne = feat_nedges[f]
        s += feat_w[f, bin_index(feat_edges[f, :ne], v)]
    return s


@cached_njit
def row_code(spec, row):
    """The 64-bit category key of an output row (CODE statistics)."""
    return code_key(spec.specials, spec.keep_all, spec.low_bits, spec.bit_mask, spec.grain, spec.column, row,
                    row.view(np.uint64))


@cached_njit(inline="always")
def statistic_value(spec, row, bits):
    """The scalar statistic ``spec`` of one output row (``bits``: the row viewed as uint64; NaN:
    the row is in no bin), as the kernel and the block path both compute it."""
    kind = spec.kind
    if kind == VALUE:
        return row[spec.column]
    if kind == LINEAR:
        return linear_value(spec.bias, spec.weights, row)
    if kind == ADDITIVE:
        return additive_value(spec.feat_col, spec.feat_kind, spec.feat_nedges, spec.feat_edges, spec.feat_w, row)
    return code_rank(spec.keys, spec.ranks, code_key(spec.specials, spec.keep_all, spec.low_bits, spec.bit_mask,
                                                     spec.grain, spec.column, row, bits))


@cached_njit(parallel=True)
def _code_block(spec, rows, out):
    for i in prange(rows.shape[0]):
        out[i] = row_code(spec, rows[i])


@cached_njit
def _code_rows(spec, rows, out):
    for i in range(rows.shape[0]):
        out[i] = row_code(spec, rows[i])


def code_block(spec, rows, out):
    """out[i] = category key of rows[i] (used to build CODE statistics), in parallel from
    :data:`SERIAL_BELOW` rows."""
    (_code_rows if rows.shape[0] < SERIAL_BELOW else _code_block)(spec, rows, out)


@cached_njit(inline="always")
def _statistic_at(spec, rows, out, i):
    row = rows[i]
    out[i] = statistic_value(spec, row, row.view(np.uint64))


@cached_njit(parallel=True)
def _statistic_block(spec, rows, out):
    for i in prange(rows.shape[0]):
        _statistic_at(spec, rows, out, i)


@cached_njit
def _statistic_rows(spec, rows, out):
    for i in range(rows.shape[0]):
        _statistic_at(spec, rows, out, i)


def statistic_block(spec, rows, out):
    """out[i] = statistic of rows[i] (the block path, for any mechanism), in parallel from
    :data:`SERIAL_BELOW` rows."""
    (_statistic_rows if rows.shape[0] < SERIAL_BELOW else _statistic_block)(spec, rows, out)


# --------------------------------------------------------------- kernel
#: statistics one call of the counting kernel counts on the same outputs (the audit's two layers;
#: a third statistic is counted by a second call on the same drawn chunk): an unused slot holds an
#: empty statistic, so one compiled counting kernel serves every count (each slot is inlined into
#: it: more slots, more compile time of that kernel, which is compiled once for all mechanisms)
MAX_STATS = 2
#: kind of an unused slot
NONE = -1


@cached_njit(inline="always")
def count_slot(spec, row, bits, counts, k, edges, edge_at, grid_lo, grid_scale, starts, start_at):
    """Count the statistic of slot k of one output row into its histogram (see count_kernel)."""
    s = statistic_value(spec, row, bits)
    if s == s:
        first = edge_at[k]
        cells = start_at[k + 1] - start_at[k] - 1
        if cells > 0:
            j = grid_bin_index_in(edges, first, starts, start_at[k], cells, grid_lo[k], grid_scale[k], s)
        else:
            j = bin_index_in(edges, first, edge_at[k + 1] - first, s)
        counts[first + k + j] += 1


@cached_njit(parallel=True, error_model=ERROR_MODEL)     # one model: each emit compiled once (engine/kernel.py)
def draw_kernel(mech, x, seeds, rows):
    """rows[i] = output i of ``mech`` on ``x``, in blocks of BLOCK rows: block j (rows
    j * BLOCK .. (j + 1) * BLOCK - 1, the last one possibly shorter) starts with
    ``np.random.seed(seeds[j])``, so the draws do not depend on the thread count or on how the
    caller cuts a stream of blocks into calls.  The only kernel compiled per mechanism type: it
    holds nothing but the mechanism (1.7-1.8 s of compilation measured, against 9-12 s for a
    kernel with the statistics inlined)."""
    n = rows.shape[0]
    for j in prange(seeds.shape[0]):
        np.random.seed(seeds[j])
        for i in range(j * BLOCK, min(n, (j + 1) * BLOCK)):
            emit(mech, x, rows[i])


@cached_njit(parallel=True)
def count_kernel(rows, spec0, spec1, used, edges, edge_at, grid_lo, grid_scale, starts, start_at, counts, bad):
    """Count several statistics of the output rows into histogram bins, block by block (block j:
    rows j * BLOCK .. (j + 1) * BLOCK - 1, counted into counts[j] and bad[j]).

    For each of the first ``used`` slots k (statistic spec0, spec1), with its edges
    e = edges[edge_at[k]:edge_at[k + 1]], counts[j, edge_at[k] + k + b] += #rows of block j
    whose statistic lies in bin b = (e[b-1], e[b]] (e[-1] = -inf, e[len] = +inf; NaN: no bin),
    looked up on the grid (grid_lo[k], grid_scale[k], starts[start_at[k]:start_at[k + 1]]) of
    :func:`bin_grid` unless that is empty.  A row with a non-finite entry is counted in bad[j]
    and in no bin.  (The slots are separate arguments, unrolled: a tuple of specs cannot enter a
    parallel loop, and selecting one per output costs more than the statistic.)  Mechanism-free:
    compiled once for every mechanism."""
    n, d = rows.shape
    for j in prange(counts.shape[0]):
        cb = counts[j]
        for i in range(j * BLOCK, min(n, (j + 1) * BLOCK)):
            row = rows[i]
            finite = True
            for c in range(d):
                if not np.isfinite(row[c]):
                    finite = False
            if not finite:
                bad[j] += 1
                continue
            bits = row.view(np.uint64)
            if used > 0:
                count_slot(spec0, row, bits, cb, 0, edges, edge_at, grid_lo, grid_scale, starts, start_at)
            if used > 1:
                count_slot(spec1, row, bits, cb, 1, edges, edge_at, grid_lo, grid_scale, starts, start_at)


#: bytes of drawn outputs :func:`count_bins` holds at a time (it draws a chunk of blocks into one
#: buffer, then counts it; at least one block per thread)
CHUNK_BYTES = 1 << 25


_NO_SPEC = None


def _no_spec():
    global _NO_SPEC
    if _NO_SPEC is None:
        _NO_SPEC = make_spec(NONE)
    return _NO_SPEC


def _slots(binnings):
    """The kernel's slot arguments for ``binnings`` [(spec, edges, grid)] (unused slots empty):
    (specs, used, edges, edge_at, grid_lo, grid_scale, starts, start_at)."""
    if len(binnings) > MAX_STATS:
        raise ValueError(f"at most {MAX_STATS} statistics per pass (got {len(binnings)})")
    specs, edges, starts = [], [], []
    lo, scale = np.zeros(MAX_STATS), np.zeros(MAX_STATS)
    for k, (spec, e, grid) in enumerate(binnings):
        e = np.ascontiguousarray(e, dtype=np.float64)
        lo[k], scale[k], g = bin_grid(e) if grid is None else grid
        specs.append(spec)
        edges.append(e)
        starts.append(np.asarray(g, dtype=np.int64))
    specs += [_no_spec()] * (MAX_STATS - len(binnings))

    def packed(arrays, dtype):
        at = np.zeros(MAX_STATS + 1, np.int64)
        at[1:len(arrays) + 1] = np.cumsum([a.size for a in arrays])
        at[len(arrays) + 1:] = at[len(arrays)]
        return (np.concatenate(arrays).astype(dtype) if arrays else np.zeros(0, dtype)), at

    edges_all, edge_at = packed(edges, np.float64)
    starts_all, start_at = packed(starts, np.int64)
    return specs, len(binnings), edges_all, edge_at, lo, scale, starts_all, start_at


def sample_rows(mech, x, seeds, n, d) -> np.ndarray:
    """n outputs of a compiled mechanism as an (n, d) array (blocks seeded by ``seeds``)."""
    rows = np.empty((n, d))
    with numba.parallel_chunksize(CHUNK_BLOCKS):
        draw_kernel(mech, x, seeds, rows)
    return rows


def count_bins(mech, x, seeds, n, d, binnings, on_rows=None) -> tuple[list[np.ndarray], int]:
    """Histograms of several statistics of the same n fresh outputs, and how many outputs had a
    non-finite entry (counted in no histogram).

    ``binnings``: (spec, edges, grid) triples, any number; histogram k has len(edges) + 1 bins;
    ``grid`` is the edges' :func:`bin_grid` (None: computed here).  The outputs are drawn a chunk
    of blocks at a time (:data:`CHUNK_BYTES`) and each chunk is counted by every group of
    MAX_STATS statistics, then handed to ``on_rows`` (statistics evaluated in Python), so every
    statistic sees the same draws, drawn once, never all stored: the counts are those of
    :func:`sample_rows`'s outputs, in O(blocks x bins + chunk) memory.
    """
    groups = [_slots(binnings[i:i + MAX_STATS]) for i in range(0, len(binnings), MAX_STATS)]
    blocks = seeds.shape[0]
    counts = [np.zeros((blocks, max(1, edge_at[used] + used)), dtype=np.int64) for _, used, _, edge_at, *_ in groups]
    bad = np.zeros(blocks, dtype=np.int64)
    per_chunk = max(numba.get_num_threads() * CHUNK_BLOCKS, CHUNK_BYTES // (BLOCK * d * 8))
    buffer = np.empty((min(n, per_chunk * BLOCK), d))
    with numba.parallel_chunksize(CHUNK_BLOCKS):
        for first in range(0, blocks, per_chunk):
            last = min(blocks, first + per_chunk)
            rows = buffer[:min(n, last * BLOCK) - first * BLOCK]
            draw_kernel(mech, x, seeds[first:last], rows)
            for g, (specs, used, edges, edge_at, lo, scale, starts, start_at) in enumerate(groups):
                # the same rows in every group: the non-finite ones are counted by the first
                count_kernel(rows, *specs, used, edges, edge_at, lo, scale, starts, start_at,
                             counts[g][first:last], bad[first:last] if g == 0 else np.zeros(last - first, np.int64))
            if on_rows is not None:
                on_rows(rows)
    hists = []
    for (_, used, _, edge_at, *_), c in zip(groups, counts):
        total = c.sum(axis=0)
        hists += [total[edge_at[k] + k:edge_at[k + 1] + k + 1] for k in range(used)]
    return hists, int(bad.sum())


def block_seeds(seed: int, n: int, *key: int) -> np.ndarray:
    """uint32 seeds of the ceil(n / BLOCK) blocks of one sample stream."""
    count = max(1, math.ceil(n / BLOCK))
    ss = np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))
    return ss.generate_state(count, dtype=np.uint32)


def compiled_mechanism(component, output_dim: int, *, name: str | None = None,
                       claimed_eps: float | None = None, claimed_delta: float = 0.0,
                       input_range=None, doc: str | None = None):
    """Wrap a component with a registered ``emit`` into ``mechanism(x, n, seed) -> ndarray``.

    The callable returns shape (n,) when ``output_dim == 1`` and (n, d) otherwise,
    and carries ``.component``/``.output_dim`` (the audit's counting fast path),
    plus the usual ``.name``, ``.claimed_eps``, ``.claimed_delta``, ``.input_range``.
    """
    if not registered("emit", type(component)):      # fails early if it cannot emit at all
        implementation("privatize", type(component))
    d = check_int("output_dim", output_dim, low=1)

    def mechanism(x, n, seed):
        n = check_int("n", n, low=1)
        xs = np.atleast_1d(np.asarray(x, dtype=np.float64))
        out = sample_rows(component, xs, block_seeds(stream_seed(seed), n), n, d)
        return out[:, 0] if d == 1 else out

    mechanism.__name__ = mechanism.__qualname__ = name or type(component).__name__
    mechanism.__doc__ = doc or type(component).__doc__
    mechanism.name = mechanism.__name__
    mechanism.component = component
    mechanism.output_dim = d
    mechanism.claimed_eps = claimed_eps
    mechanism.claimed_delta = claimed_delta
    mechanism.input_range = input_range
    return mechanism
