"""Ctrl-C held over the steps that must not stop halfway (:mod:`dpbench.engine.interrupts`).

An interrupt that landed between starting the compiled loop's thread and waiting for it left the
loop running while Python exited: the process aborted ("terminate called without an active
exception", status -6) instead of saying what it kept (seen in CI, in
tests/test_store_faults.py's random signals; 4 of 100 random Ctrl-Cs here, and 2 more inside
matplotlib's import, the other step held).
"""
import signal
import threading

import numpy as np
import pytest

from dpbench.engine import simulate
from dpbench.engine.interrupts import ctrl_c_held


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raising KeyboardInterrupt, as in a shell (a pytest-xdist worker may ignore it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_is_held_over_the_block_and_delivered_at_its_end(ctrl_c_raises):
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_held():
            signal.raise_signal(signal.SIGINT)
            reached.append("after the signal")           # the block runs to its end
        reached.append("after the block")                # never: delivered as the block ends
    assert reached == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with ctrl_c_held():                                  # no signal: nothing raised
        pass


def test_a_held_ctrl_c_goes_to_the_handler_that_was_there(ctrl_c_raises):
    seen = []
    signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    with ctrl_c_held():
        signal.raise_signal(signal.SIGINT)
        assert seen == []
    assert seen == [signal.SIGINT]


def test_ctrl_c_while_the_loop_starts_waits_for_the_loop(ctrl_c_raises, monkeypatch):
    """Ctrl-C delivered while the loop is handed to the loop thread (the window that aborted the
    process when each loop had a thread of its own): the caller still stops the loop and waits
    for it, so no compiled loop outlives the KeyboardInterrupt."""
    plan = simulate.prepare("ucb1", "bernoulli", 2_000_000_000, 1, means=[0.9, 0.8])
    simulate.compile_plan(plan)
    jobs = simulate._loop_jobs()

    class InterruptedAtStart:
        def put(self, job):
            jobs.put(job)
            signal.raise_signal(signal.SIGINT)

    class Watched:                                       # the kernel, noting when a loop returns
        def __init__(self):
            self.returned = []

        def compile_for(self, *args, **kwargs):
            return kernel.compile_for(*args, **kwargs)

        def __call__(self, *args, **kwargs):
            kernel(*args, **kwargs)
            self.returned.append(True)

    kernel = simulate.simulate_kernel
    watched = Watched()
    monkeypatch.setattr(simulate, "_loop_jobs", InterruptedAtStart)
    monkeypatch.setattr(simulate, "simulate_kernel", watched)
    with pytest.raises(KeyboardInterrupt) as stop:
        simulate._run_chunk(plan, 0, 1, False)           # T = 2e9: minutes, unless stopped
    assert watched.returned == [True]                    # the loop had returned when the caller went on
    assert not np.asarray(stop.value.finished).any()     # the repetition stopped, unfinished
    idle = threading.Event()                             # the loop thread is free again at once
    jobs.put(idle.set)
    assert idle.wait(5.0)
    assert [t.name for t in threading.enumerate()].count("dpbench-loop") == 1


def test_one_loop_thread_serves_every_call():
    """The loop runs in one thread for the life of the process: a thread per call also started a
    new OpenMP team per call, 0.5-3 ms each, more than a short loop itself."""
    plan = simulate.prepare("ucb1", "bernoulli", 100, 1, means=[0.9, 0.8])
    first = simulate.run_plan(plan, 8, threads=2)
    jobs = simulate._loop_jobs()
    again = simulate.run_plan(plan, 8, threads=2)
    assert simulate._loop_jobs() is jobs
    assert [t.name for t in threading.enumerate()].count("dpbench-loop") == 1
    assert np.array_equal(first.regret, again.regret)
