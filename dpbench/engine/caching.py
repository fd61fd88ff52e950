"""``cached_njit``: ``numba.njit(cache=True)`` whose cache knows about other files.

numba invalidates a function's on-disk cache only when the file that
*defines* it changes.  A dpbench kernel inlines code from many files (the
engine loop inlines every policy, mechanism and environment), so editing a
component would silently reuse a stale compiled kernel.  ``cached_njit``
folds a hash of every source file of ``dpbench`` and ``verify`` that contains
compiled code (any file that imports numba, uses ``cached_njit`` or registers
engine components with ``@implements``) into the cache's source stamp: any such
edit recompiles, nothing else does (a docstring that merely names numba does not
count, so unrelated edits do not force recompiles).  An index that cannot even be
read back (it names a class that was renamed) counts as a miss, not an error.

Rule for contributors: a constant read by compiled code must live in such a
file, so that it is part of the hash.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import warnings
from pathlib import Path

import numba

_ROOTS = (Path(__file__).resolve().parents[1], Path(__file__).resolve().parents[2] / "verify")
_MARKERS = (b"import numba", b"from numba", b"cached_njit", b"@implements")


@functools.lru_cache(maxsize=1)
def compiled_sources_hash() -> str:
    """sha256 over the compiled-code source files of dpbench and verify."""
    digest = hashlib.sha256()
    for root in _ROOTS:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.py")):
            data = path.read_bytes()
            if any(marker in data for marker in _MARKERS):
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
    cache_file._load_index = _tolerant(cache_file._load_index)
    return dispatcher


def _tolerant(load_index):
    """numba unpickles a cache index before comparing its stamp, so an index that names a
    component class which no longer exists (renamed by an upgrade or an edit) raises
    instead of counting as stale: treat it as empty (a miss), and it is rewritten."""
    @functools.wraps(load_index)
    def load():
        try:
            return load_index()
        except (AttributeError, ImportError, EOFError, pickle.UnpicklingError, TypeError, ValueError):
            return {}
    return load


def cached_njit(*args, **options):
    """Like ``numba.njit(cache=True, ...)``, with the package-wide cache stamp."""
    options.setdefault("cache", True)
    if args and callable(args[0]):
        return _fold_stamp(numba.njit(**options)(args[0]))

    def decorate(func):
        return _fold_stamp(numba.njit(**options)(func))
    return decorate
