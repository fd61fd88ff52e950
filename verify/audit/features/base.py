"""The plug-in interface: a *feature* is a family of statistics of the outputs.

A :class:`Feature` declares

* ``name``      what users pass in ``features=`` / ``--features`` (and ``help``: one line);
* ``layer``     ``law`` or ``floating_point`` (:mod:`verify.audit.layers`);
* ``fix``       what a violation found through it means and how to mend it;
* :meth:`Feature.statistics`  its candidate statistics, fitted on the selection's fit outputs;
* :meth:`Feature.edges`       its candidate events: the bins whose unions are the events
  (default: quantile bins and the tails of a continuous statistic, one bin per value of a
  discrete one; the search in :mod:`verify.audit.events` tries every interval of bins and
  its complement, in both directions);
* :meth:`Feature.describe`    an event (a union of bins) in output space.

A :class:`Statistic` is a scalar function of an output row: a compiled ``StatSpec``
(:mod:`verify.audit.fast`: a value, a linear score, an additive score of per-entry features
or the rank of a category), which the compiled fast path counts without storing outputs, or
a Python function of the rows (any statistic at all; compiled mechanisms then store their
outputs in blocks).  Adding a statistic is one new module in this package defining
``FEATURE`` (a Feature instance): the registry finds it.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import events, fast
from ..fast import StatSpec
from ..layers import LAW

#: categories (labels, granularity classes, values) named in an event before it is summarised
LISTED = 3


@dataclass
class FitData:
    """What a feature fits its statistics on: the fit outputs of M(x) and M(x') as (m, d) rows,
    the inputs themselves, the caller's log-density (or None) and the options given with the
    feature's name (e.g. ``bits12``: {"k": 12})."""

    rows_x: np.ndarray
    rows_x_prime: np.ndarray
    x: object = None
    x_prime: object = None
    log_density: Callable | None = None
    options: dict = field(default_factory=dict)

    @property
    def d(self) -> int:
        return self.rows_x.shape[1]


def label_entries(rows: np.ndarray) -> np.ndarray:
    """Which entries of the output rows are labels (strings, tuples, mappings that are not
    numbers): their numbers name them (``source.label_value``), they do not measure anything, so
    only equality-based statistics (categories) may read them."""
    from ..source import LABEL_BASE
    return rows >= LABEL_BASE


@dataclass(eq=False)
class Statistic:
    """A scalar function of an output row (``spec``: compiled; ``func``: Python), made by ``feature``."""

    feature: Feature
    name: str
    spec: StatSpec | None = None
    func: Callable | None = None
    discrete: bool = False
    learned: bool = False         # a fitted score (preferred only when clearly better)
    info: dict = field(default_factory=dict)

    @property
    def compiled(self) -> bool:
        return self.spec is not None

    @property
    def layer(self) -> str:
        return self.feature.layer

    def evaluate(self, rows: np.ndarray) -> np.ndarray:
        """The statistic of every row (NaN: the row is in no bin)."""
        if self.func is not None:
            out = np.asarray(self.func(rows), dtype=np.float64).reshape(-1)
            if out.shape[0] != rows.shape[0]:
                raise ValueError(f"statistic {self.name!r} returned {out.shape[0]} values "
                                 f"for {rows.shape[0]} outputs")
            return out
        out = np.empty(rows.shape[0])
        fast.statistic_block(self.spec, rows, out)
        return out

    def edges(self, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
        """The bins of this statistic's candidate events, from its values on selection outputs."""
        return self.feature.edges(self, s1, s2)

    def describe(self, edges: np.ndarray, bins: np.ndarray, labels: dict | None = None) -> str:
        """The event (union of ``bins``) in output space; ``labels``: number -> output label."""
        return self.feature.describe(self, edges, bins, labels or {})


class Feature:
    """A family of statistics (a plug-in): see the module docstring."""

    name = ""
    layer = LAW
    help = ""
    fix = ""
    #: part of the default ("auto") audit
    default = True
    #: order among the features (candidates are tried in this order)
    order = 50

    def accepts(self, token: str) -> dict | None:
        """The options a ``features`` token asks of this feature, or None if it is not this one."""
        return {} if token == self.name else None

    def fix_for(self, event) -> str:
        """What a violation certified on ``event`` (an :class:`~verify.audit.events.Event` of one of this
        feature's statistics) means and how to mend it (default: the feature's ``fix``)."""
        return self.fix

    def statistics(self, data: FitData) -> list[Statistic]:
        """The candidate statistics fitted on ``data`` (none if the feature does not apply)."""
        raise NotImplementedError

    def edges(self, stat: Statistic, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
        """The bins of the candidate events (default: :func:`events.default_edges`)."""
        return events.default_edges(s1[np.isfinite(s1)], s2[np.isfinite(s2)], stat.discrete)

    def describe(self, stat: Statistic, edges: np.ndarray, bins: np.ndarray, labels: dict) -> str:
        """The event in output space (default: an interval of the statistic's values)."""
        return interval(stat.name, edges, bins)

    def __repr__(self) -> str:
        return f"<feature {self.name} ({self.layer})>"


# ------------------------------------------------------------------ descriptions
def number(v: float, labels: dict | None = None) -> str:
    """One output entry: its label if it stands for one, else the number (6 significant digits; a whole
    number exactly, up to 2^53, so that 1e15 + 3 and 1e15 + 4 do not both read 1e+15)."""
    if labels and v in labels:
        return labels[v]
    if float(v).is_integer() and abs(v) < 2.0 ** 53:
        return str(int(v))
    return f"{v + 0.0:.6g}"         # + 0.0: as numbers, -0.0 is 0 (the floating point's sign: grain_text)


def vector(v, digits: int = 3) -> str:
    v = np.asarray(v, dtype=np.float64).ravel()
    shown = ", ".join(f"{a:.{digits}g}" for a in v[:12])
    return f"[{shown}{', ...' if v.size > 12 else ''}]"


def span(bins: np.ndarray) -> tuple[int, int, bool]:
    """(first, last, complement): the event is bins first..last, or all bins but those."""
    inside = np.flatnonzero(bins)
    if inside.size and inside[-1] - inside[0] + 1 == inside.size:
        return int(inside[0]), int(inside[-1]), False
    outside = np.flatnonzero(~bins)
    return int(outside[0]), int(outside[-1]), True


def interval(var: str, edges: np.ndarray, bins: np.ndarray) -> str:
    """``var`` in the union of bins, as an interval, a half-line or the complement of one."""
    i, j, complement = span(bins)
    lo = -np.inf if i == 0 else edges[i - 1]
    hi = np.inf if j == edges.size else edges[j]
    if not np.isfinite(lo) and not np.isfinite(hi):
        return "never" if complement else f"any {var}"
    if not np.isfinite(lo):
        return f"{var} > {number(hi)}" if complement else f"{var} <= {number(hi)}"
    if not np.isfinite(hi):
        return f"{var} <= {number(lo)}" if complement else f"{var} > {number(lo)}"
    return f"{var} {'not in' if complement else 'in'} ({number(lo)}, {number(hi)}]"


def binade_text(v: float) -> str:
    """The binade of one float: "|output| in [0.25, 0.5), negative" ("0" for zero)."""
    if v == 0.0:
        return "0"
    e = math.frexp(abs(v))[1] - 1                       # |v| in [2^e, 2^(e+1))
    return f"|output| in [{2.0 ** e:.6g}, {2.0 ** (e + 1):.6g}){', negative' if v < 0 else ''}"
