"""The result of an audit: one verdict per layer (the law, the floating point) and the headline.

:class:`LayerResult` is what one layer certifies: its verdict, eps lower bound, p-value and
witness (input pair and event in output space), whether the bound is capped by the sample size
rather than by the mechanism, and the fix a violation calls for.  :class:`AuditResult` holds
both layers (``law``, ``floating_point``), names the layer that failed, and repeats the
*headline* layer's bound, p-value and witness at the top (the law's when it is violated, else
the floating point's when it is, else the more informative of the two), with the eps(delta)
curve, the trade-off view and the resolution.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

from dpbench.engine.result import to_json
from verify.inference import confidence_text, p_text

from .inputs import describe_pair
from .layers import FLOATING_POINT, LAW, TITLES

VIOLATED, NOT_REJECTED, NOT_TESTED = "violated", "not rejected", "not tested"
#: an event seen at most this often under the other input has a bound limited by the sample size
LIMITED_COUNT = 5


@dataclass
class LayerResult:
    """What an audit certifies about one layer (law or floating point).

    Every statement holds at confidence 1 - alpha together with the other layer's.

    layer            "law" or "floating_point"
    status           "violated", "not rejected" or "not tested" (read it first: it is the verdict)
    violated         the layer rejects the claim: True, False, or None when the layer was not tested
                     (set from ``status``)
    eps_lower_bound  certified: the mechanism is not (eps', delta)-DP for eps' below it (0: nothing);
                     None when the layer was not tested
    p_value          of H0 "the claim holds as far as this layer can tell", comparable with the audit's
                     alpha (the layer's own p-value over its share of alpha; the floating point's is
                     the larger of its two tests); None when the layer was not tested
    no_power         not tested although the layer applies: the outputs (or the budget) leave it no
                     event that could reject the claim; ``note`` says why.  Never a pass
    alpha            the layer's share of the audit's alpha
    events_certified 1, or 2 when refinement could not tell two events apart: each was certified at
                     alpha / 2 (``event_alpha``) and the bound is the larger
    witness          input pair, event (in output space), statistic and counts; None if not tested;
                     ``also_certified``: the other event when the layer certified two
    unbounded        the event never occurred under the other input: the true loss may be
                     unbounded
    limited_by_n     the event (almost) never occurred under the other input (at most
                     LIMITED_COUNT times): the bound says what n samples can certify, not how large
                     the loss is; the most they can certify is ``eps_cap``
    eps_cap          the largest bound n samples can certify at this level and delta
    fix              what the violation means and how to mend it ("" if not violated)
    note             why the layer was not tested, or why a floating-point event that exceeds the
                     claim is not blamed on the arithmetic
    strata_p_value   floating point: p-value that the event's classes, not the magnitude of the
                     outputs, tell the inputs apart (None: not tested)
    """

    layer: str
    status: str
    violated: bool | None = None
    eps_lower_bound: float | None = None
    p_value: float | None = None
    alpha: float = 0.0
    witness: dict | None = None
    unbounded: bool = False
    limited_by_n: bool = False
    eps_cap: float = 0.0
    fix: str = ""
    note: str = ""
    strata_p_value: float | None = None
    events_certified: int = 1
    no_power: bool = False
    #: the audit's alpha over the layer's (``p_value`` is the layer's own over its share of alpha)
    p_value_scale: float = 1.0
    #: the p-value is an anytime-valid test's that stopped as soon as it reached the level (a sequential
    #: audit): near alpha by design, whatever the size of the violation, so never called marginal
    anytime: bool = False

    def __post_init__(self):
        """Set ``violated`` from ``status``; an untested layer gets no bound and no p-value.

        (Never 0 and 1, which read as a pass.)
        """
        if self.status not in (VIOLATED, NOT_REJECTED, NOT_TESTED):
            raise ValueError(f"status must be one of {VIOLATED!r}, {NOT_REJECTED!r}, {NOT_TESTED!r} "
                             f"(got {self.status!r})")
        self.violated = {VIOLATED: True, NOT_REJECTED: False}.get(self.status)
        if self.status == NOT_TESTED:
            self.eps_lower_bound = self.p_value = None
        else:
            self.eps_lower_bound = 0.0 if self.eps_lower_bound is None else self.eps_lower_bound
            self.p_value = 1.0 if self.p_value is None else self.p_value

    @property
    def tested(self) -> bool:
        """Whether the layer was tested (its status is a verdict)."""
        return self.status != NOT_TESTED

    @property
    def event_alpha(self) -> float:
        """The level of the witness event's statements: the layer's alpha over its events certified."""
        return self.alpha / self.events_certified

    @property
    def title(self) -> str:
        """The layer's name in messages ("law", "floating point")."""
        return TITLES[self.layer]

    def line(self, n: int, eps: float | None = None, stopped_by: str = "") -> str:
        """Describe the layer in one line: verdict, bound (and its cap), p-value, witness, fix.

        ``eps``: the claim (the bound is then shown with the digits that tell it from the claim).
        ``stopped_by``: the layer whose violation stopped a budgeted audit early, if not this one (a
        layer not rejected then was not tested to the end).
        """
        if self.status == NOT_TESTED:
            return f"{self.title}: not tested ({self.note})"
        if not self.violated:
            return self._passing_line(eps, stopped_by)
        w = self.witness
        bound = f"eps >= {bound_text(self.eps_lower_bound, eps)}"
        if self.limited_by_n:
            seen = ("never occurred under x'" if self.unbounded else
                    f"occurred {w['count_x_prime']} time{'s' if w['count_x_prime'] > 1 else ''} under x'")
            bound += (f" (the event {seen}: the true loss may be far larger, even unbounded; the bound is "
                      f"capped by the sample size: n = {n:,} samples certify at most {self.eps_cap:.4g})")
        text = (f"{self.title}: VIOLATED -- {bound}, p-value {p_text(self.p_value)}; witness "
                f"{describe_pair(w['x'], w['x_prime'])}: {w['event']} ({_of(w['count_x'], w.get('n_x', n))} vs "
                f"{_of(w['count_x_prime'], w.get('n_x_prime', n))} outputs)")
        if w.get("also_certified"):
            text += (f"; two events were certified, this one and {w['also_certified']}, each at half the "
                     f"layer's alpha ({self.event_alpha:.3g}; the p-value shown is the event's own scaled to the "
                     f"audit's alpha, {self.p_value_scale * self.alpha:.3g}), because the samples that chose them "
                     f"could not tell which is stronger; the bound is the larger of the two")
        if self.note:
            text += f"; {self.note}"
        audit_alpha = self.p_value_scale * self.alpha         # what the p-value shown is compared with
        if self.p_value > audit_alpha / MARGINAL and not self.anytime:
            text += (f"; marginal: p-value within {MARGINAL:g}x of alpha {audit_alpha:.3g}, at which a correct "
                     f"mechanism is rejected: confirm with another run (another seed) or more samples before acting "
                     f"on it")
        if self.fix:
            text += f"; {self.fix}"
        return text

    def _passing_line(self, eps: float | None, stopped_by: str = "") -> str:
        """Describe a layer that holds in one short line: its bound, p-value and the event that bounds it.

        (The strongest event the audit found; a hedge, counts and caps are in ``witness``.)
        """
        verdict = "not rejected"
        if stopped_by:
            verdict += (f" by the time the {stopped_by}'s violation stopped the audit (not tested to the end: an "
                        f"audit with a fixed n tests it fully)")
        if self.layer == FLOATING_POINT and self.note:
            within = "" if self.strata_p_value is None else f"; within binades p-value {p_text(self.strata_p_value)}"
            verdict += f" (its bound's excess over the claim is the law's, not the arithmetic's{within})"
        event = self.witness["event"].replace(" or a class not seen at selection", "").replace(
            " or a category not seen at selection", "")
        return (f"{self.title}: {verdict} -- eps >= {bound_text(self.eps_lower_bound, eps)}, p-value "
                f"{p_text(self.p_value)}; strongest event found: {short_text(event)}")


@dataclass
class SequentialRun:
    """How a sequential audit (one with a budget) spent it (:mod:`.stages.sequential`).

    budget            the budget, as given ("30s", "2e+06 samples")
    rounds            rounds drawn: the first only chooses, every later one is bet on
    n_certify         outputs per input of the rounds bet on (Poisson means), all together
    samples           outputs drawn by the whole audit (both inputs, every pair and round, the
                      sampling-contract check)
    budget_exhausted  the budget ran out before any layer was violated
    stopped_early     a violation was certified before the budget ran out
    fixed_from        the round from which the events stayed fixed (the outputs kept for choosing
                      them reached their limit); None: chosen anew before every round
    confirmation      on a mechanism's own function, once the law's bets passed the claim: how the
                      second wealth, on the steps drawn in many calls since the first was halfway
                      there, went, in words
                      (:mod:`.stages.sequential`, "Calls"); None: the bets never passed the claim,
                      or the sampler is compiled
    confirmed         whether that second wealth passed the claim too (None: as for confirmation)
    interrupted       stopped by Ctrl-C: the bets up to then (anytime-valid: a stop the user chose is a
                      stopping time like any other)
    """

    budget: str
    rounds: int
    n_certify: int
    samples: int
    budget_exhausted: bool
    stopped_early: bool
    fixed_from: int | None = None
    confirmation: str | None = None
    confirmed: bool | None = None
    interrupted: bool = False

    def line(self) -> str:
        """One line: why the audit stopped, after how many rounds and samples."""
        why = ("stopped early: a violation was certified (the bound is where the bets first passed the claim; "
               "the true eps may be far larger: an audit with a fixed n sizes it)" if self.stopped_early
               else "interrupted (Ctrl-C), with the bound reached by then (anytime-valid: it holds at any stop)"
               if self.interrupted else "the budget ran out with the bound reached so far")
        checked = f"; {self.confirmation}" if self.confirmation else ""
        return (f"sequential, budget {self.budget}: {why} after {self.rounds} round{'s' if self.rounds != 1 else ''} "
                f"({self.samples:,} samples in all; each round's events chosen on the rounds before it, "
                f"{self.n_certify:,} outputs per input bet on{checked})")


@dataclass
class AuditResult:
    """What an audit certifies about one mechanism on its most revealing input pair.

    ``status`` is the verdict, first in every printout: "violated" (a layer rejects the claim),
    "not rejected" (every layer that applies was tested and none rejects it) or "not tested"
    (no layer was tested, or one that applies had no power: never a pass).
    Layers (:mod:`.layers`): ``law`` and ``floating_point`` (:class:`LayerResult`), judged on the
    same samples, every statement of both at confidence 1 - alpha together; ``layer_failed``
    is "law" if the law is violated, else "floating_point" if only the floating point is, else
    None.  ``violated`` is True if either layer is, None when the status is "not tested", else
    False; ``eps_lower_bound``, ``p_value`` and ``witness`` are those of the ``headline`` layer
    (the law's when it is violated, else the floating point's when it is, else the tested layer
    with the larger bound; None when no layer was tested).  ``mechanism`` names the mechanism with
    the privacy parameters it ran with, when it has any (``rr(eps=0.5)``).

    Trade-off (f-DP) view, of the law layer's events (of the floating point's when the law is
    not tested), at confidence 1 - alpha together with ``curve_eps`` (Bonferroni over the
    curve's distinct events, :mod:`.tradeoff`):

    tradeoff_fpr, tradeoff_fnr   certified points of the trade-off curve: upper bounds
                                 on (false-positive, false-negative) rates of tests
                                 telling M(x) from M(x') by the curve's events (Pareto
                                 points, by increasing FPR); every valid trade-off
                                 function lies below-left of each point
    gdp_mu_lower_bound           the largest mu the points certify: M is not mu'-GDP
                                 for any mu' < gdp_mu_lower_bound (0: nothing certified)

    ``sequential``: with a budget, how it was spent (:class:`SequentialRun`; ``n`` is then the
    certification outputs per input of all rounds); None for an audit of n outputs at once.
    """

    status: str
    mechanism: str
    eps: float
    delta: float
    alpha: float
    eps_lower_bound: float | None
    p_value: float | None
    violated: bool | None
    witness: dict | None
    curve_delta: list
    curve_eps: list
    n: int
    n_select: int
    n_samples: int
    seconds: float
    samples_per_second: float
    eps_ceiling: float
    delta_floor: float
    pairs_tried: int
    seed: int
    law: LayerResult = field(default_factory=lambda: LayerResult(LAW, NOT_TESTED))
    floating_point: LayerResult = field(default_factory=lambda: LayerResult(FLOATING_POINT, NOT_TESTED))
    layer_failed: str | None = None
    headline: str = LAW
    tradeoff_fpr: list = field(default_factory=list)
    tradeoff_fnr: list = field(default_factory=list)
    gdp_mu_lower_bound: float = 0.0
    warnings: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
    sequential: SequentialRun | None = None

    @property
    def layers(self) -> tuple[LayerResult, LayerResult]:
        """(law, floating_point)."""
        return self.law, self.floating_point

    @property
    def headline_layer(self) -> LayerResult:
        """The layer whose bound, p-value and witness the result repeats at the top."""
        return getattr(self, self.headline)

    def to_dict(self) -> dict:
        """Return the result as strict-JSON data (other inputs, e.g. sets, as their repr)."""
        return to_json(asdict(self), default=repr)   # other inputs (sets, user objects): readable

    def to_json(self, **kw) -> str:
        """Return the result as a JSON text (``kw`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), **kw)

    def _stopped_by(self, layer: LayerResult) -> str:
        """Name the violated layer that stopped a budgeted audit early, if ``layer`` is another ("": none)."""
        if self.sequential is None or not self.sequential.stopped_early or layer.violated:
            return ""
        return next((lay.title for lay in self.layers if lay.violated), "")

    def verdict(self) -> str:
        """One phrase: which layer fails, if any, or why nothing was tested."""
        if self.law.violated:
            also = " (and the floating point)" if self.floating_point.violated else ""
            return f"VIOLATED by the law{also}"
        if self.floating_point.violated:
            if self._stopped_by(self.law):
                return ("VIOLATED by the floating point only (the law not rejected by the time this violation "
                        "stopped the audit: an audit with a fixed n, or of the law alone, tests it fully)")
            return "VIOLATED by the floating point only (the law holds)"
        if self.status == NOT_TESTED:
            silent = [lay.title for lay in self.layers if lay.no_power]
            return ("NOT TESTED: no power in the " + " and the ".join(silent) if silent
                    else "NOT TESTED: no layer was tested") + " (not a pass)"
        return "not rejected"

    def __str__(self) -> str:
        """Verdict, one line per layer, trade-off view, resolution and the warnings."""
        tested = [lay for lay in self.layers if lay.status != "not tested"]
        shares = ", ".join(f"{lay.title} {lay.alpha:.3g}" for lay in tested)
        seq = "" if self.sequential is None else f"\n  {self.sequential.line()}"
        claim = self.info.get("claim", {}).get("text")        # a library object's (verify.audit.libraries)
        head = (f"audit of {self.mechanism} against ({self.eps:g}, {self.delta:g})-DP: {self.verdict()}\n"
                + (f"  {claim}\n" if claim else "") +
                "".join(f"  {lay.line(self.n, self.eps, self._stopped_by(lay))}\n" for lay in self.layers))
        warned = "".join(f"\n  warning: {w}" for w in self.warnings)
        if not tested:
            return head + f"  {self.n_samples:,} samples in {self.seconds:.1f}s; nothing certified" + seq + warned
        gdp = (f"; not mu-GDP for any mu < {self.gdp_mu_lower_bound:.4g}" if self.gdp_mu_lower_bound > 0 else "")
        return (head + f"  trade-off: {describe_points(self.tradeoff_fpr, self.tradeoff_fnr)}{gdp}\n"
                f"  {self.n_samples:,} samples in {self.seconds:.1f}s ({self.samples_per_second:,.0f}/s); "
                f"resolution: eps <= {self.eps_ceiling:.3g}, violating events of mass >= {self.delta_floor:.3g}; "
                f"confidence {confidence_text(self.alpha)} for everything together (alpha shared: {shares})"
                + seq + warned)


#: a violation whose p-value is within this factor of its level is called marginal
MARGINAL = 10.0


def bound_text(value: float, claim: float | None = None) -> str:
    """Format a bound with 4 significant digits, or more (up to 10) to tell it from ``claim``.

    A bound of 1.00013 against a claim of 1 reads "1.0001", not "1".
    """
    for digits in range(4, 11):
        text = f"{value:.{digits}g}"
        shown = float(text)
        if claim is None or ((shown > claim) == (value > claim) and (shown < claim) == (value < claim)):
            return text
    return text


def short_text(text: str, limit: int = 70) -> str:
    """``text`` cut to about ``limit`` characters at a word boundary, with "..." when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " ..."


def describe_points(fpr, fnr, show: int = 3) -> str:
    """Describe a few certified (FPR, FNR) points, spread over the curve."""
    if not fpr:
        return "no certified point"
    idx = sorted({round(i * (len(fpr) - 1) / max(1, show - 1)) for i in range(show)})
    pts = ", ".join(dict.fromkeys(f"({fpr[i]:.3g}, {fnr[i]:.3g})" for i in idx))     # each point once as shown
    return f"{len(fpr)} certified (FPR, FNR) point{'s' if len(fpr) > 1 else ''}, e.g. {pts}"


def _of(count: int, total: int) -> str:
    """"k of m" with thousands separators (a witness's count among the outputs drawn)."""
    return f"{count:,} of {total:,}"


def eps_estimate(k1: int, k2: int) -> float:
    """ln(k1 / k2) of certification counts (inf when only the favoured input shows the event)."""
    return math.log(k1 / k2) if k1 > 0 and k2 > 0 else (math.inf if k1 > 0 else 0.0)
