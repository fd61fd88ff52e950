"""Size a paper before its full build: ``dpbench report PAPER --pilot [R]``.

A pilot builds the report at every experiment's own horizon with only ``R`` repetitions (default
:data:`PILOT_REPS`), into ``reports/pilot/`` (a full report is never replaced by one), and says
for every claim what its full build needs at the effect the pilot observed: the repetitions at
which each undecided comparison would be decided (the rule's own count: the interval shrunk like
1/sqrt(R) around the observed value, at the claim's family level, which the pilot shares with the
full build), and the horizon from which a run that cannot yet show its effect can (the registered
bound's, or the run's schedule's).  The pilot's cells stay in the result store: the full build
resumes after them.

A claim reproduced or contradicted at the pilot's few repetitions is decided already; a claim
whose comparison sits on the edge of its band needs more than any number of repetitions (the row
says so).  Everything else is *needs R >= N*: compare N with the repetitions the experiments plan.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .claims import ClaimResult, Verdict
from .claims.comparisons import fmt_horizon

#: repetitions of a pilot when ``--pilot`` gives none: enough for every test's spread (exponents
#: need 3), few enough to cost a tenth of a paper's usual 50
PILOT_REPS = 5
#: where ``dpbench report --pilot`` writes by default, so that a pilot never replaces a full report
PILOT_OUT = "reports/pilot"


@dataclass(frozen=True)
class Need:
    """What one claim needs: its verdict at the pilot, the repetitions that would decide it at the
    observed effect (0: decided at the pilot; None: no count decides it), the horizon from which
    its runs can show the effect (None: the pilot's is enough or none is known), and why."""
    claim: str
    verdict: Verdict
    reps: int | None
    horizon: float | None
    why: str


def needs(results: Sequence[ClaimResult]) -> list[Need]:
    """One :class:`Need` per row, from the decisions the rule made at the pilot."""
    out = []
    for r in results:
        if r.verdict in (Verdict.REPRODUCED, Verdict.CONTRADICTED, Verdict.CONSISTENT):
            out.append(Need(r.claim.id, r.verdict, 0, None, "decided at the pilot"))
            continue
        if r.verdict is Verdict.NOT_CHECKED:
            out.append(Need(r.claim.id, r.verdict, None, None, r.cause))
            continue
        open_ = [d for d in r.decisions if d.verdict is Verdict.INCONCLUSIVE]
        counts = [d.reps for d in open_]
        reps = max(counts) if open_ and all(c is not None for c in counts) else None
        horizons = [u.horizon for res in r.readings for u in _marks(res) if u.horizon is not None]
        horizon = max(horizons) if horizons else None
        why = r.cause or ("not decided at the family's level" if reps is None else "")
        out.append(Need(r.claim.id, r.verdict, reps if open_ else None, horizon, why))
    return out


def _marks(reading):
    """The unobservable marks (not waived) of one reading: its outcome's and its comparisons'."""
    marks = [reading.outcome.unobservable] + [d.comparison.unobservable for d in reading.decisions]
    return [u for u in marks if u is not None and not u.waived]


def _reps_text(n: Need) -> str:
    if n.reps == 0:
        return "decided"
    if n.reps is None:
        return "-" if n.verdict is Verdict.NOT_CHECKED or n.horizon is not None else "none decides"
    return f">= {n.reps:,}"


def table(found: Sequence[Need], pilot_reps: int, planned_reps: int | None = None) -> str:
    """The pilot's answer as plain text: one line per claim, then what the full build needs."""
    rows = [("claim", f"verdict at R = {pilot_reps}", "needs R", "needs T")]
    rows += [(n.claim, n.verdict.value, _reps_text(n), fmt_horizon(n.horizon) if n.horizon else "-")
             for n in found]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines += [""] + summary(found, planned_reps)
    return "\n".join(lines)


def summary(found: Sequence[Need], planned_reps: int | None = None) -> list[str]:
    """Two or three lines: how many claims are decided, which need more repetitions or a longer
    horizon, and whether the full build's planned repetitions suffice."""
    counts = [n.reps for n in found if n.reps]
    decided = sum(1 for n in found if n.reps == 0)
    longer = [n for n in found if n.horizon is not None]
    lines = [f"{decided} of {len(found)} claims decided at the pilot; {len(counts)} need more repetitions"
             + (f" (up to R = {max(counts):,})" if counts else "")
             + f"; {len(longer)} a longer horizon"
             + (f" (up to T = {fmt_horizon(max(n.horizon for n in longer))})" if longer else "") + "."]
    if planned_reps and counts:
        short = [n for n in found if n.reps and n.reps > planned_reps]
        lines.append(f"The full build plans R = {planned_reps}: "
                     + (f"{len(short)} claim(s) need more ({', '.join(n.claim for n in short[:6])}"
                        + (" ..." if len(short) > 6 else "") + ")." if short else "enough for every claim the "
                        "pilot could size."))
    return lines


def section(report, found: Sequence[Need], pilot_reps: int, planned_reps: int | None = None) -> None:
    """The pilot's table as a section of its report."""
    report.section("Pilot: what each claim needs")
    report.text(f"A pilot build: every experiment at its own horizon with {pilot_reps} repetitions. For each claim, "
                "the repetitions that would decide it at the effect observed here (at its family's level, as in the "
                "full build) and the horizon from which its runs can show the effect. "
                + " ".join(summary(found, planned_reps)))
    rows = [[f"`{n.claim}`", n.verdict.value, _reps_text(n), fmt_horizon(n.horizon) if n.horizon else "",
             n.why] for n in found]
    report.table(["claim", "verdict at the pilot", "needs R", "needs T", "why"], rows)


def planned(plan) -> int | None:
    """The largest number of repetitions the full build plans for an experiment (None if none)."""
    reps = [p.reps or getattr(p.experiment, "reps", None) for p in plan.values() if p.experiment is not None]
    reps = [int(r) for r in reps if r]
    return max(reps) if reps else None


def check_reps(reps) -> int:
    """``--pilot R``: an integer >= 2 (a spread needs two repetitions)."""
    from ..validation import InputError
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 2 or not math.isfinite(reps):
        raise InputError(f"pilot must be an integer number of repetitions >= 2 (got {reps!r})")
    return reps


__all__ = ["PILOT_REPS", "PILOT_OUT", "Need", "needs", "table", "summary", "section", "planned", "check_reps"]
