"""Event search: which set S of outputs an audit certifies.

Every event is a union of bins of one scalar *statistic* of the output row:

* ``value``/``column j``  the (scalar) output or one coordinate: thresholds,
  intervals and their complements (StatDP uses half-lines only);
* ``category``            discrete outputs (labels, bit vectors, action sequences):
  the categories seen at selection ranked by their estimated likelihood ratio,
  so prefixes of the ranking are the Neyman-Pearson events (categories unseen at
  selection share one last rank); ``pattern`` does the same after merging every
  entry that is not an *atom* (a value repeating ATOM_MIN_COUNT times: a flag, a
  bottom symbol, or a value a continuous mechanism releases with positive mass);
  ``granularity`` ranks the binade and the trailing zero mantissa bits of
  floating-point outputs by their likelihood ratio given the binade: ``x + noise``
  computed in floating point has a granularity that depends on x (Mironov,
  CCS'12), whatever the sampler; ``bits`` (on request) keeps sign, exponent and
  the low mantissa bits;
* ``log-likelihood ratio`` the exact log p(y|x) - log p(y|x') when the caller
  supplies densities; otherwise learned scores: ``naive-Bayes`` (additive
  per-coordinate histogram log-ratios, also on consecutive differences and on
  each coordinate's granularity), ``logistic`` (a linear classifier) and ``sign``
  (a linear classifier on which coordinates exceed their median).  Thresholds on a
  score are the events.

Selection (:func:`search`) ranks candidate events by the bound they would
certify if the event's probabilities sat at the pessimistic ends of their
selection intervals (:func:`_proxy`), shortlisting the best of each family and of
each decade of mass, so that rare events reach validation; the mass of the event
is free, so large violations on rare events are found (no ln(1/c) cap).  An event
never seen under one input (:func:`rare_event`) cannot be told from a tail at the
claimed ratio on selection data; the audit judges it on fresh refinement outputs.
Selection data never certify anything.  Events are described in output space
(:func:`describe_event`).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from . import fast
from .fast import ADDITIVE, CODE, FEATURE_DIFF, FEATURE_GRAIN, FEATURE_VALUE, LINEAR, VALUE, StatSpec, make_spec
from .statistics import approx_eps_bound

#: at most this many categories are ranked (rarer ones fall in no event)
MAX_CATEGORIES = 4096
#: a value repeating at least this many times among the fit outputs is an atom (a category of
#: its own): exact repeats of a continuous law are improbable, so an atom of mass p shows once
#: p times the fit outputs reaches a few
ATOM_MIN_COUNT = 3
#: outputs per input used to find special values and quantile bin edges
SUBSAMPLE = 200_000
#: bins of a score/value beyond which only half-lines (not all intervals) are searched
MAX_INTERVAL_BINS = 400
#: standard errors subtracted from a validated proxy (see :func:`validate`)
VALIDATION_MARGIN = 1.0


# ------------------------------------------------------------------ statistics
@dataclass
class Statistic:
    """A scalar function of an output row; ``spec`` (compiled) or ``func`` (Python)."""
    name: str
    spec: StatSpec | None = None
    func: Callable | None = None
    discrete: bool = False
    info: dict = field(default_factory=dict)
    learned: bool = False         # a fitted score (preferred only when clearly better)

    @property
    def compiled(self) -> bool:
        return self.spec is not None

    def evaluate(self, rows: np.ndarray) -> np.ndarray:
        if self.func is not None:
            out = np.asarray(self.func(rows), dtype=np.float64).reshape(-1)
            if out.shape[0] != rows.shape[0]:
                raise ValueError(f"statistic {self.name!r} returned {out.shape[0]} values "
                                 f"for {rows.shape[0]} outputs")
            return out
        out = np.empty(rows.shape[0])
        fast.statistic_block(self.spec, rows, out)
        return out

    def describe(self) -> str:
        return self.name


def value_statistic(column: int, d: int) -> Statistic:
    return Statistic("value" if d == 1 else f"column {column}", make_spec(VALUE, column=column))


def _codes(rows: np.ndarray, spec: StatSpec) -> np.ndarray:
    out = np.empty(rows.shape[0], dtype=np.uint64)
    fast.code_block(spec, rows, out)
    return out


def _fractional(rows: np.ndarray) -> bool:
    """Whether the outputs are floating-point numbers rather than integers or labels."""
    sample = rows[:SUBSAMPLE]
    return bool(np.any(sample != np.floor(sample)))


def find_specials(rows1: np.ndarray, rows2: np.ndarray, limit: int = 64) -> np.ndarray:
    """Atoms: values that repeat at least ATOM_MIN_COUNT times among all entries (flags such
    as 'abort', the labels of a discrete output, or a value a continuous mechanism releases
    with positive probability), most frequent first, at most ``limit``."""
    rows1, rows2 = rows1[:SUBSAMPLE], rows2[:SUBSAMPLE]
    pooled = np.concatenate([rows1.ravel(), rows2.ravel()])
    pooled = pooled[np.isfinite(pooled)]
    if pooled.size == 0:
        return np.zeros(0)
    values, counts = np.unique(pooled, return_counts=True)
    keep = counts >= ATOM_MIN_COUNT
    values, counts = values[keep], counts[keep]
    order = np.argsort(-counts, kind="stable")[:limit]
    return np.sort(values[order])


def category_statistic(rows1, rows2, *, name="category", specials=None, low_bits=0, grain=False,
                       min_coverage=0.5) -> Statistic | None:
    """Rank the categories (exact rows, or rows with non-special entries merged, or bit
    patterns, or granularity classes) by their likelihood ratio on the fit samples; None if
    the categories seen cover less than ``min_coverage`` of the samples (a continuous
    output).  Categories not seen here share one "other" rank, after all the others."""
    keep_all = specials is None
    mask = np.uint64(0)
    if low_bits:
        mask = np.uint64(0xFFF0000000000000) | np.uint64((1 << int(low_bits)) - 1)
    probe = make_spec(CODE, specials=np.zeros(0) if keep_all else np.asarray(specials, np.float64),
                      keep_all=keep_all, low_bits=int(low_bits), bit_mask=mask, grain=bool(grain))
    k1, k2 = _codes(rows1, probe), _codes(rows2, probe)
    keys, first, inverse = np.unique(np.concatenate([k1, k2]), return_index=True, return_inverse=True)
    c1 = np.bincount(inverse[:k1.size], minlength=keys.size).astype(np.float64)
    c2 = np.bincount(inverse[k1.size:], minlength=keys.size).astype(np.float64)
    total = c1 + c2
    if keys.size > MAX_CATEGORIES:
        top = np.sort(np.argsort(-total, kind="stable")[:MAX_CATEGORIES])
        keys, first, c1, c2, total = keys[top], first[top], c1[top], c2[top], total[top]
    # a category seen once predicts nothing: coverage counts repeated categories only
    if total[total >= 2].sum() < min_coverage * (k1.size + k2.size) or keys.size < 2:
        return None
    log_ratio = np.log((c1 + 0.5) / (k1.size + 0.5)) - np.log((c2 + 0.5) / (k2.size + 0.5))
    if grain and rows1.shape[1] == 1:
        # rank by the granularity *given* the binade: the magnitude of the outputs is the value
        # statistic's business, and ranking by it here would make a coarse copy of that
        log_ratio -= _binade_log_ratio(keys, c1, c2)
    order = np.argsort(-log_ratio, kind="stable")
    ranks = np.empty(keys.size)
    ranks[order] = np.arange(keys.size, dtype=np.float64)
    spec = probe._replace(keys=keys, ranks=ranks)
    # one output row per category, in rank order, to describe events in output space
    examples = np.concatenate([rows1, rows2])[first[order]]
    mode = "grain" if grain else ("bits" if low_bits else ("exact" if keep_all else "pattern"))
    return Statistic(name, spec, discrete=True,
                     info={"categories": int(keys.size), "mode": mode, "examples": examples,
                           "specials": None if keep_all else np.asarray(specials, np.float64),
                           "low_bits": int(low_bits)})


def _binade_log_ratio(codes, c1, c2) -> np.ndarray:
    """Per granularity code (fast.grain_key, sign and exponent above the low 6 bits), the log
    frequency ratio of its binade (sign and exponent), from per-code counts c1, c2."""
    binade = np.asarray(codes).astype(np.uint64) >> np.uint64(6)
    _, inverse = np.unique(binade, return_inverse=True)
    b1, b2 = np.bincount(inverse, weights=c1), np.bincount(inverse, weights=c2)
    m1, m2 = c1.sum(), c2.sum()
    return (np.log((b1 + 0.5) / (m1 + 0.5)) - np.log((b2 + 0.5) / (m2 + 0.5)))[inverse]


def grain_codes(values: np.ndarray) -> np.ndarray:
    """The granularity code (:func:`fast.grain_key`) of every value, as float64."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    out = np.empty(values.size)
    fast.grain_block(values.view(np.uint64).ravel(), out)
    return out.reshape(values.shape)


def _feature_values(rows: np.ndarray, col: int, kind: int) -> np.ndarray:
    v = rows[:, col]
    if kind == FEATURE_DIFF and col > 0:
        return v - rows[:, col - 1]
    if kind == FEATURE_GRAIN:
        return grain_codes(v)
    return v


def _feature_edges(v1: np.ndarray, v2: np.ndarray, bins: int, discrete: bool = False) -> np.ndarray:
    """Bin edges of one feature: a bin of its own for each special value, quantiles elsewhere
    (``discrete``: one bin per value seen, for codes)."""
    if discrete:
        uniq = np.unique(np.concatenate([v1[:SUBSAMPLE], v2[:SUBSAMPLE]]))
        return 0.5 * (uniq[1:] + uniq[:-1])
    specials = find_specials(v1[:, None], v2[:, None], limit=16)
    pooled = np.concatenate([v1[:SUBSAMPLE], v2[:SUBSAMPLE]])
    rest = pooled[~np.isin(pooled, specials)] if specials.size else pooled
    edges = [np.quantile(rest, np.linspace(0, 1, bins + 1)[1:-1])] if rest.size else []
    for s in specials:
        edges.append(np.array([np.nextafter(s, -np.inf), s]))
    return np.unique(np.concatenate(edges)) if edges else np.zeros(0)


def _soft_log_ratio(c1, c2, m1, m2, z: float = 1.0, shift=0.0):
    """Per-bin log-ratio (less ``shift``) shrunk towards 0 by z standard errors (soft
    threshold), so that coordinates carrying no signal add no noise to an additive score."""
    llr = np.log((c1 + 0.5) / (m1 + 0.5)) - np.log((c2 + 0.5) / (m2 + 0.5)) - shift
    se = np.sqrt(1.0 / (c1 + 0.5) + 1.0 / (c2 + 0.5))
    return np.sign(llr) * np.maximum(np.abs(llr) - z * se, 0.0)


#: name of the additive score of each feature kind
_ADDITIVE_NAMES = {FEATURE_VALUE: "naive-Bayes score", FEATURE_DIFF: "naive-Bayes score (differences)",
                   FEATURE_GRAIN: "granularity score"}


def additive_statistic(rows1, rows2, *, kind: int = FEATURE_VALUE, bins: int = 24) -> Statistic:
    """Naive-Bayes score: sum over coordinates of the histogram log-ratio of that coordinate
    (``kind``: of its value, of its difference from the previous coordinate, or of its
    granularity code).  Exact for independent coordinates."""
    d = rows1.shape[1]
    cols = np.arange(d, dtype=np.int64)
    all_edges, all_w = [], []
    for c in cols:
        v1, v2 = _feature_values(rows1, c, kind), _feature_values(rows2, c, kind)
        edges = _feature_edges(v1, v2, bins, discrete=kind == FEATURE_GRAIN)
        n_bins = edges.size + 1
        c1 = np.bincount(np.searchsorted(edges, v1), minlength=n_bins).astype(np.float64)
        c2 = np.bincount(np.searchsorted(edges, v2), minlength=n_bins).astype(np.float64)
        all_edges.append(edges)
        if kind == FEATURE_GRAIN:
            # one bin per code: weigh the granularity given the binade (as category_statistic)
            codes = np.unique(np.concatenate([v1[:SUBSAMPLE], v2[:SUBSAMPLE]]))
            all_w.append(_soft_log_ratio(c1, c2, v1.size, v2.size, shift=_binade_log_ratio(codes, c1, c2)))
        else:
            all_w.append(_soft_log_ratio(c1, c2, v1.size, v2.size))
    width = max(1, max(e.size for e in all_edges))
    feat_edges = np.full((d, width), np.inf)
    feat_w = np.zeros((d, width + 1))
    for f, (e, w) in enumerate(zip(all_edges, all_w)):
        feat_edges[f, :e.size] = e
        feat_w[f, :w.size] = w
    spec = make_spec(ADDITIVE, feat_col=cols, feat_kind=np.full(d, kind, np.int64),
                     feat_nedges=np.array([e.size for e in all_edges], np.int64),
                     feat_edges=feat_edges, feat_w=feat_w)
    weight = np.array([np.ptp(w) for w in all_w])
    return Statistic(_ADDITIVE_NAMES[kind], spec, learned=True, info={"weight_span": weight})


def _fit_logistic(X1: np.ndarray, X2: np.ndarray, l2: float, max_rows: int):
    """(weights, bias) of an L2-regularised logistic regression of "from M(x)" on features
    (standardised internally; returned on the original scale), or None if degenerate."""
    X = np.vstack([X1[:max_rows], X2[:max_rows]]).astype(np.float64)
    y = np.concatenate([np.ones(min(max_rows, X1.shape[0])), np.zeros(min(max_rows, X2.shape[0]))])
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    Z = (X - mu) / sd

    def loss(w):
        t = Z @ w[1:] + w[0]
        val = np.logaddexp(0.0, t) - y * t                 # log(1 + e^t) - y t, stably
        g = 0.5 * (1.0 + np.tanh(0.5 * t)) - y
        grad = np.concatenate([[g.mean()], Z.T @ g / Z.shape[0] + l2 * w[1:]])
        return val.mean() + 0.5 * l2 * w[1:] @ w[1:], grad

    res = optimize.minimize(loss, np.zeros(Z.shape[1] + 1), jac=True, method="L-BFGS-B",
                            options={"maxiter": 200})
    w = res.x[1:] / sd
    if not np.all(np.isfinite(w)) or not np.any(w):
        return None
    return w, float(res.x[0] - w @ mu)


def logistic_statistic(rows1, rows2, l2: float = 1e-4, max_rows: int = 100_000) -> Statistic | None:
    """Linear score of a logistic regression separating M(x) from M(x') (DP-Sniper's classifier)."""
    fit = _fit_logistic(rows1, rows2, l2, max_rows)
    if fit is None:
        return None
    return Statistic("logistic score", make_spec(LINEAR, weights=fit[0], bias=fit[1]), learned=True)


def sign_statistic(rows1, rows2, l2: float = 1e-4, max_rows: int = 100_000) -> list[Statistic]:
    """Weighted count of coordinates above their pooled median (logistic regression on the
    sign features), and the plain count with the fitted signs (+-1 weights, no weight
    noise): the right scores when each coordinate carries a small, saturating signal,
    e.g. many Laplace outputs of one input (LaplaceParallel).  The count's signs are the
    signs of the differences of the above-median frequencies on all fit rows (cheap, and
    the weak per-coordinate signals need every row); the weighted score is fitted on
    ``max_rows`` rows per input."""
    med = np.median(np.vstack([rows1[:max_rows], rows2[:max_rows]]), axis=0)
    fit = _fit_logistic(rows1 > med, rows2 > med, l2, max_rows)
    if fit is None:
        return []
    d = rows1.shape[1]
    signs = np.sign((rows1 > med).mean(axis=0) - (rows2 > med).mean(axis=0))
    out = []
    for name, weights in (("sign score", fit[0]), ("sign count", signs)):
        feat_w = np.zeros((d, 2))
        feat_w[:, 1] = weights
        spec = make_spec(ADDITIVE, feat_col=np.arange(d, dtype=np.int64), feat_kind=np.zeros(d, np.int64),
                         feat_nedges=np.ones(d, np.int64), feat_edges=med.reshape(d, 1).copy(), feat_w=feat_w)
        out.append(Statistic(name, spec, learned=True, info={"weights": weights, "medians": med}))
    return out


def llr_statistic(log_density: Callable, x, x_prime) -> Statistic:
    """The exact log-likelihood ratio log p(y|x) - log p(y|x') from caller-supplied densities."""
    def score(rows):
        y = rows[:, 0] if rows.shape[1] == 1 else rows
        return np.asarray(log_density(y, x), np.float64) - np.asarray(log_density(y, x_prime), np.float64)
    return Statistic("log-likelihood ratio", func=score)


def candidate_statistics(rows1, rows2, *, log_density=None, x=None, x_prime=None,
                         features=("auto",)) -> list[Statistic]:
    """The statistics worth trying for these outputs (fit samples of M(x) and M(x')).

    "auto": exact categories (discrete outputs), atoms and flags (values that repeat, each
    its own category, the other values merged), every coordinate's value, for vectors the
    learned scores, and for floating-point outputs their granularity (binade and trailing
    zero bits of each coordinate: the artefacts of ``x + noise`` computed in floating point).
    """
    d = rows1.shape[1]
    stats: list[Statistic] = []
    if log_density is not None:
        stats.append(llr_statistic(log_density, x, x_prime))
    features = set(features)
    auto = "auto" in features
    if auto or "category" in features:
        cat = category_statistic(rows1, rows2)
        if cat is not None:
            stats.append(cat)
        if cat is None or d > 1:
            specials = find_specials(rows1, rows2)
            if specials.size:
                pat = category_statistic(rows1, rows2, name="pattern", specials=specials)
                if pat is not None:
                    stats.append(pat)
    if auto or "value" in features:
        stats.extend(value_statistic(j, d) for j in range(d))
    if d > 1 and (auto or "score" in features):
        stats.append(additive_statistic(rows1, rows2, kind=FEATURE_VALUE))
        stats.append(additive_statistic(rows1, rows2, kind=FEATURE_DIFF))
        for learned in [logistic_statistic(rows1, rows2), *sign_statistic(rows1, rows2)]:
            if learned is not None:
                stats.append(learned)
    if (auto or "grain" in features) and _fractional(rows1):
        grain = category_statistic(rows1, rows2, name="granularity", grain=True)
        if grain is not None:
            stats.append(grain)
        if d > 1:
            stats.append(additive_statistic(rows1, rows2, kind=FEATURE_GRAIN))
    for f in features:
        if isinstance(f, str) and f.startswith("bits"):
            k = int(f[4:] or 8)
            b = category_statistic(rows1, rows2, name=f"bits (low {k} mantissa bits)", low_bits=k)
            if b is not None:
                stats.append(b)
    return stats


# ------------------------------------------------------------------ events
@dataclass
class Event:
    """A union of histogram bins of one statistic, favouring one input of the pair.

    ``forward``: the claim tested is P[M(x) in S] <= e^eps P[M(x') in S] + delta
    (else the same with x and x' swapped).  Bin j is (edges[j-1], edges[j]].
    """
    statistic: Statistic
    edges: np.ndarray
    bins: np.ndarray            # bool mask over len(edges) + 1 bins
    forward: bool
    proxy: float                # projected bound that selected it
    delta: float                # the delta it was selected for
    label: str = ""

    def counts(self, hist1: np.ndarray, hist2: np.ndarray) -> tuple[int, int]:
        """(count under the favoured input, count under the other) from bin histograms."""
        a, b = int(hist1[self.bins].sum()), int(hist2[self.bins].sum())
        return (a, b) if self.forward else (b, a)

    def describe(self) -> str:
        """The event in output space ("output == 1", "output in (0.49, 0.51]", ...)."""
        return describe_event(self.statistic, self.edges, self.bins)

    def key(self):
        return (id(self.statistic), self.forward, self.bins.tobytes())


# ------------------------------------------------------------------ descriptions
#: categories listed by name in an event description before "and K more"
LISTED = 6


def _num(v: float) -> str:
    return f"{v:.6g}"


def _vec(v, digits: int = 3) -> str:
    v = np.asarray(v, dtype=np.float64).ravel()
    shown = ", ".join(f"{a:.{digits}g}" for a in v[:12])
    return f"[{shown}{', ...' if v.size > 12 else ''}]"


def _span(bins: np.ndarray) -> tuple[int, int, bool]:
    """(first, last, complement): the event is bins first..last, or all bins but those."""
    inside = np.flatnonzero(bins)
    if inside.size and inside[-1] - inside[0] + 1 == inside.size:
        return int(inside[0]), int(inside[-1]), False
    outside = np.flatnonzero(~bins)
    return int(outside[0]), int(outside[-1]), True


def _interval(var: str, edges: np.ndarray, bins: np.ndarray) -> str:
    """``var`` in the union of bins, as an interval, a half-line or the complement of one."""
    i, j, complement = _span(bins)
    lo = -np.inf if i == 0 else edges[i - 1]
    hi = np.inf if j == edges.size else edges[j]
    if not np.isfinite(lo) and not np.isfinite(hi):
        return "never" if complement else f"any {var}"
    if not np.isfinite(lo):
        return f"{var} > {_num(hi)}" if complement else f"{var} <= {_num(hi)}"
    if not np.isfinite(hi):
        return f"{var} <= {_num(lo)}" if complement else f"{var} > {_num(lo)}"
    return f"{var} {'not in' if complement else 'in'} ({_num(lo)}, {_num(hi)}]"


def grain_text(v: float) -> str:
    """Binade and granularity of one float: "in [0.25, 0.5), an odd multiple of 2^-53"."""
    if v == 0.0:
        return "0"
    mantissa, exponent = math.frexp(abs(v))              # |v| = mantissa * 2^exponent, m in [0.5, 1)
    e = exponent - 1                                      # |v| in [2^e, 2^(e+1))
    bits = np.float64(v).view(np.uint64) & np.uint64((1 << 52) - 1)
    zeros = 52 if bits == 0 else (int(bits) & -int(bits)).bit_length() - 1
    sign = "-" if v < 0 else ""
    if zeros == 52:
        return f"{sign}2^{e} exactly"
    return (f"in {sign}[{2.0 ** e:.6g}, {2.0 ** (e + 1):.6g}), an odd multiple of 2^{e - 52 + zeros} "
            f"({zeros} trailing zero mantissa bit{'s' if zeros != 1 else ''})")


def _category_text(stat: Statistic, row: np.ndarray) -> str:
    """One category of a CODE statistic, in output space, from an example output."""
    info = stat.info
    mode = info.get("mode", "exact")
    if mode == "grain":
        parts = [grain_text(v) for v in row]
    elif mode == "bits":
        k = info["low_bits"]
        parts = []
        for v in row:
            low = int(np.float64(v).view(np.uint64)) & ((1 << k) - 1)
            e = math.frexp(abs(v))[1] - 1 if v else 0
            parts.append(f"{'-' if v < 0 else ''}[2^{e}, 2^{e + 1}) with low {k} mantissa bits "
                         f"{low:0{k}b}")
    elif mode == "pattern":
        specials = info["specials"]
        parts = [_num(v) if np.any(specials == v) else "*" for v in row]
    else:
        parts = [_num(v) for v in row]
    if len(parts) == 1:
        return parts[0]
    joiner = "; " if mode in ("grain", "bits") else ", "
    return "(" + joiner.join(parts) + ")"


def _category_event(stat: Statistic, edges: np.ndarray, bins: np.ndarray) -> str:
    """A union of ranked categories as a set of outputs ("output == -1", "output not in {..}")."""
    examples = stat.info["examples"]
    k = examples.shape[0]
    ranks = np.arange(k + 1, dtype=np.float64)              # rank k: categories unseen at fit
    member = bins[np.searchsorted(edges, ranks)]
    inside, outside = np.flatnonzero(member[:k]), np.flatnonzero(~member[:k])
    mode = stat.info.get("mode", "exact")
    # a pattern of one entry maps every output to an atom or to "any other value", both seen
    other = bool(member[k]) and not (mode == "pattern" and examples.shape[1] == 1)
    if mode == "pattern" and examples.shape[1] == 1:
        atoms = [_num(v) for v in stat.info["specials"]]
        names = [_num(examples[r, 0]) if np.any(stat.info["specials"] == examples[r, 0])
                 else f"a value other than {{{', '.join(atoms[:LISTED])}{', ...' if len(atoms) > LISTED else ''}}}"
                 for r in range(k)]
    else:
        names = [_category_text(stat, examples[r]) for r in range(k)]
    what = {"grain": "output granularity", "bits": "output bits"}.get(mode, "output")

    def listing(idx):
        shown = [names[r] for r in idx[:LISTED]]
        more = f" and {idx.size - LISTED} more" if idx.size > LISTED else ""
        return shown, more

    sep = "; " if mode in ("grain", "bits") or examples.shape[1] > 1 else ", "
    if other and outside.size and outside.size < inside.size + 1:
        shown, more = listing(outside)
        if len(shown) == 1 and not more and mode in ("exact", "pattern"):
            return f"{what} != {shown[0]}"
        return f"{what} not in {{{sep.join(shown)}{more}}}"
    shown, more = listing(inside)
    tail = " or a category not seen at selection" if other else ""
    if len(shown) == 1 and not more and mode in ("exact", "pattern"):
        return f"{what} == {shown[0]}{tail}"
    if not shown:
        return "a category not seen at selection" if other else "never"
    return f"{what} in {{{sep.join(shown)}{more}}}{tail}"


def describe_event(stat: Statistic, edges: np.ndarray, bins: np.ndarray) -> str:
    """An event (a union of bins of a statistic) in output space; fitted scores by their
    direction ("<w, y> > c with w = ...")."""
    spec = stat.spec
    if spec is None:
        return _interval(stat.name, edges, bins)
    if spec.kind == VALUE:
        return _interval("output" if stat.name == "value" else f"output[{spec.column}]", edges, bins)
    if spec.kind == CODE and "examples" in stat.info:
        return _category_event(stat, edges, bins)
    if spec.kind == LINEAR:
        shifted = edges - spec.bias
        return _interval("<w, y>", shifted, bins) + f" with w = {_vec(spec.weights)}"
    info = stat.info
    if "medians" in info:
        return (_interval("sum_j w_j [y_j > m_j]", edges, bins)
                + f" with w = {_vec(info['weights'])}, m = {_vec(info['medians'])}")
    span = info.get("weight_span")
    heavy = "" if span is None else f"; most weight on coordinates {_vec(np.argsort(-span)[:4], 6)}"
    what = ("each coordinate's binade and trailing zero mantissa bits"
            if stat.name == "granularity score" else
            "each coordinate's difference from the previous one" if "differences" in stat.name else
            "each coordinate")
    return (_interval(stat.name, edges, bins)
            + f" (a sum of per-coordinate log-ratios fitted at selection, of {what}{heavy})")


def _edges_for(f1: np.ndarray, f2: np.ndarray, discrete: bool) -> np.ndarray:
    pooled = np.concatenate([f1, f2])
    uniq = np.unique(pooled)
    if uniq.size <= 1:
        return np.zeros(0)
    if discrete or uniq.size <= MAX_INTERVAL_BINS:
        return 0.5 * (uniq[1:] + uniq[:-1])
    srt = np.sort(pooled)
    p = srt.size
    tail = np.unique(np.round(np.geomspace(1, max(2, p // 20), 60)).astype(np.int64))
    ranks = np.unique(np.concatenate([tail - 1, p - tail - 1,
                                      np.round(np.linspace(0, p - 1, 160)).astype(np.int64)]))
    ranks = ranks[(ranks >= 0) & (ranks < p - 1)]
    return np.unique(srt[ranks])


def _label(edges, i, j, complement, n_bins, discrete):
    lo = -np.inf if i == 0 else edges[i - 1]
    hi = np.inf if j == n_bins - 1 else edges[j]
    if discrete:
        text = f"ranks/values ({lo:.6g}, {hi:.6g}]"
    elif i == 0:
        text = f"(-inf, {hi:.6g}]"
    elif j == n_bins - 1:
        text = f"({lo:.6g}, inf)"
    else:
        text = f"({lo:.6g}, {hi:.6g}]"
    return f"the complement of {text}" if complement else text


def _proxy(a, b, m_a, m_b, n_cert, z_cert, z_sel, delta, with_se=False):
    """Projected certified bound of candidate events with selection counts ``a`` (favoured
    input, of m_a outputs) and ``b`` (other input, of m_b): the bound that ``n_cert``
    certification samples would give if the event's probabilities sat at the pessimistic ends
    of their ``z_sel``-sigma selection intervals, p_a = (sqrt(a) - z_sel/2)^2 / m_a and
    p_b = (sqrt(b + 1) + z_sel/2)^2 / m_b (the square-root form of Poisson quantiles that
    ``approx_eps_bound`` uses for the certification itself).  The margin keeps the maximum
    over many candidates from favouring lucky rare events (winner's curse) while an event
    never seen under the other input (b = 0) keeps the promise of its certification counts.
    ``with_se``: also return the selection uncertainty in eps units (the drop from the point
    projection, z_sel = 0, to this one; inf where the projection is vacuous)."""
    def project(z):
        p_a = np.square(np.maximum(np.sqrt(a) - 0.5 * z, 0.0)) / max(m_a, 1)
        p_b = np.square(np.sqrt(b + 1.0) + 0.5 * z) / max(m_b, 1)
        return approx_eps_bound(p_a * n_cert, n_cert, p_b * n_cert, n_cert, z_cert, delta)

    low = project(z_sel)
    if not with_se:
        return low
    with np.errstate(invalid="ignore"):
        se = np.where(np.isfinite(low), project(0.0) - low, np.inf)
    return low, se


def histogram(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Counts of the finite ``values`` in the len(edges) + 1 bins (edges[j-1], edges[j]]."""
    values = values[np.isfinite(values)]
    return np.bincount(np.searchsorted(edges, values), minlength=edges.size + 1).astype(np.int64)


def search(stat: Statistic, s1: np.ndarray, s2: np.ndarray, n_cert: int, alpha: float,
           deltas, *, top: int = 1, edges: np.ndarray | None = None) -> list[Event]:
    """The best events of ``stat`` for each delta in ``deltas`` (selection data s1, s2).

    Candidates: every interval of consecutive bins and its complement (only
    half-lines when there are more than MAX_INTERVAL_BINS bins), in both
    directions, scored by :func:`_proxy`.  With ``top = 1`` the single best event
    per delta (winner's-curse margin sqrt(2 ln N) for N candidates); with ``top > 1``
    a shortlist for :func:`validate`: the ``top`` best of each family (interval /
    complement x direction) under a one-standard-error margin and under the full
    margin, without duplicates.  ``edges`` fixes the bins (default: from the data).
    """
    if edges is None:
        edges = _edges_for(s1[np.isfinite(s1)], s2[np.isfinite(s2)], stat.discrete)
    return search_counts(stat, edges, histogram(s1, edges), histogram(s2, edges), s1.size, s2.size,
                         n_cert, alpha, deltas, top=top)


def _intervals(n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(first, last) bins of the candidate intervals: all of them, or only the half-lines
    when there are more than MAX_INTERVAL_BINS bins."""
    if n_bins <= MAX_INTERVAL_BINS:
        return np.triu_indices(n_bins)
    j_all = np.arange(n_bins)
    return (np.concatenate([np.zeros(n_bins, np.int64), j_all]),
            np.concatenate([j_all, np.full(n_bins, n_bins - 1)]))


def _families(c1, c2, m1: int, m2: int):
    """Candidate events of bin counts c1 / c2 (of m1 / m2 outputs): (first, last) bins of each
    interval and, per family, (count favoured, count other, m favoured, m other, complement?,
    favours x?): intervals and their complements, in both directions."""
    ii, jj = _intervals(len(c1))
    C1 = np.concatenate([[0.0], np.cumsum(np.asarray(c1, dtype=np.float64))])
    C2 = np.concatenate([[0.0], np.cumsum(np.asarray(c2, dtype=np.float64))])
    in1 = C1[jj + 1] - C1[ii]
    in2 = C2[jj + 1] - C2[ii]
    out1, out2 = C1[-1] - in1, C2[-1] - in2
    return ii, jj, [(in1, in2, m1, m2, False, True), (in2, in1, m2, m1, False, False),
                    (out1, out2, m1, m2, True, True), (out2, out1, m2, m1, True, False)]


def _event(stat, edges, i, j, complement, forward, proxy, delta) -> Event:
    n_bins = edges.size + 1
    mask = np.zeros(n_bins, dtype=bool)
    mask[i:j + 1] = True
    if complement:
        mask = ~mask
    return Event(stat, edges, mask, forward, proxy, float(delta),
                 _label(edges, i, j, complement, n_bins, stat.discrete))


def search_counts(stat: Statistic, edges: np.ndarray, c1, c2, m1: int, m2: int, n_cert: int,
                  alpha: float, deltas, *, top: int = 1) -> list[Event]:
    """:func:`search` on bin counts: ``c1``/``c2`` are the histograms (bins of ``edges``) of
    ``m1``/``m2`` selection outputs of M(x)/M(x') (outputs in no bin count in m only)."""
    from .statistics import one_sided_z
    ii, jj, families = _families(c1, c2, m1, m2)
    z = one_sided_z(alpha)
    z_full = math.sqrt(2.0 * math.log(4.0 * ii.size + 1.0))   # largest noise among the candidates
    margins = [z_full] if top == 1 else [1.0, z_full]
    events = []

    def pick(picked, indices, score, complement, forward):
        for idx in indices:
            if not np.isfinite(score[idx]) and picked:
                continue
            key = (int(idx), complement, forward)
            if key not in picked or score[idx] > picked[key]:
                picked[key] = float(score[idx])

    for delta in np.atleast_1d(deltas):
        picked = {}
        for a, b, ma, mb, complement, forward in families:
            for z_sel in margins:
                score = _proxy(a, b, ma, mb, n_cert, z, z_sel, float(delta))
                best = np.argpartition(-score, top - 1)[:top] if score.size > top else np.arange(score.size)
                pick(picked, best[np.argsort(-score[best], kind="stable")], score, complement, forward)
            if top > 1:
                # and the best of every decade of mass, so that a rare event (an atom, a
                # bottom symbol) reaches validation even when common events score higher here
                score = _proxy(a, b, ma, mb, n_cert, z, 1.0, float(delta))
                ok = np.isfinite(score)
                band = np.floor(np.log10(np.maximum(a, 0.5) / max(ma, 1)))
                for value in np.unique(band[ok]):
                    members = np.flatnonzero(ok & (band == value))
                    pick(picked, [members[np.argmax(score[members])]], score, complement, forward)
        ranked = sorted(picked.items(), key=lambda kv: -kv[1])[:top if top == 1 else None]
        for (idx, complement, forward), proxy in ranked:
            events.append(_event(stat, edges, int(ii[idx]), int(jj[idx]), complement, forward, proxy, delta))
    return events


#: a rare event is nominated only if the favoured input shows it at least this often
RARE_MIN_COUNT = 3


def zero_projection(a, m: int, n_cert: int, alpha: float, delta: float):
    """The bound n_cert certification samples would give an event seen ``a`` times in m outputs
    of one input and never under the other, if it truly never occurred there."""
    from .statistics import one_sided_z
    return approx_eps_bound(np.asarray(a, dtype=np.float64) * n_cert / max(m, 1), n_cert, 0.0, n_cert,
                            one_sided_z(alpha), delta)


def rare_event(stat: Statistic, s1: np.ndarray, s2: np.ndarray, n_cert: int, alpha: float,
               delta: float) -> Event | None:
    """The most promising event of ``stat`` never seen under one input (an atom, a bottom
    symbol, a granularity class, a far tail) on selection data s1, s2: the one with the
    largest :func:`zero_projection`, seen at least RARE_MIN_COUNT times under the other input;
    None if there is none.  Selection data cannot tell such an event from a tail of ratio
    e^eps, so the audit only *nominates* it here and judges it on fresh outputs."""
    f1, f2 = s1[np.isfinite(s1)], s2[np.isfinite(s2)]
    edges = _edges_for(f1, f2, stat.discrete)
    ii, jj, families = _families(histogram(f1, edges), histogram(f2, edges), s1.size, s2.size)
    best = None
    for a, b, ma, _mb, complement, forward in families:
        ok = np.flatnonzero((b == 0) & (a >= RARE_MIN_COUNT))
        if ok.size == 0:
            continue
        idx = ok[np.argmax(a[ok])]
        proxy = float(zero_projection(a[idx], ma, n_cert, alpha, delta))
        if np.isfinite(proxy) and (best is None or proxy > best.proxy):
            best = _event(stat, edges, int(ii[idx]), int(jj[idx]), complement, forward, proxy, delta)
    return best


def validate(events: list[Event], s1: np.ndarray, s2: np.ndarray, n_cert: int,
             alpha: float) -> np.ndarray:
    """(proxy, standard error) rows of shortlisted events recomputed on fresh selection
    data (s1, s2).  The shortlist was chosen on other data, so a lucky screening count does
    not carry over; the proxy is taken VALIDATION_MARGIN standard errors low."""
    if not events:
        return np.zeros((0, 2))
    edges = events[0].edges
    return validate_counts(events, histogram(s1, edges), histogram(s2, edges), s1.size, s2.size,
                           n_cert, alpha)


def validate_counts(events: list[Event], h1, h2, m1: int, m2: int, n_cert: int,
                    alpha: float) -> np.ndarray:
    """:func:`validate` on bin counts (histograms of m1 / m2 fresh outputs, the events' bins)."""
    from .statistics import one_sided_z
    z = one_sided_z(alpha)
    out = np.empty((len(events), 2))
    for e, ev in enumerate(events):
        a, b = ev.counts(h1, h2)
        ma, mb = (m1, m2) if ev.forward else (m2, m1)
        out[e] = _proxy(np.float64(a), np.float64(b), ma, mb, n_cert, z, VALIDATION_MARGIN, ev.delta,
                        with_se=True)
    return out
