"""The value of the output, or of each of its coordinates (law): thresholds and intervals.

The candidate events are every interval of quantile bins (tails included) and its
complement, in both directions (StatDP tries half-lines only).
"""
from __future__ import annotations

import numpy as np

from ..fast import VALUE, make_spec
from ..layers import LAW
from .base import Feature, FitData, Statistic, interval, label_entries


class Value(Feature):
    name = "value"
    layer = LAW
    help = "the output's value (each coordinate of a vector): thresholds, intervals and their complements"
    fix = ("the noise is too small for the sensitivity of the released value: calibrate its scale to the "
           "sensitivity, and bound that sensitivity (clip each record) if the inputs are unbounded")
    order = 20

    def statistics(self, data: FitData) -> list[Statistic]:
        """One statistic per coordinate that holds numbers: a coordinate of labels has no value
        (categories read it), and labels among numbers (a "bottom" symbol) are in no bin."""
        labels = label_entries(data.rows_x).any(axis=0) | label_entries(data.rows_x_prime).any(axis=0)
        numbers = ~(label_entries(data.rows_x).all(axis=0) & label_entries(data.rows_x_prime).all(axis=0))
        return [value_statistic(j, data.d) if not labels[j] else numbers_only(j, data.d)
                for j in range(data.d) if numbers[j]]

    def describe(self, stat: Statistic, edges, bins, labels: dict) -> str:
        column = stat.spec.column if stat.spec is not None else stat.info["column"]
        return interval("output" if stat.name == "value" else f"output[{column}]", edges, bins)


def value_statistic(column: int, d: int) -> Statistic:
    """The value of coordinate ``column`` of d-dimensional outputs (the output itself when d = 1)."""
    return Statistic(FEATURE, "value" if d == 1 else f"column {column}", make_spec(VALUE, column=column))


def numbers_only(column: int, d: int) -> Statistic:
    """The value of coordinate ``column`` where it holds a number; NaN (no bin) where it holds a label."""
    def value(rows):
        v = rows[:, column]
        return np.where(label_entries(v), np.nan, v)
    stat = value_statistic(column, d)
    stat.spec, stat.func = None, value
    stat.info["column"] = column
    return stat


FEATURE = Value()
