"""``audit``: a certified black-box lower bound on the privacy loss of a mechanism, by layer.

A mechanism is any callable ``mechanism(x, n, seed) -> ndarray`` returning n outputs for
input x: shape (n,) (scalars or labels) or (n, d) (vectors).  An audit of the pair (x, x')
against a claim (eps, delta) runs five stages (:mod:`verify.audit.stages`), each once:

1. *validate* (:mod:`.stages.validate`): every argument checked, before any sample, into an
   :class:`~.stages.validate.AuditPlan`, with what n samples can resolve;
2. *select* (:mod:`.stages.select`): ``n_select`` outputs of M(x) and M(x') per pair; the
   statistics of every requested feature (:mod:`.features`) are fitted on one half, their
   events shortlisted and validated on the other; per layer (law, floating point), the event
   and pair that promise the largest certified bound, and a rare nominee (an event never seen
   under one input);
3. *refine* (:mod:`.stages.refine`): on ``n_refine`` fresh outputs, each layer's event chosen
   again with more data, its nominee judged, its eps(delta) curve's events chosen;
4. *certify* (:mod:`.stages.certify`): ``n`` fresh outputs of each input, every layer's event
   counted on the same outputs (Poisson(n) of them at delta = 0), certified statements at each
   layer's share of alpha (the exact conditional test at delta = 0, Clopper-Pearson otherwise);
5. *assemble* (:mod:`.stages.assemble`): verdicts, witnesses in output space, the result.

With a ``budget`` the whole audit is sequential (:mod:`.stages.sequential`): rounds of fresh
outputs (250, 500, 1000, ... per input), each layer's event chosen before a round by selection
and refinement on the rounds before it, and the round bet on (:mod:`.evalues`: a test
supermartingale per layer), stopping as soon as a layer is violated or the budget is spent; valid
at the stated alpha whenever it stops.  Before any verdict the sampling contract is checked
(:mod:`.contract`: the mechanism uses its seed, and a call's outputs are independent draws).

Reported (:class:`.result.AuditResult`): for each layer, ``violated``, ``eps_lower_bound`` (at
the claimed delta), ``p_value`` and the witness, all at confidence 1 - alpha together;
which layer failed; the eps(delta) curve and the trade-off (f-DP) view -- certified (FPR, FNR)
points and the Gaussian-DP mu they certify (:mod:`.tradeoff`); ``n_samples``,
``samples_per_second`` and the resolution: ``eps_ceiling`` (the largest eps n samples can
certify) and ``delta_floor`` (the smallest mass of a violating event that selection and
certification together find and certify, :func:`.stages.validate.resolution_floor`).

Inputs are any objects the mechanism accepts: numbers and numeric arrays of one shape (the
compiled fast path applies), or datasets of different sizes (add/remove one record), dicts,
strings (handed over as given).  Outputs are numbers, vectors or labels (strings, booleans,
tuples, ...: each label is a category).  When only a domain is given (or the mechanism carries
``input_range``), every pair of the standard patterns (:func:`.inputs.pattern_pairs`) is tried
at selection and the most promising event of all is certified.
"""
from __future__ import annotations

import time
import warnings

from dpbench.engine import guard
from dpbench.validation import InputError

from . import libraries
from .result import AuditResult
from .source import SampleSource, check_not_a_class, with_claim
from .stages import sequential
from .stages.assemble import assemble
from .stages.certify import certify
from .stages.refine import refine
from .stages.select import NoPower, select, selection_outputs
from .stages.validate import validate

#: an audit whose refinement and certification would take longer than this is refused (unless
#: ``allow_long``), as every run of dpbench is (``dpbench.engine.guard``)
REFUSE_SECONDS = guard.REFUSE_SECONDS


def check_duration(ahead: int, drawn: int, seconds: float) -> None:
    """Refuse an audit that would run for more than a day after selection (InputError).

    ``ahead``: the outputs still to draw, at the rate selection measured (``drawn`` outputs in
    ``seconds``, compilation included: an estimate that can only be too long), against
    REFUSE_SECONDS.  Selection is bounded (SELECT_MAX outputs per input and pair), so the refusal
    comes before any long run.
    """
    if drawn <= 0 or seconds <= 0:
        return
    estimate = ahead * seconds / drawn
    guard.refuse_beyond_a_day(
        estimate, f"n: refinement and certification would draw {ahead:.3g} outputs, about "
                  f"{guard.describe_seconds(estimate)} at the {drawn / seconds:,.0f} outputs/s selection measured",
        'lower n or give a budget (budget="1h"; --budget 1h)')
    if estimate > guard.ANNOUNCE_SECONDS:     # said before the long part starts (a CI log is silent otherwise)
        warnings.warn(f"audit: refinement and certification will draw {ahead:.3g} outputs, about "
                      f"{guard.describe_seconds(estimate)} at the {drawn / seconds:,.0f} outputs/s selection "
                      f"measured; a budget (budget=\"2e6\"; --budget 2e6) stops as soon as a violation shows",
                      guard.LongRunWarning, stacklevel=3)


def check_keyword_claim(function: str, extra: tuple) -> None:
    """InputError (one line) when the claim was given by position: ``audit(mech, x, x', 1.0)``."""
    if extra:
        shown = ", ".join(repr(v) for v in extra)
        raise InputError(f"{function}() takes the mechanism and the input pair by position, everything else by "
                         f"keyword: got {shown} after x_prime; write {function}(mechanism, x, x_prime, eps={extra[0]!r}"
                         f"{f', delta={extra[1]!r}' if len(extra) > 1 else ''})")


def audit(mechanism, x=None, x_prime=None, *extra, eps=None, delta=None, alpha=0.05, n=None, seed=0,
          n_select=None, domain=None, log_density=None, features=("auto",), delta_grid=None,
          keep_pairs=None, n_refine=None, progress=False, budget=None, allow_long=False) -> AuditResult:
    """Audit ``mechanism`` against the claim (eps, delta)-DP on the pair (x, x').

    Parameters
    ----------
    mechanism : callable or library object
        ``mechanism(x, n, seed) -> ndarray`` of shape (n,) or (n, d), or a mechanism object of a
        DP library (an OpenDP Measurement, a diffprivlib mechanism, ...: :mod:`verify.audit.libraries`),
        sampled by one call of the library per output, which carries its claim.
    x, x_prime : object, optional
        A neighbouring input pair, passed to the mechanism as given (integers stay integers, a
        table keeps its shape; datasets of different sizes for add/remove one record, dicts,
        strings); only a catalog mechanism's compiled sampler takes numbers as floats.  Or give
        ``domain`` (a :class:`Domain`) to search the standard patterns, or neither for a
        mechanism with ``input_range``.
    eps, delta : float
        The claim, keyword-only (``delta`` default 0).  ``eps`` may be left out for a library object:
        its own claim is audited, printed with its source; given, it is audited and the object's
        claim is shown beside it.  For an object whose claim is a curve (zCDP, a privacy profile),
        ``delta`` picks its point (default ``libraries.DEFAULT_DELTA``).
    alpha : float
        1 - confidence of every certified statement (default 0.05).
    n : int, optional
        Certification outputs per input (default 1e6; not with a ``budget``).  Selection draws
        ``n_select`` more per input and pair (default n // 8 within [SELECT_MIN, SELECT_MAX], at
        most n).
    seed : int
        Seed of every sample: the same seed gives the same result.
    n_select : int, optional
        Selection outputs per input and pair.
    domain : Domain, optional
        Input patterns to search instead of one pair.
    log_density : callable, optional
        ``log_density(y, x) -> log p(y | x)`` (vectorised over outputs): the exact
        log-likelihood ratio becomes a candidate statistic.
    features : sequence of str
        Statistics to try (:mod:`verify.audit.features`): "auto" (every default feature of
        both layers, the default), a layer ("law": the mechanism as if its arithmetic were
        exact; "floating_point"), or any of "value", "category" (categories and atoms),
        "score" (scores of vectors), "grain" (floating-point granularity), "bitsK" (low K
        mantissa bits).  A layer none of whose features is asked for is "not tested".
    delta_grid : array_like, optional
        Deltas of the eps(delta) curve (default: log grid from ~0.1/n to 0.5).
    keep_pairs : int, optional
        With a domain: give every pair a quick selection pass (n_select / 4) and the full
        one only to the ``keep_pairs`` most promising (faster, noisier); default None: the
        full selection on every pair.
    n_refine : int, optional
        Fresh outputs per input on which the event of the chosen statistic and pair is
        chosen again and a rare nominee is judged (bins counted, never certified; default
        n // 4): rare strong events need more data to tell apart than the selection has.
    progress : bool
        Show a progress bar.
    budget : str or number, optional
        Audit sequentially within this budget: ``"30s"`` (seconds of the whole audit) or a
        number of samples (``2e6``, ``"2e6"``: outputs drawn by the whole audit, both inputs,
        every pair and stage).  Every stage runs in rounds (:mod:`.stages.sequential`): each
        round's events are chosen on the rounds before it and bet on with its fresh outputs, and
        the audit stops as soon as a layer is violated (its wealth reached 1 / its share of
        alpha: anytime-valid), or when the budget is spent with the bound reached so far.  Any
        positive budget is valid: one too small to bet at all leaves the layers "not tested: no
        power".  A seconds budget is checked between rounds (the first round always runs).
        ``n``, ``n_select`` and ``n_refine`` are refused beside a budget.  Default None: n
        certification outputs at once.
    allow_long : bool
        Run even when refinement and certification would take more than a day at the rate
        selection measured (default False: such an audit is refused with an InputError after
        selection, before any long run, as dpbench refuses day-long simulations).

    Returns
    -------
    AuditResult
        ``law`` and ``floating_point``: each layer's verdict, certified eps lower bound,
        p-value and witness (input pair and event in output space), at confidence 1 - alpha
        together; ``layer_failed`` ("law", "floating_point" or None); ``violated`` (either
        layer rejects the claim at level alpha) with the headline layer's ``eps_lower_bound``
        (certified: the mechanism is not (eps', delta)-DP for any eps' below it), ``p_value``
        and ``witness``; the eps(delta) curve and the certified trade-off points; with a
        budget, ``sequential`` (rounds, samples used, whether the budget ran out).

    Raises
    ------
    dpbench.InputError
        On bad input (before sampling anything) and when the mechanism raises or returns
        outputs it cannot compare or that are not finite (see :class:`.source.SampleSource`).

    Examples
    --------
    >>> import dpbench
    >>> from verify.audit import audit
    >>> res = audit(dpbench.sampler("ctb", eps=1.0), eps=1.0, n=200_000)   # doctest: +SKIP
    >>> res.violated, res.law.eps_lower_bound <= 1.0                      # doctest: +SKIP
    (False, True)
    """
    check_keyword_claim("audit", extra)
    check_not_a_class(mechanism)
    libraries.check_not_a_function(mechanism)
    run = libraries.resolve(mechanism, x, x_prime, eps, delta)     # a library object: its sampler and claim
    mechanism, x, x_prime, eps, delta = run.mechanism, run.x, run.x_prime, run.eps, run.delta
    plan = validate(mechanism, x, x_prime, eps=eps, delta=delta, alpha=alpha, n=n, seed=seed, n_select=n_select,
                    domain=domain, log_density=log_density, features=features, delta_grid=delta_grid,
                    keep_pairs=keep_pairs, n_refine=n_refine, progress=progress, budget=budget)
    mechanism = with_claim(mechanism, plan.eps, plan.delta)      # a required eps/delta: the claim's
    source = SampleSource(mechanism, plan.seed, plan.eps, plan.delta)
    t0 = time.perf_counter()
    from tqdm.auto import tqdm
    if plan.budget is not None:
        total = plan.budget.samples
        with tqdm(total=total, desc=f"audit {source.name}", unit="out", unit_scale=True,
                  disable=not plan.progress, leave=False) as bar:
            try:
                certification = sequential.run(plan, source, t0, bar, allow_long)
            except NoPower as why:
                return libraries.annotate(assemble(plan, source, None, seconds=time.perf_counter() - t0,
                                                   select_seconds=0.0, no_power=str(why)), run)
        seconds = time.perf_counter() - t0
        return libraries.annotate(assemble(plan, source, certification, seconds=seconds,
                                           select_seconds=seconds - certification.seconds), run)
    source.bar = tqdm(total=selection_outputs(plan), desc=f"audit {source.name}: choosing events", unit="out",
                      unit_scale=True, disable=not plan.progress, leave=False,
                      delay=1.0)                # shown once selection takes a second (nothing for a quick failure)
    try:
        with source.bar:
            choices = select(plan, source)
    except NoPower as why:
        seconds = time.perf_counter() - t0
        return libraries.annotate(assemble(plan, source, None, seconds=seconds, select_seconds=seconds,
                                           no_power=str(why)), run)
    source.bar = None
    chosen = {c.chosen.pair for c in choices.values()}
    nominated = chosen | {c.nominee.pair for c in choices.values() if c.nominee is not None}
    ahead = 2 * (plan.n * len(chosen) + plan.n_refine * len(nominated))
    if not allow_long:
        check_duration(ahead, source.drawn, time.perf_counter() - t0)
    bar = tqdm(total=ahead, desc=f"audit {source.name}",
               unit="out", unit_scale=True, disable=not plan.progress, leave=False)
    with bar:
        refined = refine(plan, source, choices, bar)
        t_select = time.perf_counter() - t0
        certification = certify(plan, source, refined, bar)
    return libraries.annotate(assemble(plan, source, certification, seconds=time.perf_counter() - t0,
                                       select_seconds=t_select), run)
