"""What a claim is: a row of a paper's claims table, decided under every reading of what the
paper leaves open.

A paper often leaves open something a reproduction must choose: the horizon of a figure, a
baseline it does not spell out and its constants, how instances are drawn, a variant, the
constants' mode.  Each such choice is declared once per paper (``[[choice]]`` in its
``paper.toml``) with its named *readings*, each plausible or pruned with the reason; a claim names
the choices it depends on and what each reading changes in it (``[claim.readings.CHOICE]``).  The
claim is then decided under every combination of its choices' plausible readings
(:meth:`Claim.under`), and its row's verdict combines theirs (:func:`.rule.combine`).
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum

from ...validation import InputError

#: family-wise error rate of a family of comparisons (a claim group: a figure, a theorem)
DEFAULT_ALPHA = 0.01
#: a law claim (the claim is the null hypothesis) is reproduced only if its test would reject a
#: departure of the stated size with at least this probability at the family's level
POWER = 0.9
#: level of the learning-phase diagnostic: a run whose regret is not below uniform play's at this
#: level (one-sided, over its repetitions) is still (near) round-robin and cannot rank its policy
LEARNING_LEVEL = 0.01
#: a run whose mean regret is at least this share of uniform play's is saturated: it says how
#: long the horizon is, not how its regret scales (left out of every exponent fit)
SATURATION_SHARE = 0.5
#: more repetitions than this are "out of reach" in a row's cause
MAX_REPS = 10 ** 6
#: the name of the one reading of a claim whose paper leaves nothing open
AS_STATED = "as stated"


class Verdict(str, Enum):  # noqa: UP042  (StrEnum would change str() of the members)
    REPRODUCED = "reproduced"
    CONTRADICTED = "contradicted"
    DEPENDS = "depends on the reading"
    CONSISTENT = "consistent (cannot fail)"
    INCONCLUSIVE = "inconclusive"
    UNOBSERVABLE = "unobservable at this horizon"
    NOT_CHECKED = "not checked"


#: the row categories a claims table may give (``category``), in the order reports show them
CATEGORIES = {"paper": "claims of the paper", "spec": "spec checks", "erratum": "errata",
              "ambiguity": "ambiguity-register entries", "control": "negative controls"}


class NotChecked(Exception):
    """Raised by a test that cannot run (missing experiment, too few repetitions...)."""


@dataclass(frozen=True)
class Reading:
    """One way of reading what a paper leaves open (``[[choice.reading]]``): ``plausible`` readings
    decide the claims that depend on the choice; a pruned one is listed with ``why``."""
    choice: str
    id: str
    text: str
    why: str = ""
    plausible: bool = True


@dataclass(frozen=True)
class Choice:
    """Something the paper leaves open that a reproduction must choose (``[[choice]]`` of
    ``paper.toml``): the question, where the ambiguity is recorded, and its readings."""
    id: str
    question: str
    source: str
    readings: tuple[Reading, ...]

    @property
    def plausible(self) -> tuple[Reading, ...]:
        return tuple(r for r in self.readings if r.plausible)

    @property
    def pruned(self) -> tuple[Reading, ...]:
        return tuple(r for r in self.readings if not r.plausible)

    def reading(self, rid: str) -> Reading:
        for r in self.readings:
            if r.id == rid:
                return r
        raise KeyError(rid)


@dataclass(frozen=True)
class Claim:
    """One row of a claims table.  ``readings``: choice -> reading id -> the claim's keys that
    reading overrides; ``reading``: the readings this claim is decided under (set by
    :meth:`under`; empty: as stated); ``family``: the multiplicity family (default: the figure or
    theorem of ``where``, :func:`family_of`); ``cannot_fail``: why this check cannot come out
    against the claim (it is then *consistent*, never *reproduced*); ``margin``: where the
    tolerance comes from."""
    id: str
    where: str
    statement: str
    test: str
    params: Mapping
    horizon: float | None = None
    quantity: str | None = None
    note: str = ""
    category: str = "paper"
    readings: Mapping = field(default_factory=dict)
    reading: tuple[Reading, ...] = ()
    family: str | None = None
    cannot_fail: str = ""
    margin: str = ""

    def get(self, key, default=None):
        return self.params.get(key, default)

    def require(self, key):
        if key not in self.params:
            raise InputError(f"claim {self.id!r} ({self.test}) needs {key!r}")
        return self.params[key]

    @property
    def reading_label(self) -> str:
        """The readings this claim is decided under, in words ("horizon: T = 1e5; ...")."""
        return "; ".join(f"{r.choice}: {r.text}" for r in self.reading) or AS_STATED

    @property
    def reading_key(self) -> str:
        """The same, short ("horizon=1e5, baseline=batched")."""
        return ", ".join(f"{r.choice}={r.id}" for r in self.reading) or AS_STATED

    def under(self, choices: Mapping[str, Choice]) -> list[Claim]:
        """This claim once per combination of the plausible readings of the choices it depends
        on (itself, as stated, when it depends on none), each with that reading's keys applied:
        top-level keys replaced, ``args`` merged key by key, ``horizon`` the claim's horizon,
        ``cannot_fail`` why the check cannot fail under that reading (an identity of the
        reproduction's choice, say), ``replace`` substituted in every string of the claim
        (:func:`substitute`)."""
        if not self.readings:
            return [self]
        out = []
        for combo in itertools.product(*(choices[c].plausible for c in self.readings)):
            params, horizon, cannot_fail = dict(self.params), self.horizon, self.cannot_fail
            for r in combo:
                for key, value in dict(self.readings[r.choice][r.id]).items():
                    if key == "horizon":
                        horizon = None if value is None else float(value)
                    elif key == "cannot_fail":
                        cannot_fail = str(value)
                    elif key == REPLACE:
                        params = substitute(params, value)
                    elif key == "args" and isinstance(params.get("args"), Mapping):
                        params["args"] = {**params["args"], **value}
                    else:
                        params[key] = value
            out.append(replace(self, params=params, horizon=horizon, reading=tuple(combo), cannot_fail=cannot_fail))
        return out


#: the key of a reading's entry that substitutes text in every string of the claim (run labels,
#: panels, experiment names): ``replace = { "e^-10" = "e^-19" }``.  Substitutions of different
#: choices compose (each applied in turn), where key overrides of one key would not
REPLACE = "replace"


def substitute(value, subs: Mapping[str, str]):
    """``value`` (a claim's keys: strings, tables and lists of them) with every occurrence of each
    key of ``subs`` replaced by its value, in order."""
    if isinstance(value, str):
        for old, new in subs.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, Mapping):
        return {k: substitute(v, subs) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(substitute(v, subs) for v in value)
    return value


# ------------------------------------------------------------------ where in the paper
_FIGURE = re.compile(r"\bFig(?:ure)?s?\.?\s*(\d+)")
_PLACES = (("Table", r"\bTable\s*(\d+)"), ("Theorem", r"\b(?:Theorem|Thm\.?)\s*(\d+(?:\.\d+)?)"),
           ("Lemma", r"\bLemma\s*(\d+)"), ("Corollary", r"\b(?:Corollary|Cor\.)\s*(\d+)"),
           ("Proposition", r"\bProposition\s*(\d+)"), ("Remark", r"\bRemark\s*(\d+)"),
           ("Algorithm", r"\b(?:Algorithm|Alg\.)\s*(\d+)"), ("Sec.", r"\b(?:Sec\.|Section)\s*(\d+(?:\.\d+)*)"),
           ("App.", r"\b(?:App\.|Appendix)\s*([A-Z]\b|\d+)"))
PLACE_ORDER = ["Fig.", *[kind for kind, _ in _PLACES], "Other"]


def location(where: str) -> str:
    """The figure or theorem a claim's ``where`` names first: ``"Sec. 8, Fig. 4(a)"`` -> ``"Fig. 4"``,
    ``"v000 Thm 6 Remark i"`` -> ``"Theorem 6"``; ``"Other"`` if none."""
    m = _FIGURE.search(where)
    if m:
        return f"Fig. {m.group(1)}"
    for kind, pattern in _PLACES:
        m = re.search(pattern, where)
        if m:
            return f"{kind} {m.group(1)}"
    return "Other"


def family_of(claim: Claim) -> str:
    """The multiplicity family of ``claim``: its ``family`` key, else its category and the figure or
    theorem it is about ("paper: Fig. 2"): the paper's claim groups, not the whole report."""
    return claim.family or f"{claim.category}: {location(claim.where)}"
