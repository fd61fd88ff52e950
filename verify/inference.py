"""The statistical primitives every claim and fit uses: one bootstrap, one two-sample test,
Holm's correction, and statsmodels regressions whose results object carries the CIs.

* :func:`bootstrap_ci`: a confidence interval of any statistic of one or several
  independent samples (repetitions of separate runs are resampled independently),
  over :func:`scipy.stats.bootstrap` (BCa by default, percentile when BCa degenerates).
  The project's only bootstrap.
* :func:`compare`: one-sided two-sample test on per-repetition values, Welch's t
  (:func:`scipy.stats.ttest_ind` with ``equal_var=False``) or Mann-Whitney U.
* :func:`holm`: Holm's step-down adjustment of a family of p-values
  (:func:`statsmodels.stats.multitest.multipletests`).
* :func:`curve_slope`: OLS of stacked per-repetition curves on one regressor with
  cluster-robust (by repetition) covariance: a curve's points share their repetition,
  so a naive OLS standard error over checkpoints would be far too small.
* :func:`power_law`: weighted least squares of log means on log x across separate runs
  (weights from the delta-method variance of each log mean), with a lack-of-fit test
  and the residual scatter folded into the interval when it exceeds the sampling noise.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.multitest import multipletests

from dpbench.validation import InputError

WELCH, MANN_WHITNEY = "welch", "mannwhitney"


@dataclass(frozen=True)
class Interval:
    """A point estimate with its confidence interval."""
    estimate: float
    low: float
    high: float
    level: float
    method: str
    se: float = math.nan

    def contains(self, value: float, tolerance: float = 0.0) -> bool:
        """Does [low, high] meet [value - tolerance, value + tolerance]?"""
        return self.low - tolerance <= value <= self.high + tolerance

    def __str__(self):
        return f"{self.estimate:.4g} [{self.low:.4g}, {self.high:.4g}]"


def mean_ratio(x, y, axis=-1):
    """mean(x) / mean(y) along ``axis`` (a vectorised bootstrap statistic)."""
    return np.mean(x, axis=axis) / np.mean(y, axis=axis)


def bootstrap_ci(samples: Sequence, statistic: Callable, *, level: float = 0.95, n_resamples: int = 9999,
                 seed: int = 0, method: str = "BCa") -> Interval:
    """Bootstrap interval of ``statistic(*samples, axis=-1)`` (vectorised over a last axis).

    Each sample is resampled independently (repetitions of different runs are independent).
    ``method``: 'BCa' (default) or 'percentile'; a BCa interval that degenerates (e.g. a
    statistic constant under resampling) falls back to the percentile interval.
    """
    data = tuple(np.asarray(s, dtype=float).ravel() for s in samples)
    if not data or min(d.size for d in data) < 2:
        raise InputError("bootstrap_ci needs samples of at least 2 values each")
    estimate = float(statistic(*data, axis=-1))
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap(data, statistic, n_resamples=n_resamples, vectorized=True, paired=False,
                              confidence_level=level, method=method, rng=rng)
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if method != "percentile" and not (math.isfinite(low) and math.isfinite(high)):
            method = "percentile"
            res = stats.bootstrap(data, statistic, n_resamples=n_resamples, vectorized=True, paired=False,
                                  confidence_level=level, method=method, bootstrap_result=res, rng=rng)
            low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return Interval(estimate, low, high, level, f"bootstrap ({method}, {n_resamples} resamples)",
                    float(res.standard_error))


@dataclass(frozen=True)
class TestResult:
    """A one-sided two-sample test: H1 is ``a <alternative> b`` (e.g. 'less': a is smaller)."""
    method: str
    alternative: str
    statistic: float
    p_value: float
    mean_a: float
    mean_b: float

    def __str__(self):
        name = "Welch t" if self.method == WELCH else "Mann-Whitney U"
        return f"{name} = {self.statistic:.3g}, one-sided p = {self.p_value:.2g}"


def compare(a, b, *, alternative: str = "less", method: str = WELCH) -> TestResult:
    """One-sided test of H1: a < b ('less') or a > b ('greater') on independent samples."""
    if alternative not in ("less", "greater"):
        raise InputError(f"alternative must be 'less' or 'greater' (got {alternative!r})")
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if min(a.size, b.size) < 2:
        raise InputError("a two-sample test needs at least 2 values per sample")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == WELCH:
            res = stats.ttest_ind(a, b, equal_var=False, alternative=alternative)
        elif method == MANN_WHITNEY:
            res = stats.mannwhitneyu(a, b, alternative=alternative)
        else:
            raise InputError(f"method must be {WELCH!r} or {MANN_WHITNEY!r} (got {method!r})")
    p = float(res.pvalue)
    if not math.isfinite(p):                 # two constant samples: no evidence either way
        p = 1.0 if a.mean() == b.mean() or (a.mean() > b.mean()) == (alternative == "less") else 0.0
    return TestResult(method, alternative, float(res.statistic), p, float(a.mean()), float(b.mean()))


def holm(p_values: Sequence[float], alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down correction: (reject at family-wise level alpha, adjusted p-values)."""
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    reject, adjusted, _, _ = multipletests(p, alpha=alpha, method="holm")
    return reject, adjusted


# ---------------------------------------------------------------- regressions
@dataclass
class SlopeFit:
    """A fitted slope with its statsmodels results object."""
    slope: float
    intercept: float
    ci: tuple[float, float]
    level: float
    r_squared: float
    se: float
    n_points: int
    results: object = field(repr=False, default=None)     # statsmodels RegressionResults
    diagnostics: dict = field(default_factory=dict)

    def interval(self) -> Interval:
        return Interval(self.slope, self.ci[0], self.ci[1], self.level, "OLS", self.se)


def curve_slope(x: np.ndarray, y: np.ndarray, *, level: float = 0.95) -> SlopeFit:
    """OLS of ``y[r, c]`` (repetition r, checkpoint c) on ``x[c]`` pooled over repetitions, with
    covariance clustered by repetition (curves are correlated along c, independent across r).
    The slope equals the mean of the per-repetition slopes."""
    x = np.asarray(x, dtype=float)
    y = np.atleast_2d(np.asarray(y, dtype=float))
    reps, n = y.shape
    groups = np.repeat(np.arange(reps), n)
    design = sm.add_constant(np.tile(x, reps))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # exact (noise-free) curves: a zero covariance
        res = sm.OLS(y.ravel(), design).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
        lo, hi = res.conf_int(alpha=1 - level)[1]
        se = float(res.bse[1])
    slope = float(res.params[1])
    if not math.isfinite(se):
        lo, hi, se = slope, slope, 0.0
    mean_fit = sm.OLS(y.mean(axis=0), sm.add_constant(x)).fit()
    return SlopeFit(slope, float(res.params[0]), (float(lo), float(hi)), level,
                    float(mean_fit.rsquared), se, n, res,
                    {"r_squared_pooled": float(res.rsquared), "clusters": reps})


def power_law(xs: Sequence[float], samples: Sequence, *, level: float = 0.95) -> SlopeFit:
    """Exponent of y against x across runs: WLS of ln(mean y_i) on ln x_i, weights the inverse
    delta-method variances var(y_i) / (n_i mean(y_i)^2).

    The interval first assumes those variances are right (statsmodels' 'fixed scale'); the
    lack-of-fit statistic (weighted residual sum of squares, chi-square with n - 2 degrees of
    freedom) tests that assumption, and when it exceeds its degrees of freedom the interval is
    widened by that overdispersion (Birge ratio), so curvature of the law shows as a wider
    interval and a small lack-of-fit p-value, never as false precision.
    """
    xs = np.asarray(xs, dtype=float)
    ys = [np.asarray(s, dtype=float).ravel() for s in samples]
    means = np.array([y.mean() for y in ys])
    var_log = np.array([y.var(ddof=1) / (y.size * m * m) for y, m in zip(ys, means)])
    var_log = np.maximum(var_log, 1e-300)
    design = sm.add_constant(np.log(xs))
    weights = 1.0 / var_log
    base = sm.WLS(np.log(means), design, weights=weights).fit(cov_type="fixed scale")
    df = xs.size - 2
    chi2 = float(np.sum(weights * base.resid ** 2))
    birge = chi2 / df if df > 0 else math.nan
    scale = max(1.0, birge) if df > 0 else 1.0
    res = sm.WLS(np.log(means), design, weights=weights).fit(cov_type="fixed scale",
                                                            cov_kwds={"scale": scale})
    lo, hi = res.conf_int(alpha=1 - level)[1]
    ols = sm.OLS(np.log(means), design).fit()
    diagnostics = {"lack_of_fit_chi2": chi2, "df": df, "birge_ratio": birge, "scale": scale,
                   "lack_of_fit_p": float(stats.chi2.sf(chi2, df)) if df > 0 else math.nan,
                   "residuals": ols.resid.tolist()}
    return SlopeFit(float(res.params[1]), float(res.params[0]), (float(lo), float(hi)), level,
                    float(ols.rsquared), float(res.bse[1]), int(xs.size), res, diagnostics)


__all__ = ["Interval", "TestResult", "SlopeFit", "bootstrap_ci", "mean_ratio", "compare", "holm",
           "curve_slope", "power_law", "WELCH", "MANN_WHITNEY"]
