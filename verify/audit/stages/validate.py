"""Stage 1, validate: the arguments of an audit checked once and turned into its plan.

Everything an audit is asked -- the claim (eps, delta), the level alpha, the sample sizes,
the input pairs, the features -- is checked here, before any sample is drawn, and kept in one
:class:`AuditPlan` that the later stages read (and never check again).  The plan also holds
what n samples can resolve (:func:`check_resolution`, :func:`resolution_floor`).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpbench.validation import InputError, check_delta, check_int, check_real, closest_names

from .. import features as feat
from .. import layers
from .. import statistics as st
from ..events import RARE_MIN_COUNT, VALIDATION_MARGIN, _proxy, zero_projection
from ..features.ranked import ATOM_MIN_COUNT
from ..inputs import Domain, neighbour_pair, pattern_pairs

#: default selection outputs per input and pair: n // 8, at least SELECT_MIN (but at most n) and
#: at most SELECT_MAX (they are stored: the cap bounds memory and the cost of fitting statistics)
SELECT_MIN, SELECT_MAX = 200_000, 1_000_000
#: events per family shortlisted on the screening part of the selection samples
SHORTLIST = 4
#: certification outputs per input of an audit of n outputs at once, unless given
DEFAULT_N = 1_000_000
#: the allowed forms of a budget, for error messages
BUDGET_FORM = ("a time with its unit, s, min or h (e.g. '30s', '10min', '1h'), or a number of samples "
               "(e.g. 2e6 or '2e6')")
#: the units a budget in time may carry, in seconds ('m' is refused: minutes or millions?)
_TIME_UNITS = {"min": 60.0, "s": 1.0, "h": 3600.0}


@dataclass(frozen=True)
class Budget:
    """What a sequential audit may spend: ``samples`` (outputs drawn by the whole audit, both
    inputs, every stage) or ``seconds`` (wall time of the whole audit); exactly one is set."""

    samples: int | None = None
    seconds: float | None = None

    def __str__(self) -> str:
        return f"{self.seconds:g}s" if self.seconds is not None else f"{self.samples:.3g} samples"


def parse_budget(budget) -> Budget | None:
    """A budget from ``30``-like numbers (samples), ``'2e6'`` (samples) or a time, ``'30s'``, ``'10min'``
    or ``'1h'`` (seconds); None stays None.

    Raises InputError naming the parameter and the allowed form on anything else.
    """
    if budget is None or isinstance(budget, Budget):
        return budget
    bad = InputError(f"budget must be {BUDGET_FORM}, positive (got {budget!r})")
    if isinstance(budget, bool):
        raise bad
    text = budget.strip().lower() if isinstance(budget, str) else None
    try:
        unit = next((u for u in _TIME_UNITS if text is not None and text.endswith(u)), None)
        if unit is not None:
            seconds = float(text[:-len(unit)]) * _TIME_UNITS[unit]
            if not (math.isfinite(seconds) and seconds > 0):
                raise bad
            return Budget(seconds=seconds)
        value = float(text if text is not None else budget)
    except (TypeError, ValueError):
        raise bad from None
    if not (math.isfinite(value) and value >= 1 and value == int(value)):
        raise bad
    return Budget(samples=int(value))


@dataclass(frozen=True)
class AuditPlan:
    """An audit's checked arguments and the resolution they give.

    eps, delta        the claim
    alpha             1 - confidence of everything the audit certifies (both layers together)
    n                 certification outputs per input (a sequential audit: 0, its rounds size themselves)
    n_select          selection outputs per input and pair (fit 1/2, screen 1/8, validate 3/8; 0 in a
                      sequential audit, whose rounds choose on the rounds before them)
    n_refine          refinement outputs per input of the chosen pairs (0: no refinement)
    seed              seed of every sample stream
    pairs             the input pairs (x, x') tried
    features          the (feature, options) plug-ins asked for
    delta_grid        deltas of the eps(delta) curve
    keep_pairs        with several pairs: full selection on this many only (None: all)
    log_density       the caller's log p(y | x), or None
    eps_ceiling       the largest eps n samples can certify (delta = 0, the law's level)
    certification_floor, delta_floor
                      the smallest mass of a violating event that certification alone / the
                      whole audit finds and certifies (:func:`resolution_floor`)
    progress          show a progress bar
    certifier         how a pre-chosen event's counts become a bound and a p-value
                      (:func:`..statistics.certifier_for` delta: the conditional test on
                      Poisson counts at delta = 0, Clopper-Pearson otherwise)
    budget            a sequential audit within this :class:`Budget` (:mod:`.sequential`; None: n
                      outputs at once)
    n_to_resolve      when ``delta_floor`` is 1 (no violating event of any mass is found and certified
                      at this n: the law has no power), the smallest n at which the default audit's
                      is below 1; else None
    """

    eps: float
    delta: float
    alpha: float
    n: int
    n_select: int
    n_refine: int
    seed: int
    pairs: list
    features: list
    delta_grid: np.ndarray
    keep_pairs: int | None
    log_density: Callable | None
    eps_ceiling: float
    certification_floor: float
    delta_floor: float
    progress: bool = False
    certifier: st.ClopperPearson | st.PoissonConditional = st.CLOPPER_PEARSON
    budget: Budget | None = None
    n_to_resolve: int | None = None

    @property
    def requested_layers(self) -> set:
        """The layers whose features were asked for."""
        return {f.layer for f, _ in self.features}

    def levels(self, tested) -> dict:
        """alpha of each layer in ``tested`` (its share of the audit's alpha, :mod:`..layers`)."""
        return {layer: self.alpha * share for layer, share in layers.shares(tested).items()}


def validate(mechanism, x=None, x_prime=None, *, eps, delta=0.0, alpha=0.05, n=None, seed=0,
             n_select=None, domain=None, log_density=None, features=("auto",), delta_grid=None,
             keep_pairs=None, n_refine=None, progress=False, budget=None) -> AuditPlan:
    """Check the arguments of :func:`verify.audit.audit` (its docstring says what they are) and plan it."""
    if isinstance(mechanism, str):          # a catalog name: its sampler is the callable
        from dpbench import MECHANISMS
        if mechanism in MECHANISMS:
            hint = f"pass dpbench.sampler({mechanism!r}, eps=...)"
        else:
            close = closest_names(mechanism, MECHANISMS)
            hint = (f"did you mean dpbench.sampler({close[0]!r}, eps=...)?" if close else
                    "no catalog mechanism has that name (`dpbench list mechanisms` shows them)")
        raise InputError(f"mechanism must be callable as mechanism(x, n, seed) (got the name {mechanism!r}): {hint}")
    if not callable(mechanism):
        raise InputError(f"mechanism must be callable as mechanism(x, n, seed) (got {mechanism!r})")
    budget = parse_budget(budget)
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    if budget is not None:
        given = [name for name, value in (("n", n), ("n_select", n_select), ("n_refine", n_refine))
                 if value is not None]
        if given:
            raise InputError(f"{', '.join(given)} size{'s' if len(given) == 1 else ''} an audit of n outputs at "
                             f"once; with a budget the rounds size themselves: give {' and '.join(given)} or budget, "
                             f"not both")
    n = DEFAULT_N if n is None else check_int("n", n, low=1)
    seed = check_int("seed", seed, low=0)
    if keep_pairs is not None:
        keep_pairs = check_int("keep_pairs", keep_pairs, low=1)
    feat.check_not_empty(features, always_applies=log_density is not None)
    requested = feat.resolve(features)
    law_alpha = alpha * layers.shares({f.layer for f, _ in requested}).get(layers.LAW, 1.0)
    if budget is not None:                  # any budget is valid: a small one certifies less
        n = budget.samples // 4 if budget.samples is not None else DEFAULT_N
        ceiling, cert_floor = st.eps_ceiling(max(n, 1), law_alpha), 1.0
    else:
        ceiling, cert_floor = check_resolution(n, law_alpha, eps, delta)
    if n_select is None:
        n_select = default_n_select(n)
    n_select = check_int("n_select", n_select, low=20)
    n_refine = n // 4 if n_refine is None else check_int("n_refine", n_refine, low=0)
    pairs = input_pairs(mechanism, x, x_prime, domain)
    check_input = getattr(mechanism, "check_input", None)     # a dpbench Mechanism: its input range
    if check_input is not None:                               # (the fast path never calls it)
        for pair in pairs:
            for value in pair:
                check_input(value)
    if delta_grid is None:
        delta_grid = st.log_delta_grid(n)
    delta_grid = np.unique(np.asarray(delta_grid, dtype=np.float64))
    if delta_grid.size == 0 or np.any((delta_grid < 0) | (delta_grid >= 1)):
        raise InputError("delta_grid values must lie in [0, 1)")
    floor = float(resolution_floor(n, n_select, n_refine, law_alpha, eps, delta))
    return AuditPlan(eps=eps, delta=delta, alpha=alpha, n=n, n_select=n_select, n_refine=n_refine, seed=seed,
                     pairs=pairs, features=requested, delta_grid=delta_grid, keep_pairs=keep_pairs,
                     log_density=log_density, eps_ceiling=float(ceiling), certification_floor=float(cert_floor),
                     delta_floor=floor, progress=bool(progress), certifier=st.certifier_for(delta), budget=budget,
                     n_to_resolve=n_to_resolve(law_alpha, eps, delta) if floor >= 1.0 else None)


def default_n_select(n: int) -> int:
    """Selection outputs per input and pair for an audit of n: n / 8 within [SELECT_MIN, SELECT_MAX], at most n."""
    return max(20, min(n, SELECT_MAX, max(n // 8, SELECT_MIN)))


def n_to_resolve(alpha: float, eps: float, delta: float) -> int:
    """The smallest n at which the default audit (its n_select and n_refine) finds and certifies some
    violating event: its :func:`resolution_floor` below 1 (doubling, then bisection)."""
    def resolves(n):
        return resolution_floor(n, default_n_select(n), n // 4, alpha, eps, delta) < 1.0
    hi = 16
    while not resolves(hi) and hi < 2 ** 50:
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if resolves(mid) else (mid, hi)
    return hi


def check_resolution(n: int, alpha: float, eps: float, delta: float) -> tuple[float, float]:
    """(eps ceiling, delta floor) of n samples; InputError if nothing above the claim is certifiable."""
    ceiling = st.eps_ceiling(n, alpha)
    bound = st.certifier_for(delta).bound
    best_at_delta = bound(n, n, 0, n, alpha, delta)
    if best_at_delta <= eps:
        # the n at which the whole audit (selection too) finds and certifies a violation, not just the
        # certification: advising the smaller one sent a user to an n that was then "not tested"
        need = n_to_resolve(alpha, eps, delta)
        raise InputError(
            f"n={n} samples per input cannot certify anything: at alpha={alpha:g} the largest certifiable "
            f"eps is {max(best_at_delta, 0.0):.4g} at delta={delta:g} (resolution floor; eps ceiling "
            f"{max(ceiling, 0.0):.4g} at delta=0), not above the claimed eps={eps:g}; "
            f"use n >= {need:,} (or a larger alpha)")
    return ceiling, st.certification_floor(n, alpha, eps, delta)


def resolution_floor(n: int, n_select: int, n_refine: int, alpha: float, eps: float, delta: float) -> float:
    """Return the smallest violating mass the audit can see.

    The smallest mass p of a violating event (P[M(x) in S] = p, P[M(x') in S] = 0) that
    the audit finds *and* certifies with probability at least 1/2, when the mechanism's other
    events sit at the claim.  Each stage needs enough occurrences of S among its outputs:

    * fit (n_select / 2 outputs): ATOM_MIN_COUNT, so that an atom gets a category of its own;
    * nomination (the other n_select / 2): enough that S, if it never occurs under x', would
      certify more than eps (``events.zero_projection``);
    * refinement (n_refine): enough that its validated proxy exceeds eps (without
      refinement: seen once in the screening outputs and validated above eps);
    * certification (n): enough that the bound exceeds eps.

    Counts are Poisson (:func:`statistics.stage_floor`); the slow test plants events of
    twice this mass and finds them in at least 95% of seeds.
    """
    fit = n_select // 2

    def needed(score, m):
        """Return the smallest count among m outputs at which score(count, m) exceeds eps."""
        return st.min_count(lambda a: score(a, m) > eps, max(m, 1))

    def validated(a, m):
        return float(_proxy(np.float64(a), np.float64(0.0), m, m, n, alpha, VALIDATION_MARGIN, delta))

    def nominated(a, m):
        return float(zero_projection(a, m, n, alpha, delta)) if a >= RARE_MIN_COUNT else -math.inf

    stages = [(ATOM_MIN_COUNT, fit)]
    if n_refine > 0:
        rest = n_select - fit
        stages += [(needed(nominated, rest), rest), (needed(validated, n_refine), n_refine)]
    else:
        screen = (5 * n_select) // 8 - fit
        stages += [(1, screen), (needed(validated, n_select - fit - screen), n_select - fit - screen)]
    bound = st.certifier_for(delta).bound
    stages.append((st.min_count(lambda k: bound(k, n, 0, n, alpha, delta) > eps, n), n))
    if any(k is None for k, _ in stages):
        return 1.0
    return st.stage_floor(stages)


def input_pairs(mechanism, x, x_prime, domain) -> list:
    """The input pairs to try: (x, x'), the patterns of ``domain``, or of the mechanism's input range."""
    if (x is None) != (x_prime is None):
        raise InputError("give both x and x_prime (a neighbouring pair), or neither (then a domain)")
    if x is not None:
        if domain is not None:
            raise InputError("give either the pair (x, x_prime) or a domain, not both")
        return [neighbour_pair(x, x_prime, compiled=getattr(mechanism, "component", None) is not None)]
    if domain is None:
        rng = getattr(mechanism, "input_range", None)
        if rng is None:
            raise InputError("no input pair: give x and x_prime, or a domain (verify.audit.Domain), "
                             "or a mechanism with an input_range")
        domain = Domain(1, float(rng[0]), float(rng[1]), local=True)
    elif isinstance(domain, (tuple, list)):
        domain = Domain(*domain)
    if not isinstance(domain, Domain):
        raise InputError(f"domain must be a verify.audit.Domain (got {domain!r})")
    pairs = pattern_pairs(domain)
    if domain.dim == 1 and not domain.add_remove:          # one dimension: the inputs are numbers
        pairs = [(a.reshape(()), b.reshape(())) for a, b in pairs]
    return pairs
