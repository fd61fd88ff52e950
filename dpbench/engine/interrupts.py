"""Ctrl-C held for the few steps that must not stop halfway.

Python raises :class:`KeyboardInterrupt` between any two bytecodes of the main thread.  Two steps
break if it lands inside them:

- handing a compiled loop to the thread that runs it (:func:`dpbench.engine.simulate._call_stoppable`):
  an interrupt after the loop starts but before the caller waits for it leaves the loop running
  while Python exits, and the process aborts ("terminate called without an active exception",
  status -6) instead of saying what it kept;
- importing a C extension such as matplotlib's ``ft2font``, which turns an interrupt during its
  initialisation into ``ImportError: initialization failed`` and then crashes at exit.

:func:`ctrl_c_held` defers Ctrl-C over such a step and delivers it right after, to whatever
handler was installed before.
"""
from __future__ import annotations

import contextlib
import signal
import threading


@contextlib.contextmanager
def ctrl_c_held():
    """Run the block with Ctrl-C (SIGINT) held; one that came meanwhile is delivered at its end.

    Outside the main thread (where Python runs no signal handler) and where SIGINT's handler was
    not installed from Python, the block runs as it is.
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        yield
        return
    came: list = []
    signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if came:
            signal.raise_signal(signal.SIGINT)      # the previous handler's, as if it came now
