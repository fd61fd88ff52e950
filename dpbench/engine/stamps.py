"""Code stamps: which code a run's compiled kernel and stored results depend on.

Built-in code (classes and functions of ``dpbench`` and ``verify``) is covered by
:func:`compiled_sources_hash`, a hash of every compiled
source file.  A *user* component -- a component class defined anywhere else --
is fingerprinted from the code loaded in this process: its fields, the
functions registered for it, and, recursively, every function, numba
dispatcher, ``NamedTuple`` class, user module and module-level constant those
functions name (numba freezes globals into the compiled code).  The same goes
for a user's ``build`` functions (of policies, environments and mechanisms).  Bytecode, constants and names are hashed,
not files, so the stamp describes the code that actually runs even if a file
was edited on disk after it was imported; line numbers are not hashed.

Used by the compiled-kernel cache (:mod:`.caching`: a kernel for user
components lives in its own cache index, stamped with their fingerprint) and
by the result store (a cell's ``code_stamp``, :func:`plan_stamp`).
"""
from __future__ import annotations

import functools
import hashlib
import site
import sys
import sysconfig
import types
from pathlib import Path

import numpy as np

from .registry import implementations

_BUILTIN = ("dpbench", "verify")
_LIBRARIES = set(sys.stdlib_module_names) | {"numpy", "numba", "llvmlite", "scipy", "builtins"}


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


def _install_dirs() -> tuple[str, ...]:
    paths = set(site.getsitepackages()) | {site.getusersitepackages()}
    paths |= {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(str(Path(p).resolve()) for p in paths if p)


_INSTALLED = _install_dirs()


def _top(module_name) -> str:
    return (module_name or "").split(".")[0]


def is_builtin(obj) -> bool:
    """True for classes and functions of dpbench and verify (covered by the package hash)."""
    return _top(getattr(obj, "__module__", "")) in _BUILTIN


def user_classes(classes) -> list[type]:
    """The component classes among ``classes`` that are not dpbench's or verify's, by name."""
    found = {c for c in classes if isinstance(c, type) and not is_builtin(c)}
    return sorted(found, key=qualified_name)


def qualified_name(obj) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}"


def classes_in_signature(sig) -> list[type]:
    """Component classes named by numba argument types (NamedTuple types carry their class)."""
    out, stack = [], list(sig)
    while stack:
        t = stack.pop()
        cls = getattr(t, "instance_class", None)
        if cls is not None:
            out.append(cls)
        elif hasattr(t, "types") and isinstance(t.types, tuple):
            stack.extend(t.types)
    return out


# ------------------------------------------------------------------ fingerprints
class _Fingerprint:
    """sha256 over the user code reachable from some roots (see the module docstring)."""

    def __init__(self, roots):
        self.digest = hashlib.sha256()
        self.seen: dict[int, object] = {}      # id -> object (kept alive so ids are not reused)
        self.user_tops = {_top(getattr(r, "__module__", "")) for r in roots} - {"", *_BUILTIN}
        for root in roots:
            self.visit(root)

    def add(self, *parts):
        for part in parts:
            self.digest.update(str(part).encode())
            self.digest.update(b"\x00")

    def is_user_module(self, name: str, file) -> bool:
        top = _top(name)
        if top in _BUILTIN or top in _LIBRARIES:
            return False
        if top in self.user_tops or name == "__main__" or not file:
            return True
        return not str(Path(file).resolve()).startswith(_INSTALLED)

    def is_user(self, obj) -> bool:
        name = getattr(obj, "__module__", None)
        if not isinstance(name, str):
            return False
        module = sys.modules.get(name)
        return self.is_user_module(name, getattr(module, "__file__", None))

    def visit(self, obj):
        if isinstance(obj, (bool, int, float, complex, str, bytes, type(None), np.generic)):
            self.add(type(obj).__name__, repr(obj))
            return
        if id(obj) in self.seen:
            self.add("seen", qualified_name(obj))
            return
        self.seen[id(obj)] = obj
        if isinstance(obj, np.ndarray):
            self.add("ndarray", obj.dtype, obj.shape, hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest())
        elif isinstance(obj, (tuple, list)) and not hasattr(obj, "_fields"):
            self.add(type(obj).__name__, len(obj))
            for item in obj:
                self.visit(item)
        elif hasattr(obj, "py_func") and hasattr(obj, "targetoptions"):     # a numba dispatcher
            self.add("dispatcher", sorted((k, repr(v)) for k, v in obj.targetoptions.items()))
            self.visit(obj.py_func)
        elif isinstance(obj, types.ModuleType):
            self.module(obj)
        elif not self.is_user(obj):
            self.add("library", qualified_name(obj))       # library code: its name only
        elif isinstance(obj, types.FunctionType):
            self.function(obj)
        elif isinstance(obj, type):
            self.component_class(obj)
        elif hasattr(obj, "_fields"):                    # a NamedTuple instance used as a constant
            self.add("instance", qualified_name(type(obj)))
            self.visit(type(obj))
            self.visit(tuple(obj))
        else:
            self.add("object", qualified_name(type(obj)))

    def function(self, func):
        self.add("function", qualified_name(func))
        names = self.code(func.__code__)
        self.visit(func.__defaults__ or ())
        self.visit(tuple(sorted((func.__kwdefaults__ or {}).items())))
        for cell in func.__closure__ or ():
            try:
                self.visit(cell.cell_contents)
            except ValueError:                            # an empty cell
                self.add("empty cell")
        for name in sorted(names):
            if name in func.__globals__:
                self.add("global", name)
                self.visit(func.__globals__[name])

    def code(self, code) -> set:
        """Hash a code object (not its line numbers); return every name it uses."""
        self.add(code.co_code.hex(), code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                 code.co_argcount, code.co_kwonlyargcount, code.co_flags)
        names = set(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= self.code(const)
            elif isinstance(const, frozenset):
                self.add("frozenset", sorted(repr(c) for c in const))
            else:
                self.add(type(const).__name__, repr(const))
        return names

    def component_class(self, cls):
        self.add("class", qualified_name(cls), getattr(cls, "_fields", ()),
                 sorted((k, repr(v)) for k, v in getattr(cls, "__annotations__", {}).items()))
        self.visit(tuple(sorted(getattr(cls, "_field_defaults", {}).items())))
        for verb, func in sorted(implementations(cls).items()):
            self.add("verb", verb)
            self.visit(func)
        for name, value in sorted(vars(cls).items()):
            if isinstance(value, (types.FunctionType, staticmethod, classmethod, property)):
                self.add("member", name)
                self.visit(getattr(value, "__func__", getattr(value, "fget", value)))

    def module(self, module):
        name = module.__name__
        if not self.is_user_module(name, getattr(module, "__file__", None)):
            self.add("library module", name)
            return
        self.add("module", name)
        for key, value in sorted(vars(module).items()):
            if key.startswith("__"):
                continue
            if isinstance(value, (bool, int, float, complex, str, bytes, np.ndarray, np.generic)) or \
                    getattr(value, "__module__", None) == name:
                self.add("attribute", key)
                self.visit(value)


def fingerprint(*roots) -> str:
    """sha256 hex digest of the user code reachable from ``roots`` (classes, functions)."""
    return _Fingerprint(roots).digest.hexdigest()


def classes_stamp(classes) -> str:
    """The fingerprint of the user classes among ``classes`` ('' if there are none)."""
    user = user_classes(classes)
    return fingerprint(*user) if user else ""


def plan_stamp(plan) -> str:
    """16-hex stamp of the code that computes ``plan``: the package hash, plus the fingerprint of
    every user component and user ``build`` in it (policy, environment and a ``mechanism=``).
    A plan of built-in parts only has the
    package stamp (so stores written before user stamps existed stay valid)."""
    package = compiled_sources_hash()
    parts = [type(plan.built.policy), type(plan.built.mechanism), type(plan.instance.env)]
    roots = user_classes(parts)
    composition = getattr(plan, "composition", None)
    for spec in (plan.spec, getattr(plan, "env_spec", None), getattr(composition, "spec", None)):
        build = getattr(spec, "build", None)
        if build is not None and not is_builtin(build):
            roots.append(build)
    if not roots:
        return package[:16]
    return hashlib.sha256(f"{package}|{fingerprint(*roots)}".encode()).hexdigest()[:16]
