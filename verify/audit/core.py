"""``audit``: a certified black-box lower bound on the privacy loss of a mechanism.

A mechanism is any callable ``mechanism(x, n, seed) -> ndarray`` returning n
outputs for input x: shape (n,) (scalars or labels) or (n, d) (vectors).  An
audit of the pair (x, x') against a claim (eps, delta):

1. *selection*: draw ``n_select`` outputs of M(x) and M(x'); fit candidate
   statistics on one half (``events.candidate_statistics``), shortlist events
   on an eighth (``events.search``) and keep, by their estimates on the other
   three eighths (``events.validate``), the event S and direction that promise
   the largest certified bound; also nominate the most promising event never
   seen under one input (``events.rare_event``: an atom, a bottom symbol, a
   floating-point granularity class);
2. *refinement*: on ``n_refine`` fresh outputs of the chosen pair, choose the
   event of the chosen statistic again with more data, and count the rare
   nominee; the better of the two is certified;
3. *certification*: draw ``n`` fresh outputs of each, count S (streamed in
   blocks, or counted inside compiled code for ``fast.compiled_mechanism``),
   and turn the counts into Clopper-Pearson statements (``statistics``).

Reported: ``eps_lower_bound`` (at the claimed delta, confidence 1 - alpha),
``p_value`` of H0 "(eps, delta)-DP holds on this pair", ``violated``
(p_value <= alpha, i.e. eps_lower_bound > eps), the witness (its event described
in output space), the eps(delta) curve and the trade-off (f-DP) view -- certified
(FPR, FNR) points and the Gaussian-DP mu they certify -- of the curve's events
(simultaneous by Bonferroni over its distinct events, :mod:`.tradeoff`),
``n_samples``, ``samples_per_second`` and the resolution: ``eps_ceiling`` (the
largest eps n samples can certify) and ``delta_floor`` (the smallest mass of a
violating event that selection and certification together find and certify,
:func:`resolution_floor`).

Inputs are any objects the mechanism accepts: numbers and numeric arrays of one
shape (the compiled fast path applies), or datasets of different sizes (add/remove
one record), dicts, strings (handed over as given).  Outputs are numbers, vectors
or labels (strings, tuples, ...: each label is a category, mapped to one fixed number).

When only a domain is given (or the mechanism carries ``input_range``), every
pair of the standard patterns (``inputs.pattern_pairs``) is tried at selection
and the most promising event of all is certified.
"""
from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from dpbench.engine.result import to_json
from dpbench.randomness import stream_seed
from dpbench.validation import InputError, check_delta, check_int, check_real

from . import fast, tradeoff
from . import statistics as st
from .events import (
    Event,
    Statistic,
    candidate_statistics,
    histogram,
    rare_event,
    search,
    search_counts,
    validate,
    validate_counts,
)
from .inputs import Domain, as_input, describe_input, describe_pair, neighbour_pair, numeric_input, pattern_pairs

#: outputs per call of a plain (non-compiled) mechanism during certification
CHUNK = 1 << 18
#: events per family shortlisted on the screening part of the selection samples
SHORTLIST = 4
#: default selection outputs per input and pair: n // 8, at least SELECT_MIN (but at most n) and
#: at most SELECT_MAX (they are stored: the cap bounds memory and the cost of fitting statistics)
SELECT_MIN, SELECT_MAX = 200_000, 1_000_000


@dataclass
class AuditResult:
    """What an audit certifies about one mechanism on its most revealing input pair.

    Trade-off (f-DP) view, all at confidence 1 - alpha together with ``curve_eps``
    (Bonferroni over the curve's distinct events, :mod:`.tradeoff`):

    tradeoff_fpr, tradeoff_fnr   certified points of the trade-off curve: upper bounds
                                 on (false-positive, false-negative) rates of tests
                                 telling M(x) from M(x') by the curve's events (Pareto
                                 points, by increasing FPR); every valid trade-off
                                 function lies below-left of each point
    gdp_mu_lower_bound           the largest mu the points certify: M is not mu'-GDP
                                 for any mu' < gdp_mu_lower_bound (0: nothing certified)
    """

    mechanism: str
    eps: float
    delta: float
    alpha: float
    eps_lower_bound: float
    p_value: float
    violated: bool
    witness: dict
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
    tradeoff_fpr: list = field(default_factory=list)
    tradeoff_fnr: list = field(default_factory=list)
    gdp_mu_lower_bound: float = 0.0
    warnings: list = field(default_factory=list)
    info: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Return the result as strict-JSON data (other inputs, e.g. sets, as their repr)."""
        return to_json(asdict(self), default=repr)   # other inputs (sets, user objects): readable

    def to_json(self, **kw) -> str:
        """Return the result as a JSON text (``kw`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), **kw)

    def __str__(self) -> str:
        """Verdict, bound and witness event, in a few lines."""
        w = self.witness
        verdict = "VIOLATED" if self.violated else "not rejected"
        return (f"audit of {self.mechanism} against ({self.eps:g}, {self.delta:g})-DP: {verdict}\n"
                f"  eps lower bound {self.eps_lower_bound:.4f} at delta={self.delta:g} "
                f"(confidence {1 - self.alpha:g}), p-value {self.p_value:.3g}\n"
                f"  witness: {describe_pair(w.get('x'), w.get('x_prime'))}, event: {w.get('event')}\n"
                f"  counts {w.get('count_x')}/{self.n} vs {w.get('count_x_prime')}/{self.n} "
                f"(p(x) ~ {w.get('p_x', float('nan')):.3g}, p(x') ~ {w.get('p_x_prime', float('nan')):.3g})\n"
                f"  trade-off: {_describe_points(self.tradeoff_fpr, self.tradeoff_fnr)}; "
                f"not mu-GDP for any mu < {self.gdp_mu_lower_bound:.4g}\n"
                f"  {self.n_samples:,} samples in {self.seconds:.1f}s ({self.samples_per_second:,.0f}/s); "
                f"resolution: eps <= {self.eps_ceiling:.3g}, violating events of mass >= {self.delta_floor:.3g}")


def _describe_points(fpr, fnr, show: int = 3) -> str:
    """Describe a few certified (FPR, FNR) points, spread over the curve."""
    if not fpr:
        return "no certified point"
    idx = sorted({round(i * (len(fpr) - 1) / max(1, show - 1)) for i in range(show)})
    pts = ", ".join(f"({fpr[i]:.3g}, {fnr[i]:.3g})" for i in idx)
    return f"{len(fpr)} certified (FPR, FNR) point{'s' if len(fpr) > 1 else ''}, e.g. {pts}"


# ------------------------------------------------------------------ sampling
def _mechanism_name(mechanism) -> str:
    return str(getattr(mechanism, "name", getattr(mechanism, "__name__", type(mechanism).__name__)))


#: category labels map to numbers at and above this value (exact in float64), far beyond
#: the outputs of any ordinary mechanism; a label that reads as a finite number is that number
LABEL_BASE = 2.0 ** 60
#: label texts kept for the result (number -> label)
MAX_LABELS_KEPT = 4096


def label_value(text: str) -> float:
    """Return the fixed number of one output label.

    The fixed number of one output label, the same in every run and process: the number
    itself if the label reads as a finite number, else LABEL_BASE plus 52 bits of its hash.
    """
    try:
        value = float(text)
        if math.isfinite(value):
            return value
    except ValueError:
        pass
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return LABEL_BASE + float((int.from_bytes(digest, "little") >> 12) << 8)


def _label_text(v) -> str:
    """Return the text of one output label.

    The text of one output label: strings as they are, numbers as str() writes them (as
    NumPy does when numbers and strings share an array), anything else by its repr.
    """
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, str):
        return v
    return str(v) if isinstance(v, (int, float, np.number)) and not isinstance(v, bool) else repr(v)


def _label_rows(arr: np.ndarray, labels: dict | None) -> tuple[np.ndarray, int]:
    """Map the labels of an output array to numbers.

    Labels (strings, bytes, objects) to their numbers (:func:`label_value`), and how many
    of them are labels proper (not numbers); ``labels`` collects number -> label text.
    """
    flat = arr.reshape(-1)
    texts = flat.astype(str) if arr.dtype.kind in "US" else np.array([_label_text(v) for v in flat], dtype=str)
    uniq, inverse = np.unique(texts, return_inverse=True)
    values = np.array([label_value(t) for t in uniq])
    proper = values >= LABEL_BASE
    if labels is not None and len(labels) < MAX_LABELS_KEPT:
        labels.update(zip(values[proper].tolist(), uniq[proper].tolist()))
    return values[inverse].reshape(arr.shape), int(np.count_nonzero(proper[inverse]))


def _as_array(out, name: str, x) -> np.ndarray:
    """Return a mechanism's outputs as an array (ragged sequences: one label per output)."""
    try:
        return np.asarray(out)
    except ValueError:
        pass
    except Exception as err:        # noqa: BLE001 - report any conversion failure plainly
        raise InputError(f"mechanism {name} returned something that is not an array on input "
                         f"{describe_input(x)} ({err})") from None
    try:
        items = list(out)
    except TypeError as err:
        raise InputError(f"mechanism {name} returned something that is not an array on input "
                         f"{describe_input(x)} ({err})") from None
    arr = np.empty(len(items), dtype=object)
    for i, v in enumerate(items):
        arr[i] = v
    return arr


def _as_rows(out, n: int, name: str, x, labels: dict | None = None) -> tuple[np.ndarray, int]:
    """Validate one batch of outputs: (C-contiguous (n, d) float array, number of entries that are labels).

    Labels (strings, tuples, None, ...) become categories, each one fixed number
    (:func:`label_value`), recorded in ``labels``.
    """
    arr = _as_array(out, name, x)
    n_labels = 0
    if arr.dtype == bool:
        arr = arr.astype(np.float64)
    if arr.dtype.kind in "USO":
        arr, n_labels = _label_rows(arr, labels)
    elif arr.dtype.kind not in "iuf":
        raise InputError(f"mechanism {name} must return numbers or labels; got dtype {arr.dtype} "
                         f"on input {describe_input(x)}")
    if arr.ndim == 1 and arr.shape[0] == n:
        arr = arr.reshape(n, 1)
    elif not (arr.ndim == 2 and arr.shape[0] == n and arr.shape[1] >= 1):
        raise InputError(f"mechanism {name} returned shape {arr.shape} for n={n} on input "
                         f"{describe_input(x)}; expected ({n},) or ({n}, d)")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.argwhere(bad)[0][0])
        raise InputError(f"mechanism {name} returned {int(bad.sum())} non-finite value(s) on input "
                         f"{describe_input(x)} (first at output {i}: {arr[i].tolist()}); outputs must be "
                         f"finite numbers or labels")
    return arr, n_labels


class _Source:
    """Draws and counts outputs of one mechanism, by the compiled or the block path.

    Checks what the mechanism returns: a clear InputError naming the mechanism and the
    input when it raises, returns the wrong number of outputs or non-finite numbers, changes
    the output width between inputs, or returns only labels on one input and only numbers
    on another.  ``labels``: number -> label text of every label seen.
    """

    def __init__(self, mechanism, seed: int):
        if not callable(mechanism):
            raise InputError(f"mechanism must be callable as mechanism(x, n, seed) (got {mechanism!r})")
        self.mechanism = mechanism
        self.name = _mechanism_name(mechanism)
        self.component = getattr(mechanism, "component", None)
        self.seed = seed
        self.d = getattr(mechanism, "output_dim", None)
        self.drawn = 0
        self.labels: dict = {}
        self._width_from = None            # the input whose outputs fixed the width
        self._kinds: dict = {}             # id(input) -> (input, kinds of its outputs)

    def fast_path(self, x) -> bool:
        """Whether outputs of M(x) are drawn by compiled code (numeric inputs of a component)."""
        return self.component is not None and numeric_input(x) is not None

    def call(self, x, n: int, *key: int) -> np.ndarray:
        """n outputs of the mechanism itself on x, validated, as (n, d) rows."""
        try:
            out = self.mechanism(as_input(x), n, stream_seed(self.seed, *key))
        except Exception as err:    # noqa: BLE001 - any failure of user code is reported with its input
            raise InputError(f"mechanism {self.name} raised {type(err).__name__} on input "
                             f"{describe_input(x)}: {err}") from err
        rows, n_labels = _as_rows(out, n, self.name, x, self.labels)
        if self.d is None:
            self.d, self._width_from = rows.shape[1], x
        elif rows.shape[1] != self.d:
            before = "" if self._width_from is None else f" on input {describe_input(self._width_from)}"
            raise InputError(f"mechanism {self.name} returned outputs of width {rows.shape[1]} on input "
                             f"{describe_input(x)} but width {self.d}{before}; the width must not change")
        self._check_kinds(x, "labels" if n_labels == rows.size else "numbers" if n_labels == 0 else "mixed")
        return rows

    def _check_kinds(self, x, kind: str):
        """Refuse inputs whose outputs mix labels and numbers.

        InputError if x gave only labels so far and another input only numbers (or the
        reverse); a mix (numbers and a "bottom" symbol) is fine.
        """
        seen = self._kinds.setdefault(id(x), (x, set()))[1]
        seen.add(kind)
        opposite = {"labels": "numbers", "numbers": "labels"}.get(kind)
        if seen != {kind} or opposite is None:
            return
        for other, kinds in self._kinds.values():
            if kinds == {opposite}:
                shown = ", ".join(repr(t) for t in list(self.labels.values())[:3])
                raise InputError(
                    f"mechanism {self.name} returned only {kind} on input {describe_input(x)} but only "
                    f"{opposite} on input {describe_input(other)} (labels: {shown}): outputs of different "
                    f"types tell the inputs apart trivially and usually mean a bug; if intended, return "
                    f"one type (e.g. a number for the symbol)")

    def rows(self, x, n: int, *key: int) -> np.ndarray:
        """n outputs of M(x) as (n, d) rows (stream identified by ``key``)."""
        if self.fast_path(x):
            out = fast.sample_rows(self.component, numeric_input(x), fast.block_seeds(self.seed, n, *key),
                                   n, self.d)
        else:
            out = self.call(x, n, *key)
        self.drawn += n
        return out

    def histogram(self, x, n: int, stat: Statistic, edges: np.ndarray, key: tuple, bar) -> np.ndarray:
        """Count the statistic of n fresh outputs of M(x) in the bins of ``edges``."""
        return self.histograms(x, n, [(stat, edges)], key, bar)[0]

    def histograms(self, x, n: int, binnings: list, key: tuple, bar) -> list[np.ndarray]:
        """Count several statistics on the same n fresh outputs of M(x).

        Counts of several statistics, each (stat, edges) of ``binnings``, on the same n fresh
        outputs of M(x) (drawn once on the block path, once per statistic on the compiled one).
        """
        totals = [np.zeros(edges.size + 1, dtype=np.int64) for _, edges in binnings]
        if self.fast_path(x):
            xs = numeric_input(x)
            seeds = fast.block_seeds(self.seed, n, *key)
            per_call = 256                                    # blocks per kernel call (progress)
            for j, (total, (stat, edges)) in enumerate(zip(totals, binnings)):
                grid = fast.bin_grid(np.ascontiguousarray(edges, dtype=np.float64)) if stat.compiled else None
                for first in range(0, seeds.size, per_call):
                    chunk = seeds[first:first + per_call]
                    m = min(n - first * fast.BLOCK, chunk.size * fast.BLOCK)
                    if stat.compiled:
                        total += fast.count_bins(self.component, xs, chunk, m, self.d, stat.spec, edges,
                                                 grid)
                    else:
                        rows = fast.sample_rows(self.component, xs, chunk, m, self.d)
                        total += histogram(stat.evaluate(rows), edges)
                    self.drawn += m if j == 0 else 0        # the same outputs, drawn again
                    bar.update(m)
            return totals
        for c, first in enumerate(range(0, n, CHUNK)):
            m = min(CHUNK, n - first)
            rows = self.rows(x, m, *key, c)
            for total, (stat, edges) in zip(totals, binnings):
                total += histogram(stat.evaluate(rows), edges)
            bar.update(m)
        return totals


# ------------------------------------------------------------------ validation
def _check_claim(eps, delta, alpha):
    eps = check_real("eps", eps, low=0.0)
    delta = check_delta(delta)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    return eps, delta, alpha


def check_resolution(n: int, alpha: float, eps: float, delta: float) -> tuple[float, float]:
    """(eps ceiling, delta floor) of n samples; InputError if nothing above the claim is certifiable."""
    ceiling = st.eps_ceiling(n, alpha)
    best_at_delta = st.eps_bound(n, n, 0, n, alpha, delta)
    if best_at_delta <= eps:
        need = n
        while st.eps_bound(need, need, 0, need, alpha, delta) <= eps and need < 2 ** 60:
            need *= 2
        raise InputError(
            f"n={n} samples per input cannot certify anything: at alpha={alpha:g} the largest certifiable "
            f"eps is {max(best_at_delta, 0.0):.4g} at delta={delta:g} (resolution floor; eps ceiling "
            f"{max(ceiling, 0.0):.4g} at delta=0), not above the claimed eps={eps:g}; "
            f"use n >= {need} (or a larger alpha)")
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
    from .events import ATOM_MIN_COUNT, RARE_MIN_COUNT, VALIDATION_MARGIN, _proxy, zero_projection
    z = st.one_sided_z(alpha)
    fit = n_select // 2

    def needed(score, m):
        """Return the smallest count among m outputs at which score(count, m) exceeds eps."""
        return st.min_count(lambda a: score(a, m) > eps, max(m, 1))

    def validated(a, m):
        return float(_proxy(np.float64(a), np.float64(0.0), m, m, n, z, VALIDATION_MARGIN, delta))

    def nominated(a, m):
        return float(zero_projection(a, m, n, alpha, delta)) if a >= RARE_MIN_COUNT else -math.inf

    stages = [(ATOM_MIN_COUNT, fit)]
    if n_refine > 0:
        rest = n_select - fit
        stages += [(needed(nominated, rest), rest), (needed(validated, n_refine), n_refine)]
    else:
        screen = (5 * n_select) // 8 - fit
        stages += [(1, screen), (needed(validated, n_select - fit - screen), n_select - fit - screen)]
    stages.append((st.min_count(lambda k: st.eps_bound(k, n, 0, n, alpha, delta) > eps, n), n))
    if any(k is None for k, _ in stages):
        return 1.0
    return st.stage_floor(stages)


def _pairs(mechanism, x, x_prime, domain):
    if (x is None) != (x_prime is None):
        raise InputError("give both x and x_prime (a neighbouring pair), or neither (then a domain)")
    if x is not None:
        if domain is not None:
            raise InputError("give either the pair (x, x_prime) or a domain, not both")
        return [neighbour_pair(x, x_prime)]
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
    return pattern_pairs(domain)


# ------------------------------------------------------------------ the audit
@dataclass
class Candidate:
    """An event of one statistic on one input pair, and what selection thinks of it."""

    proxy: float             # projected certified bound (pessimistic; see events._proxy)
    se: float                # selection uncertainty of the proxy, in eps units
    event: Event
    pair: int                # index into the audit's list of input pairs


def _select(source, pairs, which, n_select, stream, n, alpha, delta, log_density, features):
    """Candidate events of every statistic of every pair in ``which``.

    The n_select outputs per input are split: fit the statistics (1/2) | screen a shortlist of
    events (1/8) | validate it (3/8).  Returns (validated, rare): per statistic, the best validated
    event, and the most promising event never seen under one input on the screening and validation
    outputs together (events.rare_event), with its zero projection as proxy.
    """
    fit, screen = n_select // 2, (5 * n_select) // 8
    found, rare = [], []
    for p in which:
        a, b = pairs[p]
        rows_a = source.rows(a, n_select, p, 0, stream)
        rows_b = source.rows(b, n_select, p, 1, stream)
        stats = candidate_statistics(rows_a[:fit], rows_b[:fit], log_density=log_density,
                                     x=as_input(a), x_prime=as_input(b), features=features)
        for stat in stats:
            s_a, s_b = stat.evaluate(rows_a[fit:]), stat.evaluate(rows_b[fit:])
            k = screen - fit
            shortlist = search(stat, s_a[:k], s_b[:k], n, alpha, [delta], top=SHORTLIST)
            scores = validate(shortlist, s_a[k:], s_b[k:], n, alpha)
            if scores.shape[0] == 0:
                continue
            i = _most_promising(scores[:, 0], scores[:, 1])
            shortlist[i].proxy = float(scores[i, 0])
            found.append(Candidate(float(scores[i, 0]), float(scores[i, 1]), shortlist[i], p))
            nominee = rare_event(stat, s_a, s_b, n, alpha, delta)
            if nominee is not None:
                rare.append(Candidate(nominee.proxy, math.inf, nominee, p))
    return found, rare


def _refine(source, pairs, chosen: Candidate, nominee: Candidate | None, n_refine: int, n: int,
            alpha: float, delta: float, delta_grid, bar):
    """Refinement on n_refine fresh outputs per input (own streams, never certified).

    The chosen statistic and pair are fixed and the event (bins, direction) is chosen again
    as at selection with more data: shortlist on one half, validate on the other (the
    selection's event competes, and is replaced only by one clearly better).  A rare nominee
    (an event never seen under one input at selection) is counted on all n_refine outputs of
    its pair and replaces the refined event if its validated proxy is larger.  Returns (event,
    proxy, the eps(delta) curve's events, chosen from the same refinement counts).
    """
    event, p = chosen.event, chosen.pair
    half = max(1, n_refine // 2)
    sizes = (half, n_refine - half)
    binnings = {p: [(event.statistic, event.edges)]}
    if nominee is not None:
        binnings.setdefault(nominee.pair, []).append((nominee.event.statistic, nominee.event.edges))
    counts = {}                                       # (pair, binning, side, part) -> histogram
    for q, binning in binnings.items():
        for part, m_ in enumerate(sizes):
            for side, x_ in enumerate(pairs[q]):
                for j, h in enumerate(source.histograms(x_, m_, binning, (q, side, 3 + part), bar)):
                    counts[q, j, side, part] = h
    h = [counts[p, 0, side, part] for part in (0, 1) for side in (0, 1)]
    shortlist = search_counts(event.statistic, event.edges, h[0], h[1], half, half, n, alpha, [delta],
                              top=SHORTLIST) + [event]
    scores = validate_counts(shortlist, h[2], h[3], sizes[1], sizes[1], n, alpha)
    i, inc = _most_promising(scores[:, 0], scores[:, 1]), len(shortlist) - 1
    # the selection's event is replaced only by one clearly better on these counts: by more
    # than the standard error of the difference (nested events: sqrt|se_1^2 - se_2^2|), so
    # near-ties among events of a plentiful statistic stay with the incumbent
    if scores[i, 0] - scores[inc, 0] <= math.sqrt(abs(scores[i, 1] ** 2 - scores[inc, 1] ** 2)):
        i = inc
    event, proxy = shortlist[i], float(scores[i, 0])
    full = (h[0] + h[2], h[1] + h[3])
    if nominee is not None:
        j = len(binnings[nominee.pair]) - 1
        full_nom = tuple(counts[nominee.pair, j, side, 0] + counts[nominee.pair, j, side, 1] for side in (0, 1))
        nom_proxy = float(validate_counts([nominee.event], *full_nom, n_refine, n_refine, n, alpha)[0, 0])
        if nom_proxy > proxy:
            event, proxy, p, full = nominee.event, nom_proxy, nominee.pair, full_nom
    event.proxy = proxy
    curve_events = search_counts(event.statistic, event.edges, full[0], full[1], n_refine, n_refine, n,
                                 alpha, delta_grid)
    return event, p, curve_events


def audit(mechanism, x=None, x_prime=None, *, eps, delta=0.0, alpha=0.05, n=1_000_000, seed=0,
          n_select=None, domain=None, log_density=None, features=("auto",), delta_grid=None,
          keep_pairs=None, n_refine=None, progress=False) -> AuditResult:
    """Audit ``mechanism`` against the claim (eps, delta)-DP on the pair (x, x').

    Parameters
    ----------
    mechanism : callable
        ``mechanism(x, n, seed) -> ndarray`` of shape (n,) or (n, d).
    x, x_prime : object, optional
        A neighbouring input pair: numbers or numeric arrays of one shape (passed as a float
        or a flat float array), or any objects the mechanism accepts, passed as given
        (datasets of different sizes for add/remove one record, dicts, strings).  Or give
        ``domain`` (a :class:`Domain`) to search the standard patterns, or neither for a
        mechanism with ``input_range``.
    eps, delta : float
        The claim, keyword-only (``delta`` default 0).
    alpha : float
        1 - confidence of every certified statement (default 0.05).
    n : int
        Certification outputs per input (default 1e6).  Selection draws ``n_select`` more
        per input and pair (default n // 8 within [SELECT_MIN, SELECT_MAX], at most n).
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
        Statistics to try: "auto" (all that apply, the default), or any of "value",
        "category" (categories and atoms), "score" (learned scores of vectors), "grain"
        (floating-point granularity), "bitsK" (low K mantissa bits);
        ``controls.LAW_FEATURES`` audits the law of a mechanism as if its arithmetic were
        exact (all but "grain").
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

    Returns
    -------
    AuditResult
        ``violated`` (the claim is rejected at level alpha), ``eps_lower_bound`` (certified:
        the mechanism is not (eps', delta)-DP for any eps' below it), the witness pair and
        event, the eps(delta) curve and the certified trade-off points.

    Raises
    ------
    dpbench.InputError
        On bad input (before sampling anything) and when the mechanism raises or returns
        outputs it cannot compare (see :class:`_Source`).

    Examples
    --------
    >>> import dpbench
    >>> from verify.audit import audit
    >>> res = audit(dpbench.sampler("ctl", eps=1.0), eps=1.0, n=200_000)   # doctest: +SKIP
    >>> res.violated, res.eps_lower_bound <= 1.0                          # doctest: +SKIP
    (False, True)
    """
    eps, delta, alpha = _check_claim(eps, delta, alpha)
    n = check_int("n", n, low=1)
    seed = check_int("seed", seed, low=0)
    if keep_pairs is not None:
        keep_pairs = check_int("keep_pairs", keep_pairs, low=1)
    ceiling, cert_floor = check_resolution(n, alpha, eps, delta)
    if n_select is None:
        n_select = max(20, min(n, SELECT_MAX, max(n // 8, SELECT_MIN)))
    n_select = check_int("n_select", n_select, low=20)
    n_refine = n // 4 if n_refine is None else check_int("n_refine", n_refine, low=0)
    floor = resolution_floor(n, n_select, n_refine, alpha, eps, delta)
    pairs = _pairs(mechanism, x, x_prime, domain)
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

    source = _Source(mechanism, seed)
    notes: list[str] = []
    t0 = time.perf_counter()
    fit = n_select // 2
    kept = range(len(pairs))
    if keep_pairs is not None and len(pairs) > keep_pairs:
        # a quick pass over every pair (a quarter of the selection outputs, own streams),
        # then the full selection on the most promising pairs only
        quick, _ = _select(source, pairs, kept, max(20, n_select // 4), 2, n, alpha, delta,
                           log_density, features)
        best_per_pair: dict = {}
        for c in quick:
            best_per_pair[c.pair] = max(best_per_pair.get(c.pair, -math.inf), c.proxy)
        kept = sorted(best_per_pair, key=best_per_pair.get, reverse=True)[:keep_pairs]
    found, rare = _select(source, pairs, kept, n_select, 0, n, alpha, delta, log_density, features)
    if not found:
        raise InputError(f"no statistic applies to the outputs of {source.name}")
    chosen = _choose(found)
    # a rare event (never seen under one input) that would beat the chosen one if it truly
    # never occurred there is judged on the refinement outputs too (one extra pass)
    nominee = max(rare, key=lambda c: c.proxy, default=None)
    if nominee is not None and (n_refine == 0 or nominee.proxy <= chosen.proxy):
        nominee = None
    selection_proxy = chosen.proxy
    from tqdm.auto import tqdm
    bar = tqdm(total=2 * (n + n_refine * (1 if nominee is None else 2)), desc=f"audit {source.name}",
               unit="out", unit_scale=True, disable=not progress, leave=False)
    try:
        if n_refine > 0:
            event, p, curve_events = _refine(source, pairs, chosen, nominee, n_refine, n, alpha, delta,
                                             delta_grid, bar)
        else:
            # the curve's events: same statistic and bins as the headline event (one certification
            # pass), chosen on the selection outputs of that pair (drawn again from the same stream)
            event, p = chosen.event, chosen.pair
            s_a = event.statistic.evaluate(source.rows(pairs[p][0], n_select, p, 0, 0)[fit:])
            s_b = event.statistic.evaluate(source.rows(pairs[p][1], n_select, p, 1, 0)[fit:])
            curve_events = search(event.statistic, s_a, s_b, n, alpha, delta_grid, edges=event.edges)
    except BaseException:
        bar.close()
        raise
    a, b = pairs[p]
    t_select = time.perf_counter() - t0

    t1 = time.perf_counter()
    try:
        hist_a = source.histogram(a, n, event.statistic, event.edges, (p, 0, 1), bar)
        hist_b = source.histogram(b, n, event.statistic, event.edges, (p, 1, 1), bar)
    finally:
        bar.close()
    t_cert = time.perf_counter() - t1
    seconds = time.perf_counter() - t0

    k1, k2 = event.counts(hist_a, hist_b)
    bound = st.eps_bound(k1, n, k2, n, alpha, delta)
    pval = st.p_value(k1, n, k2, n, eps, delta)
    violated = bool(pval <= alpha)
    # eps(delta) curve and trade-off view: simultaneous over the curve's distinct events
    curve = tradeoff.certify(curve_events, hist_a, hist_b, n, alpha, delta_grid)
    fwd = event.forward
    witness = {
        "x": as_input(a if fwd else b), "x_prime": as_input(b if fwd else a),
        "event": event.describe(), "statistic": event.statistic.describe(),
        "count_x": k1, "count_x_prime": k2, "p_x": k1 / n, "p_x_prime": k2 / n,
        "eps_estimate": math.log(k1 / k2) if k1 > 0 and k2 > 0 else (math.inf if k1 > 0 else 0.0),
    }
    if n < 1000:
        notes.append(f"only n={n} certification samples: the bound is weak")
    n_samples = source.drawn
    return AuditResult(
        mechanism=source.name, eps=eps, delta=delta, alpha=alpha,
        eps_lower_bound=max(0.0, float(bound)), p_value=float(pval), violated=violated,
        witness=witness, curve_delta=delta_grid.tolist(), curve_eps=curve.eps, n=n, n_select=n_select,
        n_samples=n_samples, seconds=seconds,
        samples_per_second=n_samples / seconds if seconds > 0 else math.inf,
        eps_ceiling=float(ceiling), delta_floor=float(floor), pairs_tried=len(pairs), seed=seed,
        tradeoff_fpr=curve.fpr, tradeoff_fnr=curve.fnr, gdp_mu_lower_bound=curve.mu_lower_bound,
        warnings=notes,
        info={"select_seconds": t_select, "certify_seconds": t_cert, "certification_floor": cert_floor,
              "certify_samples_per_second": 2 * n / t_cert if t_cert > 0 else math.inf,
              "fast_path": bool(source.fast_path(a) and event.statistic.compiled),
              "curve_alpha_per_event": curve.alpha_per_event, "curve_events": curve.events,
              "output_labels": _shown_labels(source.labels),
              "selection_proxy": selection_proxy, "refined_proxy": event.proxy if n_refine else None,
              "n_refine": n_refine,
              "rare_nominee": None if nominee is None else nominee.event.describe(),
              "rare_nominee_chosen": nominee is not None and event is nominee.event})


#: a validated proxy is trusted if its standard error is at most this fraction of the best proxy
RELIABLE_FRACTION = 1.0 / 3.0


def _reliable(proxy: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Select the candidates estimated precisely enough to trust.

    Candidates estimated precisely enough to trust: standard error at most a third of the
    best proxy (a rare event that was lucky in validation is not).
    """
    return se <= max(float(proxy.max()), 0.0) * RELIABLE_FRACTION


def _most_promising(proxy: np.ndarray, se: np.ndarray) -> int:
    """Index of the best validated proxy among the reliable candidates (or the plain best if none is reliable)."""
    reliable = _reliable(proxy, se)
    if reliable.any():
        return int(np.flatnonzero(reliable)[np.argmax(proxy[reliable])])
    return int(np.argmax(proxy))


def _choose(found: list[Candidate]) -> Candidate:
    """Choose the event to certify.

    The event to certify: the most promising validated proxy (:func:`_most_promising`),
    except that a learned score (naive-Bayes, logistic, sign) is passed over for a direct
    statistic (value, category, pattern, exact likelihood ratio) whose proxy is within one
    standard error of the difference: a fitted score adds noise the validation cannot see.
    """
    proxy, se = np.array([f.proxy for f in found]), np.array([f.se for f in found])
    top = found[_most_promising(proxy, se)]
    reliable = _reliable(proxy, se)
    direct = [f for f, ok in zip(found, reliable) if ok and not f.event.statistic.learned
              and f.proxy >= top.proxy - math.hypot(top.se, f.se)]
    return max(direct, key=lambda f: f.proxy) if top.event.statistic.learned and direct else top


def assert_dp(mechanism, eps, delta=0.0, x=None, x_prime=None, *, alpha=1e-6, n=None, seed=0,
              **kwargs) -> AuditResult:
    """Fail (AssertionError) if an audit certifies a violation of (eps, delta)-DP.

    For use inside any test: passes silently (returning the result) unless the
    audit rejects the claim at level ``alpha``.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(x, n, seed)``, as for :func:`audit`.
    eps, delta : float
        The claim.
    x, x_prime : object, optional
        The input pair, as for :func:`audit`.
    alpha : float
        Level of the test (default 1e-6: a correct mechanism fails with probability at
        most 1e-6).
    n : int, optional
        Outputs per input; default the smallest power of two that can certify eps + 0.5 at
        this alpha, and at least 200,000.
    seed : int
        Seed of the audit.
    **kwargs
        Other keywords of :func:`audit`.

    Returns
    -------
    AuditResult
        The audit's result, when it does not reject the claim.

    Raises
    ------
    AssertionError
        The audit certifies a violation; the message names the witness pair and event.

    Examples
    --------
    >>> import dpbench
    >>> from verify.audit import assert_dp
    >>> assert_dp(dpbench.sampler("ctl", eps=1.0), eps=1.0)    # doctest: +SKIP
    """
    __tracebackhide__ = True
    if n is None:
        need = st.min_samples_to_certify(check_real("eps", eps, low=0.0) + 0.5,
                                         check_real("alpha", alpha, low=0.0, high=1.0,
                                                    low_open=True, high_open=True))
        n = max(200_000, 1 << max(0, need - 1).bit_length())
    result = audit(mechanism, x, x_prime, eps=eps, delta=delta, alpha=alpha, n=n, seed=seed, **kwargs)
    if result.violated:
        w = result.witness
        raise AssertionError(
            f"{result.mechanism} is not ({eps:g}, {delta:g})-DP: certified eps >= "
            f"{result.eps_lower_bound:.4g} at delta={delta:g} (confidence {1 - alpha:g}, p-value "
            f"{result.p_value:.3g})\n  witness: {describe_pair(w['x'], w['x_prime'])}, event {w['event']}: "
            f"{w['count_x']}/{result.n} vs {w['count_x_prime']}/{result.n} outputs\n"
            f"  {result.n_samples:,} samples, seed {seed}")
    return result


def _shown_labels(labels: dict, limit: int = 64) -> dict:
    """Return the first ``limit`` output labels, number -> label (for the result's info)."""
    return {repr(k): v for k, v in list(labels.items())[:limit]}
