"""The run-time estimate and guard of every run, from the measured throughput table.

Every entry point calls :func:`guard` after validating its input and before anything compiles:
:func:`dpbench.simulate`, :func:`dpbench.experiments.run_experiment` (experiments and sweeps)
and so every command.  Above ANNOUNCE_SECONDS the estimate is announced (a
:class:`LongRunWarning`; the command line prints it as one line); above REFUSE_SECONDS the run is
refused with :class:`~dpbench.validation.InputError` unless the caller opts in (``--yes`` on the
command line, ``allow_long=True`` in Python).

The table (``throughput.json``, written by :mod:`.throughput`) holds each policy's pulls per
CPU second on one compiled thread.  The estimate of a run is
``sum(reps x horizon x max(1, K / K_ref) / rate) / threads``: one pull's cost grows at most
linearly in the arm count K (an index policy scans every arm per decision), so scaling by
K / K_ref and never below 1 can only lengthen it.  Phased algorithms (successive and phased
elimination) decide once per batch, so their rate grows with T and the rate at 1e6 also errs on
the long side.  A policy with no measured rate (a plugin, or one added since the table was made)
gets the slowest rate of the table, for the same reason: a measured table rather than a
per-family guess, because the rates of one family differ by 10x (GDP-Elim-New versus
DP-FTPL-New), and an estimate that can only be too long never lets a day-long run start
unannounced.
"""
from __future__ import annotations

import functools
import json
import math
import sys
import types
import warnings
from pathlib import Path

from ..validation import InputError

RATES_FILE = Path(__file__).with_name("throughput.json")
#: an estimate above this is announced before the run starts
ANNOUNCE_SECONDS = 10 * 60
#: an estimate above this is refused unless the caller opts in (``--yes``, ``allow_long=True``)
REFUSE_SECONDS = 24 * 3600


@functools.lru_cache(maxsize=1)
def _read() -> dict:
    return json.loads(RATES_FILE.read_text()) if RATES_FILE.exists() else {"rates": {}}


def seconds_per_pull(policy: str, arms: int) -> float:
    """Estimated single-thread seconds per pull of ``policy`` with ``arms`` arms (see the module
    docstring; the slowest measured rate for an unmeasured policy)."""
    rates = _read()["rates"]
    row = rates.get(policy) or min(rates.values(), key=lambda r: r["pulls_per_second"], default=None)
    if row is None:
        return 0.0
    return max(1.0, arms / row["arms"]) / row["pulls_per_second"]


def estimate_seconds(work, threads: int) -> float:
    """Estimated wall time of ``work``, an iterable of (policy, arms, horizon, reps), on
    ``threads`` threads (repetitions run in parallel, at most one thread each)."""
    total, reps_total = 0.0, 0
    for policy, arms, horizon, reps in work:
        total += reps * horizon * seconds_per_pull(policy, arms)
        reps_total += reps
    return total / max(1, min(threads, reps_total))


def describe_seconds(seconds: float) -> str:
    """'4.59 d', '3.3 h', '12 min', '40 s'."""
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            value = seconds / size
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:,.0f} {unit}"
    return f"{seconds:.3g} s"


class LongRunWarning(UserWarning):
    """A run estimated at more than ANNOUNCE_SECONDS (the command line prints it as one line)."""


def check_duration(seconds: float, *, threads: int, allow_long: bool = False, what: str = "") -> None:
    """The guard of every run: refuse an estimate above REFUSE_SECONDS with :class:`InputError`
    unless ``allow_long`` (the CLI's ``--yes``); announce one above ANNOUNCE_SECONDS with a
    :class:`LongRunWarning` (pointing at the caller's line outside dpbench).  ``what``: what is
    estimated, when more than one run ("the build of report seed002")."""
    if not math.isfinite(seconds) or seconds <= ANNOUNCE_SECONDS:
        return
    text = (f"estimated run time{f' of {what}' if what else ''} {describe_seconds(seconds)} on {threads} "
            "thread(s), from the measured "
            f"pulls per second of each policy ({RATES_FILE.name})")
    refuse_beyond_a_day(seconds, text, "lower the horizon or the repetitions", allow_long=allow_long)
    warnings.warn(text, LongRunWarning, stacklevel=_outside_dpbench())


def refuse_beyond_a_day(seconds: float, estimate: str, remedy: str, *, allow_long: bool = False) -> None:
    """Raise :class:`InputError` when ``seconds`` (an estimate, described by ``estimate``) exceeds
    REFUSE_SECONDS and the caller has not opted in; ``remedy`` says how to shorten the run.  The
    one refusal of every long run (simulations here, audits in ``verify.audit.engine``)."""
    if seconds > REFUSE_SECONDS and not allow_long:
        raise InputError(f"{estimate}: more than a day; {remedy}, or opt in to run it anyway "
                         "(--yes; in Python allow_long=True)")


def guard(work, threads: int, *, allow_long: bool = False, serial_seconds: float = 0.0, what: str = "") -> float:
    """Estimate ``work`` (an iterable of (policy, arms, horizon, reps), see :func:`estimate_seconds`)
    plus ``serial_seconds`` of single-threaded work, and apply :func:`check_duration`; return the
    estimate.  ``simulate``, ``run_experiment`` (experiments and sweeps) and so every command call
    it after validating their input and before anything compiles."""
    seconds = estimate_seconds(work, threads) + serial_seconds
    check_duration(seconds, threads=threads, allow_long=allow_long, what=what)
    return seconds


def _outside_dpbench() -> int:
    """The ``stacklevel`` of the first caller outside the dpbench package."""
    frame: types.FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "dpbench":
        frame, level = frame.f_back, level + 1
    return level
