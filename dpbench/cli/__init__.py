"""The ``dpbench`` command line.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a
callable ``func(args) -> int`` (the exit status), and ``ORDER``, its place in
``dpbench --help``; every module of the folder is imported
(:func:`dpbench.plugins.import_folder`), so a new command is a new module.  Bad input raises
:class:`dpbench.InputError`; :func:`main` prints it as ``dpbench: error: ...``
and exits with status 2, without a traceback.

Every subcommand takes ``--plugin MODULE`` (repeatable): user modules that
register policies or environments, imported before the command runs, with
``DPBENCH_PLUGINS`` and installed entry points (:mod:`dpbench.plugins`).

A paper adds commands of its own the same way: a module ``cli.py`` in its package
(``dpbench/papers/seed002/cli.py`` adds ``dpbench feasibility``) with
``register(subparsers)``; :func:`paper_commands` finds it in every installed paper
(:func:`dpbench.plugins.paper_packages`) and lists its commands after dpbench's own.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import warnings

from ..validation import InputError, closest_names

#: the module of a paper's package that adds commands of its own (``register(subparsers)``)
PAPER_COMMANDS = "cli"


class _Parser(argparse.ArgumentParser):
    _given: list = []
    commands: dict = {}                 # the top-level parser's: command name -> its parser

    def parse_known_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)    # for error(): what was typed
        return super().parse_known_args(args, namespace)

    def error(self, message):           # argparse usage errors: status 2, one line, no traceback
        # a command's unknown option is reported by the top-level parser: point to the command's help
        command = next((t for t in self._given if t in self.commands), None)
        text = f"{self._explain(message)} (see `{self.prog}{f' {command}' if command else ''} --help`)"
        if "--json" in self._given:     # and as JSON on stdout, as other refusals (main)
            print(refusal_json(text))
        self.exit(2, f"dpbench: error: {text}\n")

    def _explain(self, message: str) -> str:
        """argparse's message with the closest name of a misspelt command, and a misspelt option
        named (argparse reports the required options it then misses, not the typo)."""
        choice = re.match(r"argument .*: invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if choice:
            near = closest_names(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)), 2)
            return message + (f"; did you mean {' or '.join(near)}?" if near else "")
        unknown = [t.split("=")[0] for t in self._given
                   if t.startswith("--") and t.split("=")[0] not in self._option_string_actions]
        if unknown and "required" in message:
            near = closest_names(unknown[0], [o for o in self._option_string_actions if o.startswith("--")], 1)
            return (f"unrecognized option {unknown[0]}" + (f" (did you mean {near[0]}?)" if near else "")
                    + f"; {message}")
        return message


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dpbench", description="Benchmark and verify differentially private bandits.")
    from ..version import __version__
    parser.add_argument("--version", action="version", version=f"dpbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    from ..plugins import import_folder
    for module in sorted((m for m in import_folder(__name__) if hasattr(m, "register")), key=lambda m: m.ORDER):
        module.register(sub)
    paper_commands(sub)
    parser.commands = dict(sub.choices)
    for command in sub.choices.values():
        command.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                             help="import a module (name or .py file) that registers policies or "
                                  "environments; repeatable; also DPBENCH_PLUGINS=a,b (the working "
                                  "directory is importable)")
    return parser


def paper_commands(sub) -> list[str]:
    """Add the commands of every installed paper whose package has a ``cli`` module (its
    ``register(subparsers)``), found without importing the papers that have none; returns the
    modules used."""
    from ..plugins import paper_folder, paper_packages
    used = []
    packages = paper_packages()
    for name, package in packages.items():
        if (paper_folder(name, packages) / f"{PAPER_COMMANDS}.py").is_file():
            module = importlib.import_module(f"{package}.{PAPER_COMMANDS}")
            module.register(sub)
            used.append(module.__name__)
    return used


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(join_dashed_values(sys.argv[1:] if argv is None else list(argv)))
    except SystemExit as stop:          # a usage error (printed in one line) is bad input like any other:
        if stop.code == 2:              # status 2, returned; --help and --version still exit
            return 2
        raise
    try:
        from ..plugins import load_plugins
        with warnings.catch_warnings():
            _announce_long_runs()
            load_plugins(args.plugin)
            return int(args.func(args) or 0)
    except InputError as err:
        print(f"dpbench: error: {err}", file=sys.stderr)
        if getattr(args, "json", False):   # a script reading the JSON gets the refusal as JSON too
            print(refusal_json(str(err)))
        return 2
    except KeyboardInterrupt:
        print("dpbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:             # output piped into head, less, ...: stop quietly
        sys.stderr = open(os.devnull, "w")
        return 0


def refusal_json(message: str) -> str:
    """A refusal (status 2) as the JSON a command run with ``--json`` prints on stdout."""
    import json
    return json.dumps({"status": "error", "error": message, "exit_status": 2})


def join_dashed_values(argv: list[str]) -> list[str]:
    """``--opt -5s`` as ``--opt=-5s``: argparse reads a value that starts with a dash and a digit but is not a
    plain number ("-5s", "-1,2") as an option, and says "expected one argument" instead of the option's range."""
    out: list[str] = []
    for token in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and re.match(r"-\d", token):
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def _announce_long_runs() -> None:
    """Inside ``warnings.catch_warnings()``: a run's time estimate (``LongRunWarning``) is printed
    on stderr as one ``dpbench: ...`` line, every time; other warnings as one ``dpbench: warning:
    ...`` line (with their category unless a plain UserWarning)."""
    from ..engine.guard import LongRunWarning
    show = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, LongRunWarning):
            print(f"dpbench: {message}", file=sys.stderr)
        elif file is None:      # one line, without the file and code line of dpbench's source it was raised in
            kind = "" if category is UserWarning else f" ({category.__name__})"
            print(f"dpbench: warning: {' '.join(str(message).split())}{kind}", file=sys.stderr)
        else:
            show(message, category, filename, lineno, file, line)
    warnings.showwarning = showwarning
    warnings.simplefilter("always", LongRunWarning)


if __name__ == "__main__":
    sys.exit(main())
