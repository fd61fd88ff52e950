"""Claims as data: every claim of a paper is a row of a TOML table, and its verdict is computed.

How a seed adds its claims
==========================
1. List them in ``dpbench/papers/seed<NNN>/claims.toml``, one ``[[claim]]`` table per
   quantitative claim of the paper and per erratum of its spec::

       [[claim]]
       id = "fig1a.order"                      # unique in the file
       where = "v000 Sec. 4, Fig. 1(a)"        # paper location
       statement = "UCB1 < LDP-UCB-B < LDP-UCB-L at eps = 2"
       test = "ordering"                       # a key of TESTS (below)
       experiment = "seed000_fig1a"            # the test's own keys (see its docstring)
       runs = ["UCB1", "LDP-UCB-B", "LDP-UCB-L"]
       horizon = 1e7                           # optional: the T the claim is about
       # optional: alpha (default: the report's), quantity (shown instead of the test's own
       # description of the measured quantity), note (one line shown under the table)

   ``load_claims("NNN")`` reads and validates it (unknown test or key: an error naming the
   claim).  A run is named by its label in the claim's ``experiment`` or, in another
   experiment, by ``{experiment = "...", run = "..."}``.
2. In the paper's ``report.py`` gather the evidence: ``ev = Evidence(runs)`` with the
   :class:`~dpbench.experiments.runner.ExperimentRun` of every experiment (by name), and
   ``ev.measure("name", fn)`` for each Python measurement a ``value`` or ``computed`` claim
   names (exact constants, Monte-Carlo checks, audits): ``fn(claim, ev)`` returns a number or
   an :class:`~verify.inference.Interval` (``value``) or an :class:`Outcome` (``computed``).
3. ``results = evaluate(load_claims("NNN"), ev, alpha=ALPHA)`` runs every test and Holm's
   correction over every p-value of the report; ``render(report, results)`` writes the table
   (with a count per verdict) and ``write_json(...)`` the machine-readable verdicts.

A verdict is one of :class:`Verdict`: *reproduced*; *refuted* (with the statistic);
*unobservable at this horizon* (computed from the run, e.g. a policy still at round-robin,
with the horizon from which theory forces it to learn); *not checked* (with the reason).
No builder types a verdict: tests return p-values or numbers and :func:`evaluate` decides.
A test that must refuse (missing experiment, too few repetitions) raises :class:`NotChecked`.
"""
from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ...validation import InputError

#: family-wise significance level of a report's tests (Holm) and 1 - level of its intervals
DEFAULT_ALPHA = 0.01
#: a run whose mean regret is at least this share of uniform play's (t x mean gap) is still
#: (near) round-robin: it cannot show how its policy ranks against another
ROUND_ROBIN_SHARE = 0.95


class Verdict(str, Enum):  # noqa: UP042  (StrEnum would change str() of the members)
    REPRODUCED = "reproduced"
    REFUTED = "refuted"
    UNOBSERVABLE = "unobservable at this horizon"
    NOT_CHECKED = "not checked"


class NotChecked(Exception):
    """Raised by a test that cannot run (missing experiment, too few repetitions...)."""


@dataclass(frozen=True)
class Hypothesis:
    """One p-value of a claim's test.  ``supports``: rejecting H0 supports the claim (H1 is the
    claim, e.g. an ordering); otherwise H0 is the claim (a law, an unbiasedness) and rejecting it
    refutes the claim."""
    p_value: float
    supports: bool
    label: str = ""
    unobservable: Unobservable | None = None     # why this comparison cannot decide at this T


@dataclass(frozen=True)
class Unobservable:
    """Why a run cannot decide the claim at this horizon, and from which horizon it could."""
    reason: str
    horizon: float | None = None

    def __str__(self):
        when = (f"; observable from T ~ {_fmt_t(self.horizon)}" if self.horizon is not None
                else "; no bound to say from when")
        return self.reason + when


@dataclass
class Outcome:
    """What a test computed.  ``verdict`` set: decided by numbers (exact values, intervals);
    None: decided by :func:`evaluate` from ``hypotheses`` after Holm's correction."""
    statistic: str                                   # the evidence, in numbers
    verdict: Verdict | None = None
    hypotheses: tuple[Hypothesis, ...] = ()
    unobservable: Unobservable | None = None         # used if the hypotheses do not reproduce the claim
    reason: str = ""                                 # for a decided verdict: why (shown beside it)
    horizon: int | None = None                       # T of the evidence
    reps: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class Claim:
    id: str
    where: str
    statement: str
    test: str
    params: Mapping
    alpha: float | None = None
    horizon: float | None = None
    quantity: str | None = None
    note: str = ""

    def get(self, key, default=None):
        return self.params.get(key, default)

    def require(self, key):
        if key not in self.params:
            raise InputError(f"claim {self.id!r} ({self.test}) needs {key!r}")
        return self.params[key]


@dataclass
class ClaimResult:
    claim: Claim
    outcome: Outcome
    verdict: Verdict
    detail: str
    alpha: float
    adjusted: tuple[float, ...] = ()


# ------------------------------------------------------------------ tests
@dataclass(frozen=True)
class ClaimTest:
    name: str
    function: Callable[[Claim, Evidence], Outcome]
    keys: tuple[str, ...]                  # required
    optional: tuple[str, ...]
    quantity: Callable[[Claim], str]
    expected: Callable[[Claim], str]
    method: Callable[[Claim], str]


TESTS: dict[str, ClaimTest] = {}
_COMMON_KEYS = {"id", "where", "statement", "test", "alpha", "horizon", "quantity", "note"}


def claim_test(name: str, *, keys=(), optional=(), quantity=None, expected=None, method=None):
    """Register a test kind: ``fn(claim, evidence) -> Outcome``; ``keys`` are the claim keys it
    needs, ``optional`` the ones it may use; ``quantity``, ``expected`` and ``method`` describe a
    claim for the table (functions of the claim)."""
    def wrap(fn):
        if name in TESTS:
            raise ValueError(f"claim test {name!r} registered twice")
        TESTS[name] = ClaimTest(name, fn, tuple(keys), tuple(optional),
                                quantity or (lambda c: ""), expected or (lambda c: ""),
                                method or (lambda c: name))
        return fn
    return wrap


# --------------------------------------------------------------- loading
def load_claims(seed_or_path) -> list[Claim]:
    """The claims of ``seed_or_path`` ("000": the paper's ``claims.toml``, or a .toml path), validated."""
    path = Path(seed_or_path)
    if path.suffix != ".toml":
        from ...plugins import paper_folder
        path = paper_folder(f"seed{seed_or_path}") / "claims.toml"
    if not path.exists():
        raise InputError(f"no claims table {path}")
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"claims table {path}: {err}") from None
    claims, seen = [], set()
    for i, row in enumerate(raw.get("claim", [])):
        where = f"{path.name} claim {i + 1}"
        for key in ("id", "where", "statement", "test"):
            if key not in row:
                raise InputError(f"{where}: lacks {key!r}")
        cid = str(row["id"])
        if cid in seen:
            raise InputError(f"{path.name}: claim id {cid!r} used twice")
        seen.add(cid)
        test = TESTS.get(row["test"])
        if test is None:
            raise InputError(f"{path.name} claim {cid!r}: unknown test {row['test']!r}; allowed: "
                             f"{', '.join(sorted(TESTS))}")
        params = {k: v for k, v in row.items() if k not in _COMMON_KEYS}
        missing = [k for k in test.keys if k not in params]
        unknown = [k for k in params if k not in test.keys and k not in test.optional]
        if missing or unknown:
            raise InputError(f"{path.name} claim {cid!r} ({test.name}): "
                             + (f"missing {', '.join(missing)}" if missing else "")
                             + ("; " if missing and unknown else "")
                             + (f"unknown key(s) {', '.join(unknown)}; allowed: "
                                f"{', '.join(test.keys + test.optional)}" if unknown else ""))
        alpha = row.get("alpha")
        if alpha is not None and not 0 < float(alpha) < 1:
            raise InputError(f"{path.name} claim {cid!r}: alpha must be in (0, 1) (got {alpha!r})")
        claims.append(Claim(cid, str(row["where"]), str(row["statement"]), test.name, params,
                            None if alpha is None else float(alpha),
                            None if row.get("horizon") is None else float(row["horizon"]),
                            row.get("quantity"), str(row.get("note", ""))))
    return claims


# --------------------------------------------------------------- evidence
class Evidence:
    """What the tests read: experiment runs by name and named Python measurements."""

    def __init__(self, runs: Mapping | None = None, alpha: float = DEFAULT_ALPHA):
        self.runs = {k: v for k, v in (runs or {}).items()}
        self.measurements: dict[str, Callable] = {}
        self.alpha = alpha
        self._cache: dict = {}

    def measure(self, name: str, fn: Callable) -> None:
        self.measurements[name] = fn

    def measurement(self, claim: Claim, name: str | None = None):
        name = name or claim.require("measure")
        if name not in self.measurements:
            raise NotChecked(f"measurement {name!r} is not available in this installation")
        key = (name, repr(claim.params.get("args")), claim.horizon)    # the same check once per report
        if key not in self._cache:
            self._cache[key] = self.measurements[name](claim, self)
        return self._cache[key]

    def run(self, experiment: str):
        run = self.runs.get(experiment)
        if run is None:
            raise NotChecked(f"experiment {experiment!r} not available")
        return run

    def result(self, claim: Claim, ref):
        """The SimulationResult named by ``ref`` (a label of the claim's experiment, or a table
        ``{experiment, run}``)."""
        from ..runs import run_results
        if isinstance(ref, Mapping):
            experiment, label = ref["experiment"], ref["run"]
        else:
            experiment, label = claim.require("experiment"), ref
        res = run_results(self.run(experiment), label)
        if res is None:
            raise NotChecked(f"run {label!r} not in experiment {experiment!r}")
        return res

    def results(self, claim: Claim, key: str = "runs") -> list:
        return [self.result(claim, ref) for ref in claim.require(key)]


def run_name(ref) -> str:
    return f"{ref['experiment']}: {ref['run']}" if isinstance(ref, Mapping) else str(ref)


# ------------------------------------------------------------- horizons
def checkpoint(result, horizon: float | None) -> int:
    """The largest checkpoint of ``result`` at or below ``horizon`` (default: its last)."""
    cps = np.asarray(result.checkpoints)
    if horizon is None:
        return int(cps[-1])
    below = cps[cps <= horizon]
    if below.size == 0:
        raise NotChecked(f"no checkpoint at or below T = {horizon:g}")
    return int(below[-1])


def common_checkpoint(results, horizon: float | None) -> int:
    t = min(checkpoint(r, horizon) for r in results)
    for r in results:
        if t not in set(int(c) for c in r.checkpoints):
            raise NotChecked(f"no common checkpoint at T = {t:,}")
    return t


def uniform_share(result, t: int) -> float:
    """Mean regret at t as a share of uniform play's regret t x mean gap (1: round-robin)."""
    gaps = np.max(result.means) - np.asarray(result.means)
    uniform = t * float(np.mean(gaps))
    return float(result.regret_at(t).mean()) / uniform if uniform > 0 else 0.0


def learning_horizon(result) -> float | None:
    """The smallest T at which an explicit registered upper bound on the policy's regret falls
    below uniform play's regret T x mean gap: from then on theory forces the policy off
    round-robin.  None if no explicit bound applies to the run."""
    from verify import bounds
    ctx = bounds.context(result)
    gaps = np.asarray(ctx["gaps"])
    uniform = float(np.mean(gaps))
    best = None
    for b in bounds.bounds_for(result.policy, side=bounds.UPPER, form=bounds.EXPLICIT):
        def below(log_t, b=b):
            ev = b.evaluate(ctx, T=float(10 ** log_t))
            return ev.applicable and ev.value < 10 ** log_t * uniform
        lo, hi = math.log10(max(2, gaps.size)), 15.0
        if not below(hi):
            continue
        if below(lo):
            return 10 ** lo
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if below(mid) else (mid, hi)
        best = hi if best is None else min(best, hi)
    return None if best is None else 10 ** best


def round_robin(results, t: int, names: Sequence[str]) -> Unobservable | None:
    """An :class:`Unobservable` if some run is still (near) round-robin at t, else None: its
    policy is still in a data-independent phase (start phase, first epoch; the horizon is when
    that phase ends, :mod:`..schedules`), or its regret is at least ``ROUND_ROBIN_SHARE`` of
    uniform play's (the horizon is when a registered bound forces learning)."""
    from ..schedules import schedule_limit
    stuck, horizons = [], []
    for n, r in zip(names, results):
        limit = schedule_limit(r, t)
        if limit is not None:
            stuck.append(limit.reason)
            horizons.append(limit.horizon)
        elif (s := uniform_share(r, t)) >= ROUND_ROBIN_SHARE:
            stuck.append(f"{n} ({s:.0%} of uniform play's regret)")
            horizons.append(learning_horizon(r))
    if not stuck:
        return None
    known = [h for h in horizons if h is not None]
    return Unobservable(f"still round-robin at T = {_fmt_t(t)}: {', '.join(stuck)}", max(known) if known else None)


def provenance_of(results) -> dict:
    results = list(results)
    if not results:
        return {}
    seeds = sorted({int(r.seed) for r in results})
    return {"reps": min(int(r.reps) for r in results), "seed": seeds[0] if len(seeds) == 1 else None}


# ------------------------------------------------------------ evaluation
def evaluate(claims: Sequence[Claim], evidence: Evidence, *, alpha: float = DEFAULT_ALPHA) -> list[ClaimResult]:
    """Run every claim's test; decide the pending ones by Holm's correction over all the
    report's p-values (each compared with its claim's alpha)."""
    from verify.inference import holm
    outcomes = []
    for claim in claims:
        test = TESTS[claim.test]
        try:
            outcome = test.function(claim, evidence)
        except NotChecked as why:
            outcome = Outcome("", Verdict.NOT_CHECKED, reason=str(why))
        outcomes.append(outcome)
    family = [(i, j, h.p_value) for i, o in enumerate(outcomes) if o.verdict is None
              for j, h in enumerate(o.hypotheses)]
    _, adjusted = holm([p for _, _, p in family], DEFAULT_ALPHA)
    adj = {}
    for (i, j, _), p in zip(family, adjusted):
        adj.setdefault(i, {})[j] = float(p)
    out = []
    for i, (claim, outcome) in enumerate(zip(claims, outcomes)):
        a = claim.alpha if claim.alpha is not None else alpha
        if outcome.verdict is not None:
            out.append(ClaimResult(claim, outcome, outcome.verdict, outcome.reason, a))
            continue
        ps = tuple(adj.get(i, {}).get(j, 1.0) for j in range(len(outcome.hypotheses)))
        verdict, detail = _decide(outcome, ps, a)
        out.append(ClaimResult(claim, outcome, verdict, detail, a, ps))
    return out


def _decide(outcome: Outcome, adjusted: Sequence[float], alpha: float) -> tuple[Verdict, str]:
    hyps = outcome.hypotheses
    against = [(h, p) for h, p in zip(hyps, adjusted) if not h.supports and p < alpha]
    failing = [(h, p) for h, p in zip(hyps, adjusted) if h.supports and p >= alpha]
    if against:
        return Verdict.REFUTED, "rejected: " + "; ".join(f"{h.label} (Holm p = {p:.2g})" for h, p in against)
    if not failing:
        shown = [f"{h.label} (Holm p = {p:.2g})" for h, p in zip(hyps, adjusted) if h.supports]
        return Verdict.REPRODUCED, "; ".join(shown) if shown else f"no test rejects at alpha = {alpha:g}"
    why = [h.unobservable or outcome.unobservable for h, _ in failing]
    if all(w is not None for w in why):
        horizons = [w.horizon for w in why]
        horizon = None if any(h is None for h in horizons) else max(horizons)
        reasons = "; ".join(dict.fromkeys(w.reason for w in why))
        return Verdict.UNOBSERVABLE, str(Unobservable(reasons, horizon))
    return Verdict.REFUTED, "not shown: " + "; ".join(f"{h.label} (Holm p = {p:.2g} >= {alpha:g})"
                                                     for h, p in failing)


def counts(results: Sequence[ClaimResult]) -> dict[Verdict, int]:
    return {v: sum(r.verdict is v for r in results) for v in Verdict}


# --------------------------------------------------------------- output
CLAIM_HEADER = ["id", "paper", "claim", "quantity", "expected", "test", "T, reps, seed", "measured",
                "verdict"]


def render(report, results: Sequence[ClaimResult], *, title: str = "Claims of the paper and their verdicts"):
    """The claims table of a report, with a count per verdict and the notes."""
    from ..markdown import fmt_t
    report.section(title)
    c = counts(results)
    alphas = sorted({r.alpha for r in results})
    report.text(
        f"{len(results)} claims: " + ", ".join(f"{n} {v.value}" for v, n in c.items()) + ". "
        "Each verdict is computed by the row's test: orderings by one-sided tests on per-repetition "
        "values with Holm's correction over every p-value of this report (family-wise alpha = "
        f"{', '.join(f'{a:g}' for a in alphas)}); ratios and values by "
        f"{100 * (1 - alphas[0]):g}% intervals against the paper's number (with its rounding); exponents by "
        "statsmodels regressions. *Unobservable* means a run could not show the effect at this "
        "horizon (e.g. still round-robin); the horizon after which theory forces the policy to learn "
        "is given. Claims table: `dpbench/papers/" + f"{report.name}/claims.toml`.")
    rows = []
    for r in results:
        cl, o = r.claim, r.outcome
        test = TESTS[cl.test]
        size = ", ".join(x for x in (f"T = {fmt_t(o.horizon)}" if o.horizon else "",
                                      f"R = {o.reps}" if o.reps else "",
                                      f"seed {o.seed}" if o.seed is not None else "") if x)
        verdict = f"**{r.verdict.value}**" + (f": {r.detail}" if r.detail else "")
        rows.append([cl.id, cl.where, cl.statement, cl.quantity or test.quantity(cl),
                     test.expected(cl), f"{test.method(cl)}, alpha = {r.alpha:g}", size,
                     o.statistic, verdict])
    report.table(CLAIM_HEADER, rows)
    notes = [f"{r.claim.id}: {r.claim.note}" for r in results if r.claim.note]
    if notes:
        report.bullets(notes)


def write_json(path: Path, results: Sequence[ClaimResult]) -> Path:
    """The verdicts as JSON (one object per claim), next to the report."""
    rows = [{"id": r.claim.id, "where": r.claim.where, "statement": r.claim.statement, "test": r.claim.test,
             "verdict": r.verdict.value, "detail": r.detail, "statistic": r.outcome.statistic,
             "alpha": r.alpha, "horizon": r.outcome.horizon, "reps": r.outcome.reps, "seed": r.outcome.seed,
             "p_values": [h.p_value for h in r.outcome.hypotheses], "holm_p_values": list(r.adjusted)}
            for r in results]
    path.write_text(json.dumps(rows, indent=1, default=float) + "\n")
    return path


def claims_section(report, evidence: Evidence, *, alpha: float = DEFAULT_ALPHA, claims=None,
                   title: str = "Claims of the paper and their verdicts") -> list[ClaimResult]:
    """Evaluate the report's claims table (default: the paper's ``claims.toml``), render it, and write
    ``<report>_claims.json`` next to the report; returns the results."""
    claims = load_claims(report.ctx.seed) if claims is None else claims
    results = evaluate(claims, evidence, alpha=alpha)
    render(report, results, title=title)
    report.ctx.out_dir.mkdir(parents=True, exist_ok=True)
    write_json(Path(report.ctx.out_dir) / f"{report.name}_claims.json", results)
    return results


def _fmt_t(t) -> str:
    from ..markdown import fmt_t
    if t is None:
        return "?"
    t = float(t)
    return fmt_t(t) if t == int(t) and math.log10(t) == round(math.log10(t)) else f"{t:.2g}"


from . import kinds  # noqa: E402,F401  (registers the test kinds)

__all__ = ["Verdict", "Claim", "Outcome", "Hypothesis", "Unobservable", "ClaimResult", "Evidence",
           "NotChecked", "TESTS", "claim_test", "load_claims", "evaluate", "render", "write_json", "counts",
           "claims_section",
           "checkpoint", "common_checkpoint", "uniform_share", "learning_horizon", "round_robin",
           "DEFAULT_ALPHA", "ROUND_ROBIN_SHARE"]
