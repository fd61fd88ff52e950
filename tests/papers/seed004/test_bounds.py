"""Seed 004's order-only bounds (seed_004.md sections 6.1, 6.3)."""
from verify import bounds


def test_seed004_order_bounds():
    central = bounds.get("seed004.thm1").evaluate({})
    assert {e.variable: e.value for e in central.exponents} == {"T": 0.5, "eps": -1.0, "d": 1.0}
    local = bounds.get("seed004.thm2").evaluate({})
    assert {e.variable: e.value for e in local.exponents}["d"] == 1.5
    shuffled = bounds.get("seed004.thm3").evaluate(dict(delta=1e-6))
    assert not shuffled.applicable and "cannot verify" in shuffled.reason
