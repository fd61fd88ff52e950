"""Additive (naive-Bayes) scores: the sum over coordinates of a per-coordinate histogram log-ratio.

Of each coordinate's value, or of its difference from the previous one.  Exact for
independent coordinates; the per-bin log-ratios are shrunk towards 0 by one standard error, so
that coordinates carrying no signal add no noise.
"""
from __future__ import annotations

import numpy as np

from ..fast import ADDITIVE, FEATURE_DIFF, histogram, make_spec
from .base import Feature, Statistic
from .ranked import SUBSAMPLE, find_specials


def feature_values(rows: np.ndarray, col: int, kind: int) -> np.ndarray:
    """What an additive score reads from coordinate ``col``: its value or its difference from the previous one."""
    v = rows[:, col]
    return v - rows[:, col - 1] if kind == FEATURE_DIFF and col > 0 else v


def feature_edges(v1: np.ndarray, v2: np.ndarray, bins: int) -> np.ndarray:
    """Bin edges of one coordinate: a bin of its own for each atom, quantiles elsewhere."""
    specials = find_specials(v1[:, None], v2[:, None], limit=16)
    pooled = np.concatenate([v1[:SUBSAMPLE], v2[:SUBSAMPLE]])
    rest = pooled[~np.isin(pooled, specials)] if specials.size else pooled
    edges = [np.quantile(rest, np.linspace(0, 1, bins + 1)[1:-1])] if rest.size else []
    for s in specials:
        edges.append(np.array([np.nextafter(s, -np.inf), s]))
    return np.unique(np.concatenate(edges)) if edges else np.zeros(0)


def soft_log_ratio(c1, c2, m1, m2, z: float = 1.0):
    """Per-bin log-ratio shrunk towards 0 by z standard errors (soft threshold)."""
    llr = np.log((c1 + 0.5) / (m1 + 0.5)) - np.log((c2 + 0.5) / (m2 + 0.5))
    se = np.sqrt(1.0 / (c1 + 0.5) + 1.0 / (c2 + 0.5))
    return np.sign(llr) * np.maximum(np.abs(llr) - z * se, 0.0)


def additive_statistic(feature: Feature, name: str, rows1, rows2, *, kind: int, bins: int = 24) -> Statistic:
    """The naive-Bayes score of ``kind`` (fast.FEATURE_VALUE / FEATURE_DIFF) fitted on rows1 (M(x))
    and rows2 (M(x'))."""
    d = rows1.shape[1]
    cols = np.arange(d, dtype=np.int64)
    all_edges, all_w = [], []
    for c in cols:
        v1, v2 = feature_values(rows1, c, kind), feature_values(rows2, c, kind)
        edges = feature_edges(v1, v2, bins)
        c1 = histogram(v1, edges).astype(np.float64)          # the outputs are finite (source.as_rows)
        c2 = histogram(v2, edges).astype(np.float64)
        all_edges.append(edges)
        all_w.append(soft_log_ratio(c1, c2, v1.size, v2.size))
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
    return Statistic(feature, name, spec, learned=True, info={"weight_span": weight})
