"""Statistic plug-ins: each module here defines ``FEATURE``, one family of statistics of the outputs.

=============  ===============  ===============================================================
feature        layer            statistics
=============  ===============  ===============================================================
likelihood     law              the exact log-likelihood ratio (when a log_density is given)
category       law              exact categories of discrete outputs; atoms of continuous ones
value          law              each coordinate's value: intervals, tails and complements
score          law              scores of vectors: naive-Bayes, logistic, sign counts
grain          floating_point   granularity classes (binade, trailing zero mantissa bits)
bits           floating_point   sign, exponent and low K mantissa bits (``bitsK``, on request)
=============  ===============  ===============================================================

The interface is :class:`~verify.audit.features.base.Feature`: a plug-in declares its name, its
layer, the fix its violations call for, its candidate statistics, its candidate events (bins)
and how it describes an event.  A new statistic is one new module here: :func:`registry` finds it.

``features`` (``verify.audit(features=...)``, ``dpbench audit --features``) is a sequence of
tokens: a feature's name (``bitsK`` for the low bits), ``auto`` (every default feature: both
layers), or a layer's name (``law``, ``floating_point``: its default features).
"""
from __future__ import annotations

import functools

from dpbench.plugins import import_folder
from dpbench.validation import InputError

from ..layers import LAYERS
from .base import Feature, FitData, Statistic

@functools.cache
def registry() -> tuple[Feature, ...]:
    """Every feature plug-in of this package (a module that defines ``FEATURE``; the others are
    helpers), in their declared order."""
    found = [m.FEATURE for m in import_folder(__name__) if isinstance(getattr(m, "FEATURE", None), Feature)]
    return tuple(sorted(found, key=lambda f: (f.order, f.name)))


def choices() -> list[tuple[str, str]]:
    """(token, one-line help) of every ``features`` token: auto, the layers, then each feature."""
    out = [("auto", "every default feature of both layers (the default)")]
    out += [(layer, f"the default features of the {layer.replace('_', ' ')} layer: "
                    + ", ".join(f.name for f in registry()
                                if f.layer == layer and f.default and not getattr(f, "always", False)))
            for layer in LAYERS]
    return out + [(f.name, f.help) for f in registry()]


def resolve(tokens) -> list[tuple[Feature, dict]]:
    """The (feature, options) pairs that ``tokens`` ask for, in the registry's order.

    InputError for a token that names no feature or layer.  Features that apply whenever their
    input is given (the likelihood ratio) are always included.
    """
    if isinstance(tokens, str):
        tokens = [t.strip() for t in tokens.split(",") if t.strip()]
    wanted: dict[str, tuple[Feature, dict]] = {}
    for token in tokens:
        token = str(token).strip()
        if token == "auto" or token in LAYERS:
            for f in registry():
                if f.default and token in ("auto", f.layer):
                    wanted.setdefault(f.name, (f, {}))
            continue
        for f in registry():
            options = f.accepts(token)
            if options is not None:
                wanted[f.name] = (f, options)
                break
        else:
            allowed = ", ".join(t for t, _ in choices())
            raise InputError(f"features: unknown feature {token!r}; allowed values: {allowed} (bitsK: K in 1..52)")
    for f in registry():
        if getattr(f, "always", False):
            wanted.setdefault(f.name, (f, {}))
    return [wanted[f.name] for f in registry() if f.name in wanted]


def check_not_empty(tokens, always_applies: bool) -> None:
    """InputError for an empty list of features, unless a feature that is always included applies
    (the likelihood ratio, given ``log_density``): an empty list then asks for it alone."""
    if isinstance(tokens, str):
        tokens = tokens.split(",")
    if not always_applies and not [t for t in tokens if str(t).strip()]:
        allowed = ", ".join(t for t, _ in choices())
        raise InputError(f"features: an empty list asks for no statistic; allowed values: {allowed} (bitsK: K in "
                         f"1..52)")


def of_layer(tokens, layer: str) -> tuple[str, ...]:
    """The tokens of the features of ``layer`` among those ``tokens`` ask for (e.g. the law's only)."""
    return tuple(f.name if not options else f"{f.name}{options.get('k', '')}"
                 for f, options in resolve(tokens) if f.layer == layer)


def candidate_statistics(requested: list[tuple[Feature, dict]], data: FitData) -> list[Statistic]:
    """The candidate statistics of every requested feature, fitted on ``data``."""
    out: list[Statistic] = []
    for feature, options in requested:
        data.options = options
        out.extend(feature.statistics(data))
    return out


__all__ = ["Feature", "FitData", "Statistic", "registry", "choices", "resolve", "candidate_statistics"]
