"""G-optimal designs (core sets) and zeta-nets for linear bandits (seed 004, Lemmas 1 and 2).

Kiefer–Wolfowitz (Lattimore & Szepesvári, *Bandit Algorithms*, Thm 21.1): for a
finite action set spanning R^m and a distribution pi on it, with
V(pi) = sum_a pi(a) a a^T and g(pi) = max_a ||a||^2_{V(pi)^-1},

    g(pi) >= m for every pi,  min_pi g(pi) = m,  and sum_a pi(a) ||a||^2_{V(pi)^-1} = m,

and a minimiser exists with support <= m(m+1)/2.  Lemma 2 of the paper needs
g <= 2m on a core set of size O(m).  :func:`g_optimal_design` computes:

1. an orthonormal basis U (d x m) of span(actions) (pivoted Gram–Schmidt, relative
   tolerance 1e-9; the paper's "A_i in R^m, m <= d", Algorithm 1 line 6);
2. a sparse start (Kumar–Yildirim): repeatedly take b orthogonal to the points chosen
   so far and add argmax/argmin <b, x>.  b is the largest residual of the actions, not
   a random direction (spec §2.2 says random): the design is then a deterministic
   function of the active set and draws nothing from the repetition's stream;
3. Frank–Wolfe / Fedorov–Wynn steps (paper eq. 5) with the exact line search for
   log det V, nu = (g/m - 1)/(g - 1), until g <= (1 + tol) m;
4. a Carathéodory reduction instead of the spec's weight pruning: while the support
   exceeds m(m+1)/2 atoms, move along a null combination of their moment matrices
   a a^T (V unchanged) until an atom's weight reaches 0, then renormalise.  This
   never increases g (the dropped mass only rescales V up) and guarantees
   |support| <= m(m+1)/2 (2–3 actions in d = 2, as the paper reports).

``kind`` = CORE_SET (the above), UNIFORM (pi uniform on all actions: the
"no-core-set" ablation of Fig. 3(b)) or FULL_FW (steps 3 only, from the uniform
start: full support, ablation (b) of spec §4.3).

The action sets and their nets (Lemma 1) are built by the environment,
:mod:`dpbench.environments.linear`.

All linear algebra here is hand-written (Cholesky of m x m matrices): compiled and
plain-Python runs agree bit for bit, which keeps the reference tests exact.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine.caching import cached_njit
from ..environments.linear import check_actions
from ..validation import InputError, check_int, check_real

CORE_SET, UNIFORM, FULL_FW = 0, 1, 2
DESIGN_KINDS = {"core_set": CORE_SET, "uniform": UNIFORM, "fw_full": FULL_FW}

_RANK_TOL = 1e-9        # relative tolerance of the span / rank decisions
_NULL_TOL = 1e-12       # pivot tolerance of the Carathéodory null-space solve


# ------------------------------------------------------------ small linear algebra
@cached_njit
def cholesky(a, out):
    """Lower-triangular L with L L^T = a (m x m) into ``out``; False if a is not PD."""
    m = a.shape[0]
    for i in range(m):
        for j in range(i + 1):
            s = a[i, j]
            for k in range(j):
                s -= out[i, k] * out[j, k]
            if i == j:
                if s <= 0.0:
                    return False
                out[i, i] = math.sqrt(s)
            else:
                out[i, j] = s / out[j, j]
        for j in range(i + 1, m):
            out[i, j] = 0.0
    return True


@cached_njit
def forward_solve(chol, b, out):
    """out = L^-1 b for lower-triangular L."""
    m = chol.shape[0]
    for i in range(m):
        s = b[i]
        for k in range(i):
            s -= chol[i, k] * out[k]
        out[i] = s / chol[i, i]


@cached_njit
def cholesky_solve(chol, b, out):
    """out = (L L^T)^-1 b."""
    m = chol.shape[0]
    z = np.empty(m)
    forward_solve(chol, b, z)
    for i in range(m - 1, -1, -1):
        s = z[i]
        for k in range(i + 1, m):
            s -= chol[k, i] * out[k]
        out[i] = s / chol[i, i]


@cached_njit
def orthonormal_basis(x, basis_out):
    """Pivoted Gram–Schmidt on the rows of x (n x d): columns 0..m-1 of ``basis_out``
    (d x d) receive an orthonormal basis of span(rows); returns m.  A direction counts
    if its residual norm exceeds 1e-9 times the largest row norm."""
    n, d = x.shape
    res = x.copy()
    top = 0.0
    for a in range(n):
        s = 0.0
        for k in range(d):
            s += x[a, k] * x[a, k]
        top = max(top, math.sqrt(s))
    for i in range(d):
        for j in range(d):
            basis_out[i, j] = 0.0
    if top == 0.0:
        return 0
    m = 0
    while m < d:
        best = -1.0
        p = -1
        for a in range(n):
            s = 0.0
            for k in range(d):
                s += res[a, k] * res[a, k]
            if s > best:
                best = s
                p = a
        norm = math.sqrt(best)
        if norm <= _RANK_TOL * top:
            break
        for k in range(d):
            basis_out[k, m] = res[p, k] / norm
        for a in range(n):
            s = 0.0
            for k in range(d):
                s += res[a, k] * basis_out[k, m]
            for k in range(d):
                res[a, k] -= s * basis_out[k, m]
        m += 1
    return m


@cached_njit
def coordinates(x, basis, m, out):
    """out[a, j] = <x_a, u_j> for the first m basis columns (n x m)."""
    n, d = x.shape
    for a in range(n):
        for j in range(m):
            s = 0.0
            for k in range(d):
                s += x[a, k] * basis[k, j]
            out[a, j] = s


# ------------------------------------------------------------ design value
@cached_njit
def leverages(y, w, g_out):
    """g_out[a] = y_a^T V(w)^-1 y_a with V(w) = sum w_a y_a y_a^T (y is n x m, full rank
    on the support of w).  Returns (argmax, max); argmax is the lowest index on ties.
    If V(w) is singular every leverage is +inf."""
    n, m = y.shape
    v = np.zeros((m, m))
    for a in range(n):
        wa = w[a]
        if wa != 0.0:
            for i in range(m):
                for j in range(i + 1):
                    v[i, j] += wa * y[a, i] * y[a, j]
    for i in range(m):
        for j in range(i + 1, m):
            v[i, j] = v[j, i]
    chol = np.empty((m, m))
    if not cholesky(v, chol):
        for a in range(n):
            g_out[a] = math.inf
        return 0, math.inf
    z = np.empty(m)
    best = -1.0
    arg = 0
    for a in range(n):
        forward_solve(chol, y[a], z)
        s = 0.0
        for i in range(m):
            s += z[i] * z[i]
        g_out[a] = s
        if s > best:
            best = s
            arg = a
    return arg, best


# ------------------------------------------------------------ design steps
@cached_njit
def _sparse_start(y, w):
    """Kumar–Yildirim start: uniform weights on <= 2m points that span R^m."""
    n, m = y.shape
    chosen = np.zeros(n, dtype=np.bool_)
    res = y.copy()               # rows projected off the span of the chosen points
    q = np.zeros(m)
    top = 0.0
    for a in range(n):
        s = 0.0
        for k in range(m):
            s += y[a, k] * y[a, k]
        top = max(top, math.sqrt(s))
    rank = 0
    while rank < m:
        best = -1.0
        p = -1
        for a in range(n):
            s = 0.0
            for k in range(m):
                s += res[a, k] * res[a, k]
            if s > best:
                best = s
                p = a
        if math.sqrt(best) <= _RANK_TOL * top:
            break
        b = res[p].copy()
        hi = -math.inf
        lo = math.inf
        a_hi = 0
        a_lo = 0
        for a in range(n):
            s = 0.0
            for k in range(m):
                s += b[k] * y[a, k]
            if s > hi:
                hi = s
                a_hi = a
            if s < lo:
                lo = s
                a_lo = a
        for new in (a_hi, a_lo):
            if chosen[new]:
                continue
            chosen[new] = True
            s = 0.0
            for k in range(m):
                s += res[new, k] * res[new, k]
            norm = math.sqrt(s)
            if norm <= _RANK_TOL * top or rank >= m:
                continue
            for k in range(m):
                q[k] = res[new, k] / norm
            for a in range(n):
                s = 0.0
                for k in range(m):
                    s += res[a, k] * q[k]
                for k in range(m):
                    res[a, k] -= s * q[k]
            rank += 1
    count = 0
    for a in range(n):
        if chosen[a]:
            count += 1
    for a in range(n):
        w[a] = 1.0 / count if chosen[a] else 0.0


@cached_njit
def _frank_wolfe(y, w, tol, max_iter):
    """Fedorov–Wynn steps with exact line search until g <= (1 + tol) m; returns (g, steps)."""
    n, m = y.shape
    g_all = np.empty(n)
    target = (1.0 + tol) * m
    steps = 0
    arg, g = leverages(y, w, g_all)
    while g > target and steps < max_iter:
        nu = (g / m - 1.0) / (g - 1.0)
        nu = min(max(nu, 0.0), 1.0)
        for a in range(n):
            w[a] *= 1.0 - nu
        w[arg] += nu
        steps += 1
        arg, g = leverages(y, w, g_all)
    return g, steps


@cached_njit
def _null_vector(mat, c_out):
    """A non-zero c with mat c = 0 for a p x (p+1) matrix (Gaussian elimination with
    partial pivoting; a column without pivot is the free variable)."""
    p, cols = mat.shape
    a = mat.copy()
    pivot_col = np.full(p, -1, dtype=np.int64)
    is_pivot = np.zeros(cols, dtype=np.bool_)
    scale = 0.0
    for i in range(p):
        for j in range(cols):
            scale = max(scale, abs(a[i, j]))
    row = 0
    for col in range(cols):
        if row >= p:
            break
        best = row
        for i in range(row + 1, p):
            if abs(a[i, col]) > abs(a[best, col]):
                best = i
        if abs(a[best, col]) <= _NULL_TOL * max(scale, 1e-300):
            continue
        if best != row:
            for j in range(cols):
                tmp = a[row, j]
                a[row, j] = a[best, j]
                a[best, j] = tmp
        for i in range(p):
            if i != row and a[i, col] != 0.0:
                f = a[i, col] / a[row, col]
                for j in range(cols):
                    a[i, j] -= f * a[row, j]
        pivot_col[row] = col
        is_pivot[col] = True
        row += 1
    free = 0
    for j in range(cols):
        if not is_pivot[j]:
            free = j
            break
    for j in range(cols):
        c_out[j] = 0.0
    c_out[free] = 1.0
    for i in range(row):
        c_out[pivot_col[i]] = -a[i, free] / a[i, pivot_col[i]]


@cached_njit
def _reduce_support(y, w):
    """Carathéodory: shrink supp(w) to <= m(m+1)/2 atoms keeping V(w) up to a scale
    factor <= 1 on the mass (so g never increases); renormalises w."""
    n, m = y.shape
    p = m * (m + 1) // 2
    atoms = np.empty(p + 1, dtype=np.int64)
    mat = np.empty((p, p + 1))
    c = np.empty(p + 1)
    while True:
        count = 0
        for a in range(n):
            if w[a] > 0.0:
                if count <= p:
                    atoms[count] = a
                count += 1
        if count <= p:
            break
        for j in range(p + 1):
            a = atoms[j]
            r = 0
            for i in range(m):
                for k in range(i + 1):
                    mat[r, j] = y[a, i] * y[a, k]
                    r += 1
        _null_vector(mat, c)
        total = 0.0
        for j in range(p + 1):
            total += c[j]
        if total < 0.0:
            for j in range(p + 1):
                c[j] = -c[j]
        step = math.inf
        hit = -1
        for j in range(p + 1):
            if c[j] > 0.0:
                r = w[atoms[j]] / c[j]
                if r < step:
                    step = r
                    hit = j
        for j in range(p + 1):
            a = atoms[j]
            w[a] -= step * c[j]
            if w[a] < 0.0:
                w[a] = 0.0
        w[atoms[hit]] = 0.0
    total = 0.0
    for a in range(n):
        total += w[a]
    for a in range(n):
        w[a] /= total


@cached_njit
def design_kernel(x, kind, tol, max_iter, weights_out, basis_out):
    """Design on the rows of x (n x d).  Writes pi into ``weights_out`` (n) and an
    orthonormal basis of span(x) into the first m columns of ``basis_out`` (d x d).
    Returns (m, g, frank_wolfe_steps) with g = max_a ||x_a||^2_{V(pi)^+}."""
    n, d = x.shape
    m = orthonormal_basis(x, basis_out)
    if m == 0:                                   # all-zero actions: nothing to learn
        for a in range(n):
            weights_out[a] = 1.0 if a == 0 else 0.0
        return 0, 0.0, 0
    y = np.empty((n, m))
    coordinates(x, basis_out, m, y)
    steps = 0
    if kind == CORE_SET:
        _sparse_start(y, weights_out)
        g, steps = _frank_wolfe(y, weights_out, tol, max_iter)
        _reduce_support(y, weights_out)
    else:
        for a in range(n):
            weights_out[a] = 1.0 / n
        if kind == FULL_FW:
            g, steps = _frank_wolfe(y, weights_out, tol, max_iter)
    g_all = np.empty(n)
    arg, g = leverages(y, weights_out, g_all)
    return m, g, steps


# ------------------------------------------------------------ public API
@dataclass(frozen=True)
class Design:
    """A design pi over the rows of ``actions`` (see module docstring)."""
    weights: np.ndarray      # (K,), sums to 1
    g: float                 # max_a ||a||^2_{V(pi)^+} (Kiefer–Wolfowitz: >= rank)
    rank: int                # m = dim span(actions)
    basis: np.ndarray        # (d, m) orthonormal basis of span(actions)
    steps: int               # Frank–Wolfe steps taken

    @property
    def support(self) -> np.ndarray:
        return np.flatnonzero(self.weights > 0.0)


def g_optimal_design(actions, tol: float = 0.05, max_iter: int = 10_000,
                     kind: str = "core_set") -> Design:
    """G-optimal design (core set) of ``actions`` (K x d): g <= (1 + tol) * rank when
    the Frank–Wolfe loop converges within ``max_iter`` steps, support <= m(m+1)/2 for
    ``kind="core_set"``; ``kind="uniform"`` / ``"fw_full"`` give the ablations."""
    x = check_actions(actions)
    tol = check_real("tol", tol, low=0.0, high=1.0, low_open=True)
    max_iter = check_int("max_iter", max_iter, low=1)
    if kind not in DESIGN_KINDS:
        raise InputError(f"unknown kind {kind!r}; allowed values: {', '.join(DESIGN_KINDS)}")
    d = x.shape[1]
    w = np.zeros(x.shape[0])
    basis = np.zeros((d, d))
    m, g, steps = design_kernel(x, DESIGN_KINDS[kind], tol, max_iter, w, basis)
    return Design(w, float(g), int(m), basis[:, :m].copy(), int(steps))
