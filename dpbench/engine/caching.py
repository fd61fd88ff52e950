"""``cached_njit``: ``numba.njit(cache=True)`` whose cache knows about other files.

numba invalidates a function's on-disk cache only when the file that
*defines* it changes.  A dpbench kernel inlines code from many files (the
engine loop inlines every policy, mechanism and environment), so editing a
component would silently reuse a stale compiled kernel.  ``cached_njit``
folds a hash of every source file of ``dpbench`` and ``verify`` that contains
compiled code (any file mentioning numba, ``cached_njit`` or ``@implements``,
i.e. compiled functions and engine components) into the cache's source stamp:
any such edit recompiles, nothing else does.

Rule for contributors: a constant read by compiled code must live in such a
file, so that it is part of the hash.
"""
from __future__ import annotations

import functools
import hashlib
import os
import warnings
from pathlib import Path

import numba

_ROOTS = (Path(__file__).resolve().parents[1], Path(__file__).resolve().parents[2] / "verify")


@functools.lru_cache(maxsize=1)
def compiled_sources_hash() -> str:
    """sha256 over the compiled-code source files of dpbench and verify."""
    digest = hashlib.sha256()
    for root in _ROOTS:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.py")):
            data = path.read_bytes()
            if b"numba" in data or b"cached_njit" in data or b"@implements" in data:
                digest.update(str(path.relative_to(root.parent)).encode())
                digest.update(data)
    return digest.hexdigest()


def _fold_stamp(dispatcher):
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    if cache_file is None or not hasattr(cache_file, "_source_stamp"):
        if os.environ.get("NUMBA_DISABLE_JIT", "0") in ("0", ""):
            warnings.warn("numba cache internals changed: dpbench cannot guard against stale "
                          "cached kernels; delete __pycache__ after editing dpbench sources",
                          RuntimeWarning, stacklevel=3)
        return dispatcher
    cache_file._source_stamp = (cache_file._source_stamp, compiled_sources_hash())
    return dispatcher


def cached_njit(*args, **options):
    """Like ``numba.njit(cache=True, ...)``, with the package-wide cache stamp."""
    options.setdefault("cache", True)
    if args and callable(args[0]):
        return _fold_stamp(numba.njit(**options)(args[0]))

    def decorate(func):
        return _fold_stamp(numba.njit(**options)(func))
    return decorate
