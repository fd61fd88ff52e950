"""Stage 3, refine: each layer's event chosen again on fresh outputs, and its curve's events.

On ``n_refine`` fresh outputs per input of the chosen pairs (own streams, never certified),
the chosen statistic and pair of every layer are fixed and the event (bins, direction) is
chosen again as at selection with more data: shortlist on one half, validate on the other
(each validated proxy taken sqrt(2 ln L) standard errors low for L shortlisted events, so
that the luckiest small tail does not beat a plentiful event of nearly the same ratio);
the selection's event competes and is replaced only by one clearly better.  For a discrete
statistic the single outcome of largest proxy on the first half is also judged alone on the
second, paying the margin of a choice between two: on a law with one rare outcome of large
ratio among many of nearly equal mass (SVT6's answer vectors), the shortlist's margin buries it
(``events.best_single_bin``).  When the second half cannot tell which of the two is stronger,
both are certified, each at half the layer's alpha (a union bound; ``events.hedge_gain`` weighs
the step from alpha to alpha / 2 against the chance that the other event is the stronger); so
are a contender's event and the chosen statistic's, when the contender wins by too little.  A layer's
contenders (a learned score that selection passed over for a direct statistic within its
error; or, beside a learned score chosen outright, the discrete direct statistic of its pair
and the best other learned score within the selection's error: ``select.choose``) are refined
the same way on the same outputs, in turn, and one replaces the statistic so far if its
refined proxy is larger: they are compared on fresh outputs, where a fitted score carries no
fitting noise, and each proxy already pays for its own shortlist.  A layer's rare nominee
is counted on all its refinement outputs and replaces the refined event if its validated
proxy is larger, the two on the same footing: each on outputs it was not chosen on (the refined
event on the second half), each at the margin of a choice between two (the nominee at one
standard error on all the outputs used to meet the refined event at its shortlist's margin on
half of them, and a lucky interval beat the tail); a nominee that wins by too little has the
refined event certified beside it.  A continuous statistic is counted at refinement on its
selection bins and eight more beyond each outermost one (``events.with_outer_bins``), and last,
an event to certify that is a tail of such a statistic has its threshold moved towards the rare
end where a model of all its refinement counts shows the ratio rising there
(``events.refit_half_line``): a shortlist validated on half the counts leaves a tail's threshold
far from its rare end when the best one has few counts.  The events of the eps(delta) curve
(same statistic and bins) are chosen from the same counts.  The layers share the outputs: every
statistic of a pair is counted on the same draws (:meth:`SampleSource.histograms`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..events import (
    Event,
    best_single_bin,
    fold_outer_bins,
    hedge_gain,
    refit_half_line,
    search,
    search_counts,
    validate_counts,
    validation_margin,
    with_outer_bins,
)
from ..source import REFINE, SELECT, SampleSource
from .select import Choice, most_promising
from .validate import SHORTLIST, AuditPlan


@dataclass
class Refined:
    """What a layer certifies: its event on its pair, and the events of its eps(delta) curve.

    hedge  a second event on the same pair (of the same statistic, or the statistic ``event``'s
           beat at refinement), certified beside ``event`` at half the layer's alpha each (the
           larger bound is the layer's); None: ``event`` alone
    """

    event: Event
    pair: int
    curve_events: list
    selection_proxy: float
    nominee: Event | None
    contender: Event | None = None
    contender_chosen: bool = False
    hedge: Event | None = None

    @property
    def nominee_chosen(self) -> bool:
        return self.nominee is not None and self.event is self.nominee


def refine(plan: AuditPlan, source: SampleSource, choices: dict[str, Choice], bar=None) -> dict[str, Refined]:
    """The refined event of every layer in ``choices`` (see the module docstring)."""
    if plan.n_refine == 0:
        return {layer: _unrefined(plan, source, c) for layer, c in choices.items()}
    half = max(1, plan.n_refine // 2)
    sizes = (half, plan.n_refine - half)
    # every (layer, role) statistic to count, grouped by pair: one draw per pair, input and half;
    # a continuous statistic on its bins and those beyond its outermost edges (events.with_outer_bins),
    # which only the threshold move at the end reads: everything before it sees the selection's bins
    wanted: dict[int, list] = {}
    for layer, c in choices.items():
        wanted.setdefault(c.chosen.pair, []).append((layer, "chosen", c.chosen.event))
        if c.nominee is not None:
            wanted.setdefault(c.nominee.pair, []).append((layer, "nominee", c.nominee.event))
        for i, rival in enumerate(c.contenders):
            wanted.setdefault(rival.pair, []).append((layer, ("contender", i), rival.event))
    counts, outer = {}, {}                         # (layer, role, side, part) -> histogram
    for q, items in wanted.items():
        binnings = [(ev.statistic, with_outer_bins(ev).edges) for _, _, ev in items]
        for part, m in enumerate(sizes):
            for side, x in enumerate(plan.pairs[q]):
                hists = source.histograms(x, m, binnings, (q, side, REFINE + part), bar)
                for (layer, role, ev), h in zip(items, hists):
                    outer[layer, role, side, part] = h
                    counts[layer, role, side, part] = fold_outer_bins(h, ev)
    return {layer: _refined(plan, c, {k[1:]: v for k, v in counts.items() if k[0] == layer},
                            {k[1:]: v for k, v in outer.items() if k[0] == layer}, sizes)
            for layer, c in choices.items()}


def _moved(plan: AuditPlan, event: Event, outer: dict, role) -> tuple[Event, tuple | None]:
    """(the event whose threshold ``events.refit_half_line`` moved on the role's refinement counts on
    the outer bins as well, and those counts summed over the halves), or (``event``, None)."""
    wide = with_outer_bins(event)
    if wide is event:
        return event, None
    full = _whole(outer, role)
    moved = refit_half_line(wide, full[0], full[1], plan.n_refine, plan.n_refine, plan.n, plan.alpha)
    return (event, None) if moved is wide else (moved, full)


def _refine_statistic(plan: AuditPlan, event: Event, h: list, sizes) -> tuple[Event, float, Event | None]:
    """(event, validated proxy, hedge): the event of ``event``'s statistic chosen again on
    refinement counts h = [x half 0, x' half 0, x half 1, x' half 1], and the second event to
    certify beside it at half the alpha (None: it alone, at the whole)."""
    shortlist = search_counts(event.statistic, event.edges, h[0], h[1], sizes[0], sizes[0], plan.n, plan.alpha,
                              [plan.delta], top=SHORTLIST) + [event]
    scores = validate_counts(shortlist, h[2], h[3], sizes[1], sizes[1], plan.n, plan.alpha,
                             validation_margin(len(shortlist)))
    i, inc = most_promising(scores[:, 0], scores[:, 1]), len(shortlist) - 1
    # the selection's event is replaced only by one clearly better on these counts: by more
    # than the standard error of the difference (nested events: sqrt|se_1^2 - se_2^2|), so
    # near-ties among events of a plentiful statistic stay with the incumbent
    (p_i, se_i), (p_inc, se_inc) = scores[i].tolist(), scores[inc].tolist()
    if (not all(map(math.isfinite, (p_i, se_i, p_inc, se_inc)))
            or p_i - p_inc <= math.sqrt(abs(se_i ** 2 - se_inc ** 2))):
        i = inc
    chosen, proxy, hedge = shortlist[i], float(scores[i, 0]), None
    if event.statistic.discrete:
        # the single outcome of largest proxy on the first half, judged alone on the second: a
        # rare outcome of large ratio that the shortlist's margin would bury (events.best_single_bin);
        # it pays the margin of a choice between two (it and the shortlist's pick)
        single = best_single_bin(event.statistic, event.edges, h[0], h[1], sizes[0], sizes[0], plan.n,
                                 plan.alpha, plan.delta)
        if single is not None and single.key() != chosen.key():
            p_single = float(validate_counts([single], h[2], h[3], sizes[1], sizes[1], plan.n, plan.alpha,
                                             validation_margin(2))[0, 0])
            other = single
            if p_single > proxy:
                chosen, proxy, other = single, p_single, chosen
            # when these counts cannot tell the two apart, both are certified, each at alpha / 2
            if hedge_gain(chosen, h[2:], other, h[2:], sizes[1], sizes[1], plan.n, plan.alpha, plan.delta) > 0:
                hedge = other
    return chosen, proxy, hedge


def _halves(counts: dict, role: str) -> list:
    """A role's refinement histograms [x half 0, x' half 0, x half 1, x' half 1]."""
    return [counts[role, side, part] for part in (0, 1) for side in (0, 1)]


def _whole(counts: dict, role) -> tuple:
    """A role's refinement histograms (x, x') summed over the two halves."""
    return tuple(counts[role, side, 0] + counts[role, side, 1] for side in (0, 1))


def _refined(plan: AuditPlan, choice: Choice, counts: dict, outer: dict, sizes) -> Refined:
    """One layer's refinement from its counts: (role, side, part) -> histogram, on the selection's
    bins (``counts``) and on the outer bins as well (``outer``)."""
    p = choice.chosen.pair
    h = _halves(counts, "chosen")
    event, proxy, hedge = _refine_statistic(plan, choice.chosen.event, h, sizes)
    role, role_hedge = "chosen", "chosen"          # whose counts the event and the hedge are of
    contender, contender_chosen = None, False
    for i, rival in enumerate(choice.contenders):
        hc = _halves(counts, ("contender", i))
        event_c, proxy_c, hedge_c = _refine_statistic(plan, rival.event, hc, sizes)
        won = proxy_c > proxy
        if contender is None or won:
            contender = event_c
        # the loser of the two statistics is certified beside the winner when the counts cannot
        # tell them apart (same pair only: the certification outputs are drawn per pair)
        first, h_first, second, h_second = (event_c, hc, event, h) if won else (event, h, event_c, hc)
        role_second = role if won else ("contender", i)
        loser = None
        if rival.pair == p and hedge_gain(first, h_first[2:], second, h_second[2:], sizes[1], sizes[1],
                                          plan.n, plan.alpha, plan.delta) > 0:
            loser = second
        if won:
            event, proxy, hedge, p, h, contender_chosen = event_c, proxy_c, hedge_c, rival.pair, hc, True
            role = role_hedge = ("contender", i)
        if loser is not None and hedge is None:
            hedge, role_hedge = loser, role_second
    full = _whole(counts, role)
    nominee = None if choice.nominee is None else choice.nominee.event
    if nominee is not None:
        # the nominee and the refined event on the same footing: each on outputs it was not chosen
        # on (the nominee on all refinement outputs, the refined event on the second half), each
        # paying the margin of a choice between two.  A nominee that wins is a rare event whose
        # few counts may have been lucky: the refined event is certified beside it at alpha / 2
        # when the second half cannot tell them apart (same pair).  Not the other way round:
        # events.hedge_gain values a rare event's noise as upside (tried: Laplace rows hedged
        # beside far tails of a dozen counts lost the step from alpha to alpha / 2)
        full_nom = _whole(counts, "nominee")
        margin = validation_margin(2)
        nom_proxy = float(validate_counts([nominee], *full_nom, plan.n_refine, plan.n_refine, plan.n,
                                          plan.alpha, margin)[0, 0])
        own = float(validate_counts([event], h[2], h[3], sizes[1], sizes[1], plan.n, plan.alpha, margin)[0, 0])
        if nom_proxy > own:
            h_nom = [counts["nominee", side, 1] for side in (0, 1)]
            both = choice.nominee.pair == p and hedge_gain(nominee, h_nom, event, h[2:], sizes[1], sizes[1], plan.n,
                                                           plan.alpha, plan.delta) > 0
            event, proxy, hedge, role_hedge, p, full = (nominee, nom_proxy, event if both else None, role,
                                                        choice.nominee.pair, full_nom)
            role = "nominee"
    # the tail thresholds of the events to certify, moved on all their refinement counts
    # (events.refit_half_line)
    nominee_chosen = nominee is not None and event is nominee
    event, moved_full = _moved(plan, event, outer, role)
    if moved_full is not None:
        full = moved_full
    if nominee_chosen:
        nominee = event
    if hedge is not None:
        hedge = _moved(plan, hedge, outer, role_hedge)[0]
        if hedge.key() == event.key():
            hedge = None
    event.proxy = proxy
    curve = search_counts(event.statistic, event.edges, full[0], full[1], plan.n_refine, plan.n_refine, plan.n,
                          plan.alpha, plan.delta_grid)
    return Refined(event, p, curve, choice.selection_proxy, nominee, contender,
                   contender_chosen and event is not nominee, hedge)


def _unrefined(plan: AuditPlan, source: SampleSource, choice: Choice) -> Refined:
    """Without refinement: the selection's event, and its curve's events chosen on the selection
    outputs of its pair (drawn again from the same streams)."""
    event, p = choice.chosen.event, choice.chosen.pair
    fit = plan.n_select // 2
    s_a = event.statistic.evaluate(source.rows(plan.pairs[p][0], plan.n_select, p, 0, SELECT)[fit:])
    s_b = event.statistic.evaluate(source.rows(plan.pairs[p][1], plan.n_select, p, 1, SELECT)[fit:])
    curve = search(event.statistic, s_a, s_b, plan.n, plan.alpha, plan.delta_grid, edges=event.edges)
    return Refined(event, p, curve, choice.selection_proxy, None)
