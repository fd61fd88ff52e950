"""The table behind ``@implements``: (verb name, component class) -> the Python function
registered for it.

It sits below :mod:`.stamps` (a user component's fingerprint includes its registered
functions), :mod:`.caching` (whose index is keyed on that fingerprint) and
:mod:`.components` (``@implements`` fills it, ``implementation`` reads it).
"""
from __future__ import annotations

#: (verb name, component class) -> registered Python function; filled by ``@implements``
IMPLEMENTATIONS: dict[tuple[str, type], object] = {}
#: the same table by class: component class -> {verb name: function} (read on every checked call)
_BY_CLASS: dict[type, dict[str, object]] = {}


def register(verb: str, cls: type, func) -> None:
    """Record ``func`` as ``verb`` of component class ``cls`` (``@implements`` calls it)."""
    IMPLEMENTATIONS[(verb, cls)] = func
    _BY_CLASS.setdefault(cls, {})[verb] = func


def implementations(cls) -> dict:
    """verb name -> registered function of component class ``cls`` (defaults not included)."""
    return dict(_BY_CLASS.get(cls, {}))
