"""pytest plugin of dpbench/verify (registered through the ``pytest11`` entry point).

Provides the ``assert_dp`` fixture and the ``dp`` marker that sets its defaults::

    import dpbench, pytest

    @pytest.mark.dp(eps=1.0)                       # the claim (and any audit keyword)
    def test_ctb_is_private(assert_dp):
        assert_dp(dpbench.sampler("ctb", eps=1.0))  # silent pass, or a readable failure

    def test_without_marker(assert_dp):
        assert_dp(my_mechanism, 0.0, 1.0, eps=0.5, delta=1e-6)

    @pytest.mark.dp(eps=1.0, law_only=True)        # the law only: not its floating point
    def test_law_of_a_float_sampler(assert_dp):
        assert_dp(dpbench.sampler("ctl", eps=1.0))

Signatures:

* the fixture ``assert_dp(mechanism, x=None, x_prime=None, *, eps, delta=0.0, alpha=1e-6,
  n=None, seed=0, law_only=False, **audit_kwargs)`` is :func:`verify.assert_dp` (the order of
  :func:`verify.audit`: the mechanism, then the input pair, then the claim by keyword), with the
  marker's keywords as defaults; keywords of the call win;
* the marker ``@pytest.mark.dp(eps, delta=0.0, **keywords)``: the claim (``eps`` is required,
  positionally or by keyword) and any keyword of ``assert_dp`` or the audit (``x``, ``x_prime``,
  ``n``, ``alpha``, ``law_only``, ``budget``, ...).

``assert_dp`` uses alpha = 1e-6 by default, so a correct mechanism fails with probability at
most 1e-6; it fails on either layer of the audit (the law, the floating point) unless
``law_only=True``, and when the audit has no power to test the claim.  Bad input (a marker
without eps, an unknown keyword, a mechanism that ignores its seed) is reported in one line, as
the CLI reports it.  In a checkout that is not pip-installed, enable the plugin with
``-p verify.pytest_plugin`` (or ``pytest_plugins`` in the root conftest).
"""
from __future__ import annotations

import functools

import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "dp(eps, delta=0.0, **keywords): the privacy claim (eps required) and keywords of assert_dp "
                   "or the audit, the defaults of the assert_dp fixture")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """A test marked ``@pytest.mark.dp`` that does not take the ``assert_dp`` fixture audits nothing by
    the marker: warned, naming the test (it passed silently, the claim never audited).  Last, so that
    tests deselected by ``-k`` or ``-m`` are not warned about."""
    for item in items:
        if item.get_closest_marker("dp") is not None and "assert_dp" not in getattr(item, "fixturenames", ()):
            item.warn(pytest.PytestWarning(
                f"{item.name} is marked dp but does not take the assert_dp fixture: the marker's claim is not "
                f"audited; add assert_dp to its arguments and call it on the mechanism"))


def _is_input_error(exc) -> bool:
    """``dpbench.InputError`` (bad input to dpbench), told by its class without importing dpbench."""
    return any(c.__name__ == "InputError" and c.__module__ == "dpbench.validation" for c in type(exc).__mro__)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that fails on bad input to dpbench (``dpbench.InputError``: the message names the
    parameter and its allowed range) is reported in one line, at the test's own line (the line that
    raised it, or for a marker's unknown keyword, found at setup, the first line of the test's
    definition: its first decorator, the marker's line when it is the only one), without
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
    if lines:                                  # the test's line that raised (the assert_dp call)
        where = f"{path.name}:{lines[-1]}"
    elif path is not None and item.location[1] is not None:
        where = f"{path.name}:{item.location[1] + 1}"  # at setup (the marker's keywords): the test's first line
    else:
        where = item.nodeid
    report.longrepr = f"{where}: dpbench.InputError: {call.excinfo.value}"


def _check_keywords(given, where: str) -> None:
    """Keywords of the marker or the call that neither ``assert_dp`` nor the audit takes are
    named (with the closest one) instead of surfacing as a missing ``eps`` or a TypeError."""
    import inspect

    from dpbench.validation import InputError, closest_names
    from verify.audit import assert_dp as _assert_dp
    from verify.audit import audit
    allowed = ({name for f in (_assert_dp, audit) for name in inspect.signature(f).parameters}
               - {"mechanism", "kwargs", "extra"})
    for key in given:
        if key not in allowed:
            near = closest_names(key, allowed, 1)
            raise InputError(f"{where}: unknown keyword {key!r}" + (f"; did you mean {near[0]}?" if near else
                                                                     f"; allowed: {', '.join(sorted(allowed))}"))


@pytest.fixture
def assert_dp(request):
    """``verify.assert_dp`` with the defaults of the test's ``@pytest.mark.dp(...)``."""
    from dpbench.validation import InputError
    from verify.audit import assert_dp as _assert_dp
    from verify.audit import libraries
    marker = request.node.get_closest_marker("dp")
    defaults = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        defaults.setdefault("eps", marker.args[0])
        if len(marker.args) > 1:
            defaults.setdefault("delta", marker.args[1])

    if marker and len(marker.args) > 2:
        raise InputError(f"@pytest.mark.dp takes eps and delta positionally, then keywords (got {len(marker.args)} "
                         f"positional values)")
    _check_keywords(defaults, "@pytest.mark.dp")

    @functools.wraps(_assert_dp)
    def check(mechanism, *args, **kwargs):
        merged = {**defaults, **kwargs}
        for name in ("x", "x_prime")[:len(args)]:            # the call's pair wins over the marker's
            if name not in kwargs:
                merged.pop(name, None)
        _check_keywords(kwargs, "assert_dp")
        if len(args) > 2:
            raise InputError(f"assert_dp takes the input pair positionally (mechanism, x, x_prime), the claim by "
                             f"keyword (eps=..., delta=...) (got {len(args)} positional values after the mechanism)")
        if "eps" not in merged and libraries.as_library(mechanism) is None:    # an object carries its claim
            if marker:
                raise InputError("@pytest.mark.dp needs eps, the claim: @pytest.mark.dp(eps=1.0) (or dp(1.0, "
                                 "delta=1e-6)); only a DP library's object carries its own")
            raise InputError("assert_dp needs eps, the claim: assert_dp(mechanism, x, x_prime, eps=1.0) or "
                             "@pytest.mark.dp(eps=1.0)")
        __tracebackhide__ = True
        return _assert_dp(mechanism, *args, **merged)
    return check
