"""The test kinds a claims table may name (``test = "ordering"``), registered with
:func:`claim_test` (the kinds themselves: :mod:`.kinds`)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .comparisons import Outcome
from .model import Claim


@dataclass(frozen=True)
class ClaimTest:
    name: str
    function: Callable[..., Outcome]        # fn(claim, evidence) -> Outcome
    keys: tuple[str, ...]                  # required
    optional: tuple[str, ...]
    quantity: Callable[[Claim], str]
    expected: Callable[[Claim], str]
    method: Callable[[Claim], str]
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)   # key -> its allowed values


TESTS: dict[str, ClaimTest] = {}


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
