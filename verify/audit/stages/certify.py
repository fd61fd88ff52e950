"""Stage 4, certify: count every layer's event on n fresh outputs and turn the counts into statements.

The events were fixed before these outputs were drawn.  Per pair and input, n fresh outputs
are drawn once and every layer's statistic on that pair is counted on them (one pass of the
compiled kernel).  Each layer is then judged at its share of alpha (:mod:`..layers`):

* the Clopper-Pearson eps lower bound and the p-value of H0 "(eps, delta)-DP holds" on the
  event (:mod:`..statistics`);
* the floating-point layer, when its event is a union of granularity classes, also has to
  show that the classes, not the magnitude of the outputs, tell the inputs apart: within each
  binade the event must be more frequent under the favoured input (a stratified test,
  :func:`statistics.stratified_excess`).  Otherwise the excess on the event is the law's
  (a law that exceeds the claim shows through any coarse event, binades included) and the
  floating point is not blamed.  Both must reject (an intersection-union test: the layer's
  p-value is the larger of the two).

The eps(delta) curve and the trade-off view are certified on the curve events of the law
layer (of the floating-point layer when the law is not tested), simultaneously at alpha.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import statistics as st
from .. import tradeoff
from ..events import Event
from ..layers import FLOATING_POINT, LAW
from ..source import SampleSource
from .refine import Refined
from .validate import AuditPlan


@dataclass
class Certified:
    """One layer's certification counts and what they certify at its level.

    k_favoured, k_other  outputs in the event among the n of the favoured input / the other
    level                the layer's alpha (its share of the audit's ``alpha``)
    eps_lower_bound      Clopper-Pearson lower bound on eps at the claimed delta (>= 0)
    p_claim              p-value of H0 "(eps, delta)-DP holds" on this event
    p_strata             floating point: p-value of "the event is no more frequent under the
                         favoured input within each binade" (None: not tested)
    """

    layer: str
    refined: Refined
    hist_x: np.ndarray
    hist_x_prime: np.ndarray
    k_favoured: int
    k_other: int
    level: float
    alpha: float
    eps_lower_bound: float
    p_claim: float
    p_strata: float | None

    @property
    def event(self) -> Event:
        return self.refined.event

    @property
    def layer_is_fp(self) -> bool:
        return self.layer == FLOATING_POINT

    @property
    def p_value(self) -> float:
        """The layer's p-value against the audit's alpha: the larger of its tests, divided by the
        layer's share of alpha (so that it is violated exactly when p_value <= alpha)."""
        p = max(self.p_claim, self.p_strata if self.p_strata is not None else 0.0)
        return min(1.0, p * self.alpha / self.level)

    @property
    def violated(self) -> bool:
        return self.p_claim <= self.level and (self.p_strata is None or self.p_strata <= self.level)


@dataclass
class Certification:
    """Every layer's certification, the curve and trade-off view, and how long counting took."""

    layers: dict
    curve: tradeoff.Certified
    seconds: float


def certify(plan: AuditPlan, source: SampleSource, refined: dict[str, Refined], bar=None) -> Certification:
    """Count and judge every layer's event on n fresh outputs per input (see the module docstring)."""
    t0 = time.perf_counter()
    hists = count_events(plan, source, refined, plan.n, (1,), bar)
    layers = judge(plan, refined, hists, plan.n)
    curve_layer = LAW if LAW in refined else next(iter(refined))
    curve = tradeoff.certify(refined[curve_layer].curve_events, hists[curve_layer, 0], hists[curve_layer, 1],
                             plan.n, plan.alpha, plan.delta_grid)
    return Certification(layers, curve, time.perf_counter() - t0)


def count_events(plan: AuditPlan, source: SampleSource, refined: dict[str, Refined], n: int, stream: tuple,
                 bar=None) -> dict:
    """(layer, side) -> histogram of the layer's statistic on n fresh outputs of that input.

    Every layer's statistic on a pair is counted on the same outputs (one draw per input);
    ``stream`` ends the sample streams' keys (pair, side, *stream): a sequential certification
    counts round r on the stream (1, r), say, and adds the histograms up.
    """
    by_pair: dict[int, list] = {}
    for layer, r in refined.items():
        by_pair.setdefault(r.pair, []).append(layer)
    hists: dict = {}
    for p, members in by_pair.items():
        binnings = [(refined[layer].event.statistic, refined[layer].event.edges) for layer in members]
        for side, x in enumerate(plan.pairs[p]):
            for layer, h in zip(members, source.histograms(x, n, binnings, (p, side, *stream), bar)):
                hists[layer, side] = h
    return hists


def judge(plan: AuditPlan, refined: dict[str, Refined], hists: dict, n: int) -> dict[str, Certified]:
    """Every layer's verdict from its counts on n outputs per input, at its share of alpha, by the
    plan's certifier (the bound and p-value of one pre-chosen event)."""
    levels = plan.levels(refined)
    out = {}
    for layer, r in refined.items():
        h_x, h_xp = hists[layer, 0], hists[layer, 1]
        k1, k2 = r.event.counts(h_x, h_xp)
        level = levels[layer]
        bound = float(plan.certifier.bound(k1, n, k2, n, level, plan.delta))
        out[layer] = Certified(layer=layer, refined=r, hist_x=h_x, hist_x_prime=h_xp, k_favoured=k1, k_other=k2,
                               level=level, alpha=plan.alpha, eps_lower_bound=max(0.0, bound),
                               p_claim=float(plan.certifier.p_value(k1, n, k2, n, plan.eps, plan.delta)),
                               p_strata=_strata_test(r.event, h_x, h_xp) if layer == FLOATING_POINT else None)
    return out


def _strata_test(event: Event, hist_x, hist_x_prime) -> float | None:
    """p-value of the stratified test of a floating-point event (None: its bins carry no strata)."""
    strata = event.statistic.info.get("strata")
    if strata is None or len(strata) + 1 != event.bins.size:
        return None
    favoured, other = (hist_x, hist_x_prime) if event.forward else (hist_x_prime, hist_x)
    return st.stratified_excess(favoured, other, event.bins, list(strata) + [("unseen",)])
