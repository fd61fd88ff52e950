"""The audit with a budget: every stage in rounds, anytime-valid (:func:`run`).

Round 1 draws a Poisson(FIRST_ROUND) number of outputs of each input of every pair; round k
draws GROWTH times more.  Before round k >= 2 is drawn, each layer's event is chosen on the
outputs of the rounds before it, by the stages of the fixed-n audit: selection
(:mod:`.select`) on rounds 1..k-2 and refinement (:mod:`.refine`) on round k-1 (round 2:
selection on round 1, no refinement).  Round k's fresh outputs are then the layer's bet
(:mod:`..evalues`): its wealth is multiplied by the round's e-value of that event (of its two
events, half on each, when refinement could not tell them apart).  The audit stops as soon as
a layer's wealth at the claim reaches 1 / (its share of alpha) -- that layer is violated --
or when the budget is spent (but not while the law's second showing, below, is pending: a law
whose bets passed the claim is not left "not rejected" by a floating-point violation found
first).  Whatever the data did to the choices and to the stopping time, every statement holds
at confidence 1 - alpha together (the wealth is a test supermartingale: Ville's inequality; the
layers split alpha as in :mod:`..layers`, the floating point's share only if the first round's
outputs are not all integers or labels).

So nothing is drawn for selection alone but the first round: each round's outputs are evidence
first and the ground on which the next events are chosen afterwards, and a gross violation stops
the audit after a few rounds of a few hundred outputs (Gonzalez, Dulce-Rubio, Ramdas & Ribero,
"Sequentially auditing differential privacy", NeurIPS 2025, bet on one witness function learned
online; here the audit's own events are the witnesses).  Any positive budget is valid: a small one
gives a weaker bound, and one too small to bet at all leaves the layers "not tested: no power".

The rounds' outputs are kept (later rounds choose on them) up to STORE_MAX numbers.  Past that
the last choice is final, and later rounds draw only its pairs and count its events without
keeping them (by compiled code when the mechanism has it).  The floating-point layer's
stratified test (:func:`.certify._strata_test`) looks, after each of a round's STEPS bets, at the
round's counts so far, at its share of alpha times 6 / (pi^2 k^2) / STEPS for the k-th round bet
on (an alpha-spending union bound over rounds and looks); the eps(delta) curve and trade-off view
are certified on the last round's counts likewise.

Calls.  The bets' e-values assume that a call's outputs are independent draws.  A mechanism's own
function that draws part of its noise once per call breaks that: a lattice Laplace(1) count plus
N(0, 0.1), N(0, 0.3) or N(0, 0.6) drawn once per call is eps = 1 DP output by output, yet with one
call per step every bet compared a shifted copy of its law on x with another on x', and the law was
certified VIOLATED (eps >= 1.002 and 1.075) against its correct claim of 1 in 3 of 24 audits (budgets
1e5 and 1e6, seeds 0 to 3) where the contract's check 4 saw nothing in calls this small.  So, on a
mechanism's own function, once the law's wealth is halfway to its level (its log at ROBUST_FROM of
the way) every later step draws its outputs of an input in CALLS calls (one per output when fewer),
where such a shift averages out as it does in the law of one output that DP is about, and a second
wealth bets on those steps alone; the law is violated only when both pass the claim (an
intersection-union test: each is valid at the layer's level under the contract, whatever the data
did to the second's start, the second also without it but for what stays shared within a call of a
large step), its bound the smaller of the two from the claim up.  On the 24 audits: none violated
(16 refused by the contract, 8 not rejected); on 72 more (N(0, 0.05) to N(0, 1), budgets 1e5 and
1e6, seeds 0 to 5) none either.  A violation of independent draws costs the second showing: the
planted law bugs of true eps at least twice the claim went from median 1,144 and at most 21,291
samples in all (one showing) to median 1,548 and at most 55,456 when the second wealth started only
once the first had passed the claim, and to median 1,372 and at most 32,378 starting halfway
(gaussian_l2_sensitivity at seeds 0 to 11: at most 45,718, against 60,621).  A correct mechanism
pays the calls only when its wealth strays halfway, with probability at most sqrt(level) (Ville).
Compiled samplers keep the contract by construction and bet once.

Rounds grow by GROWTH = 1.5 and are bet on in STEPS = 16 steps: an event is chosen again on more
data after a round half as large as the outputs it was chosen on, and a wealth that reaches the
level stops the audit within a sixteenth of a round.  On the planted 8-d Gaussian with too little
noise (true eps 2.37 against 1, 40 seeds), samples in all went from median 39,000 and at most
111,000 (GROWTH 2, STEPS 4) to median 25,000 and at most 46,000.
"""
from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

from dpbench.engine import guard
from dpbench.randomness import stream_seed

from .. import evalues, layers, tradeoff
from ..events import Event, histogram
from ..features.grain import fractional
from ..layers import FLOATING_POINT, LAW
from ..result import SequentialRun
from ..source import REFINE, SEQUENTIAL, SampleSource
from .certify import CALLS, SIZE_STREAM, Certification, Certified, _binning, _own_binning, _strata_test, count_events
from .refine import Refined, refine
from .select import NoPower, select
from .validate import AuditPlan, resolution_floor

#: outputs per input and pair of the first round (a Poisson mean), and each next round's factor
FIRST_ROUND, GROWTH = 250, 1.5
#: a round's outputs are drawn and bet on in this many steps (its events fixed), so that a violation
#: stops the audit within a part of a round
STEPS = 16
#: a round of fewer outputs per input is not drawn (the budget is spent)
MIN_ROUND = 20
#: the most numbers (outputs x their width) kept for choosing events, over all pairs and inputs
STORE_MAX = 20_000_000
#: a guarded layer's second wealth (and the steps drawn in many calls) starts once the first's log
#: wealth at the claim has come this fraction of the way to the level: halfway, so that a real
#: violation is shown the second time while the first showing completes (1: only after it)
ROBUST_FROM = 0.5
#: selection and refinement rank events by the bound they would certify on this many times the next
#: round's outputs (the wealth grows over several rounds: the event that pays is the one that
#: certifies by then, not at once)
HORIZON = 4


def spent_alpha(k: int) -> float:
    """The share of alpha spent at the k-th round bet on (1, 2, ...): 6 / (pi^2 k^2), summing to 1."""
    return 6.0 / (math.pi ** 2 * k * k)


class Replay:
    """What selection and refinement would draw from a sample source, served from the kept rounds:
    selection's outputs of (pair, side) are ``selected`` (rounds 1..k-2), refinement's two halves
    (streams REFINE and REFINE + 1) the first ``half`` and the next outputs of ``refined`` (round
    k-1).  Labels, names and the no-power bookkeeping are the real source's."""

    def __init__(self, source: SampleSource, selected: dict, refined: dict, half: int):
        self.source, self.selected, self.refined, self.half = source, selected, refined, half
        self.name, self.labels = source.name, source.labels

    def fast_path(self, x) -> bool:
        return False

    def labels_only(self) -> bool:
        return self.source.labels_only()

    def note_distinct(self, rows) -> None:
        self.source.note_distinct(rows)

    def rows(self, x, n: int, pair: int, side: int, *stage) -> np.ndarray:
        return self.selected[pair, side][:n]

    def histograms(self, x, n: int, binnings: list, key: tuple, bar=None) -> list[np.ndarray]:
        pair, side, stage = key[:3]
        kept = self.refined[pair, side]
        part = kept[:self.half] if stage == REFINE else kept[self.half:self.half + n]
        return [histogram(stat.evaluate(part), edges) for stat, edges in binnings]


@dataclass
class Kept:
    """The outputs of the rounds so far, per (pair, side): one array per round."""

    rounds: dict

    def numbers(self) -> int:
        return sum(r.size for runs in self.rounds.values() for r in runs)

    def joined(self, upto: int) -> tuple[dict, int]:
        """((pair, side) -> the outputs of the first ``upto`` rounds, cut to their common length; that length)."""
        out = {key: np.concatenate(runs[:upto]) for key, runs in self.rounds.items()}
        n = min(r.shape[0] for r in out.values())
        return {key: r[:n] for key, r in out.items()}, n

    def last(self) -> tuple[dict, int]:
        """((pair, side) -> the last round's outputs, cut to their common length; that length)."""
        n = min(runs[-1].shape[0] for runs in self.rounds.values())
        return {key: runs[-1][:n] for key, runs in self.rounds.items()}, n


def poisson_size(seed: int, mean: float, key: tuple) -> int:
    """A Poisson(mean) number of outputs for the stream ``key``, from a seed of its own."""
    return int(np.random.default_rng(stream_seed(seed, SIZE_STREAM, *key)).poisson(mean))


def draw_round(plan: AuditPlan, source: SampleSource, pairs, mean: float, stream: tuple, bar=None,
               calls: int = 1) -> dict:
    """(pair, side) -> a Poisson(mean) number of fresh outputs of the stream (round, step), for every
    pair of ``pairs``; a mechanism's own function is called ``calls`` times for them (as few as the
    chunk size allows when 1; one call per output when they are fewer than ``calls``)."""
    out = {}
    for p in pairs:
        for side, x in enumerate(plan.pairs[p]):
            size = poisson_size(plan.seed, mean, (p, side, SEQUENTIAL, *stream))
            step = source.call_size(x, size, calls)
            parts = [source.rows(x, min(step, size - first), p, side, SEQUENTIAL, *stream, c)
                     for c, first in enumerate(range(0, size, step))]
            out[p, side] = np.concatenate(parts) if parts else np.zeros((0, source.d or 1))
            if bar is not None:
                bar.update(size)
    return out


def round_counts(refined: dict[str, Refined], rows: dict) -> dict:
    """(layer, side[, "hedge"]) -> histogram of the layer's event (its hedge's) on the round's outputs."""
    hists = {(layer, side): histogram(r.event.statistic.evaluate(rows[r.pair, side]), r.event.edges)
             for layer, r in refined.items() for side in (0, 1)}
    return hedge_counts(refined, rows, hists)


def hedge_counts(refined: dict[str, Refined], rows: dict, hists: dict) -> dict:
    """``hists`` with (layer, side, "hedge") -> the histogram of each hedge that has bins of its own."""
    out = dict(hists)
    for layer, r in refined.items():
        if _own_binning(r):
            stat, edges = _binning(r.hedge)
            for side in (0, 1):
                out[layer, side, "hedge"] = histogram(stat.evaluate(rows[r.pair, side]), edges)
    return out


def layer_counts(r: Refined, hists: dict, layer: str) -> list[tuple[int, int]]:
    """[(favoured, other)] counts of the layer's event, and of its hedge when it has one."""
    out = [r.event.counts(hists[layer, 0], hists[layer, 1])]
    if r.hedge is not None:
        tag = ("hedge",) if _own_binning(r) else ()
        out.append(r.hedge.counts(hists[(layer, 0, *tag)], hists[(layer, 1, *tag)]))
    return out


class Tally:
    """What the outputs drawn so far say of each layer's events: counts (favoured, other) and
    outputs (favoured input, other), from which the next round's bet is sized (:func:`evalues.bet_size`)."""

    def __init__(self):
        self.counts: dict = {}             # layer -> [[k1, k2, n1, n2] per event (the event, its hedge)]

    def from_kept(self, refined: dict[str, Refined], joined: dict, hists: dict) -> None:
        """The counts of every layer's event(s) on all the kept rounds of its pair (``joined``), from
        the histograms of its event's statistic on them (``hists``, :func:`by_growth`'s)."""
        hists = hedge_counts(refined, joined, hists)
        for layer, r in refined.items():
            n1, n2 = joined[r.pair, 0].shape[0], joined[r.pair, 1].shape[0]
            self.counts[layer] = [[k1, k2, *((n1, n2) if ev.forward else (n2, n1))]
                                  for (k1, k2), ev in zip(layer_counts(r, hists, layer), _events(r))]

    def add(self, refined: dict[str, Refined], hists: dict, sizes: dict) -> None:
        """Add a round's counts (the events fixed: the outputs of later rounds size later bets)."""
        for layer, r in refined.items():
            n1, n2 = sizes[r.pair, 0], sizes[r.pair, 1]
            for row, (k1, k2), ev in zip(self.counts[layer], layer_counts(r, hists, layer), _events(r)):
                row[0] += k1
                row[1] += k2
                row[2] += n1 if ev.forward else n2
                row[3] += n2 if ev.forward else n1

    def frequencies(self, layer: str) -> list[tuple[float, float]]:
        """[(p1, p2)] of the layer's event(s), each count with half an output added (no zero frequency)."""
        return [((k1 + 0.5) / (n1 + 1.0), (k2 + 0.5) / (n2 + 1.0)) for k1, k2, n1, n2 in self.counts[layer]]


def _events(r: Refined) -> list:
    return [r.event] if r.hedge is None else [r.event, r.hedge]


@dataclass
class Budget:
    """What is left of the budget, and the size of the next round."""

    plan: AuditPlan
    started: float

    def first_size(self, draws: int, drawn: int) -> float:
        """The first round's mean per input and pair (``draws`` input-pair streams): FIRST_ROUND, or
        less so that a second round, GROWTH times larger, still fits a samples budget; 0: no room."""
        mean = float(FIRST_ROUND)
        if self.plan.budget.samples is not None:
            left = (self.plan.budget.samples - drawn) / (draws * (1.0 + GROWTH))
            mean = min(mean, left - 5.0 * math.sqrt(max(left, 1.0)))
        return mean if mean >= MIN_ROUND else 0.0

    def smallest(self, draws: int, drawn: int) -> int:
        """The smallest samples budget whose first round is drawn (:meth:`first_size` >= MIN_ROUND)."""
        root = (5.0 + math.sqrt(25.0 + 4.0 * MIN_ROUND)) / 2.0     # left - 5 sqrt(left) = MIN_ROUND
        return drawn + math.ceil(root * root * draws * (1.0 + GROWTH))

    def next_size(self, mean: float, draws: int, drawn: int, last_seconds: float) -> float:
        """The next round's mean per input and pair (``draws`` input-pair streams), cut to what the
        budget leaves; 0: spent.  A samples budget keeps five standard deviations of the Poisson
        sizes in hand; a seconds budget starts a round only if the last one's time, times GROWTH,
        still fits."""
        b = self.plan.budget
        if b.samples is not None:
            left = (b.samples - drawn) / draws
            mean = min(mean, left - 5.0 * math.sqrt(max(left, 1.0)))
        elif time.perf_counter() - self.started + GROWTH * last_seconds > b.seconds:
            return 0.0
        return mean if mean >= MIN_ROUND else 0.0


def run(plan: AuditPlan, source: SampleSource, started: float, bar=None, allow_long: bool = False) -> Certification:
    """The rounds of a sequential audit (see the module docstring); NoPower when the budget cannot bet."""
    t0 = time.perf_counter()
    budget = Budget(plan, started)
    everything = range(len(plan.pairs))
    mean = budget.first_size(2 * len(plan.pairs), source.drawn)
    if mean < MIN_ROUND:
        raise NoPower(f"no power, because the budget of {plan.budget} cannot draw a first round of outputs to "
                      f"choose events on and a second to bet on them (at least {MIN_ROUND} outputs per input "
                      f"each, {len(plan.pairs)} input pair{'s' if len(plan.pairs) > 1 else ''}, with room for "
                      f"their random sizes): give a budget of at least "
                      f"{budget.smallest(2 * len(plan.pairs), source.drawn):,} samples")
    kept = Kept({(p, side): [] for p in everything for side in (0, 1)})
    first = draw_round(plan, source, everything, mean, (1,), bar)
    for key, rows in first.items():
        kept.rounds[key].append(rows)
    _check_duration(plan, source, started, allow_long)
    tested = {LAW, FLOATING_POINT} & plan.requested_layers
    if not any(fractional(rows) for rows in first.values()):
        tested.discard(FLOATING_POINT)           # integers or labels: no floating point to read
    levels = {layer: plan.alpha * share for layer, share in layers.shares(tested).items()}
    state = Bets({layer: evalues.Wealth(plan.eps, plan.delta) for layer in levels}, levels)
    if LAW in levels and not all(source.fast_path(x) for pair in plan.pairs for x in pair):
        state.guarded = {LAW}                   # its violation must hold on outputs drawn in many calls too
    k, last_seconds, fixed_from, n_select = 1, time.perf_counter() - t0, None, 0
    refined = None
    exhausted = interrupted = False
    at_bet = None               # the loop's and the round's state at the last bet (Ctrl-C returns to it)
    try:
        while not state.done():
            pairs = everything if fixed_from is None else sorted({r.pair for r in refined.values()})
            mean = budget.next_size(mean * GROWTH, 2 * len(pairs), source.drawn, last_seconds)
            if mean <= 0:
                exhausted = True
                break
            t_round = time.perf_counter()
            if fixed_from is None:
                refined, n_select = _choose(plan, source, kept, mean)
                joined = {key: np.concatenate(runs) for key, runs in kept.rounds.items()}
                refined, hists = by_growth(plan, {layer: r for layer, r in refined.items() if layer in levels}, joined)
                if not refined:
                    raise NoPower("no power, because no statistic of the layers tested applies to these outputs")
                state.tally.from_kept(refined, joined, hists)
                room = 2 * len(plan.pairs) * (mean + 5 * math.sqrt(mean)) * max(1, source.d or 1)
                if kept.numbers() + room > STORE_MAX:
                    fixed_from = k + 1                  # the kept outputs are full: this choice is final
            k += 1
            state.new_round()
            parts = {key: [] for key in kept.rounds}
            for step in range(STEPS):
                calls = CALLS if state.robust else 1
                if fixed_from is None:
                    rows = draw_round(plan, source, everything, mean / STEPS, (k, step), bar, calls=calls)
                    for key, batch in rows.items():
                        parts[key].append(batch)
                    hists, sizes = round_counts(refined, rows), {key: batch.shape[0] for key, batch in rows.items()}
                else:
                    hists, sizes = count_events(replace(plan, n=int(mean)), source, refined, mean / STEPS,
                                                (SEQUENTIAL, k, step), bar, poisson=True, calls=calls)
                with _bet_whole():
                    state.bet(refined, hists, sizes, mean / STEPS)
                    at_bet = (k, fixed_from, n_select, refined, state.rounds, state.hists, state.sizes)
                if state.done():
                    break
            if fixed_from is None:
                for key, batches in parts.items():
                    kept.rounds[key].append(np.concatenate(batches))
            last_seconds = time.perf_counter() - t_round
    except KeyboardInterrupt:               # the bets so far stop here, a stopping time like any other
        if at_bet is None:
            raise
        k, fixed_from, n_select, refined, state.rounds, state.hists, state.sizes = at_bet
        interrupted = True
    if refined is None:                                   # the budget ended after the first round
        raise NoPower(f"no power, because the budget of {plan.budget} ended before a round could be bet on")
    run_info = SequentialRun(budget=str(plan.budget), rounds=k, n_certify=int(round(sum(state.means))),
                             samples=source.drawn, budget_exhausted=exhausted, stopped_early=state.done(),
                             fixed_from=fixed_from, interrupted=interrupted)
    if state.robust:
        _note_robust(run_info, state, source)
    cert = _certification(plan, refined, state, run_info, time.perf_counter() - t0)
    cert.n_select = n_select
    return cert


@contextlib.contextmanager
def _bet_whole():
    """Let no Ctrl-C split a bet: one that arrives during it is raised once the bet is made (in the
    main thread; elsewhere no handler can be set, and Ctrl-C does not arrive there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda *_: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


@dataclass
class Bets:
    """Every tested layer's wealth (:class:`evalues.Wealth`) and its floating-point stratified test,
    the bets so far, and the counts of the current round (its event fixed) up to the last bet."""

    wealth: dict
    levels: dict
    strata: dict = field(default_factory=dict)
    means: list = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    hists: dict | None = None
    sizes: dict | None = None
    rounds: int = 0
    violated: bool = False
    guarded: set = field(default_factory=set)      # layers whose violation must hold on robust steps too
    robust: dict = field(default_factory=dict)     # layer -> its wealth on the steps drawn in many calls
    robust_means: list = field(default_factory=list)

    def new_round(self) -> None:
        """Start a round: its events are fixed, its counts start at zero."""
        self.rounds += 1
        self.hists, self.sizes = None, None

    def pending(self) -> list[str]:
        """The guarded layers whose first wealth passed the claim but whose second has not (yet)."""
        return [layer for layer, w in self.robust.items()
                if self.wealth[layer].rejects(self.levels[layer]) and not w.rejects(self.levels[layer])]

    def done(self) -> bool:
        """Whether the audit stops: a layer is violated and no guarded layer's second showing is pending
        (a law whose bets passed the claim is not cut short by a floating-point violation found first: it
        would read "the law holds" when its violation was only waiting to be shown again)."""
        return self.violated and not self.pending()

    def look_alpha(self) -> float:
        """The share of alpha of a look at the current round's counts: the round's share (:func:`spent_alpha`)
        split over its STEPS looks."""
        return spent_alpha(self.rounds) / STEPS

    def bet(self, refined: dict[str, Refined], hists: dict, sizes: dict, mean: float) -> None:
        """One bet of every layer on fresh counts of its event(s) (Poisson(mean) outputs of each input);
        the stratified test looks at the round's counts so far.  A guarded layer whose wealth comes
        halfway to the level (ROBUST_FROM) starts a second wealth on the steps after it (drawn in many
        calls, :func:`run`), and is violated only when both pass the claim."""
        robust_step = bool(self.robust)
        self.means.append(mean)
        if robust_step:
            self.robust_means.append(mean)
        self.hists = hists if self.hists is None else {key: self.hists[key] + h for key, h in hists.items()}
        self.sizes = sizes if self.sizes is None else {key: self.sizes[key] + n for key, n in sizes.items()}
        for layer, r in refined.items():
            counts, frequencies = layer_counts(r, hists, layer), self.tally.frequencies(layer)
            self.wealth[layer].bet(counts, frequencies, mean)
            if robust_step and layer in self.robust:
                self.robust[layer].bet(counts, frequencies, mean)
            if _has_strata(r):
                p = _strata_test(r.event, self.hists[layer, 0], self.hists[layer, 1])
                scaled = (1.0 if p is None else p) / self.look_alpha()
                self.strata[layer] = min(self.strata.get(layer, math.inf), scaled)
            passed = _violated(self.wealth[layer], self.strata.get(layer), self.levels[layer], _has_strata(r))
            if layer in self.guarded:
                w = self.wealth[layer]
                if layer not in self.robust and w.best[w.at_claim] >= -ROBUST_FROM * math.log(self.levels[layer]):
                    self.robust[layer] = evalues.Wealth(w.claim, w.delta)
                passed = passed and layer in self.robust and self.robust[layer].rejects(self.levels[layer])
            self.violated |= passed
        self.tally.add(refined, hists, sizes)


def by_growth(plan: AuditPlan, refined: dict[str, Refined], joined: dict) -> tuple[dict[str, Refined], dict]:
    """Each layer's event for the round: of its refined event, its hedge, the events of its curve and
    every half-line of its statistic's bins (both directions), the one whose counts on the kept rounds
    promise the fastest growth of the wealth at the claim (each frequency one standard error toward
    the claim, :func:`evalues.growth`); the refined event when none promises growth.  One event: the
    wealth is not split.  ``joined``: (pair, side) -> the kept rounds' outputs.  Returns the events
    and (layer, side) -> the histogram of each one's statistic on them."""
    out, hists = {}, {}
    for layer, r in refined.items():
        stat, edges = r.event.statistic, r.event.edges
        for side in (0, 1):
            hists[layer, side] = histogram(stat.evaluate(joined[r.pair, side]), edges)
        h = [hists[layer, side].astype(np.float64) for side in (0, 1)]
        n = [joined[r.pair, side].shape[0] for side in (0, 1)]
        candidates = [r.event] + [ev for ev in ([r.hedge] if r.hedge is not None else []) + list(r.curve_events)
                                  if ev.shares_bins(r.event)] + _half_lines(stat, edges, plan.delta)

        def pessimistic(k, m):
            return np.maximum(np.sqrt(k) - 0.5, 0.0) ** 2 / max(m, 1), (np.sqrt(k + 1.0) + 0.5) ** 2 / max(m, 1)

        scores = []
        for ev in candidates:
            k1, k2 = ev.counts(h[0], h[1])
            n1, n2 = (n[0], n[1]) if ev.forward else (n[1], n[0])
            scores.append(evalues.growth(pessimistic(k1, n1)[0], pessimistic(k2, n2)[1], plan.eps, plan.delta))
        best = int(np.argmax(scores))
        out[layer] = replace(r, event=candidates[best], hedge=None) if scores[best] > 0 else r
    return out, hists


def _half_lines(stat, edges: np.ndarray, delta: float) -> list:
    """Every half-line of a statistic's bins ("above bin j", "up to bin j"), favouring either input."""
    bins = edges.size + 1
    out = []
    for j in range(1, bins):
        for upper in (False, True):
            mask = np.zeros(bins, dtype=bool)
            mask[j:] = upper
            mask[:j] = not upper
            for forward in (True, False):
                out.append(Event(stat, edges, mask, forward, 0.0, delta))
    return out


def _choose(plan: AuditPlan, source: SampleSource, kept: Kept, mean: float) -> tuple[dict[str, Refined], int]:
    """(each layer's event for the next round, the selection outputs per input it was chosen on),
    chosen on the kept rounds: selection on all but the last, refinement on the last (the second
    round: selection on the first, no refinement)."""
    done = len(next(iter(kept.rounds.values())))
    if done == 1:
        selected, n_select = kept.joined(1)
        refine_rows, n_refine = {}, 0
    else:
        selected, n_select = kept.joined(done - 1)
        refine_rows, n_refine = kept.last()
    round_plan = replace(plan, n=int(mean * HORIZON), n_select=max(n_select, 1), n_refine=n_refine)
    replay = Replay(source, selected, refine_rows, max(1, n_refine // 2))
    return refine(round_plan, replay, select(round_plan, replay)), n_select


def _has_strata(r: Refined) -> bool:
    """Whether the layer's event is a union of floating-point classes with binades (the stratified
    test applies: :func:`.certify._strata_test`)."""
    return r.event.statistic.layer == FLOATING_POINT and r.event.statistic.info.get("strata") is not None


def _violated(w: evalues.Wealth, strata: float | None, level: float, needs_strata: bool) -> bool:
    """Whether a layer is violated: its wealth at the claim reached 1 / level (and, for an event of
    floating-point classes, a round's stratified test rejected too: an intersection-union test)."""
    return w.rejects(level) and (not needs_strata or (strata is not None and strata <= level))


def _certification(plan: AuditPlan, refined: dict[str, Refined], state: Bets, run_info: SequentialRun,
                   seconds: float) -> Certification:
    """The certification of the rounds: each layer's verdict, bound and p-value from its wealth, its
    witness from the last round's counts (up to its last bet); the curve on those counts."""
    hists, sizes, wealth, strata, levels, bets = (state.hists, state.sizes, state.wealth, state.strata,
                                                  state.levels, state.means)
    out = {}
    for layer, r in refined.items():
        level = levels[layer]
        (k1, k2), w = layer_counts(r, hists, layer)[0], wealth[layer]
        n1, n2 = sizes[r.pair, 0], sizes[r.pair, 1]
        out[layer] = Certified(
            layer=layer, refined=replace(r, hedge=None), hist_x=hists[layer, 0], hist_x_prime=hists[layer, 1],
            k_favoured=k1, k_other=k2, n_favoured=n1 if r.event.forward else n2,
            n_other=n2 if r.event.forward else n1, level=level, alpha=plan.alpha,
            eps_lower_bound=_both_bound(w, state.robust[layer], level) if layer in state.robust
            else w.lower_bound(level),
            p_claim=max(w.p_value(), state.robust[layer].p_value()) if layer in state.robust else w.p_value(),
            p_strata=min(1.0, strata[layer]) if _has_strata(r) and layer in strata else None,
            eps_cap=evalues.best_case_bound(bets, plan.eps, plan.delta, level))
    curve_layer = LAW if LAW in refined else next(iter(refined))
    r = refined[curve_layer]
    curve = tradeoff.certify(r.curve_events, hists[curve_layer, 0], hists[curve_layer, 1], sizes[r.pair, 0],
                             plan.alpha * state.look_alpha(), plan.delta_grid, n_prime=sizes[r.pair, 1])
    law_level = levels.get(LAW, plan.alpha)
    n = int(round(sum(bets)))
    return Certification(out, curve, seconds, n, run_info,
                         eps_ceiling=evalues.best_case_bound(bets, plan.eps, plan.delta, law_level),
                         delta_floor=float(resolution_floor(n, plan.n_select, plan.n_refine, law_level, plan.eps,
                                                            plan.delta)))


def _both_bound(w: evalues.Wealth, robust: evalues.Wealth, level: float) -> float:
    """The bound of a layer that both wealths must reject: from the claim up when both reject it."""
    both = w.rejects(level) and robust.rejects(level)
    return min(w.lower_bound(level, from_claim=both), robust.lower_bound(level, from_claim=both))


def _note_robust(run_info: SequentialRun, state: Bets, source: SampleSource) -> None:
    """Say how the bets on outputs drawn in many calls went once the first bets passed the claim, and
    warn when they did not pass it too (nothing when the first bets never passed it)."""
    shown = [layer for layer in state.robust if state.wealth[layer].rejects(state.levels[layer])]
    if not shown:
        return
    n = int(round(sum(state.robust_means)))
    held = all(state.robust[layer].rejects(state.levels[layer]) for layer in shown)
    bound = min(_both_bound(state.wealth[layer], state.robust[layer], state.levels[layer]) for layer in shown)
    run_info.confirmed = held
    run_info.confirmation = (f"the law's bets passed the claim with one call per step, and "
                             f"{'passed it' if held else 'did NOT pass it'} on the {n:,} outputs per input "
                             f"drawn in up to {CALLS:,} calls a step since they were halfway there "
                             f"(the bound of both together: eps >= {bound:.4g})")
    if not held:
        text = (f"the law's bets passed the claim on outputs drawn one call per step, but not on the {n:,} outputs "
                f"per input drawn in many calls since they were halfway there (eps >= {bound:.4g}): no violation "
                f"of the law is reported.  Either the budget ended before the violation could be shown again, or "
                f"one call's outputs share a draw (noise or a subsample drawn once per call) that the contract's "
                f"check cannot see in calls this small; a larger budget, or an audit with a fixed n (no budget), "
                f"tells")
        source.warnings.append(text)
        warnings.warn(text, UserWarning, stacklevel=4)


def _check_duration(plan: AuditPlan, source: SampleSource, started: float, allow_long: bool) -> None:
    """Refuse (InputError) a samples budget that would take more than a day at the rate of the first round."""
    seconds = time.perf_counter() - started
    if allow_long or plan.budget.samples is None or source.drawn <= 0 or seconds <= 0:
        return
    estimate = plan.budget.samples * seconds / source.drawn
    guard.refuse_beyond_a_day(
        estimate, f"budget: {plan.budget} would take about {guard.describe_seconds(estimate)} at the "
                  f"{source.drawn / seconds:,.0f} outputs/s of the first round",
        'give a smaller budget, or a budget in seconds (budget="1h"; --budget 1h)')
