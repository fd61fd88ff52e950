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

Families and their worst-case neighbours (one observation changed, N fixed)
---------------------------------------------------------------------------
``gauss``    N(R/N, v/N) vs the mean moved by ``shift``/N (default 1: the largest change).
             A location family: every history gives the same check (centre 0 is used,
             so x is measured from R/N).  v = 2 by default (spec §5.1, R7).
``beta``     Beta(R+1+k, N-R+1+k), k = floor(N/8) + 1 (Alg. 2), vs R -> R+1, for every
             R = 0..N-1 (the four inequalities cover R+1 -> R); closed form over all R,
             grid certificate on the worst R.  ``extra_k=False`` drops k (Fig. 2 d-f).
``lemma15``  the truncated Laplace law (Lemma 15) vs its centre moved by ``shift``/N.
             Lemma 8 uses the law built with (eps, delta), Lemma 9 the law Algorithm 4
             uses, (eps, delta/2); ``law_eps``/``law_delta`` override (negative controls).

For a monotone-likelihood-ratio pair, F - e^eps F' only grows with the shift at every x,
so the largest change (shift 1/N) is the worst history for both shift families.

>>> from verify import cdf_feasibility
>>> r = cdf_feasibility.check_lemma8("gauss", eps=1.0, delta=0.01, n=8)
>>> r.holds, round(r.delta_required, 8)
(True, 2.92e-06)
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from dpbench.engine.caching import cached_njit
from dpbench.engine.result import to_json
from dpbench.mechanisms import perturbations as P
from dpbench.validation import InputError, check_choice, check_delta, check_int, check_real

FAMILIES = ("gauss", "beta", "lemma15")

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


def gauss_pair(n: int, v: float = P.GAUSS_VARIANCE, shift: float = 1.0) -> Pair:
    """N(0, v/n) vs N(z, v/n), z = shift/n.  log r(x) = n z (z - 2x)/(2v)."""
    z = shift / n
    law = P.GaussianLaw(0.0, float(n), float(v))

    def crossings(c):
        return [] if z == 0 else [z / 2.0 - v * math.log(c) / (n * z)]
    return Pair(law, law.neighbour(z), {"mu_hat": "any (location family; x measured from R/N)",
                                        "N": n, "shift": z}, mlr=True, crossings=crossings)


def lemma15_pair(n: int, eps: float, delta: float, shift: float = 1.0) -> Pair:
    """Lemma 15 law centred at 0 vs centred at z = shift/n.

    The ratio is flat (e^{lam z}) left of 0, flat (e^{-lam z}) right of z, and exp(lam (z - 2x)) in
    between (lam = n eps).
    """
    z = shift / n
    law = P.Lemma15Law(0.0, float(n), float(eps), float(delta))
    lam = n * eps

    def crossings(c):
        if lam == 0.0 or z == 0.0:
            return []
        return [min(max(z / 2.0 - math.log(c) / (2.0 * lam), 0.0), z)]
    return Pair(law, law.neighbour(z), {"x0": "any (location family; x measured from x0)", "N": n,
                                        "shift": z, "law_eps": eps, "law_delta": delta},
                mlr=True, crossings=crossings)


def beta_pair(n: int, r: int, extra_k: bool = True) -> Pair:
    """Return Algorithm 2's Beta law for history (n, r) and its neighbour r + 1.

    Algorithm 2's Beta(a, b) for R = r ones in n pulls vs R = r + 1: Beta(a+1, b-1);
    r(x) = a (1 - x) / ((b - 1) x).
    """
    a, b = P.beta_shapes(float(r), float(n), bool(extra_k))
    law = P.BetaLaw(a, b)

    def crossings(c):
        return [a / (a + c * (b - 1.0))]
    k = a - r - 1.0
    return Pair(law, law.neighbour(up=True), {"N": n, "R": r, "change": "R -> R+1 (0 -> 1)",
                                              "k": int(k), "a": a, "b": b},
                mlr=True, crossings=crossings)


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


# ============================================================ Beta over all histories
@cached_njit
def _beta_pair_required(n, r, extra_k, ee):
    """Return the exact Lemma 8 delta of Algorithm 2's Beta law for one history.

    Exact Lemma 8 delta of Algorithm 2's Beta law for history (n, r) vs r -> r+1, with
    its location and constraint index: by the monotone likelihood ratio
    a (1 - x)/((b - 1) x), the only positive suprema are F - e^eps F' at
    x = a/(a + e^eps (b-1)) and (1 - F') - e^eps (1 - F) at x = a/(a + e^-eps (b-1)).
    """
    k = math.floor(n / 8.0) + 1.0 if extra_k else 0.0
    a = r + 1.0 + k
    b = n - r + 1.0 + k
    x1 = a / (a + ee * (b - 1.0))
    f1 = P.beta_cdf(x1, a, b) - ee * P.beta_cdf(x1, a + 1.0, b - 1.0)
    x4 = a / (a + (b - 1.0) / ee)
    f4 = P.beta_sf(x4, a + 1.0, b - 1.0) - ee * P.beta_sf(x4, a, b)
    if f1 >= f4:
        return f1, x1, 0
    return f4, x4, 3


@cached_njit
def _beta_histories(n, extra_k, ee, out_d, out_x, out_which):
    """``_beta_pair_required`` for r = 0..len(out_d)-1."""
    for r in range(out_d.shape[0]):
        out_d[r], out_x[r], out_which[r] = _beta_pair_required(n, r, extra_k, ee)


@cached_njit
def _beta_worst_by_n(n_lo, extra_k, ee, out):
    """out[i] = max over histories of the delta required at N = n_lo + i.

    By the reflection x -> 1 - x, history r mirrors n-1-r: half the histories suffice.
    """
    for i in range(out.shape[0]):
        n = n_lo + i
        worst = 0.0
        for r in range((n + 1) // 2):
            d = _beta_pair_required(float(n), float(r), extra_k, ee)[0]
            if d > worst:
                worst = d
        out[i] = worst


def beta_history_profile(n: int, eps: float, extra_k: bool = True):
    """Return the Lemma 8 delta of every history R = 0..n-1 of Algorithm 2.

    (delta_required[R], x[R], constraint index[R]) for every history R = 0..n-1 of
    Algorithm 2's Beta law at N = n (0 -> 1 changes; constraint indices of
    ``LEMMA8_CONSTRAINTS``).  History R mirrors n-1-R (x -> 1 - x), so half is computed.
    """
    n = check_int("n", n, low=1)
    eps = check_real("eps", eps, low=0.0)
    half = (n + 1) // 2
    d, x, w = np.empty(half), np.empty(half), np.empty(half, dtype=np.int64)
    _beta_histories(float(n), bool(extra_k), math.exp(eps), d, x, w)
    mirror = n - half                                      # histories half..n-1
    d_full = np.concatenate([d, d[:mirror][::-1]])
    x_full = np.concatenate([x, 1.0 - x[:mirror][::-1]])
    w_full = np.concatenate([w, 3 - w[:mirror][::-1]])     # the reflection swaps F and F'
    return np.maximum(d_full, 0.0), x_full, w_full


def beta_worst_by_n(n_lo: int, n_hi: int, eps: float, extra_k: bool = True) -> np.ndarray:
    """Worst delta required over every history, for each N in [n_lo, n_hi]."""
    n_lo = check_int("n_lo", n_lo, low=1)
    n_hi = check_int("n_hi", n_hi, low=n_lo)
    out = np.empty(n_hi - n_lo + 1)
    _beta_worst_by_n(n_lo, bool(extra_k), math.exp(check_real("eps", eps, low=0.0)), out)
    return np.maximum(out, 0.0)


def _beta_worst(n, eps, extra_k):
    d, _, _ = beta_history_profile(n, eps, extra_k)
    r = int(np.argmax(d))
    return float(d[r]), r


# ============================================================ family checks
def _check_lemma(lemma):
    lemma = check_int("lemma", lemma)
    if lemma not in (8, 9):
        raise InputError(f"lemma must be 8 or 9 (got {lemma})")
    return lemma


def _law_privacy(lemma, eps, delta, law_eps, law_delta):
    le = eps if law_eps is None else check_real("law_eps", law_eps, low=0.0)
    ld = (delta if lemma == 8 else delta / 2.0) if law_delta is None else check_delta(law_delta, "law_delta")
    if le == 0.0 and ld == 0.0:
        raise InputError("the Lemma 15 law needs eps > 0 or delta > 0 (got eps = delta = 0)")
    return le, ld


def validate(family, eps, delta, n, lemma=8, v=P.GAUSS_VARIANCE, shift=1.0):
    """Validate the common inputs of a family check (before anything is compiled)."""
    family = check_choice("family", family, FAMILIES)
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    n = check_int("n", n, low=1)
    lemma = _check_lemma(lemma)
    v = check_real("v", v, low=0.0, low_open=True)
    shift = check_real("shift", shift, low=0.0)
    return family, eps, delta, n, lemma, v, shift


def family_pair(family, eps, delta, n, *, lemma=8, v=P.GAUSS_VARIANCE, extra_k=True, shift=1.0,
                law_eps=None, law_delta=None, r=0) -> Pair:
    """Return the neighbouring pair checked for ``family`` (Beta: history R = ``r``)."""
    if family == "gauss":
        return gauss_pair(n, v, shift)
    if family == "lemma15":
        return lemma15_pair(n, *_law_privacy(lemma, eps, delta, law_eps, law_delta), shift)
    if family == "beta":
        if not 0 <= r < n:
            raise InputError(f"r must be an integer in [0, {n - 1}] (got {r})")
        return beta_pair(n, r, extra_k)
    raise InputError(f"unknown family {family!r}; allowed values: {', '.join(FAMILIES)}")


def check(family: str, eps: float, delta: float, n: int, *, lemma: int = 8,
          v: float = P.GAUSS_VARIANCE, extra_k: bool = True, shift: float = 1.0,
          law_eps: float | None = None, law_delta: float | None = None,
          grid: int = 2049) -> FeasibilityResult:
    """Check Lemma ``lemma`` (8 or 9) for ``family`` after ``n`` observations, every history.

    Exact: the inequalities are checked for every real x (unbounded tails bounded
    analytically, a certified bound on every grid cell).

    Parameters
    ----------
    family : {"gauss", "beta", "lemma15"}
        The perturbation law (seed 002): N(R/N, v/N), Algorithm 2's Beta, Lemma 15's
        truncated Laplace.
    eps : float
        Privacy level, >= 0.
    delta : float
        Slack, in [0, 1).
    n : int
        The arm's pull count N, >= 1.
    lemma : {8, 9}
        8: DP (half-lines, slack delta); 9: GDP (intervals and complements, slack delta/2).
    v : float
        gauss: the variance factor (variance v/N).
    extra_k : bool
        beta: Algorithm 2's k (False: the negative control without it).
    shift : float
        gauss, lemma15: the change of the mean in units of 1/N (1 is the largest a [0, 1]
        reward can make).
    law_eps, law_delta : float, optional
        lemma15: the law's own parameters (default: those of the check).
    grid : int
        Initial grid points of the certificate.

    Returns
    -------
    FeasibilityResult
        ``holds``, ``delta_required`` (the sup of the inequalities' left minus right
        sides), ``allowed`` (delta, or delta/2 for Lemma 9), ``certified``, the worst
        constraint and history, ``summary()`` and ``to_dict()``.

    Examples
    --------
    >>> from verify.cdf_feasibility import check
    >>> res = check("gauss", 1.0, 0.01, 8)            # doctest: +SKIP
    >>> print(res.summary())                          # doctest: +SKIP
    """
    family, eps, delta, n, lemma, v, shift = validate(family, eps, delta, n, lemma, v, shift)
    params = {"v": v} if family == "gauss" else {"extra_k": bool(extra_k)} if family == "beta" else {}
    if family in ("gauss", "lemma15"):
        params["shift"] = shift
    if family == "lemma15":
        params["law_eps"], params["law_delta"] = _law_privacy(lemma, eps, delta, law_eps, law_delta)
    if family != "beta":
        pair = family_pair(family, eps, delta, n, lemma=lemma, v=v, shift=shift,
                           law_eps=law_eps, law_delta=law_delta)
        res = check_pair(pair, eps, delta, lemma=lemma, grid=grid, family=family, n=n, params=params)
        res.method = "location family (one check covers every history); " + res.method
    else:
        worst_d, worst_r = _beta_worst(n, eps, extra_k)
        res = check_pair(beta_pair(n, worst_r, extra_k), eps, delta, lemma=lemma, grid=grid,
                         family=family, n=n, params=params)
        res.histories_checked = n
        res.method = (f"closed form at the ratio crossings for all {n} histories R -> R+1 "
                      f"(worst R = {worst_r}: {worst_d:.6g}); grid certificate on the worst; "
                      + res.method)
    if res.allowed == 0.0 and family in ("gauss", "beta"):
        res.holds = res.certified = False
        res.method = UNBOUNDED_RATIO + "; " + res.method
    return res


UNBOUNDED_RATIO = ("never holds with delta = 0: the likelihood ratio of the pair is unbounded, so "
                   "F - e^eps F' is positive somewhere for every N (the computed value may underflow)")


def check_lemma8(family, eps, delta, n, **options) -> FeasibilityResult:
    """Lemma 8 (DP): the four half-line inequalities with slack delta.  See ``check``."""
    return check(family, eps, delta, n, lemma=8, **options)


def check_lemma9(family, eps, delta, n, **options) -> FeasibilityResult:
    """Lemma 9 (GDP): intervals and complements with slack delta/2.  See ``check``."""
    return check(family, eps, delta, n, lemma=9, **options)


# ============================================================ closed forms for scans
def gauss_delta_required(n: float, eps: float, v: float = P.GAUSS_VARIANCE, shift: float = 1.0) -> float:
    """Return the exact Lemma 8 delta of the Gaussian law against a centre shift.

    Exact Lemma 8 (= Lemma 9, = hockey-stick) delta of N(., v/n) vs a shift/n move: the
    value of F - e^eps F' at the ratio crossing x = z/2 - v eps/(n z) (the analytic Gaussian
    mechanism; the other three half-line suprema are equal or 0).
    """
    z = shift / n
    x = z / 2.0 - v * eps / (n * z)
    return max(0.0, P.gauss_cdf(x, 0.0, n, v) - math.exp(eps) * P.gauss_cdf(x, z, n, v))


# ============================================================ minimal start phase
#: default largest N of the exhaustive Beta scan (N^2/4 histories in all: ~1 minute at 8000)
BETA_SCAN_CAP = 8_000

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


def _paper_start(family, eps, delta):
    if family == "gauss":
        return P.gauss_start_phase(eps, delta)
    if family == "beta":
        return P.beta_start_phase(eps, delta)
    return None


def minimal_start_phase(family: str, eps: float, delta: float, *, lemma: int = 8,
                        v: float = P.GAUSS_VARIANCE, extra_k: bool = True,
                        n_max: int | None = None) -> StartPhaseResult:
    """Find the smallest pull count N0 at which the lemma holds.

    N0 is the smallest pull count at which the lemma holds for every history (and every
    larger N); it is reported beside the paper's start phase (N_G* for gauss, N_B* for
    beta).

    Parameters
    ----------
    family, eps, delta, lemma, v, extra_k
        As for :func:`check`.
    n_max : int, optional
        beta: the largest N scanned (see below).

    Returns
    -------
    StartPhaseResult
        ``n_min`` (None if none found), ``n_checked`` (inf when the answer covers every
        N >= n_min), ``paper_start`` and, where the paper's start phase fails,
        ``paper_delta_required``.

    Notes
    -----
    * gauss: delta_required depends on N only through the standardised shift 1/sqrt(vN)
      and grows with it, so it decreases in N: bisection, valid for every N >= N0.
    * lemma15: the law at N is the law at 1 scaled by 1/N (so is the shift), so
      delta_required does not depend on N: N0 = 1 when it holds at all.
    * beta: no such monotonicity (k jumps); every N in [1, n_max] and every history is
      checked (default n_max = max(ceil(N_B*), 4 x first passing N), capped at
      BETA_SCAN_CAP; 2000 without k, which never passes).  The cost grows as n_max^2.

    Examples
    --------
    >>> from verify.cdf_feasibility import minimal_start_phase
    >>> minimal_start_phase("gauss", 0.0, 0.01, v=1.0).n_min    # doctest: +SKIP
    """
    family, eps, delta, _, lemma, v, _ = validate(family, eps, delta, 1, lemma, v)
    allowed = delta if lemma == 8 else delta / 2.0
    params = {"v": v} if family == "gauss" else {"extra_k": bool(extra_k)} if family == "beta" else {}
    paper = _paper_start(family, eps, delta)
    if family == "beta" and not extra_k:
        paper = None
    paper_n = math.ceil(paper) if paper is not None and math.isfinite(paper) else None
    ok_level = allowed + tolerance(allowed)
    if allowed == 0.0 and family != "lemma15":
        return StartPhaseResult(family, eps, delta, lemma, params, None, None, math.inf, paper,
                                None, None, None, None, UNBOUNDED_RATIO)

    if family == "gauss":
        def req(n):
            return gauss_delta_required(float(n), eps, v)
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

    if family == "lemma15":
        le, ld = _law_privacy(lemma, eps, delta, None, None)
        d = check_pair(lemma15_pair(1, le, ld), eps, delta, lemma=lemma).delta_required
        ok = d <= ok_level
        return StartPhaseResult(family, eps, delta, lemma, {"law_eps": le, "law_delta": ld},
                                1 if ok else None, 1 if ok else None, math.inf, None, None, None,
                                d if ok else None, None,
                                f"delta_required = {d:.6g} for every N (scale family): "
                                + ("no start phase needed" if ok else "never holds"))

    # beta: every N in [1, n_max], every history
    cap = check_int("n_max", n_max, low=1) if n_max is not None else BETA_SCAN_CAP if extra_k else 2_000
    ok = ok_level
    values = np.empty(0)
    first = None
    while first is None and values.size < cap:
        lo = values.size + 1
        values = np.concatenate([values, beta_worst_by_n(lo, min(cap, 2 * lo + 255), eps, extra_k)])
        passing = np.nonzero(values <= ok)[0]
        first = int(passing[0]) + 1 if passing.size else None
    limit = cap if n_max is not None or first is None else min(cap, max(paper_n or 0, 4 * first))
    if limit > values.size:
        values = np.concatenate([values, beta_worst_by_n(values.size + 1, limit, eps, extra_k)])
    values = values[:limit]
    failing = np.nonzero(values > ok)[0]
    n_min = None if values[-1] > ok else int(failing[-1]) + 2 if failing.size else 1
    if paper_n is None:
        at_paper = None
    else:
        at_paper = float(values[paper_n - 1]) if paper_n <= limit else \
            float(beta_worst_by_n(paper_n, paper_n, eps, extra_k)[0])
    note = f"every N in [1, {limit}] and every history R checked"
    if not extra_k:
        note += f"; without k: delta_required = {values[-1]:.5g} at N = {limit} (never holds)"
    return StartPhaseResult(
        family, eps, delta, lemma, params, n_min, first, float(limit), paper, at_paper,
        None if at_paper is None else at_paper <= ok,
        float(values[n_min - 1]) if n_min else None,
        float(values[n_min - 2]) if n_min and n_min > 1 else None, note)


# ============================================================ Lemma 15 tightness
def lemma15_tightness(eps: float, delta: float, n: int, shifts=(0.5, 1.0, 1.05), *, lemma: int = 8):
    """Return the delta the Lemma 15 law needs against centre shifts.

    delta required by the Lemma 15 law (built with (eps, delta)) against centre shifts of
    ``shift``/N: exactly delta at 1, less below, more above (spec §4.3, §10.1).
    """
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    n = check_int("n", n, low=1)
    out = []
    for s in shifts:
        s = check_real("shift", s, low=0.0)
        res = check("lemma15", eps, delta, n, lemma=lemma, shift=s, law_eps=eps, law_delta=delta)
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
