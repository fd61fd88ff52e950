"""Non-private Thompson sampling: the FTPL references of seed 002 (Agrawal & Goyal 2012/2013).

* ``thompson``: Beta-Bernoulli TS, theta_i ~ Beta(R_i + 1, N_i - R_i + 1) (uniform prior),
  i.e. DP-FTPL-Beta without its k_i pseudo-counts and start phase.
* ``gaussian_thompson``: Gaussian TS, one pull per arm, then theta_i ~ N(R_i/N_i, 1/N_i),
  i.e. DP-FTPL-Gauss with v = 1 and no start phase.

Both reuse the components of ``dp_ftpl.py`` (one implementation of each sampling
loop) and see bits: Bernoulli rewards directly, other [0, 1] rewards through the
Bernoulli trick.  They are the eps = infinity baselines of the seed 002 experiments.
"""
from __future__ import annotations

from ..engine.catalog import AlgorithmSpec, Built, register_algorithm
from ..mechanisms.bernoulli_trick import bernoulli_observations
from .dp_ftpl import FTPLBeta, FTPLGauss

register_algorithm(AlgorithmSpec(
    name="thompson", label="Thompson sampling", family="dp_ftpl",
    summary="non-private Beta-Bernoulli Thompson sampling (uniform prior)",
    source="Agrawal & Goyal 2012; seed 002 Sec. 6 (the FTPL it privatises)", params=(),
    build=lambda instance, horizon: Built(FTPLBeta(0, False), bernoulli_observations(instance)),
    rewards="unit"))

register_algorithm(AlgorithmSpec(
    name="gaussian_thompson", label="Gaussian TS", family="dp_ftpl",
    summary="non-private Gaussian Thompson sampling N(R/N, 1/N) after one pull per arm",
    source="Agrawal & Goyal 2013; seed 002 Sec. 6.1", params=(),
    build=lambda instance, horizon: Built(FTPLGauss(1, 1.0), bernoulli_observations(instance)),
    rewards="unit"))
