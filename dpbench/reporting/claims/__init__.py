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
       # than the tolerance), tolerance_source (where the tolerance comes from: the paper's
       # stated precision, its figure's resolution, its words), quantity (shown instead of the
       # test's own description of the measured quantity), note (one line shown under the
       # table), family (the multiplicity family; default the figure or theorem of where),
       # cannot_fail (why the check cannot come out against the claim: consistent, never
       # reproduced), readings (below)

   ``load_claims("NNN")`` reads and validates it (:mod:`.table`).  What the paper leaves open is
   declared once in ``paper.toml`` as ``[[choice]]`` entries with their readings, and a claim
   says what each reading changes in it::

       [claim.readings.horizon]                # the choice "horizon" of paper.toml
       T1e5 = { horizon = 1e5 }
       T1e7 = { horizon = 1e7 }

   The claim is then decided under every plausible reading (:mod:`.model`, :mod:`.rule`).

   A run is named by its label in the claim's ``experiment`` or, in another
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

Each claim is decided under every plausible reading of what its paper leaves open; the
comparisons of random evidence of a claim group (its family: the figure or theorem, per
category) are decided at alpha / m of that family (Bonferroni), an interval drawn at 1 - 2
alpha / m.  Seven outcomes: *reproduced*, *contradicted*, *depends on the reading* (the readings
disagree and one decides the claim), *consistent (cannot fail)* (it holds, but no comparison
could have come out against it), *inconclusive* (the row says which way it leans and what would
decide it), *unobservable at this horizon* and *not checked* (with the reason): :data:`RULE`
and :mod:`.rule`.  A test that must refuse (missing experiment, too few repetitions) raises
:class:`NotChecked`.

Each row has a ``category``: ``paper`` (the paper's own claims, the default), ``spec`` (checks of
the spec's arithmetic), ``erratum``, ``ambiguity`` (ambiguity-register entries) or ``control``
(negative controls of the report's own tests); reports count them apart.
"""
from __future__ import annotations

from .model import (
    AS_STATED,
    CATEGORIES,
    DEFAULT_ALPHA,
    LEARNING_LEVEL,
    MAX_REPS,
    POWER,
    SATURATION_SHARE,
    Choice,
    Claim,
    NotChecked,
    Reading,
    Verdict,
    family_of,
    location,
)
from .comparisons import (
    Check,
    ClaimResult,
    Comparison,
    Decision,
    Exact,
    Hypothesis,
    Outcome,
    ReadingResult,
    Unobservable,
    fmt_horizon,
)
from .registry import TESTS, ClaimTest, claim_test
from . import kinds   # the claim kinds register themselves (@claim_test)
from .table import NUMBER_KEYS, TOLERANCE_KEYS, load_choices, load_claims
from .evidence import (
    Evidence,
    checkpoint,
    common_checkpoint,
    fixed_schedule,
    horizon_to_learn,
    learning_horizon,
    learning_p_value,
    not_yet,
    paired,
    provenance_of,
    rate_horizon,
    round_robin,
    run_name,
    saturated,
    uniform_share,
)
from .rule import RULE, combine, decide, decide_comparison, evaluate, family_size
from .output import count_line, counts, families, scope_text, write_json

__all__ = ["AS_STATED", "CATEGORIES", "RULE", "Verdict", "Claim", "Choice", "Reading", "Outcome", "Check",
           "Hypothesis", "Exact", "Comparison", "Unobservable", "Decision", "ReadingResult", "ClaimResult",
           "Evidence", "NotChecked", "TESTS", "ClaimTest", "claim_test", "load_claims", "load_choices", "evaluate",
           "decide", "decide_comparison", "combine", "family_size", "family_of", "location", "families",
           "write_json", "counts", "count_line", "scope_text", "checkpoint", "common_checkpoint", "uniform_share",
           "learning_horizon", "not_yet", "rate_horizon", "horizon_to_learn", "learning_p_value", "round_robin",
           "saturated", "fixed_schedule",
           "paired", "provenance_of",
           "run_name", "fmt_horizon", "DEFAULT_ALPHA", "POWER", "LEARNING_LEVEL", "SATURATION_SHARE", "MAX_REPS",
           "NUMBER_KEYS", "TOLERANCE_KEYS"]
