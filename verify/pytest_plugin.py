"""pytest plugin of dpbench/verify (registered through the ``pytest11`` entry point).

Provides the ``assert_dp`` fixture and the ``dp`` marker that sets its defaults::

    import dpbench, pytest

    @pytest.mark.dp(eps=1.0)                       # the claim (and any audit keyword)
    def test_ctb_is_private(assert_dp):
        assert_dp(dpbench.sampler("ctb", eps=1.0))  # silent pass, or a readable failure

    def test_without_marker(assert_dp):
        assert_dp(my_mechanism, eps=0.5, delta=1e-6, x=0.0, x_prime=1.0)

    @pytest.mark.dp(eps=1.0, law_only=True)        # the law only: not its floating point
    def test_law_of_a_float_sampler(assert_dp):
        assert_dp(dpbench.sampler("ctl", eps=1.0))

The fixture is :func:`verify.assert_dp` (alpha = 1e-6 by default, so a correct
mechanism fails with probability at most 1e-6): it fails on either layer of the audit
(the law, the floating point) unless ``law_only=True``.  The marker's keywords are its
defaults; keywords of the call win.  In a checkout that is not pip-installed,
enable the plugin with ``-p verify.pytest_plugin`` (or ``pytest_plugins`` in the
root conftest).
"""
from __future__ import annotations

import functools

import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "dp(eps, delta=0, **audit_kwargs): privacy claim (and audit keywords) used as defaults "
                   "by the assert_dp fixture")


def _is_input_error(exc) -> bool:
    """``dpbench.InputError`` (bad input to dpbench), told by its class without importing dpbench."""
    return any(c.__name__ == "InputError" and c.__module__ == "dpbench.validation" for c in type(exc).__mro__)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that fails on bad input to dpbench (``dpbench.InputError``: the message names the
    parameter and its allowed range) is reported in one line, at the test's own line, without
    dpbench's traceback, as the CLI reports it.  ``--tb=long`` (or any style but the default
    and ``short``) keeps the full traceback."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or report.passed or not _is_input_error(call.excinfo.value):
        return
    if item.config.getoption("tbstyle", "auto") not in ("auto", "short"):
        return
    path = getattr(item, "path", None)
    lines = [entry.lineno + 1 for entry in call.excinfo.traceback if path is not None and entry.path == path]
    where = f"{path.name}:{lines[-1]}" if lines else item.nodeid
    report.longrepr = f"{where}: dpbench.InputError: {call.excinfo.value}"


def _check_keywords(given, where: str) -> None:
    """Keywords of the marker or the call that neither ``assert_dp`` nor the audit takes are
    named (with the closest one) instead of surfacing as a missing ``eps`` or a TypeError."""
    import inspect

    from dpbench.validation import InputError, closest_names
    from verify.audit import assert_dp as _assert_dp
    from verify.audit import audit
    allowed = {name for f in (_assert_dp, audit) for name in inspect.signature(f).parameters} - {"mechanism", "kwargs"}
    for key in given:
        if key not in allowed:
            near = closest_names(key, allowed, 1)
            raise InputError(f"{where}: unknown keyword {key!r}" + (f"; did you mean {near[0]}?" if near else
                                                                     f"; allowed: {', '.join(sorted(allowed))}"))


@pytest.fixture
def assert_dp(request):
    """``verify.assert_dp`` with the defaults of the test's ``@pytest.mark.dp(...)``."""
    from verify.audit import assert_dp as _assert_dp
    from verify.audit import libraries
    marker = request.node.get_closest_marker("dp")
    defaults = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        defaults.setdefault("eps", marker.args[0])
        if len(marker.args) > 1:
            defaults.setdefault("delta", marker.args[1])

    _check_keywords(defaults, "@pytest.mark.dp")

    @functools.wraps(_assert_dp)
    def check(mechanism, *args, **kwargs):
        merged = {**defaults, **kwargs}
        _check_keywords(kwargs, "assert_dp")
        if "eps" not in merged and not args and libraries.as_library(mechanism) is None:   # an object carries its claim
            raise TypeError("assert_dp needs eps (as an argument or in @pytest.mark.dp(eps=...))")
        __tracebackhide__ = True
        return _assert_dp(mechanism, *args, **merged)
    return check
