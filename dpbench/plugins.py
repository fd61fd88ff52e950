"""Plugins: user modules that register policies and environments, imported by name.

A plugin is any module that calls :func:`dpbench.register_policy` or
:func:`dpbench.register_environment` when imported.  Plugins come from

* ``--plugin MODULE`` (repeatable, every command), a module name or a path to a ``.py`` file;
* the environment variable ``DPBENCH_PLUGINS`` (comma-separated), for every command and for
  any Python process the first time it looks up a name it does not know;
* the entry-point group ``dpbench.plugins`` of installed packages, e.g. in ``pyproject.toml``::

      [project.entry-points."dpbench.plugins"]
      myalgo = "myalgo"            # a module, or "pkg.mod:register" (called with no arguments)

The working directory is importable.  A Dask sweep sends the loaded plugins, and
the module that registered each policy and environment of a cell, with the
cell; the worker imports them (adding the folder they came from to its path
when that folder exists there) before it runs the cell, and a worker that
cannot import one fails the cell with a message naming the module.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import sys
import traceback
from pathlib import Path

from .validation import InputError

ENV_VAR = "DPBENCH_PLUGINS"
GROUP = "dpbench.plugins"
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_BUILTIN = ("dpbench", "verify")

#: module name -> the folder it was imported from (put on a worker's path), in load order
_LOADED: dict[str, str] = {}
_autoloaded = False


def load_plugins(plugins=()) -> list[str]:
    """Import ``plugins`` (module names or ``.py`` paths), then ``DPBENCH_PLUGINS`` and the
    installed ``dpbench.plugins`` entry points (once per process); return the module names
    of ``plugins``.  Raises :class:`~dpbench.InputError` with one line naming the plugin
    that cannot be imported."""
    _cwd_importable()
    names = [import_plugin(p) for p in plugins]
    autoload()
    return names


def autoload() -> None:
    """Import ``DPBENCH_PLUGINS`` and the entry points of group ``dpbench.plugins``, once."""
    global _autoloaded
    if _autoloaded:
        return
    _autoloaded = True
    _cwd_importable()
    for name in re.split(r"[,\s" + re.escape(os.pathsep) + r"]+", os.environ.get(ENV_VAR, "")):
        if name:
            import_plugin(name, source=ENV_VAR)
    for entry in importlib.metadata.entry_points(group=GROUP):
        where = f"entry point {entry.name!r} ({entry.value}) of group {GROUP}"
        try:
            loaded = entry.load()
        except Exception as err:                  # noqa: BLE001  (any failure: one clear line)
            raise InputError(f"{where} failed to import: {_located(err)}") from None
        if callable(loaded):
            loaded()
        _remember(entry.module)


def import_plugin(plugin: str, *, source: str = "--plugin") -> str:
    """Import one plugin (a module name or a path to a ``.py`` file); return its module name."""
    text = str(plugin).strip()
    if text.endswith(".py") or os.sep in text:
        path = Path(text).expanduser().resolve()
        if not path.is_file():
            raise InputError(f"{source}: no plugin file {text!r}")
        if str(path.parent) not in sys.path:
            sys.path.insert(0, str(path.parent))
        name = path.stem
    else:
        name = text
    if not _MODULE.match(name):
        raise InputError(f"{source}: {text!r} is not a module name or a .py file")
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name is not None and (name == err.name or name.startswith(err.name + ".")):
            raise InputError(f"{source}: cannot import plugin module {name!r}: no such module in the working "
                             f"directory ({os.getcwd()}) or on the Python path") from None
        raise InputError(f"{source}: plugin module {name!r} failed to import: {_located(err)}") from None
    except InputError as err:
        raise type(err)(f"{source}: plugin module {name!r}: {err}") from None
    except Exception as err:                      # noqa: BLE001  (any failure: one clear line)
        raise InputError(f"{source}: plugin module {name!r} failed to import: {_located(err)}") from None
    _remember(name)
    return name


def _remember(name: str) -> None:
    if name not in _LOADED:
        _LOADED[name] = _folder(name)


def _folder(name: str) -> str:
    """The folder on ``sys.path`` that module ``name`` was imported from ('' if unknown)."""
    file = getattr(sys.modules.get(name), "__file__", None)
    if not file:
        return ""
    path = Path(file).resolve().parent
    for _ in range(name.count(".") + (Path(file).name == "__init__.py")):
        path = path.parent
    return str(path)


def _located(err: BaseException) -> str:
    """``Type: message (file:line)`` of an exception, at its innermost frame."""
    if isinstance(err, SyntaxError):
        return f"SyntaxError: {err.msg} ({err.filename}:{err.lineno})"
    frames = traceback.extract_tb(err.__traceback__)
    where = f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(err).__name__}: {err}{where}"


def _cwd_importable() -> None:
    cwd = os.getcwd()
    if "" not in sys.path and cwd not in sys.path:
        sys.path.append(cwd)


# ------------------------------------------------------------------ Dask workers
def for_workers(specs=()) -> list[tuple[str, str]]:
    """(module, folder) pairs a worker must import: every loaded plugin and the module that
    registered each of ``specs`` (catalog specs), except dpbench's own and ``__main__``."""
    out = dict(_LOADED)
    for spec in specs:
        module = getattr(spec, "module", "") or ""
        if module and module.split(".")[0] not in _BUILTIN and module != "__main__" and module not in out:
            out[module] = _folder(module)
    return list(out.items())


def import_on_worker(plugins, host: str) -> None:
    """Import ``plugins`` ((module, folder) pairs from :func:`for_workers`) on a Dask worker."""
    for name, folder in plugins:
        if name in sys.modules:
            continue
        if folder and os.path.isdir(folder) and folder not in sys.path:
            sys.path.append(folder)
        try:
            importlib.import_module(name)
        except Exception as err:                  # noqa: BLE001  (any failure: one clear line)
            raise InputError(f"the Dask worker on {host} cannot import plugin module {name!r} "
                             f"({_located(err)}); install it on every worker, or start the workers in "
                             "the folder that holds it") from None
        _remember(name)


# ------------------------------------------------------------------ built-in plug-ins
def import_folder(package: str) -> list:
    """Import every module of ``package``'s folder (subpackages included, names beginning with
    ``_`` left out), in name order, and return them.

    The one way dpbench registers what it ships: a thing is defined and registered by a module
    of its folder (a policy, environment or mechanism by ``register_*`` at import, an audit
    statistic by its ``FEATURE``, a claim kind by ``@claim_test``, a command by
    ``register(subparsers)``, a paper by its folder's ``claims.toml``), and the folder's
    ``__init__`` calls this; adding one is adding its module, with no list to edit.  User code
    registers the same things from a module given to ``--plugin`` (:func:`load_plugins`)."""
    import pkgutil
    module = importlib.import_module(package)
    return [importlib.import_module(f"{package}.{info.name}")
            for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name)
            if not info.name.startswith("_")]


# ------------------------------------------------------------------ papers
#: entry-point group of papers outside the package: ``name = "package"``, one package per paper
#: (its claims table, experiment files, checks, bounds and report hooks; see :mod:`dpbench.papers`)
PAPERS_GROUP = "dpbench.papers"
#: the file that makes a folder of ``dpbench/papers/`` a paper
PAPER_MARK = "claims.toml"
_papers_loaded = False


def paper_packages() -> dict[str, str]:
    """``{name: package}`` of every paper, sorted by name (``{"seed000": "dpbench.papers.seed000",
    ...}``): each folder of ``dpbench/papers/`` that holds a ``claims.toml`` (found by its folder:
    adding a paper edits no metadata), then the entry points of group ``dpbench.papers`` (papers in
    packages of their own).  Imports no paper."""
    import importlib.util
    spec = importlib.util.find_spec("dpbench.papers")
    root = Path(next(iter(spec.submodule_search_locations)))
    found = {p.name: f"dpbench.papers.{p.name}" for p in sorted(root.iterdir())
             if p.is_dir() and (p / "__init__.py").is_file() and (p / PAPER_MARK).is_file()}
    for e in importlib.metadata.entry_points(group=PAPERS_GROUP):
        found.setdefault(e.name, e.module)
    return dict(sorted(found.items()))


def paper_folders() -> dict[str, Path]:
    """``{name: folder}`` of every paper (:func:`paper_packages`, read once), without importing them."""
    packages = paper_packages()
    return {name: paper_folder(name, packages) for name in packages}


def paper_folder(name: str, packages: dict[str, str] | None = None) -> Path:
    """The folder of paper ``name`` (a key of :func:`paper_packages`, or of ``packages`` when given:
    reading the entry points costs tens of ms), found without importing it."""
    import importlib.util
    packages = paper_packages() if packages is None else packages
    if name not in packages:
        raise InputError(f"unknown paper {name!r}; installed papers: {', '.join(packages)}")
    spec = importlib.util.find_spec(packages[name])
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"paper {name!r}: package {packages[name]!r} is not an importable package")
    return Path(next(iter(spec.submodule_search_locations)))


def load_papers() -> None:
    """Import every paper package once: each registers its bounds with :func:`verify.bounds.register`
    when imported.  The application does this (the command line, a report's build,
    :func:`dpbench.papers.load` from Python); verify never loads a paper."""
    global _papers_loaded
    if _papers_loaded:
        return
    _papers_loaded = True
    for name, package in paper_packages().items():
        try:
            importlib.import_module(package)
        except Exception as err:                  # noqa: BLE001  (any failure: one clear line)
            _papers_loaded = False
            raise InputError(f"paper {name!r} ({package}) failed to import: "
                             f"{_located(err)}") from None
