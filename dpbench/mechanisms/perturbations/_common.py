"""What the three perturbation laws share: array evaluation and sampling of a compiled scalar
kernel, the neighbouring history of one arm, what the CDF checker of Lemmas 8/9 asks of a law
(:class:`FeasibilityFamily`), and the catalog parameters."""
from __future__ import annotations

import numpy as np

from ... import randomness as rng
from ...engine.catalog import Param, real
from ...validation import check_int, check_real

#: what an ``_eval`` kernel computes
CDF, SF, PDF = 0, 1, 2


def evaluate(kernel, x, *params):
    """kernel(flat x, *params, out) on an array (or a scalar) x; the result has x's shape."""
    arr = np.asarray(x, dtype=np.float64)
    flat = np.ascontiguousarray(arr.reshape(-1))
    out = np.empty_like(flat)
    kernel(flat, *params, out)
    return float(out[0]) if arr.ndim == 0 else out.reshape(arr.shape)


def draw(fill, size, seed, *params):
    """``size`` draws of fill(*params, seed, out), reproducible from ``seed``."""
    size = check_int("size", size, low=1)
    out = np.empty(size, dtype=np.float64)
    fill(*params, rng.stream_seed(seed), out)
    return out


class KernelLaw:
    """cdf, sf, pdf and sample of a law from its module's compiled kernels: ``_eval(flat x,
    *params, what, out)`` (``what``: CDF, SF or PDF) and ``_fill(*params, seed, out)``, set as
    the class attributes ``EVAL`` and ``FILL``, and its parameters ``_p()``."""

    EVAL: object = None
    FILL: object = None

    def _p(self) -> tuple:
        raise NotImplementedError

    def cdf(self, x):
        return evaluate(type(self).EVAL, x, *self._p(), CDF)

    def sf(self, x):
        return evaluate(type(self).EVAL, x, *self._p(), SF)

    def pdf(self, x):
        return evaluate(type(self).EVAL, x, *self._p(), PDF)

    def sample(self, size, seed):
        return draw(type(self).FILL, size, seed, *self._p())


class FeasibilityFamily:
    """What the exact CDF checker of Lemmas 8 and 9 (:mod:`verify.cdf_feasibility`) and its
    sample-based counterpart (:mod:`verify.cdf_bands`) ask of a perturbation law class: the checker
    takes the class itself (``check(GaussianLaw, eps, delta, n)``) and knows no family by name.

    ``NAME``                how results name the family;
    ``LOCATION``            True: one neighbouring pair covers every history (a location family);
                            False: the histories are scanned (:meth:`history_deltas`);
    ``ZERO_DELTA``          whether delta = 0 can hold (a bounded likelihood ratio);
    ``IN_N``                how the delta a pair needs depends on the pull count N, for the
                            minimal start phase: "decreasing" (bisection on :meth:`delta_required`),
                            "constant" (a scale family: N = 1 decides) or "scan" (every N,
                            :meth:`worst_by_n`);
    ``OPTIONS``             the names of the law's own options;
    :meth:`options`         those options, validated, with their defaults;
    :meth:`neighbour_pair`  (law, neighbour, history, crossings) after one observation changes,
                            ``crossings(c)`` the points where the likelihood ratio equals c;
    :meth:`start_phase`     the paper's start phase (None if it has none).
    """

    NAME = ""
    OPTIONS: tuple = ()
    LOCATION = True
    ZERO_DELTA = False
    IN_N = "scan"

    @classmethod
    def options(cls, *, lemma: int, eps: float, delta: float, **given) -> dict:
        raise NotImplementedError

    @classmethod
    def neighbour_pair(cls, n: int, options: dict, history: int = 0):
        raise NotImplementedError

    @classmethod
    def start_phase(cls, eps: float, delta: float, options: dict):
        return None

    @classmethod
    def delta_required(cls, n: float, eps: float, options: dict) -> float:
        raise NotImplementedError

    @classmethod
    def history_deltas(cls, n: int, eps: float, options: dict):
        raise NotImplementedError

    @classmethod
    def worst_by_n(cls, n_lo: int, n_hi: int, eps: float, options: dict):
        raise NotImplementedError


def known_options(name: str, given: dict, allowed) -> None:
    """InputError naming the options a family takes when ``given`` has others."""
    from ...validation import InputError
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise InputError(f"{name}: unknown option(s) {', '.join(unknown)}; allowed: {', '.join(allowed) or 'none'}")


def history(pulls, others):
    """Validated (pulls, others) of a neighbouring history: others in [0, pulls - 1]."""
    pulls = check_int("pulls", pulls, low=1)
    others = 0.0 if others is None else check_real("others", others, low=0.0, high=pulls - 1.0)
    return float(pulls), others


EPS0 = Param("eps", "privacy level eps >= 0", real(0.0))
DELTA_POS = Param("delta", "privacy slack delta in (0, 1)", real(0.0, 1.0, low_open=True, high_open=True))
DELTA = Param("delta", "privacy slack delta in [0, 1)", real(0.0, 1.0, high_open=True))
OTHERS = Param("others", "sum of the other pulls - 1 rewards of the arm (default 0)", real(0.0), None)
