"""Event search: which set S of outputs an audit certifies.

Every event is a union of bins of one scalar *statistic* of the output row:

* ``value``/``column j``  the (scalar) output or one coordinate: thresholds,
  intervals and their complements (StatDP uses half-lines only);
* ``category``            discrete outputs (labels, bit vectors, action sequences):
  the categories seen at selection ranked by their estimated likelihood ratio,
  so prefixes of the ranking are the Neyman-Pearson events; ``pattern`` does the
  same after merging all non-repeating (continuous) entries, ``bits`` after
  keeping only sign, exponent and low mantissa bits (floating-point artefacts);
* ``log-likelihood ratio`` the exact log p(y|x) - log p(y|x') when the caller
  supplies densities; otherwise learned scores: ``naive-Bayes`` (additive
  per-coordinate histogram log-ratios, also on consecutive differences),
  ``logistic`` (a linear classifier) and ``sign`` (a linear classifier on which
  coordinates exceed their median).  Thresholds on a score are the events.

Selection (:func:`search`) ranks candidate events by the bound they would
certify if the certification counts equalled the selection frequencies
(``statistics.approx_eps_bound`` on projected counts, with half a pseudo-count
on the smaller side), less a winner's-curse margin of sqrt(2 ln N) selection
standard errors for N candidates; the mass of the event is free, so large
violations on rare events are found (no ln(1/c) cap).  Selection data never
certify anything.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import optimize

from . import fast
from .fast import ADDITIVE, CODE, LINEAR, VALUE, StatSpec
from .statistics import approx_eps_bound

#: at most this many categories are ranked (rarer ones fall in no event)
MAX_CATEGORIES = 4096
#: a value repeating in at least this fraction of outputs is a "special" value
SPECIAL_FRACTION = 0.002
#: outputs per input used to find special values and quantile bin edges
SUBSAMPLE = 200_000
#: bins of a score/value beyond which only half-lines (not all intervals) are searched
MAX_INTERVAL_BINS = 400
#: standard errors subtracted from a validated proxy (see :func:`validate`)
VALIDATION_MARGIN = 1.0


# ------------------------------------------------------------------ statistics
def make_spec(kind: int, **fields) -> StatSpec:
    """A StatSpec with every unused field filled by an empty array of the right type."""
    base = dict(kind=kind, column=0, bias=0.0, weights=np.zeros(1),
                feat_col=np.zeros(1, np.int64), feat_diff=np.zeros(1, np.int64),
                feat_nedges=np.zeros(1, np.int64), feat_edges=np.zeros((1, 1)),
                feat_w=np.zeros((1, 2)), specials=np.zeros(0), keep_all=True, low_bits=0,
                bit_mask=np.uint64(0), keys=np.zeros(0, np.uint64), ranks=np.zeros(0))
    base.update(fields)
    spec = StatSpec(**base)
    if kind != ADDITIVE:
        spec = spec._replace(feat_col=np.zeros(0, np.int64))
    return spec


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


def find_specials(rows1: np.ndarray, rows2: np.ndarray, limit: int = 64) -> np.ndarray:
    """Values that repeat in at least SPECIAL_FRACTION of all entries (flags such as
    'abort' or the labels of a discrete output), most frequent first, at most ``limit``."""
    rows1, rows2 = rows1[:SUBSAMPLE], rows2[:SUBSAMPLE]
    pooled = np.concatenate([rows1.ravel(), rows2.ravel()])
    pooled = pooled[np.isfinite(pooled)]
    if pooled.size == 0:
        return np.zeros(0)
    values, counts = np.unique(pooled, return_counts=True)
    keep = counts >= max(2, SPECIAL_FRACTION * pooled.size)
    values, counts = values[keep], counts[keep]
    order = np.argsort(-counts, kind="stable")[:limit]
    return np.sort(values[order])


def category_statistic(rows1, rows2, *, name="category", specials=None, low_bits=0,
                       min_coverage=0.5) -> Statistic | None:
    """Rank the categories (exact rows, or rows with non-special entries merged, or bit
    patterns) by their likelihood ratio on the fit samples; None if the categories
    seen cover less than ``min_coverage`` of the samples (a continuous output)."""
    keep_all = specials is None
    mask = np.uint64(0)
    if low_bits:
        mask = np.uint64(0xFFF0000000000000) | np.uint64((1 << int(low_bits)) - 1)
    probe = make_spec(CODE, specials=np.zeros(0) if keep_all else np.asarray(specials, np.float64),
                      keep_all=keep_all, low_bits=int(low_bits), bit_mask=mask)
    k1, k2 = _codes(rows1, probe), _codes(rows2, probe)
    keys, inverse = np.unique(np.concatenate([k1, k2]), return_inverse=True)
    c1 = np.bincount(inverse[:k1.size], minlength=keys.size).astype(np.float64)
    c2 = np.bincount(inverse[k1.size:], minlength=keys.size).astype(np.float64)
    total = c1 + c2
    if keys.size > MAX_CATEGORIES:
        top = np.sort(np.argsort(-total, kind="stable")[:MAX_CATEGORIES])
        keys, c1, c2, total = keys[top], c1[top], c2[top], total[top]
    # a category seen once predicts nothing: coverage counts repeated categories only
    if total[total >= 2].sum() < min_coverage * (k1.size + k2.size) or keys.size < 2:
        return None
    log_ratio = np.log((c1 + 0.5) / (k1.size + 0.5)) - np.log((c2 + 0.5) / (k2.size + 0.5))
    order = np.argsort(-log_ratio, kind="stable")
    ranks = np.empty(keys.size)
    ranks[order] = np.arange(keys.size, dtype=np.float64)
    spec = probe._replace(keys=keys, ranks=ranks)
    return Statistic(name, spec, discrete=True, info={"categories": int(keys.size)})


def _feature_values(rows: np.ndarray, col: int, diff: bool) -> np.ndarray:
    v = rows[:, col]
    return v - rows[:, col - 1] if diff and col > 0 else v


def _feature_edges(v1: np.ndarray, v2: np.ndarray, bins: int) -> np.ndarray:
    """Bin edges of one feature: a bin of its own for each special value, quantiles elsewhere."""
    specials = find_specials(v1[:, None], v2[:, None], limit=16)
    pooled = np.concatenate([v1[:SUBSAMPLE], v2[:SUBSAMPLE]])
    rest = pooled[~np.isin(pooled, specials)] if specials.size else pooled
    edges = [np.quantile(rest, np.linspace(0, 1, bins + 1)[1:-1])] if rest.size else []
    for s in specials:
        edges.append(np.array([np.nextafter(s, -np.inf), s]))
    return np.unique(np.concatenate(edges)) if edges else np.zeros(0)


def _soft_log_ratio(c1, c2, m1, m2, z: float = 1.0):
    """Per-bin log-ratio shrunk towards 0 by z standard errors (soft threshold), so that
    coordinates carrying no signal add no noise to an additive score."""
    llr = np.log((c1 + 0.5) / (m1 + 0.5)) - np.log((c2 + 0.5) / (m2 + 0.5))
    se = np.sqrt(1.0 / (c1 + 0.5) + 1.0 / (c2 + 0.5))
    return np.sign(llr) * np.maximum(np.abs(llr) - z * se, 0.0)


def additive_statistic(rows1, rows2, *, diff: bool, bins: int = 24) -> Statistic:
    """Naive-Bayes score: sum over coordinates (or consecutive differences) of the
    histogram log-ratio of that coordinate.  Exact for independent coordinates."""
    d = rows1.shape[1]
    cols = np.arange(d, dtype=np.int64)
    all_edges, all_w = [], []
    for c in cols:
        v1, v2 = _feature_values(rows1, c, diff), _feature_values(rows2, c, diff)
        edges = _feature_edges(v1, v2, bins)
        n_bins = edges.size + 1
        c1 = np.bincount(np.searchsorted(edges, v1), minlength=n_bins).astype(np.float64)
        c2 = np.bincount(np.searchsorted(edges, v2), minlength=n_bins).astype(np.float64)
        all_edges.append(edges)
        all_w.append(_soft_log_ratio(c1, c2, v1.size, v2.size))
    width = max(1, max(e.size for e in all_edges))
    feat_edges = np.full((d, width), np.inf)
    feat_w = np.zeros((d, width + 1))
    for f, (e, w) in enumerate(zip(all_edges, all_w)):
        feat_edges[f, :e.size] = e
        feat_w[f, :w.size] = w
    spec = make_spec(ADDITIVE, feat_col=cols, feat_diff=np.full(d, int(diff), np.int64),
                     feat_nedges=np.array([e.size for e in all_edges], np.int64),
                     feat_edges=feat_edges, feat_w=feat_w)
    return Statistic("naive-Bayes score (differences)" if diff else "naive-Bayes score", spec, learned=True)


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
        spec = make_spec(ADDITIVE, feat_col=np.arange(d, dtype=np.int64), feat_diff=np.zeros(d, np.int64),
                         feat_nedges=np.ones(d, np.int64), feat_edges=med.reshape(d, 1).copy(), feat_w=feat_w)
        out.append(Statistic(name, spec, learned=True))
    return out


def llr_statistic(log_density: Callable, x, x_prime) -> Statistic:
    """The exact log-likelihood ratio log p(y|x) - log p(y|x') from caller-supplied densities."""
    def score(rows):
        y = rows[:, 0] if rows.shape[1] == 1 else rows
        return np.asarray(log_density(y, x), np.float64) - np.asarray(log_density(y, x_prime), np.float64)
    return Statistic("log-likelihood ratio", func=score)


def candidate_statistics(rows1, rows2, *, log_density=None, x=None, x_prime=None,
                         features=("auto",)) -> list[Statistic]:
    """The statistics worth trying for these outputs (fit samples of M(x) and M(x'))."""
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
        stats.append(additive_statistic(rows1, rows2, diff=False))
        stats.append(additive_statistic(rows1, rows2, diff=True))
        for learned in [logistic_statistic(rows1, rows2), *sign_statistic(rows1, rows2)]:
            if learned is not None:
                stats.append(learned)
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
        return f"{self.statistic.describe()} in {self.label}"

    def key(self):
        return (id(self.statistic), self.forward, self.bins.tobytes())


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
    input, of m_a) and ``b`` (other input, of m_b): the bound ``n_cert`` certification samples
    would give at these frequencies (half a pseudo-count on the other side), minus ``z_sel``
    selection standard errors of the estimated log-ratio ln(p_a - delta) - ln(p_b), so that the
    maximum over many candidates does not favour lucky rare events (winner's curse).
    ``with_se``: also return that standard error."""
    p_a = a / max(m_a, 1)
    p_b = (b + 0.5) / max(m_b, 1)
    base = approx_eps_bound(p_a * n_cert, n_cert, p_b * n_cert, n_cert, z_cert, delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        lever = np.where(p_a > delta, p_a / (p_a - delta), np.inf)
        se = np.sqrt(lever ** 2 / np.maximum(a, 1.0) + 1.0 / (b + 0.5))
    return (base - z_sel * se, se) if with_se else base - z_sel * se


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


def search_counts(stat: Statistic, edges: np.ndarray, c1, c2, m1: int, m2: int, n_cert: int,
                  alpha: float, deltas, *, top: int = 1) -> list[Event]:
    """:func:`search` on bin counts: ``c1``/``c2`` are the histograms (bins of ``edges``) of
    ``m1``/``m2`` selection outputs of M(x)/M(x') (outputs in no bin count in m only)."""
    from .statistics import one_sided_z
    n_bins = edges.size + 1
    c1 = np.asarray(c1, dtype=np.float64)
    c2 = np.asarray(c2, dtype=np.float64)
    C1 = np.concatenate([[0.0], np.cumsum(c1)])
    C2 = np.concatenate([[0.0], np.cumsum(c2)])
    if n_bins <= MAX_INTERVAL_BINS:
        ii, jj = np.triu_indices(n_bins)
    else:
        j_all = np.arange(n_bins)
        ii = np.concatenate([np.zeros(n_bins, np.int64), j_all])
        jj = np.concatenate([j_all, np.full(n_bins, n_bins - 1)])
    in1 = C1[jj + 1] - C1[ii]
    in2 = C2[jj + 1] - C2[ii]
    out1, out2 = C1[-1] - in1, C2[-1] - in2
    z = one_sided_z(alpha)
    z_full = math.sqrt(2.0 * math.log(4.0 * ii.size + 1.0))   # largest noise among the candidates
    margins = [z_full] if top == 1 else [1.0, z_full]
    # candidate families: (count favoured, count other, m favoured, m other, complement?, favours x?)
    families = [(in1, in2, m1, m2, False, True), (in2, in1, m2, m1, False, False),
                (out1, out2, m1, m2, True, True), (out2, out1, m2, m1, True, False)]
    events = []
    for delta in np.atleast_1d(deltas):
        picked = {}
        for a, b, ma, mb, complement, forward in families:
            for z_sel in margins:
                score = _proxy(a, b, ma, mb, n_cert, z, z_sel, float(delta))
                order = np.argsort(-score, kind="stable")[:top]
                for idx in order:
                    if not np.isfinite(score[idx]) and picked:
                        continue
                    key = (int(idx), complement, forward)
                    if key not in picked or score[idx] > picked[key]:
                        picked[key] = float(score[idx])
        ranked = sorted(picked.items(), key=lambda kv: -kv[1])[:top if top == 1 else None]
        for (idx, complement, forward), proxy in ranked:
            i, j = int(ii[idx]), int(jj[idx])
            mask = np.zeros(n_bins, dtype=bool)
            mask[i:j + 1] = True
            if complement:
                mask = ~mask
            events.append(Event(stat, edges, mask, forward, proxy, float(delta),
                                _label(edges, i, j, complement, n_bins, stat.discrete)))
    return events


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
