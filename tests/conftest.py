"""Shared test configuration.

Default run: ``python -m pytest`` (excludes the ``slow`` and ``benchmark`` markers).
Slow statistical runs: ``python -m pytest -m slow``.
Benchmarks: ``python -m pytest -m benchmark --benchmark-only``.
"""
import pytest

from dpbench import papers

papers.load()          # every paper's bounds registered, as the command line and the reports do


def pytest_collection_modifyitems(config, items):
    # any test using the pytest-benchmark fixture is a benchmark, marked or not
    for item in items:
        if "benchmark" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("benchmark"):
            item.add_marker(pytest.mark.benchmark)


def pytest_configure(config):
    # benchmarks are deselected by the default -m expression; keep pytest-benchmark quiet then
    if "benchmark" not in (config.getoption("markexpr") or "") or "not benchmark" in config.getoption("markexpr"):
        if hasattr(config.option, "benchmark_disable"):
            config.option.benchmark_disable = True
