"""Scores and projections of vector outputs (law): thresholds on a fitted score are the events.

* ``naive-Bayes score``: the sum over coordinates of each coordinate's histogram log-ratio
  (exact for independent coordinates), also on consecutive differences (prefix sums);
* ``logistic score``: a linear classifier separating M(x) from M(x') (DP-Sniper's);
* ``sign score`` / ``sign count``: which coordinates exceed their median, weighted by a
  logistic regression or by the fitted signs -- the right scores when each coordinate carries
  a small, saturating signal (many Laplace outputs of one input).
"""
from __future__ import annotations

import numpy as np
from scipy import optimize

from ..fast import ADDITIVE, FEATURE_DIFF, FEATURE_VALUE, LINEAR, make_spec
from ..layers import LAW
from .additive import additive_statistic
from .base import Feature, FitData, Statistic, interval, label_entries, vector


class Score(Feature):
    name = "score"
    layer = LAW
    help = "scores of vector outputs (naive-Bayes, logistic, sign counts): thresholds on a projection"
    fix = "the noise is too small for the sensitivity of the released vector (l1 / l2): calibrate its scale"
    order = 30

    def statistics(self, data: FitData) -> list[Statistic]:
        if data.d < 2 or label_entries(data.rows_x).any() or label_entries(data.rows_x_prime).any():
            return []                                   # a score weighs numbers, not labels
        rows1, rows2 = data.rows_x, data.rows_x_prime
        out = [additive_statistic(self, "naive-Bayes score", rows1, rows2, kind=FEATURE_VALUE),
               additive_statistic(self, "naive-Bayes score (differences)", rows1, rows2, kind=FEATURE_DIFF)]
        logistic = logistic_statistic(self, rows1, rows2)
        if logistic is not None:
            out.append(logistic)
        return out + sign_statistics(self, rows1, rows2)

    def describe(self, stat: Statistic, edges, bins, labels: dict) -> str:
        spec, info = stat.spec, stat.info
        if spec.kind == LINEAR:
            return interval("<w, y>", edges - spec.bias, bins) + f" with w = {vector(spec.weights)}"
        if "medians" in info:
            return (interval("sum_j w_j [y_j > m_j]", edges, bins)
                    + f" with w = {vector(info['weights'])}, m = {vector(info['medians'])}")
        heavy = vector(np.argsort(-info["weight_span"])[:4], 6)
        what = ("each coordinate's difference from the previous one" if "differences" in stat.name
                else "each coordinate")
        return (interval(stat.name, edges, bins)
                + f" (a sum of per-coordinate log-ratios fitted at selection, of {what}; "
                  f"most weight on coordinates {heavy})")


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


def logistic_statistic(feature, rows1, rows2, l2: float = 1e-4, max_rows: int = 100_000) -> Statistic | None:
    """Linear score of a logistic regression separating M(x) from M(x') (DP-Sniper's classifier)."""
    fit = _fit_logistic(rows1, rows2, l2, max_rows)
    if fit is None:
        return None
    return Statistic(feature, "logistic score", make_spec(LINEAR, weights=fit[0], bias=fit[1]), learned=True)


def sign_statistics(feature, rows1, rows2, l2: float = 1e-4, max_rows: int = 100_000) -> list[Statistic]:
    """Weighted count of coordinates above their pooled median, and the plain count with the fitted signs.

    The weights come from a logistic regression on the sign features (fitted on ``max_rows``
    rows per input); the count's signs are the signs of the differences of the above-median
    frequencies on all fit rows (cheap, and the weak per-coordinate signals need every row).
    """
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
                         feat_nedges=np.ones(d, np.int64), feat_edges=med.reshape(d, 1), feat_w=feat_w)
        out.append(Statistic(feature, name, spec, learned=True, info={"weights": weights, "medians": med}))
    return out


FEATURE = Score()
