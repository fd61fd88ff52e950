"""What a test returns and what the rule makes of it.

A test does not type a verdict: it returns an :class:`Outcome`, the evidence in numbers and the
*comparisons* it supports: :class:`Check` (an estimate against the claim's band),
:class:`Hypothesis` (a p-value) or :class:`Exact` (a computed fact).  The rule
(:mod:`.rule`) turns each comparison into a :class:`Decision`, each reading of a claim into a
:class:`ReadingResult` and each row into a :class:`ClaimResult`.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..markdown import fmt_t
from .model import AS_STATED, Claim, Reading, Verdict


def fmt_horizon(t) -> str:
    """A horizon in words: 1e5 for a power of ten, else two significant digits ("?" if unknown)."""
    if t is None:
        return "?"
    t = float(t)
    return fmt_t(t) if t == int(t) and math.log10(t) == round(math.log10(t)) else f"{t:.2g}"


@dataclass(frozen=True)
class Unobservable:
    """Why a run cannot decide the claim at this horizon, and from which horizon it could.
    ``waived``: the evidence is at the horizon the claim is about (the paper's own figure, or the
    claim's stated or read horizon), where the paper shows the same schedule: the comparison
    stands, and the reason is shown beside it (unless ``sticky``)."""
    reason: str
    horizon: float | None = None
    waived: bool = False
    #: never waived: the runs compared are in the same data-independent phase and tie by construction
    #: (uniform play on one instance), so even the paper's own figure could show no ordering of them
    sticky: bool = False
    #: what would make it observable when no horizon does (e.g. a wider family of gaps)
    need: str = ""

    def __str__(self):
        if self.waived:
            return self.reason + " (at the horizon the claim is about: compared as the paper's figure shows it)"
        when = (f"; observable from T ~ {fmt_horizon(self.horizon)}" if self.horizon is not None
                else f"; {self.need}" if self.need else "; no bound to say from when")
        return self.reason + when


@dataclass(frozen=True)
class Check:
    """An estimate against the claim's band ``[low, high]`` (one end infinite for a one-sided
    claim): *reproduced* if its interval lies inside the band, *contradicted* if outside it
    (unless ``can_contradict`` is False, e.g. an asymptotic lower bound at a finite horizon: the
    check is then *consistent* at best), else inconclusive.

    ``reference_se``: the standard error of the number the claim compares with (the paper's own
    Monte Carlo error, from its repetitions at the observed spread), added in quadrature to the
    estimate's; ``band_source``: where the band comes from (the paper's rounding, its stated
    precision, its words).  ``looks``: the compared point was chosen among that many: it is decided
    at alpha / (m looks); ``degenerate``: why the statistic cannot decide; ``form_rejected``: the
    claimed functional form fails its lack-of-fit test (the estimate's interval then carries the
    misfit; the comparison is never decided, inside the band or outside: a fit that fails its own
    lack-of-fit test is a degenerate statistic, and the row says which way it leans)."""
    estimate: object
    low: float = -math.inf
    high: float = math.inf
    label: str = ""
    unobservable: Unobservable | None = None
    degenerate: str = ""
    can_contradict: bool = True
    looks: int = 1
    unit: str = "R"                  # what the estimate's ``reps`` counts: repetitions, or samples (n)
    reference_se: float = 0.0
    band_source: str = ""
    form_rejected: str = ""

    @property
    def random(self) -> bool:
        return not self.estimate.exact

    def band(self) -> str:
        if self.low == -math.inf:
            return f"<= {self.high:.4g}"
        if self.high == math.inf:
            return f">= {self.low:.4g}"
        return f"[{self.low:.4g}, {self.high:.4g}]"


@dataclass(frozen=True)
class Hypothesis:
    """One test's p-value.  ``supports``: rejecting H0 supports the claim (H1 is the claim, e.g.
    an ordering); ``p_against`` is then the reverse test's p-value (rejecting it contradicts the
    claim).  Otherwise H0 is the claim (a law, an unbiasedness): rejecting it contradicts the
    claim, and not rejecting it reproduces the claim only if ``power(level, reps)``, the test's
    power against ``departure`` at the family's level, is at least :data:`.model.POWER`.
    ``z`` (the observed standardised effect, positive toward the claim) and ``reps`` let the row
    say how many repetitions would decide it."""
    p_value: float
    supports: bool
    label: str = ""
    unobservable: Unobservable | None = None
    p_against: float | None = None
    power: Callable[[float, int], float] | None = None
    departure: str = ""
    z: float | None = None
    reps: int | None = None
    unit: str = "R"                  # what ``reps`` counts: repetitions (R) or an audit's samples (n)
    can_contradict: bool = True

    random = True


@dataclass(frozen=True)
class Exact:
    """A computed, non-random fact (spec arithmetic, a constant, a schedule): decided as
    computed, not part of the family.  ``can_contradict`` False: the fact is the code's own
    arithmetic (an echo of the spec), which cannot come out against the claim."""
    holds: bool
    label: str = ""
    unobservable: Unobservable | None = None
    can_contradict: bool = True

    random = False


Comparison = Check | Hypothesis | Exact


@dataclass
class Outcome:
    """What a test computed: the ``statistic`` (the evidence, in numbers) and the
    ``comparisons`` the rule decides.  ``verdict`` may only be set to *not checked* or
    *unobservable at this horizon* (with ``reason``); ``unobservable`` makes the whole row
    unobservable (both ways, unless waived); ``degenerate`` makes it inconclusive (why the
    statistic cannot decide)."""
    statistic: str
    verdict: Verdict | None = None
    comparisons: tuple = ()
    unobservable: Unobservable | None = None
    reason: str = ""                                 # for a set verdict: why (shown beside it)
    horizon: int | None = None                       # T of the evidence
    reps: int | None = None
    seed: int | None = None
    degenerate: str = ""

    def __post_init__(self):
        if self.verdict not in (None, Verdict.NOT_CHECKED, Verdict.UNOBSERVABLE):
            raise ValueError(f"a test may not set the verdict {self.verdict.value!r}: return comparisons "
                             "(Check, Hypothesis, Exact) and let the decision rule decide")
        self.comparisons = tuple(self.comparisons)

    @property
    def random(self) -> int:
        """The number of comparisons of random evidence (0 for a row the test did not decide)."""
        return 0 if self.verdict is Verdict.NOT_CHECKED else sum(1 for c in self.comparisons if c.random)


@dataclass(frozen=True)
class Decision:
    """How the rule decided one comparison: its outcome, the evidence in words, and (when not
    decided) what would decide it: ``reps`` repetitions at the observed effect (None: no count
    would), ``need`` in words, and ``lean``: which way an undecided estimate leans ("toward the
    claim", "against the claim" or "")."""
    comparison: object
    verdict: Verdict
    text: str
    reps: int | None = None
    need: str = ""
    lean: str = ""


@dataclass
class ReadingResult:
    """One reading of a claim decided: its verdict, the decisions in words, the cause of a
    verdict short of *reproduced*, and the evidence."""
    claim: Claim
    outcome: Outcome
    verdict: Verdict
    detail: str
    cause: str = ""
    decisions: tuple[Decision, ...] = ()
    level: float = 0.0

    @property
    def reading(self) -> str:
        return self.claim.reading_label

    @property
    def lean(self) -> str:
        leans = {d.lean for d in self.decisions if d.lean}
        return leans.pop() if len(leans) == 1 else ""


@dataclass
class ClaimResult:
    """A row: the claim, its readings decided, the row's verdict and one-line cause.  ``family``
    is m, the number of comparisons of random evidence in its family ``family_name``; ``pruned``:
    the readings left out as implausible (with their reasons)."""
    claim: Claim
    readings: tuple[ReadingResult, ...]
    verdict: Verdict
    alpha: float
    cause: str = ""
    family: int = 0
    family_name: str = ""
    pruned: tuple[Reading, ...] = ()

    @property
    def category(self) -> str:
        return self.claim.category

    @property
    def outcome(self) -> Outcome:
        """The evidence of the first reading (every reading's is in :attr:`readings`)."""
        return self.readings[0].outcome

    @property
    def decisions(self) -> tuple[Decision, ...]:
        return tuple(d for r in self.readings for d in r.decisions)

    @property
    def detail(self) -> str:
        if len(self.readings) == 1:
            return self.readings[0].detail
        return " || ".join(f"under {r.reading}: {r.verdict.value}: {r.detail}" for r in self.readings)

    @property
    def as_stated(self) -> bool:
        return len(self.readings) == 1 and self.readings[0].reading == AS_STATED

    @property
    def can_contradict(self) -> bool:
        """Whether some comparison of the row could have come out against the claim."""
        if self.claim.cannot_fail:
            return False
        return any(getattr(d.comparison, "can_contradict", True) for d in self.decisions)

    @property
    def exact(self) -> bool:
        """Every comparison is exact arithmetic (no random evidence)."""
        return bool(self.decisions) and not any(d.comparison.random for d in self.decisions)
