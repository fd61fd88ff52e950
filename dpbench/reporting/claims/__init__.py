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
       # optional: category (paper | spec | erratum | ambiguity | control; default paper),
       # effect (required with a tolerance: the size of the effect the claim is about, larger
       # than the tolerance), quantity (shown instead of the test's own description of the
       # measured quantity), note (one line shown under the table)

   ``load_claims("NNN")`` reads and validates it (unknown test or key: an error naming the
   claim).  A run is named by its label in the claim's ``experiment`` or, in another
   experiment, by ``{experiment = "...", run = "..."}``.
2. Name the measurements its ``computed`` and ``value`` claims use: every ``measure_*`` of
   :mod:`dpbench.reporting.measures` is there already; the paper's own go in its ``report.py``
   (``MEASUREMENTS = {name: fn}``, or ``measure(evidence, runs)`` calling
   ``evidence.measure(name, fn)``): ``fn(claim, ev)`` returns a number (exact)
   or an :class:`~verify.inference.Estimate` (``value``) or an :class:`Outcome` (``computed``).
3. ``dpbench report NNN`` (:mod:`dpbench.reporting.paper`) checks the table against the
   experiments, runs them, and ``evaluate(claims, evidence)`` decides every row by the rule
   below; :mod:`dpbench.reporting.front_page` writes the front page and the claims in detail,
   ``write_json(...)`` the machine-readable verdicts.

The decision rule
=================
A test does not type a verdict: it returns the *comparisons* its evidence supports, and
:func:`evaluate` decides every row of the report with one rule (:data:`RULE`):

* :class:`Check`: an :class:`~verify.inference.Estimate` (value, standard error, degrees of
  freedom) against the claim's band ``[low, high]`` (one end infinite for a one-sided claim; an
  ordering a < b is the difference a - b against ``(-inf, 0]``);
* :class:`Hypothesis`: a p-value whose rejection supports the claim (and, optionally, the
  p-value of the reverse test, whose rejection contradicts it), or, for a claim that is the
  null hypothesis (a law, an unbiasedness), whose rejection contradicts it; such a claim is
  reproduced only with a stated power against a stated departure;
* :class:`Exact`: a computed, non-random fact (spec arithmetic, a constant), decided as is.

Every comparison of random evidence in the report joins one family of size m; each is decided
at alpha / m in the direction it decides (Bonferroni: the family-wise error is at most alpha),
an interval is drawn at 1 - 2 alpha / m.  Five outcomes: *reproduced* (every comparison
supports the claim), *contradicted* (one shows the reverse: the ordering reversed, the interval
outside the band), *inconclusive* (neither; the row says what would decide it), *unobservable
at this horizon* (a run cannot show the effect, in both directions alike, unless the horizon is
the paper's own) and *not checked* (with the reason).  A degenerate statistic (a zero-width
interval, a fit failing its lack-of-fit test, a worst case at the edge of its grid) decides
nothing: the row is inconclusive.  A test that must refuse (missing experiment, too few
repetitions) raises :class:`NotChecked`.

Each row has a ``category``: ``paper`` (the paper's own claims, the default), ``spec`` (checks of
the spec's arithmetic), ``erratum``, ``ambiguity`` (ambiguity-register entries) or ``control``
(negative controls of the report's own tests); reports count them apart.
"""
from __future__ import annotations

import difflib
import json
import math
import tomllib
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ...validation import InputError, closest_names
from ..markdown import fmt_t
from verify.inference import Estimate, p_is

#: family-wise error rate of a report's comparisons (Bonferroni over all of them)
DEFAULT_ALPHA = 0.01
#: a law claim (the claim is the null hypothesis) is reproduced only if its test would reject a
#: departure of the stated size with at least this probability at the family's level
POWER = 0.9
#: a run whose mean regret is at least this share of uniform play's (t x mean gap) is still
#: (near) round-robin: it cannot show how its policy ranks against another
ROUND_ROBIN_SHARE = 0.95
#: a run whose mean regret is at least this share of uniform play's is saturated: it says how
#: long the horizon is, not how its regret scales (left out of every exponent fit)
SATURATION_SHARE = 0.5
#: more repetitions than this are "out of reach" in a row's cause
MAX_REPS = 10 ** 6

#: the decision rule in one paragraph (reports and dpbench/guides/reports.md state it)
RULE = (
    "**Decision rule.** Every comparison of random evidence in a report (an estimate against a "
    "claim's band, an ordering, a p-value) is one of a family of m; each is decided at alpha/m in the "
    "direction it decides (Bonferroni, family-wise error <= alpha), and its interval is drawn at level "
    "1 - 2 alpha/m. A row is *reproduced* when every comparison supports the claim (the whole interval "
    "inside the band: a touching interval is not enough; an ordering shown), *contradicted* when one "
    "shows the reverse (the interval outside the band, the reverse ordering shown), *inconclusive* "
    "otherwise (the row says the repetitions or horizon that would decide it at the observed effect), "
    "*unobservable at this horizon* when a run cannot show the effect (still round-robin or in a "
    "data-independent phase; in both directions alike, except at the paper's own horizon, whose figure "
    "shows the same), and *not checked* with the reason. A claim that is a null hypothesis (a law, an "
    "unbiasedness) is reproduced only when its test had power >= "
    f"{POWER:g} against a stated departure. A degenerate statistic decides nothing: a zero-width "
    "interval (no spread over repetitions), a fit failing its own lack-of-fit test, a worst case at the "
    "edge of its grid, a limit fitted outside the limit's range. Exact computations (spec arithmetic) "
    "are decided as computed and are not in the family. Tolerances are per claim and smaller than the "
    "effect the claim is about.")


class Verdict(str, Enum):  # noqa: UP042  (StrEnum would change str() of the members)
    REPRODUCED = "reproduced"
    CONTRADICTED = "contradicted"
    INCONCLUSIVE = "inconclusive"
    UNOBSERVABLE = "unobservable at this horizon"
    NOT_CHECKED = "not checked"


#: the row categories a claims table may give (``category``), in the order reports show them
CATEGORIES = {"paper": "claims of the paper", "spec": "spec checks", "erratum": "errata",
              "ambiguity": "ambiguity-register entries", "control": "negative controls"}


class NotChecked(Exception):
    """Raised by a test that cannot run (missing experiment, too few repetitions...)."""


@dataclass(frozen=True)
class Unobservable:
    """Why a run cannot decide the claim at this horizon, and from which horizon it could.
    ``waived``: the evidence is at the paper's own horizon, where the paper's figure shows the
    same schedule: the comparison stands, and the reason is shown beside it."""
    reason: str
    horizon: float | None = None
    waived: bool = False

    def __str__(self):
        if self.waived:
            return self.reason + " (at the paper's own horizon: compared as the paper's figure shows it)"
        when = (f"; observable from T ~ {_fmt_t(self.horizon)}" if self.horizon is not None
                else "; no bound to say from when")
        return self.reason + when


@dataclass(frozen=True)
class Check:
    """An estimate against the claim's band ``[low, high]`` (one end infinite for a one-sided
    claim): *reproduced* if its interval lies inside the band, *contradicted* if outside it
    (unless ``can_contradict`` is False, e.g. an asymptotic lower bound at a finite horizon),
    else inconclusive.  ``looks``: the compared point was chosen among that many (checkpoints
    of one curve, horizons searched): it is decided at alpha / (m looks); ``degenerate``: why the
    statistic behind it cannot decide (a fit failing its lack-of-fit test, ...)."""
    estimate: Estimate
    low: float = -math.inf
    high: float = math.inf
    label: str = ""
    unobservable: Unobservable | None = None
    degenerate: str = ""
    can_contradict: bool = True
    looks: int = 1
    unit: str = "R"                  # what the estimate's ``reps`` counts: repetitions, or samples (n)

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
    power against ``departure`` at the family's level, is at least :data:`POWER`.
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

    random = True


@dataclass(frozen=True)
class Exact:
    """A computed, non-random fact (spec arithmetic, a constant, a schedule): decided as
    computed, not part of the family."""
    holds: bool
    label: str = ""
    unobservable: Unobservable | None = None

    random = False


Comparison = Check | Hypothesis | Exact


@dataclass
class Outcome:
    """What a test computed: the ``statistic`` (the evidence, in numbers) and the
    ``comparisons`` :func:`evaluate` decides.  ``verdict`` may only be set to *not checked* or
    *unobservable at this horizon* (with ``reason``); ``unobservable`` makes the whole row
    unobservable (both ways); ``degenerate`` makes it inconclusive (why the statistic cannot
    decide)."""
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


@dataclass(frozen=True)
class Claim:
    id: str
    where: str
    statement: str
    test: str
    params: Mapping
    horizon: float | None = None
    quantity: str | None = None
    note: str = ""
    category: str = "paper"

    def get(self, key, default=None):
        return self.params.get(key, default)

    def require(self, key):
        if key not in self.params:
            raise InputError(f"claim {self.id!r} ({self.test}) needs {key!r}")
        return self.params[key]


@dataclass(frozen=True)
class Decision:
    """How the rule decided one comparison: its outcome, the evidence in words, and (when not
    decided) what would decide it: ``reps`` repetitions at the observed effect (None: no count
    would) or ``horizon``."""
    comparison: object
    verdict: Verdict
    text: str
    reps: int | None = None
    need: str = ""


@dataclass
class ClaimResult:
    claim: Claim
    outcome: Outcome
    verdict: Verdict
    detail: str                    # the decisions, in words
    alpha: float                   # family-wise error rate of the report
    cause: str = ""                # one line: why the row is not reproduced ("needs T >= 3e7", ...)
    family: int = 0                # m, the report's family size
    decisions: tuple[Decision, ...] = ()

    @property
    def category(self) -> str:
        return self.claim.category


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
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)   # key -> its allowed values


TESTS: dict[str, ClaimTest] = {}
_COMMON_KEYS = {"id", "where", "statement", "test", "horizon", "quantity", "note", "category", "effect"}
#: keys (top level or in ``args``) that set a tolerance band around a claimed value
TOLERANCE_KEYS = ("tolerance", "within")
#: keys that are numbers wherever a test reads them
NUMBER_KEYS = ("effect", "tolerance", "within", "expected", "at_least", "at_most", "departure")


def claim_test(name: str, *, keys=(), optional=(), quantity=None, expected=None, method=None, choices=None):
    """Register a test kind: ``fn(claim, evidence) -> Outcome``; ``keys`` are the claim keys it
    needs, ``optional`` the ones it may use, ``choices`` the allowed values of those that name an
    option (checked when the table is loaded); ``quantity``, ``expected`` and ``method`` describe a
    claim for the table (functions of the claim)."""
    def wrap(fn):
        if name in TESTS:
            raise ValueError(f"claim test {name!r} registered twice")
        TESTS[name] = ClaimTest(name, fn, tuple(keys), tuple(optional),
                                quantity or (lambda c: ""), expected or (lambda c: ""),
                                method or (lambda c: name), dict(choices or {}))
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
        where = f"{path.name} claim {i + 1}" + (f" ({row['id']!r})" if "id" in row else "")
        for key in ("id", "where", "statement", "test"):
            if key not in row:
                near = difflib.get_close_matches(key, [k for k in row if k not in _COMMON_KEYS], 1)
                raise InputError(f"{where}: lacks {key!r}"
                                 + (f" (is {near[0]!r} a misspelling of it?)" if near else
                                    "; every claim needs id, where, statement and test"))
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
            near = [m for k in unknown for m in closest_names(k, test.keys + test.optional, 1)]
            raise InputError(f"{path.name} claim {cid!r} ({test.name}): "
                             + (f"missing {', '.join(missing)}" if missing else "")
                             + ("; " if missing and unknown else "")
                             + (f"unknown key(s) {', '.join(unknown)}; allowed: "
                                f"{', '.join(test.keys + test.optional)}" if unknown else "")
                             + (f"; did you mean {', '.join(near)}?" if near else ""))
        _check_values(path.name, cid, test, row, params)
        category = str(row.get("category", "paper"))
        if category not in CATEGORIES:
            raise InputError(f"{path.name} claim {cid!r}: category must be one of {', '.join(CATEGORIES)} "
                             f"(got {category!r})")
        _check_tolerance(path.name, cid, row, params)
        claims.append(Claim(cid, str(row["where"]), str(row["statement"]), test.name, params,
                            _horizon(path.name, cid, row.get("horizon")),
                            row.get("quantity"), str(row.get("note", "")), category))
    return claims


def _horizon(name: str, cid: str, value) -> float | None:
    """A claim's ``horizon``: None, or a number >= 1 (the T its runs are compared at)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 1:
        raise InputError(f"{name} claim {cid!r}: key 'horizon' must be a number >= 1 (the T the claim is "
                         f"judged at; got {value!r})")
    return float(value)


def _check_values(name: str, cid: str, test: ClaimTest, row: Mapping, params: Mapping) -> None:
    """The values a test reads as numbers are numbers, and an option's value is one it knows,
    when the table is loaded: a typo must not surface as a traceback after the runs, nor as
    another test than the one the report names."""
    for key in NUMBER_KEYS:
        value = row.get(key)
        if key in row and (isinstance(value, bool) or not isinstance(value, (int, float))):
            got = f"the string {value!r}" if isinstance(value, str) else repr(value)
            raise InputError(f"{name} claim {cid!r}: key {key!r} must be a number (got {got})")
    for key, allowed in test.choices.items():
        if key in params and params[key] not in allowed:
            near = closest_names(params[key], allowed, 1)
            raise InputError(f"{name} claim {cid!r} ({test.name}): key {key!r} must be one of "
                             f"{', '.join(allowed)} (got {params[key]!r})"
                             + (f"; did you mean {near[0]}?" if near else ""))


def _check_tolerance(name: str, cid: str, row: Mapping, params: Mapping) -> None:
    """A tolerance (``tolerance`` or ``within``, at the top level or in ``args``) must come with
    the claim's ``effect``, the size of the effect the claim is about, and be smaller than it: a
    band as wide as the effect would accept the effect's absence."""
    args = params.get("args") if isinstance(params.get("args"), Mapping) else {}
    found = [(k, params[k]) for k in TOLERANCE_KEYS if k in params]
    found += [(f"args.{k}", args[k]) for k in TOLERANCE_KEYS if k in args]
    for key, value in found:
        effect = row.get("effect")
        if effect is None:
            raise InputError(f"{name} claim {cid!r}: key {key!r} sets a tolerance ({value!r}) but the claim "
                             "states no 'effect' (the size of the effect it is about, larger than the tolerance)")
        try:
            ok = 0 <= float(value) < float(effect)
        except (TypeError, ValueError):
            raise InputError(f"{name} claim {cid!r}: key {key!r} and 'effect' must be numbers "
                             f"(got {value!r} and {effect!r})") from None
        if not ok:
            raise InputError(f"{name} claim {cid!r}: key {key!r}: tolerance {value!r} is not smaller than the "
                             f"claim's effect {effect!r} (a band that wide accepts the effect's absence)")


# --------------------------------------------------------------- evidence
class Evidence:
    """What the tests read: experiment runs by name and named Python measurements."""

    def __init__(self, runs: Mapping | None = None, alpha: float = DEFAULT_ALPHA):
        self.runs = {k: v for k, v in (runs or {}).items()}
        self.measurements: dict[str, Callable] = {}
        self.alpha = alpha
        self._cache: dict = {}

    def paper_horizon(self, results) -> float | None:
        """The horizon of the paper's own figure for these results (``paper_horizon`` of the
        experiment that ran them), if they all share one; else None."""
        found = set()
        for r in results:
            hit = None
            for run in self.runs.values():
                values = getattr(run, "results", {}).values()
                if any(v is r for v in values):
                    exp = getattr(run, "experiment", None)
                    hit = getattr(exp, "paper_horizon", None)
                    break
            found.add(None if hit is None else float(hit))
        return found.pop() if len(found) == 1 else None

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
        raise NotChecked(f"no checkpoint at or below T = {fmt_t(horizon)}")
    return int(below[-1])


def common_checkpoint(results, horizon: float | None) -> int:
    t = min(checkpoint(r, horizon) for r in results)
    for r in results:
        if t not in set(int(c) for c in r.checkpoints):
            raise NotChecked(f"no common checkpoint at T = {fmt_t(t)}")
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


def round_robin(results, t: int, names: Sequence[str], ev: Evidence | None = None) -> Unobservable | None:
    """An :class:`Unobservable` if some run is still (near) round-robin at t, else None: its
    policy is still in a data-independent phase (start phase, first epoch; the horizon is when
    that phase ends, :mod:`..schedules`), or its regret is at least ``ROUND_ROBIN_SHARE`` of
    uniform play's (the horizon is when a registered bound forces learning).  At the paper's
    own horizon (``ev`` knows it) the mark is *waived*: the paper's figure shows the same."""
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
    paper = ev.paper_horizon(results) if ev is not None else None
    return Unobservable(f"still round-robin at T = {_fmt_t(t)}: {', '.join(stuck)}",
                        max(known) if len(known) == len(horizons) else None,
                        waived=paper is not None and int(paper) == int(t))


def fixed_schedule(results, t: int) -> bool:
    """Every run is still in its data-independent phase at t (:mod:`..schedules`): its regret at t
    is its schedule's, a computed number rather than an estimate."""
    from ..schedules import schedule_limit
    return all(schedule_limit(r, t) is not None for r in results)


def saturated(result, t: int) -> str:
    """Why ``result`` at t says nothing about how its regret scales ("" if it does): still in a
    data-independent phase, or at least ``SATURATION_SHARE`` of uniform play's regret.  Every
    exponent fit leaves such runs out the same way."""
    from ..schedules import schedule_limit
    limit = schedule_limit(result, t)
    if limit is not None:
        return limit.reason
    share = uniform_share(result, t)
    if share >= SATURATION_SHARE:
        return f"saturated: {share:.0%} of uniform play's regret"
    return ""


def provenance_of(results) -> dict:
    results = list(results)
    if not results:
        return {}
    seeds = sorted({int(r.seed) for r in results})
    return {"reps": min(int(r.reps) for r in results), "seed": seeds[0] if len(seeds) == 1 else None}


# ------------------------------------------------------------ evaluation
def evaluate(claims: Sequence[Claim], evidence: Evidence, *, alpha: float = DEFAULT_ALPHA) -> list[ClaimResult]:
    """Run every claim's test, then decide every row by the rule (:data:`RULE`): the family is
    every comparison of random evidence in the report, each decided at alpha / m."""
    outcomes = []
    for claim in claims:
        test = TESTS[claim.test]
        try:
            outcome = test.function(claim, evidence)
        except NotChecked as why:
            outcome = Outcome("", Verdict.NOT_CHECKED, reason=str(why))
        if claim.horizon is not None and outcome.horizon is not None and outcome.horizon < claim.horizon:
            # the evidence's T is the largest checkpoint at or below the claim's: say so, never silently
            outcome = replace(outcome, statistic=f"{outcome.statistic} (at T = {fmt_t(outcome.horizon)}, "
                                                 f"the largest checkpoint at or below the claim's T = "
                                                 f"{fmt_t(claim.horizon)})")
        outcomes.append(outcome)
    m = family_size(outcomes)
    level = alpha / max(m, 1)
    return [decide(claim, outcome, level, alpha=alpha, family=m) for claim, outcome in zip(claims, outcomes)]


def family_size(outcomes: Sequence[Outcome]) -> int:
    """m: the comparisons of random evidence in rows a test decided (not *not checked*)."""
    return sum(1 for o in outcomes if o.verdict is not Verdict.NOT_CHECKED
               for c in o.comparisons if c.random)


def decide(claim: Claim, outcome: Outcome, level: float, *, alpha: float = DEFAULT_ALPHA,
           family: int = 1) -> ClaimResult:
    """One row's verdict from its comparisons, each decided at ``level`` (= alpha / m)."""
    def result(verdict, detail, cause="", decisions=()):
        return ClaimResult(claim, outcome, verdict, detail, alpha, cause, family, tuple(decisions))

    if outcome.verdict is Verdict.NOT_CHECKED:
        return result(Verdict.NOT_CHECKED, outcome.reason, outcome.reason)
    if outcome.verdict is Verdict.UNOBSERVABLE or (outcome.unobservable is not None
                                                  and not outcome.unobservable.waived):
        why = outcome.unobservable or outcome.reason
        return result(Verdict.UNOBSERVABLE, str(why), _horizon_cause(outcome.unobservable) or str(why))
    if not outcome.comparisons:
        return result(Verdict.NOT_CHECKED, "the test made no comparison", "no comparison")
    decisions = [decide_comparison(c, level) for c in outcome.comparisons]
    detail = "; ".join(d.text for d in decisions)
    if outcome.degenerate:
        return result(Verdict.INCONCLUSIVE, f"degenerate: {outcome.degenerate}; {detail}",
                      _short(outcome.degenerate), decisions)
    observed = [d for d in decisions if not _blind(d.comparison)]
    against = [d for d in observed if d.verdict is Verdict.CONTRADICTED]
    if against:
        return result(Verdict.CONTRADICTED, detail, _short(against[0].text), decisions)
    blind = [d.comparison.unobservable for d in decisions if _blind(d.comparison)]
    if all(d.verdict is Verdict.REPRODUCED for d in decisions) and not blind:
        return result(Verdict.REPRODUCED, detail, "", decisions)
    if blind:
        horizons = [u.horizon for u in blind]
        merged = Unobservable("; ".join(dict.fromkeys(u.reason for u in blind)),
                              None if any(h is None for h in horizons) else max(horizons))
        return result(Verdict.UNOBSERVABLE, f"{merged}; {detail}", _horizon_cause(merged), decisions)
    return result(Verdict.INCONCLUSIVE, detail, _inconclusive_cause(decisions), decisions)


def _blind(c) -> bool:
    return c.unobservable is not None and not c.unobservable.waived


def decide_comparison(c, level: float) -> Decision:
    """One comparison at ``level`` (one-sided, in the direction it decides)."""
    from verify.inference import Estimate
    note = f" [{c.unobservable}]" if c.unobservable is not None else ""
    if isinstance(c, Exact):
        return Decision(c, Verdict.REPRODUCED if c.holds else Verdict.CONTRADICTED,
                        f"{c.label}: {'holds' if c.holds else 'does not hold'} (exact){note}")
    if isinstance(c, Check):
        est: Estimate = c.estimate
        name = f"{c.label}: " if c.label else ""
        if est.exact:
            inside = c.low <= est.value <= c.high
            return Decision(c, Verdict.REPRODUCED if inside else Verdict.CONTRADICTED,
                            f"{name}{est.value:.6g} (exact) {'inside' if inside else 'outside'} {c.band()}{note}")
        bad = c.degenerate or est.degenerate
        if bad:
            return Decision(c, Verdict.INCONCLUSIVE, f"{name}{est.value:.4g}: degenerate ({bad}){note}",
                            need=bad)
        ci = est.interval(level / max(c.looks, 1))
        text = f"{name}{ci.estimate:.4g} [{ci.low:.4g}, {ci.high:.4g}] vs {c.band()}"
        if c.low <= ci.low and ci.high <= c.high:
            return Decision(c, Verdict.REPRODUCED, f"{text}: inside{note}")
        if c.can_contradict and (ci.low > c.high or ci.high < c.low):
            return Decision(c, Verdict.CONTRADICTED, f"{text}: outside{note}")
        reps = _reps_to_decide(est, ci, c)
        return Decision(c, Verdict.INCONCLUSIVE, f"{text}: straddles{note}", reps,
                        _reps_need(reps, est, c.unit))
    if isinstance(c, Hypothesis):
        name = f"{c.label} " if c.label else ""
        if c.supports:
            if c.p_value < level:
                return Decision(c, Verdict.REPRODUCED, f"{name}({p_is(c.p_value)} < {level:.2g}){note}")
            if c.p_against is not None and c.p_against < level:
                return Decision(c, Verdict.CONTRADICTED,
                                f"{name}(reverse shown: {p_is(c.p_against)} < {level:.2g}){note}")
            reps = _reps_for_z(c, level)
            return Decision(c, Verdict.INCONCLUSIVE, f"{name}({p_is(c.p_value)} >= {level:.2g}){note}", reps,
                            _reps_need(reps, None, c.unit) if c.z is not None else "")
        if c.p_value < level:
            return Decision(c, Verdict.CONTRADICTED, f"{name}rejected ({p_is(c.p_value)} < {level:.2g}){note}")
        if c.power is None or not c.departure:
            return Decision(c, Verdict.INCONCLUSIVE,
                            f"{name}not rejected ({p_is(c.p_value)}) but no power statement: absence of "
                            f"evidence{note}", need="a power statement against a stated departure")
        power = float(c.power(level, c.reps or 0))
        if power >= POWER:
            return Decision(c, Verdict.REPRODUCED, f"{name}not rejected ({p_is(c.p_value)}); power "
                                                   f"{power:.2f} against {c.departure}{note}")
        reps = _reps_for_power(c, level)
        return Decision(c, Verdict.INCONCLUSIVE, f"{name}not rejected ({p_is(c.p_value)}) with power only "
                                                 f"{power:.2f} against {c.departure}{note}", reps,
                        (f"needs {c.unit} >= {reps:,} for power {POWER:g} against {c.departure}" if reps
                         else f"power {POWER:g} against {c.departure} out of reach"))
    raise TypeError(f"not a comparison: {c!r}")


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


def _horizon_cause(u: Unobservable | None) -> str:
    if u is None:
        return ""
    return (f"needs T >= {_fmt_t(u.horizon)}" if u.horizon is not None
            else "needs a longer horizon (no registered bound says which)")


def _inconclusive_cause(decisions: Sequence[Decision]) -> str:
    open_ = [d for d in decisions if d.verdict is Verdict.INCONCLUSIVE]
    reps = [d.reps for d in open_]
    units = {getattr(d.comparison, "unit", "R") for d in open_}
    if len(open_) == 1 and open_[0].need:
        return _short(open_[0].need)
    if open_ and all(r is not None for r in reps) and units == {"R"}:
        return f"needs R >= {max(reps):,} at the observed effect"
    needs = [d.need for d in open_ if d.need]
    return _short(needs[0]) if needs else "not decided at this family's level"


def _short(text: str, limit: int = 120) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def counts(results: Sequence[ClaimResult], category: str | None = None) -> dict[Verdict, int]:
    """Rows per outcome (of one ``category``, or all)."""
    rows = [r for r in results if category is None or r.category == category]
    return {v: sum(r.verdict is v for r in rows) for v in Verdict}


def count_line(results: Sequence[ClaimResult], category: str | None = None) -> str:
    c = counts(results, category)
    n = sum(c.values())
    return f"{n} rows: " + ", ".join(f"{k} {v.value}" for v, k in c.items())


# --------------------------------------------------------------- output
def scope_text(results: Sequence[ClaimResult]) -> str:
    """What the family-wise correction of this report covers, in numbers."""
    if not results:
        return ""
    m, alpha = results[0].family, results[0].alpha
    level = alpha / max(m, 1)
    rows = sum(1 for r in results if any(d.comparison.random for d in r.decisions))
    exact = sum(1 for r in results for d in r.decisions if not d.comparison.random)
    return (f"The family of this report: m = {m} comparisons of random evidence over {rows} rows (every "
            f"row of every category, whatever its outcome); alpha = {alpha:g} family-wise, so each comparison "
            f"is decided at alpha/m = {level:.2g} and every interval in the verdict column is drawn at level "
            f"1 - {2 * level:.2g}. Exact computations ({exact} comparisons) are not in the family.")


def write_json(path: Path, results: Sequence[ClaimResult]) -> Path:
    """The verdicts as JSON (one object per claim), next to the report."""
    rows = [{"id": r.claim.id, "where": r.claim.where, "statement": r.claim.statement, "test": r.claim.test,
             "category": r.claim.category, "verdict": r.verdict.value, "cause": r.cause, "detail": r.detail,
             "statistic": r.outcome.statistic, "alpha": r.alpha, "family": r.family,
             "horizon": r.outcome.horizon, "reps": r.outcome.reps, "seed": r.outcome.seed,
             "comparisons": [{"verdict": d.verdict.value, "text": d.text, "reps_needed": d.reps,
                              "random": bool(d.comparison.random)} for d in r.decisions]}
            for r in results]
    path.write_text(json.dumps(rows, indent=1, default=float) + "\n")
    return path


def _fmt_t(t) -> str:
    if t is None:
        return "?"
    t = float(t)
    return fmt_t(t) if t == int(t) and math.log10(t) == round(math.log10(t)) else f"{t:.2g}"


from . import kinds  # noqa: E402,F401  (registers the test kinds)

__all__ = ["CATEGORIES", "RULE", "Verdict", "Claim", "Outcome", "Check", "Hypothesis", "Exact",
           "Unobservable", "Decision", "ClaimResult", "Evidence", "NotChecked", "TESTS", "claim_test", "load_claims",
           "evaluate", "decide", "decide_comparison", "family_size", "write_json", "counts", "count_line",
           "scope_text", "checkpoint", "common_checkpoint", "uniform_share", "learning_horizon",
           "round_robin", "saturated", "fixed_schedule", "DEFAULT_ALPHA", "POWER", "ROUND_ROBIN_SHARE",
           "SATURATION_SHARE"]
