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
  whose failure the fit reports (a claim decided on it is inconclusive); a run whose
  repetitions have no spread gets no invented weight: the fit falls back to the residual
  scatter of the log means, and says so.
* :func:`p_text`, :func:`p_is`: a p-value as text, "< 1e-300" where it underflows (never a
  bare "0").
* :class:`Estimate`: a random number with its standard error and degrees of freedom, whose
  interval can be drawn at any level (the level a report's family-wise correction sets);
  :func:`bootstrap_estimate` and :func:`difference_estimate` make one from repetitions.
  An estimate with no spread is *degenerate* unless it is exact (a computed constant).
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


def p_text(p: float, digits: int = 3) -> str:
    """A p-value as text with ``digits`` significant digits; a tail too small for double
    precision reads "< 1e-300" (it computes as 0, which a reader would take for exactly zero)."""
    return "< 1e-300" if p == 0 else f"{p:.{digits}g}"


def confidence_text(alpha: float) -> str:
    """1 - alpha as text: "0.95", or "1 - 1e-12" where the difference would print as 1."""
    return f"{1 - alpha:g}" if f"{1 - alpha:g}" != "1" else f"1 - {alpha:g}"


def p_is(p: float, digits: int = 2) -> str:
    """"p = 0.012", or "p < 1e-300" where the p-value underflows (:func:`p_text`)."""
    text = p_text(p, digits)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


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


@dataclass(frozen=True)
class Estimate:
    """A measured number with its standard error: ``value / se`` is Student-t with ``df``
    degrees of freedom (``inf``: normal), so its interval can be drawn at any level.

    ``reps`` is the number of repetitions behind it (what "more repetitions" scales: the
    standard error falls like 1/sqrt(reps) when ``scales_with_reps``); ``exact`` marks a
    computed, non-random number (a constant, a formula), which needs no interval.  A random
    estimate whose standard error is zero or not finite is *degenerate*: it decides nothing.
    """
    value: float
    se: float
    df: float = math.inf
    reps: int | None = None
    exact: bool = False
    method: str = ""
    scales_with_reps: bool = True

    @classmethod
    def exact_value(cls, value: float, method: str = "computed") -> Estimate:
        return cls(float(value), 0.0, exact=True, method=method)

    @property
    def degenerate(self) -> str:
        """Why this estimate cannot support an interval ("" if it can)."""
        if self.exact:
            return ""
        if not math.isfinite(self.value):
            return f"estimate {self.value}"
        if not math.isfinite(self.se):
            return "no finite standard error"
        if self.se <= 1e-9 * abs(self.value) or self.se <= 0.0:     # identical repetitions' rounding noise
            return (f"zero spread over {self.reps} repetitions" if self.reps else "zero spread") + \
                   " (a zero-width interval decides nothing)"
        return ""

    def quantile(self, tail: float) -> float:
        """The multiplier q of ``se`` that leaves ``tail`` probability above value + q se."""
        if self.df == math.inf or self.df > 1e6:
            return float(stats.norm.isf(tail))
        return float(stats.t.isf(tail, max(self.df, 1.0)))

    def interval(self, tail: float) -> Interval:
        """The two-sided interval with ``tail`` probability beyond each end (level 1 - 2 tail)."""
        if self.exact:
            return Interval(self.value, self.value, self.value, 1.0, "exact")
        half = self.quantile(tail) * self.se
        return Interval(self.value, self.value - half, self.value + half, 1.0 - 2.0 * tail,
                        self.method or "t", self.se)

    def __str__(self):
        if self.exact:
            return f"{self.value:.6g} (exact)"
        return f"{self.value:.4g} (s.e. {self.se:.2g})"


def difference_estimate(a, b) -> Estimate:
    """mean(a) - mean(b) of independent samples, Welch's standard error and Welch-Satterthwaite
    degrees of freedom."""
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if min(a.size, b.size) < 2:
        raise InputError("a difference of means needs at least 2 values per sample")
    va, vb = _variance(a) / a.size, _variance(b) / b.size
    se2 = va + vb
    parts = [(v, n - 1) for v, n in ((va, a.size), (vb, b.size)) if v > 0]
    df = se2 ** 2 / sum(v * v / d for v, d in parts) if parts else math.inf
    return Estimate(float(a.mean() - b.mean()), math.sqrt(se2), float(df), int(min(a.size, b.size)),
                    method="Welch")


def paired_difference_estimate(a, b) -> Estimate:
    """mean(a - b) of samples paired by position (e.g. two runs whose repetition r met the same
    instance): the t estimate of the differences (n - 1 degrees of freedom)."""
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.size != b.size:
        raise InputError(f"paired samples must have one size (got {a.size} and {b.size})")
    est = mean_estimate(a - b)
    return Estimate(est.value, est.se, est.df, est.reps, method="paired t")


def mean_estimate(x) -> Estimate:
    """mean(x) with its standard error (t with n - 1 degrees of freedom)."""
    x = np.asarray(x, dtype=float).ravel()
    if x.size < 2:
        raise InputError("a mean's standard error needs at least 2 values")
    return Estimate(float(x.mean()), math.sqrt(_variance(x) / x.size), float(x.size - 1), int(x.size),
                    method="t")


def _variance(x: np.ndarray) -> float:
    """The sample variance; exactly 0 when every value is equal (rounding in the mean would
    otherwise leave a spurious 1e-25)."""
    return 0.0 if x.size < 2 or np.ptp(x) == 0 else float(x.var(ddof=1))


def bootstrap_estimate(samples: Sequence, statistic: Callable, *, n_resamples: int = 2000,
                       seed: int = 0, paired: bool = False) -> Estimate:
    """``statistic(*samples, axis=-1)`` with its bootstrap standard error (repetitions of each
    sample resampled independently; ``paired``: the samples are paired by position, e.g. runs
    whose repetition r met the same instance, and the positions are resampled jointly); t with
    (smallest sample - 1) degrees of freedom.  Its interval at a report's family-wise level is
    value +- q se: at levels like 1 - 1e-4 a percentile interval of a few thousand resamples would
    be read off its extreme resamples."""
    data = tuple(np.asarray(s, dtype=float).ravel() for s in samples)
    if not data or min(d.size for d in data) < 2:
        raise InputError("bootstrap_estimate needs samples of at least 2 values each")
    if paired and len({d.size for d in data}) != 1:
        raise InputError(f"paired samples must have one size (got {[d.size for d in data]})")
    estimate = float(statistic(*data, axis=-1))
    rng = np.random.default_rng(seed)
    if paired:
        rows = rng.integers(0, data[0].size, (n_resamples, data[0].size))
        draws = statistic(*(d[rows] for d in data), axis=-1)
    else:
        draws = statistic(*(d[rng.integers(0, d.size, (n_resamples, d.size))] for d in data), axis=-1)
    draws = np.asarray(draws, dtype=float)
    finite = draws[np.isfinite(draws)]
    se = float(finite.std(ddof=1)) if finite.size == draws.size and finite.size > 1 else math.inf
    n = min(d.size for d in data)
    return Estimate(estimate, se, float(n - 1), int(n),
                    method=f"{'paired ' if paired else ''}bootstrap s.e. ({n_resamples} resamples)")


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


def power_law(xs: Sequence[float], samples: Sequence, *, level: float = 0.95,
              lack_of_fit_alpha: float = 0.01) -> SlopeFit:
    """Exponent of y against x across runs: WLS of ln(mean y_i) on ln x_i, weights the inverse
    delta-method variances var(y_i) / (n_i mean(y_i)^2).

    The interval assumes those variances are right (statsmodels' 'fixed scale'); the
    lack-of-fit statistic (weighted residual sum of squares, chi-square with n - 2 degrees of
    freedom) tests that assumption.  When it fails at ``lack_of_fit_alpha`` the power law does
    not describe the points within their noise: ``diagnostics['degenerate']`` says so (a claim
    decided on this fit is inconclusive) and the interval is widened by the overdispersion
    (Birge ratio) for display.

    A run whose repetitions have no spread (a deterministic cell) has no sampling variance to
    weight by: the fit is then ordinary least squares of the log means, its interval from the
    residual scatter alone (t with n - 2 degrees of freedom), and ``diagnostics['zero_variance']``
    lists those runs.  With no residual degree of freedom, or no scatter at all, the interval has
    zero or infinite width and ``diagnostics['degenerate']`` says why.  Nothing is floored.
    """
    xs = np.asarray(xs, dtype=float)
    ys = [np.asarray(s, dtype=float).ravel() for s in samples]
    means = np.array([y.mean() for y in ys])
    var_log = np.array([_variance(y) / (y.size * m * m) for y, m in zip(ys, means)])
    design = sm.add_constant(np.log(xs))
    df = xs.size - 2
    reps = int(min(y.size for y in ys))
    ols = sm.OLS(np.log(means), design).fit()
    zero = [float(x) for x, v in zip(xs, var_log) if not v > 0]
    diagnostics = {"df": df, "residuals": ols.resid.tolist(), "zero_variance": zero, "degenerate": "",
                   "lack_of_fit_chi2": math.nan, "lack_of_fit_p": math.nan, "birge_ratio": math.nan,
                   "scale": 1.0, "reps": reps}
    if zero:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            se = float(ols.bse[1]) if df > 0 else math.nan
        slope = float(ols.params[1])
        if df > 0 and se <= 1e-9 * max(1.0, abs(slope)):
            se = 0.0                                     # exact points: rounding is not scatter
        if df > 0 and se > 0:
            half = float(stats.t.isf((1 - level) / 2, df)) * se
        else:
            half = math.nan if df <= 0 else 0.0
        diagnostics["degenerate"] = (
            f"{len(zero)} run(s) without spread over repetitions (at {', '.join(f'{x:g}' for x in zero)}): "
            + ("no residual degree of freedom for an interval" if df <= 0 else
               "and the log means lie exactly on a line: a zero-width interval" if se == 0 else ""))
        if df > 0 and se > 0:
            diagnostics["degenerate"] = ""              # an honest interval from the residual scatter
        diagnostics.update(method="OLS of log means (residual scatter; runs without spread carry no weight)",
                           se_df=float(df), scales_with_reps=False)
        return SlopeFit(slope, float(ols.params[0]), (slope - half, slope + half), level,
                        float(ols.rsquared), se, int(xs.size), ols, diagnostics)
    weights = 1.0 / var_log
    base = sm.WLS(np.log(means), design, weights=weights).fit(cov_type="fixed scale")
    chi2 = float(np.sum(weights * base.resid ** 2))
    birge = chi2 / df if df > 0 else math.nan
    scale = max(1.0, birge) if df > 0 else 1.0
    res = sm.WLS(np.log(means), design, weights=weights).fit(cov_type="fixed scale",
                                                            cov_kwds={"scale": scale})
    lo, hi = res.conf_int(alpha=1 - level)[1]
    p_lof = float(stats.chi2.sf(chi2, df)) if df > 0 else math.nan
    diagnostics.update(lack_of_fit_chi2=chi2, birge_ratio=birge, scale=scale, lack_of_fit_p=p_lof,
                       method="WLS of log means (delta-method weights)", se_df=float(max(reps - 1, 1)),
                       scales_with_reps=True)
    if df > 0 and p_lof < lack_of_fit_alpha:
        diagnostics["degenerate"] = (f"the power law fails its lack-of-fit test (chi2 = {chi2:.3g} on {df} df, "
                                     f"p = {p_lof:.2g} < {lack_of_fit_alpha:g}): the points are not one power "
                                     "law within their noise")
    return SlopeFit(float(res.params[1]), float(res.params[0]), (float(lo), float(hi)), level,
                    float(ols.rsquared), float(base.bse[1]), int(xs.size), res, diagnostics)


def slope_estimate(fit: SlopeFit) -> Estimate:
    """The slope of a :func:`power_law` fit as an :class:`Estimate` (standard error without the
    display widening; degrees of freedom and scaling from the fit's method)."""
    d = fit.diagnostics
    return Estimate(fit.slope, fit.se if math.isfinite(fit.se) else math.inf, d.get("se_df", math.inf),
                    d.get("reps"), method=d.get("method", ""), scales_with_reps=d.get("scales_with_reps", True))


__all__ = ["Interval", "Estimate", "TestResult", "SlopeFit", "bootstrap_ci", "bootstrap_estimate",
           "difference_estimate", "paired_difference_estimate", "mean_estimate", "mean_ratio", "compare", "holm",
           "curve_slope", "power_law", "slope_estimate", "WELCH", "MANN_WHITNEY"]
