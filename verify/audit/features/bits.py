"""Low mantissa bits (floating point, on request): sign, exponent and the low K bits of every entry.

``bitsK`` (e.g. ``bits8``, the default K) keeps the sign, the exponent and the K lowest
mantissa bits of each entry and ranks the resulting classes by their likelihood ratio given
the binade: a finer probe of the same artefacts as the granularity, for samplers whose low bits
depend on the input in other ways (a float sum, a table lookup).
"""
from __future__ import annotations

import numpy as np

from ..layers import FLOATING_POINT
from . import ranked
from .base import Feature, FitData, Statistic, binade_text
from .grain import Granularity, describe_classes, fractional

#: K of a plain "bits"
DEFAULT_BITS = 8


def bits_text(k: int):
    def text(v: float, var: str = "output") -> str:
        low = int(np.float64(v).view(np.uint64)) & ((1 << k) - 1)
        return f"{binade_text(v).replace('output', var)}, low {k} mantissa bits {low:0{k}b}"
    return text


def bits_summary(k: int):
    def summary(values: np.ndarray, var: str = "output") -> str:
        lo, hi = ranked.exponent_range(values)
        return (f"one of {values.size:,} classes of the low {k} mantissa bits, |{var}| in "
                f"[{2.0 ** lo:.6g}, {2.0 ** (hi + 1):.6g})")
    return summary


class LowBits(Feature):
    name = "bits"
    layer = FLOATING_POINT
    help = "bitsK: the sign, exponent and K lowest mantissa bits of outputs (default K = 8; on request only)"
    fix = Granularity.fix
    default = False
    order = 45

    def accepts(self, token: str) -> dict | None:
        if not token.startswith("bits"):
            return None
        digits = token[4:]
        if digits and not (digits.isdigit() and 1 <= int(digits) <= 52):
            return None
        return {"k": int(digits) if digits else DEFAULT_BITS}

    def statistics(self, data: FitData) -> list[Statistic]:
        if not fractional(data.rows_x):
            return []
        k = data.options.get("k", DEFAULT_BITS)
        stat = ranked.ranked_statistic(self, data.rows_x, data.rows_x_prime, name=f"bits (low {k} mantissa bits)",
                                       mode="bits", low_bits=k)
        return [] if stat is None else [stat]

    def edges(self, stat: Statistic, s1, s2) -> np.ndarray:
        return ranked.rank_edges(stat)

    def describe(self, stat: Statistic, edges, bins, labels: dict) -> str:
        k = stat.info["low_bits"]
        return describe_classes(stat, edges, bins, bits_text(k), bits_summary(k), labels)


FEATURE = LowBits()

