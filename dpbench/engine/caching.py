"""``cached_njit``: ``numba.njit(cache=True)`` whose cache knows about other files.

numba invalidates a function's on-disk cache only when the file that
*defines* it changes.  A dpbench kernel inlines code from many files (the
engine loop inlines every policy, mechanism and environment), so editing a
component would silently reuse a stale compiled kernel.  ``cached_njit``
folds a hash (:func:`.stamps.compiled_sources_hash`) of every source file of ``dpbench`` and ``verify`` that contains
compiled code (any file that imports numba, uses ``cached_njit`` or registers
engine components with ``@implements``) into the cache's source stamp: any such
edit recompiles, nothing else does (a docstring that merely names numba does not
count, so unrelated edits do not force recompiles).  An index that cannot even be
read back (it names a class that was renamed) counts as a miss, not an error.

Rule for contributors: a constant read by compiled code must live in such a
file, so that it is part of the hash.

A kernel compiled for *user* components (classes defined outside dpbench and
verify, see :mod:`.stamps`) is kept out of the package's index: each set of
user component classes gets its own index file
(``<function>.u<hash of their names>.nbi``) whose stamp also holds their code
fingerprint.  Editing a user's component recompiles its kernel, and a process
that cannot import a user's module (another working directory) never reads
that index, so the kernels of the built-in components stay cached.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import warnings

import numba

from .stamps import classes_in_signature, classes_stamp, compiled_sources_hash, qualified_name, user_classes


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
    # a cache file implies a cache
    cache._cache_file = _IndexPerUserComponents(cache_file)  # type: ignore[union-attr]
    return dispatcher


class _IndexPerUserComponents:
    """numba's index and data files of one function, split by the user component classes
    in each signature (numba calls ``load(key)``/``save(key, data)``; ``key[0]`` is the
    signature)."""

    def __init__(self, package_file):
        self.package_file = package_file
        self._files: dict = {}

    def load(self, key):
        return self._file(key[0]).load(key)

    def save(self, key, data):
        return self._file(key[0]).save(key, data)

    def flush(self):
        self.package_file.flush()

    def __getattr__(self, name):                 # anything else numba may ask of its file
        return getattr(self.package_file, name)

    def _file(self, sig):
        from numba.core.caching import IndexDataCacheFile
        classes = user_classes(classes_in_signature(sig))
        if not classes:
            return self.package_file
        stamp = classes_stamp(classes)
        names = ",".join(qualified_name(c) for c in classes)
        key = (names, stamp)
        if key not in self._files:
            main = self.package_file
            base = main._index_name[:-len(".nbi")] + ".u" + hashlib.sha256(names.encode()).hexdigest()[:12]
            user_file = IndexDataCacheFile(main._cache_path, base, (main._source_stamp, stamp))
            user_file._load_index = _tolerant(user_file._load_index)  # type: ignore[method-assign]
            self._files[key] = user_file
        return self._files[key]


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
