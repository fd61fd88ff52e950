"""The sample source: draws outputs of one mechanism and counts statistics of them.

Two paths, the same draws: a compiled mechanism (a ``.component`` with a registered ``emit``,
e.g. ``dpbench.sampler(...)``) on numeric inputs is run by :mod:`verify.audit.fast`, which
counts up to ``fast.MAX_STATS`` statistics of each output inside compiled code without storing
it; any other callable ``mechanism(x, n, seed)`` is called in blocks of CHUNK outputs, which are
validated (:func:`as_rows`) and binned in NumPy.  Every sample stream is identified by a key
(pair, side, stage, ...), so the same seed gives the same outputs, and outputs drawn twice for
two statistics are the same outputs.

Outputs are numbers, vectors or labels (strings, booleans, tuples, ...): each label is a
category, mapped to one fixed number (:func:`label_value`), and the source keeps number ->
label so that events are described by their labels.  Non-finite outputs are refused
(InputError naming the mechanism and the input), on both paths.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import math
import warnings
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from dpbench.randomness import stream_seed
from dpbench.validation import InputError

from . import contract, fast
from .events import histogram
from .inputs import as_input, describe_input, numeric_input

#: the stage of a sample stream, the third entry of its key (pair, side, stage, ...): each stage
#: draws outputs of its own (refinement's two halves are REFINE and REFINE + 1)
SELECT, CERTIFY, QUICK_SELECT, REFINE, SEQUENTIAL = 0, 1, 2, 3, 5
#: outputs per call of a plain (non-compiled) mechanism
CHUNK = 1 << 18
#: seeded blocks per compiled kernel call (the progress bar moves between calls)
BLOCKS_PER_CALL = 256
#: contract check 4 pools the calls' outputs once this many of them, or of the calls, are waiting (or
#: at a comparison)
PENDING_ROWS, PENDING_CALLS = 1 << 16, 256

def mechanism_name(mechanism) -> str:
    """The name of a mechanism for messages: its ``name``, ``__name__`` or type; a
    ``functools.partial`` by its function and bound parameters (``laplace(scale=0.5)``)."""
    if not hasattr(mechanism, "name") and isinstance(mechanism, functools.partial):
        bound = [repr(a) for a in mechanism.args] + [f"{k}={v!r}" for k, v in mechanism.keywords.items()]
        return f"{mechanism_name(mechanism.func)}({', '.join(bound)})"
    return str(getattr(mechanism, "name", getattr(mechanism, "__name__", type(mechanism).__name__)))


#: the names a mechanism's own privacy parameters go by
PRIVACY_PARAMETERS = ("eps", "epsilon", "delta", "rho", "mu")


def run_parameters(mechanism) -> tuple[dict, set]:
    """(the privacy parameters ``mechanism`` runs with, the names of those left at their defaults).

    A dpbench mechanism's are its ``params``; a function's are its keywords named in
    PRIVACY_PARAMETERS, bound by ``functools.partial`` or else at their defaults (a parameter
    without a default is none of the audit's business: the call would fail)."""
    params = getattr(mechanism, "params", None)
    if isinstance(params, dict):
        return {k: params[k] for k in PRIVACY_PARAMETERS if k in params}, set()
    bound = dict(getattr(mechanism, "keywords", None) or {})
    try:
        signature = inspect.signature(mechanism)
    except (TypeError, ValueError):
        return {k: v for k, v in bound.items() if k in PRIVACY_PARAMETERS}, set()
    found, defaults = {}, set()
    for name, p in signature.parameters.items():
        if name in PRIVACY_PARAMETERS and p.default is not p.empty:
            found[name] = bound.get(name, p.default)
            if name not in bound:
                defaults.add(name)
    return found, defaults


def claim_values(eps, delta) -> dict:
    """The claim (eps, delta) under the names a mechanism's own privacy parameters go by (rho and mu
    are not set by it)."""
    return {"eps": eps, "epsilon": eps, "delta": delta}


def bound_to(mechanism, params: dict):
    """``functools.partial(mechanism, **params)``, keeping the attributes the audit reads off a
    mechanism (``input_range``, ``output_dim``)."""
    bound = functools.partial(mechanism, **params)
    for attr in ("input_range", "output_dim"):
        if getattr(mechanism, attr, None) is not None:
            setattr(bound, attr, getattr(mechanism, attr))
    return bound


def check_not_a_class(mechanism, shown: str | None = None) -> None:
    """InputError for a class given where a mechanism goes (a library's ``Laplace``, not an object built
    from it): called as mechanism(x, n, seed), it would be built from the inputs and fail obscurely."""
    if inspect.isclass(mechanism):
        name = mechanism.__name__
        raise InputError(f"mechanism {shown or name} is a class, not a mechanism: pass an object built from it "
                         f"({name}(...) with its parameters, e.g. epsilon and sensitivity), or a function "
                         f"mechanism(x, n, seed)")


def with_claim(mechanism, eps: float, delta: float):
    """``mechanism`` with the claim bound to the privacy parameters its signature requires (no default,
    not bound by ``functools.partial``): ``eps``/``epsilon`` and ``delta``, as a catalog mechanism gets
    them; the call would fail without them.  InputError for a required ``rho`` or ``mu``, which the claim
    (eps, delta) does not set."""
    if isinstance(getattr(mechanism, "params", None), dict):
        return mechanism
    try:
        signature = inspect.signature(mechanism)
    except (TypeError, ValueError):
        return mechanism
    bound = dict(getattr(mechanism, "keywords", None) or {})
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    required = [name for name, p in list(signature.parameters.items())[3:]
                if name in PRIVACY_PARAMETERS and p.default is p.empty and p.kind in kinds and name not in bound]
    if not required:
        return mechanism
    claim = claim_values(eps, delta)
    unset = [name for name in required if name not in claim]
    if unset:
        raise InputError(f"mechanism {mechanism_name(mechanism)} requires its privacy parameter {unset[0]}, which the "
                         f"claim (eps, delta) does not set: bind it (functools.partial(mechanism, {unset[0]}=...), or "
                         f"--param {unset[0]}=... on the command line)")
    return bound_to(mechanism, {name: claim[name] for name in required})


def describe_mechanism(mechanism, eps: float | None = None, delta: float | None = None) -> tuple[str, list]:
    """(the mechanism's name with the privacy parameters it runs with, warnings).

    ``rr(eps=1.0)``; a parameter left at its default that the claim (eps, delta) does not match
    gets a one-line warning: the audit tests the mechanism as it runs, not at the claim."""
    name = mechanism_name(mechanism)
    params, defaults = run_parameters(mechanism)
    shown = {k: v for k, v in params.items() if f"{k}=" not in name}
    if shown:
        listed = ", ".join(f"{k}={v!r}" for k, v in shown.items())
        # a partial's name already lists its keywords, "f(scale=0.5)": one list, "f(scale=0.5, eps=1.0)"
        name = (f"{name}({listed})" if not name.endswith(")") else
                f"{name[:-1]}{'' if name.endswith('()') else ', '}{listed})")
    claim = claim_values(eps, delta)
    notes = []
    for k in sorted(defaults):
        value = params[k]
        if k in claim and claim[k] is not None and isinstance(value, (int, float)) and float(value) == claim[k]:
            continue
        against = (f"not the claimed {k}={claim[k]:g}" if claim.get(k) is not None
                   else "which the claim (eps, delta) does not set")
        notes.append(f"mechanism {mechanism_name(mechanism)} runs with its own default {k}={value!r}, {against}: "
                        f"the audit tests it as it runs (bind the claim's value: "
                        f"functools.partial(mechanism, {k}=...), "
                        f"or --param {k}=... on the command line)")
    return name, notes


#: category labels map to numbers at and above this value (exact in float64), far beyond
#: the outputs of any ordinary mechanism; a label that reads as a finite number is that number
LABEL_BASE = 2.0 ** 60
#: label texts kept for the result (number -> label)
MAX_LABELS_KEPT = 4096
#: integers beyond this magnitude are outputs a float64 cannot hold exactly: they are labels
EXACT_INT = 2 ** 53


def _inexact_integer(text: str, value: float) -> bool:
    """Whether ``text`` writes an integer that the float ``value`` does not hold exactly."""
    try:
        return int(text) != int(value)
    except ValueError:
        return False


def label_value(text: str) -> float:
    """Return the fixed number of one output label.

    The fixed number of one output label, the same in every run and process: the number
    itself if the label reads as a finite number that a float holds exactly, else LABEL_BASE plus
    52 bits of its hash (an integer beyond 2^53 is a label: as floats, neighbours would be equal).
    """
    try:
        value = float(text)
        if math.isfinite(value) and not _inexact_integer(text, value):
            return value
    except ValueError:
        pass
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return LABEL_BASE + float((int.from_bytes(digest, "little") >> 12) << 8)


def _label_text(v) -> str:
    """Return the text of one output label, by its meaning (equal outputs, equal texts).

    Strings as they are, numbers as str() writes them (as NumPy does when numbers and strings
    share an array), anything else in its canonical form (:func:`canonical_text`).
    """
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, str):
        return v
    return str(v) if _is_number(v) else canonical_text(v)


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))


class NoCanonicalForm(TypeError):
    """An output object with no canonical form (its text is its identity, not its value)."""


def canonical_text(v) -> str:
    """The text of a structured output that depends on its value only: mappings by sorted keys,
    sets sorted, sequences in order, numbers, strings, booleans and None as Python writes them,
    other objects by their own ``repr``.  NoCanonicalForm for an object whose repr is its
    identity (``object.__repr__``: an address, different for equal values)."""
    if isinstance(v, (str, bytes, bool, type(None), np.bool_)) or _is_number(v):
        return repr(v.item() if isinstance(v, np.generic) else v)
    if isinstance(v, Mapping):
        items = sorted((canonical_text(k), canonical_text(val)) for k, val in v.items())
        return "{" + ", ".join(f"{k}: {val}" for k, val in items) + "}"
    if isinstance(v, (set, frozenset)):
        return "{" + ", ".join(sorted(canonical_text(e) for e in v)) + "}"
    if isinstance(v, (list, tuple, np.ndarray)):
        inner = ", ".join(canonical_text(e) for e in v)
        return f"({inner}{',' if len(v) == 1 else ''})"
    if type(v).__repr__ is object.__repr__:
        raise NoCanonicalForm(type(v).__name__)
    return repr(v)


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
    """Return a mechanism's outputs as an array (ragged sequences: one label per output;
    mappings: :func:`_mapping_rows`).  None, a generator or an iterator is refused by name."""
    if out is None or isinstance(out, (Iterator, Generator)):
        what = "None" if out is None else f"a {type(out).__name__} (not a sequence)"
        raise InputError(f"mechanism {name} returned {what} on input {describe_input(x)}: return the n outputs "
                         f"(a list or an array; e.g. return, not print, and list(...) of a generator)")
    try:
        arr = np.asarray(out)
        if arr.dtype == object and arr.ndim == 1 and arr.size and isinstance(arr[0], Mapping):
            return _mapping_rows(arr, name, x)
        return arr
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


def _mapping_rows(items: np.ndarray, name: str, x) -> np.ndarray:
    """Outputs that are mappings, by their meaning: mappings of one set of keys whose values are
    numbers or labels become rows, one column per key in sorted order (``{"v": 1.5}``: the value
    1.5); any other mapping is one label, its canonical text (:func:`canonical_text`)."""
    if not all(isinstance(v, Mapping) for v in items):
        raise InputError(f"mechanism {name} returned mappings mixed with other outputs on input "
                         f"{describe_input(x)}: return one kind of output")
    keys = sorted(items[0], key=canonical_text)
    flat = all(len(v) == len(keys) and all(k in v for k in keys) for v in items) and all(
        _is_number(v[k]) or isinstance(v[k], (str, bool, np.bool_)) for v in items for k in keys)
    if flat and keys:
        rows = np.empty((items.size, len(keys)), dtype=object)
        for i, v in enumerate(items):
            rows[i] = [v[k] for k in keys]
        numbers = [all(_is_number(e) for e in col) for col in rows.T]
        return rows.astype(np.float64) if all(numbers) else rows
    out = np.empty(items.size, dtype=object)
    out[:] = [canonical_text(v) for v in items]
    return out


def as_rows(out, n: int, name: str, x, labels: dict | None = None) -> tuple[np.ndarray, int]:
    """Validate one batch of outputs: (C-contiguous (n, d) float array, number of entries that are labels).

    Labels (strings, tuples, None, ...) become categories, each one fixed number
    (:func:`label_value`), recorded in ``labels``.
    """
    arr = _as_array(out, name, x)
    n_labels = 0
    if arr.dtype.kind in "iu" and arr.size and (arr.max() > EXACT_INT or arr.min() < -EXACT_INT):
        arr = arr.astype(object)            # integers a float cannot hold exactly: compared as labels
    if arr.dtype == bool:
        arr = arr.astype(np.float64)
        if labels is not None:
            labels.update({0.0: "False", 1.0: "True"})
    if arr.dtype.kind in "USO":
        try:
            arr, n_labels = _label_rows(arr, labels)
        except NoCanonicalForm as err:
            raise InputError(f"mechanism {name} returned objects of type {err} on input {describe_input(x)}, "
                             f"whose text is their identity, not their value: return numbers, vectors, labels "
                             f"(strings, tuples) or mappings of them") from None
    elif arr.dtype.kind not in "iuf":
        raise InputError(f"mechanism {name} must return numbers or labels; got dtype {arr.dtype} "
                         f"on input {describe_input(x)}")
    if arr.ndim == 1 and arr.shape[0] == n:
        arr = arr.reshape(n, 1)
    elif not (arr.ndim == 2 and arr.shape[0] == n and arr.shape[1] >= 1):
        raise InputError(f"mechanism {name} returned shape {arr.shape} for n={n} on input "
                         f"{describe_input(x)}; expected ({n},) or ({n}, d)")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    check_finite(arr, name, x)
    return arr, n_labels


def check_finite(rows: np.ndarray, name: str, x) -> None:
    """InputError naming the mechanism and the input if some output has a non-finite entry."""
    bad = ~np.isfinite(rows)
    if bad.any():
        i = int(np.argwhere(bad)[0][0])
        raise InputError(f"mechanism {name} returned {int(bad.sum())} non-finite value(s) on input "
                         f"{describe_input(x)} (first at output {i}: {rows[i].tolist()}); outputs must be "
                         f"finite numbers or labels")


def non_finite_error(name: str, x, bad: int, n: int) -> InputError:
    """The InputError of a compiled mechanism that returned ``bad`` non-finite outputs of n."""
    return InputError(f"mechanism {name} returned {bad} non-finite value(s) among {n} outputs on input "
                      f"{describe_input(x)}; outputs must be finite numbers")


@dataclass
class CallHistory:
    """The calls on one input so far, for contract check 4: their outputs pooled (every k-th, at most
    ``contract.COMPARED_ROWS``, of ``pooled`` and the calls since it was last formed, ``pending``: one
    copy every few calls, not one a call), how many calls, how many were compared with those before
    them, and the size of the last one compared."""

    pooled: np.ndarray | None = None
    pending: list = field(default_factory=list)
    pending_rows: int = 0
    calls: int = 0
    compared: int = 0
    last_compared: int = 0

    def add(self, batch: np.ndarray) -> None:
        """Pool a call's outputs (every k-th of them)."""
        self.pending.append(contract.strided(batch))
        self.pending_rows += self.pending[-1].shape[0]
        self.calls += 1
        if self.pending_rows > PENDING_ROWS or len(self.pending) > PENDING_CALLS:
            self.pool()

    def pool(self) -> np.ndarray:
        """The pooled outputs of every call so far (every k-th, at most ``contract.COMPARED_ROWS``)."""
        if self.pending:
            parts = self.pending if self.pooled is None else [self.pooled, *self.pending]
            self.pooled, self.pending, self.pending_rows = contract.strided(np.concatenate(parts)).copy(), [], 0
        return self.pooled


class SampleSource:
    """Draws and counts outputs of one mechanism, by the compiled or the block path.

    Checks what the mechanism returns: a clear InputError naming the mechanism and the
    input when it raises, returns the wrong number of outputs or non-finite numbers, changes
    the output width between inputs, or returns only labels on one input and only numbers
    on another.  ``labels``: number -> label text of every label seen.
    """

    def __init__(self, mechanism, seed: int, eps: float | None = None, delta: float | None = None):
        if not callable(mechanism):
            raise InputError(f"mechanism must be callable as mechanism(x, n, seed) (got {mechanism!r})")
        self.mechanism = mechanism
        self.name, self.warnings = describe_mechanism(mechanism, eps, delta)
        for text in self.warnings:
            warnings.warn(text, UserWarning, stacklevel=3)
        self.component = getattr(mechanism, "component", None)
        self.seed = seed
        self.d = getattr(mechanism, "output_dim", None)
        self.drawn = 0
        self.labels: dict = {}
        self._width_from = None            # the input whose outputs fixed the width
        self._kinds: dict = {}             # id(input) -> (input, kinds of its outputs)
        self.distinct_text = ""            # how many distinct outputs a selection batch held
        self.contract_samples = 0          # outputs drawn by the sampling-contract checks
        self._contract: dict = {}          # id(input) -> (input, probe calls, their seeds, largest batch checked)
        self._calls: dict = {}             # id(input) -> (input, its CallHistory) for contract check 4
        self.bar = None                    # a progress bar that :meth:`rows` moves (selection's)

    def labels_only(self) -> bool:
        """Whether every output drawn so far was a label (no numbers)."""
        return bool(self._kinds) and all(kinds == {"labels"} for _, kinds in self._kinds.values())

    def note_distinct(self, rows: np.ndarray) -> None:
        """Record how many of a batch's outputs are distinct (for the no-power message)."""
        distinct = np.unique(rows, axis=0).shape[0] if rows.size else 0
        self.distinct_text = f"{distinct:,} distinct among {rows.shape[0]:,} outputs of one input"

    def fast_path(self, x) -> bool:
        """Whether outputs of M(x) are drawn by compiled code (numeric inputs of a component)."""
        return self.component is not None and numeric_input(x) is not None

    def call(self, x, n: int, *key: int) -> np.ndarray:
        """n outputs of the mechanism itself on x, validated, as (n, d) rows."""
        seed = stream_seed(self.seed, *key)
        repeat = f" (in the call with n={n}, seed={seed})"     # enough to repeat the failing call by hand
        try:
            out = self.mechanism(as_input(x), n, seed)
        except Exception as err:    # noqa: BLE001 - any failure of user code is reported with its input
            # a TypeError of the call itself (its traceback ends here, not inside the mechanism): the
            # mechanism's own signature is not the one the audit calls
            signature = (isinstance(err, TypeError) and err.__traceback__ is not None
                         and err.__traceback__.tb_next is None)
            hint = ("; the audit calls mechanism(x, n, seed): the input, the number of outputs to return "
                    "and a seed for its generator" if signature else "")
            raise InputError(f"mechanism {self.name} raised {type(err).__name__} on input "
                             f"{describe_input(x)}: {err}{hint or repeat}") from err
        try:
            rows, n_labels = as_rows(out, n, self.name, x, self.labels)
        except InputError as err:
            raise InputError(f"{err}{repeat}") from None
        if self.d is None:
            self.d, self._width_from = rows.shape[1], x
        elif rows.shape[1] != self.d:
            before = "" if self._width_from is None else f" on input {describe_input(self._width_from)}"
            raise InputError(f"mechanism {self.name} returned outputs of width {rows.shape[1]} on input "
                             f"{describe_input(x)} but width {self.d}{before}; the width must not change (if it "
                             f"is the release, e.g. one count per category present in the data, the width alone "
                             f"tells the inputs apart: not DP for any eps; release a fixed set of keys)")
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
            check_finite(out, self.name, x)
        else:
            out = self.call(x, n, *key)
            self._check_contract(x, out, key)
            self._compare_calls(x, out)
        self.drawn += n
        if self.bar is not None:
            self.bar.update(n)
        return out

    def _check_contract(self, x, batch: np.ndarray, key: tuple) -> None:
        """The sampling contract (:mod:`.contract`) on the first batch of each input, and again on any
        batch ``contract.RECHECK_FACTOR`` times larger than the largest checked before; the probe
        calls are drawn once per input (seeds keyed after the first batch's stream)."""
        _, probes, seeds, checked = self._contract.get(id(x), (x, None, None, 0))
        if batch.shape[0] < max(2, contract.RECHECK_FACTOR * checked):
            return
        if probes is None:
            seeds = [stream_seed(self.seed, *key, contract.PROBE_STREAM, i) for i in range(contract.PROBE_CALLS)]
            probes = [self.call(x, contract.PROBE_OUTPUTS, *key, contract.PROBE_STREAM, i)
                      for i in range(contract.PROBE_CALLS)]
            again = self.call(x, contract.PROBE_OUTPUTS, *key, contract.PROBE_STREAM, 0)    # the first's seed again
            self.contract_samples += (contract.PROBE_CALLS + 1) * contract.PROBE_OUTPUTS
            self.drawn += (contract.PROBE_CALLS + 1) * contract.PROBE_OUTPUTS
            if (not np.array_equal(again, probes[0], equal_nan=True) and not getattr(self.mechanism, "seeding", "")
                    and not any(t.startswith(contract.UNSEEDED) for t in self.warnings)):     # once per audit
                text = contract.unseeded_warning(self.name, seeds[0], x)
                self.warnings.append(text)
                warnings.warn(text, UserWarning, stacklevel=2)
        self._contract[id(x)] = (x, probes, seeds, batch.shape[0])
        contract.check_batch(batch, probes, seeds, self.name, x)

    def _compare_calls(self, x, batch: np.ndarray) -> None:
        """Check 4 of the sampling contract (:func:`.contract.check_calls`): a call on an input against the
        calls before it on that input, pooled, on the call after 1, 2, 4, 8, ... calls and on any call
        twice the size of the last one compared (a sequential audit's growing rounds)."""
        history = self._calls.setdefault(id(x), (x, CallHistory()))[1]
        if history.calls and (history.calls & (history.calls - 1) == 0 or batch.shape[0] >= 2 * history.last_compared):
            history.compared, history.last_compared = history.compared + 1, batch.shape[0]
            contract.check_calls(history.pool(), batch, history.compared, self.name, x)
        history.add(batch)

    def call_size(self, x, n: int, calls: int = 1) -> int:
        """Outputs per call when n outputs of M(x) are drawn in (at least) ``calls`` calls: CHUNK at most, one
        when there are fewer outputs than calls; CHUNK on the compiled path, which is not called."""
        return CHUNK if self.fast_path(x) else max(1, min(CHUNK, -(-n // calls)))

    def histograms(self, x, n: int, binnings: list, key: tuple, bar=None, calls: int = 1) -> list[np.ndarray]:
        """Count several statistics on the same n fresh outputs of M(x).

        ``binnings``: (statistic, edges) pairs; returns one histogram (len(edges) + 1 bins) of
        each.  On the compiled path every statistic is counted on each chunk of outputs as it is
        drawn (MAX_STATS at a time by the counting kernel; a statistic in Python on the chunk's
        rows): the outputs are drawn once, whatever the number of statistics.  ``calls``: a mechanism's
        own function is called at least this many times for them (:meth:`call_size`).
        """
        totals = [np.zeros(edges.size + 1, dtype=np.int64) for _, edges in binnings]
        if not self.fast_path(x):
            step = self.call_size(x, n, calls)
            for c, first in enumerate(range(0, n, step)):
                m = min(step, n - first)
                rows = self.rows(x, m, *key, c)
                for total, (stat, edges) in zip(totals, binnings):
                    total += histogram(stat.evaluate(rows), edges)
                if bar is not None:
                    bar.update(m)
            return totals
        xs = numeric_input(x)
        seeds = fast.block_seeds(self.seed, n, *key)
        compiled = [j for j, (stat, _) in enumerate(binnings) if stat.compiled]
        in_python = [j for j, (stat, _) in enumerate(binnings) if not stat.compiled]
        grids = [fast.bin_grid(np.ascontiguousarray(binnings[j][1], dtype=np.float64)) for j in compiled]

        def evaluate(rows):                         # the statistics in Python, on the same outputs
            check_finite(rows, self.name, x)
            for j in in_python:
                totals[j] += histogram(binnings[j][0].evaluate(rows), binnings[j][1])

        for first in range(0, seeds.size, BLOCKS_PER_CALL):
            chunk = seeds[first:first + BLOCKS_PER_CALL]
            m = min(n - first * fast.BLOCK, chunk.size * fast.BLOCK)
            hists, bad = fast.count_bins(self.component, xs, chunk, m, self.d,
                                         [(binnings[j][0].spec, binnings[j][1], g) for j, g in zip(compiled, grids)],
                                         on_rows=evaluate if in_python else None)
            if bad:
                raise non_finite_error(self.name, x, bad, m)
            for j, h in zip(compiled, hists):
                totals[j] += h
            self.drawn += m
            if bar is not None:
                bar.update(m)
        return totals
