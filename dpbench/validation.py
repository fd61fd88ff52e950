"""Input checks shared by every public entry point.

Every public function validates its arguments here *before* anything is
compiled or run, and raises :class:`InputError` with a message that names the
parameter, the allowed values and what was given.  The CLI turns an
``InputError`` into ``dpbench: error: ...`` and exit status 2.
"""
from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np


class InputError(ValueError):
    """Bad user input: the message names the parameter and the allowed range."""


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_real(name: str, value, *, low=None, high=None, low_open=False,
               high_open=False, allow_inf=False) -> float:
    """Return ``float(value)`` if it is a real number in the stated interval.

    ``low``/``high`` of ``None`` mean unbounded on that side.  NaN is always
    refused; infinities are refused unless ``allow_inf``.
    """
    if not _is_real(value):
        try:
            if isinstance(value, (bool, str, bytes)):     # True is not 1.0, "1" is not a number
                raise TypeError
            value = float(value)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be a real number{describe_interval(low, high, low_open, high_open)} "
                             f"(got {_shown(value)})") from None
    value = float(value)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise InputError(f"{name} must be a finite real number{describe_interval(low, high, low_open, high_open)} "
                         f"(got {_shown(value)})")
    bad = ((low is not None and (value < low or (low_open and value == low)))
           or (high is not None and (value > high or (high_open and value == high))))
    if bad:
        raise InputError(f"{name} must be{describe_interval(low, high, low_open, high_open)} (got {_shown(value)})")
    return value


def _shown(value) -> str:
    """repr of the offending value, numpy scalars shown as plain numbers (1.8, not np.float64(1.8))."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def describe_interval(low, high, low_open, high_open) -> str:
    """The allowed range as a phrase for error messages and `dpbench list -v`: ' in [a, b)',
    ' > a', ' <= b', or '' when unbounded."""
    if low is None and high is None:
        return ""
    if high is None:
        return f" {'>' if low_open else '>='} {_bound(low)}"
    if low is None:
        return f" {'<' if high_open else '<='} {_bound(high)}"
    return f" in {'(' if low_open else '['}{_bound(low)}, {_bound(high)}{')' if high_open else ']'}"


def _bound(x) -> str:
    """An interval end as text: integers exactly (2^53 as 9007199254740992), reals in %g form."""
    return str(x) if isinstance(x, numbers.Integral) else f"{x:g}"


def check_int(name: str, value, *, low=None, high=None) -> int:
    """Return ``int(value)`` if it is an integer (or integral float) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float, np.floating)):
        raise InputError(f"{name} must be an integer{describe_interval(low, high, False, False)} (got {_shown(value)})")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or value != int(value):
            raise InputError(f"{name} must be an integer{describe_interval(low, high, False, False)} "
                             f"(got {_shown(value)})")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise InputError(f"{name} must be an integer{describe_interval(low, high, False, False)} (got {value})")
    return value


#: largest horizon or repetition count: counts up to 2^53 stay exact when a policy turns them
#: into float64, and fit the int64 arrays and SQLite integers of the engine and the store
MAX_COUNT = 2 ** 53


def check_count(name: str, value, *, low: int = 1) -> int:
    """A pull or repetition count (``horizon``, ``reps``): an integer in [low, MAX_COUNT]."""
    return check_int(name, value, low=low, high=MAX_COUNT)


def integer_text(text: str) -> int:
    """argparse ``type`` for counts: an integer written as ``1000000``, ``1e6`` or ``2.5e5``
    (exact, any size; the range is checked where the value is used)."""
    import decimal
    try:
        value = decimal.Decimal(text.strip().replace("_", ""))
    except decimal.InvalidOperation:
        raise ValueError(text) from None
    if not value.is_finite() or value.adjusted() > 100 or value != value.to_integral_value():
        raise ValueError(text)
    return int(value)


integer_text.__name__ = "integer"          # argparse says "invalid integer value: 'x'"


class NumberArg:
    """argparse ``type`` of a numeric command-line option (made by :func:`number_arg`): parses
    the text and checks the range; ``allowed`` says what it takes ("a real number > 0")."""

    def __init__(self, integer: bool, low, high, low_open: bool, high_open: bool):
        self.integer, self.bounds = integer, (low, high, low_open, high_open)
        interval = describe_interval(low, high, low_open and not integer, high_open and not integer)
        self.allowed = f"{'an integer' if integer else 'a real number'}{interval}"
        self.__name__ = "integer" if integer else "number"

    def __call__(self, text: str):
        import argparse
        low, high, low_open, high_open = self.bounds
        try:
            if self.integer:
                return check_int("value", integer_text(text), low=low, high=high)
            value = float(text)
            check_real("value", value, low=low, high=high, low_open=low_open, high_open=high_open)
            return value
        except ValueError:                   # InputError is one
            allowed = self.allowed
            if not self.integer and not math.isfinite(_float_or_zero(text)):
                allowed = "a finite " + allowed.removeprefix("a ")          # "inf" is a real number to float()
            raise argparse.ArgumentTypeError(f"must be {allowed} (got {text!r})") from None


def _float_or_zero(text: str) -> float:
    """float(text), or 0.0 where it is not a number."""
    try:
        return float(text)
    except ValueError:
        return 0.0


def number_arg(*, integer: bool = False, low=None, high=None, low_open: bool = False,
               high_open: bool = False) -> NumberArg:
    """argparse ``type`` of a numeric command-line option: parses the text (an integer as
    :func:`integer_text` reads it) and checks the range, so that the error of every numeric
    option states the allowed range, whichever parser meets the bad value first:
    ``argument --eps: must be a real number > 0 (got 'two')``."""
    return NumberArg(integer, low, high, low_open, high_open)


def check_eps(value, name: str = "eps") -> float:
    """A privacy level: a finite real number > 0."""
    return check_real(name, value, low=0.0, low_open=True)


def check_delta(value, name: str = "delta", *, allow_zero: bool = True) -> float:
    """A privacy slack: in [0, 1) (or (0, 1) when the algorithm needs delta > 0)."""
    return check_real(name, value, low=0.0, high=1.0, low_open=not allow_zero, high_open=True)


def check_choice(name: str, value, choices: Iterable[str]) -> str:
    choices = list(choices)
    if value not in choices:
        raise unknown_name(name, value, choices)
    return value


def closest_names(value, allowed: Iterable[str], n: int = 3) -> list[str]:
    """The allowed names closest to a misspelt ``value`` (case ignored): every name it begins
    (``seed000_fig1`` -> ``seed000_fig1a`` ... ``seed000_fig1f``), else difflib's best matches
    (ratio >= 0.7, 0.6 for a name of at most four letters: a shared word such as 'Mechanism'
    alone is no match) within 0.05 of the best, at most ``n``, else the names that begin it
    (``epsilon`` -> ``eps``), also with one typo there (``espilon`` -> ``eps``: two letters
    swapped, one changed, missing or extra)."""
    import difflib
    allowed = sorted(str(a) for a in allowed)
    text = str(value).lower()
    begun = [a for a in allowed if a.lower().startswith(text)] if len(text) >= 3 else []
    if begun:
        return begun
    scored = sorted(((difflib.SequenceMatcher(None, text, a.lower()).ratio(), a) for a in allowed),
                    key=lambda pair: -pair[0])
    best = scored[0][0] if scored else 0.0
    cut = 0.6 if len(text) <= 4 else 0.7              # a short name: one letter off ('epz' for 'eps') is 0.67
    close = [a for ratio, a in scored[:n] if ratio >= cut and ratio >= best - 0.05]
    return (close or [a for a in allowed if len(a) >= 3 and text.startswith(a.lower())][-n:]    # 'epsilon': eps
            or [a for a in allowed if len(a) >= 3 and len(text) > len(a)
                and _typos(text[:len(a)], a.lower()) <= 1][-n:])                               # 'espilon': eps


def _typos(a: str, b: str) -> int:
    """Optimal-string-alignment distance: edits (a letter inserted, deleted or changed, or two
    neighbours swapped) from ``a`` to ``b``."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def _either(names: list[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def unknown_name(what: str, value, allowed: Iterable[str], *, where: str = "", kind: str = "values",
                 hint: str = "") -> InputError:
    """The error for an unknown name: ``unknown policy 'ldp_ucb_bb'; did you mean ldp_ucb_b?
    allowed values: ...`` (``where`` follows the name as "for WHERE"; ``hint`` ends the line)."""
    allowed = sorted(str(a) for a in allowed)
    close = closest_names(value, allowed) if isinstance(value, str) else []
    guess = f"did you mean {_either(close)}? " if close else ""
    return InputError(f"unknown {what} {_shown(value)}{f' for {where}' if where else ''}; {guess}allowed "
                      f"{kind}: {', '.join(allowed) or 'none'}" + (f" {hint}" if hint else ""))


def check_vector(name: str, values, *, low=None, high=None, min_len: int = 1,
                 allow_inf: bool = False) -> np.ndarray:
    """A 1-d array of finite reals, each within [low, high]."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a list of real numbers (got {values!r})") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size < min_len:
        raise InputError(f"{name} must be a list of at least {min_len} real number(s) (got shape {arr.shape})")
    if np.isnan(arr).any() or (not allow_inf and np.isinf(arr).any()):
        raise InputError(f"{name} must contain only finite numbers (got {values!r})")
    if low is not None and (arr < low).any() or high is not None and (arr > high).any():
        bad = arr[((arr < low) if low is not None else False) | ((arr > high) if high is not None else False)]
        raise InputError(f"{name} must lie in [{low:g}, {high:g}] (got {_shown(bad[0])})"
                         if low is not None and high is not None else
                         f"{name} out of range (got {_shown(bad[0])})")
    return arr


def make_output_dir(name: str, path) -> Path:
    """Create the output directory ``path`` (with its parents) or raise InputError naming ``name``
    and the reason (a file in the way, no permission, a read-only disk)."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"{name}: cannot create directory {str(path)!r} ({err.strerror or err})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"{name}: directory {str(path)!r} is not writable")
    return path


def parse_float_list(name: str, text: str | Sequence) -> list[float]:
    """Parse ``"0.9,0.8,0.7"`` (CLI form) or pass through a sequence."""
    if isinstance(text, str):
        try:
            return [float(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise InputError(f"{name} must be a comma-separated list of numbers (got {text!r})") from None
    return list(text)
