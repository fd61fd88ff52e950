"""python-dp (Google's differential-privacy library): a mechanism of ``pydp.algorithms.numerical_mechanisms``.

Sampler: ``mechanism.add_noise(float(x))`` once per output (the library's double path).  Claim:
LaplaceMechanism its ``epsilon`` for inputs at most its (L1) ``sensitivity`` apart;
GaussianMechanism its ``epsilon`` and ``delta`` for inputs at most its ``l2_sensitivity`` apart.  A
Gaussian made by ``create_from_standard_deviation`` carries no (eps, delta) (both read 0): a
one-line error says so unless the audit is given a claim.  A pair further apart than the
sensitivity is audited as the user's neighbours, with a note (see :mod:`.diffprivlib`).
Seeding: the C++ library draws from its secure generator (absl, seeded by the operating system):
the outputs cannot be seeded.
"""
from __future__ import annotations

from .base import Adapter, Claim, ClaimError, distance_note, draw, implied_delta, number_text, scalar


def numerical_claim(mech, x, x_prime, delta, owner: str, sensitivity: float | None = None) -> Claim:
    """The claim of a python-dp numerical mechanism (also inside PipelineDP's): (epsilon, delta) for
    inputs at most its sensitivity apart (L2 for the Gaussian)."""
    eps, own = float(mech.epsilon), float(getattr(mech, "delta", 0.0))
    gaussian = hasattr(mech, "l2_sensitivity")
    if sensitivity is None:
        sensitivity = float(mech.l2_sensitivity if gaussian else mech.sensitivity)
    if eps <= 0:
        raise ClaimError(f"the {owner} was made from a standard deviation ({float(mech.std):g}), so it carries no "
                         f"(eps, delta) (its epsilon reads {eps:g}); give eps and delta to audit a claim of your own")
    dlt = implied_delta(delta, own, f"(eps, delta) = ({number_text(eps)}, {own:g})")
    what = f"eps = {number_text(eps)}" + (f", delta = {own:g}" if own else "")
    norm = "L2" if gaussian else ""
    return Claim(eps, dlt, f"{what} from the {owner}'s epsilon{' and delta' if own else ''}, for inputs at most its "
                           f"{'L2 ' if gaussian else ''}sensitivity {sensitivity:g} apart",
                 distance_note(x, x_prime, sensitivity, norm))


class PythonDP(Adapter):
    """python-dp's LaplaceMechanism and GaussianMechanism (1.1)."""

    name = "python-dp"
    module = "pydp"
    install = 'pip install "dpbench[libraries]"  (or pip install python-dp)'

    objects = ("algorithms.numerical_mechanisms", ("NumericalMechanism",))

    def describe(self, obj) -> str:
        if hasattr(obj, "l2_sensitivity"):
            return (f"GaussianMechanism(epsilon={obj.epsilon:g}, delta={obj.delta:g}, "
                    f"l2_sensitivity={obj.l2_sensitivity:g})")
        return f"{type(obj).__name__}(epsilon={obj.epsilon:g}, sensitivity={obj.sensitivity:g})"

    def sample(self, obj, x, n, seed):
        return draw(obj.add_noise, scalar(x, "a python-dp mechanism"), n)

    def claim(self, obj, x, x_prime, *, d_in=None, delta=None) -> Claim:
        return numerical_claim(obj, x, x_prime, delta, "mechanism")

    def seeding(self, obj) -> str:
        return "python-dp draws from its secure generator (seeded by the operating system), which no seed can fix"

    def default_pair(self, obj) -> tuple | None:
        return 0.0, float(obj.l2_sensitivity if hasattr(obj, "l2_sensitivity") else obj.sensitivity)
