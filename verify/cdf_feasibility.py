"""Exact CDF feasibility checks of Lemma 8 (DP) and Lemma 9 (GDP) (seed 002).

Exact CDF feasibility checks of Lemma 8 (DP) and Lemma 9 (GDP) for the DP-FTPL laws
(seed 002, Wang & Zhu; spec ``seed_002.md`` §3, §4, §8.1 C2-C6, reference values §10).

An FTPL policy is (eps, delta)-DP (Lemma 8) when the CDF F of an arm's perturbation and
the CDF F' after one of its observations changes satisfy, for every real x,

    F(x)     <= e^eps F'(x)       + delta          1 - F(x)  <= e^eps (1 - F'(x)) + delta
    F'(x)    <= e^eps F(x)        + delta          1 - F'(x) <= e^eps (1 - F(x))  + delta

(the swapped pair because neighbouring is symmetric), and a phased elimination policy is
(eps, delta)-GDP (Lemma 9) when intervals and their complements satisfy the same with
delta/2, for all x < y.  ``check`` returns the smallest delta the inequalities need
(``delta_required``: the supremum over x, or over x < y, attained at ``x``/``y``), a
certified upper bound of that supremum over the whole real line, and the slack.

How "for all real x" is made exact
----------------------------------
Every D(x) = P(x) - e^eps Q(x) (P, Q both CDFs or both survival functions) is tabulated
on a grid with two virtual end points, x = -inf and x = +inf, where the CDFs are exactly
0 and 1.  On each cell [a, b] between grid points D is bounded from above by

* monotonicity of CDFs (no assumption): D <= P(b) - e^eps Q(a) for CDFs; this covers the
  two unbounded tail cells (-inf, x_1] and [x_M, +inf) analytically, where the grid ends
  are chosen with tail masses below 1e-30;
* the likelihood ratio r = p/q when the pair has a monotone likelihood ratio (all three
  families do: Gaussian and truncated-Laplace shifts, Beta(a, b) -> Beta(a+1, b-1)):
  D(x) - D(a) = int q (r - e^eps) <= (max r - e^eps)^+ (Q(b) - Q(a)), a second-order bound
  that is exact where r is flat (Lemma 15's tails).

Cells whose bound exceeds the best attained value are split (8 ways) until the bound is
within a tenth of the pass tolerance of it.
With a monotone likelihood ratio the supremum of F - e^eps F' sits where r crosses e^eps
(and that of 1 - F' - e^eps (1 - F) where r crosses e^-eps), so each family adds these
crossings to the grid in closed form and ``delta_required`` is exact, not a grid value.
Lemma 9's suprema over x < y use a running minimum / maximum, O(M) per grid (spec §3.4):

    sup_{x<y} [g(y) - g(x)]        = max_y [g(y) - min_{x<=y} g(x)],     g = F - e^eps F'
    sup_{x<y} [g(x) + h(y)]        = max_y [max_{x<=y} g(x) + h(y)],     h = (1-F) - e^eps (1-F')

The laws and their worst-case neighbours (one observation changed, N fixed)
---------------------------------------------------------------------------
The checker takes a perturbation law class (``check(GaussianLaw, eps, delta, n)``), which says
what a neighbouring pair of it is, whether one pair covers every history, how the delta it needs
depends on N and what the paper's start phase is
(:class:`dpbench.mechanisms.perturbations.FeasibilityFamily`): N(R/N, v/N) against its mean moved
by ``shift``/N (``GaussianLaw``), Algorithm 2's Beta law for every history R -> R+1
(``BetaLaw``), Lemma 15's truncated Laplace law against its centre moved by ``shift``/N, built
with (eps, delta) for Lemma 8 and (eps, delta/2) for Lemma 9 (``Lemma15Law``).  No family is
known here by name.

For a monotone-likelihood-ratio pair, F - e^eps F' only grows with the shift at every x,
so the largest change (shift 1/N) is the worst history for both shift families.

>>> from verify import cdf_feasibility
>>> from dpbench.mechanisms.perturbations import GaussianLaw
>>> r = cdf_feasibility.check_lemma8(GaussianLaw, eps=1.0, delta=0.01, n=8)
>>> r.holds, round(r.delta_required, 8)
(True, 2.92e-06)
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from dpbench.engine.result import to_json
from dpbench.mechanisms import perturbations as P
from dpbench.validation import InputError, check_delta, check_int, check_real

#: a pass is declared when the supremum is at most the allowed delta plus ``tolerance``:
#: TOL (spec §3.2) or, for tiny deltas, 1e-4 of it (never below the 1e-14 rounding floor)
TOL = 1e-12
#: grid ends are placed where every tail mass is below TAIL (the tail cells' bound)
TAIL = 1e-30


def tolerance(allowed: float) -> float:
    """Numerical tolerance of a pass at slack ``allowed`` (CDFs are accurate to ~1e-15)."""
    return max(1e-14, min(TOL, 1e-4 * allowed))


LEMMA8_CONSTRAINTS = ("F(x) <= e^eps F'(x) + delta",
                      "1 - F(x) <= e^eps (1 - F'(x)) + delta",
                      "F'(x) <= e^eps F(x) + delta",
                      "1 - F'(x) <= e^eps (1 - F(x)) + delta")
LEMMA9_CONSTRAINTS = ("F(y) - F(x) <= e^eps (F'(y) - F'(x)) + delta/2",
                      "1 - F(y) + F(x) <= e^eps (1 - F'(y) + F'(x)) + delta/2",
                      "F'(y) - F'(x) <= e^eps (F(y) - F(x)) + delta/2",
                      "1 - F'(y) + F'(x) <= e^eps (1 - F(y) + F(x)) + delta/2")


# ============================================================ neighbouring pairs
@dataclass(frozen=True)
class Pair:
    """A perturbation law and its neighbour after one observation changes.

    A perturbation law, its neighbour after one observation changes, and where the
    likelihood ratio crosses a level (``crossings(c)``; None if unknown).
    """

    law: object
    neighbour: object
    history: dict
    mlr: bool = False
    crossings: Callable[[float], Sequence[float]] | None = None

    def candidates(self, eps: float) -> np.ndarray:
        """Return the points where the supremum can sit: breakpoints and likelihood-ratio crossings."""
        pts = list(self.law.breakpoints()) + list(self.neighbour.breakpoints())
        if self.crossings is not None:
            pts += list(self.crossings(math.exp(eps))) + list(self.crossings(math.exp(-eps)))
        pts = np.asarray(pts, dtype=np.float64)
        return np.unique(pts[np.isfinite(pts)])


def law_pair(law, n: int, options: dict, history: int = 0) -> Pair:
    """Return the neighbouring pair of ``law`` after ``n`` observations.

    ``law`` is a perturbation law class; ``history`` picks one where the family has several
    (:meth:`neighbour_pair` of the law).
    """
    first, second, where, crossings = law.neighbour_pair(n, options, history)
    return Pair(first, second, where, mlr=True, crossings=crossings)


# ============================================================ grid and cell bounds
def _tail_point(laws, side: str) -> float:
    """Return a point beyond which every law has mass <= TAIL on ``side`` (or the support end)."""
    lower = side == "lower"
    mass = (lambda x: max(float(law.cdf(x)) for law in laws)) if lower else \
        (lambda x: max(float(law.sf(x)) for law in laws))
    ends = [law.support()[0 if lower else 1] for law in laws]
    end = min(ends) if lower else max(ends)
    inside = []                                   # breakpoints strictly inside the supports
    for law in laws:
        s_lo, s_hi = law.support()
        b = np.asarray(law.breakpoints(), float)
        b = b[(b > s_lo) & (b < s_hi)]
        inside.append(b if b.size else np.array([0.5 * (s_lo + s_hi)]))
    bps = np.concatenate(inside)
    inner = float(bps.min() if lower else bps.max())
    if math.isfinite(end):
        if mass(end) <= TAIL:
            far = end
        else:
            return end
    else:
        width = max(float(bps.max() - bps.min()), 1e-300)
        step = width
        far = inner - step if lower else inner + step
        while mass(far) > TAIL:
            step *= 2.0
            far = inner - step if lower else inner + step
    # bisect between the far point (mass <= TAIL) and the inner one
    near = inner
    for _ in range(200):
        mid = 0.5 * (far + near)
        if mid == far or mid == near:
            break
        if mass(mid) <= TAIL:
            far = mid
        else:
            near = mid
    return far


def _tabulate(pair: Pair, x: np.ndarray) -> dict:
    """F, S = 1 - F and density of both laws on -inf, x (sorted, finite), +inf."""
    out = {"x": np.concatenate(([-math.inf], x, [math.inf]))}
    for key, law in (("", pair.law), ("n", pair.neighbour)):
        out["F" + key] = np.concatenate(([0.0], law.cdf(x), [1.0]))
        out["S" + key] = np.concatenate(([1.0], law.sf(x), [0.0]))
        out["p" + key] = np.concatenate(([0.0], law.pdf(x), [0.0]))
    return out


def _cell_bounds(Pv, Qv, p, q, ee, kind, mlr):
    """Bound D = P - ee Q on every cell of a grid.

    D = P - ee Q at the grid points, and on each cell [a, b]: upper and lower bounds of D,
    and bounds of its largest rise D(y) - D(x) and fall D(x) - D(y) over a <= x < y <= b.

    ``kind`` 'cdf': P, Q nondecreasing (D' = p - ee q); 'sf': nonincreasing (D' = ee q - p).
    """
    D = Pv - ee * Qv
    Da, Db = D[:-1], D[1:]
    dp, dq = np.abs(Pv[1:] - Pv[:-1]), np.abs(Qv[1:] - Qv[:-1])
    if kind == "cdf":
        ub, lb = Pv[1:] - ee * Qv[:-1], Pv[:-1] - ee * Qv[1:]
        rise, fall = dp, ee * dq
    else:
        ub, lb = Pv[:-1] - ee * Qv[1:], Pv[1:] - ee * Qv[:-1]
        rise, fall = ee * dq, dp
    if mlr:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = p / q
        ra, rb = r[:-1], r[1:]
        rmin, rmax = np.fmin(ra, rb), np.fmax(ra, rb)
        unknown = np.isnan(rmin)
        rmin = np.where(unknown, 0.0, rmin)
        rmax = np.where(unknown, math.inf, rmax)
        with np.errstate(invalid="ignore"):
            # int over the cell of q (r - ee)^+ and of q (ee - r)^+
            up = np.where(np.isinf(rmax), math.inf, np.maximum(rmax - ee, 0.0) * dq)
        down = np.maximum(ee - rmin, 0.0) * dq
        if kind == "sf":
            up, down = down, up
        ub = np.minimum(ub, np.minimum(Da + up, Db + down))
        lb = np.maximum(lb, np.maximum(Da - down, Db - up))
        rise, fall = np.minimum(rise, up), np.minimum(fall, down)
    ub = np.maximum(ub, np.maximum(Da, Db))
    lb = np.minimum(lb, np.minimum(Da, Db))
    return D, ub, lb, rise, fall


def _halfline_parts(t, ee, mlr):
    """Return the four Lemma 8 functions (value, cell upper, cell lower) on a tabulation."""
    return [_cell_bounds(t["F"], t["Fn"], t["p"], t["pn"], ee, "cdf", mlr),
            _cell_bounds(t["S"], t["Sn"], t["p"], t["pn"], ee, "sf", mlr),
            _cell_bounds(t["Fn"], t["F"], t["pn"], t["p"], ee, "cdf", mlr),
            _cell_bounds(t["Sn"], t["S"], t["pn"], t["p"], ee, "sf", mlr)]


def _lemma8_scan(t, ee, mlr, refine):
    """Attained suprema, their locations, cell bounds and the cells worth refining."""
    parts = _halfline_parts(t, ee, mlr)
    sups, where, bounds = [], [], []
    for D, ub, *_ in parts:
        top = float(D.max())
        # the first x attaining it up to rounding (Lemma 15's maxima are flat segments)
        i = int(np.argmax(D >= top - max(1e-12 * abs(top), min(1e-16, 1e-3 * abs(top)))))
        sups.append(top)
        where.append((float(t["x"][i]), None))
        bounds.append(float(ub.max()))
    target = max(0.0, max(sups)) + refine
    flag = np.zeros(t["x"].size - 1, dtype=bool)
    for _, ub, *_ in parts:
        flag |= ub > target
    return sups, where, bounds, flag


def _strict_prefix(acc, values, fill):
    """acc over cells strictly before each cell (fill for the first)."""
    return np.concatenate(([fill], acc.accumulate(values)[:-1]))


def _strict_suffix(acc, values, fill):
    """acc over cells strictly after each cell (fill for the last)."""
    return _strict_prefix(acc, values[::-1], fill)[::-1]


def _lemma9_scan(t, ee, mlr, refine):
    """Interval and complement suprema over x <= y by running minima/maxima (O(M)).

    Bounds: x and y in different cells c < d use the cell bounds of g = F - ee F' and
    h = (1 - F) - ee (1 - F'); in the same cell, the cell's rise (intervals) or fall
    (complements: 1 - ee plus the fall) bound.
    """
    x = t["x"]
    sups, where, bounds, flags = [], [], [], []
    half = 0.5 * refine
    for F, S, Fn, Sn, p, pn in ((t["F"], t["S"], t["Fn"], t["Sn"], t["p"], t["pn"]),
                                (t["Fn"], t["Sn"], t["F"], t["S"], t["pn"], t["p"])):
        g, gU, gL, rise, fall = _cell_bounds(F, Fn, p, pn, ee, "cdf", mlr)
        h, hU, *_ = _cell_bounds(S, Sn, p, pn, ee, "sf", mlr)
        # each cell's own slack: how far its bounds stand out from its end-point values
        g_up = gU - np.maximum(g[:-1], g[1:]) > half
        g_low = np.minimum(g[:-1], g[1:]) - gL > half
        h_up = hU - np.maximum(h[:-1], h[1:]) > half
        # intervals (x, y]: max_y g(y) - min_{x<=y} g(x)
        val = g - np.minimum.accumulate(g)
        j = int(np.argmax(val))
        i = int(np.argmin(g[:j + 1]))
        sups.append(float(val[j]))
        where.append((float(x[i]), float(x[j])))
        as_y = gU - _strict_prefix(np.minimum, gL, math.inf)
        as_x = _strict_suffix(np.maximum, gU, -math.inf) - gL
        bounds.append(float(max(as_y.max(), rise.max())))
        flags += [(rise, None), (as_y, g_up), (as_x, g_low)]
        # complements: max_y max_{x<=y} g(x) + h(y)
        valc = np.maximum.accumulate(g) + h
        jc = int(np.argmax(valc))
        ic = int(np.argmax(g[:jc + 1]))
        sups.append(float(valc[jc]))
        where.append((float(x[ic]), float(x[jc])))
        same = (1.0 - ee) + fall
        as_y = _strict_prefix(np.maximum, gU, -math.inf) + hU
        as_x = gU + _strict_suffix(np.maximum, hU, -math.inf)
        bounds.append(float(max(as_y.max(), same.max())))
        flags += [(same, None), (as_y, h_up), (as_x, g_up)]
    # refine a cell when a pair it belongs to may beat the best value and its own slack matters
    target = max(0.0, max(sups)) + refine
    flag = np.zeros(x.size - 1, dtype=bool)
    for pair_bound, own in flags:
        flag |= (pair_bound > target) if own is None else (pair_bound > target) & own
    return sups, where, bounds, flag


# ============================================================ results
@dataclass
class ConstraintResult:
    """One inequality: the delta it needs (sup over x, or x < y) and where."""

    constraint: str
    delta_required: float
    x: float
    y: float | None
    bound: float


@dataclass
class FeasibilityResult:
    """Outcome of a Lemma 8 / Lemma 9 check of one family (or one pair) at (eps, delta)."""

    lemma: int
    family: str
    eps: float
    delta: float
    n: int | None
    params: dict
    allowed: float                 # delta (Lemma 8) or delta/2 (Lemma 9)
    delta_required: float          # sup over x (and histories) of LHS - e^eps * RHS-part, >= 0
    bound: float                   # certified upper bound of that sup (worst history)
    slack: float                   # allowed - delta_required (< 0: violated)
    holds: bool                    # delta_required <= allowed + tolerance(allowed)
    certified: bool                # bound <= allowed + tolerance: holds for every real x
    worst: ConstraintResult
    history: dict                  # the worst neighbouring pair
    constraints: list = field(default_factory=list)
    histories_checked: int = 1
    grid_points: int = 0
    method: str = ""

    @property
    def violation(self) -> float:
        """How far the worst inequality is violated (0 when it holds)."""
        return max(0.0, self.delta_required - self.allowed)

    def to_dict(self) -> dict:
        """Return the result as strict-JSON data."""
        d = asdict(self)
        d["violation"] = self.violation
        return to_json(d)

    def summary(self) -> str:
        """Describe the verdict, slack and worst point, for the command line."""
        verdict = "HOLDS" if self.holds else "VIOLATED"
        slack = "0 (tight)" if abs(self.slack) <= tolerance(self.allowed) else f"{self.slack:.6g}"
        where = _fmt_x(self.worst.x) if self.worst.y is None else \
            f"({_fmt_x(self.worst.x)}, {_fmt_x(self.worst.y)}]"
        hist = ", ".join(f"{k}={v}" for k, v in self.history.items())
        lines = [f"Lemma {self.lemma} for {self.family} at eps={self.eps:g}, delta={self.delta:g}"
                 + (f", N={self.n}" if self.n is not None else "") + f": {verdict}",
                 f"  delta required {self.delta_required:.6g} vs allowed {self.allowed:.6g} "
                 f"(slack {slack}; certified bound over all x {self.bound:.6g})",
                 f"  worst: {self.worst.constraint} at x = {where}",
                 f"  history: {hist} ({self.histories_checked} neighbouring pair(s) checked)"]
        return "\n".join(lines)


def _fmt_x(x):
    return "-inf" if x == -math.inf else "+inf" if x == math.inf else f"{x:.6g}"


# ============================================================ generic pair check
def check_pair(pair: Pair, eps: float, delta: float, *, lemma: int = 8, grid: int = 2049,
               max_rounds: int = 60, max_points: int = 400_000, family: str = "pair",
               n: int | None = None, params: dict | None = None) -> FeasibilityResult:
    """Lemma 8 or 9 for one neighbouring pair, for every real x (see the module docstring).

    ``pair.law``/``pair.neighbour`` need vectorised ``cdf``, ``sf``, ``pdf``, ``support()``
    and ``breakpoints()`` (the law objects of ``dpbench.mechanisms.perturbations``);
    ``pair.mlr`` enables the likelihood-ratio cell bound (only if the ratio is monotone).
    """
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    lemma = _check_lemma(lemma)
    grid = check_int("grid", grid, low=16)
    ee = math.exp(eps)
    laws = (pair.law, pair.neighbour)
    lo, hi = _tail_point(laws, "lower"), _tail_point(laws, "upper")
    cand = pair.candidates(eps)
    x = np.union1d(np.linspace(lo, hi, grid), cand[(cand > lo) & (cand < hi)])
    allowed = delta if lemma == 8 else delta / 2.0
    tol = tolerance(allowed)
    scan = _lemma8_scan if lemma == 8 else _lemma9_scan
    for _ in range(max_rounds):
        t = _tabulate(pair, x)
        sups, where, bounds, flag = scan(t, ee, pair.mlr, 0.1 * tol)
        flag[0] = flag[-1] = False                          # tail cells: analytic, not split
        room = (max_points - x.size) // 7
        if not flag.any() or room <= 0:
            break
        cells = np.nonzero(flag)[0]
        if cells.size > room:                               # budget: the cells of largest mass
            mass = np.abs(np.diff(t["F"])) + np.abs(np.diff(t["Fn"]))
            cells = cells[np.argsort(mass[cells])[::-1][:room]]
        xs = t["x"]
        a, b = xs[cells], xs[cells + 1]
        fr = np.linspace(0.0, 1.0, 9)[1:-1]
        x = np.union1d(x, (a[:, None] + (b - a)[:, None] * fr[None, :]).ravel())
    names = LEMMA8_CONSTRAINTS if lemma == 8 else LEMMA9_CONSTRAINTS
    rows = [ConstraintResult(c, max(0.0, s), w[0], w[1], max(0.0, b))
            for c, s, w, b in zip(names, sups, where, bounds)]
    worst = max(rows, key=lambda r: r.delta_required)
    if worst.delta_required == 0.0:                         # nothing positive: the limits
        worst = rows[0]
    required = worst.delta_required
    bound = max(r.bound for r in rows)
    return FeasibilityResult(
        lemma=lemma, family=family, eps=eps, delta=delta, n=n, params=params or {},
        allowed=allowed, delta_required=required, bound=bound, slack=allowed - required,
        holds=required <= allowed + tol, certified=bound <= allowed + tol, worst=worst,
        history=dict(pair.history), constraints=rows, grid_points=int(x.size),
        method="grid + closed-form ratio crossings; cell bounds "
               + ("(CDF monotonicity and likelihood ratio)" if pair.mlr else "(CDF monotonicity)"))


# ============================================================ family checks
def _check_lemma(lemma):
    lemma = check_int("lemma", lemma)
    if lemma not in (8, 9):
        raise InputError(f"lemma must be 8 or 9 (got {lemma})")
    return lemma


def _family(law):
    """``law`` if it is a perturbation law class the checker knows how to ask (FeasibilityFamily)."""
    if not (isinstance(law, type) and issubclass(law, P.FeasibilityFamily) and law.NAME):
        raise InputError(f"law must be a perturbation law class ({', '.join(c.__name__ for c in P.FEASIBILITY_LAWS)}"
                         f"; got {law!r})")
    return law


def validate(law, eps, delta, n, lemma=8, **options):
    """Return the validated inputs of a check of ``law``, before anything is compiled.

    (law, eps, delta, n, lemma, the law's options with their defaults).
    """
    law = _family(law)
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    n = check_int("n", n, low=1)
    lemma = _check_lemma(lemma)
    return law, eps, delta, n, lemma, law.options(lemma=lemma, eps=eps, delta=delta, **options)


def family_pair(law, eps, delta, n, *, lemma=8, history=0, **options) -> Pair:
    """Return the neighbouring pair checked for ``law`` after ``n`` observations.

    ``history`` picks one where the law has several.
    """
    law, eps, delta, n, lemma, options = validate(law, eps, delta, n, lemma, **options)
    return law_pair(law, n, options, history)


def check(law, eps: float, delta: float, n: int, *, lemma: int = 8, grid: int = 2049,
          **options) -> FeasibilityResult:
    """Check Lemma ``lemma`` (8 or 9) for the law ``law`` after ``n`` observations, every history.

    Exact: the inequalities are checked for every real x (unbounded tails bounded
    analytically, a certified bound on every grid cell).

    Parameters
    ----------
    law : a perturbation law class
        ``GaussianLaw`` (N(R/N, v/N)), ``BetaLaw`` (Algorithm 2's Beta), ``Lemma15Law`` (Lemma 15's
        truncated Laplace) of :mod:`dpbench.mechanisms.perturbations`, or any
        :class:`~dpbench.mechanisms.perturbations.FeasibilityFamily`.
    eps : float
        Privacy level, >= 0.
    delta : float
        Slack, in [0, 1).
    n : int
        The arm's pull count N, >= 1.
    lemma : {8, 9}
        8: DP (half-lines, slack delta); 9: GDP (intervals and complements, slack delta/2).
    grid : int
        Initial grid points of the certificate.
    **options
        The law's own: ``v`` (the Gaussian variance factor) and ``shift`` (the change of the
        mean in units of 1/N, 1 the largest a [0, 1] reward can make); ``extra_k`` (Beta: False
        drops Algorithm 2's k, the negative control); ``shift``, ``law_eps``, ``law_delta``
        (Lemma 15: the law's own parameters, default those of the check).

    Returns
    -------
    FeasibilityResult
        ``holds``, ``delta_required`` (the sup of the inequalities' left minus right
        sides), ``allowed`` (delta, or delta/2 for Lemma 9), ``certified``, the worst
        constraint and history, ``summary()`` and ``to_dict()``.

    Examples
    --------
    >>> from verify.cdf_feasibility import check
    >>> from dpbench.mechanisms.perturbations import GaussianLaw
    >>> res = check(GaussianLaw, 1.0, 0.01, 8)            # doctest: +SKIP
    >>> print(res.summary())                              # doctest: +SKIP
    """
    law, eps, delta, n, lemma, options = validate(law, eps, delta, n, lemma, **options)
    params = dict(options)
    if law.LOCATION:
        res = check_pair(law_pair(law, n, options), eps, delta, lemma=lemma, grid=grid, family=law.NAME, n=n,
                         params=params)
        res.method = "location family (one check covers every history); " + res.method
    else:
        d, _, _ = law.history_deltas(n, eps, options)
        worst_r = int(np.argmax(d))
        res = check_pair(law_pair(law, n, options, worst_r), eps, delta, lemma=lemma, grid=grid,
                         family=law.NAME, n=n, params=params)
        res.histories_checked = n
        res.method = (f"closed form at the ratio crossings for all {n} histories R -> R+1 "
                      f"(worst R = {worst_r}: {float(d[worst_r]):.6g}); grid certificate on the worst; "
                      + res.method)
    if res.allowed == 0.0 and not law.ZERO_DELTA:
        res.holds = res.certified = False
        res.method = UNBOUNDED_RATIO + "; " + res.method
    return res


UNBOUNDED_RATIO = ("never holds with delta = 0: the likelihood ratio of the pair is unbounded, so "
                   "F - e^eps F' is positive somewhere for every N (the computed value may underflow)")


def check_lemma8(law, eps, delta, n, **options) -> FeasibilityResult:
    """Lemma 8 (DP): the four half-line inequalities with slack delta.  See ``check``."""
    return check(law, eps, delta, n, lemma=8, **options)


def check_lemma9(law, eps, delta, n, **options) -> FeasibilityResult:
    """Lemma 9 (GDP): intervals and complements with slack delta/2.  See ``check``."""
    return check(law, eps, delta, n, lemma=9, **options)


# ============================================================ minimal start phase
#: default largest N of an exhaustive scan over N and the histories (Beta: N^2/4 in all, ~1 minute at 8000)
SCAN_CAP = 8_000

@dataclass
class StartPhaseResult:
    """The smallest N from which Lemma 8 (or 9) holds for every history, beside the paper's."""

    family: str
    eps: float
    delta: float
    lemma: int
    params: dict
    n_min: int | None              # smallest N0 with every N in [N0, n_checked] passing
    first_pass: int | None         # smallest single passing N
    n_checked: float               # scan limit (inf when proved for every N >= n_min)
    paper_start: float | None      # N_G* or N_B* (None: no start phase in the paper)
    paper_delta_required: float | None   # at ceil(paper_start)
    paper_sufficient: bool | None
    delta_required_at_min: float | None
    delta_required_below_min: float | None
    note: str = ""

    def to_dict(self) -> dict:
        """Return the result as strict-JSON data."""
        return to_json(asdict(self))


def minimal_start_phase(law, eps: float, delta: float, *, lemma: int = 8, n_max: int | None = None,
                        **options) -> StartPhaseResult:
    """Find the smallest pull count N0 at which the lemma holds.

    N0 is the smallest pull count at which the lemma holds for every history (and every
    larger N); it is reported beside the paper's start phase (``law.start_phase``: N_G* for
    the Gaussian law, N_B* for Beta).

    Parameters
    ----------
    law, eps, delta, lemma, **options
        As for :func:`check`.
    n_max : int, optional
        For a law scanned over N: the largest N scanned (see below).

    Returns
    -------
    StartPhaseResult
        ``n_min`` (None if none found), ``n_checked`` (inf when the answer covers every
        N >= n_min), ``paper_start`` and, where the paper's start phase fails,
        ``paper_delta_required``.

    Notes
    -----
    The search follows how the delta a pair needs depends on N (``law.IN_N``):

    * "decreasing" (the Gaussian law: its delta depends on N only through the standardised
      shift 1/sqrt(vN)): bisection, valid for every N >= N0;
    * "constant" (Lemma 15's law at N is its law at 1 scaled by 1/N, and so is the shift):
      N0 = 1 when it holds at all;
    * "scan" (Beta: k jumps, no monotonicity): every N in [1, n_max] and every history
      (default n_max = max(ceil(N_B*), 4 x first passing N), capped at SCAN_CAP; 2000 without
      a start phase of the paper's, which never passes).  The cost grows as n_max^2.

    Examples
    --------
    >>> from verify.cdf_feasibility import minimal_start_phase
    >>> from dpbench.mechanisms.perturbations import GaussianLaw
    >>> minimal_start_phase(GaussianLaw, 0.0, 0.01, v=1.0).n_min    # doctest: +SKIP
    """
    law, eps, delta, _, lemma, options = validate(law, eps, delta, 1, lemma, **options)
    family = law.NAME
    allowed = delta if lemma == 8 else delta / 2.0
    params = dict(options)
    paper = law.start_phase(eps, delta, options)
    paper_n = math.ceil(paper) if paper is not None and math.isfinite(paper) else None
    ok_level = allowed + tolerance(allowed)
    if allowed == 0.0 and not law.ZERO_DELTA:
        return StartPhaseResult(family, eps, delta, lemma, params, None, None, math.inf, paper,
                                None, None, None, None, UNBOUNDED_RATIO)

    if law.IN_N == "decreasing":
        def req(n):
            return law.delta_required(float(n), eps, options)
        hi = 1
        while req(hi) > ok_level:
            hi *= 2
            if hi > 2 ** 60:
                return StartPhaseResult(family, eps, delta, lemma, params, None, None, math.inf,
                                        paper, None, None, None, None, "never holds (delta = 0)")
        lo = hi // 2                                        # req(lo) fails unless lo == 0
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if req(mid) <= ok_level:
                hi = mid
            else:
                lo = mid
        n_min = hi
        at_paper = req(paper_n) if paper_n is not None else None
        return StartPhaseResult(
            family, eps, delta, lemma, params, n_min, n_min, math.inf, paper, at_paper,
            None if at_paper is None else at_paper <= ok_level, req(n_min),
            req(n_min - 1) if n_min > 1 else None,
            "delta_required decreases in N (standardised shift 1/sqrt(vN)): holds for all N >= n_min")

    if law.IN_N == "constant":
        d = check_pair(law_pair(law, 1, options), eps, delta, lemma=lemma).delta_required
        ok = d <= ok_level
        return StartPhaseResult(family, eps, delta, lemma, params,
                                1 if ok else None, 1 if ok else None, math.inf, paper, None, None,
                                d if ok else None, None,
                                f"delta_required = {d:.6g} for every N (scale family): "
                                + ("no start phase needed" if ok else "never holds"))

    # every N in [1, n_max], every history
    cap = check_int("n_max", n_max, low=1) if n_max is not None else SCAN_CAP if paper is not None else 2_000
    ok = ok_level
    values = np.empty(0)
    first = None
    while first is None and values.size < cap:
        lo = values.size + 1
        values = np.concatenate([values, law.worst_by_n(lo, min(cap, 2 * lo + 255), eps, options)])
        passing = np.nonzero(values <= ok)[0]
        first = int(passing[0]) + 1 if passing.size else None
    limit = cap if n_max is not None or first is None else min(cap, max(paper_n or 0, 4 * first))
    if limit > values.size:
        values = np.concatenate([values, law.worst_by_n(values.size + 1, limit, eps, options)])
    values = values[:limit]
    failing = np.nonzero(values > ok)[0]
    n_min = None if values[-1] > ok else int(failing[-1]) + 2 if failing.size else 1
    if paper_n is None:
        at_paper = None
    else:
        at_paper = float(values[paper_n - 1]) if paper_n <= limit else \
            float(law.worst_by_n(paper_n, paper_n, eps, options)[0])
    note = f"every N in [1, {limit}] and every history R checked"
    if paper is None and values[-1] > ok:
        note += f"; delta_required = {values[-1]:.5g} at N = {limit} (never holds)"
    return StartPhaseResult(
        family, eps, delta, lemma, params, n_min, first, float(limit), paper, at_paper,
        None if at_paper is None else at_paper <= ok,
        float(values[n_min - 1]) if n_min else None,
        float(values[n_min - 2]) if n_min and n_min > 1 else None, note)


# ============================================================ tightness in the shift
def shift_tightness(law, eps: float, delta: float, n: int, shifts=(0.5, 1.0, 1.05), *, lemma: int = 8,
                    **options):
    """Return the delta ``law`` needs against centre shifts of ``shift``/N, for each shift.

    Lemma 15's law built with (eps, delta) (``law_eps = eps, law_delta = delta``) needs exactly
    delta at 1, less below, more above (spec §4.3, §10.1).
    """
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    n = check_int("n", n, low=1)
    out = []
    for s in shifts:
        s = check_real("shift", s, low=0.0)
        res = check(law, eps, delta, n, lemma=lemma, shift=s, **options)
        out.append({"shift": s, "delta_required": res.delta_required, "bound": res.bound,
                    "x": res.worst.x, "y": res.worst.y, "constraint": res.worst.constraint})
    return out


# ============================================================ feasible region (figures)
def feasible_region(cdf, sf, eps: float, delta: float, symmetric: bool = True):
    """Return the band [L, U] that F'(x) must lie in given F(x).

    The band [L, U] that F'(x) must lie in given F(x) = ``cdf`` (1 - F = ``sf``):

    symmetric (all four inequalities, spec §3.3 default)
        L = max{0, e^-eps (F - delta), 1 - e^eps (1 - F) - delta}
        U = min{1, e^eps F + delta, 1 - e^-eps (1 - F - delta)}
    literal (the two inequalities as printed in Lemma 8)
        L = max{0, e^-eps (F - delta)},  U = min{1, 1 - e^-eps (1 - F - delta)}
    """
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    cdf, sf = np.asarray(cdf, float), np.asarray(sf, float)
    ee = math.exp(eps)
    lower = np.maximum(0.0, (cdf - delta) / ee)
    upper = np.minimum(1.0, 1.0 - (sf - delta) / ee)
    if symmetric:
        lower = np.maximum(lower, 1.0 - ee * sf - delta)
        upper = np.minimum(upper, ee * cdf + delta)
    return lower, upper
