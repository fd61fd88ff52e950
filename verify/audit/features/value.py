"""The value of the output, or of each of its coordinates (law): thresholds and intervals.

The candidate events are every interval of quantile bins (tails included) and its
complement, in both directions (StatDP tries half-lines only).
"""
from __future__ import annotations

from ..fast import VALUE, make_spec
from ..layers import LAW
from .base import Feature, FitData, Statistic, interval


class Value(Feature):
    name = "value"
    layer = LAW
    help = "the output's value (each coordinate of a vector): thresholds, intervals and their complements"
    fix = ("the noise is too small for the sensitivity of the released value: calibrate its scale to the "
           "sensitivity, and bound that sensitivity (clip each record) if the inputs are unbounded")
    order = 20

    def statistics(self, data: FitData) -> list[Statistic]:
        return [value_statistic(j, data.d) for j in range(data.d)]

    def describe(self, stat: Statistic, edges, bins, labels: dict) -> str:
        return interval("output" if stat.name == "value" else f"output[{stat.spec.column}]", edges, bins)


def value_statistic(column: int, d: int) -> Statistic:
    """The value of coordinate ``column`` of d-dimensional outputs (the output itself when d = 1)."""
    return Statistic(FEATURE, "value" if d == 1 else f"column {column}", make_spec(VALUE, column=column))


FEATURE = Value()
