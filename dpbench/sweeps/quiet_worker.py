"""Dask preload of the worker processes of an embedded LocalCluster: ignore SIGINT.

Ctrl-C in a terminal reaches every process of its group, so each worker of ``--scheduler local``
printed its own KeyboardInterrupt traceback (about 60 lines for 2 workers) under the client's one
line "interrupted: ... rerun the same command to resume".  The client handles the interrupt and
closes the cluster, which stops the workers; they need not react to it themselves.
"""
import signal


def dask_setup(_):
    """Called by Dask when the worker starts (in the worker process; its nanny lives in the client's)."""
    import threading
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
