"""Stage 4, certify: count every layer's event on n fresh outputs and turn the counts into statements.

The events were fixed before these outputs were drawn.  Per pair and input, n fresh outputs
are drawn once and every layer's statistic on that pair is counted on them (one pass of the
compiled kernel).  Each layer is then judged at its share of alpha (:mod:`..layers`):

* the eps lower bound and the p-value of H0 "(eps, delta)-DP holds" on the event, by the
  plan's certifier (:mod:`..statistics`): at delta = 0 the exact conditional test, for which
  the number of outputs of each input is drawn from Poisson(n) (Poissonization makes the
  counts independent Poisson, so that given their sum the favoured count is binomial with
  the ratio of the two frequencies); at delta > 0 Clopper-Pearson on exactly n outputs;
* a layer whose refinement could not tell two events apart (``Refined.hedge``) certifies both,
  each at half its level, and keeps the larger bound: a union bound over two events fixed
  before these outputs were drawn, so its statements hold at the layer's level;
* the floating-point layer, when its event is a union of granularity classes, also has to
  show that the classes, not the magnitude of the outputs, tell the inputs apart: within each
  binade the event must be more frequent under the favoured input (a stratified test,
  :func:`statistics.stratified_excess`).  Otherwise the excess on the event is the law's
  (a law that exceeds the claim shows through any coarse event, binades included) and the
  floating point is not blamed.  Both must reject (an intersection-union test: the layer's
  p-value is the larger of the two).

The eps(delta) curve and the trade-off view are certified on the curve events of the law
layer (of the floating-point layer when the law is not tested), simultaneously at alpha.

An audit with a ``budget`` certifies in rounds instead (:mod:`.sequential`), with the
counting (:func:`count_events`) and the stratified test of this stage.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from dpbench.randomness import stream_seed

from .. import statistics as st
from .. import tradeoff
from ..events import Event
from ..layers import FLOATING_POINT, LAW
from ..result import SequentialRun
from ..source import CERTIFY, SampleSource
from .refine import Refined
from .validate import AuditPlan

#: a mechanism's own function is called this many times for an input's certification outputs (one call per
#: output when fewer): a draw its calls share (noise or a subsample drawn once per call; each output alone may
#: be DP) then averages out in the counts as it does in the law of one output that DP is about.  In four calls
#: of 262,144 outputs, N(0, 0.02) drawn once per call made a correct lattice Laplace(1) count VIOLATED at
#: eps >= 1.01 (p = 1.8e-7) at the default n: a shift far too small for the contract's check to see.
#: Compiled samplers keep the contract by construction and draw in chunks.
CALLS = 1000
#: the key of the Poisson number of outputs of a certification stream: (SIZE_STREAM, pair, side, *stream).
#: Sample streams begin with a pair index, so this one is disjoint from every stream of outputs
#: (the block path keys a chunk c of certification (pair, side, 1, c)): the numbers drawn are
#: independent of the outputs, as the conditional test needs
SIZE_STREAM = 0x7FFFFFF7


@dataclass
class Certified:
    """One layer's certification counts and what they certify at its level.

    k_favoured, k_other  outputs in the event among the n of the favoured input / the other
    level                the level of this event's statements: the layer's alpha (its share of the
                         audit's ``alpha``), halved when the layer certifies two events (``hedged``)
    n_favoured, n_other  outputs drawn of the favoured input / the other (Poisson(n) each at delta = 0)
    eps_lower_bound      the certifier's lower bound on eps at the claimed delta (>= 0)
    p_claim              p-value of H0 "(eps, delta)-DP holds" on this event
    p_strata             floating point: p-value of "the event is no more frequent under the
                         favoured input within each binade" (None: not tested)
    eps_cap              the largest bound these samples could certify (None: the certifier's bound
                         with every output of the favoured input in the event and none of the other's)
    """

    layer: str
    refined: Refined
    hist_x: np.ndarray
    hist_x_prime: np.ndarray
    k_favoured: int
    k_other: int
    n_favoured: int
    n_other: int
    level: float
    alpha: float
    eps_lower_bound: float
    p_claim: float
    p_strata: float | None
    eps_cap: float | None = None

    @property
    def event(self) -> Event:
        return self.refined.event

    @property
    def hedged(self) -> bool:
        """Two events were certified, each at half the layer's alpha; this one had the larger bound."""
        return self.refined.hedge is not None

    @property
    def events_certified(self) -> int:
        return 2 if self.hedged else 1

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
    """Every layer's certification, the curve and trade-off view, and how long counting took.

    n           certification outputs per input the statements rest on (the mean of the
                Poisson numbers drawn, at delta = 0)
    sequential  the rounds of a sequential certification (None: n outputs at once)
    eps_ceiling, delta_floor, n_select
                what the rounds of a sequential certification resolve, and the selection outputs
                per input of its last choice (None: the plan's)
    """

    layers: dict
    curve: tradeoff.Certified
    seconds: float
    n: int
    sequential: SequentialRun | None = None
    eps_ceiling: float | None = None
    delta_floor: float | None = None
    n_select: int | None = None


def certify(plan: AuditPlan, source: SampleSource, refined: dict[str, Refined], bar=None) -> Certification:
    """Count and judge every layer's event on n fresh outputs per input (see the module docstring)."""
    t0 = time.perf_counter()
    hists, sizes = count_events(plan, source, refined, plan.n, (CERTIFY,), bar, calls=CALLS)
    layers = judge(plan, refined, hists, sizes, plan.n)
    return Certification(layers, _curve(plan, refined, hists, sizes, plan.alpha), time.perf_counter() - t0, plan.n)


def _curve(plan: AuditPlan, refined: dict[str, Refined], hists: dict, sizes: dict, alpha: float):
    """The eps(delta) curve and trade-off view on the curve events of the law layer (else the first)."""
    layer = LAW if LAW in refined else next(iter(refined))
    pair = refined[layer].pair
    return tradeoff.certify(refined[layer].curve_events, hists[layer, 0], hists[layer, 1],
                            sizes[pair, 0], alpha, plan.delta_grid, n_prime=sizes[pair, 1])


def count_events(plan: AuditPlan, source: SampleSource, refined: dict[str, Refined], n: int, stream: tuple,
                 bar=None, poisson: bool | None = None, calls: int = 1) -> tuple[dict, dict]:
    """((layer, side) -> histogram of the layer's statistic on fresh outputs of that input
    ((layer, side, "hedge") -> its hedge's, when that has a statistic of its own),
    (pair, side) -> how many outputs were drawn).

    Every layer's statistic on a pair is counted on the same outputs (one draw per input):
    n of them, or Poisson(n) when the plan's certifier needs Poisson counts (:func:`draw_size`;
    ``poisson`` overrides).  ``stream`` ends the sample streams' keys (pair, side, *stream).
    ``calls``: a mechanism's own function is called at least this many times per input (one call per
    output when they are fewer; compiled sampling is not called).
    """
    by_pair: dict[int, list] = {}
    for layer, r in refined.items():
        by_pair.setdefault(r.pair, []).append(layer)
    hists: dict = {}
    sizes: dict = {}
    for p, members in by_pair.items():
        keys = [(layer, ()) for layer in members]
        # a hedge of another statistic (a contender's) is counted on the same outputs, under (layer, side, "hedge")
        keys += [(layer, ("hedge",)) for layer in members if _own_binning(refined[layer])]
        binnings = [_binning(refined[layer].hedge if tag else refined[layer].event) for layer, tag in keys]
        for side, x in enumerate(plan.pairs[p]):
            size = sizes[p, side] = draw_size(plan, n, (p, side, *stream), poisson)
            if bar is not None and size != n:
                bar.total += size - n
            for (layer, tag), h in zip(keys, source.histograms(x, size, binnings, (p, side, *stream), bar,
                                                               calls=calls)):
                hists[(layer, side, *tag)] = h
    return hists, sizes


def _binning(event: Event) -> tuple:
    return event.statistic, event.edges


def _own_binning(r: Refined) -> bool:
    """The layer's hedge needs counts of its own (another statistic or other bins than the event's)."""
    return r.hedge is not None and not r.event.shares_bins(r.hedge)


def draw_size(plan: AuditPlan, n: int, key: tuple, poisson: bool | None = None) -> int:
    """The number of outputs to draw on the stream ``key``: n, or a Poisson(n) draw of its own seed
    when the plan's certifier needs Poisson counts (or ``poisson`` says so; the same seed gives the
    same number)."""
    if not (plan.certifier.poisson if poisson is None else poisson):
        return n
    return int(np.random.default_rng(stream_seed(plan.seed, SIZE_STREAM, *key)).poisson(n))


def judge(plan: AuditPlan, refined: dict[str, Refined], hists: dict, sizes: dict, n: int,
          spend: float = 1.0) -> dict[str, Certified]:
    """Every layer's verdict from its counts, at its share of ``spend`` * alpha, by the plan's
    certifier (the bound and p-value of one pre-chosen event).  ``sizes``: (pair, side) ->
    outputs drawn; n: their mean per input (what a Poisson certifier conditions on)."""
    levels = {layer: level * spend for layer, level in plan.levels(refined).items()}
    out = {}
    for layer, r in refined.items():
        if r.hedge is None:
            out[layer] = _judge_event(plan, layer, r, hists[layer, 0], hists[layer, 1], sizes, n, levels[layer])[1]
            continue
        # a hedged layer certifies two events at half its level each and keeps the larger bound
        tag = ("hedge",) if _own_binning(r) else ()
        swapped = replace(r, event=r.hedge, hedge=r.event)
        out[layer] = max(_judge_event(plan, layer, r, hists[layer, 0], hists[layer, 1], sizes, n, levels[layer] / 2),
                         _judge_event(plan, layer, swapped, hists[(layer, 0, *tag)], hists[(layer, 1, *tag)], sizes,
                                      n, levels[layer] / 2),
                         key=lambda pair: pair[0])[1]
    return out


def _judge_event(plan: AuditPlan, layer: str, r: Refined, h_x, h_xp, sizes: dict, n: int,
                 level: float) -> tuple[float, Certified]:
    """(the certifier's bound, the layer's certification) of ``r.event`` on its histograms at ``level``."""
    certifier, event = plan.certifier, r.event
    k1, k2 = event.counts(h_x, h_xp)
    n1, n2 = sizes[r.pair, 0], sizes[r.pair, 1]
    if not event.forward:
        n1, n2 = n2, n1
    m1, m2 = (n, n) if certifier.poisson else (n1, n2)
    bound = float(certifier.bound(k1, m1, k2, m2, level, plan.delta))
    return bound, Certified(layer=layer, refined=r, hist_x=h_x, hist_x_prime=h_xp, k_favoured=k1, k_other=k2,
                            n_favoured=n1, n_other=n2, level=level, alpha=plan.alpha,
                            eps_lower_bound=max(0.0, bound),
                            p_claim=float(certifier.p_value(k1, m1, k2, m2, plan.eps, plan.delta)),
                            p_strata=_strata_test(event, h_x, h_xp) if layer == FLOATING_POINT else None)


def _strata_test(event: Event, hist_x, hist_x_prime) -> float | None:
    """p-value of the stratified test of a floating-point event (None: its bins carry no strata)."""
    strata = event.statistic.info.get("strata")
    if strata is None or len(strata) + 1 != event.bins.size:
        return None
    favoured, other = (hist_x, hist_x_prime) if event.forward else (hist_x_prime, hist_x)
    return st.stratified_excess(favoured, other, event.bins, list(strata) + [("unseen",)])
