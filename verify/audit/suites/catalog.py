"""dpbench's own mechanisms: every catalog mechanism at its claim, and the negative controls.

One default audit per mechanism, both layers from the same samples: the law of every catalog
mechanism must hold its claim, and every catalog mechanism is float-safe by default (input and
noise on a power-of-two lattice), so its floating point holds too; its paper-literal form
(``arithmetic="float"``, ``controls.FLOAT_FORMS``) adds Laplace or Gaussian noise in plain
floating point and must be caught by the floating-point layer (and only there); every negative
control (``controls.negative_controls``) must be caught by the law layer.
"""
from __future__ import annotations

from ..controls import CATALOG_SETTINGS, FLOAT_FORMS, catalog_mechanism, float_form, negative_controls
from ..engine import audit
from ..layers import FLOATING_POINT, LAW


def expectations(mechanism) -> dict:
    """What the audit of a catalog mechanism at its claim must find, per layer: its law holds; its
    floating point is violated exactly when it adds its noise in plain floating point
    (``mechanism.float_unsafe``: the ``arithmetic="float"`` forms; ``controls.FLOAT_UNSAFE`` is
    the same property at the catalog's settings)."""
    return {LAW: "holds", FLOATING_POINT: "violated" if mechanism.float_unsafe else "holds"}


def audit_catalog(n: int = 1_000_000, seed: int = 0) -> list:
    """Rows (name, eps, delta, result, expected per layer) of every catalog mechanism at its
    claim and every negative control (expected: the law violated)."""
    rows = []
    forms = [(name, catalog_mechanism(name)) for name in sorted(CATALOG_SETTINGS)]
    forms += [(f"{name} (arithmetic=float)", float_form(name)) for name in sorted(FLOAT_FORMS)]
    for label, m in forms:
        res = audit(m, eps=m.claimed_eps, delta=m.claimed_delta, n=n, alpha=1e-3, seed=seed)
        rows.append((label, m.claimed_eps, m.claimed_delta, res, expectations(m)))
    for c in negative_controls():
        res = audit(c.mechanism, eps=c.eps, delta=c.delta, n=n, alpha=1e-3, seed=seed)
        rows.append((c.name, c.eps, c.delta, res, {LAW: "violated", FLOATING_POINT: "either"}))
    return rows
