"""Categories and atoms (law): discrete outputs, labels, flags and values released with positive mass.

* ``category``: the exact output rows of a discrete mechanism (labels, bits, counts, action
  sequences), ranked by their likelihood ratio;
* ``pattern``: the same after merging every entry that is not an *atom* (a value repeating
  among the fit outputs: a flag, a bottom symbol, a value a continuous mechanism releases with
  positive probability), for continuous or vector outputs that carry atoms.
"""
from __future__ import annotations

import numpy as np

from ..layers import LAW
from . import ranked
from .base import Feature, FitData, Statistic, label_entries, number


class Category(Feature):
    name = "category"
    layer = LAW
    help = "discrete outputs and atoms: each label, count or repeated value is an event of its own"
    fix = ("an output (or a set of outputs) is far more likely on one input: if it should never occur, "
           "remove it; otherwise more randomisation (or a larger delta)")
    #: a released number (a count, a rounded value): the same bug as a float's (``value``'s fix), read by category
    number_fix = ("a released value (or a set of them) is far more likely on one input: the noise is too small "
                  "for the sensitivity of the released value (calibrate its scale to the sensitivity, and bound "
                  "that sensitivity, clipping each record, if the inputs are unbounded), or a value that should "
                  "never occur on one input is released (remove it)")
    order = 10

    def fix_for(self, event) -> str:
        """The number fix when the event is a set of single numbers (no labels), the general one otherwise."""
        rows = ranked.member_rows(event)
        single_numbers = rows.shape[0] > 0 and rows.shape[1] == 1 and not label_entries(rows).any()
        return self.number_fix if single_numbers else self.fix

    def statistics(self, data: FitData) -> list[Statistic]:
        rows1, rows2 = data.rows_x, data.rows_x_prime
        out = []
        cat = ranked.ranked_statistic(self, rows1, rows2, name="category", mode="exact")
        if cat is not None:
            out.append(cat)
        if cat is None or data.d > 1:
            specials = ranked.find_specials(rows1, rows2)
            if specials.size:
                pattern = ranked.ranked_statistic(self, rows1, rows2, name="pattern", mode="pattern",
                                                  specials=specials)
                if pattern is not None:
                    out.append(pattern)
        return out

    def edges(self, stat: Statistic, s1, s2):
        """One bin per ranked category (events: intervals of the likelihood-ratio ranking)."""
        return ranked.rank_edges(stat)

    def describe(self, stat: Statistic, edges, bins, labels: dict) -> str:
        info = stat.info
        examples = info["examples"]
        if info["mode"] == "pattern" and examples.shape[1] == 1:
            # one entry: every output is an atom or "any other value" (both seen at fit)
            atoms = info["specials"]

            def entry(row):
                if np.any(atoms == row[0]):
                    return number(row[0], labels)
                listed = ", ".join(number(a, labels) for a in atoms[:3])
                return f"a value other than {{{listed}{', ...' if atoms.size > 3 else ''}}}"
            return ranked.describe(stat, edges, bins, what="output", entry=entry, unseen=False,
                                   summary=lambda rows: _summary(rows, labels))

        def entry(row):
            if info["mode"] == "pattern":
                parts = [number(v, labels) if np.any(info["specials"] == v) else "*" for v in row]
            else:
                parts = [number(v, labels) for v in row]
            return parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"
        return ranked.describe(stat, edges, bins, what="output", entry=entry,
                               summary=lambda rows: _summary(rows, labels))


def _summary(rows: np.ndarray, labels: dict) -> str:
    """Many categories in a few words: how many, and their range or a few of them."""
    if rows.shape[1] == 1:
        values = rows[:, 0]
        named = [v for v in values if v in labels]
        if named:
            shown = ", ".join(labels[v] for v in named[:3])
            return f"{{{ranked.count_text(len(values), 'outputs')}, e.g. {shown}}}"
        return f"{{{ranked.count_text(len(values), 'values')} in {ranked.value_range(values)}}}"
    return f"{{{ranked.count_text(rows.shape[0], 'output vectors')}}}"


FEATURE = Category()
