"""Stage 2, select: which statistic, event and input pair each layer will certify.

``n_select`` outputs of M(x) and M(x') per pair are split: fit the candidate statistics of
every requested feature (1/2) | screen a shortlist of events per statistic (1/8) | validate
it on fresh outputs (3/8).  Each statistic's best validated event is a :class:`Candidate`;
the most promising event never seen under one input (an atom, a bottom symbol, a granularity
class) is nominated apart, to be judged on the refinement outputs.  Per layer, the candidate
that promises the largest certified bound is chosen (:func:`choose`).  Selection outputs
never certify anything.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpbench.validation import InputError

from .. import features as feat
from ..events import Event, rare_event, search, validate
from ..inputs import as_input
from ..layers import LAYERS
from ..source import QUICK_SELECT, SELECT, SampleSource
from .validate import SHORTLIST, AuditPlan

#: a validated proxy is trusted if its standard error is at most this fraction of the best proxy
RELIABLE_FRACTION = 1.0 / 3.0


@dataclass
class Candidate:
    """An event of one statistic on one input pair, and what selection thinks of it."""

    proxy: float             # projected certified bound (pessimistic; see events._proxy)
    se: float                # selection uncertainty of the proxy, in eps units
    event: Event
    pair: int                # index into the plan's input pairs

    @property
    def layer(self) -> str:
        return self.event.statistic.layer


@dataclass
class Choice:
    """A layer's chosen candidate, and the candidates that may replace it at refinement: the
    rare nominee, and the contenders -- the learned score that promised most, when the choice
    passed it over for a direct statistic within the selection's error, or, when a learned
    score was chosen, the best discrete direct statistic of its pair and the best other learned
    score of its pair within the selection's error (:func:`choose`)."""

    chosen: Candidate
    nominee: Candidate | None
    selection_proxy: float
    contenders: tuple[Candidate, ...] = ()


def quick_pass(plan: AuditPlan) -> int:
    """Outputs per input and pair of selection's quick pass over every pair (0: no quick pass), when
    there are more pairs than ``keep_pairs``: a quarter of the selection outputs."""
    return max(20, plan.n_select // 4) if plan.keep_pairs is not None and len(plan.pairs) > plan.keep_pairs else 0


def selection_outputs(plan: AuditPlan) -> int:
    """The outputs selection draws (both inputs, every pair it looks at; its progress bar's total)."""
    pairs, quick = len(plan.pairs), quick_pass(plan)
    return 2 * (quick * pairs + plan.n_select * (min(pairs, plan.keep_pairs) if quick else pairs))


def select(plan: AuditPlan, source: SampleSource) -> dict[str, Choice]:
    """The chosen candidate (and rare nominee) of every layer that has a candidate statistic."""
    kept = range(len(plan.pairs))
    if quick_pass(plan):
        # a quick pass over every pair (a quarter of the selection outputs, own streams),
        # then the full selection on the most promising pairs only
        quick, _ = candidates(plan, source, kept, quick_pass(plan), stream=QUICK_SELECT)
        best_per_pair: dict = {}
        for c in quick:
            best_per_pair[c.pair] = max(best_per_pair.get(c.pair, -math.inf), c.proxy)
        kept = sorted(best_per_pair, key=best_per_pair.get, reverse=True)[:plan.keep_pairs]
    found, rare = candidates(plan, source, kept, plan.n_select, stream=SELECT)
    if not found:
        if source.labels_only():
            raise NoPower(f"no power, because the outputs are labels that almost never repeat "
                          f"({source.distinct_text}): no output recurs often enough to be counted (return "
                          f"numbers for measured values; a mapping of numbers is read as a vector)")
        names = ", ".join(f.name for f, _ in plan.features)
        raise InputError(f"no statistic of the features asked for ({names}) applies to the outputs of "
                         f"{source.name}")
    out = {}
    for layer in LAYERS:
        mine = [c for c in found if c.layer == layer]
        if not mine:
            continue
        chosen, passed_over = choose(mine)
        contenders = passed_over if plan.n_refine > 0 else ()
        # a rare event (never seen under one input) that would beat the chosen one if it truly
        # never occurred there is judged on the refinement outputs too
        nominee = max((c for c in rare if c.layer == layer), key=lambda c: c.proxy, default=None)
        if nominee is not None and (plan.n_refine == 0 or nominee.proxy <= chosen.proxy):
            nominee = None
        out[layer] = Choice(chosen, nominee, chosen.proxy, contenders)
    return out


class NoPower(Exception):
    """No statistic can be counted on these outputs (labels that never repeat): the audit has no
    power, and says so instead of a verdict (its message is the reason)."""


def candidates(plan: AuditPlan, source: SampleSource, which, n_select: int, stream: int):
    """(validated, rare): per statistic of every pair in ``which``, the best validated event,
    and the most promising event never seen under one input (events.rare_event) with its
    zero projection as proxy."""
    fit, screen = n_select // 2, (5 * n_select) // 8
    found, rare = [], []
    for p in which:
        a, b = plan.pairs[p]
        rows_a = source.rows(a, n_select, p, 0, stream)
        rows_b = source.rows(b, n_select, p, 1, stream)
        data = feat.FitData(rows_a[:fit], rows_b[:fit], x=as_input(a), x_prime=as_input(b),
                            log_density=plan.log_density)
        if source.labels_only():                    # for the no-power message
            source.note_distinct(rows_a)
        for stat in feat.candidate_statistics(plan.features, data):
            s_a, s_b = stat.evaluate(rows_a[fit:]), stat.evaluate(rows_b[fit:])
            k = screen - fit
            shortlist = search(stat, s_a[:k], s_b[:k], plan.n, plan.alpha, [plan.delta], top=SHORTLIST)
            scores = validate(shortlist, s_a[k:], s_b[k:], plan.n, plan.alpha)
            if scores.shape[0] == 0:
                continue
            i = most_promising(scores[:, 0], scores[:, 1])
            shortlist[i].proxy = float(scores[i, 0])
            found.append(Candidate(float(scores[i, 0]), float(scores[i, 1]), shortlist[i], p))
            nominee = rare_event(stat, s_a, s_b, plan.n, plan.alpha, plan.delta)
            if nominee is not None:
                rare.append(Candidate(nominee.proxy, math.inf, nominee, p))
    return found, rare


def reliable(proxy: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Candidates estimated precisely enough to trust: standard error at most a third of the
    best proxy (a rare event that was lucky in validation is not)."""
    return se <= max(float(proxy.max()), 0.0) * RELIABLE_FRACTION


def most_promising(proxy: np.ndarray, se: np.ndarray) -> int:
    """Index of the best validated proxy among the reliable candidates (or the plain best if none is reliable)."""
    ok = reliable(proxy, se)
    if ok.any():
        return int(np.flatnonzero(ok)[np.argmax(proxy[ok])])
    return int(np.argmax(proxy))


def choose(found: list[Candidate]) -> tuple[Candidate, tuple[Candidate, ...]]:
    """(the event to certify among one layer's candidates, its contenders at refinement).

    The most promising validated proxy (:func:`most_promising`), except that a learned score
    (naive-Bayes, logistic, sign) is passed over for a direct statistic (value, category,
    pattern, exact likelihood ratio) whose proxy is within one standard error of the
    difference: a fitted score adds noise the validation cannot see.  The score passed over
    is not dropped: refinement judges it again on its own outputs (``Choice.contenders``).
    A learned score chosen outright has as contenders the best discrete direct statistic of its
    pair, if any (selection ranks intervals of its categories, whereas refinement also judges
    its single outcomes alone: a rare outcome of large ratio, which a score averages away), and
    the best other learned score of its pair within the selection's error, if any (several
    scores of one vector output often promise the same within their errors, and the one that
    validated luckiest is not the best more often than chance: Rappor at seed 3 chose a score
    of consecutive differences, meant for running sums, and certified 0.272; the logistic score,
    its contender now, certifies 0.294).
    """
    proxy, se = np.array([f.proxy for f in found]), np.array([f.se for f in found])
    top = found[most_promising(proxy, se)]
    ok = reliable(proxy, se)

    def within_error(f):
        return f.proxy >= top.proxy - math.hypot(top.se, f.se)

    direct = [f for f, good in zip(found, ok) if good and not f.event.statistic.learned and within_error(f)]
    if top.event.statistic.learned and direct:
        return max(direct, key=lambda f: f.proxy), (top,)
    if top.event.statistic.learned:
        mine = [f for f, good in zip(found, ok) if good and f.pair == top.pair and f is not top]
        discrete = [f for f in mine if not f.event.statistic.learned and f.event.statistic.discrete]
        scores = [f for f in mine if f.event.statistic.learned and within_error(f)]
        return top, tuple(max(group, key=lambda f: f.proxy) for group in (discrete, scores) if group)
    return top, ()
