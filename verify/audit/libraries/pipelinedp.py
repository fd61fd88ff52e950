"""PipelineDP: an additive mechanism of ``pipeline_dp.dp_computations`` (LaplaceMechanism, GaussianMechanism).

PipelineDP's pipelines (``DPEngine.aggregate``) are not mechanisms of one input; the objects they
add noise with are, and expose their claim: ``create_from_epsilon`` / ``create_from_epsilon_delta``.
Sampler: ``mechanism.add_noise(x)`` once per output (it calls python-dp's mechanism, which it wraps).
Claim: that python-dp mechanism's epsilon and delta, for inputs at most the object's
``sensitivity`` apart (:func:`.pydp.numerical_claim`).  A mechanism made from a standard
deviation (PipelineDP's PLD accounting) carries no (eps, delta): a one-line error says so unless
the audit is given a claim.
Seeding: as python-dp (the operating system's entropy): the outputs cannot be seeded.
"""
from __future__ import annotations

from .base import Adapter, Claim, draw, scalar
from .pydp import numerical_claim


class PipelineDP(Adapter):
    """PipelineDP's additive mechanisms (0.2 and later)."""

    name = "pipeline-dp"
    module = "pipeline_dp"
    install = 'pip install "dpbench[libraries]"  (or pip install pipeline-dp)'

    objects = ("dp_computations", ("AdditiveMechanism",))

    def describe(self, obj) -> str:
        return " ".join(obj.describe().split())

    def sample(self, obj, x, n, seed):
        return draw(obj.add_noise, scalar(x, "a PipelineDP mechanism"), n)

    def claim(self, obj, x, x_prime, *, d_in=None, delta=None) -> Claim:
        return numerical_claim(obj._mechanism, x, x_prime, delta, "mechanism", float(obj.sensitivity))

    def seeding(self, obj) -> str:
        return "PipelineDP adds python-dp's noise, drawn from the operating system's entropy, which no seed can fix"

    def default_pair(self, obj) -> tuple | None:
        return 0.0, float(obj.sensitivity)
