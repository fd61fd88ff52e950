"""Public names of a package imported on first use (PEP 562), for ``verify`` and ``verify.audit``.

The pytest plugin imports ``verify`` in every pytest run of an environment with dpbench installed;
importing the modules behind the public names brings numba, scipy and statsmodels (about 1.9 s), so
they are imported when a name is first used.
"""
from __future__ import annotations

import importlib


def lazy_names(namespace: dict, public: dict[str, str]):
    """(``__getattr__``, ``__dir__``) of the package whose globals are ``namespace``: each name of
    ``public`` (name -> module, relative to the package) is imported on first use and kept there."""
    package = namespace["__name__"]

    def __getattr__(name: str):
        if name not in public:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(public[name], package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
