"""What a report prints about its rows as a whole (outcome counts, the families) and the
machine-readable verdicts (``<paper>_claims.json``)."""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from .comparisons import ClaimResult
from .model import Verdict


def counts(results: Sequence[ClaimResult], category: str | None = None) -> dict[Verdict, int]:
    """Rows per outcome (of one ``category``, or all)."""
    rows = [r for r in results if category is None or r.category == category]
    return {v: sum(r.verdict is v for r in rows) for v in Verdict}


def count_line(results: Sequence[ClaimResult], category: str | None = None) -> str:
    c = counts(results, category)
    n = sum(c.values())
    return f"{n} rows: " + ", ".join(f"{k} {v.value}" for v, k in c.items())


def families(results: Sequence[ClaimResult]) -> dict[str, int]:
    """Family name -> m (its comparisons of random evidence), in the order rows name them."""
    out: dict[str, int] = {}
    for r in results:
        out.setdefault(r.family_name, r.family)
    return out


def scope_text(results: Sequence[ClaimResult]) -> str:
    """What the family-wise correction of this report covers, in numbers."""
    if not results:
        return ""
    alpha = results[0].alpha
    fams = {name: m for name, m in families(results).items() if m}
    exact = sum(1 for r in results for d in r.decisions if not d.comparison.random)
    listed = "; ".join(f"{name}: m = {m}" for name, m in fams.items())
    return (f"The families of this report are its claim groups (the figure or theorem a claim is about, per "
            f"category), {len(fams)} with random evidence: {listed}. Each family's comparisons are decided at "
            f"alpha/m with alpha = {alpha:g} family-wise, every reading of a claim counting in its family; every "
            f"interval in a verdict is drawn at level 1 - 2 alpha/m of its family. Exact computations ({exact} "
            "comparisons) are in no family.")


def row_json(r: ClaimResult) -> dict:
    return {"id": r.claim.id, "where": r.claim.where, "statement": r.claim.statement, "test": r.claim.test,
            "category": r.claim.category, "verdict": r.verdict.value, "cause": r.cause, "detail": r.detail,
            "can_contradict": r.can_contradict, "exact": r.exact,
            "family": r.family_name, "family_size": r.family, "alpha": r.alpha,
            "readings": [{"reading": x.claim.reading_label, "key": x.claim.reading_key, "verdict": x.verdict.value,
                          "cause": x.cause, "lean": x.lean, "statistic": x.outcome.statistic,
                          "horizon": x.outcome.horizon, "reps": x.outcome.reps, "seed": x.outcome.seed,
                          "comparisons": [{"verdict": d.verdict.value, "text": d.text, "reps_needed": d.reps,
                                           "random": bool(d.comparison.random),
                                           "can_contradict": bool(getattr(d.comparison, "can_contradict", True))}
                                          for d in x.decisions]}
                         for x in r.readings],
            "pruned_readings": [{"reading": f"{p.choice}: {p.text}", "why": p.why} for p in r.pruned],
            "statistic": r.outcome.statistic, "horizon": r.outcome.horizon, "reps": r.outcome.reps,
            "seed": r.outcome.seed}


def write_json(path: Path, results: Sequence[ClaimResult]) -> Path:
    """The verdicts as JSON (one object per claim, each with its readings), next to the report."""
    path.write_text(json.dumps([row_json(r) for r in results], indent=1, default=float) + "\n")
    return path
