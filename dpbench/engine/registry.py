"""The table behind ``@implements``: for each component class, the Python function registered
for each verb.

It sits below :mod:`.stamps` (a user component's fingerprint includes its registered
functions), :mod:`.caching` (whose index is keyed on that fingerprint) and
:mod:`.components` (``@implements`` fills it, ``implementation`` reads it).
"""
from __future__ import annotations

#: component class -> {verb name: registered Python function}; filled by ``@implements``
IMPLEMENTATIONS: dict[type, dict[str, object]] = {}


def register(verb: str, cls: type, func) -> None:
    """Record ``func`` as ``verb`` of component class ``cls`` (``@implements`` calls it)."""
    IMPLEMENTATIONS.setdefault(cls, {})[verb] = func


def registered_function(verb: str, cls: type):
    """The function registered as ``verb`` of ``cls``, or None (defaults not included)."""
    return IMPLEMENTATIONS.get(cls, {}).get(verb)


def implementations(cls) -> dict:
    """verb name -> registered function of component class ``cls`` (defaults not included)."""
    return dict(IMPLEMENTATIONS.get(cls, {}))
