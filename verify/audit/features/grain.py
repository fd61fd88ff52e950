"""Floating-point granularity (floating point): the binade and trailing zero mantissa bits of outputs.

``x + noise`` computed in floating point is rounded to the grid of its binade, so the set of
outputs it can produce, and their granularity, depend on x (Mironov, CCS'12), whatever the
sampler; no exact-arithmetic mechanism has that.  The statistics:

* ``granularity`` (of ``output[j]``, one statistic per coordinate of a vector): the granularity
  classes (sign, exponent and number of trailing zero mantissa bits) of floating-point outputs,
  ranked by their likelihood ratio *given the binade* (the magnitude is the law's business);
  atoms (values that repeat: the law's) keep their exact value.  One bin per class, and the
  binade (or the atom) of each, so that the certification can test that the classes, not the
  magnitudes or the atoms, tell the inputs apart.
"""
from __future__ import annotations

import math

import numpy as np

from ..layers import FLOATING_POINT
from . import ranked
from .base import LISTED, Feature, FitData, Statistic, binade_text, number

#: rows per input looked at to decide whether the outputs are floating-point numbers
PROBE = 200_000


def fractional(rows: np.ndarray) -> bool:
    """Whether the outputs are floating-point numbers rather than integers or labels: a fraction, or
    a negative zero (whole numbers computed in floating point, whose sign of zero may tell x)."""
    sample = rows[:PROBE]
    return bool(np.any(sample != np.floor(sample)) or np.any((sample == 0) & np.signbit(sample)))


def grain_exponent(v: float) -> int:
    """p with v an odd multiple of 2^p (v finite, non-zero)."""
    mantissa, exponent = math.frexp(abs(v))                     # |v| = m 2^e, m in [0.5, 1)
    bits = int(np.float64(v).view(np.uint64)) & ((1 << 52) - 1)
    zeros = 52 if bits == 0 else (bits & -bits).bit_length() - 1
    return exponent - 1 - 52 + zeros


def grain_text(v: float, var: str = "output") -> str:
    """The granularity class of one float: "|output| in [0.25, 0.5), negative, an odd multiple of 2^-54"."""
    if v == 0.0:
        return f"{var} == -0.0 (a negative zero)" if math.copysign(1.0, v) < 0 else f"{var} == 0"
    e = math.frexp(abs(v))[1] - 1
    if abs(v) == 2.0 ** e:
        return f"{var} == {'-' if v < 0 else ''}2^{e}"
    return f"{binade_text(v).replace('output', var)}, an odd multiple of 2^{grain_exponent(v)}"


def grain_summary(values: np.ndarray, var: str = "output") -> str:
    """Many granularity classes (one example value each) in a few words: how many, the binades
    and the granularities."""
    k = values.size
    nonzero = values[values != 0]
    if nonzero.size == 0:
        return f"{var} == 0"
    lo, hi = ranked.exponent_range(nonzero)
    grains = [grain_exponent(float(v)) for v in nonzero]
    sign = ("negative" if np.all(nonzero < 0) else "positive" if np.all(nonzero > 0) else "either sign")
    return (f"one of {k:,} granularity classes: |{var}| in [{2.0 ** lo:.6g}, {2.0 ** (hi + 1):.6g}), {sign}, "
            f"odd multiples of 2^{min(grains)} to 2^{max(grains)}")


class Granularity(Feature):
    name = "grain"
    layer = FLOATING_POINT
    help = ("floating-point granularity: the binade and trailing zero mantissa bits of outputs, "
            "which reveal x in x + noise computed in floating point")
    fix = ("the low bits of the output reveal the input (x + noise rounded in floating point); fix: noise and "
           "input on a lattice (round both to multiples of 2^-k before adding) or a float-safe sampler")
    order = 40
    #: the sign of zero computed from x (``(x - c) * 0.0`` is -0.0 for x < c): the whole numbers' leak
    signed_zero_fix = ("the sign of a zero output reveals the input (-0.0 on one input, 0.0 on the other: a zero "
                       "computed from x in floating point); fix: add 0.0 to each output (-0.0 + 0.0 is 0.0)")

    def fix_for(self, event) -> str:
        """The signed-zero fix when every class of the event is a negative zero (in some coordinate)."""
        rows = ranked.member_rows(event)
        column = event.statistic.info.get("column", -1)
        rows = rows if column < 0 else rows[:, [column]]
        negative_zero = ((rows == 0) & np.signbit(rows)).any(axis=1)
        return self.signed_zero_fix if rows.shape[0] and negative_zero.all() else self.fix

    def statistics(self, data: FitData) -> list[Statistic]:
        rows1, rows2 = data.rows_x, data.rows_x_prime
        if not fractional(rows1):
            return []
        columns = [-1] if data.d == 1 else range(data.d)
        out = [ranked.ranked_statistic(self, rows1, rows2, mode="grain", column=j,
                                       name="granularity" if j < 0 else f"granularity of output[{j}]")
               for j in columns]
        return [stat for stat in out if stat is not None]

    def edges(self, stat: Statistic, s1, s2) -> np.ndarray:
        return ranked.rank_edges(stat)

    def describe(self, stat: Statistic, edges, bins, labels: dict) -> str:
        return describe_classes(stat, edges, bins, grain_text, grain_summary, labels)


def describe_classes(stat: Statistic, edges, bins, text, summary, labels: dict | None = None) -> str:
    """A union of ranked floating-point classes (of one entry, or of every entry): named (a few,
    joined by "or"), or summarised; an atom by its value (a label by its text)."""
    info = stat.info
    column = info.get("column", -1)
    examples = info["examples"] if column < 0 else info["examples"][:, [column]]
    var = "output" if column < 0 else f"output[{column}]"
    atoms = info.get("specials")
    inside, other = ranked.members(stat, edges, bins)
    outside = np.setdiff1d(np.arange(examples.shape[0]), inside)

    def one(v):
        if v == 0.0 and math.copysign(1.0, v) < 0:
            return grain_text(v, var)                          # an atom whose sign is the floating point's
        return f"{var} == {number(v, labels)}" if atoms is not None and np.any(atoms == v) else text(v, var)

    def entry(row):
        return one(row[0]) if row.size == 1 else "(" + "; ".join(one(v) for v in row) + ")"

    def named(idx):
        if idx.size <= LISTED:
            return " or ".join(entry(examples[r]) for r in idx)
        if examples.shape[1] > 1:
            return f"one of {idx.size:,} patterns of the {examples.shape[1]} coordinates"
        return summary(examples[idx, 0], var)

    if other and outside.size and outside.size < inside.size + 1:
        return f"not ({named(outside)})"
    if inside.size == 0:
        return "a class not seen at selection" if other else "never"
    return named(inside) + (" or a class not seen at selection" if other else "")


FEATURE = Granularity()
