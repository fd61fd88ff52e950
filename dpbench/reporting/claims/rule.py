"""The decision rule: every row of every report is decided here, by one rule (:data:`RULE`).

:func:`evaluate` runs each claim's test under each plausible reading of what the paper leaves
open (:meth:`.model.Claim.under`), counts the comparisons of random evidence of each family (a
claim group: the figure or theorem the claim is about, :func:`.model.family_of`), decides each
comparison at alpha / m of its family (:func:`decide_comparison`), each reading from its
comparisons (:func:`decide`), and the row from its readings (:func:`combine`).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from verify.inference import p_is

from ..markdown import fmt_t
from .comparisons import (
    Check,
    ClaimResult,
    Decision,
    Exact,
    Hypothesis,
    Outcome,
    ReadingResult,
    Unobservable,
    fmt_horizon,
)
from .evidence import Evidence
from .model import DEFAULT_ALPHA, LEARNING_LEVEL, MAX_REPS, POWER, Choice, Claim, NotChecked, Verdict, family_of
from .registry import TESTS

#: the decision rule in one paragraph (reports and dpbench/guides/reports.md state it)
RULE = (
    "**Decision rule.** Where the paper leaves something open that a reproduction must choose (a "
    "horizon it does not state, a baseline it does not spell out and its constants, how instances are "
    "drawn, a variant), the report declares the plausible readings once and decides each claim that "
    "depends on them under every combination of its readings. Comparisons of random evidence (an "
    "estimate against a claim's band, an ordering, a p-value) form one family per claim group (the "
    "figure or theorem the claim is about, stated with its size m); each is decided at alpha/m in the "
    "direction it decides (Bonferroni, family-wise error <= alpha), and its interval is drawn at level "
    "1 - 2 alpha/m. Under one reading a claim is *reproduced* when every comparison supports it (the whole "
    "interval inside the band: a touching interval is not enough; an ordering shown), *contradicted* when "
    "one shows the reverse (the interval outside the band, the reverse ordering shown; never on a claimed "
    "functional form its lack-of-fit test rejects: such a fit is a degenerate statistic, the row gives its "
    "slope with the interval widened by the misfit and says which way it leans), *consistent (cannot "
    "fail)* when it holds but no comparison could have come out "
    "against it (an asymptotic lower bound, an echo of the code's own arithmetic), *inconclusive* "
    "otherwise (the row says which way the estimate leans and what would decide it), *unobservable at "
    "this horizon* when a run cannot show the effect (in a data-independent phase, or its regret not "
    f"below uniform play's at level {LEARNING_LEVEL:g}: still round-robin; in both directions alike, "
    "except at the horizon the claim is about, where the paper's figure shows the same), and *not "
    "checked* with the reason. A row is reproduced only when every plausible reading reproduces it and "
    "contradicted only when every plausible reading contradicts it; when readings disagree it *depends "
    "on the reading*, and the row says which reading gives which verdict. A paper's number is compared "
    "with a band of its rounding (or its stated precision), the estimate's interval widened by the paper's "
    "own Monte Carlo error (its repetitions at the observed spread); every other margin names its source. "
    "A claim that is a "
    "null hypothesis (a law, an unbiasedness) is reproduced only when its test had power >= "
    f"{POWER:g} against a stated departure. A degenerate statistic decides nothing: a zero-width "
    "interval (no spread over repetitions), a worst case at the edge of its grid, a limit fitted outside "
    "the limit's range. Exact computations are decided as computed, are not in any family, and are "
    "counted apart from empirical evidence.")


# ------------------------------------------------------------------ evaluation
def evaluate(claims: Sequence[Claim], evidence: Evidence, *, alpha: float = DEFAULT_ALPHA,
             choices: Mapping[str, Choice] | None = None) -> list[ClaimResult]:
    """Every claim under every plausible reading of the choices it depends on, decided by the rule:
    each family's comparisons of random evidence at alpha / m of that family."""
    choices = dict(choices or {})
    variants = []
    for claim in claims:
        missing = [c for c in claim.readings if c not in choices]
        if missing:
            raise NotChecked(f"claim {claim.id!r} depends on undeclared choice(s) {', '.join(missing)}")
        variants.append([(v, run_test(v, evidence)) for v in claim.under(choices)])
    sizes: dict[str, int] = {}
    for claim, decided in zip(claims, variants):
        sizes[family_of(claim)] = sizes.get(family_of(claim), 0) + sum(o.random for _, o in decided)
    out = []
    for claim, decided in zip(claims, variants):
        name = family_of(claim)
        m = sizes[name]
        level = alpha / max(m, 1)
        readings = [decide(v, o, level, at_horizon=at_claim_horizon(v, o, evidence)) for v, o in decided]
        pruned = tuple(r for c in claim.readings for r in choices[c].pruned)
        out.append(combine(claim, readings, alpha=alpha, family=m, family_name=name, pruned=pruned))
    return out


def run_test(claim: Claim, evidence: Evidence) -> Outcome:
    """The claim's test on the evidence (*not checked* with the reason when it cannot run); the
    statistic says so when the evidence's T is below the claim's."""
    try:
        outcome = TESTS[claim.test].function(claim, evidence)
    except NotChecked as why:
        return Outcome("", Verdict.NOT_CHECKED, reason=str(why))
    if claim.horizon is not None and outcome.horizon is not None and outcome.horizon < claim.horizon:
        outcome = replace(outcome, statistic=f"{outcome.statistic} (at T = {fmt_t(outcome.horizon)}, the largest "
                                             f"checkpoint at or below the claim's T = {fmt_t(claim.horizon)})")
    return outcome


def at_claim_horizon(claim: Claim, outcome: Outcome, evidence: Evidence) -> bool:
    """Whether the evidence is at the horizon the claim is about: its stated (or read) ``horizon``,
    or the horizon of the paper's own figure of every experiment the claim names."""
    t = outcome.horizon
    if t is None:
        return False
    if claim.horizon is not None:
        return int(t) == int(claim.horizon)
    from ..references import run_references
    names = {ref.experiment for ref in run_references(claim)}
    horizons = {getattr(getattr(evidence.runs.get(n), "experiment", None), "paper_horizon", None) for n in names}
    return len(horizons) == 1 and (h := horizons.pop()) is not None and int(h) == int(t)


def family_size(outcomes: Sequence[Outcome]) -> int:
    """m: the comparisons of random evidence in ``outcomes`` (rows a test decided)."""
    return sum(o.random for o in outcomes)


# ------------------------------------------------------------------ one reading
def decide(claim: Claim, outcome: Outcome, level: float, *, at_horizon: bool = False, **_) -> ReadingResult:
    """One reading's verdict from its comparisons, each decided at ``level`` (= alpha / m).
    ``at_horizon``: the evidence is at the horizon the claim is about, so an unobservable mark
    does not hide what the comparison shows (it is shown beside it)."""
    def result(verdict, detail, cause="", decisions=()):
        return ReadingResult(claim, outcome, verdict, detail, cause, tuple(decisions), level)

    if outcome.verdict is Verdict.NOT_CHECKED:
        return result(Verdict.NOT_CHECKED, outcome.reason, outcome.reason)
    if at_horizon and outcome.verdict is None:        # the marks stay, said beside the evidence they do not hide
        outcome = replace(outcome, unobservable=_waived(outcome.unobservable),
                          comparisons=tuple(replace(c, unobservable=_waived(c.unobservable))
                                            for c in outcome.comparisons))
    row_mark = outcome.unobservable
    if outcome.verdict is Verdict.UNOBSERVABLE or (row_mark is not None and not row_mark.waived):
        why = row_mark or outcome.reason
        return result(Verdict.UNOBSERVABLE, str(why), horizon_cause(row_mark) or str(why))
    if not outcome.comparisons:
        return result(Verdict.NOT_CHECKED, "the test made no comparison", "no comparison")

    def blind(c) -> bool:
        return c.unobservable is not None and not c.unobservable.waived

    decisions = [decide_comparison(c, level) for c in outcome.comparisons]
    detail = "; ".join(d.text for d in decisions)
    if outcome.degenerate:
        return result(Verdict.INCONCLUSIVE, f"degenerate: {outcome.degenerate}; {detail}",
                      short(outcome.degenerate), decisions)
    observed = [d for d in decisions if not blind(d.comparison)]
    against = [d for d in observed if d.verdict is Verdict.CONTRADICTED]
    if against:
        return result(Verdict.CONTRADICTED, detail, short(against[0].text), decisions)
    marks = [d.comparison.unobservable for d in decisions if blind(d.comparison)]
    if all(d.verdict is Verdict.REPRODUCED for d in decisions) and not marks:
        fails = [d for d in decisions if getattr(d.comparison, "can_contradict", True)]
        if claim.cannot_fail or not fails:
            why = claim.cannot_fail or "no comparison could have come out against the claim"
            return result(Verdict.CONSISTENT, detail, short(f"cannot fail: {why}"), decisions)
        return result(Verdict.REPRODUCED, detail, "", decisions)
    if marks:
        horizons = [u.horizon for u in marks]
        merged = Unobservable("; ".join(dict.fromkeys(u.reason for u in marks)),
                              None if any(h is None for h in horizons) else max(horizons),
                              need="; ".join(dict.fromkeys(u.need for u in marks if u.need)))
        return result(Verdict.UNOBSERVABLE, f"{merged}; {detail}", horizon_cause(merged), decisions)
    return result(Verdict.INCONCLUSIVE, detail, inconclusive_cause(decisions), decisions)


def _waived(mark: Unobservable | None) -> Unobservable | None:
    return mark if mark is None or mark.sticky else replace(mark, waived=True)


def decide_comparison(c, level: float) -> Decision:
    """One comparison at ``level`` (one-sided, in the direction it decides)."""
    note = f" [{c.unobservable}]" if c.unobservable is not None else ""
    if isinstance(c, Exact):
        if not c.holds and not c.can_contradict:
            return Decision(c, Verdict.INCONCLUSIVE, f"{c.label}: does not hold (exact), but it cannot contradict "
                            f"the claim{note}", need=f"{c.label}: does not hold where it cannot decide against the "
                            "claim", lean="against the claim")
        return Decision(c, Verdict.REPRODUCED if c.holds else Verdict.CONTRADICTED,
                        f"{c.label}: {'holds' if c.holds else 'does not hold'} (exact){note}")
    if isinstance(c, Check):
        return _decide_check(c, level, note)
    if isinstance(c, Hypothesis):
        return _decide_hypothesis(c, level, note)
    raise TypeError(f"not a comparison: {c!r}")


def _decide_check(c: Check, level: float, note: str) -> Decision:
    from verify.inference import Estimate
    est: Estimate = c.estimate
    name = f"{c.label}: " if c.label else ""
    source = f" ({c.band_source})" if c.band_source else ""
    if est.exact:
        inside = c.low <= est.value <= c.high
        verdict = (Verdict.REPRODUCED if inside else Verdict.CONTRADICTED if c.can_contradict
                   else Verdict.INCONCLUSIVE)
        return Decision(c, verdict, f"{name}{est.value:.6g} (exact) {'inside' if inside else 'outside'} {c.band()}"
                        f"{source}{'' if inside or c.can_contradict else ', but it cannot contradict the claim'}{note}")
    bad = c.degenerate or est.degenerate
    if bad:
        return Decision(c, Verdict.INCONCLUSIVE, f"{name}{est.value:.4g}: degenerate ({bad}){note}", need=bad,
                        lean=_lean_of_value(est.value, c))
    if c.reference_se > 0:
        est = Estimate(est.value, math.hypot(est.se, c.reference_se), est.df, est.reps, method=est.method,
                       scales_with_reps=est.scales_with_reps)
    ci = est.interval(level / max(c.looks, 1))
    text = f"{name}{ci.estimate:.4g} [{ci.low:.4g}, {ci.high:.4g}] vs {c.band()}{source}"
    if c.form_rejected:
        text = f"the claimed form is rejected ({c.form_rejected}): {text}"
    if c.form_rejected:
        # a fit that fails its own lack-of-fit test decides nothing, even with its interval widened by
        # the misfit: the claimed law does not describe these points, so it has no slope to compare
        outside = ci.low > c.high or ci.high < c.low
        return Decision(c, Verdict.INCONCLUSIVE, f"{text}: " + ("outside, but the claimed law does not fit" if outside
                                                                 else "the interval reaches the band") + note,
                        need=FORM_REJECTED_NEED, lean="against the claim" if outside else _lean_of_value(est.value, c))
    if c.low <= ci.low and ci.high <= c.high:
        return Decision(c, Verdict.REPRODUCED, f"{text}: inside{note}")
    if c.can_contradict and (ci.low > c.high or ci.high < c.low):
        return Decision(c, Verdict.CONTRADICTED, f"{text}: outside{note}")
    if ci.low > c.high or ci.high < c.low:             # outside, where it cannot contradict
        return Decision(c, Verdict.INCONCLUSIVE, f"{text}: outside, but it cannot contradict the claim{note}",
                        need=f"{c.label or 'the estimate'}: outside its band where it cannot decide against the claim",
                        lean="against the claim")
    reps = _reps_to_decide(est, ci, c)
    return Decision(c, Verdict.INCONCLUSIVE, f"{text}: straddles{note}", reps, _reps_need(reps, est, c.unit),
                    lean=_lean_of_value(est.value, c))


#: what a comparison whose claimed law fails its lack-of-fit test would need to decide
FORM_REJECTED_NEED = ("the claimed law fails its lack-of-fit test on these points, so it has no slope to read; a "
                      "range of the swept parameter where it fits would decide")


def _lean_of_value(value: float, c: Check) -> str:
    if not math.isfinite(value):
        return ""
    return "toward the claim" if c.low <= value <= c.high else "against the claim"


def _decide_hypothesis(c: Hypothesis, level: float, note: str) -> Decision:
    name = f"{c.label} " if c.label else ""
    if c.supports:
        if c.p_value < level:
            return Decision(c, Verdict.REPRODUCED, f"{name}({_p(c.p_value)} < {level:.2g}){note}")
        if c.p_against is not None and c.p_against < level:
            return Decision(c, Verdict.CONTRADICTED, f"{name}(reverse shown: {_p(c.p_against)} < {level:.2g}){note}")
        lean = ("toward the claim" if (c.z is not None and c.z > 0) or (c.p_against is not None
                                                                        and c.p_value < c.p_against)
                else "against the claim" if c.z is not None or c.p_against is not None else "")
        reps = _reps_for_z(c, level)
        return Decision(c, Verdict.INCONCLUSIVE, f"{name}({_p(c.p_value)} >= {level:.2g}){note}", reps,
                        _reps_need(reps, None, c.unit) if c.z is not None else "", lean=lean)
    if c.p_value < level:
        return Decision(c, Verdict.CONTRADICTED, f"{name}rejected ({_p(c.p_value)} < {level:.2g}){note}")
    if c.power is None or not c.departure:
        return Decision(c, Verdict.INCONCLUSIVE,
                        f"{name}not rejected ({_p(c.p_value)}) but no power statement: absence of "
                        f"evidence{note}", need="a power statement against a stated departure", lean="toward the claim")
    power = float(c.power(level, c.reps or 0))
    if power >= POWER:
        return Decision(c, Verdict.REPRODUCED, f"{name}not rejected ({_p(c.p_value)}); power "
                                               f"{power:.2f} against {c.departure}{note}")
    reps = _reps_for_power(c, level)
    return Decision(c, Verdict.INCONCLUSIVE, f"{name}not rejected ({_p(c.p_value)}) with power only "
                                             f"{power:.2f} against {c.departure}{note}", reps,
                    (f"needs {c.unit} >= {reps:,} for power {POWER:g} against {c.departure}" if reps
                     else f"power {POWER:g} against {c.departure} out of reach"), lean="toward the claim")


def _p(p: float) -> str:
    return p_is(p)


def _reps_to_decide(est, ci, c: Check) -> int | None:
    """Repetitions at which the interval, shrunk like 1/sqrt(R) around the observed value, would
    fit inside the band (value inside) or clear it (value outside); None if none would."""
    if not est.scales_with_reps or not est.reps:
        return None
    half = 0.5 * (ci.high - ci.low)
    v = est.value
    if c.low <= v <= c.high:
        room = min(v - c.low, c.high - v)
    elif c.can_contradict:
        room = c.low - v if v < c.low else v - c.high
    else:
        return None
    if not room > 0 or half <= 0:
        return None
    need = math.ceil(est.reps * (half / room) ** 2) + 1
    return need if need <= (MAX_REPS if c.unit == "R" else MAX_REPS * est.reps) else None


def _reps_for_z(c: Hypothesis, level: float) -> int | None:
    from scipy import stats
    if c.z is None or not c.reps or not c.z > 0:
        return None
    need = math.ceil(c.reps * (float(stats.norm.isf(level)) / c.z) ** 2) + 1
    return need if need <= MAX_REPS else None


def _reps_for_power(c: Hypothesis, level: float) -> int | None:
    r, limit = max(2, c.reps or 2), MAX_REPS if c.unit == "R" else 10 ** 6 * max(2, c.reps or 2)
    while r <= limit:
        if c.power(level, r) >= POWER:
            return r
        r *= 2
    return None


def _reps_need(reps: int | None, est, unit: str = "R") -> str:
    if reps is not None:
        return f"needs {unit} >= {reps:,} at the observed effect"
    if est is not None and not est.scales_with_reps:
        return "more repetitions do not narrow this interval (residual scatter): needs more points"
    return "no repetition count decides at the observed effect (it sits on the band's edge)"


def horizon_cause(u: Unobservable | None) -> str:
    if u is None:
        return ""
    return (f"needs T >= {fmt_horizon(u.horizon)}" if u.horizon is not None
            else u.need or "needs a longer horizon (no registered bound says which)")


def inconclusive_cause(decisions: Sequence[Decision]) -> str:
    open_ = [d for d in decisions if d.verdict is Verdict.INCONCLUSIVE]
    reps = [d.reps for d in open_]
    units = {getattr(d.comparison, "unit", "R") for d in open_}
    leans = {d.lean for d in open_ if d.lean}
    lean = f"; leans {leans.pop()}" if len(leans) == 1 else ""
    if len(open_) == 1 and open_[0].need:
        return short(open_[0].need) + lean
    if open_ and all(r is not None for r in reps) and units == {"R"}:
        return f"needs R >= {max(reps):,} at the observed effect{lean}"
    needs = [d.need for d in open_ if d.need]
    return (short(needs[0]) if needs else "not decided at this family's level") + lean


def short(text: str, limit: int = 120) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


# ------------------------------------------------------------------ the row
#: verdicts that decide a claim one way; a row whose readings include one of them and disagree
#: depends on the reading
DECISIVE = (Verdict.REPRODUCED, Verdict.CONTRADICTED)


def combine(claim: Claim, readings: Sequence[ReadingResult], *, alpha: float, family: int = 0,
            family_name: str = "", pruned=()) -> ClaimResult:
    """The row's verdict from its readings: the common verdict when every plausible reading gives the
    same; *depends on the reading* when they disagree and one of them decides the claim (reproduced
    or contradicted); else *inconclusive*.  The cause says which reading gives which verdict."""
    readings = tuple(readings)
    verdicts = [r.verdict for r in readings]
    if len(set(verdicts)) == 1:
        verdict = verdicts[0]
    elif any(v in DECISIVE for v in verdicts):
        verdict = Verdict.DEPENDS
    else:
        verdict = Verdict.INCONCLUSIVE
    if len(readings) == 1:
        cause = readings[0].cause
    elif verdict is Verdict.DEPENDS or len(set(verdicts)) > 1:
        groups: dict[Verdict, list[str]] = {}
        for r in readings:
            groups.setdefault(r.verdict, []).append(r.claim.reading_key)
        cause = "; ".join(f"{v.value} under {' | '.join(keys)}" for v, keys in groups.items())
    else:
        causes = list(dict.fromkeys(r.cause for r in readings if r.cause))
        cause = causes[0] if len(causes) == 1 else "; ".join(
            f"{r.claim.reading_key}: {r.cause}" for r in readings if r.cause)
    return ClaimResult(claim, readings, verdict, alpha, short(cause, 300), family, family_name, tuple(pruned))
