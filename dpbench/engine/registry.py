"""The table behind ``@implements``: (verb name, component class) -> the Python function
registered for it.

It sits below :mod:`.stamps` (a user component's fingerprint includes its registered
functions), :mod:`.caching` (whose index is keyed on that fingerprint) and
:mod:`.components` (``@implements`` fills it, ``implementation`` reads it).
"""
from __future__ import annotations

#: (verb name, component class) -> registered Python function; filled by ``@implements``
IMPLEMENTATIONS: dict[tuple[str, type], object] = {}


def implementations(cls) -> dict:
    """verb name -> registered function of component class ``cls`` (defaults not included)."""
    return {verb: func for (verb, c), func in IMPLEMENTATIONS.items() if c is cls}
