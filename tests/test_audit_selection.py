"""The audit's choice among validated events, on synthetic counts whose truth is known.

Laplace(1/0.1) at x = 0 vs x' = 1 (DP-Sniper's LaplaceMechanism): the half-line output <= 0
has p = 0.5, p' = 0.5 e^-0.1; a two-sided tail has p ~ 0.086 and a ratio a hair below.  At the
suite's n_cert = 3e7 the half-line certifies about 0.0995 and a tail about 0.0981, so an audit
that takes the tail wastes most of its samples (18x the floor in reports/audit_benchmark.md
before the multiplicity margin).  Validation counts are binomial draws at a fixed seed.
"""
import math

import numpy as np

from verify.audit.events import VALIDATION_MARGIN, _proxy, validation_margin
from verify.audit.stages.select import most_promising
from verify.audit.statistics import certifier_for

N_CERT, M, ALPHA = 30_000_000, 3_750_000, 0.1
CENTRAL = (0.5, 0.5 * math.exp(-0.1))
TAIL = (0.0858, 0.0858 * math.exp(-0.0993))
N_TAILS = 15


def _choices(margin, seeds=200):
    """How often the central event is chosen among it and N_TAILS tails, validated on M outputs."""
    rng = np.random.default_rng(7)
    probs = [CENTRAL] + [TAIL] * N_TAILS
    central = 0
    for _ in range(seeds):
        a = np.array([rng.binomial(M, p) for p, _ in probs], dtype=np.float64)
        b = np.array([rng.binomial(M, q) for _, q in probs], dtype=np.float64)
        proxy, se = _proxy(a, b, M, M, N_CERT, ALPHA, margin, 0.0, with_se=True)
        central += most_promising(proxy, se) == 0
    return central / seeds


def test_the_central_event_truly_certifies_more():
    """The premise: at the expected counts the half-line's bound beats the tail's (by the audit's
    certifier at delta = 0, the conditional test on Poisson counts)."""
    bound = [certifier_for(0.0).bound(p * N_CERT, N_CERT, q * N_CERT, N_CERT, ALPHA, 0.0) for p, q in (CENTRAL, TAIL)]
    assert bound[0] > bound[1] + 0.001


def test_validation_margin_counts_the_candidates():
    assert validation_margin(1) == VALIDATION_MARGIN
    assert math.isclose(validation_margin(16), math.sqrt(2 * math.log(16)))


def test_the_multiplicity_margin_picks_the_plentiful_event():
    """With the margin for 16 candidates the half-line wins almost always; with one standard error
    (the margin before) the luckiest of the 15 tails often does: the rule, not the data, decides."""
    assert _choices(validation_margin(N_TAILS + 1)) >= 0.95
    assert _choices(VALIDATION_MARGIN) <= 0.8
